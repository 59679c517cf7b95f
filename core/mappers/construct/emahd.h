// emahd: seed 001's exhaustive-start MAHD.
#ifndef HOPMAP_CORE_MAPPERS_CONSTRUCT_EMAHD_H_
#define HOPMAP_CORE_MAPPERS_CONSTRUCT_EMAHD_H_

#include "core/mappers/mapper.h"

namespace hopmap {

// MAHD (mahd.h) from every allocated node as the first task's node, keeping the
// run of fewest hop-bytes (ties: the earlier start). Starts are tried most central
// first, in batches run in parallel (tbb::parallel_for over start indices); a new
// batch starts only while the time limit allows, and the first start always runs.
// Each start is deterministic, so the result depends only on how many starts ran:
// identical across runs whenever every start fits the budget, or when
// MapperOptions::iteration_limit L (the L most central starts) ends it. The variant
// names the winning start ("start 17 (node 301)"); the statistics count the starts
// (`starts_completed`, `starts`). A run the time limit interrupts is dropped.
class ExhaustiveMahdMapper final : public Mapper {
 public:
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_CONSTRUCT_EMAHD_H_
