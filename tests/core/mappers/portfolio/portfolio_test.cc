// auto runs its candidates concurrently: the answer must not depend on which
// finishes first, every mapping must be valid, and a large job must work.
#include "core/mappers/portfolio/portfolio.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/graph/generators.h"
#include "core/mappers/local_search/refine.h"
#include "core/mappers/portfolio/registry.h"
#include "core/metrics/exchange_time.h"
#include "core/metrics/hop_bytes.h"
#include "core/solve/report.h"
#include "core/solve/solve_mapping.h"
#include "core/topology/hierarchy.h"
#include "core/topology/torus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/mappers/search_test_util.h"

namespace hopmap {
namespace {

std::shared_ptr<const Machine> Torus(std::vector<int32_t> dims) {
  std::vector<bool> wrap(dims.size(), true);
  return std::make_shared<TorusMachine>(*TorusMachine::Create(std::move(dims), std::move(wrap)));
}

// A valid mapping (every task placed once, no node over its cores), and the reported
// hop-bytes are those of the returned mapping.
void ExpectValid(const TaskGraph& graph, const Allocation& allocation,
                 const MappingReport& report) {
  testing::ExpectValidMapping(allocation, graph, report.slot_of_task);
  EXPECT_EQ(report.hop_bytes, ComputeHopBytes(graph, allocation, report.slot_of_task));
  EXPECT_LE(report.hop_bytes, report.baseline_hop_bytes);
  EXPECT_LE(report.lower_bound.value, report.hop_bytes);
}

// Runs `plan` on (graph, allocation) with a 60 s budget the tests' plans never reach.
absl::StatusOr<MapOutput> RunPlan(const PortfolioPlan& plan, const TaskGraph& graph,
                                  const Allocation& allocation) {
  const PortfolioMapper mapper(&BuiltinMappers(), plan);
  MapperOptions options;
  options.time_limit_seconds = 60;
  const StopCondition stop(absl::Now() + absl::Seconds(60));
  return mapper.Map({graph, allocation, options, stop, nullptr, nullptr, nullptr});
}

// 8,192 tasks of a random geometric graph on a fragmented allocation (every
// other block of 4 nodes of a 32x16x16 torus) with 4 cores per node: the shape of
// the large jobs, small enough for a unit test.
TEST(PortfolioTest, LargeFragmentedJobIsValidAndRepeatsItself) {
  GeneratorOptions gen;
  gen.kind = "random-geometric";
  gen.tasks = 8192;
  gen.seed = 3;
  const TaskGraph graph = *GenerateGraph(gen);
  std::vector<NodeId> nodes;
  for (NodeId n = 0; n < 32 * 16 * 16; n += 8) {
    for (NodeId k = 0; k < 4; ++k) nodes.push_back(n + k);
  }
  const Allocation allocation = *Allocation::Create(Torus({32, 16, 16}), nodes, 4);  // 16384 slots
  MapperOptions options;
  options.seed = 9;
  options.threads = 2;
  // The searches end on these caps, not on the clock, so two runs can be compared.
  options.iteration_limit = 20;
  options.time_limit_seconds = 600;
  const absl::StatusOr<MappingReport> first = SolveMapping(graph, allocation, "auto", options);
  ASSERT_TRUE(first.ok()) << first.status();
  ExpectValid(graph, allocation, *first);
  // Refinement, the local search, a restart or the annealing improve on the best
  // construction here; with this budget every restart runs (they end on the
  // iteration cap), and the annealing runs 20 moves per task.
  EXPECT_THAT(first->algorithm,
              ::testing::AnyOf(::testing::StartsWith("refine("), ::testing::Eq("perturb+refine"),
                               ::testing::StartsWith("restart "), ::testing::Eq("anneal")));
  const auto anneal = std::find_if(first->candidates.begin(), first->candidates.end(),
                                   [](const Candidate& c) { return c.algorithm == "anneal"; });
  ASSERT_NE(anneal, first->candidates.end());
  EXPECT_EQ(FindStatistic(anneal->stats, "moves_per_task"), 20);
  EXPECT_EQ(FindStatistic(anneal->stats, "stopped_early"), 0);
  EXPECT_EQ(FindStatistic(anneal->stats, "moves"), 20.0 * graph.num_tasks());
  // The report's figures are the winner's.
  for (const Candidate& c : first->candidates) {
    if (c.algorithm == first->algorithm) {
      EXPECT_EQ(first->stats, c.stats);
    }
  }
  EXPECT_EQ(
      first->candidates.back().algorithm,
      absl::StrCat("restart ", DefaultPortfolioPlan().restarts, ": rec-bisect+refine+perturb"));
  const absl::StatusOr<MappingReport> again = SolveMapping(graph, allocation, "auto", options);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->slot_of_task, first->slot_of_task);
  EXPECT_EQ(again->algorithm, first->algorithm);
  ASSERT_EQ(again->candidates.size(), first->candidates.size());
  for (size_t i = 0; i < first->candidates.size(); ++i) {
    EXPECT_EQ(again->candidates[i].algorithm, first->candidates[i].algorithm);
    EXPECT_EQ(again->candidates[i].hop_bytes, first->candidates[i].hop_bytes);
    // Counts repeat too (wall times are not among them).
    EXPECT_EQ(again->candidates[i].stats, first->candidates[i].stats);
  }
}

// Candidates are listed in plan order whatever order they finish in, and equal
// scores go to the earlier one: in-order and round-robin are the same mapping with
// one core per node, and in-order comes first.
TEST(PortfolioTest, PlanOrderAndTiesToTheEarlierCandidate) {
  GeneratorOptions gen;
  gen.kind = "ring";
  gen.tasks = 64;
  const TaskGraph graph = *GenerateGraph(gen);
  // Not at the lower bound: a ring laid row by row on a 4x4x4 torus has 2-hop edges.
  const Allocation allocation = *Allocation::WholeMachine(Torus({4, 4, 4}));
  PortfolioPlan plan;
  plan.constructions = {"random", "in-order", "round-robin"};
  plan.refine_best = 0;
  plan.perturbations = 0;
  plan.anneal_share = 0;
  plan.grasp_slot_limit = 0;
  for (int run = 0; run < 5; ++run) {
    const absl::StatusOr<MapOutput> out = RunPlan(plan, graph, allocation);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->candidates.size(), 3u);
    EXPECT_EQ(out->candidates[0].algorithm, "random");
    EXPECT_EQ(out->candidates[1].algorithm, "in-order");
    EXPECT_EQ(out->candidates[2].algorithm, "round-robin");
    EXPECT_EQ(out->candidates[1].hop_bytes, out->candidates[2].hop_bytes);
    EXPECT_EQ(out->winner, "in-order");
  }
}

// A construction at the lower bound is optimal: the constructions after it in the
// plan are stopped and listed as not needed, on every run (whatever finished first).
TEST(PortfolioTest, AConstructionAtTheBoundStopsTheLaterOnes) {
  GeneratorOptions gen;
  gen.kind = "stencil3d-7";
  gen.dims = {8, 8, 8};
  gen.wrap = true;
  const TaskGraph graph = *GenerateGraph(gen);
  const Allocation allocation = *Allocation::WholeMachine(Torus({8, 8, 8}));
  PortfolioPlan plan;
  plan.constructions = {"random", "in-order", "axis-order", "rec-bisect"};
  for (int run = 0; run < 3; ++run) {
    const absl::StatusOr<MapOutput> out = RunPlan(plan, graph, allocation);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(out->winner, "in-order");  // the identity is optimal here
    ASSERT_TRUE(out->lower_bound.has_value());
    ASSERT_EQ(out->candidates.size(), 4u);
    EXPECT_TRUE(out->candidates[0].error.empty());
    EXPECT_EQ(out->candidates[1].hop_bytes, out->lower_bound->value);
    EXPECT_THAT(out->candidates[2].error, ::testing::HasSubstr("not needed: in-order"));
    EXPECT_THAT(out->candidates[3].error, ::testing::HasSubstr("not needed: in-order"));
    // Named by the plan, whether or not they finished before they were stopped
    // (axis-order names its variant when it finishes): the same report every run.
    EXPECT_EQ(out->candidates[2].algorithm, "axis-order");
    EXPECT_EQ(out->candidates[3].algorithm, "rec-bisect");
    EXPECT_TRUE(out->candidates[2].stats.empty());
    EXPECT_TRUE(out->candidates[3].stats.empty());
  }
}

// Only the constructions within refine_within x the best hop-bytes are refined: a
// refinement from a far worse start holds a core (and the searches after it) the
// longest. The plan is invalid below 1.
TEST(PortfolioTest, RefinesOnlyTheConstructionsNearTheBest) {
  const TaskGraph graph = testing::Generate("random-geometric", {}, 1000);
  const Allocation allocation = *Allocation::WholeMachine(Torus({8, 8, 16}));
  PortfolioPlan plan;
  plan.constructions = {"in-order", "rec-bisect"};
  plan.perturbations = 0;
  plan.anneal_share = 0;
  auto names = [&](double refine_within) {
    plan.refine_within = refine_within;
    const absl::StatusOr<MapOutput> out = RunPlan(plan, graph, allocation);
    std::vector<std::string> listed;
    if (!out.ok()) return std::vector<std::string>{std::string(out.status().message())};
    for (const Candidate& c : out->candidates) listed.push_back(c.algorithm);
    return listed;
  };
  // In order, a random geometric graph crosses several times the hops rec-bisect's do.
  EXPECT_THAT(names(1.1), ::testing::ElementsAre("in-order", "rec-bisect", "refine(rec-bisect)"));
  EXPECT_THAT(names(1e9), ::testing::ElementsAre("in-order", "rec-bisect", "refine(rec-bisect)",
                                                 "refine(in-order)"));
  EXPECT_THAT(names(0.9),
              ::testing::ElementsAre(::testing::HasSubstr("refine_within must be >= 1")));
  // Above refine_one_above_tasks only the best is refined, whatever refine_within.
  plan.refine_one_above_tasks = 999;
  EXPECT_THAT(names(1e9), ::testing::ElementsAre("in-order", "rec-bisect", "refine(rec-bisect)"));
  plan.refine_one_above_tasks = 1000;
  EXPECT_THAT(names(1e9), ::testing::ElementsAre("in-order", "rec-bisect", "refine(rec-bisect)",
                                                 "refine(in-order)"));
  plan.refine_one_above_tasks = -1;
  EXPECT_THAT(names(1.1),
              ::testing::ElementsAre(::testing::HasSubstr("refine_one_above_tasks must be >= 0")));
}

// Above refine_one_above_tasks the refinement's active sets are the moved tasks and
// their neighbours only, and it stops when they are empty: the mapping is
// RefinePlacement's with those options from the same start, and on this job it is
// not the one the tasks near moved nodes lead to.
TEST(PortfolioTest, RefinesAtScaleWithoutWakingTheTasksNearMovedNodes) {
  const TaskGraph graph = testing::Generate("random-geometric", {}, 1000);
  const Allocation allocation = *Allocation::WholeMachine(Torus({8, 8, 16}));
  PortfolioPlan plan;
  plan.constructions = {"in-order"};
  plan.perturbations = 0;
  plan.anneal_share = 0;
  plan.refine_one_above_tasks = 999;
  const absl::StatusOr<MapOutput> out = RunPlan(plan, graph, allocation);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->candidates.size(), 2u);
  ASSERT_EQ(out->candidates[1].algorithm, "refine(in-order)");
  std::vector<SlotId> in_order(graph.num_tasks());
  std::iota(in_order.begin(), in_order.end(), 0);
  auto refined = [&](bool wake_near_nodes) {
    RefineOptions options;
    options.wake_near_nodes = wake_near_nodes;
    options.confirm_local_optimum = false;
    Placement placement(graph, allocation, in_order);
    RefinePlacement(placement, options, StopCondition(absl::InfiniteFuture()));
    return placement.hop_bytes();
  };
  const HopBytes without_waking = refined(false);
  EXPECT_EQ(out->candidates[1].hop_bytes, without_waking);
  EXPECT_NE(refined(true), without_waking);
}

// The searches of large problems do not run from a mapping its refinement left
// unchanged at a local optimum (fold's on a 2D 9-point stencil: nothing better is
// found from it, the answer is the same, and the budget is not spent); from one the
// refinement changed they run.
TEST(PortfolioTest, SearchesSkipAMappingRefinementLeftUnchanged) {
  const TaskGraph stencil = testing::Generate("stencil2d-9", {64, 64});
  const Allocation torus = *Allocation::WholeMachine(Torus({16, 16, 16}));
  PortfolioPlan plan;
  plan.constructions = {"in-order", "fold"};
  plan.perturbations = 20;
  plan.restarts = 1;
  plan.anneal_share = 0.01;  // a short chain within the tests' 60 s budget
  auto find = [](const MapOutput& out, const std::string& name) -> const Candidate* {
    for (const Candidate& c : out.candidates) {
      if (c.algorithm == name) return &c;
    }
    return nullptr;
  };
  const absl::StatusOr<MapOutput> skipped = RunPlan(plan, stencil, torus);
  ASSERT_TRUE(skipped.ok()) << skipped.status();
  EXPECT_THAT(skipped->winner, ::testing::StartsWith("fold"));
  ASSERT_GT(ComputeHopBytes(stencil, torus, skipped->slot_of_task), skipped->lower_bound->value);
  for (const char* search : {"anneal", "perturb+refine"}) {
    const Candidate* c = find(*skipped, search);
    ASSERT_NE(c, nullptr) << search;
    EXPECT_THAT(c->error, ::testing::HasSubstr("not run: the best mapping is a local optimum"));
  }
  plan.skip_searches_at_exchange_optimum = false;
  const absl::StatusOr<MapOutput> searched = RunPlan(plan, stencil, torus);
  ASSERT_TRUE(searched.ok()) << searched.status();
  const Candidate* anneal = find(*searched, "anneal");
  ASSERT_NE(anneal, nullptr);
  EXPECT_TRUE(anneal->error.empty()) << anneal->error;
  EXPECT_EQ(ComputeHopBytes(stencil, torus, searched->slot_of_task),
            ComputeHopBytes(stencil, torus, skipped->slot_of_task));

  // A random geometric graph: refinement changes rec-bisect's mapping, the searches run.
  const TaskGraph irregular = testing::Generate("random-geometric", {}, 1000);
  plan = PortfolioPlan{};
  plan.constructions = {"in-order", "rec-bisect"};
  plan.perturbations = 20;
  plan.restarts = 1;
  plan.anneal_share = 0.01;
  const Allocation small = *Allocation::WholeMachine(Torus({8, 8, 16}));
  const absl::StatusOr<MapOutput> out = RunPlan(plan, irregular, small);
  ASSERT_TRUE(out.ok()) << out.status();
  for (const char* search : {"anneal", "perturb+refine"}) {
    const Candidate* c = find(*out, search);
    ASSERT_NE(c, nullptr) << search;
    EXPECT_TRUE(c->error.empty()) << search << ": " << c->error;
  }
  // At a nominal rate that plans too few moves the annealing does not run, though
  // the floor rate would have planned enough (0.01 x 60 s x 4e7 edges/s over 4E).
  plan.anneal_edge_rate = 1e6;
  ASSERT_GE(0.01 * 60 * plan.anneal_min_edge_rate / (4.0 * irregular.num_edges()),
            2.0 * plan.anneal_min_moves_per_task);
  const absl::StatusOr<MapOutput> slow = RunPlan(plan, irregular, small);
  ASSERT_TRUE(slow.ok()) << slow.status();
  EXPECT_EQ(find(*slow, "anneal"), nullptr);
  EXPECT_NE(find(*slow, "perturb+refine"), nullptr);
}

// On a grid, a fallback for irregular graphs (hybrid) starts after the other
// constructions, and not at all when one of them is within grid_fallback_within x
// the lower bound: fold's mapping of a 2D 5-point stencil is (1.016x), of a 9-point
// stencil not (1.23x).
TEST(PortfolioTest, GridFallbacksWaitAndStepAsideNearTheBound) {
  const Allocation torus = *Allocation::WholeMachine(Torus({8, 8, 16}));
  PortfolioPlan plan;
  plan.constructions = {"in-order", "fold", "hybrid"};
  plan.grid_fallbacks = {"hybrid"};
  plan.perturbations = 0;
  plan.anneal_share = 0;
  auto hybrid = [&](const std::string& kind) {
    const TaskGraph graph = testing::Generate(kind, {32, 32});
    const absl::StatusOr<MapOutput> out = RunPlan(plan, graph, torus);
    EXPECT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(out->winner, ::testing::StartsWith("fold"));
    for (const Candidate& c : out->candidates) {
      if (c.algorithm.rfind("hybrid", 0) == 0) return c;
    }
    return Candidate{};
  };
  const Candidate near = hybrid("stencil2d-5");
  EXPECT_EQ(near.algorithm, "hybrid");
  EXPECT_THAT(near.error,
              ::testing::HasSubstr("not run: the graph is a grid and fold(g0=X8.Y4,g1=Z16.Y2) is "
                                   "within 1.1x the lower bound"));
  const Candidate far = hybrid("stencil2d-9");
  EXPECT_THAT(far.algorithm, ::testing::StartsWith("hybrid"));
  EXPECT_TRUE(far.error.empty()) << far.error;
  EXPECT_GT(far.hop_bytes, 0);
  // Nor, like any construction with a rate, when it would need more than the
  // constructions' share of the budget (70% of the tests' 60 s) at that rate: 1024
  // tasks at 10 a second.
  plan.tasks_per_second = {{"hybrid", 10}};
  const Candidate slow = hybrid("stencil2d-9");
  EXPECT_EQ(slow.algorithm, "hybrid");
  EXPECT_THAT(slow.error, ::testing::MatchesRegex("not run: it would need about 102 s \\(at 10 "
                                                  "tasks/s\\), more than the constructions' "
                                                  "4[12] s of the budget.*"));
  plan.tasks_per_second = {{"hybrid", 0}};
  EXPECT_THAT(plan.Validate().message(),
              ::testing::HasSubstr("tasks_per_second of hybrid must be > 0"));
  plan.tasks_per_second.clear();
  // Without the rule it runs beside the others.
  plan.grid_fallbacks.clear();
  const Candidate beside = hybrid("stencil2d-5");
  EXPECT_TRUE(beside.error.empty()) << beside.error;
  plan.grid_fallback_within = 0.5;
  EXPECT_THAT(plan.Validate().message(), ::testing::HasSubstr("grid_fallback_within must be >= 1"));
}

// `plan` with `objective` and a budget of `seconds`.
absl::StatusOr<MapOutput> MapWithObjective(const PortfolioPlan& plan, const TaskGraph& graph,
                                           const Allocation& allocation, Objective objective,
                                           double seconds) {
  const PortfolioMapper mapper(&BuiltinMappers(), plan);
  MapperOptions options;
  options.objective = objective;
  options.time_limit_seconds = seconds;
  const StopCondition stop(absl::Now() + absl::Seconds(seconds));
  return mapper.Map({graph, allocation, options, stop, nullptr, nullptr, nullptr});
}

// With the congestion objective the last candidate lowers the busiest link from the
// best, and wins: the busiest link carries less than any other candidate's.
TEST(PortfolioTest, CongestionObjectiveEndsWithTheLinkLoadRefinement) {
  const TaskGraph graph = testing::Generate("random-geometric", {}, 1000);
  const Allocation allocation = *Allocation::WholeMachine(Torus({8, 8, 16}));
  PortfolioPlan plan = DefaultPortfolioPlan();
  plan.restarts = 1;
  const absl::StatusOr<MapOutput> out =
      MapWithObjective(plan, graph, allocation, Objective::kCongestion, 60);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_FALSE(out->candidates.empty());
  const Candidate& last = out->candidates.back();
  EXPECT_EQ(last.algorithm, "congestion-refine");
  EXPECT_EQ(out->winner, "congestion-refine");
  for (const Candidate& c : out->candidates) {
    if (c.error.empty() && &c != &last) {
      EXPECT_LT(last.max_link_load, c.max_link_load) << c.algorithm;
    }
  }
}

// On a small problem GRASP's tabu search would use the whole budget; the link-load
// refinement still runs, on the share the searches before it leave.
TEST(PortfolioTest, CongestionObjectiveRefinesTheLinkLoadsAfterGraspToo) {
  const TaskGraph graph = testing::Generate("random-geometric", {}, 512);
  const Allocation allocation = testing::WholeTorus({8, 8, 8}, 1);
  ASSERT_LE(allocation.num_slots(), DefaultPortfolioPlan().grasp_slot_limit);
  const absl::StatusOr<MapOutput> out =
      MapWithObjective(DefaultPortfolioPlan(), graph, allocation, Objective::kCongestion, 1);
  ASSERT_TRUE(out.ok()) << out.status();
  // (Where the machine is slow, as under the sanitizers, GRASP may not start at all.)
  ASSERT_FALSE(out->candidates.empty());
  const Candidate& last = out->candidates.back();
  EXPECT_EQ(last.algorithm, "congestion-refine");
  EXPECT_TRUE(last.error.empty()) << last.error;
}

// With the dilation objective the last candidates shorten the longest edge from
// the least hop-bytes and from the best, and the answer's longest edge is the
// shortest of all; on the fragmented allocation the hop-bytes searches leave a few
// edges far longer than the rest.
TEST(PortfolioTest, DilationObjectiveEndsWithTheLongestEdgeRefinement) {
  const TaskGraph graph = testing::Generate("random-geometric", {}, 640);
  const Allocation allocation = testing::FragmentedTorus8();
  const absl::StatusOr<MapOutput> out =
      MapWithObjective(DefaultPortfolioPlan(), graph, allocation, Objective::kDilation, 2);
  ASSERT_TRUE(out.ok()) << out.status();
  const int32_t answer = ComputeMaxDilation(graph, allocation, out->slot_of_task);
  bool refined = false;
  int32_t least_hop_bytes_dilation = 0;
  HopBytes least_hop_bytes = std::numeric_limits<HopBytes>::max();
  for (const Candidate& c : out->candidates) {
    if (!c.error.empty()) continue;
    EXPECT_LE(answer, c.max_dilation) << c.algorithm;
    refined = refined || c.algorithm == "dilation-refine";
    if (c.algorithm.starts_with("dilation-refine")) continue;
    if (c.hop_bytes < least_hop_bytes) {
      least_hop_bytes = c.hop_bytes;
      least_hop_bytes_dilation = c.max_dilation;
    }
  }
  EXPECT_TRUE(refined);
  EXPECT_LT(answer, least_hop_bytes_dilation);
  EXPECT_THAT(out->winner, ::testing::StartsWith("dilation-refine"));
}

// With the time objective the last candidates are both refinements, from the least
// hop-bytes (and from the best by their own objectives), and the estimate picks:
// the answer's is the least of all candidates, below the least hop-bytes
// candidate's, and set by latency with small messages, by the busiest link with
// large ones.
TEST(PortfolioTest, TimeObjectiveEndsWithBothRefinementsAndPicksByTheEstimate) {
  const Allocation allocation = testing::FragmentedTorus8();
  for (const Bytes bytes : {Bytes{1024}, Bytes{64} << 20}) {
    SCOPED_TRACE(bytes);
    GeneratorOptions gen;
    gen.kind = "random-geometric";
    gen.tasks = 640;
    gen.bytes = bytes;
    const TaskGraph graph = *GenerateGraph(gen);
    const absl::StatusOr<MapOutput> out =
        MapWithObjective(DefaultPortfolioPlan(), graph, allocation, Objective::kTime, 2);
    ASSERT_TRUE(out.ok()) << out.status();
    const std::optional<ExchangeTimeEstimate> answer =
        EstimateExchangeTime(graph, allocation, out->slot_of_task, Routing::kDimensionOrder);
    ASSERT_TRUE(answer.has_value());
    // The candidate of least hop-bytes (not a refinement), and its estimate.
    HopBytes least = std::numeric_limits<HopBytes>::max();
    double least_seconds = 0;
    std::vector<std::string> listed;
    for (const Candidate& c : out->candidates) {
      if (!c.error.empty()) continue;
      EXPECT_LE(answer->seconds, c.exchange_seconds) << c.algorithm;
      EXPECT_GT(c.exchange_seconds, 0) << c.algorithm;
      listed.push_back(c.algorithm);
      if (!c.algorithm.ends_with("-refine") && c.hop_bytes < least) {
        least = c.hop_bytes;
        least_seconds = c.exchange_seconds;
      }
    }
    EXPECT_THAT(listed, ::testing::Contains("congestion-refine"));
    EXPECT_THAT(listed, ::testing::Contains("dilation-refine"));
    ASSERT_FALSE(listed.empty());
    EXPECT_THAT(listed.back(), ::testing::StartsWith("dilation-refine"));
    EXPECT_LT(answer->seconds, least_seconds);
    const double latency_share = answer->latency_seconds / answer->seconds;
    if (bytes == 1024) {
      EXPECT_GT(latency_share, 0.5);
    } else {
      EXPECT_LT(latency_share, 0.5);
    }
  }
}

// On a hierarchy rec-bisect is started right after the baselines (behind gge and
// mahd it was not started within the default budget); elsewhere the plan's order.
TEST(PortfolioTest, RecBisectComesEarlyOnAHierarchy) {
  GeneratorOptions gen;
  gen.kind = "random-geometric";
  gen.tasks = 64;
  const TaskGraph graph = *GenerateGraph(gen);
  PortfolioPlan plan;
  plan.constructions = {"in-order", "round-robin", "gge", "mahd", "rec-bisect"};
  plan.perturbations = 0;
  plan.anneal_share = 0;
  auto constructions = [&](const Allocation& allocation) {
    const absl::StatusOr<MapOutput> out = RunPlan(plan, graph, allocation);
    std::vector<std::string> listed;
    if (!out.ok()) return std::vector<std::string>{std::string(out.status().message())};
    // The constructions are listed first, in the order they were started.
    for (size_t i = 0; i < out->candidates.size() && i < plan.constructions.size(); ++i) {
      listed.push_back(out->candidates[i].algorithm);
    }
    return listed;
  };
  const Allocation hierarchy = *Allocation::WholeMachine(
      std::make_shared<HierarchyMachine>(*HierarchyMachine::Create({4, 4, 4}, {1, 10, 100})));
  EXPECT_THAT(constructions(hierarchy),
              ::testing::ElementsAre("in-order", "round-robin", "rec-bisect", "gge", "mahd"));
  EXPECT_THAT(constructions(*Allocation::WholeMachine(Torus({4, 4, 4}))),
              ::testing::ElementsAre("in-order", "round-robin", "gge", "mahd", "rec-bisect"));
}

// With the budget gone before it starts, auto still returns the first construction
// and lists the others as not started.
TEST(PortfolioTest, ExpiredBudgetStillReturnsTheFirstConstruction) {
  GeneratorOptions gen;
  gen.kind = "random-geometric";
  gen.tasks = 500;
  const TaskGraph graph = *GenerateGraph(gen);
  const Allocation allocation = *Allocation::WholeMachine(Torus({8, 8, 8}));
  const MapperRegistry& registry = BuiltinMappers();
  const PortfolioMapper mapper(&registry, DefaultPortfolioPlan());
  MapperOptions options;
  const StopCondition expired(absl::Now() - absl::Seconds(1));
  const absl::StatusOr<MapOutput> out =
      mapper.Map({graph, allocation, options, expired, nullptr, nullptr, nullptr});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->winner, "in-order");
  for (const Candidate& c : out->candidates) {
    if (c.algorithm == "in-order") continue;
    EXPECT_FALSE(c.error.empty()) << c.algorithm;
  }
}

}  // namespace
}  // namespace hopmap
