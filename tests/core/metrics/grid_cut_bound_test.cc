#include "core/metrics/grid_cut_bound.h"

#include <functional>
#include <limits>
#include <memory>

#include "core/graph/generators.h"
#include "core/metrics/lower_bound.h"
#include "core/topology/torus.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

TEST(GridCutBoundTest, MaxInternalEdgesOfBoxes) {
  EXPECT_EQ(MaxInternalGridEdges(2, 1), 0);
  EXPECT_EQ(MaxInternalGridEdges(2, 2), 1);
  EXPECT_EQ(MaxInternalGridEdges(2, 3), 2);     // a path or an L
  EXPECT_EQ(MaxInternalGridEdges(2, 4), 4);     // a 2x2 square
  EXPECT_EQ(MaxInternalGridEdges(2, 6), 7);     // 2x3
  EXPECT_EQ(MaxInternalGridEdges(2, 16), 24);   // 4x4
  EXPECT_EQ(MaxInternalGridEdges(3, 8), 12);    // 2x2x2
  EXPECT_EQ(MaxInternalGridEdges(3, 12), 20);   // 2x2x3
  EXPECT_EQ(MaxInternalGridEdges(3, 64), 144);  // 4x4x4
}

// The optimum by exhaustive search over which node each task sits on (cores as
// capacity), for tiny cases.
HopBytes BruteForceOptimum(const TaskGraph& graph, const Allocation& allocation) {
  const int32_t n = graph.num_tasks(), m = allocation.num_nodes();
  std::vector<int32_t> node_of(n, -1), used(m, 0);
  HopBytes best = std::numeric_limits<HopBytes>::max();
  std::function<void(int32_t, HopBytes)> place = [&](int32_t t, HopBytes cost) {
    if (cost >= best) return;
    if (t == n) {
      best = cost;
      return;
    }
    for (int32_t p = 0; p < m; ++p) {
      if (used[p] == allocation.cores_per_node()) continue;
      HopBytes added = 0;
      graph.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
        if (u < t) added += w * allocation.HopsBetweenPositions(p, node_of[u]);
      });
      node_of[t] = p;
      ++used[p];
      place(t + 1, cost + added);
      --used[p];
      node_of[t] = -1;
    }
  };
  place(0, 0);
  return best;
}

TEST(GridCutBoundTest, NeverAboveTheOptimum) {
  auto torus = std::make_shared<TorusMachine>(*TorusMachine::Create({3, 2}, {true, false}));
  struct Case {
    std::vector<int32_t> dims;
    bool wrap;
    int32_t cores;
  };
  for (const Case& c : {Case{{2, 3}, false, 2}, Case{{3, 3}, false, 2}, Case{{4, 2}, false, 2},
                        Case{{3, 3}, true, 2}, Case{{2, 2, 2}, false, 2}, Case{{2, 4}, false, 4},
                        Case{{3, 4}, false, 3}}) {
    GeneratorOptions gen;
    gen.kind = c.dims.size() == 2 ? "stencil2d-5" : "stencil3d-7";
    gen.dims = c.dims;
    gen.wrap = c.wrap;
    const TaskGraph graph = *GenerateGraph(gen);
    Allocation allocation = *Allocation::Create(torus, {0, 1, 2, 3, 4, 5}, c.cores);
    std::vector<bool> periodic(c.dims.size());
    for (size_t i = 0; i < c.dims.size(); ++i) periodic[i] = c.wrap && c.dims[i] >= 3;
    std::optional<HopBytes> bound = GridCutLowerBound(graph, allocation, c.dims, periodic);
    ASSERT_TRUE(bound.has_value()) << gen.kind;
    const HopBytes optimum = BruteForceOptimum(graph, allocation);
    EXPECT_LE(*bound, optimum) << gen.kind << " cores " << c.cores;
    EXPECT_GT(*bound, 0);
    const GridShape grid{c.dims, periodic};
    EXPECT_LE(ComputeLowerBound(graph, allocation, &grid).value, optimum);
  }
}

TEST(GridCutBoundTest, TableIStencilIsProvedOptimal) {
  // Seed 000 Table I's setting: 2D stencil, 4 ranks per node. 2x2 blocks keep half
  // the edges at home, which is the most any 4 cells can.
  auto torus = std::make_shared<TorusMachine>(*TorusMachine::Create({8, 8}, {true, true}));
  GeneratorOptions gen;
  gen.kind = "stencil2d-5";
  gen.dims = {16, 16};
  gen.wrap = true;
  const TaskGraph graph = *GenerateGraph(gen);
  Allocation allocation = *Allocation::WholeMachine(torus);
  allocation = *Allocation::Create(torus, allocation.nodes(), 4);
  const GridShape grid{{16, 16}, {true, true}};
  const LowerBound bound = ComputeLowerBound(graph, allocation, &grid);
  EXPECT_EQ(bound.method, "grid-cut");
  EXPECT_EQ(bound.value, graph.total_bytes() / 2);
}

TEST(GridCutBoundTest, RefusesWhatItCannotProve) {
  auto torus = std::make_shared<TorusMachine>(*TorusMachine::Create({4, 4}, {true, true}));
  Allocation allocation = *Allocation::Create(torus, {0, 1, 2, 3, 4, 5, 6, 7}, 4);
  GeneratorOptions gen;
  gen.kind = "stencil2d-9";  // diagonals are not unit steps
  gen.dims = {4, 8};
  EXPECT_FALSE(GridCutLowerBound(*GenerateGraph(gen), allocation, {4, 8}, {false, false}));
  gen.kind = "stencil2d-5";
  gen.wrap = true;
  // 4 cores could hold a whole wrapped ring of a periodic dim of size 4.
  EXPECT_FALSE(GridCutLowerBound(*GenerateGraph(gen), allocation, {4, 8}, {true, true}));
  gen.wrap = false;
  EXPECT_FALSE(GridCutLowerBound(*GenerateGraph(gen), allocation, {8, 4}, {false, false}));
}

}  // namespace
}  // namespace hopmap
