// dilation refinement: exchanges that shorten the longest route any message takes
// (the most dilated edge), the figure a latency-bound phase's time follows: every
// message of the phase at once, each small, and the last to arrive is the one with
// the most hops. The other searches lower hop-bytes, a sum, and leave a few edges
// long: in one run of docs/cli.md's example (a random geometric graph of 640 tasks
// over 160 nodes of an 8x8x8 torus in five pieces), anneal's mapping had 1 of its
// 2,495 edges at 8 hops and 12 more at 5 to 7.
#ifndef HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_DILATION_REFINE_H_
#define HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_DILATION_REFINE_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "core/graph/task_graph.h"
#include "core/search/position_graph.h"
#include "core/search/stop_condition.h"
#include "core/topology/allocation.h"

namespace hopmap {

struct DilationRefineOptions {
  // Edges visited (an exchange's check and hop-bytes change read the two tasks'
  // edges) at most: the search's work, a count, not the clock, so a run the
  // deadline does not cut repeats.
  int64_t max_work = int64_t{1} << 40;
  absl::Status Validate() const;
};

struct DilationRefineStats {
  int32_t start_max_dilation = 0;  // hops of the most dilated edge, before and after
  int32_t end_max_dilation = 0;
  HopBytes start_hop_bytes = 0;
  HopBytes end_hop_bytes = 0;
  int64_t shortening_exchanges = 0;  // exchanges that took edges off the longest
  int64_t recovering_exchanges = 0;  // exchanges that lowered hop-bytes under the bound
  // Both phases ended with no exchange left to apply (not on the work cap or a stop).
  bool local_optimum = false;
  int64_t work = 0;  // edges visited
};

// From `start` (a valid mapping), two phases over exchanges with the slots on or
// next to the node of one of a task's neighbours (PositionGraph):
// - shorten: D is the longest edge's hops. For each task with an edge of D hops,
//   in increasing id order, the exchange after which every edge of both tasks
//   exchanged is shorter than D and that raises hop-bytes least (the lowest slot
//   on ties): each takes edges off D and puts none on, and when none is left D
//   falls. Ends when a pass over D's tasks applies no exchange.
// - recover: with every edge kept at or under the D reached, each task in id order
//   takes the exchange that lowers hop-bytes most, in passes until none does.
// Hop-bytes may rise overall. `near`: the allocation's PositionGraph, or null to
// build it here.
std::vector<SlotId> RefineDilation(const TaskGraph& graph, const Allocation& allocation,
                                   std::vector<SlotId> start, const DilationRefineOptions& options,
                                   const StopCondition& stop, const PositionGraph* near = nullptr,
                                   DilationRefineStats* stats = nullptr);

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_DILATION_REFINE_H_
