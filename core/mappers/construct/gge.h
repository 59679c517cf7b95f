// gge: Hoefler & Snir's greedy graph embedding (ICS 2011), the baseline of seeds 001
// and 004, generalised to any machine, fragmented allocations and several cores.
#ifndef HOPMAP_CORE_MAPPERS_CONSTRUCT_GGE_H_
#define HOPMAP_CORE_MAPPERS_CONSTRUCT_GGE_H_

#include "core/mappers/mapper.h"

namespace hopmap {

// The heaviest task (by bytes) goes to the most central allocated node; then,
// repeatedly, the unmapped task with the most bytes to mapped tasks goes to the
// free node where those bytes travel the fewest hop-bytes (searched outward from
// its mapped neighbours' nodes, so a neighbour's node with a free core, at 0 hops,
// comes first). When a component of the task graph is exhausted, the heaviest
// unmapped task restarts the embedding on the free node nearest the last one used.
// O((n + E) log n) plus the free-node searches. Deterministic, no randomness.
class GreedyGraphEmbeddingMapper final : public Mapper {
 public:
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_CONSTRUCT_GGE_H_
