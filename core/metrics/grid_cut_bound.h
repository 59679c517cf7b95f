// A lower bound for near-neighbour grids on nodes with several cores, from the
// edge-isoperimetric inequality of the grid.
#ifndef HOPMAP_CORE_METRICS_GRID_CUT_BOUND_H_
#define HOPMAP_CORE_METRICS_GRID_CUT_BOUND_H_

#include <optional>
#include <vector>

#include "core/graph/task_graph.h"
#include "core/topology/allocation.h"

namespace hopmap {

// The most edges c cells of the infinite d-dimensional grid Z^d can have among
// themselves: floor(d*c - d*c^((d-1)/d)). From Loomis-Whitney: the edge boundary of
// a set S is at least 2 * sum of its d axis projections >= 2d|S|^((d-1)/d), and
// 2 * internal edges + boundary = 2d|S|. Cubes reach it.
int64_t MaxInternalGridEdges(int32_t d, int64_t c);

// When every edge of `graph` is a unit step of the grid with dims `dims` (task =
// c0 + D0*(c1 + D1*(...)), a dim wrapping where `periodic` says), a node's c cores
// hold at most MaxInternalGridEdges(d, c) edges: the c cells lift to Z^d without
// gaining edges as long as c is below every periodic dim's size (a cycle that wraps
// is at least that long). So at most floor(n/c) full nodes' worth of edges, the
// heaviest ones at best, stay inside nodes, and every other byte crosses at least
// the machine's minimum hop count. nullopt when the graph is not such a grid or the
// wrap condition fails. O(m log m).
std::optional<HopBytes> GridCutLowerBound(const TaskGraph& graph, const Allocation& allocation,
                                          const std::vector<int32_t>& dims,
                                          const std::vector<bool>& periodic);

}  // namespace hopmap

#endif  // HOPMAP_CORE_METRICS_GRID_CUT_BOUND_H_
