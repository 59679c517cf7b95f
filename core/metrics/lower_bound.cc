#include "core/metrics/lower_bound.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "core/analysis/pattern.h"
#include "core/metrics/gilmore_lawler.h"
#include "core/metrics/grid_cut_bound.h"
#include "tbb/blocked_range.h"
#include "tbb/enumerable_thread_specific.h"
#include "tbb/parallel_reduce.h"

namespace hopmap {

LowerBound DegreeLowerBound(const TaskGraph& graph, const Allocation& allocation) {
  const std::vector<int64_t>& balls = allocation.ball_sizes();
  const int64_t cores = allocation.cores_per_node();
  // capacity[h] = how many neighbours of one task can sit within h hops of it.
  std::vector<int64_t> capacity(balls.size());
  for (size_t h = 0; h < balls.size(); ++h) capacity[h] = cores * balls[h] - 1;
  tbb::enumerable_thread_specific<std::vector<Bytes>> scratch;
  // Twice the bound; integer sums keep it independent of the thread split.
  const HopBytes twice = tbb::parallel_reduce(
      tbb::blocked_range<TaskId>(0, graph.num_tasks(), 512), HopBytes{0},
      [&](const tbb::blocked_range<TaskId>& r, HopBytes sum) {
        std::vector<Bytes>& weights = scratch.local();
        for (TaskId u = r.begin(); u < r.end(); ++u) {
          weights.clear();
          graph.ForEachNeighbor(u, [&](TaskId, Bytes w) { weights.push_back(w); });
          std::sort(weights.begin(), weights.end(), std::greater<>());
          size_t h = 0;
          for (size_t k = 0; k < weights.size(); ++k) {
            // The k-th heaviest neighbour (0-based) needs capacity >= k + 1.
            while (h + 1 < capacity.size() && capacity[h] < static_cast<int64_t>(k) + 1) ++h;
            sum += weights[k] * static_cast<HopBytes>(h);
          }
        }
        return sum;
      },
      [](HopBytes a, HopBytes b) { return a + b; });
  return LowerBound{(twice + 1) / 2, "degree"};
}

LowerBound ComputeLowerBound(const TaskGraph& graph, const Allocation& allocation,
                             const PatternReport* pattern) {
  LowerBound best = DegreeLowerBound(graph, allocation);
  // Both are valid, so the larger one is; GL only where it fits the budget.
  if (std::optional<HopBytes> gl = GilmoreLawlerLowerBound(graph, allocation);
      gl.has_value() && *gl > best.value) {
    best = LowerBound{*gl, "gilmore-lawler"};
  }
  // With several cores the degree bound lets each task keep cores - 1 neighbours at
  // home; on a grid the cells of one node share far fewer edges than that.
  if (allocation.cores_per_node() > 1) {
    absl::StatusOr<PatternReport> analysed =
        pattern != nullptr ? absl::StatusOr<PatternReport>(*pattern) : AnalyzePattern(graph);
    if (analysed.ok() && analysed->is_grid()) {
      std::optional<HopBytes> grid =
          GridCutLowerBound(graph, allocation, analysed->dims, analysed->periodic);
      if (grid.has_value() && *grid > best.value) best = LowerBound{*grid, "grid-cut"};
    }
  }
  return best;
}

}  // namespace hopmap
