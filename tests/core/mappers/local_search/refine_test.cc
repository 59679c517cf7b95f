#include "core/mappers/local_search/refine.h"

#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/graph/generators.h"
#include "core/metrics/hop_bytes.h"
#include "core/topology/distance_matrix.h"
#include "gtest/gtest.h"
#include "tbb/task_arena.h"
#include "tests/core/mappers/search_test_util.h"

namespace hopmap {
namespace {

using ::hopmap::testing::BruteHopBytes;
using ::hopmap::testing::FirstImprovingExchange;
using ::hopmap::testing::FragmentedTorusAllocation;
using ::hopmap::testing::RandomGraph;

StopCondition NoStop() { return StopCondition(absl::InfiniteFuture()); }

std::vector<SlotId> ShuffledMapping(TaskId tasks, int64_t slots, uint64_t seed) {
  std::vector<SlotId> all(slots);
  std::iota(all.begin(), all.end(), 0);
  RandomStream random(seed, 0);
  random.Shuffle(std::span<SlotId>(all));
  all.resize(tasks);
  return all;
}

// A random geometric graph (generator seed `graph_seed`) with `spare` fewer tasks
// than slots, on the whole 7x6x5 torus (z without wrap) with `cores` per node and
// hops from coordinates (no dense matrix), and a shuffled start.
struct RggCase {
  Allocation allocation;
  TaskGraph graph;
  std::vector<SlotId> start;
};
RggCase RggOnSmallTorus(int32_t cores, int32_t spare, uint64_t graph_seed, uint64_t start_seed) {
  auto torus =
      std::make_shared<TorusMachine>(*TorusMachine::Create({7, 6, 5}, {true, true, false}));
  std::vector<NodeId> nodes(torus->num_nodes());
  std::iota(nodes.begin(), nodes.end(), 0);
  Allocation allocation = *Allocation::Create(torus, nodes, cores, /*dense_limit=*/0);
  GeneratorOptions gen;
  gen.kind = "random-geometric";
  gen.tasks = static_cast<int32_t>(allocation.num_slots()) - spare;
  gen.seed = graph_seed;
  TaskGraph graph = *GenerateGraph(gen);
  std::vector<SlotId> start =
      ShuffledMapping(graph.num_tasks(), allocation.num_slots(), start_seed);
  return {std::move(allocation), std::move(graph), std::move(start)};
}

// With all pairs tried, refine stops at a true 2-exchange local optimum: no
// exchange of two slots' occupants (tasks or empty) lowers the recomputed
// hop-bytes. Several cores per node, a fragmented allocation, empty slots.
TEST(RefineTest, ReachesLocalOptimumCheckedByBruteForce) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const Allocation allocation = FragmentedTorusAllocation({0, 3, 5, 9, 14, 17, 22, 23}, 3);
    const TaskGraph graph = RandomGraph(20, 0.25, 50, seed);  // 24 slots, 4 empty
    std::vector<SlotId> start = ShuffledMapping(20, allocation.num_slots(), seed);
    const HopBytes start_hb = BruteHopBytes(graph, allocation, start);
    Placement placement(graph, allocation, start);
    const RefineStats stats = RefinePlacement(placement, RefineOptions{}, NoStop());
    EXPECT_TRUE(stats.local_optimum);
    const std::vector<SlotId>& mapping = placement.slot_of_task();
    ASSERT_TRUE(ValidateMapping(allocation, graph.num_tasks(), mapping).ok());
    const HopBytes hb = BruteHopBytes(graph, allocation, mapping);
    EXPECT_EQ(placement.hop_bytes(), hb);
    EXPECT_LE(hb, start_hb);
    // Brute force: every exchange of two slots, applied to a copy.
    const auto improving = FirstImprovingExchange(graph, allocation, mapping);
    ASSERT_FALSE(improving.has_value())
        << "seed " << seed << ": exchanging slots " << improving->first << " and "
        << improving->second << " improves";
  }
}

// Neighbour-only candidates (the large-graph mode): hop-bytes never increase,
// stay exact, and the result does not depend on the thread count.
TEST(RefineTest, NeighbourModeImprovesExactlyAndIsThreadIndependent) {
  auto torus = std::make_shared<TorusMachine>(*TorusMachine::Create({6, 6, 6}, {true, true, true}));
  std::vector<NodeId> nodes;
  for (NodeId v = 0; v < 216; v += 2) nodes.push_back(v);  // every other node: fragmented
  const Allocation allocation = *Allocation::Create(torus, nodes, 4);  // 432 slots
  GeneratorOptions gen;
  gen.kind = "stencil3d-7";
  gen.dims = {8, 7, 7};  // 392 tasks: 40 slots stay empty
  const TaskGraph graph = *GenerateGraph(gen);
  RefineOptions options;
  options.all_pairs_slot_limit = 0;
  options.block_size = 64;
  const std::vector<SlotId> start = ShuffledMapping(graph.num_tasks(), allocation.num_slots(), 9);
  const HopBytes start_hb = BruteHopBytes(graph, allocation, start);
  std::vector<std::vector<SlotId>> results;
  // All 4 cores of a neighbour's node, then a window of 3 of them that moves.
  for (int threads : {1, 2, 2, 1, 2}) {
    options.slots_per_node = results.size() < 3 ? 8 : 3;
    tbb::task_arena arena(threads);
    arena.execute([&] {
      Placement placement(graph, allocation, start);
      RefinePlacement(placement, options, NoStop());
      EXPECT_EQ(placement.hop_bytes(), BruteHopBytes(graph, allocation, placement.slot_of_task()));
      EXPECT_LT(placement.hop_bytes(), start_hb / 2);
      results.push_back(placement.slot_of_task());
    });
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[1], results[2]);
  EXPECT_EQ(results[3], results[4]);
}

// The active set (the default) still ends at a true 2-exchange local optimum in
// all-pairs mode, on problems large enough for many active-set passes, and does
// less work than searching every task on every pass.
TEST(RefineTest, ActiveSetReachesBruteForceLocalOptimumWithLessWork) {
  auto torus =
      std::make_shared<TorusMachine>(*TorusMachine::Create({4, 4, 3}, {true, true, false}));
  std::vector<NodeId> nodes(torus->num_nodes());
  std::iota(nodes.begin(), nodes.end(), 0);
  const Allocation allocation = *Allocation::Create(torus, nodes, 2);  // 96 slots
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const TaskGraph graph = RandomGraph(90, 0.05, 20, seed);
    const std::vector<SlotId> start = ShuffledMapping(90, allocation.num_slots(), seed);
    RefineOptions full_options;
    full_options.active_set = false;
    Placement full(graph, allocation, start);
    const RefineStats full_stats = RefinePlacement(full, full_options, NoStop());
    Placement active(graph, allocation, start);
    const RefineStats stats = RefinePlacement(active, RefineOptions{}, NoStop());
    EXPECT_TRUE(full_stats.local_optimum);
    ASSERT_TRUE(stats.local_optimum);
    EXPECT_EQ(active.hop_bytes(), BruteHopBytes(graph, allocation, active.slot_of_task()));
    EXPECT_LT(stats.work, full_stats.work) << "seed " << seed;
    const auto improving = FirstImprovingExchange(graph, allocation, active.slot_of_task());
    ASSERT_FALSE(improving.has_value())
        << "seed " << seed << ": exchanging slots " << improving->first << " and "
        << improving->second << " improves";
  }
}

// Without the confirming pass the search stops where the active set empties: the
// same passes and mapping as the confirmed search up to that point (on this job
// the confirming pass finds nothing), one full pass less, and no claim of a local
// optimum.
TEST(RefineTest, WithoutConfirmationStopsWhereTheActiveSetEmpties) {
  const auto [allocation, graph, start] = RggOnSmallTorus(1, 10, 5, 2);  // 200 tasks
  RefineOptions options;
  options.all_pairs_slot_limit = 0;
  Placement confirmed(graph, allocation, start);
  const RefineStats confirmed_stats = RefinePlacement(confirmed, options, NoStop());
  options.confirm_local_optimum = false;
  Placement unconfirmed(graph, allocation, start);
  const RefineStats stats = RefinePlacement(unconfirmed, options, NoStop());
  ASSERT_TRUE(confirmed_stats.local_optimum);
  EXPECT_FALSE(stats.local_optimum);
  EXPECT_GT(stats.exchanges, 0);
  EXPECT_EQ(stats.full_passes, 1);
  EXPECT_EQ(confirmed_stats.full_passes, 2);
  EXPECT_EQ(stats.passes + 1, confirmed_stats.passes);
  EXPECT_EQ(stats.exchanges, confirmed_stats.exchanges);
  EXPECT_LT(stats.work, confirmed_stats.work);
  EXPECT_EQ(unconfirmed.slot_of_task(), confirmed.slot_of_task());
  EXPECT_EQ(unconfirmed.hop_bytes(), BruteHopBytes(graph, allocation, unconfirmed.slot_of_task()));
}

// A refinement of every task keeps each task's cost where it sits and reads the
// occupants' from it; given the same tasks as an explicit list it sums them. Both
// must choose the same exchanges: same mapping, passes, exchanges and work, in
// neighbour and all-pairs mode, with one and with several cores per node.
// Refines `start` of every task (each task's cost kept) and of the same tasks as an
// explicit list (costs summed), in neighbour mode (`all_pairs_limit` 0) or with
// every slot a candidate, and expects the same exchanges: same mapping, passes,
// exchanges and work, at least one exchange and exact hop-bytes.
void ExpectKeptAndSummedAgree(const Allocation& allocation, const TaskGraph& graph,
                              const std::vector<SlotId>& start, int64_t all_pairs_limit,
                              const std::string& where) {
  RefineOptions options;
  options.all_pairs_slot_limit = all_pairs_limit;
  Placement kept(graph, allocation, start);
  const RefineStats kept_stats = RefinePlacement(kept, options, NoStop());
  std::vector<TaskId> every(graph.num_tasks());
  std::iota(every.begin(), every.end(), 0);
  Placement summed(graph, allocation, start);
  const RefineStats summed_stats = RefinePlacement(summed, options, NoStop(), every);
  EXPECT_GT(kept_stats.exchanges, 0) << where;
  EXPECT_EQ(kept.slot_of_task(), summed.slot_of_task()) << where;
  EXPECT_EQ(kept_stats.passes, summed_stats.passes) << where;
  EXPECT_EQ(kept_stats.exchanges, summed_stats.exchanges) << where;
  EXPECT_EQ(kept_stats.work, summed_stats.work) << where;
  EXPECT_TRUE(kept_stats.local_optimum) << where;
  EXPECT_EQ(kept.hop_bytes(), BruteHopBytes(graph, allocation, kept.slot_of_task())) << where;
}

TEST(RefineTest, KeptCostsChooseTheSameExchangesAsSummedOnes) {
  for (int32_t cores : {1, 4}) {
    for (int64_t all_pairs_limit : {int64_t{0}, int64_t{1} << 20}) {
      const auto [allocation, graph, start] = RggOnSmallTorus(cores, 9, 7, 4);
      ExpectKeptAndSummedAgree(allocation, graph, start, all_pairs_limit,
                               absl::StrCat(cores, " cores, all-pairs limit ", all_pairs_limit));
    }
  }
}

// With one slot per node refine passes over candidates whose floor (from the
// weights and the machine's min_hops) cannot beat the best exchange: on a machine
// whose nearest nodes are 3 hops apart, weighted edges and empty nodes, the kept
// costs (floors on) and the summed ones (floors off) must still agree exactly.
TEST(RefineTest, FloorsOnOneSlotPerNodeChooseTheSameExchanges) {
  constexpr int32_t kNodes = 60;
  RandomStream random(11, 1);
  std::vector<int32_t> hops(kNodes * kNodes, 0);
  for (int32_t a = 0; a < kNodes; ++a) {
    for (int32_t b = a + 1; b < kNodes; ++b) {
      hops[a * kNodes + b] = hops[b * kNodes + a] = 3 + static_cast<int32_t>(random.Below(6));
    }
  }
  auto machine = std::make_shared<DistanceMatrixMachine>(
      *DistanceMatrixMachine::Create(kNodes, std::move(hops)));
  ASSERT_EQ(machine->min_hops(), 3);
  std::vector<NodeId> nodes(kNodes);
  std::iota(nodes.begin(), nodes.end(), 0);
  const Allocation allocation = *Allocation::Create(machine, nodes, 1);
  const TaskGraph graph = RandomGraph(52, 0.12, 9, 5);
  const std::vector<SlotId> start = ShuffledMapping(graph.num_tasks(), kNodes, 3);
  for (int64_t all_pairs_limit : {int64_t{0}, int64_t{1} << 20}) {
    ExpectKeptAndSummedAgree(allocation, graph, start, all_pairs_limit,
                             absl::StrCat("all-pairs limit ", all_pairs_limit));
  }
}

// Neighbour mode with the active set on a mid-size stencil: a confirmed local
// optimum (the last pass was full and found nothing), the same mapping on 1 and 2
// threads, and hop-bytes no worse than 2% above the every-task-every-pass search.
TEST(RefineTest, ActiveSetNeighbourModeMatchesFullPassesAndThreads) {
  RefineOptions options;
  options.all_pairs_slot_limit = 0;
  for (int32_t cores : {1, 4}) {
    // Not a structured binding: the lambda below captures them (clang before 16
    // cannot capture bindings).
    const RggCase job = RggOnSmallTorus(cores, 7, 3, 11);
    const Allocation& allocation = job.allocation;
    const TaskGraph& graph = job.graph;
    const std::vector<SlotId>& start = job.start;
    std::vector<std::vector<SlotId>> results;
    HopBytes active_hb = 0;
    for (int threads : {1, 2}) {
      tbb::task_arena arena(threads);
      arena.execute([&] {
        Placement placement(graph, allocation, start);
        const RefineStats stats = RefinePlacement(placement, options, NoStop());
        EXPECT_TRUE(stats.local_optimum);
        EXPECT_EQ(placement.hop_bytes(),
                  BruteHopBytes(graph, allocation, placement.slot_of_task()));
        active_hb = placement.hop_bytes();
        results.push_back(placement.slot_of_task());
      });
    }
    EXPECT_EQ(results[0], results[1]) << cores << " cores";
    RefineOptions full_options = options;
    full_options.active_set = false;
    Placement full(graph, allocation, start);
    RefinePlacement(full, full_options, NoStop());
    EXPECT_LE(active_hb, full.hop_bytes() + full.hop_bytes() / 50) << cores << " cores";
  }
}

// `only`: the first pass searches those tasks; the result stays exact, never
// worse, and a confirmed optimum means none of them has an improving exchange.
TEST(RefineTest, OnlyTasksStayExact) {
  const Allocation allocation = FragmentedTorusAllocation({0, 2, 3, 5, 8, 11, 13, 17, 19, 23}, 2);
  const TaskGraph graph = RandomGraph(18, 0.3, 30, 6);
  const std::vector<SlotId> start = ShuffledMapping(18, allocation.num_slots(), 6);
  Placement placement(graph, allocation, start);
  const HopBytes start_hb = placement.hop_bytes();
  const std::vector<TaskId> only = {3, 7, 11};
  const RefineStats stats = RefinePlacement(placement, RefineOptions{}, NoStop(), only);
  EXPECT_TRUE(stats.local_optimum);
  EXPECT_LE(placement.hop_bytes(), start_hb);
  EXPECT_EQ(placement.hop_bytes(), BruteHopBytes(graph, allocation, placement.slot_of_task()));
  // No exchange involving the slot of 3, 7 or 11 improves (all-pairs mode).
  for (TaskId t : only) {
    for (SlotId b = 0; b < allocation.num_slots(); ++b) {
      EXPECT_GE(placement.SwapDelta(placement.slot_of(t), b), 0) << "task " << t << " slot " << b;
    }
  }
}

TEST(RefineTest, MapperRefinesTheInitialMappingAndRejectsABadOne) {
  const Allocation allocation = FragmentedTorusAllocation({1, 2, 6, 7, 12, 13}, 2);
  const TaskGraph graph = RandomGraph(11, 0.4, 9, 4);
  const std::vector<SlotId> initial = ShuffledMapping(11, allocation.num_slots(), 2);
  const MapperOptions options;
  const StopCondition stop = NoStop();
  RefineMapper mapper;
  MapInput input{graph, allocation, options, stop};
  input.initial = &initial;
  absl::StatusOr<MapOutput> out = mapper.Map(input);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_LE(BruteHopBytes(graph, allocation, out->slot_of_task),
            BruteHopBytes(graph, allocation, initial));
  // Without an initial mapping it starts from its own.
  input.initial = nullptr;
  out = mapper.Map(input);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(ValidateMapping(allocation, graph.num_tasks(), out->slot_of_task).ok());
  const std::vector<SlotId> bad(11, 0);
  input.initial = &bad;
  EXPECT_FALSE(mapper.Map(input).ok());
}

TEST(RefineTest, OptionsValidate) {
  EXPECT_TRUE(RefineOptions{}.Validate().ok());
  RefineOptions options;
  options.max_passes = 0;
  EXPECT_FALSE(options.Validate().ok());
  options = {};
  options.block_size = 0;
  EXPECT_FALSE(options.Validate().ok());
}

}  // namespace
}  // namespace hopmap
