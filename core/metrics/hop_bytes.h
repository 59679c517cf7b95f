// Hop-bytes and the per-mapping metrics the report prints.
#ifndef HOPMAP_CORE_METRICS_HOP_BYTES_H_
#define HOPMAP_CORE_METRICS_HOP_BYTES_H_

#include <span>
#include <vector>

#include "absl/status/status.h"
#include "core/graph/task_graph.h"
#include "core/topology/allocation.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_reduce.h"

namespace hopmap {

// Fails unless total_bytes x machine diameter fits in 64 bits, which makes every
// hop-bytes sum below exact without overflow checks on the hot path.
absl::Status CheckHopBytesFit(const TaskGraph& graph, const Allocation& allocation);

// Allocation position of every task (slot / cores), the index the hop matrix uses.
std::vector<int32_t> PositionsOfTasks(const Allocation& allocation,
                                      std::span<const SlotId> slot_of_task);

// Sum over the graph's edges, each once (u < v), of cost(u, v, w): parallel over
// tasks on the current TBB arena; integer sums, so the total does not depend on the
// split.
template <typename EdgeCost>
HopBytes SumOverEdges(const TaskGraph& graph, EdgeCost cost) {
  const auto& xadj = graph.xadj();
  const auto& adjncy = graph.adjncy();
  const auto& adjwgt = graph.adjwgt();
  return tbb::parallel_reduce(
      tbb::blocked_range<TaskId>(0, graph.num_tasks(), 1024), HopBytes{0},
      [&](const tbb::blocked_range<TaskId>& r, HopBytes sum) {
        for (TaskId u = r.begin(); u < r.end(); ++u) {
          for (EdgeIndex e = xadj[u]; e < xadj[u + 1]; ++e) {
            const TaskId v = adjncy[e];
            if (v > u) sum += cost(u, v, adjwgt[e]);
          }
        }
        return sum;
      },
      [](HopBytes a, HopBytes b) { return a + b; });
}

// HB = sum over edges (u,v) of w(u,v) * hops(node(u), node(v)), each edge once.
// Parallel over tasks on the current TBB arena; exact integer arithmetic, so the
// result does not depend on the thread count. Requires a valid mapping and
// CheckHopBytesFit().
HopBytes ComputeHopBytes(const TaskGraph& graph, const Allocation& allocation,
                         std::span<const SlotId> slot_of_task);
// The same, from positions (PositionsOfTasks) rather than slots.
HopBytes ComputeHopBytesFromPositions(const TaskGraph& graph, const Allocation& allocation,
                                      std::span<const int32_t> position_of_task);

// The largest hop count any edge travels.
int32_t ComputeMaxDilation(const TaskGraph& graph, const Allocation& allocation,
                           std::span<const SlotId> slot_of_task);

}  // namespace hopmap

#endif  // HOPMAP_CORE_METRICS_HOP_BYTES_H_
