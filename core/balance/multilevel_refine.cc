#include "core/balance/multilevel_refine.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "core/search/random_stream.h"

namespace hopmap {
namespace {

// One coarse level: its clusters as a balanced problem of their own, and which
// cluster each object of the level below belongs to.
struct Level {
  std::vector<TaskId> cluster_of;
  TaskGraph graph;
  std::vector<double> loads;
  std::vector<SlotId> current_slot;
  std::vector<Bytes> state_bytes;
  std::unique_ptr<bool[]> fixed;
  std::vector<int64_t> object_counts;
  std::vector<SlotId> slot_of_task;
  std::unique_ptr<BalanceInput> input;
};

// Heavy-edge matching of `finer`'s objects under `slot_of`: an object is matched
// with the neighbour it sends most to among those on the same slot with the same
// current slot, neither fixed, their loads together at most `max_load` (ties:
// the lowest id), visiting objects in a shuffled order. Null when the matching
// leaves too little to gain from another level.
std::unique_ptr<Level> Coarsen(const BalanceInput& finer, std::span<const SlotId> slot_of,
                               double max_load, const MultilevelRefineOptions& options,
                               int32_t depth) {
  const TaskGraph& graph = finer.graph;
  const TaskId n = graph.num_tasks();
  const bool has_current = !finer.current_slot.empty();
  std::vector<TaskId> order(n);
  for (TaskId t = 0; t < n; ++t) order[t] = t;
  RandomStream random(options.seed, static_cast<uint64_t>(depth));
  random.Shuffle(std::span<TaskId>(order));
  std::vector<TaskId> mate(n, kNoTask);
  for (TaskId v : order) {
    if (mate[v] != kNoTask) continue;
    mate[v] = v;
    if (IsFixed(finer, v)) continue;
    TaskId best = kNoTask;
    Bytes best_bytes = 0;
    graph.ForEachNeighbor(v, [&](TaskId u, Bytes w) {
      if (mate[u] != kNoTask || slot_of[u] != slot_of[v] || IsFixed(finer, u)) return;
      if (has_current && finer.current_slot[u] != finer.current_slot[v]) return;
      if (LoadOf(finer, u) + LoadOf(finer, v) > max_load) return;
      if (w > best_bytes || (w == best_bytes && u < best)) best = u, best_bytes = w;
    });
    if (best != kNoTask) mate[v] = best, mate[best] = v;
  }

  auto level = std::make_unique<Level>();
  level->cluster_of.assign(n, kNoTask);
  TaskId clusters = 0;
  for (TaskId v = 0; v < n; ++v) {
    if (level->cluster_of[v] != kNoTask) continue;
    level->cluster_of[v] = level->cluster_of[mate[v]] = clusters++;
  }
  const int64_t slots = finer.allocation.num_slots();
  if (clusters > options.min_shrink * static_cast<double>(n) ||
      clusters < int64_t{options.min_clusters_per_slot} * slots) {
    return nullptr;
  }

  TaskGraphBuilder builder(clusters);
  for (TaskId u = 0; u < n; ++u) {
    const TaskId cu = level->cluster_of[u];
    absl::Status added = absl::OkStatus();
    graph.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
      const TaskId cv = level->cluster_of[v];
      if (u < v && cu != cv && added.ok()) added = builder.AddTraffic(cu, cv, w);
    });
    if (!added.ok()) return nullptr;
  }
  absl::StatusOr<TaskGraph> coarse = std::move(builder).Build();
  if (!coarse.ok()) return nullptr;  // a merged weight overflows: stay finer
  level->graph = *std::move(coarse);

  level->loads.assign(clusters, 0.0);
  level->object_counts.assign(clusters, 0);
  level->slot_of_task.assign(clusters, kInvalidSlot);
  if (has_current) {
    level->current_slot.assign(clusters, kInvalidSlot);
    level->state_bytes.assign(clusters, 0);
  }
  if (!finer.fixed.empty()) level->fixed = std::make_unique<bool[]>(clusters);
  for (TaskId v = 0; v < n; ++v) {
    const TaskId c = level->cluster_of[v];
    level->loads[c] += LoadOf(finer, v);
    level->object_counts[c] += ObjectCountOf(finer, v);
    level->slot_of_task[c] = slot_of[v];
    if (has_current) {
      level->current_slot[c] = finer.current_slot[v];
      level->state_bytes[c] += StateBytesOf(finer, v);
    }
    if (level->fixed) level->fixed[c] = IsFixed(finer, v);
  }
  level->input = std::make_unique<BalanceInput>(BalanceInput{
      .graph = level->graph,
      .allocation = finer.allocation,
      .loads = level->loads,
      .current_slot = level->current_slot,
      .state_bytes = level->state_bytes,
      .fixed = level->fixed ? std::span<const bool>(level->fixed.get(), clusters)
                            : std::span<const bool>(),
      .background_load = finer.background_load,
      .object_counts = level->object_counts,
  });
  return level;
}

// Refines `start` (slots of `input`'s allocation) by the V-cycle: the levels
// above `input` coarsest first, each starting from the one above, then `input`
// itself. Returns the refined placement of `input`'s objects.
std::vector<SlotId> VCycle(const BalanceInput& input, const BalanceOptions& balance,
                           std::vector<SlotId> start, double cap,
                           const MultilevelRefineOptions& options, const StopCondition& stop,
                           BalanceSearchStats& stats) {
  // levels[0] clusters input's objects, levels[i] the clusters of levels[i - 1].
  std::vector<std::unique_ptr<Level>> levels;
  const BalanceInput* finer = &input;
  std::span<const SlotId> slots = start;
  const double max_load = options.max_cluster_share * cap;
  for (int32_t depth = 0; depth < options.max_levels && !stop.ShouldStop(); ++depth) {
    std::unique_ptr<Level> level = Coarsen(*finer, slots, max_load, options, depth);
    if (level == nullptr) break;
    finer = level->input.get();
    slots = level->slot_of_task;
    levels.push_back(std::move(level));
  }
  stats.levels = std::max(stats.levels, static_cast<int32_t>(levels.size()));
  std::vector<SlotId> above;
  for (size_t i = levels.size(); i-- > 0;) {
    Level& level = *levels[i];
    std::vector<SlotId> coarse_start = std::move(level.slot_of_task);
    if (i + 1 < levels.size()) {
      for (size_t c = 0; c < coarse_start.size(); ++c) {
        coarse_start[c] = above[levels[i + 1]->cluster_of[c]];
      }
    }
    BalancedPlacement coarse(*level.input, balance, std::move(coarse_start));
    AddSearchStats(stats, RefineBalanced(coarse, cap, options.refine, stop));
    above = std::move(coarse).Release();
  }
  if (!levels.empty()) {
    for (size_t t = 0; t < start.size(); ++t) start[t] = above[levels[0]->cluster_of[t]];
  }
  BalancedPlacement refined(input, balance, std::move(start));
  AddSearchStats(stats, RefineBalanced(refined, cap, options.refine, stop));
  return std::move(refined).Release();
}

// The problem seen a node at a time: one slot per node carrying its cores'
// load, so that clusters may span a node's cores (hop-bytes do not see cores).
// Objects already moved to another core of their current node count against
// the limits here and stay where they are unless their node changes.
struct NodeView {
  std::optional<Allocation> allocation;
  std::vector<SlotId> node_of_task;
  std::vector<SlotId> current_node;
  std::vector<double> background;
  BalanceOptions balance;
  std::unique_ptr<BalanceInput> input;
};

std::unique_ptr<NodeView> MakeNodeView(const BalancedPlacement& p) {
  const BalanceInput& in = p.input();
  const Allocation& allocation = p.allocation();
  const int32_t cores = allocation.cores_per_node();
  absl::StatusOr<Allocation> nodes =
      Allocation::Create(allocation.shared_machine(), allocation.nodes(), 1);
  if (!nodes.ok()) return nullptr;
  auto view = std::make_unique<NodeView>();
  view->allocation.emplace(*std::move(nodes));
  const TaskId n = p.num_objects();
  view->node_of_task.resize(n);
  for (TaskId t = 0; t < n; ++t) view->node_of_task[t] = p.slot_of(t) / cores;
  view->balance = p.options();
  if (!in.current_slot.empty()) {
    view->current_node.resize(n);
    int64_t core_only = 0;
    Bytes core_only_bytes = 0;
    for (TaskId t = 0; t < n; ++t) {
      view->current_node[t] = in.current_slot[t] / cores;
      if (p.migrated(t) && view->current_node[t] == view->node_of_task[t]) {
        core_only += ObjectCountOf(in, t);
        core_only_bytes += StateBytesOf(in, t);
      }
    }
    BalanceOptions& b = view->balance;
    if (b.max_migrations >= 0)
      b.max_migrations = std::max<int64_t>(0, b.max_migrations - core_only);
    if (b.max_migration_bytes >= 0) {
      b.max_migration_bytes = std::max<Bytes>(0, b.max_migration_bytes - core_only_bytes);
    }
  }
  if (!in.background_load.empty()) {
    view->background.assign(allocation.num_nodes(), 0.0);
    for (SlotId s = 0; s < p.num_slots(); ++s) view->background[s / cores] += in.background_load[s];
  }
  view->input = std::make_unique<BalanceInput>(BalanceInput{
      .graph = in.graph,
      .allocation = *view->allocation,
      .loads = in.loads,
      .current_slot = view->current_node,
      .state_bytes = in.state_bytes,
      .fixed = in.fixed,
      .background_load = view->background,
      .object_counts = in.object_counts,
  });
  return view;
}

// Objects back on cores from nodes: one that stays on its node keeps its slot,
// one that comes back to its current node its current slot, the others go
// heaviest first onto the least loaded core of their new node (lowest core, then
// lowest id on ties).
std::vector<SlotId> SpreadOnCores(const BalancedPlacement& p, std::span<const SlotId> node_of) {
  const BalanceInput& in = p.input();
  const int32_t cores = p.allocation().cores_per_node();
  const TaskId n = p.num_objects();
  std::vector<SlotId> slots(n, kInvalidSlot);
  std::vector<double> load(p.num_slots());
  for (SlotId s = 0; s < p.num_slots(); ++s) load[s] = BackgroundLoadOf(in, s);
  std::vector<TaskId> arriving;
  for (TaskId t = 0; t < n; ++t) {
    if (node_of[t] == p.slot_of(t) / cores) {
      slots[t] = p.slot_of(t);
    } else if (p.has_current() && node_of[t] == in.current_slot[t] / cores) {
      slots[t] = in.current_slot[t];
    } else {
      arriving.push_back(t);
      continue;
    }
    load[slots[t]] += p.load(t);
  }
  std::stable_sort(arriving.begin(), arriving.end(),
                   [&](TaskId a, TaskId b) { return p.load(a) > p.load(b); });
  for (TaskId t : arriving) {
    SlotId best = node_of[t] * cores;
    for (SlotId s = best + 1; s < (node_of[t] + 1) * cores; ++s) {
      if (load[s] < load[best]) best = s;
    }
    slots[t] = best;
    load[best] += p.load(t);
  }
  return slots;
}

}  // namespace

absl::Status MultilevelRefineOptions::Validate() const {
  if (max_levels < 0) return absl::InvalidArgumentError("max_levels must be >= 0");
  if (!(max_cluster_share > 0)) {
    return absl::InvalidArgumentError("max_cluster_share must be > 0");
  }
  if (!(min_shrink > 0 && min_shrink <= 1)) {
    return absl::InvalidArgumentError("min_shrink must be in (0, 1]");
  }
  if (min_clusters_per_slot < 1) {
    return absl::InvalidArgumentError("min_clusters_per_slot must be >= 1");
  }
  return refine.Validate();
}

BalanceSearchStats MultilevelRefine(BalancedPlacement& placement, double cap,
                                    const MultilevelRefineOptions& options,
                                    const StopCondition& stop) {
  BalanceSearchStats stats;
  const int32_t cores = placement.allocation().cores_per_node();
  if (cores > 1 && options.node_levels) {
    // Clusters spanning cores, refined a node at a time under the cores' summed
    // cap, then spread back over the cores; kept when it ends within the cap
    // (or no further over it) and no worse.
    std::unique_ptr<NodeView> view = MakeNodeView(placement);
    if (view != nullptr) {
      const std::vector<SlotId> nodes = VCycle(*view->input, view->balance, view->node_of_task,
                                               cores * cap, options, stop, stats);
      BalancedPlacement spread(placement.input(), placement.options(),
                               SpreadOnCores(placement, nodes));
      if (spread.max_slot_load() > cap + LoadTolerance(cap)) RepairBalance(spread, cap, stop);
      AddSearchStats(stats, RefineBalanced(spread, cap, options.refine, stop));
      const double limit = std::max(cap, placement.max_slot_load()) + LoadTolerance(cap);
      if (spread.max_slot_load() <= limit && spread.objective() <= placement.objective() &&
          (spread.MigrationLimitsHold() || !placement.MigrationLimitsHold())) {
        placement = std::move(spread);
      }
    }
  }
  placement = BalancedPlacement(placement.input(), placement.options(),
                                VCycle(placement.input(), placement.options(),
                                       placement.slot_of_task(), cap, options, stop, stats));
  return stats;
}

BalanceSearchStats RepairAndRefine(BalancedPlacement& placement, double cap,
                                   const StopCondition& stop) {
  // The repairs run past the deadline (not past a cancellation): a start the
  // budget left over the cap ranks below every balanced one, and when none was
  // balanced the solve fell back on GreedyLB, which ignores communication (a 2D
  // grid renumbered onto 4:16:64 came out at 24x the cost of its balanced
  // start). Moving the excess off the slots above the cap is quick next to the
  // start itself.
  const StopCondition repair_stop = stop.WithoutDeadline();
  BalanceSearchStats stats = RepairBalance(placement, cap, repair_stop);
  AddSearchStats(stats, MultilevelRefine(placement, cap, {}, stop));
  if (!stats.balanced) {
    const BalanceSearchStats again = RepairBalance(placement, cap, repair_stop);
    stats.moves += again.moves;
    stats.balanced = again.balanced;
    stats.why_not_balanced = again.why_not_balanced;
  }
  return stats;
}

BalanceSearchStats TrimAndRefine(BalancedPlacement& placement, double cap,
                                 const StopCondition& stop) {
  const BalanceInput& in = placement.input();
  const BalanceOptions& rules = placement.options();
  const TaskId n = placement.num_objects();
  // The priced refinements' figures, added to the final search's.
  BalanceSearchStats priced_stats;
  if (!placement.MigrationLimitsHold() && n > 0) {
    // The price's unit: the bytes an object sends per byte of its state, on
    // average, so that a price of k is about k hops on every byte it sends.
    double edge_bytes = 0, state_bytes = 0;
    for (TaskId t = 0; t < n; ++t) {
      in.graph.ForEachNeighbor(t, [&](TaskId, Bytes w) { edge_bytes += static_cast<double>(w); });
      state_bytes += static_cast<double>(StateBytesOf(in, t));
    }
    const double unit = edge_bytes / std::max(1.0, state_bytes);
    // The trials count migrations as `rules` do (the price changes only the
    // objective), so their counts are checked against the caller's limits.
    auto within = [&](const BalancedPlacement& p) {
      return (rules.max_migrations < 0 || p.migrated_objects() <= rules.max_migrations) &&
             (rules.max_migration_bytes < 0 || p.migrated_bytes() <= rules.max_migration_bytes);
    };
    // How far over the limits (1: at them).
    auto over = [&](const BalancedPlacement& p) {
      double ratio = 0;
      if (rules.max_migrations >= 0) {
        ratio = std::max(ratio, static_cast<double>(p.migrated_objects()) /
                                    std::max<double>(1, static_cast<double>(rules.max_migrations)));
      }
      if (rules.max_migration_bytes >= 0) {
        ratio = std::max(ratio,
                         static_cast<double>(p.migrated_bytes()) /
                             std::max<double>(1, static_cast<double>(rules.max_migration_bytes)));
      }
      return ratio;
    };
    // The price starts low (a remap's first steps also gain hop-bytes) and rises
    // by kFarStep while the placement is far over a limit, kNearStep near it
    // (docs/tuning.md).
    constexpr double kFirstPrice = 0.03, kFarStep = 2.0, kNearStep = 1.25, kMaxPrice = 1000;
    BalanceOptions priced = rules;
    priced.max_migrations = -1;
    priced.max_migration_bytes = -1;
    std::vector<SlotId> slots = placement.slot_of_task();
    // Without edges no price moves anything: TrimMigrations alone below.
    for (double k = kFirstPrice; unit > 0 && k < kMaxPrice && !stop.ShouldStop();) {
      priced.migration_cost = rules.migration_cost + k * unit;
      BalancedPlacement trial(in, priced, std::move(slots));
      AddSearchStats(priced_stats, MultilevelRefine(trial, cap, {}, stop));
      const bool done = within(trial);
      const double ratio = over(trial);
      slots = std::move(trial).Release();
      if (done) break;
      k *= ratio > 1.5 ? kFarStep : kNearStep;
    }
    placement = BalancedPlacement(in, rules, std::move(slots));
  }
  TrimMigrations(placement, cap, stop);
  BalanceSearchStats stats = RepairAndRefine(placement, cap, stop);
  AddSearchStats(stats, priced_stats);
  return stats;
}

}  // namespace hopmap
