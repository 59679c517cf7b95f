#include "core/mappers/local_search/anneal.h"

#include <atomic>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "core/graph/generators.h"
#include "core/mappers/local_search/refine.h"
#include "core/metrics/hop_bytes.h"
#include "core/search/placement.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tbb/task_arena.h"
#include "tests/core/mappers/search_test_util.h"

namespace hopmap {
namespace {

using ::hopmap::testing::ExpectValidMapping;
using ::hopmap::testing::FragmentedTorusAllocation;
using ::hopmap::testing::Generate;
using ::hopmap::testing::RandomGraph;
using ::hopmap::testing::WholeTorus;

StopCondition NoStop() { return StopCondition(absl::InfiniteFuture()); }

// A start refine cannot improve: a 2-exchange local optimum (in its neighbour mode).
std::vector<SlotId> RefinedStart(const TaskGraph& graph, const Allocation& allocation) {
  Placement placement(graph, allocation, RefineStartMapping(graph, allocation));
  RefinePlacement(placement, RefineOptions{}, NoStop());
  return std::move(placement).Release();
}

// From a refined start on a random geometric graph, annealing lowers hop-bytes
// (uphill exchanges let it leave refine's local optimum), the reported best is the
// returned mapping's, and the same seed gives the same mapping on 1 and 2 threads.
TEST(AnnealTest, LeavesRefinesLocalOptimumAndRepeatsOnAnyThreadCount) {
  const TaskGraph graph = Generate("random-geometric", {}, 1024);
  const Allocation allocation = WholeTorus({8, 8, 16}, 1);
  const std::vector<SlotId> start = RefinedStart(graph, allocation);
  const HopBytes start_hb = ComputeHopBytes(graph, allocation, start);
  AnnealOptions options;
  options.moves_per_task = 500;
  AnnealStats stats;
  std::vector<SlotId> one_thread;
  tbb::task_arena(1).execute([&] {
    one_thread = Anneal(graph, allocation, start, options, 7, NoStop(), nullptr, &stats);
  });
  ExpectValidMapping(allocation, graph, one_thread);
  const HopBytes hb = ComputeHopBytes(graph, allocation, one_thread);
  EXPECT_LT(hb, start_hb * 0.98) << "from " << start_hb;
  EXPECT_EQ(stats.best_hop_bytes, hb);
  EXPECT_EQ(stats.moves, 2 * 500 * 1024);
  EXPECT_FALSE(stats.stopped_early);
  EXPECT_FALSE(stats.hurried);
  std::vector<SlotId> two_threads;
  tbb::task_arena(2).execute(
      [&] { two_threads = Anneal(graph, allocation, start, options, 7, NoStop()); });
  EXPECT_EQ(two_threads, one_thread);
}

// A temperature so high that almost every exchange is taken: the chain wanders far
// from its best, the journal outgrows the task count and the best is copied out;
// what comes back must still be the best visited, better than the (reversed
// in-order) start. Several cores per node and empty slots (exchanges with nobody).
TEST(AnnealTest, HotChainReturnsTheBestItVisited) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const Allocation allocation = FragmentedTorusAllocation({0, 3, 5, 9, 14, 17, 22, 23}, 3);
    const TaskGraph graph = RandomGraph(20, 0.25, 50, seed);  // 24 slots, 4 empty
    std::vector<SlotId> start(20);
    for (TaskId t = 0; t < 20; ++t) start[t] = (t * 7) % 24;
    AnnealOptions options;
    options.moves_per_task = 2000;  // 40,000 moves per chain, the journal holds 20
    options.start_temperature = 1000;
    options.cooling_ratio = 1;
    AnnealStats stats;
    const std::vector<SlotId> out =
        Anneal(graph, allocation, start, options, seed, NoStop(), nullptr, &stats);
    ExpectValidMapping(allocation, graph, out);
    const HopBytes hb = ComputeHopBytes(graph, allocation, out);
    EXPECT_EQ(stats.best_hop_bytes, hb);
    EXPECT_LT(hb, ComputeHopBytes(graph, allocation, start));
    EXPECT_GT(stats.accepted, stats.moves / 2) << "not hot enough to exercise the copy";
  }
}

// A cancelled solve returns the start at once.
// A schedule far longer than the deadline allows cools over the moves the time left
// affords (at the measured rate), so the chain still ends cold and improves on refine;
// cut at its start temperature it would return little better than its start.
TEST(AnnealTest, CoolsFasterToMeetTheDeadline) {
  const TaskGraph graph = Generate("random-geometric", {}, 1024);
  const Allocation allocation = WholeTorus({8, 8, 16}, 1);
  const std::vector<SlotId> start = RefinedStart(graph, allocation);
  const HopBytes start_hb = ComputeHopBytes(graph, allocation, start);
  AnnealOptions options;
  options.chains = 1;
  options.moves_per_task = 10'000'000;  // hours of moves
  AnnealStats stats;
  const std::vector<SlotId> annealed =
      Anneal(graph, allocation, start, options, 3, StopCondition(absl::Now() + absl::Seconds(1)),
             nullptr, &stats);
  ExpectValidMapping(allocation, graph, annealed);
  EXPECT_TRUE(stats.hurried);
  EXPECT_LT(stats.moves, options.moves_per_task * 1024);
  EXPECT_LT(ComputeHopBytes(graph, allocation, annealed), start_hb * 0.99) << "from " << start_hb;
}

TEST(AnnealTest, StopsWhenCancelled) {
  const TaskGraph graph = Generate("random-geometric", {}, 512);
  const Allocation allocation = WholeTorus({8, 8, 8}, 1);
  const std::vector<SlotId> start = RefinedStart(graph, allocation);
  std::atomic<bool> cancelled{true};
  AnnealOptions options;
  options.moves_per_task = 1000000;
  AnnealStats stats;
  const std::vector<SlotId> out =
      Anneal(graph, allocation, start, options, 1,
             StopCondition(absl::InfiniteFuture(), &cancelled), nullptr, &stats);
  EXPECT_EQ(out, start);
  EXPECT_TRUE(stats.stopped_early);
  EXPECT_EQ(stats.moves, 0);
}

TEST(AnnealTest, OptionsAreValidated) {
  EXPECT_TRUE(AnnealOptions{}.Validate().ok());
  AnnealOptions bad;
  bad.moves_per_task = 0;
  EXPECT_THAT(std::string(bad.Validate().message()), ::testing::HasSubstr("moves_per_task"));
  bad = AnnealOptions{};
  bad.chains = 0;
  EXPECT_THAT(std::string(bad.Validate().message()), ::testing::HasSubstr("chains"));
  bad = AnnealOptions{};
  bad.start_temperature = 0;
  EXPECT_THAT(std::string(bad.Validate().message()), ::testing::HasSubstr("start_temperature"));
  bad = AnnealOptions{};
  bad.cooling_ratio = 0.5;
  EXPECT_THAT(std::string(bad.Validate().message()), ::testing::HasSubstr("cooling_ratio"));
}

// The mapper: refuses an invalid initial mapping by name; without one, starts from
// refine's start; --iterations is the moves per task.
TEST(AnnealTest, MapperChecksTheInitialMapping) {
  const TaskGraph graph = Generate("stencil2d-5", {4, 4});
  const Allocation allocation = WholeTorus({4, 4}, 1);
  MapperOptions options;
  options.iteration_limit = 10;
  std::vector<SlotId> twice(16, 0);
  const MapInput bad{graph,   allocation, options, NoStop(), /*on_progress=*/nullptr,
                     nullptr, &twice};
  const absl::StatusOr<MapOutput> refused = AnnealMapper().Map(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.status().message()),
              ::testing::HasSubstr("anneal: the initial mapping is invalid"));
  const MapInput plain{graph, allocation, options, NoStop()};
  const absl::StatusOr<MapOutput> out = AnnealMapper().Map(plain);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectValidMapping(allocation, graph, out->slot_of_task);
  EXPECT_EQ(FindStatistic(out->stats, "moves"), 320);  // 2 chains x 10 x 16
}

}  // namespace
}  // namespace hopmap
