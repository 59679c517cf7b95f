// Lower bounds on the hop-bytes any mapping of a graph onto an allocation can reach.
#ifndef HOPMAP_CORE_METRICS_LOWER_BOUND_H_
#define HOPMAP_CORE_METRICS_LOWER_BOUND_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/graph/task_graph.h"
#include "core/topology/allocation.h"

namespace hopmap {

struct LowerBound {
  HopBytes value = 0;
  std::string method;  // which bound gave `value`, e.g. "degree"
};

// The capacity-aware degree bound. Around a task u, at most cores - 1 neighbours
// share its node (0 hops) and at most cores * ball(h) - 1 lie within h hops
// (Allocation::ball_sizes), so the cheapest way to place u's neighbours puts the heaviest ones
// closest. Summing that per-task minimum over all tasks counts every edge twice, so half of it
// (rounded up) is a valid bound. O(m log d) time, O(max degree) extra memory per
// thread.
LowerBound DegreeLowerBound(const TaskGraph& graph, const Allocation& allocation);

// The degree bound when nodes hold load instead of a number of tasks (the balanced
// problem: many objects per slot). Every node carries at most `node_capacity` load,
// so within h hops of object u lies at most node_capacity * ball(h) - load(u) of its
// neighbours' load; the cheapest arrangement puts the neighbours with the most bytes
// per unit of load closest, splitting one where a ball fills (a fractional knapsack
// per ball, exact for this relaxation; zero-load neighbours always fit at home).
// Half the sum over objects, each rounded down, is valid. `loads` has one entry
// per task. method: "degree-loads".
LowerBound LoadedDegreeLowerBound(const TaskGraph& graph, const Allocation& allocation,
                                  std::span<const double> loads, double node_capacity);

// The task graph's grid, for the grid-cut bound: the dims and wrap of a
// near-neighbour grid (a stencil PatternReport's `dims` and `periodic`). Metrics
// does not analyse graphs: the caller says (core/analysis's AnalyzePattern).
struct GridShape {
  std::vector<int32_t> dims;
  std::vector<bool> periodic;
};

// The best bound available for this size: the largest of the degree bound, the
// Gilmore-Lawler bound where it fits kGilmoreLawlerMaxWork (gilmore_lawler.h) and,
// with several cores per node, the grid-cut bound for near-neighbour grids
// (grid_cut_bound.h). `method` is "degree", "gilmore-lawler" or "grid-cut" (earlier
// ones win ties). `grid`: the graph's grid when the caller found it is one; null when
// it is not one or not known to be (no grid-cut bound then).
LowerBound ComputeLowerBound(const TaskGraph& graph, const Allocation& allocation,
                             const GridShape* grid);

}  // namespace hopmap

#endif  // HOPMAP_CORE_METRICS_LOWER_BOUND_H_
