// The Gilmore-Lawler bound and its assignment solver against brute force.
#include "core/metrics/gilmore_lawler.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>

#include "core/graph/task_graph.h"
#include "core/metrics/hop_bytes.h"
#include "core/metrics/lower_bound.h"
#include "core/search/random_stream.h"
#include "core/topology/torus.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

std::shared_ptr<const Machine> MakeTorus(std::vector<int32_t> dims, bool wrap) {
  std::vector<bool> w(dims.size(), wrap);
  return std::make_shared<TorusMachine>(*TorusMachine::Create(std::move(dims), std::move(w)));
}

// Every assignment of rows to distinct columns.
int64_t BruteForceAssignment(int32_t rows, int32_t cols, const std::vector<int64_t>& cost) {
  std::vector<char> used(cols, 0);
  int64_t best = std::numeric_limits<int64_t>::max();
  std::function<void(int32_t, int64_t)> go = [&](int32_t r, int64_t sum) {
    if (r == rows) {
      best = std::min(best, sum);
      return;
    }
    for (int32_t c = 0; c < cols; ++c) {
      if (used[c]) continue;
      used[c] = 1;
      go(r + 1, sum + cost[static_cast<size_t>(r) * cols + c]);
      used[c] = 0;
    }
  };
  go(0, 0);
  return best;
}

// The optimal hop-bytes over every placement (free cores of one node tried once).
HopBytes BruteForceOptimum(const TaskGraph& g, const Allocation& alloc) {
  const TaskId n = g.num_tasks();
  std::vector<SlotId> slot_of(n, -1);
  std::vector<char> used(alloc.num_slots(), 0);
  HopBytes best = std::numeric_limits<HopBytes>::max();
  const int32_t cores = alloc.cores_per_node();
  std::function<void(TaskId)> go = [&](TaskId t) {
    if (t == n) {
      best = std::min(best, ComputeHopBytes(g, alloc, slot_of));
      return;
    }
    for (int32_t p = 0; p < alloc.num_nodes(); ++p) {
      for (int32_t c = 0; c < cores; ++c) {
        const SlotId s = p * cores + c;
        if (used[s]) continue;
        used[s] = 1;
        slot_of[t] = s;
        go(t + 1);
        used[s] = 0;
        break;  // the node's other free cores are equivalent
      }
    }
  };
  go(0);
  return best;
}

TaskGraph RandomGraph(TaskId n, RandomStream& random, int density_in_3 = 1) {
  TaskGraphBuilder b(n);
  for (TaskId u = 0; u < n; ++u) {
    for (TaskId v = u + 1; v < n; ++v) {
      if (static_cast<int>(random.Below(3)) < density_in_3) {
        EXPECT_TRUE(b.AddTraffic(u, v, 1 + random.Below(100)).ok());
      }
    }
  }
  return *std::move(b).Build();
}

TEST(LinearAssignmentTest, MatchesBruteForce) {
  LinearAssignmentSolver solver;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    RandomStream random(seed, 0);
    const int32_t rows = 1 + static_cast<int32_t>(random.Below(6));
    const int32_t cols = rows + static_cast<int32_t>(random.Below(3));
    std::vector<int64_t> cost(static_cast<size_t>(rows) * cols);
    for (int64_t& c : cost) c = static_cast<int64_t>(random.Below(seed % 2 == 0 ? 5 : 1000));
    const int64_t got = solver.Solve(rows, cols, cost);
    EXPECT_EQ(got, BruteForceAssignment(rows, cols, cost)) << "seed " << seed;
    // The reported assignment is a valid one of that cost.
    std::vector<char> used(cols, 0);
    int64_t sum = 0;
    for (int32_t r = 0; r < rows; ++r) {
      const int32_t c = solver.column_of_row()[r];
      ASSERT_GE(c, 0);
      ASSERT_LT(c, cols);
      EXPECT_FALSE(used[c]);
      used[c] = 1;
      sum += cost[static_cast<size_t>(r) * cols + c];
    }
    EXPECT_EQ(sum, got);
  }
}

TEST(GilmoreLawlerTest, NeverAboveBruteForceOptimum) {
  struct Case {
    std::vector<int32_t> dims;
    bool wrap;
    std::vector<NodeId> nodes;  // a subset of the machine, in any order
    int32_t cores;
    TaskId tasks;
  };
  const std::vector<Case> cases = {
      {{3, 3}, true, {0, 1, 2, 3, 4, 5, 6, 7}, 1, 8},     // one empty slot
      {{4, 4}, false, {0, 5, 10, 15, 3, 12}, 1, 6},       // scattered, no wrap
      {{8}, true, {7, 0, 3, 4}, 2, 8},                    // several cores, full
      {{8}, true, {7, 0, 3, 4, 5}, 2, 7},                 // several cores, empty slots
      {{2, 2, 2}, true, {0, 3, 5, 6}, 3, 8},              // four of twelve cores empty
      {{4, 4}, true, {0, 1, 2, 3, 4, 5, 6, 7, 8}, 1, 8},  // ring-ish subset
      {{16}, false, {0, 2, 5, 9, 14, 15}, 4, 3},          // slots > tasks^2: reduced columns
  };
  int tight = 0;
  int beats_degree = 0;
  for (size_t c = 0; c < cases.size(); ++c) {
    for (uint64_t seed = 0; seed < 5; ++seed) {
      RandomStream random(seed, c);
      TaskGraph g = RandomGraph(cases[c].tasks, random, 1 + static_cast<int>(seed % 3));
      auto alloc = *Allocation::Create(MakeTorus(cases[c].dims, cases[c].wrap), cases[c].nodes,
                                       cases[c].cores);
      const HopBytes optimum = BruteForceOptimum(g, alloc);
      const std::optional<HopBytes> gl = GilmoreLawlerLowerBound(g, alloc);
      ASSERT_TRUE(gl.has_value());
      EXPECT_LE(*gl, optimum) << "case " << c << " seed " << seed;
      EXPECT_GE(*gl, 0);
      if (*gl == optimum) ++tight;
      const LowerBound best = ComputeLowerBound(g, alloc, nullptr);
      const LowerBound degree = DegreeLowerBound(g, alloc);
      EXPECT_EQ(best.value, std::max(*gl, degree.value));
      EXPECT_EQ(best.method, *gl > degree.value ? "gilmore-lawler" : "degree");
      if (*gl > degree.value) ++beats_degree;
    }
  }
  EXPECT_GT(tight, 0);         // not trivially loose
  EXPECT_GT(beats_degree, 0);  // and it adds something over the degree bound
}

TEST(GilmoreLawlerTest, HandComputedPathOnRing) {
  // Path 0-1-2 (weights 5, 3) on a 4-ring: optimum puts them on consecutive nodes,
  // 5 + 3 = 8. l(1, k) = 5*1 + 3*1; l(0, k) = 5; l(2, k) = 3: GL = 16, /2 = 8.
  TaskGraphBuilder b(3);
  ASSERT_TRUE(b.AddTraffic(0, 1, 5).ok());
  ASSERT_TRUE(b.AddTraffic(1, 2, 3).ok());
  TaskGraph g = *std::move(b).Build();
  auto alloc = *Allocation::WholeMachine(MakeTorus({4}, true));
  EXPECT_EQ(GilmoreLawlerLowerBound(g, alloc), 8);
  // Two cores per node: tasks 0 and 1 share a node, 2 is one hop away: 3. GL: l(1) =
  // 5*0 + 3*1 = 3 on every node, l(0) = 0, l(2) = 0: 3, /2 rounds up to 2.
  auto machine = MakeTorus({4}, true);
  auto two_cores = *Allocation::Create(machine, {0, 1, 2, 3}, 2);
  EXPECT_EQ(GilmoreLawlerLowerBound(g, two_cores), 2);
  EXPECT_EQ(BruteForceOptimum(g, two_cores), 3);
}

TEST(GilmoreLawlerTest, SizeGuard) {
  TaskGraphBuilder b(2);
  ASSERT_TRUE(b.AddTraffic(0, 1, 1).ok());
  TaskGraph g = *std::move(b).Build();
  auto alloc = *Allocation::WholeMachine(MakeTorus({8, 8}, true));
  EXPECT_GT(GilmoreLawlerWork(g, alloc), 64);
  EXPECT_FALSE(GilmoreLawlerLowerBound(g, alloc, /*max_work=*/64).has_value());
  EXPECT_EQ(GilmoreLawlerLowerBound(g, alloc), 1);
  TaskGraph empty = *TaskGraphBuilder(0).Build();
  EXPECT_EQ(GilmoreLawlerLowerBound(empty, alloc), 0);
}

}  // namespace
}  // namespace hopmap
