#include "core/mappers/construct/rcm.h"

#include "core/search/position_graph.h"

namespace hopmap {

absl::StatusOr<MapOutput> RcmMapper::Map(const MapInput& input) const {
  if (absl::Status s = CheckFits(input.graph, input.allocation); !s.ok()) return s;
  const TaskGraph& graph = input.graph;
  const Allocation& allocation = input.allocation;
  const std::vector<int32_t> task_order = ReverseCuthillMcKee(graph.xadj(), graph.adjncy());
  const PositionGraph positions = PositionGraph::Build(allocation, /*link_farther=*/false);
  const std::vector<int32_t> node_order = ReverseCuthillMcKee(positions.xadj, positions.adj);
  const int32_t cores = allocation.cores_per_node();
  MapOutput out;
  out.slot_of_task.resize(graph.num_tasks());
  for (size_t i = 0; i < task_order.size(); ++i) {
    out.slot_of_task[task_order[i]] =
        node_order[i / cores] * cores + static_cast<SlotId>(i % cores);
  }
  return out;
}

}  // namespace hopmap
