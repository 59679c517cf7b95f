// Solve and Evaluate: one request path for the mapping and the balanced problem.
#include "core/solve/solve.h"

#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "core/mappers/portfolio/registry.h"
#include "core/solve/solve_balanced.h"
#include "core/topology/hierarchy.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/mappers/search_test_util.h"

namespace hopmap {
namespace {

using ::hopmap::testing::Generate;
using ::hopmap::testing::WholeTorus;
using ::testing::HasSubstr;

SolveRequest Request(const TaskGraph& graph, const Allocation& allocation, std::string algorithm) {
  SolveRequest request;
  request.graph = &graph;
  request.allocation = &allocation;
  request.algorithm = std::move(algorithm);
  request.options.seed = 3;
  request.options.threads = 1;
  request.options.iteration_limit = 4;
  request.options.time_limit_seconds = 60;
  return request;
}

TEST(SolveTest, MapsWithAMapperAndBalancesWithABalancer) {
  const TaskGraph graph = Generate("stencil2d-5", {8, 8});
  const Allocation one_per_slot = WholeTorus({4, 4}, 4);
  absl::StatusOr<MappingReport> mapped = Solve(Request(graph, one_per_slot, "gge"));
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_EQ(mapped->algorithm, "gge");
  EXPECT_FALSE(mapped->balance.has_value());
  // The same answer as the mapping problem's own entry point.
  MapperOptions options = Request(graph, one_per_slot, "gge").options;
  absl::StatusOr<MappingReport> direct = SolveMapping(graph, one_per_slot, "gge", options);
  ASSERT_TRUE(direct.ok()) << direct.status();
  EXPECT_EQ(mapped->slot_of_task, direct->slot_of_task);
  // An edge that checked the request itself solves it the same way.
  absl::StatusOr<MappingReport> checked = SolveCheckedRequest(Request(graph, one_per_slot, "gge"));
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_EQ(checked->slot_of_task, mapped->slot_of_task);

  // 64 objects on 16 slots: the balanced problem.
  const Allocation sixteen = WholeTorus({4, 4}, 1);
  SolveRequest balanced = Request(graph, sixteen, "partition");
  balanced.balance.emplace();
  balanced.balance->options.imbalance = 0.05;
  absl::StatusOr<MappingReport> placed = Solve(balanced);
  ASSERT_TRUE(placed.ok()) << placed.status();
  ASSERT_TRUE(placed->balance.has_value());
  EXPECT_TRUE(placed->balance->balanced) << placed->balance->note;
  EXPECT_EQ(placed->slot_of_task.size(), 64u);
  // The balancer's figures reach the report and its one candidate.
  EXPECT_TRUE(FindStatistic(placed->stats, "passes").has_value());
  EXPECT_TRUE(FindStatistic(placed->stats, "starts").has_value());
  ASSERT_EQ(placed->candidates.size(), 1u);
  EXPECT_EQ(placed->candidates[0].stats, placed->stats);
}

TEST(SolveTest, RequestErrorsNameTheField) {
  const TaskGraph graph = Generate("stencil2d-5", {4, 4});
  const Allocation allocation = WholeTorus({4, 4}, 1);
  std::optional<RequestError> bad = CheckSolveRequest(Request(graph, allocation, "magic"));
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->field, "algorithm");
  EXPECT_THAT(std::string(bad->status.message()), HasSubstr("unknown algorithm 'magic'"));
  // A mapper is not a balancer.
  SolveRequest balanced = Request(graph, allocation, "grasp");
  balanced.balance.emplace();
  bad = CheckSolveOptions(balanced);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->field, "algorithm");
  // With balance, the current placement is balance.current_slot.
  balanced.algorithm = "partition";
  balanced.initial.assign(16, 0);
  bad = CheckSolveOptions(balanced);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->field, "initial");
  balanced.initial.clear();
  balanced.balance->loads = {1, 2};  // 16 objects
  bad = CheckSolveRequest(balanced);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->field, "balance");
  EXPECT_THAT(std::string(bad->status.message()), HasSubstr("loads: 2 entries for 16 objects"));
  // Solve refuses what the check refuses.
  EXPECT_EQ(Solve(balanced).status(), bad->status);
  SolveRequest negative = Request(graph, allocation, "auto");
  negative.options.iteration_limit = -1;
  bad = CheckSolveOptions(negative);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->field, "options");
  SolveRequest no_graph;
  bad = CheckSolveRequest(no_graph);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->field, "graph");
}

// CheckSolveRequest is CheckSolveOptions, then CheckSolveInputs: an edge that checks
// in the two steps (the options before it builds the graph) runs each rule once.
TEST(SolveTest, TheRequestChecksSplitIntoOptionsAndInputs) {
  const TaskGraph graph = Generate("stencil2d-5", {3, 3});  // 9 tasks
  const Allocation eight = WholeTorus({4}, 2);
  SolveRequest request = Request(graph, eight, "in-order");
  const std::string too_many = "the graph has 9 tasks but the allocation has only 8 slots";
  std::optional<RequestError> bad = CheckSolveInputs(request);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->field, "");
  EXPECT_THAT(std::string(bad->status.message()), HasSubstr(too_many));
  EXPECT_FALSE(CheckSolveOptions(request).has_value());
  EXPECT_EQ(CheckSolveRequest(request)->status, bad->status);
  EXPECT_EQ(Solve(request).status(), bad->status);
  // The options come first; the inputs' check does not look at them.
  request.options.threads = -1;
  EXPECT_EQ(CheckSolveRequest(request)->field, "options");
  EXPECT_EQ(CheckSolveInputs(request)->status, bad->status);
  request.allocation = nullptr;
  EXPECT_EQ(CheckSolveInputs(request)->field, "allocation");
}

// SolveMapping leaves the fit to the request's check; called directly (tests,
// benchmarks, `hopmap qap`), every mapper still refuses more tasks than slots.
TEST(SolveTest, EveryMapperRefusesMoreTasksThanSlots) {
  const TaskGraph graph = Generate("stencil2d-5", {3, 3});
  const Allocation eight = WholeTorus({4}, 2);
  const MapperOptions options = Request(graph, eight, "").options;
  for (const MapperInfo& info : BuiltinMappers().mappers()) {
    SCOPED_TRACE(info.name);
    absl::StatusOr<MappingReport> report = SolveMapping(graph, eight, info.name, options);
    EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(report.status().message()),
                HasSubstr("9 tasks but the allocation has only 8 slots"));
  }
}

// A graph of zero tasks is no job, whoever built it (hopmapd takes CSR with xadj
// = {0}): refused before any mapper or balancer sees it, field "graph".
TEST(SolveTest, AGraphWithoutTasksIsRefused) {
  const TaskGraph empty = *TaskGraphBuilder(0).Build();
  const Allocation allocation = WholeTorus({2, 2}, 1);
  for (const bool balance : {false, true}) {
    SCOPED_TRACE(balance);
    SolveRequest request = Request(empty, allocation, balance ? "partition" : "auto");
    if (balance) request.balance.emplace();
    std::optional<RequestError> bad = CheckSolveRequest(request);
    ASSERT_TRUE(bad.has_value());
    EXPECT_EQ(bad->field, "graph");
    EXPECT_EQ(bad->status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(bad->status.message(), "the graph is empty: no tasks");
    EXPECT_EQ(Solve(request).status(), bad->status);
  }
  EvaluateRequest evaluate;
  evaluate.graph = &empty;
  evaluate.allocation = &allocation;
  std::optional<RequestError> bad = CheckEvaluateRequest(evaluate);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->field, "graph");
  EXPECT_EQ(bad->status.message(), "the graph is empty: no tasks");
  EXPECT_EQ(Evaluate(evaluate).status(), bad->status);
  EXPECT_FALSE(CheckGraphHasTasks(*TaskGraphBuilder(1).Build()).has_value());
}

TEST(SolveTest, InitialMappingIsTheRequestsOwn) {
  const TaskGraph graph = Generate("stencil2d-5", {4, 4});
  const Allocation allocation = WholeTorus({4, 4}, 1);
  SolveRequest request = Request(graph, allocation, "refine");
  request.initial.resize(16);
  std::iota(request.initial.rbegin(), request.initial.rend(), 0);
  absl::StatusOr<MappingReport> report = Solve(request);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->algorithm, "refine(from initial)");
  EXPECT_TRUE(FindStatistic(report->stats, "passes").has_value());
  request.initial.resize(3);
  EXPECT_THAT(std::string(Solve(request).status().message()), HasSubstr("initial mapping"));
}

TEST(SolveTest, DefaultBudgetFollowsTheProblem) {
  const TaskGraph graph = Generate("stencil2d-5", {128, 128});  // 16384 tasks
  const Allocation allocation = WholeTorus({16, 16}, 64);
  SolveRequest request = Request(graph, allocation, "auto");
  EXPECT_EQ(DefaultSolveTimeLimitSeconds(request), DefaultTimeLimitSeconds(16384));
  const Allocation small = WholeTorus({4, 4}, 1);
  request.allocation = &small;
  request.balance.emplace();
  // 16,384 objects on 16 slots: the slots' 1 s (the objects' would be 0.5 s).
  EXPECT_EQ(DefaultSolveTimeLimitSeconds(request), DefaultTimeLimitSeconds(16));
  // Objects past 32,768 per second of the slots' budget raise it.
  EXPECT_EQ(DefaultBalanceTimeLimitSeconds(16, 131072), 4.0);
  EXPECT_EQ(DefaultBalanceTimeLimitSeconds(65536, 131072), DefaultTimeLimitSeconds(65536));
  EXPECT_EQ(DefaultBalanceTimeLimitSeconds(16, 100'000'000), 45.0);
}

TEST(EvaluateTest, MeasuresBothProblemsAndNamesTheBusiestLinks) {
  const TaskGraph graph = Generate("stencil2d-5", {4, 4});
  const Allocation allocation = WholeTorus({4, 4}, 1);
  EvaluateRequest request;
  request.graph = &graph;
  request.allocation = &allocation;
  request.slot_of_task.resize(16);
  std::iota(request.slot_of_task.begin(), request.slot_of_task.end(), 0);
  request.busiest_links = 2;
  absl::StatusOr<MappingReport> report = Evaluate(request);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->algorithm, "given");
  EXPECT_EQ(report->busiest_links.size(), 2u);
  EXPECT_EQ(report->improvement, 0);  // the in-order placement against itself

  // Many objects on one slot: only the balanced problem accepts it.
  request.slot_of_task.assign(16, 0);
  EXPECT_FALSE(Evaluate(request).ok());
  request.balance.emplace();
  report = Evaluate(request);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->balance.has_value());
  EXPECT_FALSE(report->balance->balanced);

  request.slot_of_task.resize(3);
  std::optional<RequestError> bad = CheckEvaluateRequest(request);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->field, "slot_of_task");
  EXPECT_EQ(bad->status.message(), "has 3 entries but the graph has 16 tasks");
}

// 2^15 unit objects on hierarchy:4x16x16 (1024 PEs) within 3%: a placement with 33
// objects on a PE is balanced, as Scotch's -b0.03 and SharedMap's -e 0.03 count;
// 34 is not, and the note gives the rounded cap.
TEST(EvaluateTest, BalancedMeansWithinTheFieldsRoundedCap) {
  const TaskGraph graph = Generate("stencil2d-5", {256, 128});
  const Allocation allocation = *Allocation::WholeMachine(
      std::make_shared<HierarchyMachine>(*HierarchyMachine::Create({4, 16, 16}, {1, 10, 100})));
  const BalanceInput input{graph, allocation};
  BalanceOptions balance;
  balance.imbalance = 0.03;
  // 32 objects on every PE, then object 32 (PE 1's first) moved to PE 0: 33 and 31.
  std::vector<SlotId> slots(32768);
  for (TaskId t = 0; t < 32768; ++t) slots[t] = t / 32;
  slots[32] = 0;
  absl::StatusOr<MappingReport> report =
      EvaluateBalancedMapping(input, slots, balance, Routing::kDimensionOrder, 1);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->balance.has_value());
  EXPECT_EQ(report->balance->max_load, 33.0);
  EXPECT_EQ(report->balance->requested_cap, 33.0);
  EXPECT_TRUE(report->balance->balanced) << report->balance->note;
  slots[33] = 0;  // 34 and 30
  report = EvaluateBalancedMapping(input, slots, balance, Routing::kDimensionOrder, 1);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_FALSE(report->balance->balanced);
  EXPECT_EQ(report->balance->note,
            "the most loaded slot carries 34, above ceil((1 + 0.03) x average) = 33");
}

}  // namespace
}  // namespace hopmap
