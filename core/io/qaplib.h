// QAPLIB .dat (instance) and .sln (solution) files.
#ifndef HOPMAP_CORE_IO_QAPLIB_H_
#define HOPMAP_CORE_IO_QAPLIB_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/metrics/qap.h"

namespace hopmap {

// A .dat file: n, then the n x n flow matrix A, then the n x n distance matrix B,
// whitespace separated (line breaks anywhere). Errors name source:line and what is
// wrong (missing or extra numbers, a non-integer, n out of 1..kMaxQapSize).
inline constexpr int32_t kMaxQapSize = 4096;
absl::StatusOr<QapInstance> ParseQaplib(absl::string_view text, absl::string_view source);
absl::StatusOr<QapInstance> ReadQaplib(const std::string& path);

// A .sln file: "n cost" then the permutation, 1-based (QAPLIB), separated by
// whitespace or commas. Returned 0-based. A permutation of 0..n-1 (a 0 and no n, as
// in tai40a.sln) is read as 0-based. Some files store the inverse permutation
// (BKS.tsv's sln_perm_note): the caller inverts those.
struct QapSolution {
  int32_t n = 0;
  int64_t cost = 0;
  std::vector<int32_t> permutation;
};
absl::StatusOr<QapSolution> ParseQaplibSolution(absl::string_view text, absl::string_view source);

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_QAPLIB_H_
