// CanonicalOrder: a numbering of a graph's tasks that follows from its structure and
// weights, not from the ids it came with, so a solve run on it gives the same answer
// however the caller numbered the same graph (issue 46).
#ifndef HOPMAP_CORE_GRAPH_CANONICAL_ORDER_H_
#define HOPMAP_CORE_GRAPH_CANONICAL_ORDER_H_

#include <cstdint>
#include <span>
#include <vector>

#include "core/graph/task_graph.h"
#include "core/types.h"

namespace hopmap {

// Every task once: order[i] is the task that becomes task i. Each task gets a
// label from its load and its neighbourhood, refined round after round until the
// labels split the tasks no further (colour refinement, as graph-isomorphism tests
// use: a task's next label hashes its own and the multiset of its neighbours'
// labels with the edges' bytes); the order is then breadth-first from the task of
// least label, the tasks one step reaches by label, then by the positions of their
// neighbours already ordered, a new component from its least-labelled task.
// Breadth-first keeps neighbours close in the new numbering, as a mesh's own
// numbering does. Tasks still tied fall back on their ids: twins (tasks with the
// same neighbours: either order gives the same graph), and in graphs with many
// symmetric parts (a social network's) some that are not, so there the order can
// still depend on the numbering. `loads` is empty (all equal) or one per task.
std::vector<TaskId> CanonicalOrder(const TaskGraph& graph, std::span<const double> loads = {});

// How many distinct labels CanonicalOrder's refinement ends with: num_tasks() when
// the order depends on nothing but the graph.
int64_t CanonicalLabelCount(const TaskGraph& graph, std::span<const double> loads = {});

}  // namespace hopmap

#endif  // HOPMAP_CORE_GRAPH_CANONICAL_ORDER_H_
