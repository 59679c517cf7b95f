// exact: branch and bound with the Gilmore-Lawler bound (seed 001), proving the
// optimal hop-bytes for small task graphs.
#ifndef HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_EXACT_H_
#define HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_EXACT_H_

#include <cstdint>

#include "core/mappers/mapper.h"

namespace hopmap {

// Above these sizes (tasks, slots) the search is refused (ResourceExhausted)
// (docs/tuning.md).
inline constexpr int32_t kExactMaxTasks = 20;
inline constexpr int64_t kExactMaxSlots = 256;

// Tasks are assigned heaviest-connected first. Every child is bounded by the
// Gilmore-Lawler bound of the remaining subproblem: the cost among placed tasks, plus
// an assignment of the unplaced tasks to the free slots where task i on slot k costs
// its edges to placed tasks exactly and its edges among unplaced tasks by the
// minimal scalar product with k's distances to the other free slots. Free cores of
// one node are interchangeable, so only the lowest is tried; so are empty twin nodes
// (the same hops to every other node), of which only the first is tried. The incumbent starts from
// a 2-exchange local search (RefinePlacement) from several seeded starts. The subtrees
// below the first two levels run in parallel on the caller's TBB arena; each keeps its
// own best and prunes only strictly above the shared one, so the mapping returned
// (the first optimal leaf of the first subtree that has one) does not depend on the
// thread count or timing. MapOutput::variant is "proven" when the search finished,
// "not proven" when the budget ended first (the best mapping found is returned).
struct ExactOptions {
  // Seeded random starts of the incumbent's 2-exchange local search (in-order and
  // the caller's initial mapping are always tried). With local_search false the
  // incumbent is the in-order mapping as it is, so the search itself must find the
  // optimum (tests use this).
  int local_search_starts = 16;
  bool local_search = true;
  absl::Status Validate() const;
};

class ExactMapper final : public Mapper {
 public:
  explicit ExactMapper(ExactOptions options = {}) : options_(options) {}
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;

 private:
  ExactOptions options_;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_EXACT_H_
