#include "core/io/line_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace hopmap {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

// An error status for a failed system call on `path`, coded by errno.
absl::Status ErrnoError(const std::string& path, absl::string_view what, int err) {
  std::string message = absl::StrCat(path, ": ", what, ": ", std::strerror(err));
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    default:
      return absl::FailedPreconditionError(message);
  }
}

// Closes a file descriptor when it goes out of scope.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  // Closes now and reports close()'s errno (0 on success).
  int Close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

}  // namespace

absl::Status LineError(const std::string& source, int64_t line, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(source, ":", line, ": ", message));
}

absl::Status SourceError(const std::string& source, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(source, ": ", message));
}

LineReader::LineReader(absl::string_view text, std::string source)
    : text_(text), source_(std::move(source)) {
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
}

bool LineReader::Next(absl::string_view* line) {
  if (pos_ >= text_.size()) return false;
  size_t end = text_.find('\n', pos_);
  size_t next = end + 1;
  if (end == absl::string_view::npos) {
    end = text_.size();
    next = end;
  }
  absl::string_view l = text_.substr(pos_, end - pos_);
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  *line = l;
  pos_ = next;
  ++line_;
  return true;
}

TokenReader::TokenReader(absl::string_view text, std::string source)
    : lines_(text, std::move(source)) {}

bool TokenReader::Next(absl::string_view* token) {
  while (true) {
    size_t i = 0;
    while (i < rest_.size() && IsSpace(rest_[i])) ++i;
    rest_.remove_prefix(i);
    if (!rest_.empty()) break;
    if (!lines_.Next(&rest_)) {
      token_line_ = lines_.line_number();
      return false;
    }
  }
  size_t end = 0;
  while (end < rest_.size() && !IsSpace(rest_[end])) ++end;
  *token = rest_.substr(0, end);
  rest_.remove_prefix(end);
  token_line_ = lines_.line_number();
  return true;
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(path, "cannot open", errno);
  FdCloser closer(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) return ErrnoError(path, "cannot read", errno);
  if (S_ISDIR(st.st_mode)) return ErrnoError(path, "cannot read", EISDIR);
  std::string contents;
  if (S_ISREG(st.st_mode) && st.st_size > 0) contents.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  while (true) {
    const ssize_t got = ::read(fd, buffer, sizeof(buffer));
    if (got < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(path, "cannot read", errno);
    }
    if (got == 0) break;
    contents.append(buffer, static_cast<size_t>(got));
  }
  return contents;
}

namespace {

// Writes `contents` into what `path` already is (a device, a FIFO, a terminal).
absl::Status WriteInPlace(const std::string& path, absl::string_view contents) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(path, "cannot open", errno);
  FdCloser closer(fd);
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t put = ::write(fd, contents.data() + done, contents.size() - done);
    if (put < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(path, "cannot write", errno);
    }
    done += static_cast<size_t>(put);
  }
  if (const int err = closer.Close(); err != 0) return ErrnoError(path, "cannot write", err);
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteFileAtomically(const std::string& given_path, absl::string_view contents) {
  // Only a regular file is replaced. Renaming over /dev/null, /dev/stdout or a named
  // pipe would put a regular file where the device was (as root, for every program
  // on the machine), so what is not a regular file is written in place; a directory
  // is refused by open. A symbolic link keeps pointing where it did: its target is
  // replaced.
  struct stat st;
  if (::stat(given_path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return WriteInPlace(given_path, contents);
  }
  std::string path = given_path;
  if (::lstat(given_path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    char* target = ::realpath(given_path.c_str(), nullptr);
    if (target != nullptr) {
      path = target;
      std::free(target);
    }
  }
  // A name no other writer in this process or another one uses at the same time.
  static std::atomic<uint64_t> counter{0};
  const std::string tmp = absl::StrCat(path, ".tmp.", ::getpid(), ".", counter.fetch_add(1));
  // 0666 before the umask, as any newly created file.
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return ErrnoError(tmp, "cannot create", errno);
  FdCloser closer(fd);
  auto fail = [&tmp, &path](absl::string_view what, int err) {
    ::unlink(tmp.c_str());
    return ErrnoError(path, what, err);
  };
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t put = ::write(fd, contents.data() + done, contents.size() - done);
    if (put < 0) {
      if (errno == EINTR) continue;
      return fail("cannot write", errno);
    }
    done += static_cast<size_t>(put);
  }
  if (::fsync(fd) != 0) return fail("cannot write", errno);
  if (const int err = closer.Close(); err != 0) return fail("cannot write", err);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("cannot rename the new file", errno);
  return absl::OkStatus();
}

}  // namespace hopmap
