// The hierarchical multisection (core/balance/multisection) and the k-way FM
// refinement it cuts with (core/balance/kway_fm).
#include "core/balance/multisection.h"

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <vector>

#include "core/balance/balance_problem.h"
#include "core/balance/balancers.h"
#include "core/balance/construct.h"
#include "core/balance/kway_fm.h"
#include "core/search/random_stream.h"
#include "core/solve/solve_balanced.h"
#include "core/topology/hierarchy.h"
#include "gtest/gtest.h"
#include "tbb/task_arena.h"
#include "tests/core/balance/csr_test_util.h"
#include "tests/core/mappers/search_test_util.h"

namespace hopmap {
namespace {

using ::hopmap::testing::BruteHopBytes;
using ::hopmap::testing::CsrArrays;
using ::hopmap::testing::Generate;
using ::hopmap::testing::PartWeights;
using ::hopmap::testing::WholeTorus;

// Every vertex dealt to one of 4 parts at random (balanced): the refinement must
// bring the cut far down, never past a part's limit, and report what it gained.
TEST(KwayFmTest, LowersARandomCutWithinTheLimits) {
  const TaskGraph graph = Generate("stencil2d-5", {32, 32});
  const CsrArrays arrays(graph);
  std::vector<int32_t> part(1024);
  for (int32_t v = 0; v < 1024; ++v) part[v] = v % 4;
  RandomStream random(7, 0);
  random.Shuffle(std::span<int32_t>(part));
  const std::vector<int64_t> max_weight(4, 266);  // 4% over 256
  const int64_t before = KwayCut(arrays.csr(), part);
  std::vector<int32_t> flat = part;
  const int64_t flat_gain = RefineKwayCut(arrays.csr(), max_weight, flat);
  EXPECT_EQ(KwayCut(arrays.csr(), flat), before - flat_gain);
  const int64_t gain = RefineKwayCutMultilevel(arrays.csr(), max_weight, part, 3);
  const int64_t after = KwayCut(arrays.csr(), part);
  EXPECT_EQ(after, before - gain);
  // The best 4-way cut of a 32x32 grid is 64 edges. From the random start (1,491)
  // one flat refinement ends at 173; the V-cycles move whole pieces and go lower.
  EXPECT_LT(after, 160) << before << " flat " << before - flat_gain;
  EXPECT_LT(after, before - flat_gain);
  for (int64_t w : PartWeights(part, 4)) EXPECT_LE(w, 266);
  // Deterministic for a seed.
  std::vector<int32_t> again(1024);
  for (int32_t v = 0; v < 1024; ++v) again[v] = v % 4;
  RandomStream random_again(7, 0);
  random_again.Shuffle(std::span<int32_t>(again));
  RefineKwayCutMultilevel(arrays.csr(), max_weight, again, 3);
  EXPECT_EQ(again, part);
}

// A plateau: a 2-way cut of a 16x16 grid at column 8 with rows 6-9 reaching two
// columns further (cut 20). No single move lowers the cut (the step's vertices
// gain 0 or lose, and part 0 may not grow), so a refinement that only takes gains
// stops there; FM takes the moves that gain nothing and reaches the straight cut.
TEST(KwayFmTest, CrossesAPlateauNoSingleMoveImproves) {
  const TaskGraph graph = Generate("stencil2d-5", {16, 16});  // task = x + 16 y
  const CsrArrays arrays(graph);
  std::vector<int32_t> part(256);
  for (int32_t v = 0; v < 256; ++v) {
    const int32_t x = v % 16, y = v / 16;
    part[v] = x < ((y >= 6 && y <= 9) ? 10 : 8) ? 0 : 1;
  }
  const std::vector<int64_t> max_weight = {136, 136};
  ASSERT_EQ(KwayCut(arrays.csr(), part), 20);
  EXPECT_EQ(RefineKwayCut(arrays.csr(), max_weight, part), 4);
  EXPECT_EQ(KwayCut(arrays.csr(), part), 16);
  for (int64_t w : PartWeights(part, 2)) EXPECT_LE(w, 136);
}

// Parts above their limits give up vertices first: every vertex of an 8x8 grid
// starts in part 0, limits 34 and 34; the balancing leaves both within them.
TEST(KwayFmTest, PartsAboveTheirLimitsGiveUpVertices) {
  const TaskGraph graph = Generate("stencil2d-5", {8, 8});
  const CsrArrays arrays(graph);
  std::vector<int32_t> part(64, 0);
  part[63] = 1;
  const std::vector<int64_t> max_weight = {34, 34};
  const int64_t before = KwayCut(arrays.csr(), part);
  const int64_t gain = RefineKwayCut(arrays.csr(), max_weight, part);
  EXPECT_EQ(KwayCut(arrays.csr(), part), before - gain);
  const std::vector<int64_t> weight = PartWeights(part, 2);
  EXPECT_LE(weight[0], 34);
  EXPECT_LE(weight[1], 34);
  // The straight cut (8) or near it, not a scatter.
  EXPECT_LE(KwayCut(arrays.csr(), part), 12);
}

std::shared_ptr<const Machine> Hierarchy(std::vector<int32_t> arities,
                                         std::vector<int32_t> distances) {
  return std::make_shared<HierarchyMachine>(
      *HierarchyMachine::Create(std::move(arities), std::move(distances)));
}

// 3,072 objects of a random geometric graph (seed 3): an irregular graph for H = 2:2:3.
TaskGraph RandomGeometric3072() {
  GeneratorOptions generate;
  generate.kind = "random-geometric";
  generate.tasks = 3072;
  generate.seed = 3;
  return *GenerateGraph(generate);
}

// On H = 2:2:3 (12 PEs, D = 1:10:100) a 24x16 stencil's best top-level cut is two
// straight lines across the 16-wide side (32 edges). The multisection cuts the
// top level into 3 first; the recursive bisection used to halve 3 groups into
// 1.5 | 1.5 and pay the top distance inside the middle one.
TEST(MultisectionTest, CutsEachLevelIntoItsGroups) {
  const TaskGraph graph = Generate("stencil2d-5", {16, 24});
  const Allocation allocation = *Allocation::WholeMachine(Hierarchy({2, 2, 3}, {1, 10, 100}));
  const BalanceInput input{graph, allocation};
  const std::vector<SlotId> slots =
      MultisectionPlacement(input, 0.03, {}, StopCondition(absl::InfiniteFuture()));
  ASSERT_EQ(slots.size(), 384u);
  std::map<SlotId, int> count;
  for (SlotId s : slots) ++count[s];
  EXPECT_EQ(count.size(), 12u);
  for (const auto& [slot, objects] : count) EXPECT_LE(objects, 34) << slot;  // 32 x 1.03 + 1
  int64_t top_cut_edges = 0;
  for (TaskId t = 0; t < 384; ++t) {
    graph.ForEachNeighbor(t, [&](TaskId u, Bytes) {
      if (t < u && slots[t] / 4 != slots[u] / 4) ++top_cut_edges;
    });
  }
  // Within a quarter of the straight lines' 32 edges.
  EXPECT_LE(top_cut_edges, 40);
  // Deterministic whatever the threads.
  tbb::task_arena one(1);
  std::vector<SlotId> alone;
  one.execute([&] {
    alone = MultisectionPlacement(input, 0.03, {}, StopCondition(absl::InfiniteFuture()));
  });
  EXPECT_EQ(alone, slots);
}

// A block placement (objects in id order, which the random geometric generator
// does not number by place) refined along the hierarchy costs far less and keeps
// the cap within a few objects (the solve's repair takes care of the rest).
TEST(MultisectionTest, RefineAlongHierarchyLowersABlockPlacementsCost) {
  const TaskGraph graph = RandomGeometric3072();
  const Allocation allocation = *Allocation::WholeMachine(Hierarchy({2, 2, 3}, {1, 10, 100}));
  const BalanceInput input{graph, allocation};
  const std::vector<SlotId> block = BlockPlacement(input);
  const StopCondition no_deadline(absl::InfiniteFuture());
  const std::vector<SlotId> refined = RefineAlongHierarchy(input, block, 0.05, {}, no_deadline);
  ASSERT_EQ(refined.size(), block.size());
  const HopBytes before = BruteHopBytes(graph, allocation, block);
  const HopBytes after = BruteHopBytes(graph, allocation, refined);
  EXPECT_LT(after, before / 4) << before;
  std::map<SlotId, int> count;
  for (SlotId s : refined) ++count[s];
  for (const auto& [slot, objects] : count) EXPECT_LE(objects, 256 * 1.05 + 1) << slot;
  // Deterministic, and empty off a hierarchy.
  EXPECT_EQ(RefineAlongHierarchy(input, block, 0.05, {}, no_deadline), refined);
  const Allocation torus = WholeTorus({3, 4}, 1);
  const BalanceInput on_torus{graph, torus};
  EXPECT_TRUE(
      RefineAlongHierarchy(on_torus, BlockPlacement(on_torus), 0.05, {}, no_deadline).empty());
}

TEST(MultisectionTest, EmptyWhereTheMachineIsNotAHierarchy) {
  const TaskGraph graph = Generate("stencil2d-5", {8, 8});
  const Allocation allocation = WholeTorus({4, 4}, 1);
  const BalanceInput input{graph, allocation};
  EXPECT_TRUE(
      MultisectionPlacement(input, 0.03, {}, StopCondition(absl::InfiniteFuture())).empty());
}

// The balanced solve of a random geometric graph onto H = 2:2:3: with the
// multisection among its starts and the bisection halving whole groups, the
// edges cut at the top level (3 groups) weigh 61,440; before, when the bisection
// halved the 3 groups 1.5 | 1.5, they weighed 78,848 (the total cost 6.80M
// against 8.70M).
TEST(MultisectionTest, BalancedSolveOntoAnOddTopLevelCutsLess) {
  const TaskGraph graph = RandomGeometric3072();
  const Allocation allocation = *Allocation::WholeMachine(Hierarchy({2, 2, 3}, {1, 10, 100}));
  const BalanceInput input{graph, allocation};
  MapperOptions options;
  options.time_limit_seconds = 5;
  BalanceOptions balance;
  balance.imbalance = 0.05;
  absl::StatusOr<MappingReport> report = SolveBalancedMapping(input, "partition", options, balance);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->balance.has_value());
  EXPECT_TRUE(report->balance->balanced) << report->balance->note;
  EXPECT_EQ(report->hop_bytes, BruteHopBytes(graph, allocation, report->slot_of_task));
  Bytes top_cut = 0;
  for (TaskId t = 0; t < graph.num_tasks(); ++t) {
    graph.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
      if (t < u && report->slot_of_task[t] / 4 != report->slot_of_task[u] / 4) top_cut += w;
    });
  }
  EXPECT_LE(top_cut, 67584) << "total " << report->hop_bytes;  // 61,440 + 10%
}

// Cliques of 9, 7, 9 and 7 objects (10 bytes between any two of one clique),
// nothing between them.
TaskGraph Cliques9797() {
  TaskGraphBuilder builder(32);
  TaskId first = 0;
  for (const TaskId size : {9, 7, 9, 7}) {
    for (TaskId u = first; u < first + size; ++u) {
      for (TaskId v = u + 1; v < first + size; ++v) EXPECT_TRUE(builder.AddTraffic(u, v, 10).ok());
    }
    first += size;
  }
  return *std::move(builder).Build();
}

// 32 unit objects on the 4 PEs of H = 2:2 within 3%: the field's cap is ceil(1.03 x
// 8) = 9, so each clique fits on a PE and nothing is cut. The multisection's last
// level allows the same 9 (with (1 + eps) x 8 = 8.24 it cut a 9-clique).
TEST(MultisectionTest, TheLowestLevelAllowsTheFieldsRoundedCap) {
  const TaskGraph graph = Cliques9797();
  const Allocation allocation = *Allocation::WholeMachine(Hierarchy({2, 2}, {1, 10}));
  const BalanceInput input{graph, allocation};
  const std::vector<SlotId> slots =
      MultisectionPlacement(input, 0.03, {}, StopCondition(absl::InfiniteFuture()));
  ASSERT_EQ(slots.size(), 32u);
  EXPECT_EQ(BruteHopBytes(graph, allocation, slots), 0);
  std::map<SlotId, int> count;
  for (SlotId s : slots) ++count[s];
  for (const auto& [slot, objects] : count) EXPECT_LE(objects, 9) << slot;

  // The balanced solve takes 9 as its cap and calls the answer balanced.
  MapperOptions options;
  options.time_limit_seconds = 5;
  BalanceOptions balance;
  balance.imbalance = 0.03;
  absl::StatusOr<MappingReport> report = SolveBalancedMapping(input, "partition", options, balance);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->balance.has_value());
  EXPECT_EQ(report->balance->requested_cap, 9.0);
  EXPECT_TRUE(report->balance->balanced) << report->balance->note;
  EXPECT_EQ(report->balance->max_load, 9.0);
  EXPECT_EQ(report->hop_bytes, 0);
}

}  // namespace
}  // namespace hopmap
