// rcm: Hoefler & Snir's graph-similarity mapping with reverse Cuthill-McKee.
#ifndef HOPMAP_CORE_MAPPERS_CONSTRUCT_RCM_H_
#define HOPMAP_CORE_MAPPERS_CONSTRUCT_RCM_H_

#include "core/mappers/mapper.h"

namespace hopmap {

// Orders the tasks by reverse Cuthill-McKee on the task graph and the allocated
// nodes by reverse Cuthill-McKee on their nearest-neighbour graph (PositionGraph:
// one-hop neighbours on a torus/mesh), then puts the i-th task on the i-th slot
// (a node's cores consecutively), so both bandwidth-reduced orders line up.
// O(E log deg + m). Deterministic, no randomness.
class RcmMapper final : public Mapper {
 public:
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_CONSTRUCT_RCM_H_
