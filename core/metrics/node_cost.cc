#include "core/metrics/node_cost.h"

#include "core/metrics/hop_bytes.h"

namespace hopmap {

HopBytes ComputeNodeCost(const TaskGraph& graph, const Allocation& allocation,
                         std::span<const SlotId> slot_of_task) {
  const NodeInterior* interior = allocation.machine().node_interior().get();
  if (interior == nullptr) return 0;
  const int32_t cores = allocation.cores_per_node();
  return SumOverEdges(graph, [&](TaskId u, TaskId v, Bytes w) -> HopBytes {
    const SlotId su = slot_of_task[u], sv = slot_of_task[v];
    return su / cores == sv / cores ? w * interior->Distance(su % cores, sv % cores) : 0;
  });
}

HopBytes FullCost(const Allocation& allocation, HopBytes hop_bytes, HopBytes node_cost) {
  return allocation.machine().node_interior()->hop_cost() * hop_bytes + node_cost;
}

}  // namespace hopmap
