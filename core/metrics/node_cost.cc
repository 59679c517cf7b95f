#include "core/metrics/node_cost.h"

#include "tbb/blocked_range.h"
#include "tbb/parallel_reduce.h"

namespace hopmap {

HopBytes ComputeNodeCost(const TaskGraph& graph, const Allocation& allocation,
                         std::span<const SlotId> slot_of_task) {
  const NodeInterior* interior = allocation.machine().node_interior().get();
  if (interior == nullptr) return 0;
  const int32_t cores = allocation.cores_per_node();
  const auto& xadj = graph.xadj();
  const auto& adjncy = graph.adjncy();
  const auto& adjwgt = graph.adjwgt();
  return tbb::parallel_reduce(
      tbb::blocked_range<TaskId>(0, graph.num_tasks(), 1024), HopBytes{0},
      [&](const tbb::blocked_range<TaskId>& r, HopBytes sum) {
        for (TaskId u = r.begin(); u < r.end(); ++u) {
          const SlotId su = slot_of_task[u];
          for (EdgeIndex e = xadj[u]; e < xadj[u + 1]; ++e) {
            const TaskId v = adjncy[e];
            if (v < u) continue;  // each edge once
            const SlotId sv = slot_of_task[v];
            if (su / cores == sv / cores) {
              sum += adjwgt[e] * interior->Distance(su % cores, sv % cores);
            }
          }
        }
        return sum;
      },
      [](HopBytes a, HopBytes b) { return a + b; });
}

HopBytes FullCost(const Allocation& allocation, HopBytes hop_bytes, HopBytes node_cost) {
  return allocation.machine().node_interior()->hop_cost() * hop_bytes + node_cost;
}

}  // namespace hopmap
