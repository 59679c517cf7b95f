#include "core/solve/solve_balanced.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/balance/balancers.h"
#include "core/balance/construct.h"
#include "core/mappers/portfolio/registry.h"
#include "core/metrics/hop_bytes.h"
#include "core/metrics/lower_bound.h"
#include "core/solve/measure.h"
#include "tbb/task_arena.h"

namespace hopmap {
namespace {

absl::Status CheckBalancedProblem(const BalanceInput& input, const BalanceOptions& balance) {
  if (absl::Status s = ValidateBalanceInput(input, balance); !s.ok()) return s;
  if (input.graph.num_tasks() == 0) return absl::InvalidArgumentError("the graph has no objects");
  return CheckHopBytesFit(input.graph, input.allocation);
}

// The requested cap as the notes name it: "(1 + 0.05) x average = 9.06", with
// whole loads "ceil((1 + 0.05) x average) = 10".
std::string RequestedCapText(const LoadCap& cap, double imbalance) {
  const std::string rule = absl::StrCat("(1 + ", imbalance, ") x average");
  return absl::StrCat(cap.whole_loads ? absl::StrCat("ceil(", rule, ")") : rule, " = ",
                      cap.requested);
}

// Fills the report's measured fields and its LoadBalanceReport from
// report.slot_of_task.
void MeasureBalanced(const BalanceInput& input, const BalanceOptions& balance, Routing routing,
                     MappingReport& report, const std::string& why_not_balanced) {
  const LoadCap cap = ComputeLoadCap(input, balance.imbalance);
  LoadBalanceReport lb;
  lb.imbalance = balance.imbalance;
  lb.avg_load = cap.average;
  lb.requested_cap = cap.requested;
  lb.load_cap = cap.cap;
  lb.load_of_slot = SlotLoads(input, report.slot_of_task);
  for (double load : lb.load_of_slot) {
    lb.total_load += load;
    lb.max_load = std::max(lb.max_load, load);
  }
  const double tol = LoadTolerance(cap.requested);
  lb.balanced = lb.max_load <= cap.requested + tol;
  if (!lb.balanced) {
    if (cap.cap > cap.requested && cap.fixed_load >= cap.heaviest_placed) {
      lb.note = absl::StrCat("slot ", cap.fixed_slot, " carries ", cap.fixed_load,
                             " of background load and fixed objects, above ",
                             RequestedCapText(cap, balance.imbalance),
                             ": no placement meets the cap; the best reachable was sought");
      if (lb.max_load > cap.cap + tol && !why_not_balanced.empty()) {
        absl::StrAppend(&lb.note, "; ", why_not_balanced);
      }
    } else if (cap.cap > cap.requested) {
      // With background or fixed load on every slot, the object's slot carries that
      // too wherever it goes.
      const std::string object =
          cap.least_fixed_load > 0
              ? absl::StrCat("object ", cap.heaviest, " has load ", cap.heaviest_load,
                             " and every slot carries at least ", cap.least_fixed_load,
                             " of background load and fixed objects (slot ", cap.least_fixed_slot,
                             "): together ", cap.heaviest_placed)
              : absl::StrCat("object ", cap.heaviest, " alone has load ", cap.heaviest_load);
      lb.note = absl::StrCat(object, ", above ", RequestedCapText(cap, balance.imbalance),
                             ": no placement meets the cap; the best reachable was sought");
      if (lb.max_load > cap.cap + tol && !why_not_balanced.empty()) {
        absl::StrAppend(&lb.note, "; ", why_not_balanced);
      }
    } else {
      lb.note = why_not_balanced.empty()
                    ? absl::StrCat("the most loaded slot carries ", lb.max_load, ", above ",
                                   RequestedCapText(cap, balance.imbalance))
                    : why_not_balanced;
    }
  }
  lb.migration_cost = balance.migration_cost;
  std::vector<SlotId> baseline;
  if (!input.current_slot.empty()) {
    lb.has_current = true;
    for (TaskId t = 0; t < input.graph.num_tasks(); ++t) {
      const SlotId from = input.current_slot[t];
      if (from == report.slot_of_task[t]) continue;
      lb.moves.push_back({t, from, report.slot_of_task[t]});
      lb.migrated_bytes += StateBytesOf(input, t);
    }
    lb.migrated_objects = static_cast<int64_t>(lb.moves.size());
    // A placement given to eval may break what map never would: say so.
    std::vector<std::string> broken;
    for (const ObjectMove& move : lb.moves) {
      if (!IsFixed(input, move.task)) continue;
      broken.push_back(absl::StrCat("fixed object ", move.task, " moved from slot ", move.from,
                                    " to ", move.to));
      break;
    }
    if (balance.max_migrations >= 0 && lb.migrated_objects > balance.max_migrations) {
      broken.push_back(absl::StrCat(lb.migrated_objects, " objects migrated, over the limit of ",
                                    balance.max_migrations));
    }
    if (balance.max_migration_bytes >= 0 && lb.migrated_bytes > balance.max_migration_bytes) {
      broken.push_back(absl::StrCat(lb.migrated_bytes, " bytes migrated, over the limit of ",
                                    balance.max_migration_bytes));
    }
    if (!broken.empty()) {
      const std::string what = absl::StrJoin(broken, "; ");
      lb.note = lb.note.empty() ? what : absl::StrCat(lb.note, "; ", what);
    }
    baseline.assign(input.current_slot.begin(), input.current_slot.end());
    lb.current_hop_bytes = ComputeHopBytes(input.graph, input.allocation, baseline);
    for (double load : SlotLoads(input, baseline)) {
      lb.current_max_load = std::max(lb.current_max_load, load);
    }
  } else {
    baseline = BlockPlacement(input);
  }
  // The bound holds for every placement at least as balanced as this one.
  const double node_capacity =
      std::max(cap.cap, lb.max_load) * static_cast<double>(input.allocation.cores_per_node());
  const std::vector<double> loads = LoadsOf(input);
  const LowerBound bound =
      LoadedDegreeLowerBound(input.graph, input.allocation, loads, node_capacity);
  MeasureMapping(input.graph, input.allocation, routing, report, bound, baseline);
  report.balance = std::move(lb);
}

int ArenaThreads(int threads) { return threads > 0 ? threads : tbb::task_arena::automatic; }

}  // namespace

double DefaultBalanceTimeLimitSeconds(int64_t num_slots, int64_t num_objects) {
  constexpr double kObjectsPerSecond = 32768;
  constexpr double kMaxSeconds = 45;
  return std::min(kMaxSeconds, std::max(DefaultTimeLimitSeconds(num_slots),
                                        static_cast<double>(num_objects) / kObjectsPerSecond));
}

absl::StatusOr<MappingReport> SolveBalancedMapping(const BalanceInput& input,
                                                   absl::string_view algorithm,
                                                   const MapperOptions& options,
                                                   const BalanceOptions& balance,
                                                   const SolveControl& control) {
  if (options.objective != Objective::kHopBytes) {
    return absl::InvalidArgumentError(absl::StrCat("load balancing minimises hop-bytes; objective ",
                                                   ObjectiveName(options.objective),
                                                   " is not available with loads"));
  }
  if (absl::Status s = CheckBalancedProblem(input, balance); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<Balancer>> balancer = CreateBalancer(algorithm);
  if (!balancer.ok()) return balancer.status();

  tbb::task_arena arena(ArenaThreads(options.threads));
  absl::StatusOr<MappingReport> result;
  arena.execute([&] {
    const absl::Time start = absl::Now();
    MapperOptions sized = options;
    sized.time_limit_seconds =
        options.time_limit_seconds > 0
            ? options.time_limit_seconds
            : DefaultBalanceTimeLimitSeconds(input.allocation.num_slots(), input.graph.num_tasks());
    const StopCondition stop(start + absl::Seconds(sized.time_limit_seconds), control.cancelled);
    const LoadCap cap = ComputeLoadCap(input, balance.imbalance);
    const SubproblemMapper map_quotient = MapSubproblemWithAuto;
    absl::StatusOr<BalancerOutput> out =
        (*balancer)->Balance({input, balance, sized, stop, cap, map_quotient});
    const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
    if (!out.ok()) {
      result = out.status();
      return;
    }
    if (absl::Status s =
            ValidatePlacement(input.allocation, input.graph.num_tasks(), out->slot_of_task);
        !s.ok()) {
      result = absl::InternalError(absl::StrCat("algorithm ", std::string(algorithm),
                                                " returned an invalid placement: ", s.message()));
      return;
    }
    for (TaskId t = 0; t < input.graph.num_tasks(); ++t) {
      if (IsFixed(input, t) && out->slot_of_task[t] != input.current_slot[t]) {
        result = absl::InternalError(
            absl::StrCat("algorithm ", std::string(algorithm), " moved fixed object ", t));
        return;
      }
    }
    MappingReport report;
    report.slot_of_task = std::move(out->slot_of_task);
    MeasureBalanced(input, balance, options.routing, report, out->why_not_balanced);
    report.solve_seconds = seconds;
    report.time_limit_seconds = sized.time_limit_seconds;
    if (out->candidates.empty()) {
      report.algorithm = std::string(algorithm);
      report.candidates.push_back({report.algorithm, report.hop_bytes, report.link_loads.max_load,
                                   seconds, "", out->stats});
    } else {
      report.algorithm = absl::StrCat(std::string(algorithm), "(", out->winner, ")");
      report.candidates = std::move(out->candidates);
    }
    // The winner's figures (a portfolio's: those of the candidate it kept).
    report.stats = std::move(out->stats);
    result = std::move(report);
  });
  return result;
}

absl::StatusOr<MappingReport> EvaluateBalancedMapping(const BalanceInput& input,
                                                      std::vector<SlotId> slot_of_task,
                                                      const BalanceOptions& balance,
                                                      Routing routing, int threads) {
  if (absl::Status s = CheckBalancedProblem(input, balance); !s.ok()) return s;
  if (absl::Status s = ValidatePlacement(input.allocation, input.graph.num_tasks(), slot_of_task);
      !s.ok()) {
    return s;
  }
  tbb::task_arena arena(ArenaThreads(threads));
  MappingReport report;
  report.algorithm = "given";
  report.slot_of_task = std::move(slot_of_task);
  arena.execute([&] { MeasureBalanced(input, balance, routing, report, ""); });
  return report;
}

}  // namespace hopmap
