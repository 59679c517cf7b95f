#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/graph/task_graph.h"
#include "core/mappers/baseline/axis_order.h"
#include "core/mappers/mapper.h"
#include "core/mappers/portfolio/registry.h"
#include "core/metrics/hop_bytes.h"
#include "core/solve/measure.h"
#include "core/solve/report.h"
#include "core/solve/solve_mapping.h"
#include "core/topology/torus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::shared_ptr<const Machine> MakeTorus(std::vector<int32_t> dims, int32_t cores = 1) {
  std::vector<bool> w(dims.size(), true);
  auto m = std::make_shared<TorusMachine>(*TorusMachine::Create(std::move(dims), std::move(w)));
  m->set_cores_per_node(cores);
  return m;
}

// A periodic 2D 5-point stencil, task = x + X*y.
TaskGraph Stencil2D(int X, int Y) {
  TaskGraphBuilder b(X * Y);
  for (int y = 0; y < Y; ++y) {
    for (int x = 0; x < X; ++x) {
      EXPECT_TRUE(b.AddTraffic(x + X * y, (x + 1) % X + X * y, 100).ok());
      EXPECT_TRUE(b.AddTraffic(x + X * y, x + X * ((y + 1) % Y), 100).ok());
    }
  }
  return *std::move(b).Build();
}

MapperOptions Options() {
  MapperOptions o;
  o.time_limit_seconds = 30;
  return o;
}

TEST(RegistryTest, KnowsTheBaselinesAndRejectsUnknown) {
  const MapperRegistry& r = BuiltinMappers();
  for (const char* name : {"auto", "in-order", "round-robin", "random", "axis-order"}) {
    EXPECT_NE(r.Find(name), nullptr) << name;
  }
  EXPECT_THAT(r.Create("grasp2").status().message(),
              HasSubstr("unknown algorithm 'grasp2' (known: auto, in-order"));
  MapperRegistry mine;
  ASSERT_TRUE(mine.Register({"x", "", [] { return std::unique_ptr<Mapper>(); }}).ok());
  EXPECT_FALSE(mine.Register({"x", "", [] { return std::unique_ptr<Mapper>(); }}).ok());
}

TEST(OptionsTest, Validate) {
  MapperOptions o;
  EXPECT_TRUE(o.Validate().ok());
  o.time_limit_seconds = 0;  // sized to the job
  EXPECT_TRUE(o.Validate().ok());
  o.time_limit_seconds = -1;
  EXPECT_THAT(o.Validate().message(), HasSubstr("time limit"));
  o.time_limit_seconds = std::nan("");
  EXPECT_THAT(o.Validate().message(), HasSubstr("time limit"));
  o.time_limit_seconds = 1;
  o.threads = -2;
  EXPECT_THAT(o.Validate().message(), HasSubstr("threads"));
}

TEST(OptionsTest, DefaultTimeLimitGrowsWithTheJob) {
  EXPECT_EQ(DefaultTimeLimitSeconds(0), 1.0);
  EXPECT_EQ(DefaultTimeLimitSeconds(4096), 1.0);
  EXPECT_EQ(DefaultTimeLimitSeconds(65536), 8.0);
  EXPECT_EQ(DefaultTimeLimitSeconds(262144), 32.0);
  EXPECT_EQ(DefaultTimeLimitSeconds(1 << 20), 45.0);
  EXPECT_EQ(DefaultTimeLimitSeconds(int64_t{1} << 30), 45.0);
  MapperOptions o;
  EXPECT_EQ(EffectiveTimeLimitSeconds(o, 65536), 8.0);
  o.time_limit_seconds = 3;  // the caller's budget wins
  EXPECT_EQ(EffectiveTimeLimitSeconds(o, 65536), 3.0);
}

TEST(BaselinesTest, InOrderRoundRobinRandom) {
  TaskGraph g = Stencil2D(3, 2);
  auto alloc = *Allocation::Create(MakeTorus({4}), {0, 1, 2, 3}, 2);  // 8 slots
  auto in_order = SolveMapping(g, alloc, "in-order", Options());
  ASSERT_TRUE(in_order.ok()) << in_order.status();
  EXPECT_THAT(in_order->slot_of_task, ElementsAre(0, 1, 2, 3, 4, 5));
  auto rr = SolveMapping(g, alloc, "round-robin", Options());
  // task t -> node t % 4, core t / 4: slots 0, 2, 4, 6, 1, 3.
  EXPECT_THAT(rr->slot_of_task, ElementsAre(0, 2, 4, 6, 1, 3));
  auto r1 = SolveMapping(g, alloc, "random", Options());
  auto r2 = SolveMapping(g, alloc, "random", Options());
  MapperOptions other = Options();
  other.seed = 99;
  auto r3 = SolveMapping(g, alloc, "random", other);
  EXPECT_EQ(r1->slot_of_task, r2->slot_of_task);
  EXPECT_NE(r1->slot_of_task, r3->slot_of_task);
}

TEST(BaselinesTest, TooManyTasksIsAClearError) {
  TaskGraph g = Stencil2D(3, 3);
  auto alloc = *Allocation::Create(MakeTorus({4}), {0, 1}, 4);
  auto r = SolveMapping(g, alloc, "in-order", Options());
  EXPECT_THAT(r.status().message(),
              HasSubstr("9 tasks but the allocation has only 8 slots (2 nodes x 4 cores)"));
}

TEST(AxisOrderTest, SlotSequences) {
  auto alloc = *Allocation::WholeMachine(MakeTorus({2, 2}, 2));  // nodes 0..3, 2 cores
  EXPECT_EQ(AxisOrderName(alloc, {0, 1, 2}), "TXY");
  EXPECT_THAT(AxisOrderSlots(alloc, {0, 1, 2}), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
  // XYT: one task per node first.
  EXPECT_THAT(AxisOrderSlots(alloc, {1, 2, 0}), ElementsAre(0, 2, 4, 6, 1, 3, 5, 7));
  // YXT: y fastest: nodes 0, 2, 1, 3.
  EXPECT_THAT(AxisOrderSlots(alloc, {2, 1, 0}), ElementsAre(0, 4, 2, 6, 1, 5, 3, 7));
  // XTY: x fastest, then the core, then y.
  EXPECT_THAT(AxisOrderSlots(alloc, {1, 0, 2}), ElementsAre(0, 2, 1, 3, 4, 6, 5, 7));
}

TEST(AxisOrderTest, OrdersAScatteredAllocationByItsCoordinates) {
  // Nodes listed out of coordinate order: every axis order sorts the positions by
  // their coordinates, slowest axis first, ties impossible (one node per coordinate).
  const auto torus = MakeTorus({5, 4, 3}, 2);
  std::vector<NodeId> nodes = {37, 2, 58, 11, 40, 0, 23, 19, 51, 6, 44, 30};
  auto alloc = *Allocation::Create(torus, nodes, 2);
  for (const std::vector<int>& order :
       std::vector<std::vector<int>>{{0, 1, 2, 3}, {0, 3, 1, 2}, {2, 0, 3, 1}, {3, 2, 1, 0}}) {
    // The expected sequence, straight from the definition: slots sorted by their
    // digits along `order`, the first the least significant.
    std::vector<std::pair<std::vector<int32_t>, SlotId>> keyed;
    for (SlotId slot = 0; slot < alloc.num_slots(); ++slot) {
      std::vector<int32_t> xyz(3);
      torus->Coordinates(alloc.node_at(slot / 2), xyz);
      std::vector<int32_t> key;
      for (auto axis = order.rbegin(); axis != order.rend(); ++axis) {
        key.push_back(*axis == 0 ? slot % 2 : xyz[*axis - 1]);
      }
      keyed.emplace_back(key, slot);
    }
    std::sort(keyed.begin(), keyed.end());
    std::vector<SlotId> expected;
    for (const auto& [key, slot] : keyed) expected.push_back(slot);
    EXPECT_EQ(AxisOrderSlots(alloc, order), expected) << AxisOrderName(alloc, order);
  }
}

TEST(AxisOrderTest, FindsTheTransposedOrder) {
  // A stencil laid out with y fastest: in-order is poor, YX matches it.
  const int X = 8, Y = 4;
  TaskGraphBuilder b(X * Y);
  for (int x = 0; x < X; ++x) {
    for (int y = 0; y < Y; ++y) {
      const int t = y + Y * x;  // y fastest
      ASSERT_TRUE(b.AddTraffic(t, (y + 1) % Y + Y * x, 10).ok());
      ASSERT_TRUE(b.AddTraffic(t, y + Y * ((x + 1) % X), 10).ok());
    }
  }
  TaskGraph g = *std::move(b).Build();
  auto alloc = *Allocation::WholeMachine(MakeTorus({X, Y}));
  auto report = SolveMapping(g, alloc, "axis-order", Options());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->algorithm, "axis-order(TYX)");
  EXPECT_EQ(report->hop_bytes, g.total_bytes());  // every edge 1 hop
  EXPECT_EQ(report->lower_bound.value, g.total_bytes());
  ASSERT_TRUE(report->gap.has_value());
  EXPECT_DOUBLE_EQ(*report->gap, 1.0);
  EXPECT_GT(report->baseline_hop_bytes, report->hop_bytes);
  EXPECT_GT(report->improvement, 0.0);
}

// With one core per node axis-order tries only the orders with T first: the others
// give the same sequences (T's place is a loop of one). Its answer is still the best
// of every order, ties to the first: checked against all 24 on a fragmented 3D torus.
TEST(AxisOrderTest, OneCorePerNodeGivesTheBestOfEveryOrder) {
  std::vector<NodeId> nodes;
  for (NodeId n = 0; n < 4 * 3 * 5; ++n) {
    if (n % 7 != 3) nodes.push_back(n);  // holes
  }
  auto alloc = *Allocation::Create(MakeTorus({4, 3, 5}), nodes, 1);
  TaskGraphBuilder b(alloc.num_slots());
  for (TaskId t = 0; t < alloc.num_slots(); ++t) {
    // Partners 5 and 11 apart: no order is a perfect fit.
    ASSERT_TRUE(b.AddTraffic(t, (t + 5) % alloc.num_slots(), 3).ok());
    ASSERT_TRUE(b.AddTraffic(t, (t + 11) % alloc.num_slots(), 2).ok());
  }
  TaskGraph g = *std::move(b).Build();
  std::vector<int> order = {0, 1, 2, 3};
  HopBytes best = -1;
  std::string best_name;
  do {
    const std::vector<SlotId> slots = AxisOrderSlots(alloc, order);
    if (const HopBytes hb = ComputeHopBytes(g, alloc, slots); best < 0 || hb < best) {
      best = hb;
      best_name = AxisOrderName(alloc, order);
    }
  } while (std::next_permutation(order.begin(), order.end()));
  auto report = SolveMapping(g, alloc, "axis-order", Options());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->hop_bytes, best);
  EXPECT_EQ(report->algorithm, "axis-order(" + best_name + ")");
}

TEST(SolveTest, AutoListsEveryCandidateAndKeepsTheBest) {
  TaskGraph g = Stencil2D(8, 8);
  auto alloc = *Allocation::WholeMachine(MakeTorus({4, 4, 4}));
  auto report = SolveMapping(g, alloc, "auto", Options());
  ASSERT_TRUE(report.ok()) << report.status();
  // The baselines, then the grid constructions (this 8x8 stencil is a grid).
  ASSERT_GE(report->candidates.size(), 3u);
  HopBytes best = report->candidates[0].hop_bytes;
  int grid_candidates_that_ran = 0;
  for (const Candidate& c : report->candidates) {
    if (!c.error.empty()) continue;
    best = std::min(best, c.hop_bytes);
    if (c.algorithm.rfind("fold", 0) == 0 || c.algorithm.rfind("hilbert", 0) == 0) {
      ++grid_candidates_that_ran;
    }
  }
  EXPECT_GT(grid_candidates_that_ran, 0);
  EXPECT_EQ(report->hop_bytes, best);
  EXPECT_LE(report->hop_bytes, report->baseline_hop_bytes);
  EXPECT_GE(report->lower_bound.value, 0);
  EXPECT_LE(report->lower_bound.value, report->hop_bytes);
}

// Link loads walk every route, so a report skips them (and says so) when the
// routes cross more links than kMaxReportRouteLinks; hop-bytes are still exact.
// Two 10x10x10 cubes at opposite corners of a 100^3 torus, all 1000 x 1000 pairs
// between them talking: at least 123 hops each way, 2.46e8 route links.
TEST(SolveTest, ReportSkipsLinkLoadsAboveTheRouteLimit) {
  auto torus = MakeTorus({100, 100, 100});
  std::vector<NodeId> nodes;
  for (int32_t corner : {0, 45}) {
    for (int32_t z = corner; z < corner + 10; ++z) {
      for (int32_t y = corner; y < corner + 10; ++y) {
        for (int32_t x = corner; x < corner + 10; ++x) nodes.push_back(x + 100 * (y + 100 * z));
      }
    }
  }
  const Allocation alloc = *Allocation::Create(torus, nodes, 1);
  auto bipartite = [](TaskId side) {
    TaskGraphBuilder builder(2 * side);
    for (TaskId u = 0; u < side; ++u) {
      for (TaskId v = side; v < 2 * side; ++v) (void)builder.AddTraffic(u, v, 1);
    }
    return *std::move(builder).Build();
  };
  const TaskGraph far = bipartite(1000);
  auto skipped = SolveMapping(far, alloc, "in-order", Options());
  ASSERT_TRUE(skipped.ok()) << skipped.status();
  EXPECT_THAT(skipped->link_loads_skipped, HasSubstr("more than 200000000"));
  EXPECT_FALSE(skipped->link_loads.available());
  EXPECT_EQ(skipped->hop_bytes, ComputeHopBytes(far, alloc, skipped->slot_of_task));
  EXPECT_GE(skipped->hop_bytes, int64_t{1000000} * 123);
  // A mapping with each cube holding half of each side: its routes cross 1.4e8
  // links, so its loads and estimate are computed; the in-order baseline's estimate
  // is not (its routes cross 2.46e8).
  MappingReport mixed;
  mixed.slot_of_task.resize(2000);
  for (TaskId t = 0; t < 2000; ++t) {
    const TaskId side = t / 1000, within = t % 1000;
    mixed.slot_of_task[t] = (within < 500 ? 0 : 1000) + 2 * (within % 500) + side;
  }
  MeasureMapping(far, alloc, Routing::kDimensionOrder, mixed, std::nullopt);
  EXPECT_EQ(mixed.link_loads_skipped, "");
  EXPECT_TRUE(mixed.link_loads.available());
  EXPECT_TRUE(mixed.exchange_seconds.has_value());
  EXPECT_FALSE(mixed.baseline_exchange_seconds.has_value());
  EXPECT_LT(mixed.hop_bytes, mixed.baseline_hop_bytes);
  // Fewer pairs on the same allocation: loads are computed.
  const TaskGraph few = bipartite(100);
  auto computed = SolveMapping(few, alloc, "in-order", Options());
  ASSERT_TRUE(computed.ok()) << computed.status();
  EXPECT_EQ(computed->link_loads_skipped, "");
  EXPECT_TRUE(computed->link_loads.available());
  EXPECT_GT(computed->link_loads.max_load, 0);
  EXPECT_TRUE(computed->baseline_exchange_seconds.has_value());
}

TEST(SolveTest, DeterministicAcrossRepeatedRuns) {
  TaskGraph g = Stencil2D(16, 16);
  // A fragmented allocation: every third node, in a scrambled order.
  std::vector<NodeId> nodes;
  for (NodeId i = 0; i < 150; ++i) nodes.push_back((i * 7 % 150) * 3 + 1);
  auto alloc = *Allocation::Create(MakeTorus({8, 8, 8}, 2), nodes, 2);
  for (const char* algorithm : {"auto", "random", "axis-order"}) {
    auto first = SolveMapping(g, alloc, algorithm, Options());
    ASSERT_TRUE(first.ok()) << first.status();
    for (int run = 0; run < 3; ++run) {
      auto again = SolveMapping(g, alloc, algorithm, Options());
      EXPECT_EQ(again->slot_of_task, first->slot_of_task) << algorithm;
      EXPECT_EQ(again->hop_bytes, first->hop_bytes);
      EXPECT_EQ(again->link_loads.max_load, first->link_loads.max_load);
    }
  }
}

TEST(SolveTest, EvaluateChecksTheMapping) {
  TaskGraph g = Stencil2D(2, 2);
  auto alloc = *Allocation::WholeMachine(MakeTorus({4}));
  EXPECT_THAT(EvaluateMapping(g, alloc, {0, 1, 1, 2}, Routing::kDimensionOrder).status().message(),
              HasSubstr("both on slot 1"));
  auto ok = EvaluateMapping(g, alloc, {0, 1, 3, 2}, Routing::kAdaptive);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->algorithm, "given");
  EXPECT_EQ(ok->routing, Routing::kAdaptive);
}

TEST(SolveTest, CongestionObjectivePicksLowestMaxLoad) {
  TaskGraph g = Stencil2D(8, 8);
  auto alloc = *Allocation::WholeMachine(MakeTorus({4, 4, 4}));
  MapperOptions o = Options();
  o.objective = Objective::kCongestion;
  auto report = SolveMapping(g, alloc, "auto", o);
  ASSERT_TRUE(report.ok()) << report.status();
  for (const Candidate& c : report->candidates) {
    if (!c.error.empty()) continue;  // a construction that does not apply
    EXPECT_LE(report->link_loads.max_load, c.max_link_load) << c.algorithm;
  }
}

}  // namespace
}  // namespace hopmap
