// The cores inside each node for the balanced problem (issue 34): with a node
// interior, the balanced solve places the objects on nodes for hop-bytes, and each
// node's objects then go to its PEs for a low node cost within the load cap: the
// node's levels cut top first by the hierarchical multisection (a node is a small
// hierarchy machine), repaired and refined on the node's distances.
#ifndef HOPMAP_CORE_BALANCE_INSIDE_NODES_BALANCED_H_
#define HOPMAP_CORE_BALANCE_INSIDE_NODES_BALANCED_H_

#include <span>
#include <vector>

#include "core/balance/balance_problem.h"
#include "core/search/solve_options.h"

namespace hopmap {

// `slot_of_task` with every object kept on its node and each node's cores chosen
// anew when that lowers the node's cost and loads no core above max(cap, the
// node's highest core load before). Unchanged without a node interior, or with a
// current placement (moving between cores of a node is a migration, which the
// balancer has already weighed). Nodes run in parallel; each is deterministic for
// options.seed.
std::vector<SlotId> LayOutCoresInsideNodes(const BalanceInput& input,
                                           std::span<const SlotId> slot_of_task, double cap,
                                           const MapperOptions& options, const StopCondition& stop);

}  // namespace hopmap

#endif  // HOPMAP_CORE_BALANCE_INSIDE_NODES_BALANCED_H_
