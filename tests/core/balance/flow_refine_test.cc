// The max-flow min-cut refinement of a k-way partition (core/balance/flow_refine).
#include "core/balance/flow_refine.h"

#include <cstdint>
#include <vector>

#include "core/balance/kway_fm.h"
#include "core/search/random_stream.h"
#include "gtest/gtest.h"
#include "tests/core/balance/csr_test_util.h"
#include "tests/core/mappers/search_test_util.h"

namespace hopmap {
namespace {

using ::hopmap::testing::CsrArrays;
using ::hopmap::testing::Generate;
using ::hopmap::testing::PartWeights;

// A chain of 20 vertices cut in the middle (edge 9-10, weight 10), every edge
// 10 but 6-7 (weight 1).
CsrArrays ChainWithACheapEdge() {
  std::vector<std::tuple<int32_t, int32_t, int32_t>> edges;
  for (int32_t v = 0; v + 1 < 20; ++v) edges.emplace_back(v, v + 1, v == 6 ? 1 : 10);
  return CsrArrays(20, edges);
}

std::vector<int32_t> CutInTheMiddle() {
  std::vector<int32_t> part(20);
  for (int32_t v = 0; v < 20; ++v) part[v] = v < 10 ? 0 : 1;
  return part;
}

// The chain (ChainWithACheapEdge), parts that may hold 14: the cheap edge is 3 vertices into
// part 0, within reach of a corridor that part 1 can take in. The minimum cut
// of the corridor moves 7, 8 and 9 at once; any single one of them moved alone
// gains nothing.
TEST(FlowRefineTest, MovesTheCutToTheCheapestEdgeWithinReach) {
  const CsrArrays arrays = ChainWithACheapEdge();
  std::vector<int32_t> part = CutInTheMiddle();
  const std::vector<int64_t> max_weight = {14, 14};
  EXPECT_EQ(RefineKwayCutByFlows(arrays.csr(), max_weight, part), 9);
  EXPECT_EQ(KwayCut(arrays.csr(), part), 1);
  for (int32_t v = 0; v < 20; ++v) EXPECT_EQ(part[v], v <= 6 ? 0 : 1) << v;
}

// Out of reach: with parts held to 11, part 1 can take in 1 vertex and the
// cheap edge is 3 away; the cut stays.
TEST(FlowRefineTest, KeepsTheLimits) {
  const CsrArrays arrays = ChainWithACheapEdge();
  std::vector<int32_t> part = CutInTheMiddle();
  const std::vector<int32_t> before = part;
  const std::vector<int64_t> max_weight = {11, 11};
  EXPECT_EQ(RefineKwayCutByFlows(arrays.csr(), max_weight, part), 0);
  EXPECT_EQ(part, before);
}

// A 2-way cut of a 16x16 grid (task = x + 16 y) at column 8, rows 6-9 two
// columns further right and rows 0-3 two further left: 128 vertices a side, cut 22.
std::vector<int32_t> JaggedCut() {
  std::vector<int32_t> part(256);
  for (int32_t v = 0; v < 256; ++v) {
    const int32_t x = v % 16, y = v / 16;
    part[v] = x < (y >= 6 && y <= 9 ? 10 : (y <= 3 ? 6 : 8)) ? 0 : 1;
  }
  return part;
}

// Both parts of a 16x16 grid at their limit (128), the boundary at column 8 with
// rows 6-9 two columns further right and rows 0-3 two columns further left (cut
// 22). Every single move overloads a part, so FM cannot move; the flows trade
// corridors both ways at once and reach the straight cut (16).
TEST(FlowRefineTest, TradesVerticesWhereNoSingleMoveFits) {
  const TaskGraph graph = Generate("stencil2d-5", {16, 16});  // task = x + 16 y
  const CsrArrays arrays(graph);
  std::vector<int32_t> part = JaggedCut();
  const std::vector<int64_t> max_weight = {128, 128};
  ASSERT_EQ(PartWeights(part, 2), (std::vector<int64_t>{128, 128}));
  ASSERT_EQ(KwayCut(arrays.csr(), part), 22);
  std::vector<int32_t> by_fm = part;
  EXPECT_EQ(RefineKwayCut(arrays.csr(), max_weight, by_fm), 0);
  const int64_t gain = RefineKwayCutByFlows(arrays.csr(), max_weight, part);
  EXPECT_EQ(gain, 6);
  EXPECT_EQ(KwayCut(arrays.csr(), part), 16);  // the straight cut
  EXPECT_EQ(PartWeights(part, 2), (std::vector<int64_t>{128, 128}));
}

// The same grid through the V-cycles (RefineKwayCutMultilevel): without flows
// they stay at 22, with flows in their first cycle they reach the straight cut.
TEST(FlowRefineTest, TheVCyclesTakeFlowsWhenAsked) {
  const TaskGraph graph = Generate("stencil2d-5", {16, 16});
  const CsrArrays arrays(graph);
  std::vector<int32_t> part = JaggedCut();
  const std::vector<int64_t> max_weight = {128, 128};
  std::vector<int32_t> fm_only = part;
  EXPECT_EQ(RefineKwayCutMultilevel(arrays.csr(), max_weight, fm_only, 5, 2), 0);
  EXPECT_EQ(RefineKwayCutMultilevel(arrays.csr(), max_weight, part, 5, 2, {.flow_cycles = 1}), 6);
  EXPECT_EQ(KwayCut(arrays.csr(), part), 16);
  EXPECT_EQ(PartWeights(part, 2), (std::vector<int64_t>{128, 128}));
}

// Random graphs and partitions: the cut falls by what the refinement reports,
// never rises, no part goes past max(its limit, its weight before), and the
// same input gives the same partition.
TEST(FlowRefineTest, RandomGraphsKeepLimitsAndReportTheirGain) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    RandomStream random(seed, 0);
    const int32_t n = 30 + static_cast<int32_t>(random.Next() % 60);
    const int32_t k = 2 + static_cast<int32_t>(random.Next() % 4);
    std::vector<std::tuple<int32_t, int32_t, int32_t>> edges;
    for (int32_t v = 1; v < n; ++v) {
      edges.emplace_back(v, static_cast<int32_t>(random.Next() % v),
                         1 + static_cast<int32_t>(random.Next() % 9));
      if (random.Next() % 2 == 0) {
        const auto u = static_cast<int32_t>(random.Next() % n);
        if (u != v) edges.emplace_back(v, u, 1 + static_cast<int32_t>(random.Next() % 9));
      }
    }
    const CsrArrays arrays(n, edges);
    std::vector<int32_t> part(n);
    for (int32_t v = 0; v < n; ++v) part[v] = static_cast<int32_t>(random.Next() % k);
    const std::vector<int64_t> before_weight = PartWeights(part, k);
    std::vector<int64_t> max_weight(k, (n + k - 1) / k + 2);
    const int64_t before = KwayCut(arrays.csr(), part);
    std::vector<int32_t> again = part;
    const int64_t gain = RefineKwayCutByFlows(arrays.csr(), max_weight, part);
    EXPECT_GE(gain, 0) << seed;
    EXPECT_EQ(KwayCut(arrays.csr(), part), before - gain) << seed;
    const std::vector<int64_t> weight = PartWeights(part, k);
    for (int32_t p = 0; p < k; ++p) {
      EXPECT_LE(weight[p], std::max(max_weight[p], before_weight[p])) << seed << " part " << p;
    }
    RefineKwayCutByFlows(arrays.csr(), max_weight, again);
    EXPECT_EQ(again, part) << seed;
  }
}

TEST(FlowRefineTest, OptionsValidate) {
  EXPECT_TRUE(FlowRefineOptions{}.Validate().ok());
  EXPECT_FALSE(FlowRefineOptions{.max_alpha = 0.5}.Validate().ok());
  EXPECT_FALSE(FlowRefineOptions{.max_rounds = -1}.Validate().ok());
}

}  // namespace
}  // namespace hopmap
