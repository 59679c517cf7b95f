// Internal to core/io: what the readers of line-based machine files share (Slurm's
// topology.conf, hopmap's switch-graph and hop-matrix files): their lines without
// comments, and the budget of names one file may give. Not a public API.
#ifndef HOPMAP_CORE_IO_MACHINE_FILE_LINES_H_
#define HOPMAP_CORE_IO_MACHINE_FILE_LINES_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hopmap::io_internal {

// One line of a file with its (first) line number, comment removed and trimmed.
struct Line {
  int number;
  std::string text;
};

// The non-blank lines of `text` with '#' comments removed. With `continuations`, a
// line ending in a backslash goes on with the next one (the joined line keeps the
// first line's number).
std::vector<Line> SplitLines(const std::string& text, bool continuations);
// The same from a file: NotFound "PATH: cannot open the file" if it cannot be opened.
absl::StatusOr<std::vector<Line>> ReadLines(const std::string& path, bool continuations);

// The words of a line, split at blanks.
std::vector<absl::string_view> Words(absl::string_view text);

// The most names (nodes and switches, counted as their hostlists expand) one machine
// file may give: above any Slurm cluster built so far, and a few bytes such as
// "n[0-9999999]" cannot build a machine of millions of nodes (docs/tuning.md).
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
inline constexpr size_t kMaxNamesPerFile = size_t{1} << 14;  // fuzz builds: see CMakeLists.txt
#else
inline constexpr size_t kMaxNamesPerFile = size_t{1} << 18;
#endif

// Expands the hostlist `expr` within what is left of the file's budget of names
// (`names_left`, which it lowers); past the budget the error says so.
absl::StatusOr<std::vector<std::string>> ExpandWithinBudget(absl::string_view expr,
                                                            size_t& names_left);

}  // namespace hopmap::io_internal

#endif  // HOPMAP_CORE_IO_MACHINE_FILE_LINES_H_
