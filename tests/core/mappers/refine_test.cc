#include "core/mappers/refine.h"

#include <numeric>
#include <vector>

#include "absl/time/clock.h"
#include "core/graph/generators.h"
#include "core/metrics/hop_bytes.h"
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
