#include <algorithm>
#include <memory>
#include <numeric>

#include "core/graph/task_graph.h"
#include "core/metrics/hop_bytes.h"
#include "core/metrics/link_loads.h"
#include "core/metrics/lower_bound.h"
#include "core/search/random_stream.h"
#include "core/topology/chipmesh.h"
#include "core/topology/dragonfly.h"
#include "core/topology/fattree.h"
#include "core/topology/torus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/metrics/metrics_test_util.h"

namespace hopmap {
namespace {

using testing::MakeGraph;

std::shared_ptr<const Machine> MakeTorus(std::vector<int32_t> dims, bool wrap) {
  std::vector<bool> w(dims.size(), wrap);
  return std::make_shared<TorusMachine>(*TorusMachine::Create(std::move(dims), std::move(w)));
}

TEST(HopBytesTest, HandComputed) {
  // A path 0-1-2-3 with weights 10, 20, 30 on a 4-node ring.
  TaskGraph g = MakeGraph(4, {{0, 1, 10}, {1, 2, 20}, {2, 3, 30}});
  auto alloc = *Allocation::WholeMachine(MakeTorus({4}, true));
  const SlotId in_order[] = {0, 1, 2, 3};
  EXPECT_EQ(ComputeHopBytes(g, alloc, in_order), 60);
  // 0 and 2 swapped: edges 0-1 (node 2-1: 1 hop), 1-2 (1-0: 1), 2-3 (0-3: 1) = 60;
  const SlotId swapped[] = {2, 1, 0, 3};
  EXPECT_EQ(ComputeHopBytes(g, alloc, swapped), 60);
  // 0,1,2,3 on nodes 0,2,1,3: 10*2 + 20*1 + 30*2 = 100.
  const SlotId far[] = {0, 2, 1, 3};
  EXPECT_EQ(ComputeHopBytes(g, alloc, far), 100);
  EXPECT_EQ(ComputeMaxDilation(g, alloc, far), 2);
}

TEST(HopBytesTest, TasksOnOneNodeAreZeroHops) {
  TaskGraph g = MakeGraph(4, {{0, 1, 10}, {1, 2, 20}, {2, 3, 30}});
  auto machine = MakeTorus({4}, true);
  auto alloc = *Allocation::Create(machine, {0, 2}, 2);  // nodes 0 and 2, 2 hops apart
  const SlotId slots[] = {0, 1, 2, 3};                   // {0,1} on node 0, {2,3} on node 2
  EXPECT_EQ(ComputeHopBytes(g, alloc, slots), 20 * 2);
}

TEST(HopBytesTest, OverflowIsRefused) {
  TaskGraph g = MakeGraph(2, {{0, 1, int64_t{1} << 61}});
  auto alloc = *Allocation::WholeMachine(MakeTorus({16}, false));
  EXPECT_THAT(CheckHopBytesFit(g, alloc).message(), ::testing::HasSubstr("overflows"));
}

TEST(LinkLoadsTest, EachDirectionCarriesHalf) {
  TaskGraph g = MakeGraph(2, {{0, 1, 100}});
  auto machine = MakeTorus({4}, false);
  auto alloc = *Allocation::WholeMachine(machine);
  const SlotId slots[] = {0, 2};
  LinkLoads loads = ComputeLinkLoads(g, alloc, slots, Routing::kDimensionOrder);
  ASSERT_TRUE(loads.available());
  EXPECT_EQ(loads.links_used, 4);  // 0->1, 1->2 and 2->1, 1->0
  EXPECT_DOUBLE_EQ(loads.max_load, 50);
  EXPECT_DOUBLE_EQ(loads.average_load, 50);
  // On a 2x2 mesh, (0,0)-(1,1) adaptive: each of 4 links per direction gets 1/4.
  auto mesh = MakeTorus({2, 2}, false);
  auto alloc2 = *Allocation::WholeMachine(mesh);
  const SlotId diag[] = {0, 3};
  LinkLoads adaptive = ComputeLinkLoads(g, alloc2, diag, Routing::kAdaptive);
  EXPECT_EQ(adaptive.links_used, 8);
  EXPECT_DOUBLE_EQ(adaptive.max_load, 25);
  LinkLoads ordered = ComputeLinkLoads(g, alloc2, diag, Routing::kDimensionOrder);
  EXPECT_EQ(ordered.links_used, 4);
  EXPECT_DOUBLE_EQ(ordered.max_load, 50);
}

// RouteLinkCount is the work ComputeLinkLoads does: with 2 bytes per edge (1 each
// way) the loads over all links sum to it.
TEST(LinkLoadsTest, RouteLinkCountIsTheLinksTheRoutesCross) {
  std::vector<std::array<int64_t, 3>> edges;
  for (int64_t u = 0; u < 30; ++u) {
    edges.push_back({u, (u * 7 + 3) % 30, 2});
    edges.push_back({u, (u + 1) % 30, 2});
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(
      std::remove_if(edges.begin(), edges.end(), [](const auto& e) { return e[0] == e[1]; }),
      edges.end());
  for (auto& e : edges) {
    if (e[0] > e[1]) std::swap(e[0], e[1]);
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(
      std::unique(edges.begin(), edges.end(),
                  [](const auto& a, const auto& b) { return a[0] == b[0] && a[1] == b[1]; }),
      edges.end());
  TaskGraph g = MakeGraph(30, edges);
  auto alloc = *Allocation::WholeMachine(MakeTorus({4, 3, 3}, true));  // 36 slots
  std::vector<SlotId> slots(36);
  std::iota(slots.begin(), slots.end(), 0);
  RandomStream random(5, 0);
  random.Shuffle(std::span<SlotId>(slots));
  slots.resize(30);
  const LinkLoads loads = ComputeLinkLoads(g, alloc, slots, Routing::kDimensionOrder);
  double total = 0;
  for (double load : loads.bytes_on_link) total += load;
  EXPECT_EQ(RouteLinkCount(g, alloc, slots), static_cast<int64_t>(total));
  EXPECT_GT(total, 0);
}

// Brute force: the best hop-bytes over every injective task -> slot assignment.
HopBytes BruteForceOptimum(const TaskGraph& g, const Allocation& alloc) {
  std::vector<SlotId> slots(alloc.num_slots());
  std::iota(slots.begin(), slots.end(), 0);
  HopBytes best = std::numeric_limits<HopBytes>::max();
  do {
    std::vector<SlotId> mapping(slots.begin(), slots.begin() + g.num_tasks());
    best = std::min(best, ComputeHopBytes(g, alloc, mapping));
  } while (std::next_permutation(slots.begin(), slots.end()));
  return best;
}

TEST(LowerBoundTest, NeverAboveBruteForceOptimum) {
  struct Case {
    std::vector<int32_t> dims;
    bool wrap;
    std::vector<NodeId> nodes;
    int32_t cores;
    TaskId tasks;
  };
  const std::vector<Case> cases = {
      {{2, 2}, false, {0, 1, 2, 3}, 2, 7},
      {{8}, true, {0, 2, 3, 7}, 2, 8},
      {{3, 3}, true, {0, 1, 2, 4, 5, 8, 6, 7}, 1, 8},
      {{4, 4}, false, {0, 5, 10, 15}, 2, 6},
      {{9}, false, {0, 1, 2, 3, 4, 5, 6, 7, 8}, 1, 8},
  };
  int tight = 0;
  for (size_t c = 0; c < cases.size(); ++c) {
    for (uint64_t seed = 0; seed < 4; ++seed) {
      RandomStream random(seed, c);
      const TaskId n = cases[c].tasks;
      TaskGraphBuilder b(n);
      for (TaskId u = 0; u < n; ++u) {
        for (TaskId v = u + 1; v < n; ++v) {
          if (random.Below(3) == 0) {
            ASSERT_TRUE(b.AddTraffic(u, v, 1 + random.Below(100)).ok());
          }
        }
      }
      TaskGraph g = *std::move(b).Build();
      auto alloc = *Allocation::Create(MakeTorus(cases[c].dims, cases[c].wrap), cases[c].nodes,
                                       cases[c].cores);
      const HopBytes optimum = BruteForceOptimum(g, alloc);
      const LowerBound bound = ComputeLowerBound(g, alloc, nullptr);
      EXPECT_LE(bound.value, optimum) << "case " << c << " seed " << seed;
      // The larger of the degree and Gilmore-Lawler bounds (gilmore_lawler_test.cc).
      EXPECT_GE(bound.value, DegreeLowerBound(g, alloc).value);
      EXPECT_TRUE(bound.method == "degree" || bound.method == "gilmore-lawler") << bound.method;
      if (bound.value == optimum) ++tight;
      // The same bound from the machine's ball sizes (no dense matrix) is also valid.
      auto sparse = *Allocation::Create(alloc.shared_machine(), cases[c].nodes, cases[c].cores,
                                        /*dense_limit=*/0);
      EXPECT_LE(DegreeLowerBound(g, sparse).value, bound.value);
    }
  }
  EXPECT_GT(tight, 0);  // the bound is not trivially loose everywhere
}

TEST(LowerBoundTest, ValidOnEveryMachineModel) {
  // The bound from the machine's ball sizes (no dense matrix) and from the
  // allocation's matrix, on the non-torus models, against brute force.
  std::vector<std::pair<std::shared_ptr<const Machine>, std::vector<NodeId>>> machines = {
      {std::make_shared<FatTreeMachine>(*FatTreeMachine::Create({2, 2, 2})), {0, 3, 4, 6}},
      {std::make_shared<DragonflyMachine>(*DragonflyMachine::Create(3, 2, 2)), {0, 1, 5, 8, 11}},
      {std::make_shared<ChipMeshMachine>(*ChipMeshMachine::Create(2, 2, 2)), {0, 1, 2, 7}},
  };
  for (size_t c = 0; c < machines.size(); ++c) {
    for (int32_t cores : {1, 2}) {
      RandomStream random(cores, c);
      const TaskId n = static_cast<TaskId>(std::min<size_t>(machines[c].second.size() * cores, 7));
      TaskGraphBuilder b(n);
      for (TaskId u = 0; u < n; ++u) {
        for (TaskId v = u + 1; v < n; ++v) {
          if (random.Below(2) == 0) {
            ASSERT_TRUE(b.AddTraffic(u, v, 1 + random.Below(50)).ok());
          }
        }
      }
      TaskGraph g = *std::move(b).Build();
      auto dense = *Allocation::Create(machines[c].first, machines[c].second, cores);
      auto sparse = *Allocation::Create(machines[c].first, machines[c].second, cores, 0);
      const HopBytes optimum = BruteForceOptimum(g, dense);
      EXPECT_LE(DegreeLowerBound(g, dense).value, optimum) << machines[c].first->Spec();
      EXPECT_LE(DegreeLowerBound(g, sparse).value, optimum) << machines[c].first->Spec();
      EXPECT_GT(DegreeLowerBound(g, dense).value, 0) << machines[c].first->Spec();
    }
  }
}

TEST(LowerBoundTest, StencilOnMatchingTorusIsTight) {
  // A 4x4 periodic 5-point stencil: every edge can be 1 hop, and the bound says so.
  TaskGraphBuilder b(16);
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 4; ++x) {
      ASSERT_TRUE(b.AddTraffic(x + 4 * y, (x + 1) % 4 + 4 * y, 8).ok());
      ASSERT_TRUE(b.AddTraffic(x + 4 * y, x + 4 * ((y + 1) % 4), 8).ok());
    }
  }
  TaskGraph g = *std::move(b).Build();
  auto alloc = *Allocation::WholeMachine(MakeTorus({4, 4}, true));
  EXPECT_EQ(ComputeLowerBound(g, alloc, nullptr).value, g.total_bytes());
  std::vector<SlotId> in_order(16);
  std::iota(in_order.begin(), in_order.end(), 0);
  EXPECT_EQ(ComputeHopBytes(g, alloc, in_order), g.total_bytes());
}

TEST(LowerBoundTest, CoresMakeColocationFree) {
  // Two tasks, one node with two cores: the optimum and the bound are 0.
  TaskGraph g = MakeGraph(2, {{0, 1, 5}});
  auto alloc = *Allocation::Create(MakeTorus({4}, true), {1}, 2);
  EXPECT_EQ(ComputeLowerBound(g, alloc, nullptr).value, 0);
  auto one_core = *Allocation::Create(MakeTorus({4}, true), {1, 3}, 1);
  EXPECT_EQ(ComputeLowerBound(g, one_core, nullptr).value, 5 * 2);  // the nodes are 2 hops apart
}

}  // namespace
}  // namespace hopmap
