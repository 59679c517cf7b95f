// axis-order: the Blue Gene mapping orders (seeds 002 and 003).
#ifndef HOPMAP_CORE_MAPPERS_BASELINE_AXIS_ORDER_H_
#define HOPMAP_CORE_MAPPERS_BASELINE_AXIS_ORDER_H_

#include <string>
#include <vector>

#include "core/mappers/mapper.h"

namespace hopmap {

// An order names the machine's dims and T (the core within a node) from the fastest
// varying to the slowest: "TXYZ" fills a node's cores first, then x, then y, then z
// (the in-order placement on a whole torus); "XYZT" puts one task on every node
// before using second cores. Tasks take the slots in that order; allocated nodes
// are ordered by their machine coordinates, so a fragmented allocation works too.
// Machines without coordinates have the one pseudo-dimension N (the allocation
// position): "TN" is in-order, "NT" round-robin.
class AxisOrderMapper final : public Mapper {
 public:
  // Tries every order of T and the dims (T first, then lexicographic; with one core
  // per node only those with T first, the others giving the same sequences), scores
  // each by the objective, and keeps the best (ties: the earlier order). Stops early,
  // with the best so far, when input.stop says so.
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;
};

// The order's slot sequence: sequence[i] is the slot of task i. `order` lists
// indices into {T, dim 0, dim 1, ...} (0 = T), fastest first.
std::vector<SlotId> AxisOrderSlots(const Allocation& allocation, const std::vector<int>& order);
// "TXYZ" for {0, 1, 2, 3} on a 3D torus.
std::string AxisOrderName(const Allocation& allocation, const std::vector<int>& order);

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_BASELINE_AXIS_ORDER_H_
