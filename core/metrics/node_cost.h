// The cost inside the nodes (NodeInterior, issue 34) and the full cost of a mapping:
// hop_cost x hop-bytes (the network) plus the node cost.
#ifndef HOPMAP_CORE_METRICS_NODE_COST_H_
#define HOPMAP_CORE_METRICS_NODE_COST_H_

#include <span>

#include "core/graph/task_graph.h"
#include "core/topology/allocation.h"

namespace hopmap {

// Sum over the edges whose two tasks share a node of w(u,v) x the node distance of
// their cores (0 for two tasks on one core), each edge once; 0 when the machine has
// no node interior. Exact integers, parallel on the current TBB arena.
HopBytes ComputeNodeCost(const TaskGraph& graph, const Allocation& allocation,
                         std::span<const SlotId> slot_of_task);

// hop_cost x hop_bytes + node_cost (the machine must have a node interior).
HopBytes FullCost(const Allocation& allocation, HopBytes hop_bytes, HopBytes node_cost);

}  // namespace hopmap

#endif  // HOPMAP_CORE_METRICS_NODE_COST_H_
