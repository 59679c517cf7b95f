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
// labels with the edges' bytes). The order is then breadth-first from the task of
// least label, a new component from its least-labelled task. The tasks one step
// reaches go by label; tasks of one label by the positions of their neighbours
// already ordered, and a few such tasks are placed one at a time, each choice then
// telling the rest apart (two triangles hanging off one task), with what lies within
// a few steps as the last word (the inside of a structured mesh, which colour
// refinement leaves alike). Twins (the same neighbours) and tasks still alike fall
// back on their ids: for twins either order gives the same graph; for the others
// (long chains of a road network) the order can still depend on the numbering.
// Breadth-first keeps neighbours close in the new numbering, as a mesh's own
// numbering does. `loads` is empty (all equal) or one per task.
std::vector<TaskId> CanonicalOrder(const TaskGraph& graph, std::span<const double> loads = {});

// How many distinct labels CanonicalOrder's refinement ends with: num_tasks() when
// the order depends on nothing but the graph.
int64_t CanonicalLabelCount(const TaskGraph& graph, std::span<const double> loads = {});

}  // namespace hopmap

#endif  // HOPMAP_CORE_GRAPH_CANONICAL_ORDER_H_
