#include "core/balance/balancers.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/balance/balanced_placement.h"
#include "core/balance/construct.h"

namespace hopmap {
namespace {

double Seconds(absl::Time since) { return absl::ToDoubleSeconds(absl::Now() - since); }

// The node-level tolerance METIS is given: spreading a node's objects over its
// cores adds imbalance of its own, which the repair then removes.
double NodeImbalance(const BalancerInput& in) {
  const double eps = in.balance.imbalance;
  return std::max(0.001, in.problem.allocation.cores_per_node() == 1 ? 0.8 * eps : 0.5 * eps);
}

// A from-scratch placement ignores the current one: its search must not be held
// by migration limits meant for remapping.
BalanceInput WithoutCurrent(const BalanceInput& in) {
  return BalanceInput{in.graph, in.allocation, in.loads, {}, in.state_bytes};
}

class PartitionBalancer final : public Balancer {
 public:
  absl::StatusOr<BalancerOutput> Balance(const BalancerInput& in) const override {
    const BalanceInput scratch = WithoutCurrent(in.problem);
    const BalanceOptions free_options{.imbalance = in.balance.imbalance};
    std::vector<SlotId> start = PartitionPlacement(scratch, NodeImbalance(in), in.options, in.stop);
    BalancedPlacement placement(scratch, free_options, std::move(start));
    const BalanceSearchStats stats = RepairAndRefine(placement, in.cap.cap, in.stop);
    BalancerOutput out;
    out.why_not_balanced = stats.why_not_balanced;
    out.slot_of_task = std::move(placement).Release();
    return out;
  }
};

class MigrateBalancer final : public Balancer {
 public:
  absl::StatusOr<BalancerOutput> Balance(const BalancerInput& in) const override {
    std::vector<SlotId> start =
        in.problem.current_slot.empty()
            ? BlockPlacement(in.problem)
            : std::vector<SlotId>(in.problem.current_slot.begin(), in.problem.current_slot.end());
    BalancedPlacement placement(in.problem, in.balance, std::move(start));
    const BalanceSearchStats stats = RepairAndRefine(placement, in.cap.cap, in.stop);
    BalancerOutput out;
    out.why_not_balanced = stats.why_not_balanced;
    out.slot_of_task = std::move(placement).Release();
    return out;
  }
};

class GreedyLbBalancer final : public Balancer {
 public:
  absl::StatusOr<BalancerOutput> Balance(const BalancerInput& in) const override {
    return BalancerOutput{GreedyLbPlacement(in.problem), {}, "", ""};
  }
};

class RefineLbBalancer final : public Balancer {
 public:
  absl::StatusOr<BalancerOutput> Balance(const BalancerInput& in) const override {
    std::vector<SlotId> start =
        in.problem.current_slot.empty()
            ? BlockPlacement(in.problem)
            : std::vector<SlotId>(in.problem.current_slot.begin(), in.problem.current_slot.end());
    return BalancerOutput{RefineLbPlacement(in.problem, start, in.cap.cap), {}, "", ""};
  }
};

class BlockBalancer final : public Balancer {
 public:
  absl::StatusOr<BalancerOutput> Balance(const BalancerInput& in) const override {
    return BalancerOutput{BlockPlacement(in.problem), {}, "", ""};
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

    BalancerOutput best;
    std::tuple<bool, double, int64_t> best_rank;
    for (size_t i = 0; i < runs.size(); ++i) {
      const absl::Time start = absl::Now();
      const StopCondition stop = in.stop.Until(start + (in.stop.deadline() - start) * runs[i].share);
      absl::StatusOr<BalancerOutput> out =
          runs[i].balancer->Balance({in.problem, in.balance, in.options, stop, in.cap});
      Candidate candidate{runs[i].name, 0, 0, Seconds(start), ""};
      if (!out.ok()) {
        candidate.error = std::string(out.status().message());
        best.candidates.push_back(std::move(candidate));
        continue;
      }
      // Measured against the caller's current placement and rules.
      const BalancedPlacement measured(in.problem, in.balance, out->slot_of_task);
      candidate.hop_bytes = measured.hop_bytes();
      double max_load = 0;
      for (SlotId s = 0; s < measured.num_slots(); ++s) max_load = std::max(max_load, measured.slot_load(s));
      const std::tuple<bool, double, int64_t> rank{
          max_load > in.cap.cap + 1e-9 * std::max(in.cap.cap, 1.0), measured.objective(),
          measured.migrated_objects()};
      best.candidates.push_back(std::move(candidate));
      if (best.winner.empty() || rank < best_rank) {
        best_rank = rank;
        best.winner = runs[i].name;
        best.slot_of_task = std::move(out->slot_of_task);
        best.why_not_balanced = std::move(out->why_not_balanced);
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
      "METIS k-way parts by load, one per node, the parts mapped onto the network, then repair "
      "and move/swap refinement under the cap",
      [] { return std::unique_ptr<Balancer>(new PartitionBalancer()); });
  add("migrate",
      "from the current placement (a block distribution without one): moves that fix the "
      "balance at least cost, then moves that pay for their migration",
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

BalanceSearchStats RepairAndRefine(BalancedPlacement& placement, double cap,
                                   const StopCondition& stop) {
  BalanceSearchStats stats = RepairBalance(placement, cap, stop);
  const BalanceSearchStats refined = RefineBalanced(placement, cap, {}, stop);
  stats.passes += refined.passes;
  stats.moves += refined.moves;
  stats.swaps += refined.swaps;
  if (!stats.balanced) {
    const BalanceSearchStats again = RepairBalance(placement, cap, stop);
    stats.moves += again.moves;
    stats.balanced = again.balanced;
    stats.why_not_balanced = again.why_not_balanced;
  }
  return stats;
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
