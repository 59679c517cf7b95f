#include "core/mappers/construct/gge.h"

#include <algorithm>
#include <numeric>
#include <queue>
#include <utility>

#include "core/search/position_graph.h"

namespace hopmap {

absl::StatusOr<MapOutput> GreedyGraphEmbeddingMapper::Map(const MapInput& input) const {
  if (absl::Status s = CheckFits(input.graph, input.allocation); !s.ok()) return s;
  const TaskGraph& graph = input.graph;
  const Allocation& allocation = input.allocation;
  const TaskId n = graph.num_tasks();
  MapOutput out;
  out.slot_of_task.assign(n, kInvalidSlot);
  if (n == 0) return out;

  const PositionGraph positions = PositionGraph::Build(allocation);
  const std::vector<int32_t> by_centrality = PositionsByCentrality(allocation);
  FreeSlotSearch search(allocation, positions);

  // Restart order: heaviest first, ties by id.
  std::vector<Bytes> weighted_degree(n);
  for (TaskId t = 0; t < n; ++t) weighted_degree[t] = graph.weighted_degree(t);
  std::vector<TaskId> by_weight(n);
  std::iota(by_weight.begin(), by_weight.end(), 0);
  std::stable_sort(by_weight.begin(), by_weight.end(), [&weighted_degree](TaskId a, TaskId b) {
    return weighted_degree[a] > weighted_degree[b];
  });

  // Max-heap of (bytes to mapped tasks, -task) with lazy deletion: a task is pushed
  // again whenever its bytes to mapped tasks grow; stale entries are skipped.
  std::vector<Bytes> attached(n, 0);
  using Entry = std::pair<Bytes, TaskId>;  // (attached bytes, -task): ties -> lower id
  std::priority_queue<Entry> heap;
  std::vector<PlacementSource> sources;
  std::vector<int32_t> position_of(n, -1);
  size_t restart_cursor = 0;
  int32_t last_position = -1;
  TaskId mapped = 0;
  while (mapped < n) {
    TaskId t = kInvalidTask;
    while (!heap.empty()) {
      const auto [bytes, neg] = heap.top();
      heap.pop();
      if (position_of[-neg] < 0 && bytes == attached[-neg]) {
        t = -neg;
        break;
      }
    }
    sources.clear();
    if (t == kInvalidTask) {
      while (position_of[by_weight[restart_cursor]] >= 0) ++restart_cursor;
      t = by_weight[restart_cursor];
      if (last_position >= 0) sources.push_back({last_position, 1, 0});
    } else {
      graph.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
        if (position_of[u] >= 0) sources.push_back({position_of[u], w, 0});
      });
    }
    const int32_t p = search.FindBest(sources, by_centrality);
    out.slot_of_task[t] = search.Take(p);
    position_of[t] = p;
    last_position = p;
    ++mapped;
    graph.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
      if (position_of[u] >= 0) return;
      attached[u] += w;
      heap.push({attached[u], -u});
    });
  }
  return out;
}

}  // namespace hopmap
