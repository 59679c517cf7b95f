// Lower bounds on the hop-bytes any mapping of a graph onto an allocation can reach.
#ifndef HOPMAP_CORE_METRICS_LOWER_BOUND_H_
#define HOPMAP_CORE_METRICS_LOWER_BOUND_H_

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

// The best bound available for this size: the larger of the degree bound and, where
// it fits kGilmoreLawlerMaxWork, the Gilmore-Lawler bound (gilmore_lawler.h). `method`
// is "degree" or "gilmore-lawler" (the degree bound wins ties).
LowerBound ComputeLowerBound(const TaskGraph& graph, const Allocation& allocation);

}  // namespace hopmap

#endif  // HOPMAP_CORE_METRICS_LOWER_BOUND_H_
