#include "core/mappers/inside_nodes.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <queue>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "core/bisection/bisection.h"
#include "core/search/stop_condition.h"
#include "core/topology/hierarchy.h"
#include "core/topology/node_levels.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"

namespace hopmap {
namespace {

// The tasks of one node and the edges among them, in local indexes.
struct LocalGraph {
  std::vector<TaskId> tasks;
  std::vector<std::vector<std::pair<int32_t, Bytes>>> edges;  // per local task
};

LocalGraph LocalGraphOf(const TaskGraph& graph, std::vector<TaskId> tasks) {
  LocalGraph local;
  local.tasks = std::move(tasks);
  absl::flat_hash_map<TaskId, int32_t> index;
  for (size_t i = 0; i < local.tasks.size(); ++i) index[local.tasks[i]] = static_cast<int32_t>(i);
  local.edges.resize(local.tasks.size());
  for (size_t i = 0; i < local.tasks.size(); ++i) {
    graph.ForEachNeighbor(local.tasks[i], [&](TaskId v, Bytes w) {
      if (auto it = index.find(v); it != index.end() && it->second != static_cast<int32_t>(i)) {
        local.edges[i].push_back({it->second, w});
      }
    });
  }
  return local;
}

// Tasks in affinity order: the heaviest first, then repeatedly the one with the most
// bytes to those already placed (ties: the most bytes in all, then the lowest index).
std::vector<int32_t> AffinityOrder(const LocalGraph& local) {
  const size_t k = local.tasks.size();
  std::vector<Bytes> degree(k, 0);
  for (size_t i = 0; i < k; ++i) {
    for (const auto& [j, w] : local.edges[i]) degree[i] += w;
  }
  std::vector<Bytes> tie(k, 0);
  std::vector<bool> placed(k, false);
  // (tie to placed, degree, -index): the largest first.
  using Entry = std::tuple<Bytes, Bytes, int32_t>;
  std::priority_queue<Entry> queue;
  for (size_t i = 0; i < k; ++i) queue.push({0, degree[i], -static_cast<int32_t>(i)});
  std::vector<int32_t> order;
  while (!queue.empty()) {
    const auto [t, d, negative] = queue.top();
    queue.pop();
    const int32_t i = -negative;
    if (placed[i] || t != tie[i]) continue;  // stale
    placed[i] = true;
    order.push_back(i);
    for (const auto& [j, w] : local.edges[i]) {
      if (placed[j]) continue;
      tie[j] += w;
      queue.push({tie[j], degree[j], -j});
    }
  }
  return order;
}

// The node cost one task adds at PE `pe` with the others where they are (`skip`: a
// task not counted, the swap partner).
HopBytes TaskCost(const LocalGraph& local, const NodeInterior& interior,
                  const std::vector<int32_t>& pe_of, int32_t task, int32_t pe, int32_t skip) {
  HopBytes cost = 0;
  for (const auto& [j, w] : local.edges[task]) {
    if (j != skip) cost += w * interior.Distance(pe, pe_of[j]);
  }
  return cost;
}

HopBytes LocalCost(const LocalGraph& local, const NodeInterior& interior,
                   const std::vector<int32_t>& pe_of) {
  HopBytes cost = 0;
  for (size_t i = 0; i < local.tasks.size(); ++i) {
    for (const auto& [j, w] : local.edges[i]) {
      if (j > static_cast<int32_t>(i)) cost += w * interior.Distance(pe_of[i], pe_of[j]);
    }
  }
  return cost;
}

// The node's tasks recursively bisected onto its levels (the engine of rec-bisect:
// METIS cuts refined on the hierarchy's distances, top level first); empty when it
// cannot run.
std::vector<int32_t> BisectOntoLevels(const TaskGraph& graph, const LocalGraph& local,
                                      const Allocation& levels) {
  absl::StatusOr<TaskGraph> sub = InducedSubgraph(graph, local.tasks);
  if (!sub.ok()) return {};
  const StopCondition never(absl::InfiniteFuture());
  Bisection cut = RecursiveBisection({.graph = *sub, .allocation = levels}, {}, never);
  return std::vector<int32_t>(cut.slot_of_task.begin(), cut.slot_of_task.end());
}

// PEs of one node for its tasks: the cheapest of the node's levels bisected (with
// `levels`), the affinity order filled in and the given PEs, then improving swaps.
std::vector<int32_t> PlaceOneNode(const TaskGraph& graph, const LocalGraph& local,
                                  const NodeInterior& interior, const Allocation* levels,
                                  int32_t cores, std::vector<int32_t> given) {
  const int32_t k = static_cast<int32_t>(local.tasks.size());
  std::vector<int32_t> pe_of(k);
  const std::vector<int32_t> order = AffinityOrder(local);
  for (int32_t i = 0; i < k; ++i) pe_of[order[i]] = i;
  HopBytes cost = LocalCost(local, interior, pe_of);
  // Ties keep the earlier start: bisected, affinity, given.
  if (levels != nullptr) {
    std::vector<int32_t> bisected = BisectOntoLevels(graph, local, *levels);
    if (!bisected.empty()) {
      if (const HopBytes c = LocalCost(local, interior, bisected); c <= cost) {
        pe_of = std::move(bisected);
        cost = c;
      }
    }
  }
  if (LocalCost(local, interior, given) < cost) pe_of = std::move(given);
  std::vector<int32_t> task_on(cores, -1);
  for (int32_t i = 0; i < k; ++i) task_on[pe_of[i]] = i;
  // Pairwise swaps, first improvement, in PE order; a few passes at most (each
  // pass is cores^2 pair tries).
  constexpr int kMaxPasses = 4;
  constexpr int32_t kMaxSwapCores = 1024;
  if (cores > kMaxSwapCores) return pe_of;
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    bool improved = false;
    for (int32_t p = 0; p < cores; ++p) {
      for (int32_t q = p + 1; q < cores; ++q) {
        const int32_t a = task_on[p], b = task_on[q];
        if (a < 0 && b < 0) continue;
        HopBytes delta = 0;
        if (a >= 0) {
          delta +=
              TaskCost(local, interior, pe_of, a, q, b) - TaskCost(local, interior, pe_of, a, p, b);
        }
        if (b >= 0) {
          delta +=
              TaskCost(local, interior, pe_of, b, p, a) - TaskCost(local, interior, pe_of, b, q, a);
        }
        if (delta < 0) {
          std::swap(task_on[p], task_on[q]);
          if (a >= 0) pe_of[a] = q;
          if (b >= 0) pe_of[b] = p;
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  return pe_of;
}

}  // namespace

std::vector<SlotId> PlaceInsideNodes(const TaskGraph& graph, const Allocation& allocation,
                                     std::span<const SlotId> slot_of_task) {
  std::vector<SlotId> placed(slot_of_task.begin(), slot_of_task.end());
  const NodeInterior* interior = allocation.machine().node_interior().get();
  if (interior == nullptr) return placed;
  const int32_t cores = allocation.cores_per_node();
  // The bisection needs every PE of the node (an allocation may use fewer cores).
  const std::optional<Allocation> levels =
      cores == interior->num_pes() ? NodeLevelsAsAllocation(*interior) : std::nullopt;
  std::vector<std::vector<TaskId>> tasks_of(allocation.num_nodes());
  for (size_t t = 0; t < slot_of_task.size(); ++t) {
    tasks_of[allocation.PositionOfSlot(slot_of_task[t])].push_back(static_cast<TaskId>(t));
  }
  tbb::parallel_for(tbb::blocked_range<int32_t>(0, allocation.num_nodes(), 1),
                    [&](const tbb::blocked_range<int32_t>& r) {
                      for (int32_t position = r.begin(); position < r.end(); ++position) {
                        if (tasks_of[position].size() < 2) continue;
                        const LocalGraph local = LocalGraphOf(graph, tasks_of[position]);
                        std::vector<int32_t> given;
                        for (TaskId t : local.tasks) given.push_back(slot_of_task[t] % cores);
                        const std::vector<int32_t> pe_of =
                            PlaceOneNode(graph, local, *interior, levels ? &*levels : nullptr,
                                         cores, std::move(given));
                        for (size_t i = 0; i < local.tasks.size(); ++i) {
                          placed[local.tasks[i]] = position * cores + pe_of[i];
                        }
                      }
                    });
  return placed;
}

}  // namespace hopmap
