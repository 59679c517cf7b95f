// Slurm hostlist expressions: "nid[00012-00014,00200]", "r[1-2]n[01-02]", "a1,b[1-2]".
#ifndef HOPMAP_CORE_TOPOLOGY_HOSTLIST_H_
#define HOPMAP_CORE_TOPOLOGY_HOSTLIST_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hopmap {

// Expands a Slurm hostlist expression into host names, in order:
// - top-level items are separated by commas ("a1,b[1-2]" -> a1, b1, b2); commas
//   inside brackets do not split; spaces around an item are ignored;
// - a bracket group holds comma-separated numbers and inclusive ranges
//   ("nid[00012-00014,00200]" -> nid00012, nid00013, nid00014, nid00200); a range
//   keeps the zero padding of its first number (its width in digits: "[08-10]" ->
//   08, 09, 10; "[8-10]" -> 8, 9, 10);
// - several groups in one name give the cartesian product, the leftmost group
//   varying slowest ("r[1-2]n[01-02]" -> r1n01, r1n02, r2n01, r2n02), as Slurm does;
// - a name without brackets is itself.
// Errors name the problem and its 0-based character position in `expr`: an
// unbalanced or nested bracket, an empty item or range, a reversed range ("5-3"), a
// non-digit inside brackets, a number too long, or more than `max_names` names.
absl::StatusOr<std::vector<std::string>> ExpandHostlist(absl::string_view expr,
                                                        size_t max_names = 10'000'000);

// The shortest-looking hostlist that ExpandHostlist gives back as `names`, in the
// same order: runs of names that differ only in a trailing number share a bracket
// group, consecutive numbers make a range ("n01", "n02", "n03", "n07", "m1" ->
// "n[01-03,07],m1"). A range keeps one zero padding; names without a trailing
// number are written as they are. "" for no names.
std::string CompressHostlist(const std::vector<std::string>& names);

// Splits `text` at the commas that are not inside [...] ("a[1,2],b" -> "a[1,2]",
// "b"). Pieces are returned as they are (not trimmed); "" gives one empty piece and
// "a," gives "a" and "". An unclosed '[' keeps the rest of the text in one piece.
std::vector<std::string> SplitTopLevelCommas(absl::string_view text);

}  // namespace hopmap

#endif  // HOPMAP_CORE_TOPOLOGY_HOSTLIST_H_
