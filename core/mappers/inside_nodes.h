// Placing each node's tasks on its cores (issue 34): with a node interior
// (NodeInterior), the network cost of a mapping depends only on which node each task
// is on, and the node cost only on the cores inside each node. So after any mapper
// has chosen the nodes, each node's tasks are laid out on its PEs on their own: the
// cheapest of three starts (the node's tasks recursively bisected onto its levels as
// a hierarchy machine, top level first; an affinity order, the task most tied to
// those placed so far next, filled into the PEs in hierarchy order; the cores the
// mapper gave), then pairwise swaps (empty cores included) while one lowers the
// node cost. Nodes are independent and
// run in parallel; each is sequential with fixed tie-breaks, so the answer does not
// depend on the threads.
#ifndef HOPMAP_CORE_MAPPERS_INSIDE_NODES_H_
#define HOPMAP_CORE_MAPPERS_INSIDE_NODES_H_

#include <optional>
#include <span>
#include <vector>

#include "core/graph/task_graph.h"
#include "core/topology/allocation.h"
#include "core/topology/node_interior.h"

namespace hopmap {

// `slot_of_task` (one task per slot) with every task kept on its node and the cores
// inside each node chosen for a low node cost (never higher than the input's).
// Unchanged when the machine has no node interior.
std::vector<SlotId> PlaceInsideNodes(const TaskGraph& graph, const Allocation& allocation,
                                     std::span<const SlotId> slot_of_task);

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_INSIDE_NODES_H_
