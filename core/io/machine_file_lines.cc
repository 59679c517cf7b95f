#include "core/io/machine_file_lines.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/topology/hostlist.h"

namespace hopmap::io_internal {

std::vector<Line> SplitLines(const std::string& text, bool continuations) {
  std::istringstream in(text);
  std::vector<Line> lines;
  std::string raw;
  std::string pending;
  int pending_line = 0;
  int number = 0;
  while (std::getline(in, raw)) {
    ++number;
    if (const size_t hash = raw.find('#'); hash != std::string::npos) raw.resize(hash);
    absl::string_view text_line = absl::StripAsciiWhitespace(raw);
    bool more = false;
    if (continuations && absl::EndsWith(text_line, "\\")) {
      text_line.remove_suffix(1);
      more = true;
    }
    if (pending_line == 0) pending_line = number;
    if (!pending.empty() && !text_line.empty()) pending.push_back(' ');
    pending.append(text_line.data(), text_line.size());
    if (more) continue;
    if (!pending.empty()) lines.push_back({pending_line, std::move(pending)});
    pending.clear();
    pending_line = 0;
  }
  if (!pending.empty()) lines.push_back({pending_line, std::move(pending)});
  return lines;
}

absl::StatusOr<std::vector<Line>> ReadLines(const std::string& path, bool continuations) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open the file"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return SplitLines(buffer.str(), continuations);
}

std::vector<absl::string_view> Words(absl::string_view text) {
  return absl::StrSplit(text, absl::ByAnyChar(" \t\r\f\v"), absl::SkipEmpty());
}

absl::StatusOr<std::vector<std::string>> ExpandWithinBudget(absl::string_view expr,
                                                            size_t& names_left) {
  absl::StatusOr<std::vector<std::string>> names = ExpandHostlist(expr, names_left);
  if (!names.ok()) {
    if (names.status().message().find("more than") == absl::string_view::npos) return names;
    return absl::InvalidArgumentError(absl::StrCat(names.status().message(),
                                                   " (a file may name at most ", kMaxNamesPerFile,
                                                   " nodes and switches in all)"));
  }
  names_left -= names->size();
  return names;
}

}  // namespace hopmap::io_internal
