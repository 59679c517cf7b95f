// OHTMA (seed 004, Li et al., Algorithm 1): a weighted greedy placement, then one
// Kernighan-Lin-like pass of best-pair exchanges (each task exchanged at most once,
// "status" marks), then a backtrack to the best prefix of the exchanges.
//
// Two implementations of the same algorithm, producing the same mapping (same
// arithmetic, same tie-breaks):
//  - literal: the paper's cost per step as written: every greedy step recomputes
//    comm_p and hops_n from the dense matrices A and B (O(n^2 + S^2) per step), every
//    exchange step recomputes Cost_ij for every unmarked pair from scratch (O(n) per
//    pair, O(n^3) per step). Kept for tests and the timing benchmark.
//  - default: the greedy keeps the two sums of every task and processor and updates
//    them for the neighbours of the chosen task and every processor (O(n + S) per
//    step); the exchange phase keeps the gain of every unmarked pair and, after an
//    exchange, changes only the pairs that involve a neighbour of the two moved tasks,
//    each by an O(1) formula, with the best partner of every task kept per row
//    (about O(n * (deg(m) + deg(n))) per step instead of O(n^3)).
#ifndef HOPMAP_CORE_MAPPERS_CONSTRUCT_OHTMA_H_
#define HOPMAP_CORE_MAPPERS_CONSTRUCT_OHTMA_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/mappers/mapper.h"

namespace hopmap {

struct OhtmaOptions {
  // Follow the paper's cost per step as written (see above). Same result, slower.
  bool literal = false;
  // The paper's `loop`: exchange steps per pass. 0: half the number of tasks, the
  // paper's setting ("defined as half of the number of uploaded processes"), which
  // is also the most one pass can make since each step marks two tasks.
  int64_t exchange_steps = 0;
  // Exchange passes. The paper runs one; more passes restart the exchange phase
  // (marks cleared) from the backtracked mapping while the previous pass kept at
  // least one exchange.
  int32_t passes = 1;
  // Most tasks accepted: the exchange phase keeps the gain of every pair of tasks,
  // n(n-1)/2 64-bit numbers (8192 tasks: 268 MB; the literal version keeps a dense
  // n x n traffic matrix instead).
  int32_t max_tasks = 8192;

  absl::Status Validate() const;
};

class OhtmaMapper final : public Mapper {
 public:
  explicit OhtmaMapper(OhtmaOptions options = {}) : options_(options) {}
  // Starts from input.initial when given (the exchange phase improves it), else from
  // the greedy placement. Returns the best prefix found so far when input.stop says so.
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;

 private:
  OhtmaOptions options_;
};

// Steps 1-19 of Algorithm 1 alone: the greedy placement OHTMA starts from. `literal`
// picks the implementation (the result is the same).
absl::StatusOr<std::vector<SlotId>> OhtmaGreedyPlacement(const TaskGraph& graph,
                                                         const Allocation& allocation,
                                                         bool literal = false);

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_CONSTRUCT_OHTMA_H_
