// Hierarchical multisection: the field's construction for hierarchical machines
// (SharedMap, Schulz and Woydt 2025; Faraj et al. 2020): the objects are cut into
// as many parts as the top level has groups, each part again into its group's
// subgroups, down to the nodes, each cut a k-way partition that minimises the edge
// cut, since on a hierarchy every edge cut at a level costs that level's distance
// whichever groups it joins.
#ifndef HOPMAP_CORE_BALANCE_MULTISECTION_H_
#define HOPMAP_CORE_BALANCE_MULTISECTION_H_

#include <cstdint>
#include <span>
#include <vector>

#include "core/balance/balance_problem.h"
#include "core/search/position_graph.h"
#include "core/search/solve_options.h"

namespace hopmap {

// The placement of the hierarchical multisection, each node's objects then spread
// over its cores (SpreadOverCores). Each cut is METIS k-way with the loads as
// vertex weights and targets in proportion to the groups' slots (less their
// background load), within the adaptive imbalance of SharedMap: a group holding W'
// of load for T' of capacity, h levels above the nodes, allows
// ((1 + imbalance) T' / W')^(1/h) - 1, so the slack a level leaves unused passes
// down. Groups are cut in parallel; each cut's METIS seed comes from
// (options.seed, group), so the result does not depend on the threads. Runs to the
// end whatever the deadline (a half-done start is worse than a late one); stops
// early only on cancellation, leaving the groups not cut in object order. Empty when
// the allocation is not a hierarchy (HierarchyOfPositions).
// `hierarchy`: the allocation's HierarchyOfPositions when the caller has it (a
// solve that cuts several starts builds it once); null: built here.
std::vector<SlotId> MultisectionPlacement(const BalanceInput& input, double imbalance,
                                          const MapperOptions& options, const StopCondition& stop,
                                          const PositionGroup* hierarchy = nullptr);

// A placement's objects refined along the hierarchy, top level first: at each
// group, the parts are the children holding the objects' positions (an object
// moved into the group above joins the child its neighbours mostly are in), and
// the same k-way FM V-cycles as the multisection's lower the edge cut between the
// children within the adaptive imbalance; each node's objects are then spread over
// its cores. Empty when the allocation is not a hierarchy.
std::vector<SlotId> RefineAlongHierarchy(const BalanceInput& input,
                                         std::span<const SlotId> slot_of_task, double imbalance,
                                         const MapperOptions& options, const StopCondition& stop,
                                         const PositionGroup* hierarchy = nullptr);

}  // namespace hopmap

#endif  // HOPMAP_CORE_BALANCE_MULTISECTION_H_
