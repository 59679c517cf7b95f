#include "core/metrics/lower_bound.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>

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

LowerBound LoadedDegreeLowerBound(const TaskGraph& graph, const Allocation& allocation,
                                  std::span<const double> loads, double node_capacity) {
  const std::vector<int64_t>& balls = allocation.ball_sizes();
  struct Neighbour {
    double density;  // bytes per unit of load (infinite for zero load)
    double load;
    Bytes bytes;
  };
  tbb::enumerable_thread_specific<std::vector<Neighbour>> scratch;
  const HopBytes twice = tbb::parallel_reduce(
      tbb::blocked_range<TaskId>(0, graph.num_tasks(), 512), HopBytes{0},
      [&](const tbb::blocked_range<TaskId>& r, HopBytes sum) {
        std::vector<Neighbour>& near = scratch.local();
        for (TaskId u = r.begin(); u < r.end(); ++u) {
          near.clear();
          graph.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
            const double load = loads[v];
            near.push_back(
                {load > 0 ? static_cast<double>(w) / load : std::numeric_limits<double>::infinity(),
                 load, w});
          });
          std::sort(near.begin(), near.end(), [](const Neighbour& a, const Neighbour& b) {
            return a.density != b.density ? a.density > b.density : a.bytes > b.bytes;
          });
          // Fill the balls in order: ball h holds capacity(h) load in all. A
          // neighbour that fits whole adds an exact integer; only the pieces of
          // one split at a ball's edge are fractional.
          HopBytes whole = 0;
          double pieces = 0;
          size_t h = 0;
          double used = 0;  // load placed within h hops so far
          auto room_at = [&](size_t hops) {
            return hops + 1 < balls.size()
                       ? node_capacity * static_cast<double>(balls[hops]) - loads[u] - used
                       : std::numeric_limits<double>::infinity();
          };
          for (const Neighbour& v : near) {
            if (v.load <= 0) {
              whole += v.bytes * static_cast<HopBytes>(h);
              continue;
            }
            while (room_at(h) <= 0) ++h;
            if (room_at(h) >= v.load) {
              whole += v.bytes * static_cast<HopBytes>(h);
              used += v.load;
              continue;
            }
            double left = v.load;
            double bytes_left = static_cast<double>(v.bytes);
            while (left > 0) {
              const double room = room_at(h);
              if (room >= left) {
                pieces += bytes_left * static_cast<double>(h);
                used += left;
                break;
              }
              if (room > 0) {
                const double part_bytes = bytes_left * (room / left);
                pieces += part_bytes * static_cast<double>(h);
                bytes_left -= part_bytes;
                left -= room;
                used += room;
              }
              ++h;
            }
          }
          // The fractional part rounded down with a margin: still a bound.
          sum += whole + static_cast<HopBytes>(std::floor(pieces * (1 - 1e-12)));
        }
        return sum;
      },
      [](HopBytes a, HopBytes b) { return a + b; });
  return LowerBound{(twice + 1) / 2, "degree-loads"};
}

LowerBound ComputeLowerBound(const TaskGraph& graph, const Allocation& allocation,
                             const GridShape* grid) {
  LowerBound best = DegreeLowerBound(graph, allocation);
  // Both are valid, so the larger one is; GL only where it fits the budget.
  if (std::optional<HopBytes> gl = GilmoreLawlerLowerBound(graph, allocation);
      gl.has_value() && *gl > best.value) {
    best = LowerBound{*gl, "gilmore-lawler"};
  }
  // With several cores the degree bound lets each task keep cores - 1 neighbours at
  // home; on a grid the cells of one node share far fewer edges than that.
  if (allocation.cores_per_node() > 1 && grid != nullptr) {
    if (std::optional<HopBytes> cut =
            GridCutLowerBound(graph, allocation, grid->dims, grid->periodic);
        cut.has_value() && *cut > best.value) {
      best = LowerBound{*cut, "grid-cut"};
    }
  }
  return best;
}

}  // namespace hopmap
