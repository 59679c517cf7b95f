#include "core/balance/balancers.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <span>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/analysis/pattern.h"
#include "core/balance/balance_search.h"
#include "core/balance/balanced_placement.h"
#include "core/balance/construct.h"
#include "core/balance/inside_nodes_balanced.h"
#include "core/balance/multilevel_refine.h"
#include "core/balance/multisection.h"
#include "core/balance/renumbered_problem.h"
#include "core/graph/canonical_order.h"
#include "core/search/position_graph.h"
#include "tbb/parallel_for.h"

namespace hopmap {
namespace {

double Seconds(absl::Time since) { return absl::ToDoubleSeconds(absl::Now() - since); }

// The quotient search's iterations for the METIS k-way start on a hierarchy (the
// caller's iteration limit, when set, instead); elsewhere PartitionPlacement's 64.
constexpr int64_t kHierarchyQuotientIterations = 4;

// The node-level tolerance METIS is given: spreading a node's objects over its
// cores adds imbalance of its own, which the repair then removes.
double NodeImbalance(const BalancerInput& in) {
  return std::max(0.001, 0.5 * in.balance.imbalance);
}

// A from-scratch placement ignores the current one: its search must not be held
// by migration limits meant for remapping. Fixed objects keep it (they stay there);
// the searches then count migrations, with neither limit nor cost.
BalanceInput WithoutCurrent(const BalanceInput& in) {
  BalanceInput scratch = in;
  if (!HasFixedObjects(in)) {
    scratch.current_slot = {};
    scratch.fixed = {};
  }
  return scratch;
}

// Constructions from scratch, each repaired and refined, run in parallel: the
// recursive bisection by load with two seeds (its cuts vary a lot with METIS's
// seed), METIS k-way with the parts mapped by auto, and the block distribution of
// the objects in id order (runtimes number objects along their index space, so the
// block is often a good cut). When the objects form a grid (GridOf), the bisection
// cutting planes across the grid comes first, three ways: plain planes, planes slid
// to where they cost least (slide_grid_cuts), planes competing with METIS's anchored
// cuts; the second seed gives way (docs/tuning.md). The best is kept (Rank, then the
// order of the starts), so the result does not depend on the threads.
class PartitionBalancer final : public Balancer {
 public:
  absl::StatusOr<BalancerOutput> Balance(const BalancerInput& in) const override;
};

// The figures every search-based balancer reports, in this order.
void AppendSearchStats(const BalanceSearchStats& search, std::vector<Statistic>& stats) {
  stats.push_back({"passes", static_cast<double>(search.passes)});
  stats.push_back({"moves", static_cast<double>(search.moves)});
  stats.push_back({"swaps", static_cast<double>(search.swaps)});
  stats.push_back({"levels", static_cast<double>(search.levels)});
}

// Slots above `cap` (beyond LoadTolerance) under `slot_of_task`, background loads
// included: what the runtime balancers, which do not search, report.
int64_t SlotsOverCap(const BalanceInput& in, std::span<const SlotId> slot_of_task, double cap) {
  const std::vector<double> load = SlotLoads(in, slot_of_task);
  return std::count_if(load.begin(), load.end(),
                       [&](double l) { return l > cap + LoadTolerance(cap); });
}

// The caller's grid, or the graph's analysed here.
std::vector<int32_t> GridOf(const BalancerInput& in) {
  return in.grid_dims != nullptr ? *in.grid_dims : GridOf(in.problem.graph);
}

// How placements are compared: within the cap first, then the lower hop-bytes +
// migration cost, then fewer migrated objects.
std::tuple<bool, double, int64_t> Rank(const BalancedPlacement& p, double cap) {
  return {p.max_slot_load() > cap + LoadTolerance(cap), p.objective(), p.migrated_objects()};
}

// Runs fn(run) for every run in [bounds.front(), bounds.back()), a round at a time
// (round i: [bounds[i], bounds[i + 1])), each round in parallel. A first round of
// one has every thread, as large inputs need within a short budget. The first
// round always runs; a later one only when the time left would fit one as long
// as the round before (a round the deadline cuts short gives poor placements).
// Returns whether every round ran.
bool RunInRounds(std::span<const int> bounds, const StopCondition& stop,
                 const std::function<void(int)>& fn) {
  for (size_t round = 0; round + 1 < bounds.size(); ++round) {
    const absl::Time round_start = absl::Now();
    tbb::parallel_for(bounds[round], bounds[round + 1], fn);
    const absl::Time now = absl::Now();
    if (round + 2 < bounds.size() &&
        (stop.ShouldStop() || now + (now - round_start) > stop.deadline())) {
      return false;
    }
  }
  return true;
}

// What moving each object costs, for the remapping bisection: the caller's
// migration cost x its state bytes; without one, kDefaultStayHops hops on every
// byte of its edges (moving is then worth it only for a clear gain).
constexpr double kDefaultStayHops = 2.0;
std::vector<int64_t> StayCosts(const BalancerInput& in) {
  const TaskId n = in.problem.graph.num_tasks();
  std::vector<int64_t> stay(n);
  constexpr double kMaxStay = static_cast<double>(int64_t{1} << 40);
  for (TaskId t = 0; t < n; ++t) {
    double cost;
    if (IsFixed(in.problem, t)) {
      cost = kMaxStay;
    } else if (in.balance.migration_cost > 0) {
      cost = in.balance.migration_cost * static_cast<double>(StateBytesOf(in.problem, t));
    } else {
      Bytes bytes = 0;
      in.problem.graph.ForEachNeighbor(t, [&](TaskId, Bytes w) { bytes += w; });
      cost = kDefaultStayHops * static_cast<double>(bytes);
    }
    stay[t] = static_cast<int64_t>(std::min(cost, kMaxStay));
  }
  return stay;
}

// PartitionBalancer's starts on in.problem as numbered. `renumbered`, when set, is
// how in.problem was made from the caller's objects: the block start then follows the
// caller's ids.
BalancerOutput PartitionAsNumbered(const BalancerInput& in, const std::vector<int32_t>& grid,
                                   const RenumberedProblem* renumbered = nullptr) {
  const BalanceInput scratch = WithoutCurrent(in.problem);
  const BalanceOptions free_options{.imbalance = in.balance.imbalance};
  enum class Start {
    kMultisection,
    kBisection,
    kSecondSeed,
    kGrid,
    kGridPlain,
    kGridSlid,
    kMetisParts,
    kBlock
  };
  // On a grid the plane cuts come first: without METIS they are the quickest, and
  // on a short budget for a large grid the starts run last may be cut short.
  std::vector<Start> starts =
      grid.empty() ? std::vector<Start>{Start::kBisection, Start::kSecondSeed, Start::kMetisParts,
                                        Start::kBlock}
                   : std::vector<Start>{Start::kGridPlain, Start::kGridSlid,   Start::kGrid,
                                        Start::kBisection, Start::kMetisParts, Start::kBlock};
  // On a hierarchy (every two groups of a level equally far apart) the field's
  // multisection comes first.
  // Built once for every start that cuts or refines along it.
  const PositionGroup hierarchy = HierarchyOfPositions(in.problem.allocation);
  const bool hierarchical = !hierarchy.children.empty();
  if (hierarchical) {
    starts.insert(starts.begin() + 1, Start::kMultisection);
  }
  const int runs = static_cast<int>(starts.size());
  std::vector<std::vector<SlotId>> result(runs);
  std::vector<std::tuple<bool, double, int64_t>> rank(runs);
  std::vector<std::string> why(runs);
  std::vector<BalanceSearchStats> searched(runs);
  std::vector<uint8_t> ran(runs, 0);
  // Skipped starts rank last.
  std::fill(rank.begin(), rank.end(),
            std::make_tuple(true, std::numeric_limits<double>::infinity(),
                            std::numeric_limits<int64_t>::max()));
  auto run_start = [&](int run) {
    // A start that would begin after the deadline is skipped: METIS's cuts cannot
    // be interrupted, so it would only overrun the budget (the first always runs).
    if (run > 0 && in.stop.ShouldStop()) return;
    ran[run] = 1;
    MapperOptions options = in.options;
    std::vector<SlotId> start;
    switch (starts[run]) {
      case Start::kMultisection:
        start = MultisectionPlacement(scratch, in.balance.imbalance, options, in.stop, &hierarchy);
        break;
      case Start::kSecondSeed:
        options.seed += 1;
        [[fallthrough]];
      case Start::kBisection:
        start = BisectionPlacement(scratch, NodeImbalance(in), options, in.stop);
        break;
      case Start::kGrid:
      case Start::kGridPlain:
      case Start::kGridSlid:
        start = BisectionPlacement(scratch, NodeImbalance(in), options, in.stop,
                                   {.stay = {},
                                    .grid_dims = grid,
                                    .anchored_cut = starts[run] == Start::kGrid,
                                    .slide_grid_cuts = starts[run] == Start::kGridSlid});
        break;
      case Start::kMetisParts:
        // On a hierarchy the refinement along it, next, reassigns the parts level by
        // level, and a few iterations of the quotient's search gave what many did
        // (docs/tuning.md); elsewhere the parts keep the places it gives them.
        if (hierarchical && options.iteration_limit == 0) {
          options.iteration_limit = kHierarchyQuotientIterations;
        }
        start = PartitionPlacement(scratch, NodeImbalance(in), options, in.stop, in.map_quotient);
        break;
      case Start::kBlock:
        start = renumbered != nullptr ? renumbered->FromCaller(BlockPlacement(renumbered->caller()))
                                      : BlockPlacement(scratch);
        break;
    }
    BalancedPlacement placement(scratch, free_options, std::move(start));
    // On a hierarchy every other start's cuts are refined level by level the way
    // the multisection refines its own, kept when that costs less and loads no
    // slot more (objects moved in at a level above can crowd a group below).
    if (hierarchical && starts[run] != Start::kMultisection) {
      std::vector<SlotId> refined = RefineAlongHierarchy(
          scratch, placement.slot_of_task(), in.balance.imbalance, options, in.stop, &hierarchy);
      if (!refined.empty()) {
        BalancedPlacement candidate(scratch, free_options, std::move(refined));
        if (candidate.objective() < placement.objective() &&
            candidate.max_slot_load() <= std::max(in.cap.cap, placement.max_slot_load())) {
          placement = std::move(candidate);
        }
      }
    }
    searched[run] = RepairAndRefine(placement, in.cap.cap, in.stop);
    why[run] = searched[run].why_not_balanced;
    rank[run] = Rank(placement, in.cap.cap);
    result[run] = std::move(placement).Release();
  };
  // The first start alone, then the others in parallel when the budget leaves time:
  // two starts sharing two cores both miss a budget that one with both cores meets
  // (docs/tuning.md).
  const int bounds[] = {0, 1, runs};
  const bool every_round = RunInRounds(bounds, in.stop, run_start);
  const int best = static_cast<int>(std::min_element(rank.begin(), rank.end()) - rank.begin());
  BalancerOutput out;
  out.slot_of_task = std::move(result[best]);
  out.why_not_balanced = std::move(why[best]);
  // Every start's search, added up in start order.
  BalanceSearchStats total;
  for (const BalanceSearchStats& s : searched) AddSearchStats(total, s);
  bool greedy_tried = false;
  if (std::get<0>(rank[best])) {
    // No start ended under the cap: GreedyLB's placement (heaviest object to the
    // least loaded slot) balances what it can whatever the graph, then the same
    // search. Kept when it ranks better.
    BalancedPlacement greedy(scratch, free_options, GreedyLbPlacement(scratch));
    const BalanceSearchStats stats = RepairAndRefine(greedy, in.cap.cap, in.stop);
    AddSearchStats(total, stats);
    greedy_tried = true;
    if (Rank(greedy, in.cap.cap) < rank[best]) {
      out.why_not_balanced = stats.why_not_balanced;
      out.slot_of_task = std::move(greedy).Release();
    }
  }
  const int64_t starts_run = std::count(ran.begin(), ran.end(), 1);
  out.stats.push_back({"starts", static_cast<double>(starts_run)});
  AppendSearchStats(total, out.stats);
  out.stats.push_back({"greedy_fallback", greedy_tried ? 1.0 : 0.0});
  out.stats.push_back(
      {"stopped_early", !every_round || starts_run < runs || in.stop.ShouldStop() ? 1.0 : 0.0});
  // With node levels: each node's cores for a low node cost (the placement above
  // saw only the nodes). Quick next to the solve, so it runs past the deadline.
  out.slot_of_task = LayOutCoresInsideNodes(scratch, out.slot_of_task, in.cap.cap, in.options,
                                            in.stop.WithoutDeadline());
  return out;
}

// From scratch, the starts run on the objects in CanonicalOrder, so the answer does
// not hang on the caller's numbering (issue 46: renumbered, an instance's cost
// spread 3-12% before). A grid keeps its numbering (the plane cuts follow it), as
// does a problem with fixed objects (they keep their current slots).
absl::StatusOr<BalancerOutput> PartitionBalancer::Balance(const BalancerInput& in) const {
  const std::vector<int32_t> grid = GridOf(in);
  if (!grid.empty() || HasFixedObjects(in.problem)) return PartitionAsNumbered(in, grid);
  const BalanceInput scratch = WithoutCurrent(in.problem);
  absl::StatusOr<std::unique_ptr<RenumberedProblem>> renumbered =
      RenumberedProblem::Create(scratch, CanonicalOrder(scratch.graph, scratch.loads));
  if (!renumbered.ok()) return renumbered.status();
  const std::vector<int32_t> no_grid;
  BalancerOutput out = PartitionAsNumbered(
      {(*renumbered)->input(), in.balance, in.options, in.stop, in.cap, in.map_quotient, &no_grid},
      no_grid, renumbered->get());
  out.slot_of_task = (*renumbered)->ToCaller(out.slot_of_task);
  return out;
}

// What a remap's stay costs are scaled by, one remap each (StayCosts is x1, 2 hops
// per byte of an object's edges without a migration cost). Cheaper stays let the
// bisection move more objects for fewer hop-bytes, and a remap over a migration
// limit is trimmed back to it (TrimAndRefine); which scale ends best varies with
// the shift (docs/tuning.md). Run in rounds, most useful first: the first
// alone (it then has every thread, as large inputs need within a short budget),
// the next in pairs; a round starts only when the budget leaves time for it.
constexpr double kStayScales[] = {1.0 / 16, 1.0 / 2, 1.0 / 32, 1.0 / 8, 1.0 / 4, 1.0};
constexpr int kRoundStarts[] = {0, 1, 3, 5, 6};

// From the current placement (a block distribution without one), the best of:
// "repair", moves that fix the balance at least cost then moves that pay for their
// migration; and "remaps", the recursive bisection by load weighing each object's
// current node (Scotch's remapping) at each of kStayScales, trimmed back to the
// migration limit, then the same repair and refinement. Limits hold for all;
// ranked as auto ranks.
class MigrateBalancer final : public Balancer {
 public:
  absl::StatusOr<BalancerOutput> Balance(const BalancerInput& in) const override {
    std::vector<SlotId> current =
        in.problem.current_slot.empty()
            ? BlockPlacement(in.problem)
            : std::vector<SlotId>(in.problem.current_slot.begin(), in.problem.current_slot.end());
    BalancerOutput out;
    BalancedPlacement repaired(in.problem, in.balance, std::move(current));
    const BalanceSearchStats repair_stats = RepairAndRefine(repaired, in.cap.cap, in.stop);
    out.slot_of_task = repaired.slot_of_task();
    out.why_not_balanced = repair_stats.why_not_balanced;
    // The repair's search and every remap's, added up in the order of kStayScales.
    BalanceSearchStats total = repair_stats;
    auto finish = [&](int remaps_run, bool cut) {
      out.stats.push_back({"remaps", static_cast<double>(remaps_run)});
      AppendSearchStats(total, out.stats);
      out.stats.push_back({"stopped_early", cut || in.stop.ShouldStop() ? 1.0 : 0.0});
    };
    if (in.problem.current_slot.empty()) {
      finish(0, false);
      return out;
    }
    if (in.stop.ShouldStop()) {
      finish(0, true);
      return out;
    }

    // Remaps with the stay scales, a round at a time in parallel; one over a
    // migration limit sends its least useful moves back first. The best within the
    // limits is kept (Rank, then the order of kStayScales), so the result does not
    // depend on the threads.
    const std::vector<int64_t> stay = StayCosts(in);
    const std::vector<int32_t> grid = GridOf(in);
    constexpr int kRemaps = std::size(kStayScales);
    std::vector<std::vector<SlotId>> result(kRemaps);
    std::vector<std::tuple<bool, double, int64_t>> rank(kRemaps);
    std::vector<std::string> why(kRemaps);
    std::vector<uint8_t> within(kRemaps, 0);
    std::vector<BalanceSearchStats> searched(kRemaps);
    std::vector<uint8_t> ran(kRemaps, 0);
    auto remap = [&](int run) {
      std::vector<int64_t> scaled(stay.size());
      for (size_t t = 0; t < stay.size(); ++t) {
        scaled[t] = static_cast<int64_t>(static_cast<double>(stay[t]) * kStayScales[run]);
      }
      BalancedPlacement remapped(
          in.problem, in.balance,
          BisectionPlacement(in.problem, NodeImbalance(in), in.options, in.stop,
                             {.stay = scaled, .grid_dims = grid, .anchored_cut = true}));
      ran[run] = 1;
      searched[run] = TrimAndRefine(remapped, in.cap.cap, in.stop);
      why[run] = searched[run].why_not_balanced;
      within[run] = remapped.MigrationLimitsHold();
      rank[run] = Rank(remapped, in.cap.cap);
      result[run] = std::move(remapped).Release();
    };
    static_assert(kRoundStarts[std::size(kRoundStarts) - 1] == kRemaps);
    const bool every_round = RunInRounds(kRoundStarts, in.stop, remap);
    std::tuple<bool, double, int64_t> best = Rank(repaired, in.cap.cap);
    for (int run = 0; run < kRemaps; ++run) {
      if (!within[run] || !(rank[run] < best)) continue;
      best = rank[run];
      out.slot_of_task = std::move(result[run]);
      out.why_not_balanced = std::move(why[run]);
    }
    for (const BalanceSearchStats& s : searched) AddSearchStats(total, s);
    const int remaps_run = static_cast<int>(std::count(ran.begin(), ran.end(), 1));
    finish(remaps_run, !every_round || remaps_run < kRemaps);
    return out;
  }
};

class GreedyLbBalancer final : public Balancer {
 public:
  absl::StatusOr<BalancerOutput> Balance(const BalancerInput& in) const override {
    BalancerOutput out;
    out.slot_of_task = GreedyLbPlacement(in.problem);
    out.stats.push_back({"slots_over_cap", static_cast<double>(SlotsOverCap(
                                               in.problem, out.slot_of_task, in.cap.cap))});
    return out;
  }
};

class RefineLbBalancer final : public Balancer {
 public:
  absl::StatusOr<BalancerOutput> Balance(const BalancerInput& in) const override {
    std::vector<SlotId> start =
        in.problem.current_slot.empty()
            ? BlockPlacement(in.problem)
            : std::vector<SlotId>(in.problem.current_slot.begin(), in.problem.current_slot.end());
    BalancerOutput out;
    out.slot_of_task = RefineLbPlacement(in.problem, start, in.cap.cap);
    int64_t moved = 0;
    for (size_t t = 0; t < start.size(); ++t) moved += out.slot_of_task[t] != start[t];
    out.stats.push_back({"moved_objects", static_cast<double>(moved)});
    out.stats.push_back({"slots_over_cap", static_cast<double>(SlotsOverCap(
                                               in.problem, out.slot_of_task, in.cap.cap))});
    return out;
  }
};

class BlockBalancer final : public Balancer {
 public:
  absl::StatusOr<BalancerOutput> Balance(const BalancerInput& in) const override {
    BalancerOutput out;
    out.slot_of_task = BlockPlacement(in.problem);
    out.stats.push_back({"slots_over_cap", static_cast<double>(SlotsOverCap(
                                               in.problem, out.slot_of_task, in.cap.cap))});
    return out;
  }
};

// Runs `migrate` from the current placement (when there is one) and `partition`
// from scratch (unless a migration limit rules it out), and keeps the best:
// balanced first, then the lower hop-bytes + migration cost, then fewer migrations.
class AutoBalancer final : public Balancer {
 public:
  absl::StatusOr<BalancerOutput> Balance(const BalancerInput& in) const override {
    const bool has_current = !in.problem.current_slot.empty();
    const bool hard_limit = in.balance.max_migrations >= 0 || in.balance.max_migration_bytes >= 0;
    struct Run {
      std::string name;
      const Balancer* balancer;
      double share;  // of the budget left when it starts
    };
    const MigrateBalancer migrate;
    const PartitionBalancer partition;
    std::vector<Run> runs;
    if (has_current) runs.push_back({"migrate", &migrate, hard_limit ? 1.0 : 0.4});
    if (!has_current || !hard_limit) runs.push_back({"partition", &partition, 1.0});
    const std::vector<int32_t> grid = GridOf(in);  // analysed once for both

    BalancerOutput best;
    std::tuple<bool, double, int64_t> best_rank;
    for (size_t i = 0; i < runs.size(); ++i) {
      const absl::Time start = absl::Now();
      const StopCondition stop =
          in.stop.Until(start + (in.stop.deadline() - start) * runs[i].share);
      absl::StatusOr<BalancerOutput> out = runs[i].balancer->Balance(
          {in.problem, in.balance, in.options, stop, in.cap, in.map_quotient, &grid});
      Candidate candidate{runs[i].name, 0, 0, Seconds(start), "", {}};
      if (!out.ok()) {
        candidate.error = std::string(out.status().message());
        best.candidates.push_back(std::move(candidate));
        continue;
      }
      // Measured against the caller's current placement and rules.
      const BalancedPlacement measured(in.problem, in.balance, out->slot_of_task);
      candidate.hop_bytes = measured.hop_bytes();
      const std::tuple<bool, double, int64_t> rank = Rank(measured, in.cap.cap);
      candidate.stats = out->stats;
      best.candidates.push_back(std::move(candidate));
      if (best.winner.empty() || rank < best_rank) {
        best_rank = rank;
        best.winner = runs[i].name;
        best.slot_of_task = std::move(out->slot_of_task);
        best.why_not_balanced = std::move(out->why_not_balanced);
        best.stats = std::move(out->stats);
      }
    }
    if (best.winner.empty()) {
      return absl::InternalError(absl::StrCat("every balancer failed: ", best.candidates[0].error));
    }
    return best;
  }
};

std::vector<BalancerInfo> MakeBuiltinBalancers() {
  std::vector<BalancerInfo> list;
  auto add = [&list](std::string name, std::string description, auto create) {
    list.push_back({std::move(name), std::move(description), create});
  };
  add("auto",
      "migrate from the current placement and partition from scratch (unless a migration limit "
      "rules it out); keeps the best",
      [] { return std::unique_ptr<Balancer>(new AutoBalancer()); });
  add("partition",
      "from scratch: dual recursive bisection of objects and nodes by load (two seeds; on a "
      "grid, plane cuts across it instead of the second), METIS k-way parts mapped by auto and "
      "the block distribution, and on a hierarchy (hierarchy:, fat-tree) the hierarchical "
      "multisection with every start refined level by level by k-way FM; each repaired and "
      "refined under the cap (a multilevel V-cycle of moves and swaps); the best kept, and "
      "GreedyLB's placement tried too when none meets the cap; with node levels each node's "
      "objects then laid out on its cores. Off grids the objects are first put in a canonical "
      "order, so the answer does not depend on how they are numbered",
      [] { return std::unique_ptr<Balancer>(new PartitionBalancer()); });
  add("migrate",
      "from the current placement (a block distribution without one): the best of moves that "
      "fix the balance at least cost and recursive bisections that weigh each object's current "
      "node at six costs of moving (Scotch-style remaps, brought back to a migration limit by a "
      "rising price on moves), each refined by moves that pay for their migration",
      [] { return std::unique_ptr<Balancer>(new MigrateBalancer()); });
  add("greedy-lb", "Charm++ GreedyLB: heaviest object to the least loaded slot (no communication)",
      [] { return std::unique_ptr<Balancer>(new GreedyLbBalancer()); });
  add("refine-lb",
      "Charm++ RefineLB: objects off overloaded slots onto the least loaded (no communication)",
      [] { return std::unique_ptr<Balancer>(new RefineLbBalancer()); });
  add("block", "contiguous runs of object ids of equal load, one per slot (a runtime's default)",
      [] { return std::unique_ptr<Balancer>(new BlockBalancer()); });
  return list;
}

}  // namespace

std::vector<int32_t> GridOf(const TaskGraph& graph) {
  constexpr double kMinExplained = 0.9;
  absl::StatusOr<PatternReport> pattern = AnalyzePattern(graph);
  if (!pattern.ok() || !pattern->is_grid() || pattern->explained_share < kMinExplained) return {};
  int64_t size = 1;
  for (int32_t d : pattern->dims) size *= d;
  if (size != graph.num_tasks()) return {};
  return pattern->dims;
}

const std::vector<BalancerInfo>& BuiltinBalancers() {
  static const std::vector<BalancerInfo>* const list =
      new std::vector<BalancerInfo>(MakeBuiltinBalancers());
  return *list;
}

absl::StatusOr<std::unique_ptr<Balancer>> CreateBalancer(absl::string_view name) {
  std::vector<std::string> names;
  for (const BalancerInfo& info : BuiltinBalancers()) {
    if (info.name == name) return info.create();
    names.push_back(info.name);
  }
  return absl::NotFoundError(absl::StrCat("unknown load-balancing algorithm '", name,
                                          "' (known: ", absl::StrJoin(names, ", "), ")"));
}

}  // namespace hopmap
