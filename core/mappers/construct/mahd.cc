#include "core/mappers/construct/mahd.h"

#include <algorithm>
#include <numeric>
#include <queue>
#include <utility>

namespace hopmap {

MahdContext::MahdContext(const TaskGraph& graph, const Allocation& allocation)
    : graph(graph),
      allocation(allocation),
      positions(PositionGraph::Build(allocation)),
      by_centrality(PositionsByCentrality(allocation)) {
  const TaskId n = graph.num_tasks();
  by_degree.resize(n);
  std::iota(by_degree.begin(), by_degree.end(), 0);
  std::stable_sort(by_degree.begin(), by_degree.end(),
                   [&graph](TaskId a, TaskId b) { return graph.degree(a) > graph.degree(b); });
}

MahdRun RunMahd(const MahdContext& context, int32_t start_position, const StopCondition* stop) {
  const TaskGraph& graph = context.graph;
  const TaskId n = graph.num_tasks();
  MahdRun run;
  run.slot_of_task.assign(n, kInvalidSlot);
  if (n == 0) return run;
  FreeSlotSearch search(context.allocation, context.positions);
  std::vector<int32_t> position_of(n, -1);
  std::vector<uint8_t> in_heap(n, 0);
  // (number of neighbours, -task): most neighbours first, ties to the lower id.
  std::priority_queue<std::pair<int64_t, TaskId>> heap;
  std::vector<PlacementSource> sources;
  size_t restart_cursor = 0;
  int32_t last_position = -1;
  for (TaskId mapped = 0; mapped < n; ++mapped) {
    if (stop != nullptr && (mapped & 1023) == 1023 && stop->ShouldStop()) {
      run.stopped = true;
      return run;
    }
    TaskId t = kInvalidTask;
    int32_t p = -1;
    sources.clear();
    if (!heap.empty()) {
      t = -heap.top().second;
      heap.pop();
      // Unweighted hops to the mapped neighbours (the average's numerator; the
      // count is the same for every candidate), bytes as the tie-break.
      graph.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
        if (position_of[u] >= 0) sources.push_back({position_of[u], 1, w});
      });
      p = search.FindBest(sources, context.by_centrality);
    } else {
      while (position_of[context.by_degree[restart_cursor]] >= 0) ++restart_cursor;
      t = context.by_degree[restart_cursor];
      if (last_position < 0) {
        p = start_position;
      } else {
        sources.push_back({last_position, 1, 0});
        p = search.FindBest(sources, context.by_centrality);
      }
    }
    run.slot_of_task[t] = search.Take(p);
    position_of[t] = p;
    last_position = p;
    graph.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
      if (position_of[u] >= 0) {
        run.hop_bytes += w * context.allocation.HopsBetweenPositions(p, position_of[u]);
      } else if (!in_heap[u]) {
        in_heap[u] = 1;
        heap.push({graph.degree(u), -u});
      }
    });
  }
  return run;
}

absl::StatusOr<MapOutput> MahdMapper::Map(const MapInput& input) const {
  if (absl::Status s = CheckFits(input.graph, input.allocation); !s.ok()) return s;
  const MahdContext context(input.graph, input.allocation);
  MapOutput out;
  out.slot_of_task = RunMahd(context, context.by_centrality.front()).slot_of_task;
  return out;
}

}  // namespace hopmap
