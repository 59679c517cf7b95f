#include "core/mappers/local_search/grasp.h"

#include <vector>

#include "absl/time/clock.h"
#include "core/mappers/mapper.h"
#include "core/mappers/portfolio/registry.h"
#include "gtest/gtest.h"
#include "tbb/task_arena.h"
#include "tests/core/mappers/search_test_util.h"

namespace hopmap {
namespace {

using ::hopmap::testing::BruteForceOptimum;
using ::hopmap::testing::BruteHopBytes;
using ::hopmap::testing::FirstImprovingExchange;
using ::hopmap::testing::FragmentedTorusAllocation;
using ::hopmap::testing::RandomDistanceAllocation;
using ::hopmap::testing::RandomGraph;

// Caps that end both phases long before the time limit, so runs are reproducible.
GraspOptions CappedOptions() {
  GraspOptions options;
  options.max_iterations = 16;
  options.tabu_iterations = 300;
  return options;
}

std::vector<SlotId> RunGrasp(const GraspOptions& grasp, const TaskGraph& graph,
                             const Allocation& allocation, uint64_t seed, int threads = 2,
                             const std::vector<SlotId>* initial = nullptr) {
  MapperOptions options;
  options.seed = seed;
  options.time_limit_seconds = 60;
  const StopCondition stop(absl::Now() + absl::Seconds(60));
  std::vector<SlotId> result;
  tbb::task_arena arena(threads);
  arena.execute([&] {
    MapInput input{graph, allocation, options, stop};
    input.initial = initial;
    absl::StatusOr<MapOutput> out = GraspMapper(grasp).Map(input);
    EXPECT_TRUE(out.ok()) << out.status();
    if (out.ok()) result = out->slot_of_task;
  });
  EXPECT_TRUE(ValidateMapping(allocation, graph.num_tasks(), result).ok());
  return result;
}

// Dense QAPs (8 nodes at random distances, dense traffic): the brute-force optimum.
TEST(GraspTest, FindsBruteForceOptimumOnRandomQaps) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const Allocation allocation = RandomDistanceAllocation(8, 9, seed);
    const TaskGraph graph = RandomGraph(8, 0.8, 20, seed + 100);
    const HopBytes optimum = BruteForceOptimum(graph, allocation);
    const std::vector<SlotId> mapping = RunGrasp(CappedOptions(), graph, allocation, seed);
    EXPECT_EQ(BruteHopBytes(graph, allocation, mapping), optimum) << "seed " << seed;
  }
}

// Several cores per node (tasks on one node 0 hops apart), a fragmented
// allocation and empty slots: still the optimum, also with GRASP alone.
TEST(GraspTest, FindsBruteForceOptimumWithCoresAndEmptySlots) {
  const Allocation allocation = FragmentedTorusAllocation({0, 7, 13, 22}, 2);  // 8 slots
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const TaskGraph graph = RandomGraph(7, 0.5, 30, seed);  // 1 slot empty
    const HopBytes optimum = BruteForceOptimum(graph, allocation);
    EXPECT_EQ(BruteHopBytes(graph, allocation, RunGrasp(CappedOptions(), graph, allocation, seed)),
              optimum)
        << "seed " << seed;
    GraspOptions plain = CappedOptions();
    plain.tabu_iterations = -1;
    plain.max_iterations = 64;
    EXPECT_EQ(BruteHopBytes(graph, allocation, RunGrasp(plain, graph, allocation, seed)), optimum)
        << "seed " << seed << " without tabu";
  }
}

// One GRASP iteration ends in a 2-exchange local optimum (checked by exchanging
// every pair of slots and recomputing): the incrementally updated gains are exact.
TEST(GraspTest, GraspIterationEndsInTwoExchangeLocalOptimum) {
  const Allocation allocation = FragmentedTorusAllocation({0, 4, 7, 10, 13, 19, 22}, 3);
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const TaskGraph graph = RandomGraph(18, 0.5, 40, seed);  // 21 slots, 3 empty
    GraspOptions options;
    options.max_iterations = 1;
    options.tabu_iterations = -1;
    const std::vector<SlotId> mapping = RunGrasp(options, graph, allocation, seed);
    const auto improving = FirstImprovingExchange(graph, allocation, mapping);
    ASSERT_FALSE(improving.has_value())
        << "seed " << seed << ": exchanging slots " << improving->first << " and "
        << improving->second << " improves";
  }
}

// Same seed and thread count: the same mapping, dense and sparse paths.
TEST(GraspTest, DeterministicForSeedAndThreads) {
  const Allocation qap = RandomDistanceAllocation(30, 20, 5);
  const TaskGraph dense_graph = RandomGraph(30, 0.7, 50, 6);
  GraspOptions options = CappedOptions();
  options.tabu_iterations = 2000;
  EXPECT_EQ(RunGrasp(options, dense_graph, qap, 7), RunGrasp(options, dense_graph, qap, 7));

  const Allocation torus = FragmentedTorusAllocation({0, 2, 3, 5, 8, 9, 11, 15, 16, 20, 21}, 4);
  const TaskGraph sparse_graph = RandomGraph(40, 0.1, 10, 8);
  GraspOptions sparse = CappedOptions();
  sparse.dense_slot_limit = 0;
  const std::vector<SlotId> a = RunGrasp(sparse, sparse_graph, torus, 3);
  EXPECT_EQ(a, RunGrasp(sparse, sparse_graph, torus, 3));
  // A start given as input.initial is never beaten by a worse result.
  const HopBytes from_a =
      BruteHopBytes(sparse_graph, torus, RunGrasp(sparse, sparse_graph, torus, 11, 2, &a));
  EXPECT_LE(from_a, BruteHopBytes(sparse_graph, torus, a));
}

// MapperOptions::iteration_limit alone (default GraspOptions, so tabu search
// would otherwise run to the deadline) gives the same answer twice, and the
// registered mapper is this one.
TEST(GraspTest, IterationLimitIsReproducible) {
  const Allocation qap = RandomDistanceAllocation(20, 20, 9);
  const TaskGraph graph = RandomGraph(20, 0.6, 30, 10);
  auto run = [&] {
    MapperOptions options;
    options.seed = 4;
    options.iteration_limit = 8;
    const StopCondition stop(absl::Now() + absl::Seconds(60));
    std::vector<SlotId> result;
    tbb::task_arena arena(2);
    arena.execute([&] {
      std::unique_ptr<Mapper> mapper = *BuiltinMappers().Create("grasp");
      absl::StatusOr<MapOutput> out = mapper->Map({graph, qap, options, stop});
      ASSERT_TRUE(out.ok()) << out.status();
      result = out->slot_of_task;
    });
    return result;
  };
  const std::vector<SlotId> first = run();
  EXPECT_EQ(first, run());
  EXPECT_TRUE(ValidateMapping(qap, graph.num_tasks(), first).ok());
}

// Nothing to improve (no traffic, or no tasks): an answer at once, not at the
// deadline (the test would take 60 s otherwise), on both paths.
TEST(GraspTest, TrivialProblemsEndEarly) {
  const Allocation allocation = FragmentedTorusAllocation({0, 7, 13, 22}, 2);
  for (int64_t dense_limit : {512, 0}) {
    GraspOptions options;
    options.dense_slot_limit = dense_limit;
    const TaskGraph no_traffic = RandomGraph(5, 0.0, 1, 1);
    EXPECT_EQ(RunGrasp(options, no_traffic, allocation, 1).size(), 5u);
    const TaskGraph no_tasks = RandomGraph(0, 0.0, 1, 1);
    EXPECT_TRUE(RunGrasp(options, no_tasks, allocation, 1).empty());
  }
}

TEST(GraspTest, OptionsValidate) {
  EXPECT_TRUE(GraspOptions{}.Validate().ok());
  GraspOptions options;
  options.alpha = 0;
  EXPECT_FALSE(options.Validate().ok());
  options = {};
  options.tabu_iterations = -2;
  EXPECT_FALSE(options.Validate().ok());
  options = {};
  options.round_size = 0;
  EXPECT_FALSE(options.Validate().ok());
}

}  // namespace
}  // namespace hopmap
