#include "core/balance/inside_nodes_balanced.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "core/balance/balanced_placement.h"
#include "core/balance/multilevel_refine.h"
#include "core/balance/multisection.h"
#include "core/search/position_graph.h"
#include "core/search/random_stream.h"
#include "core/topology/node_levels.h"
#include "tbb/parallel_for.h"

namespace hopmap {

std::vector<SlotId> LayOutCoresInsideNodes(const BalanceInput& input,
                                           std::span<const SlotId> slot_of_task, double cap,
                                           const MapperOptions& options,
                                           const StopCondition& stop) {
  std::vector<SlotId> out(slot_of_task.begin(), slot_of_task.end());
  const Allocation& allocation = input.allocation;
  const NodeInterior* interior = allocation.machine().node_interior().get();
  const int32_t cores = allocation.cores_per_node();
  if (interior == nullptr || cores < 2 || interior->num_pes() != cores ||
      !input.current_slot.empty()) {
    return out;
  }
  const std::optional<Allocation> levels = NodeLevelsAsAllocation(*interior);
  if (!levels) return out;
  // The multisection cuts every node along the same levels: their tree once.
  const PositionGroup hierarchy = HierarchyOfPositions(*levels);
  std::vector<std::vector<TaskId>> objects_of(allocation.num_nodes());
  for (TaskId t = 0; t < input.graph.num_tasks(); ++t) {
    objects_of[allocation.PositionOfSlot(out[t])].push_back(t);
  }
  tbb::parallel_for(0, allocation.num_nodes(), [&](int32_t p) {
    const std::vector<TaskId>& objects = objects_of[p];
    if (objects.size() < 2 || stop.ShouldStop()) return;
    const absl::StatusOr<TaskGraph> graph = InducedSubgraph(input.graph, objects);
    if (!graph.ok()) return;
    std::vector<double> loads, background;
    for (TaskId t : objects) loads.push_back(LoadOf(input, t));
    if (!input.background_load.empty()) {
      for (int32_t c = 0; c < cores; ++c)
        background.push_back(input.background_load[p * cores + c]);
    }
    const BalanceInput local{
        .graph = *graph, .allocation = *levels, .loads = loads, .background_load = background};
    double total = 0;
    for (double l : loads) total += l;
    for (double b : background) total += b;
    const double average = total / cores;
    // The node's own imbalance that makes its cap the solve's.
    BalanceOptions local_options;
    local_options.imbalance =
        std::clamp(average > 0 ? cap / average - 1 : 1.0, 0.0, BalanceOptions::kMaxImbalance);
    std::vector<SlotId> before(objects.size());
    for (size_t i = 0; i < objects.size(); ++i) before[i] = allocation.CoreOfSlot(out[objects[i]]);
    const BalancedPlacement old_layout(local, local_options, before);
    MapperOptions node_options = options;
    node_options.seed = RandomStream(options.seed, static_cast<uint64_t>(p)).Next();
    std::vector<SlotId> start =
        MultisectionPlacement(local, local_options.imbalance, node_options, stop, &hierarchy);
    if (start.empty()) return;
    BalancedPlacement placement(local, local_options, std::move(start));
    RepairAndRefine(placement, cap, stop);
    if (placement.hop_bytes() >= old_layout.hop_bytes() ||
        placement.max_slot_load() >
            std::max(cap, old_layout.max_slot_load()) + LoadTolerance(cap)) {
      return;
    }
    for (size_t i = 0; i < objects.size(); ++i) {
      out[objects[i]] = p * cores + placement.slot_of(static_cast<TaskId>(i));
    }
  });
  return out;
}

}  // namespace hopmap
