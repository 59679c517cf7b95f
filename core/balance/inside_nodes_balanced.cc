#include "core/balance/inside_nodes_balanced.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "core/balance/balanced_placement.h"
#include "core/balance/balancers.h"
#include "core/balance/multisection.h"
#include "core/mappers/inside_nodes.h"
#include "core/search/random_stream.h"
#include "tbb/parallel_for.h"

namespace hopmap {
namespace {

// One node's objects and what they need as a balanced problem of their own.
struct NodeProblem {
  std::vector<TaskId> objects;  // global ids, ascending
  std::vector<double> loads;
  std::vector<double> background;  // per PE; empty: none
  std::optional<TaskGraph> graph;
};

NodeProblem ProblemOf(const BalanceInput& input, std::vector<TaskId> objects, int32_t position,
                      std::vector<int32_t>& local_of_task) {
  NodeProblem node;
  node.objects = std::move(objects);
  const int32_t k = static_cast<int32_t>(node.objects.size());
  for (int32_t i = 0; i < k; ++i) local_of_task[node.objects[i]] = i;
  TaskGraphBuilder builder(k);
  bool ok = true;
  for (int32_t i = 0; i < k && ok; ++i) {
    node.loads.push_back(LoadOf(input, node.objects[i]));
    input.graph.ForEachNeighbor(node.objects[i], [&](TaskId u, Bytes w) {
      // Only this node's objects: they alone have this node's local ids here, and
      // local_of_task of another node's objects is that node's (written before).
      const int32_t j = local_of_task[u];
      if (ok && j > i && j < k && node.objects[j] == u) ok = builder.AddTraffic(i, j, w).ok();
    });
  }
  if (ok) {
    absl::StatusOr<TaskGraph> graph = std::move(builder).Build();
    if (graph.ok()) node.graph = *std::move(graph);
  }
  const int32_t cores = input.allocation.cores_per_node();
  if (!input.background_load.empty()) {
    for (int32_t c = 0; c < cores; ++c)
      node.background.push_back(input.background_load[position * cores + c]);
  }
  return node;
}

}  // namespace

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
  std::vector<std::vector<TaskId>> objects_of(allocation.num_nodes());
  for (TaskId t = 0; t < input.graph.num_tasks(); ++t) {
    objects_of[allocation.PositionOfSlot(out[t])].push_back(t);
  }
  // Sequential: local ids must not be overwritten by another node while read.
  std::vector<int32_t> local_of_task(input.graph.num_tasks(), -1);
  std::vector<NodeProblem> nodes;
  nodes.reserve(allocation.num_nodes());
  for (int32_t p = 0; p < allocation.num_nodes(); ++p) {
    nodes.push_back(ProblemOf(input, std::move(objects_of[p]), p, local_of_task));
  }
  tbb::parallel_for(0, allocation.num_nodes(), [&](int32_t p) {
    NodeProblem& node = nodes[p];
    if (node.objects.size() < 2 || !node.graph || stop.ShouldStop()) return;
    const BalanceInput local{.graph = *node.graph,
                             .allocation = *levels,
                             .loads = node.loads,
                             .background_load = node.background};
    double total = 0;
    for (double l : node.loads) total += l;
    for (double b : node.background) total += b;
    const double average = total / cores;
    // The node's own imbalance that makes its cap the solve's.
    BalanceOptions local_options;
    local_options.imbalance =
        std::clamp(average > 0 ? cap / average - 1 : 1.0, 0.0, BalanceOptions::kMaxImbalance);
    std::vector<SlotId> before(node.objects.size());
    for (size_t i = 0; i < node.objects.size(); ++i)
      before[i] = allocation.CoreOfSlot(out[node.objects[i]]);
    const BalancedPlacement old_layout(local, local_options, before);
    MapperOptions node_options = options;
    node_options.seed = RandomStream(options.seed, static_cast<uint64_t>(p)).Next();
    std::vector<SlotId> start =
        MultisectionPlacement(local, local_options.imbalance, node_options, stop);
    if (start.empty()) return;
    BalancedPlacement placement(local, local_options, std::move(start));
    RepairAndRefine(placement, cap, stop);
    if (placement.hop_bytes() >= old_layout.hop_bytes() ||
        placement.max_slot_load() >
            std::max(cap, old_layout.max_slot_load()) + LoadTolerance(cap)) {
      return;
    }
    for (size_t i = 0; i < node.objects.size(); ++i) {
      out[node.objects[i]] = p * cores + placement.slot_of(static_cast<TaskId>(i));
    }
  });
  return out;
}

}  // namespace hopmap
