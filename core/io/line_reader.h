// Helpers every graph reader shares: a line reader and a token reader over text in
// memory that make "SOURCE:LINE: message" errors, and whole-file read / atomic write.
#ifndef HOPMAP_CORE_IO_LINE_READER_H_
#define HOPMAP_CORE_IO_LINE_READER_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hopmap {

// "SOURCE:LINE: message", as an InvalidArgument status.
absl::Status LineError(const std::string& source, int64_t line, absl::string_view message);
// "SOURCE: message", for problems not tied to one line (e.g. a count checked at the end).
absl::Status SourceError(const std::string& source, absl::string_view message);

// Splits text into lines. A line ends at '\n' (a '\r' before it is dropped); a
// final line without '\n' is returned too, but a trailing '\n' does not make an
// extra empty line. A UTF-8 byte order mark at the start of the text is skipped.
// The text must outlive the reader.
class LineReader {
 public:
  LineReader(absl::string_view text, std::string source);

  // Sets *line to the next line and returns true, or returns false at the end.
  bool Next(absl::string_view* line);
  // The 1-based number of the last line returned (0 before the first).
  [[nodiscard]] int64_t line_number() const { return line_; }
  [[nodiscard]] const std::string& source() const { return source_; }
  // Bytes of the whole text (to check a header's declared sizes against).
  [[nodiscard]] size_t text_size() const { return text_.size(); }

  // "SOURCE:LINE: message" for the last line returned.
  [[nodiscard]] absl::Status Error(absl::string_view message) const {
    return LineError(source_, line_, message);
  }
  // "SOURCE: message".
  [[nodiscard]] absl::Status FileError(absl::string_view message) const {
    return SourceError(source_, message);
  }

 private:
  absl::string_view text_;
  size_t pos_ = 0;
  int64_t line_ = 0;
  std::string source_;
};

// Splits text into whitespace-separated tokens (space, tab, '\r', '\n', '\f',
// '\v'), however they are spread over lines, and remembers the line of each.
class TokenReader {
 public:
  TokenReader(absl::string_view text, std::string source);

  // Sets *token to the next token and returns true, or returns false at the end.
  bool Next(absl::string_view* token);
  // The line of the last token returned (the last line read after the end).
  [[nodiscard]] int64_t line_number() const { return token_line_; }
  [[nodiscard]] const std::string& source() const { return lines_.source(); }
  [[nodiscard]] size_t text_size() const { return lines_.text_size(); }

  // "SOURCE:LINE: message" for the line of the last token.
  [[nodiscard]] absl::Status Error(absl::string_view message) const {
    return LineError(lines_.source(), token_line_, message);
  }
  [[nodiscard]] absl::Status FileError(absl::string_view message) const {
    return lines_.FileError(message);
  }

 private:
  LineReader lines_;
  absl::string_view rest_;  // the unread part of the current line
  int64_t token_line_ = 0;
};

// Reads a whole file. Errors: "PATH: cannot open: <reason>" / "PATH: cannot read: <reason>".
absl::StatusOr<std::string> ReadFileToString(const std::string& path);

// Writes `contents` to a new file beside `path`, flushes it to disk and renames it
// over `path`, so readers see the old file or the new one, never a half-written
// one. The temporary file is removed on failure. A `path` that exists and is not a
// regular file (/dev/null, /dev/stdout, a FIFO) is written in place instead, and a
// symbolic link's target is the file replaced.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents);

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_LINE_READER_H_
