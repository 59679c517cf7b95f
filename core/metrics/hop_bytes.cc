#include "core/metrics/hop_bytes.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"
#include "tbb/parallel_reduce.h"

namespace hopmap {

absl::Status CheckHopBytesFit(const TaskGraph& graph, const Allocation& allocation) {
  int64_t diameter = std::max(allocation.machine().max_hops(), 1);
  // With a node interior the full cost weighs a hop by hop_cost (node distances are
  // below it): the same check covers it.
  if (const NodeInterior* interior = allocation.machine().node_interior().get()) {
    diameter = std::max<int64_t>(diameter * interior->hop_cost(), interior->distances().back());
  }
  if (graph.total_bytes() > std::numeric_limits<HopBytes>::max() / diameter) {
    return absl::InvalidArgumentError(
        absl::StrCat("graph: total bytes ", graph.total_bytes(), " times the machine diameter ",
                     diameter, " overflows 64-bit hop-bytes; scale the weights down"));
  }
  return absl::OkStatus();
}

std::vector<int32_t> PositionsOfTasks(const Allocation& allocation,
                                      std::span<const SlotId> slot_of_task) {
  std::vector<int32_t> positions(slot_of_task.size());
  const int32_t cores = allocation.cores_per_node();
  tbb::parallel_for(tbb::blocked_range<size_t>(0, slot_of_task.size(), 1 << 14),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t t = r.begin(); t < r.end(); ++t) {
                        positions[t] = slot_of_task[t] / cores;
                      }
                    });
  return positions;
}

HopBytes ComputeHopBytesFromPositions(const TaskGraph& graph, const Allocation& allocation,
                                      std::span<const int32_t> position_of_task) {
  return SumOverEdges(graph, [&](TaskId u, TaskId v, Bytes w) -> HopBytes {
    const int32_t pu = position_of_task[u], pv = position_of_task[v];
    return pu != pv ? w * allocation.HopsBetweenPositions(pu, pv) : 0;
  });
}

HopBytes ComputeHopBytes(const TaskGraph& graph, const Allocation& allocation,
                         std::span<const SlotId> slot_of_task) {
  const std::vector<int32_t> positions = PositionsOfTasks(allocation, slot_of_task);
  return ComputeHopBytesFromPositions(graph, allocation, positions);
}

int32_t ComputeMaxDilation(const TaskGraph& graph, const Allocation& allocation,
                           std::span<const SlotId> slot_of_task) {
  const std::vector<int32_t> pos = PositionsOfTasks(allocation, slot_of_task);
  return tbb::parallel_reduce(
      tbb::blocked_range<TaskId>(0, graph.num_tasks(), 1024), int32_t{0},
      [&](const tbb::blocked_range<TaskId>& r, int32_t best) {
        for (TaskId u = r.begin(); u < r.end(); ++u) {
          graph.ForEachNeighbor(u, [&](TaskId v, Bytes) {
            if (v > u) best = std::max(best, allocation.HopsBetweenPositions(pos[u], pos[v]));
          });
        }
        return best;
      },
      [](int32_t a, int32_t b) { return std::max(a, b); });
}

}  // namespace hopmap
