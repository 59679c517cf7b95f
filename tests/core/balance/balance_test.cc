// The balanced problem: validation, the placement's exact bookkeeping, the loaded
// lower bound against brute force, and the balancers' promises.
#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "core/balance/balance_problem.h"
#include "core/balance/balance_search.h"
#include "core/balance/balanced_placement.h"
#include "core/balance/balancers.h"
#include "core/balance/construct.h"
#include "core/balance/multilevel_refine.h"
#include "core/mappers/portfolio/registry.h"
#include "core/metrics/lower_bound.h"
#include "core/search/random_stream.h"
#include "core/solve/report.h"
#include "core/solve/solve_balanced.h"
#include "core/topology/hierarchy.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/mappers/search_test_util.h"

namespace hopmap {
namespace {

using ::hopmap::testing::BruteHopBytes;
using ::hopmap::testing::Generate;
using ::hopmap::testing::RandomGraph;
using ::hopmap::testing::WholeTorus;
using ::testing::HasSubstr;

std::vector<double> RandomLoads(TaskId n, double lo, double hi, uint64_t seed) {
  RandomStream random(seed, 7);
  std::vector<double> loads(n);
  for (double& l : loads) l = lo + (hi - lo) * random.Unit();
  return loads;
}

double MaxSlotLoad(const BalanceInput& input, const std::vector<SlotId>& slot_of_task) {
  std::vector<double> loads = SlotLoads(input, slot_of_task);
  return *std::max_element(loads.begin(), loads.end());
}

TEST(BalanceInputTest, RefusesBadFieldsByName) {
  const TaskGraph graph = Generate("stencil2d-5", {4, 4});
  const Allocation allocation = WholeTorus({2, 2}, 1);
  std::vector<double> loads(16, 1.0);
  const BalanceOptions defaults;
  loads[3] = -1;
  EXPECT_THAT(std::string(ValidateBalanceInput({graph, allocation, loads}, defaults).message()),
              HasSubstr("loads: object 3 has load -1"));
  loads[3] = 1;
  std::vector<double> short_loads(15, 1.0);
  EXPECT_THAT(
      std::string(ValidateBalanceInput({graph, allocation, short_loads}, defaults).message()),
      HasSubstr("loads: 15 entries for 16 objects"));
  std::vector<SlotId> current(16, 0);
  current[5] = 4;
  EXPECT_THAT(
      std::string(ValidateBalanceInput({graph, allocation, loads, current}, defaults).message()),
      HasSubstr("current placement: object 5 is on slot 4, outside the allocation's slots 0..3"));
  BalanceOptions negative;
  negative.imbalance = -0.1;
  EXPECT_THAT(std::string(ValidateBalanceInput({graph, allocation, loads}, negative).message()),
              HasSubstr("imbalance -0.1 must be a number from 0 to 1000"));
  // A fuzzer's request: an imbalance of 9e271 overflowed the weights it sizes.
  BalanceOptions huge;
  huge.imbalance = 8.989532613119671e+271;
  EXPECT_THAT(std::string(ValidateBalanceInput({graph, allocation, loads}, huge).message()),
              HasSubstr("imbalance 8.98953e+271 must be a number from 0 to 1000"));
  BalanceOptions limited;
  limited.max_migrations = 3;
  EXPECT_THAT(std::string(ValidateBalanceInput({graph, allocation, loads}, limited).message()),
              HasSubstr("needs the current placement"));
  std::vector<Bytes> state(16, 1);
  state[2] = -5;
  current[5] = 0;
  EXPECT_THAT(
      std::string(
          ValidateBalanceInput({graph, allocation, loads, current, state}, limited).message()),
      HasSubstr("state bytes: object 2 has -5 bytes"));
  // Sums that would overflow the migrated bytes (an audit's 64 x INT64_MAX came
  // back as -48 migrated bytes).
  std::fill(state.begin(), state.end(), Bytes{1} << 60);
  EXPECT_THAT(
      std::string(
          ValidateBalanceInput({graph, allocation, loads, current, state}, limited).message()),
      HasSubstr("state bytes: objects 0..4 have more than 4611686018427387904 bytes together"));
}

TEST(BalancedPlacementTest, KeepsHopBytesLoadsAndMigrationsExact) {
  const TaskGraph graph = RandomGraph(40, 0.2, 100, 3);
  const Allocation allocation = WholeTorus({3, 3}, 2);
  const std::vector<double> loads = RandomLoads(40, 0.5, 2.0, 4);
  std::vector<SlotId> current(40);
  for (TaskId t = 0; t < 40; ++t) current[t] = t % 18;
  std::vector<Bytes> state(40);
  for (TaskId t = 0; t < 40; ++t) state[t] = 10 + t;
  const BalanceInput input{graph, allocation, loads, current, state};
  BalanceOptions options;
  options.migration_cost = 0.5;
  BalancedPlacement p(input, options, current);
  RandomStream random(9, 0);
  for (int step = 0; step < 300; ++step) {
    const TaskId t = static_cast<TaskId>(random.Below(40));
    if (step % 3 == 0) {
      const TaskId u = static_cast<TaskId>(random.Below(40));
      if (u == t) continue;
      const HopBytes d = p.MoveDelta(t, p.position_of(u), u) + p.MoveDelta(u, p.position_of(t), t);
      p.Swap(t, u, d);
    } else {
      const SlotId to = static_cast<SlotId>(random.Below(18));
      p.Move(t, to, p.MoveDelta(t, allocation.PositionOfSlot(to)));
    }
    ASSERT_EQ(p.hop_bytes(), BruteHopBytes(graph, allocation, p.slot_of_task())) << step;
  }
  const std::vector<double> slot_loads = SlotLoads(input, p.slot_of_task());
  int64_t migrated = 0;
  Bytes bytes = 0;
  for (TaskId t = 0; t < 40; ++t) {
    if (p.slot_of(t) != current[t]) {
      ++migrated;
      bytes += state[t];
    }
  }
  for (SlotId s = 0; s < 18; ++s) {
    EXPECT_NEAR(p.slot_load(s), slot_loads[s], 1e-9);
    for (TaskId t : p.objects_on(s)) EXPECT_EQ(p.slot_of(t), s);
  }
  EXPECT_EQ(p.migrated_objects(), migrated);
  EXPECT_EQ(p.migrated_bytes(), bytes);
  EXPECT_DOUBLE_EQ(p.objective(), static_cast<double>(p.hop_bytes()) + 0.5 * bytes);
}

// With unit loads and nodes holding `cores` of them, the loaded bound is the
// degree bound.
TEST(LoadedLowerBoundTest, UnitLoadsGiveTheDegreeBound) {
  for (int32_t cores : {1, 2, 4}) {
    const TaskGraph graph = RandomGraph(30, 0.3, 50, 11 + cores);
    const Allocation allocation = WholeTorus({4, 4}, cores);
    const std::vector<double> ones(30, 1.0);
    EXPECT_EQ(LoadedDegreeLowerBound(graph, allocation, ones, cores).value,
              DegreeLowerBound(graph, allocation).value)
        << cores;
  }
}

// Every placement of 7 objects with random loads onto 4 nodes within the node
// capacity: the bound is at most the best of them.
TEST(LoadedLowerBoundTest, NeverAboveTheBruteForceOptimum) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const TaskGraph graph = RandomGraph(7, 0.6, 100, seed);
    const Allocation allocation = WholeTorus({4}, 1);
    const std::vector<double> loads = RandomLoads(7, 0.0, 3.0, seed);
    const double total = std::accumulate(loads.begin(), loads.end(), 0.0);
    const double capacity =
        std::max(1.2 * total / 4, *std::max_element(loads.begin(), loads.end()));
    HopBytes best = -1;
    std::vector<SlotId> slot(7, 0);
    std::function<void(TaskId)> enumerate = [&](TaskId t) {
      if (t == 7) {
        std::vector<double> node(4, 0);
        for (TaskId u = 0; u < 7; ++u) node[slot[u]] += loads[u];
        if (*std::max_element(node.begin(), node.end()) > capacity) return;
        const HopBytes hb = BruteHopBytes(graph, allocation, slot);
        if (best < 0 || hb < best) best = hb;
        return;
      }
      for (SlotId s = 0; s < 4; ++s) {
        slot[t] = s;
        enumerate(t + 1);
      }
    };
    enumerate(0);
    ASSERT_GE(best, 0);
    const LowerBound bound = LoadedDegreeLowerBound(graph, allocation, loads, capacity);
    EXPECT_LE(bound.value, best) << seed;
    EXPECT_EQ(bound.method, "degree-loads");
  }
}

MappingReport Solve(const BalanceInput& input, const std::string& algorithm,
                    const BalanceOptions& balance = {}, int threads = 1) {
  MapperOptions options;
  options.threads = threads;
  options.time_limit_seconds = 5;
  absl::StatusOr<MappingReport> report = SolveBalancedMapping(input, algorithm, options, balance);
  EXPECT_TRUE(report.ok()) << report.status();
  return report.ok() ? *std::move(report) : MappingReport{};
}

// A 32x32 stencil with loads 0.5..1.5 on a 4x4 torus of 4 cores (64 slots).
TEST(BalancedSolveTest, PartitionIsBalancedAndBeatsTheCommunicationBlindBalancers) {
  const TaskGraph graph = Generate("stencil2d-5", {32, 32});
  const Allocation allocation = WholeTorus({4, 4}, 4);
  const std::vector<double> loads = RandomLoads(1024, 0.5, 1.5, 5);
  const BalanceInput input{graph, allocation, loads};
  const MappingReport ours = Solve(input, "partition");
  const MappingReport greedy = Solve(input, "greedy-lb");
  ASSERT_TRUE(ours.balance.has_value());
  EXPECT_TRUE(ours.balance->balanced) << ours.balance->note;
  EXPECT_LE(ours.balance->max_load, 1.05 * ours.balance->avg_load + 1e-9);
  EXPECT_EQ(ours.hop_bytes, BruteHopBytes(graph, allocation, ours.slot_of_task));
  EXPECT_LT(ours.hop_bytes, greedy.hop_bytes / 2) << greedy.hop_bytes;
  EXPECT_LE(ours.lower_bound.value, ours.hop_bytes);
  // Each object's four neighbours fit on its node, so the bound is 0 here.
  EXPECT_EQ(ours.lower_bound.method, "degree-loads");
  EXPECT_EQ(ours.slot_of_task.size(), 1024u);
  EXPECT_FALSE(ours.balance->has_current);
}

// With the deadline already past, partition still answers from its first start
// (the others are skipped: they could only overrun the budget).
TEST(BalancedSolveTest, PartitionAnswersWhenTheDeadlineHasPassed) {
  const TaskGraph graph = Generate("stencil2d-5", {32, 32});
  const Allocation allocation = WholeTorus({4, 4}, 2);
  const std::vector<double> loads = RandomLoads(1024, 0.5, 1.5, 5);
  const BalanceInput input{graph, allocation, loads};
  const BalanceOptions balance;
  const MapperOptions options;
  const StopCondition stop(absl::InfinitePast());
  const LoadCap cap = ComputeLoadCap(input, balance.imbalance);
  absl::StatusOr<std::unique_ptr<Balancer>> partition = CreateBalancer("partition");
  ASSERT_TRUE(partition.ok());
  absl::StatusOr<BalancerOutput> out =
      (*partition)->Balance({input, balance, options, stop, cap, MapSubproblemWithAuto});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->slot_of_task.size(), 1024u);
  for (SlotId s : out->slot_of_task) {
    EXPECT_GE(s, 0);
    EXPECT_LT(s, allocation.num_slots());
  }
  // The figures say one start ran and the clock cut the search.
  EXPECT_EQ(FindStatistic(out->stats, "starts"), 1.0);
  EXPECT_EQ(FindStatistic(out->stats, "stopped_early"), 1.0);
}

// The METIS k-way start's quotient is searched for a few iterations on a hierarchy,
// whose refinement reassigns the parts after it, and for 64 elsewhere; the caller's
// iteration limit, when set, is what it gets.
TEST(BalancedSolveTest, TheQuotientSearchIsShortOnAHierarchy) {
  const TaskGraph graph = RandomGraph(512, 0.02, 10, 3);
  const BalanceOptions balance;
  const StopCondition stop(absl::Now() + absl::Seconds(60));
  auto quotient_iterations = [&](const Allocation& allocation, int64_t limit) {
    const BalanceInput input{graph, allocation};
    const LoadCap cap = ComputeLoadCap(input, balance.imbalance);
    MapperOptions options;
    options.iteration_limit = limit;
    std::vector<int64_t> seen;
    // The real portfolio maps the quotient; the wrapper only notes what it was given.
    const SubproblemMapper recording = [&](const TaskGraph& g, const Allocation& a,
                                           const MapperOptions& o, const StopCondition& s) {
      seen.push_back(o.iteration_limit);
      return MapSubproblemWithAuto(g, a, o, s);
    };
    absl::StatusOr<std::unique_ptr<Balancer>> partition = CreateBalancer("partition");
    EXPECT_TRUE(partition.ok());
    absl::StatusOr<BalancerOutput> out =
        (*partition)->Balance({input, balance, options, stop, cap, recording});
    EXPECT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(seen.size(), 1u);
    return seen.empty() ? int64_t{-1} : seen[0];
  };
  const Allocation hierarchy = *Allocation::WholeMachine(
      std::make_shared<HierarchyMachine>(*HierarchyMachine::Create({4, 4, 2}, {1, 10, 100})));
  EXPECT_EQ(quotient_iterations(hierarchy, 0), 4);
  EXPECT_EQ(quotient_iterations(hierarchy, 7), 7);
  EXPECT_EQ(quotient_iterations(WholeTorus({4, 4, 2}, 1), 0), 64);
}

// Every balancer reports what it did, in a fixed order of names; auto gives each
// candidate its own figures and the winner's as its own.
TEST(BalancedSolveTest, BalancersReportTheirFigures) {
  const TaskGraph graph = Generate("stencil2d-5", {16, 16});
  const Allocation allocation = WholeTorus({2, 2}, 4);
  const std::vector<double> loads = RandomLoads(256, 0.5, 1.5, 5);
  const std::vector<SlotId> current = GreedyLbPlacement({graph, allocation, loads});
  const BalanceInput input{graph, allocation, loads, current};
  const BalanceOptions balance;
  const MapperOptions options;
  const StopCondition stop(absl::InfiniteFuture());
  const LoadCap cap = ComputeLoadCap(input, balance.imbalance);
  auto names = [](const std::vector<Statistic>& stats) {
    std::vector<std::string> out;
    for (const Statistic& s : stats) out.push_back(s.name);
    return out;
  };
  const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
      {"partition",
       {"starts", "passes", "moves", "swaps", "levels", "greedy_fallback", "stopped_early"}},
      {"migrate", {"remaps", "passes", "moves", "swaps", "levels", "stopped_early"}},
      {"greedy-lb", {"slots_over_cap"}},
      {"refine-lb", {"moved_objects", "slots_over_cap"}},
      {"block", {"slots_over_cap"}},
  };
  for (const auto& [name, stat_names] : expected) {
    absl::StatusOr<std::unique_ptr<Balancer>> balancer = CreateBalancer(name);
    ASSERT_TRUE(balancer.ok()) << name;
    absl::StatusOr<BalancerOutput> out =
        (*balancer)->Balance({input, balance, options, stop, cap, MapSubproblemWithAuto});
    ASSERT_TRUE(out.ok()) << name << ": " << out.status();
    EXPECT_EQ(names(out->stats), stat_names) << name;
    if (name == "partition" || name == "migrate") {
      EXPECT_GT(*FindStatistic(out->stats, "passes"), 0) << name;
      EXPECT_EQ(FindStatistic(out->stats, "stopped_early"), 0.0) << name;
    }
  }
  EXPECT_EQ(FindStatistic((*CreateBalancer("migrate"))
                              ->Balance({input, balance, options, stop, cap, MapSubproblemWithAuto})
                              ->stats,
                          "remaps"),
            6.0);
  absl::StatusOr<BalancerOutput> portfolio =
      (*CreateBalancer("auto"))
          ->Balance({input, balance, options, stop, cap, MapSubproblemWithAuto});
  ASSERT_TRUE(portfolio.ok()) << portfolio.status();
  ASSERT_EQ(portfolio->candidates.size(), 2u);
  EXPECT_EQ(names(portfolio->candidates[0].stats), expected[1].second);  // migrate
  EXPECT_EQ(names(portfolio->candidates[1].stats), expected[0].second);  // partition
  const Candidate& winner = portfolio->candidates[portfolio->winner == "migrate" ? 0 : 1];
  EXPECT_EQ(portfolio->stats, winner.stats);
}

TEST(BalancedSolveTest, IsDeterministicForAnyThreadCount) {
  const TaskGraph graph = Generate("stencil3d-7", {8, 8, 8});
  const Allocation allocation = WholeTorus({2, 2, 2}, 4);
  const std::vector<double> loads = RandomLoads(512, 0.2, 3.0, 8);
  const BalanceInput input{graph, allocation, loads};
  BalanceOptions balance;
  MapperOptions options;
  options.iteration_limit = 0;
  const MappingReport one = Solve(input, "partition", balance, 1);
  const MappingReport two = Solve(input, "partition", balance, 2);
  EXPECT_EQ(one.slot_of_task, two.slot_of_task);
}

TEST(BalancedSolveTest, AnObjectHeavierThanTheCapIsReportedNotHidden) {
  const TaskGraph graph = Generate("ring", {}, 40);
  const Allocation allocation = WholeTorus({4}, 2);
  std::vector<double> loads(40, 1.0);
  loads[17] = 30;  // average 69 / 8 = 8.6; the cap is 9.06
  const MappingReport report = Solve({graph, allocation, loads}, "auto");
  ASSERT_TRUE(report.balance.has_value());
  EXPECT_FALSE(report.balance->balanced);
  EXPECT_THAT(report.balance->note, HasSubstr("object 17 alone has load 30"));
  EXPECT_DOUBLE_EQ(report.balance->max_load, 30);  // nothing shares its slot
}

// Under the cap alone, but not with the load every slot carries anyway: wherever
// the object goes, its slot is over the cap (a runtime's measured background).
TEST(BalancedSolveTest, AnObjectWithTheLeastBackgroundAboveTheCapIsReported) {
  const TaskGraph graph = Generate("ring", {}, 40);
  const Allocation allocation = WholeTorus({4}, 2);
  std::vector<double> loads(40, 1.0);
  loads[17] = 6.5;
  std::vector<double> background(8, 1.25);
  background[2] = 1;  // average (45.5 + 9.75) / 8 = 6.90625; the cap is 7.2515625
  BalanceInput input{graph, allocation, loads};
  input.background_load = background;
  const LoadCap cap = ComputeLoadCap(input, 0.05);
  EXPECT_EQ(cap.heaviest, 17);
  EXPECT_EQ(cap.least_fixed_slot, 2);
  EXPECT_DOUBLE_EQ(cap.cap, 7.5);  // 6.5 + 1, the least any placement reaches
  const MappingReport report = Solve(input, "auto");
  ASSERT_TRUE(report.balance.has_value());
  EXPECT_FALSE(report.balance->balanced);
  EXPECT_THAT(report.balance->note,
              HasSubstr("object 17 has load 6.5 and every slot carries at least 1 of background "
                        "load and fixed objects (slot 2): together 7.5, above (1 + 0.05) x "
                        "average = 7.25156: no placement meets the cap"));
  EXPECT_DOUBLE_EQ(report.balance->max_load, 7.5);  // the object alone on slot 2
}

TEST(BalancedSolveTest, OneObjectPerCoreIsTheSpecialCase) {
  const TaskGraph graph = Generate("stencil2d-5", {8, 8});
  const Allocation allocation = WholeTorus({4, 4}, 4);
  const MappingReport report = Solve({graph, allocation}, "auto");
  ASSERT_TRUE(report.balance.has_value());
  EXPECT_TRUE(report.balance->balanced);
  EXPECT_EQ(report.balance->max_load, 1.0);
  std::vector<SlotId> sorted = report.slot_of_task;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
}

// A balanced placement, then 10% of the objects double their load: the migration
// mode rebalances moving few objects, within the limits it is given.
TEST(BalancedSolveTest, MigrateRebalancesWithinTheLimits) {
  const TaskGraph graph = Generate("stencil2d-5", {32, 32});
  const Allocation allocation = WholeTorus({4, 4}, 4);
  std::vector<double> loads = RandomLoads(1024, 0.5, 1.5, 5);
  const MappingReport before = Solve({graph, allocation, loads}, "partition");
  RandomStream random(21, 0);
  for (int i = 0; i < 102; ++i) loads[random.Below(1024)] *= 2;
  const std::vector<SlotId>& current = before.slot_of_task;
  const MappingReport after = Solve({graph, allocation, loads, current}, "migrate");
  ASSERT_TRUE(after.balance.has_value());
  EXPECT_TRUE(after.balance->balanced) << after.balance->note;
  EXPECT_TRUE(after.balance->has_current);
  EXPECT_GT(after.balance->current_max_load, after.balance->requested_cap);
  EXPECT_LE(after.balance->migrated_objects, 1024 * 15 / 100);
  EXPECT_EQ(after.baseline_hop_bytes, BruteHopBytes(graph, allocation, current));
  for (const ObjectMove& move : after.balance->moves) {
    EXPECT_EQ(move.from, current[move.task]);
    EXPECT_EQ(move.to, after.slot_of_task[move.task]);
  }
  // A limit of 5 objects holds, and the report says why the balance was not reached.
  BalanceOptions limited;
  limited.max_migrations = 5;
  const MappingReport held = Solve({graph, allocation, loads, current}, "migrate", limited);
  ASSERT_TRUE(held.balance.has_value());
  EXPECT_LE(held.balance->migrated_objects, 5);
  EXPECT_FALSE(held.balance->balanced);
  EXPECT_THAT(held.balance->note, HasSubstr("migration limit"));
  // A byte limit too.
  BalanceOptions bytes;
  bytes.max_migration_bytes = 20;
  const MappingReport byte_held = Solve({graph, allocation, loads, current}, "migrate", bytes);
  EXPECT_LE(byte_held.balance->migrated_bytes, 20);
}

// A remap that moved every object (each slot's objects sent 4 slots on, every
// slot full) trimmed to a limit: only exchanges can send objects home, the limit
// then holds, no slot goes over the cap, no object that stayed is moved, and the
// bookkeeping stays exact; a limit of 0 brings every object home.
TEST(TrimMigrationsTest, ExchangesBackToTheLimitUnderTheCap) {
  const TaskGraph graph = Generate("stencil2d-5", {16, 16});
  const Allocation allocation = WholeTorus({4, 4}, 4);
  const std::vector<double> loads(256, 1.0);
  std::vector<SlotId> current(256);
  for (TaskId t = 0; t < 256; ++t) current[t] = t / 4;
  std::vector<SlotId> remapped(256);
  for (TaskId t = 0; t < 256; ++t) remapped[t] = (current[t] + 4) % 64;
  const BalanceInput input{graph, allocation, loads, current};
  const double cap = 4 * 1.05;
  for (const int64_t limit : {int64_t{100}, int64_t{0}}) {
    BalanceOptions options;
    options.max_migrations = limit;
    BalancedPlacement p(input, options, remapped);
    ASSERT_FALSE(p.MigrationLimitsHold());
    EXPECT_TRUE(TrimMigrations(p, cap, StopCondition(absl::InfiniteFuture())));
    EXPECT_TRUE(p.MigrationLimitsHold());
    EXPECT_LE(p.migrated_objects(), limit);
    EXPECT_EQ(p.hop_bytes(), BruteHopBytes(graph, allocation, p.slot_of_task()));
    for (SlotId s = 0; s < 64; ++s) EXPECT_LE(p.slot_load(s), cap) << s;
    if (limit == 0) {
      EXPECT_EQ(p.slot_of_task(), current);
    }
  }
  // A byte limit: objects of 10 bytes, at most 500 bytes moved.
  const std::vector<Bytes> state(256, 10);
  const BalanceInput with_state{graph, allocation, loads, current, state};
  BalanceOptions bytes;
  bytes.max_migration_bytes = 500;
  BalancedPlacement p(with_state, bytes, remapped);
  EXPECT_TRUE(TrimMigrations(p, cap, StopCondition(absl::InfiniteFuture())));
  EXPECT_LE(p.migrated_bytes(), 500);
  // Without room at home (object 0 weighs 2, its slot keeps 3 of its own) and
  // without a migrated partner there, nothing can return: reported, not forced.
  std::vector<double> heavier = loads;
  heavier[0] = 2;
  std::vector<SlotId> one_moved = current;
  one_moved[0] = 1;
  const BalanceInput heavier_input{graph, allocation, heavier, current};
  BalanceOptions none;
  none.max_migrations = 0;
  BalancedPlacement stuck(heavier_input, none, one_moved);
  EXPECT_FALSE(TrimMigrations(stuck, cap, StopCondition(absl::InfiniteFuture())));
  EXPECT_EQ(stuck.slot_of_task(), one_moved);
}

// Slots of a few heavy objects: no single move helps (each overloads the slot it
// goes to) but an exchange with a lighter object does. The repair finds it, keeps
// the bookkeeping exact, and without a lighter object says why it stopped.
TEST(RepairBalanceTest, ExchangesWhenNoSingleMoveFits) {
  const TaskGraph graph = Generate("stencil2d-5", {2, 2});
  const Allocation allocation = WholeTorus({2}, 1);
  // Slot 0: 3 + 3 = 6, slot 1: 2 + 2 = 4; average 5, cap 5.25.
  const std::vector<double> loads = {3, 3, 2, 2};
  const BalanceInput input{graph, allocation, loads};
  const BalanceOptions options;
  const double cap = 5 * 1.05;
  BalancedPlacement p(input, options, {0, 0, 1, 1});
  const BalanceSearchStats stats = RepairBalance(p, cap, StopCondition(absl::InfiniteFuture()));
  EXPECT_TRUE(stats.balanced) << stats.why_not_balanced;
  EXPECT_EQ(stats.swaps, 1);
  EXPECT_EQ(stats.moves, 0);
  EXPECT_DOUBLE_EQ(p.slot_load(0), 5);
  EXPECT_DOUBLE_EQ(p.slot_load(1), 5);
  EXPECT_EQ(p.hop_bytes(), BruteHopBytes(graph, allocation, p.slot_of_task()));
  // 3 + 3 + 3 against 1: one move gives 6 and 4, and then neither a move nor an
  // exchange lowers the 6 without taking the other slot over the cap.
  const std::vector<double> unreachable = {3, 3, 3, 1};
  const BalanceInput unreachable_input{graph, allocation, unreachable};
  BalancedPlacement q(unreachable_input, options, {0, 0, 0, 1});
  const BalanceSearchStats stuck = RepairBalance(q, cap, StopCondition(absl::InfiniteFuture()));
  EXPECT_FALSE(stuck.balanced);
  EXPECT_DOUBLE_EQ(std::max(q.slot_load(0), q.slot_load(1)), 6);
  EXPECT_THAT(stuck.why_not_balanced, HasSubstr("no object move"));
}

// A start the budget ran out on is still repaired: every object of an 8x8 grid
// on one of 4 slots, the deadline already past. The repair runs to the cap; the
// refinement after it stops at the deadline. A cancellation stops the repair too.
TEST(RepairAndRefineTest, RepairsPastTheDeadlineNotPastACancellation) {
  const TaskGraph graph = Generate("stencil2d-5", {8, 8});
  const Allocation allocation = WholeTorus({4}, 1);
  const BalanceInput input{graph, allocation};
  const double cap = 16 * 1.05;
  BalancedPlacement p(input, BalanceOptions{}, std::vector<SlotId>(64, 0));
  const BalanceSearchStats stats = RepairAndRefine(p, cap, StopCondition(absl::InfinitePast()));
  EXPECT_TRUE(stats.balanced) << stats.why_not_balanced;
  for (SlotId s = 0; s < 4; ++s) EXPECT_LE(p.slot_load(s), cap + LoadTolerance(cap)) << s;
  EXPECT_EQ(p.hop_bytes(), BruteHopBytes(graph, allocation, p.slot_of_task()));

  const std::atomic<bool> cancelled{true};
  BalancedPlacement q(input, BalanceOptions{}, std::vector<SlotId>(64, 0));
  EXPECT_FALSE(RepairAndRefine(q, cap, StopCondition(absl::InfiniteFuture(), &cancelled)).balanced);
  EXPECT_DOUBLE_EQ(q.slot_load(0), 64);
}

// Random loads of 0.5..3 on four objects per slot: every balancer that promises
// the cap meets it whenever GreedyLB does (before the exchanges in the repair,
// `partition` and `migrate` with a migration cost left some of these over it).
TEST(BalancedSolveTest, FewHeavyObjectsPerSlotStillMeetTheCap) {
  const TaskGraph graph = Generate("stencil2d-5", {8, 8});
  const Allocation allocation = WholeTorus({2, 2, 2}, 2);
  std::vector<SlotId> current(64);
  for (TaskId t = 0; t < 64; ++t) current[t] = t / 4;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    const std::vector<double> loads = RandomLoads(64, 0.5, 3.0, seed);
    const BalanceInput input{graph, allocation, loads, current};
    const double cap = 1.05 * std::accumulate(loads.begin(), loads.end(), 0.0) / 16;
    if (MaxSlotLoad(input, GreedyLbPlacement(input)) > cap) continue;
    for (const char* name : {"partition", "migrate", "auto"}) {
      BalanceOptions options;
      options.migration_cost = 1e-9;
      const MappingReport out = Solve(input, name, options);
      EXPECT_LE(MaxSlotLoad(input, out.slot_of_task), cap + 1e-9) << name << " seed " << seed;
    }
  }
}

// TrimAndRefine on a remap that moved everything: the rising price brings it
// within an object or a byte limit, no slot ends over the cap, fixed objects stay
// home, hop-bytes stay exact, and on this input it ends lower than returning
// objects one at a time (TrimMigrations) before the same repair and refinement.
TEST(TrimMigrationsTest, RisingPriceBringsARemapWithinTheLimit) {
  const TaskGraph graph = Generate("stencil2d-5", {32, 32});
  const Allocation allocation = WholeTorus({4, 4}, 2);
  const std::vector<double> loads = RandomLoads(1024, 0.5, 1.5, 9);
  const std::vector<SlotId> current = BlockPlacement(BalanceInput{graph, allocation, loads});
  std::vector<SlotId> remapped(1024);
  for (TaskId t = 0; t < 1024; ++t) remapped[t] = (current[t] + 3) % 32;
  const std::vector<Bytes> state(1024, 10);
  bool fixed[1024] = {};
  for (TaskId t = 0; t < 1024; t += 50) fixed[t] = true;
  const BalanceInput input{.graph = graph,
                           .allocation = allocation,
                           .loads = loads,
                           .current_slot = current,
                           .state_bytes = state,
                           .fixed = fixed};
  const double cap = ComputeLoadCap(input, 0.05).cap;
  const StopCondition no_deadline(absl::InfiniteFuture());
  BalanceOptions by_objects;
  by_objects.max_migrations = 150;
  BalanceOptions by_bytes;
  by_bytes.max_migration_bytes = 1000;
  for (const BalanceOptions& options : {by_objects, by_bytes}) {
    BalancedPlacement p(input, options, remapped);
    ASSERT_FALSE(p.MigrationLimitsHold());
    TrimAndRefine(p, cap, no_deadline);
    EXPECT_TRUE(p.MigrationLimitsHold()) << p.migrated_objects() << " " << p.migrated_bytes();
    EXPECT_EQ(p.hop_bytes(), BruteHopBytes(graph, allocation, p.slot_of_task()));
    for (SlotId s = 0; s < allocation.num_slots(); ++s) {
      EXPECT_LE(p.slot_load(s), cap + LoadTolerance(cap)) << s;
    }
    for (TaskId t = 0; t < 1024; t += 50) EXPECT_EQ(p.slot_of(t), current[t]) << t;

    BalancedPlacement one_at_a_time(input, options, remapped);
    TrimMigrations(one_at_a_time, cap, no_deadline);
    RepairAndRefine(one_at_a_time, cap, no_deadline);
    // Here 1,193,984 against 1,335,296 (objects) and 1,243,136 (bytes).
    EXPECT_LT(p.hop_bytes(), one_at_a_time.hop_bytes());
  }
}

// Without edges no price moves anything; the objects still go home to the limit.
TEST(TrimMigrationsTest, RemapWithoutEdgesStillComesWithinTheLimit) {
  absl::StatusOr<TaskGraph> graph = TaskGraphBuilder(64).Build();
  ASSERT_TRUE(graph.ok());
  const Allocation allocation = WholeTorus({4, 4}, 1);
  std::vector<SlotId> current(64), remapped(64);
  for (TaskId t = 0; t < 64; ++t) current[t] = t / 4, remapped[t] = (t / 4 + 1) % 16;
  const BalanceInput input{*graph, allocation, {}, current};
  BalanceOptions options;
  options.max_migrations = 10;
  const double cap = ComputeLoadCap(input, 0.05).cap;
  BalancedPlacement p(input, options, remapped);
  TrimAndRefine(p, cap, StopCondition(absl::InfiniteFuture()));
  EXPECT_TRUE(p.MigrationLimitsHold()) << p.migrated_objects();
  EXPECT_EQ(p.hop_bytes(), 0);
}

// With a migration cost, a move must pay for itself: a huge cost leaves only the
// moves the balance needs; no cost lets the search move more for hop-bytes.
TEST(BalancedSolveTest, MigrationCostTradesHopBytesForMoves) {
  const TaskGraph graph = Generate("stencil2d-5", {16, 16});
  const Allocation allocation = WholeTorus({2, 2}, 4);
  const std::vector<double> loads(256, 1.0);
  // A balanced but communication-blind start: 16 random objects per slot.
  std::vector<SlotId> current(256);
  std::vector<TaskId> order(256);
  std::iota(order.begin(), order.end(), 0);
  RandomStream random(4, 0);
  for (TaskId i = 255; i > 0; --i) std::swap(order[i], order[random.Below(i + 1)]);
  for (TaskId i = 0; i < 256; ++i) current[order[i]] = i % 16;
  BalanceOptions cheap;
  cheap.migration_cost = 0;
  BalanceOptions dear;
  dear.migration_cost = 1e12;
  const MappingReport free_moves = Solve({graph, allocation, loads, current}, "migrate", cheap);
  const MappingReport no_moves = Solve({graph, allocation, loads, current}, "migrate", dear);
  EXPECT_EQ(no_moves.balance->migrated_objects, 0);
  EXPECT_EQ(no_moves.hop_bytes, no_moves.baseline_hop_bytes);
  EXPECT_GT(free_moves.balance->migrated_objects, 0);
  EXPECT_LT(free_moves.hop_bytes, free_moves.baseline_hop_bytes);
}

TEST(BalancedSolveTest, RuntimeBalancersKeepTheirPromises) {
  const TaskGraph graph = Generate("stencil2d-5", {16, 16});
  const Allocation allocation = WholeTorus({4, 4}, 2);
  const std::vector<double> loads = RandomLoads(256, 0.1, 1.0, 2);
  const BalanceInput input{graph, allocation, loads};
  const LoadCap cap = ComputeLoadCap(input, 0.05);
  // GreedyLB: many small objects end within the cap.
  EXPECT_LE(MaxSlotLoad(input, GreedyLbPlacement(input)), cap.requested);
  // RefineLB from the block distribution: within the cap, moving few objects.
  const std::vector<SlotId> block = BlockPlacement(input);
  const std::vector<SlotId> refined = RefineLbPlacement(input, block, cap.cap);
  EXPECT_LE(MaxSlotLoad(input, refined), cap.cap + 1e-9);
  int moved = 0;
  for (TaskId t = 0; t < 256; ++t) moved += refined[t] != block[t];
  EXPECT_LT(moved, 64);
  // Block: contiguous runs.
  EXPECT_TRUE(std::is_sorted(block.begin(), block.end()));
}

// A runtime's non-migratable objects and background load: every balancer leaves
// the fixed objects where they are and balances the slots' whole loads.
TEST(BalancedSolveTest, FixedObjectsStayAndBackgroundLoadCounts) {
  const TaskGraph graph = Generate("stencil2d-5", {16, 16});
  const Allocation allocation = WholeTorus({4, 4}, 2);
  const std::vector<double> loads = RandomLoads(256, 0.5, 1.5, 3);
  std::vector<SlotId> current(256);
  for (TaskId t = 0; t < 256; ++t) current[t] = (t * 37) % 32;  // scattered
  bool fixed[256] = {};
  for (TaskId t = 0; t < 256; t += 7) fixed[t] = true;
  std::vector<double> background(32, 0.0);
  for (SlotId s = 0; s < 8; ++s) background[s] = 3.0;  // a quarter of the slots are busy
  BalanceInput input{graph, allocation, loads, current};
  input.fixed = fixed;
  input.background_load = background;
  const double total = std::accumulate(loads.begin(), loads.end(), 0.0) + 8 * 3.0;
  for (const std::string algorithm :
       {"auto", "partition", "migrate", "greedy-lb", "refine-lb", "block"}) {
    SCOPED_TRACE(algorithm);
    const MappingReport report = Solve(input, algorithm);
    ASSERT_TRUE(report.balance.has_value());
    for (TaskId t = 0; t < 256; t += 7) EXPECT_EQ(report.slot_of_task[t], current[t]) << t;
    const LoadBalanceReport& b = *report.balance;
    EXPECT_NEAR(b.total_load, total, 1e-9);
    EXPECT_NEAR(b.avg_load, total / 32, 1e-9);
    EXPECT_NEAR(b.max_load, MaxSlotLoad(input, report.slot_of_task), 1e-9);
    EXPECT_GE(b.load_of_slot[0], 3.0);
    if (algorithm != "block") {
      EXPECT_TRUE(b.balanced) << b.note << " max " << b.max_load << " avg " << b.avg_load;
    }
    EXPECT_EQ(report.hop_bytes, BruteHopBytes(graph, allocation, report.slot_of_task));
  }
  // Without the background, the same placement would look balanced differently:
  // the busy slots get less of the objects' load than the others.
  const MappingReport report = Solve(input, "auto");
  double busy = 0;
  double idle = 0;
  for (TaskId t = 0; t < 256; ++t) {
    (report.slot_of_task[t] < 8 ? busy : idle) += loads[t];
  }
  EXPECT_LT(busy / 8, idle / 24);
}

TEST(BalancedSolveTest, FixedLoadAboveTheCapIsReported) {
  const TaskGraph graph = Generate("ring", {}, 40);
  const Allocation allocation = WholeTorus({4}, 2);
  std::vector<double> background(8, 0.0);
  background[5] = 20;  // average (40 + 20) / 8 = 7.5
  BalanceInput input{graph, allocation};
  input.background_load = background;
  const MappingReport report = Solve(input, "auto");
  ASSERT_TRUE(report.balance.has_value());
  EXPECT_FALSE(report.balance->balanced);
  EXPECT_THAT(report.balance->note,
              HasSubstr("slot 5 carries 20 of background load and fixed objects"));
  EXPECT_DOUBLE_EQ(report.balance->load_of_slot[5], 20);  // no object joins it
}

TEST(BalanceInputTest, RefusesBadFixedAndBackgroundFields) {
  const TaskGraph graph = Generate("stencil2d-5", {4, 4});
  const Allocation allocation = WholeTorus({2, 2}, 1);
  const BalanceOptions defaults;
  bool fixed[16] = {};
  fixed[3] = true;
  BalanceInput input{graph, allocation};
  input.fixed = fixed;
  EXPECT_THAT(std::string(ValidateBalanceInput(input, defaults).message()),
              HasSubstr("fixed objects stay on their current slot"));
  const std::vector<SlotId> current(16, 0);
  input.current_slot = current;
  EXPECT_TRUE(ValidateBalanceInput(input, defaults).ok());
  input.fixed = std::span<const bool>(fixed, 15);
  EXPECT_THAT(std::string(ValidateBalanceInput(input, defaults).message()),
              HasSubstr("fixed: 15 entries for 16 objects"));
  input.fixed = {};
  std::vector<double> background(3, 0.0);
  input.background_load = background;
  EXPECT_THAT(std::string(ValidateBalanceInput(input, defaults).message()),
              HasSubstr("background load: 3 entries for 4 slots"));
  background.assign(4, 0.0);
  background[2] = -1;
  input.background_load = background;
  EXPECT_THAT(std::string(ValidateBalanceInput(input, defaults).message()),
              HasSubstr("background load: slot 2 has load -1"));
}

TEST(BalancedSolveTest, ErrorsAreClear) {
  const TaskGraph graph = Generate("ring", {}, 10);
  const Allocation allocation = WholeTorus({2}, 1);
  MapperOptions options;
  absl::StatusOr<MappingReport> unknown =
      SolveBalancedMapping({graph, allocation}, "greedy", options, {});
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("greedy-lb"));
  options.objective = Objective::kCongestion;
  EXPECT_THAT(
      std::string(
          SolveBalancedMapping({graph, allocation}, "auto", options, {}).status().message()),
      HasSubstr("objective congestion"));
  absl::StatusOr<MappingReport> bad = EvaluateBalancedMapping(
      {graph, allocation}, std::vector<SlotId>(10, 2), {}, Routing::kDimensionOrder);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("object 0 is on slot 2"));
}

// eval measures any placement: one that moves a fixed object or breaks a
// migration limit is reported so in the note, not passed over.
TEST(BalancedSolveTest, EvalSaysWhatAGivenPlacementBreaks) {
  const TaskGraph graph = Generate("ring", {}, 8);
  const Allocation allocation = WholeTorus({4}, 1);
  const std::vector<SlotId> current = {0, 0, 1, 1, 2, 2, 3, 3};
  const std::vector<SlotId> given = {1, 0, 0, 1, 2, 2, 3, 3};
  const std::vector<Bytes> state(8, 100);
  bool fixed[8] = {};
  fixed[2] = true;
  const BalanceInput input{graph, allocation, {}, current, state, fixed};
  BalanceOptions limits;
  limits.max_migrations = 1;
  limits.max_migration_bytes = 150;
  absl::StatusOr<MappingReport> report =
      EvaluateBalancedMapping(input, given, limits, Routing::kDimensionOrder);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->balance->note,
            "fixed object 2 moved from slot 1 to 0; 2 objects migrated, over the limit of 1; "
            "200 bytes migrated, over the limit of 150");
  limits.max_migrations = 2;
  limits.max_migration_bytes = 200;
  fixed[2] = false;
  report = EvaluateBalancedMapping(input, given, limits, Routing::kDimensionOrder);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->balance->note, "");
}

}  // namespace
}  // namespace hopmap
