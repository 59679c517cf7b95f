// hybrid at scale (issue 6): node-sized task groups, the bounded final search, the
// time limit, determinism across thread counts.
#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "core/graph/generators.h"
#include "core/mappers/local_search/hybrid.h"
#include "core/topology/torus.h"
#include "gtest/gtest.h"
#include "tbb/task_arena.h"
#include "tests/core/mappers/search_test_util.h"

namespace hopmap {
namespace {

using ::hopmap::testing::BruteHopBytes;
using ::hopmap::testing::ExpectValidMapping;
using ::hopmap::testing::FragmentedTorusAllocation;
using ::hopmap::testing::Generate;
using ::hopmap::testing::InOrderHopBytes;
using ::hopmap::testing::RandomGraph;
using ::hopmap::testing::WholeTorus;

// Small parts and few parts per level, so small problems take every path: several
// levels, hierarchical grouping (more groups than parts per level), leaf boundaries.
HybridOptions SmallParts(bool group_cores_first) {
  HybridOptions options;
  options.part_slots = 16;
  options.max_parts_per_level = 4;
  options.group_cores_first = group_cores_first;
  return options;
}

struct HybridRun {
  std::vector<SlotId> mapping;
  std::string variant;
  std::vector<Statistic> stats;
};

HybridRun MapWith(const HybridOptions& options, const TaskGraph& graph,
                  const Allocation& allocation, int threads,
                  absl::Duration budget = absl::Seconds(120), int64_t iteration_limit = 0) {
  MapperOptions mapper_options;
  mapper_options.seed = 11;
  mapper_options.threads = threads;
  mapper_options.iteration_limit = iteration_limit;
  const StopCondition stop(absl::Now() + budget);
  HybridRun run;
  tbb::task_arena arena(threads);
  arena.execute([&] {
    absl::StatusOr<MapOutput> out =
        HybridMapper(options).Map(MapInput{graph, allocation, mapper_options, stop});
    EXPECT_TRUE(out.ok()) << out.status();
    if (out.ok()) {
      run.mapping = std::move(out->slot_of_task);
      run.variant = std::move(out->variant);
      run.stats = std::move(out->stats);
    }
  });
  return run;
}

TEST(HybridScaleTest, ValidateRejectsBadBudgets) {
  HybridOptions options;
  options.refine_work_per_task = -1;
  EXPECT_FALSE(options.Validate().ok());
  options = HybridOptions();
  options.parts_time_share = 0;
  EXPECT_FALSE(options.Validate().ok());
  options.parts_time_share = 1.5;
  EXPECT_FALSE(options.Validate().ok());
}

// 180 tasks in 60 groups of 3 (more than 4 groups per level: the grouping recurses)
// onto 64 nodes x 3 cores; each node's group then shares its node.
TEST(HybridScaleTest, GroupsByNodeThroughSeveralLevelsValidAndBetterThanInOrder) {
  const TaskGraph graph = Generate("stencil3d-7", {6, 6, 5});
  const Allocation allocation = WholeTorus({4, 4, 4}, 3);
  const HybridRun run = MapWith(SmallParts(true), graph, allocation, 2);
  ExpectValidMapping(allocation, graph, run.mapping);
  EXPECT_NE(run.variant.find("grouped by 3"), std::string::npos) << run.variant;
  EXPECT_LT(BruteHopBytes(graph, allocation, run.mapping), InOrderHopBytes(graph, allocation));
}

// Task counts that leave a partial group, fewer tasks than slots, fragmented nodes.
TEST(HybridScaleTest, ValidWithPartialGroupsOnFragmentedAllocation) {
  const Allocation allocation =
      FragmentedTorusAllocation({0, 2, 3, 5, 7, 8, 11, 13, 14, 17, 19, 20, 22, 23}, 4);  // 56
  for (const TaskId n : {5, 37, 53, 56}) {
    const TaskGraph graph = RandomGraph(n, 0.15, 9, 3 + n);
    for (const bool group : {true, false}) {
      HybridOptions options = SmallParts(group);
      options.part_slots = 8;
      const HybridRun run = MapWith(options, graph, allocation, 2);
      ExpectValidMapping(allocation, graph, run.mapping);
      if (group && n > 4) {
        EXPECT_NE(run.variant.find("grouped by 4"), std::string::npos) << run.variant;
      }
    }
  }
}

TEST(HybridScaleTest, SameMappingOnOneAndTwoThreadsWithAndWithoutGrouping) {
  const TaskGraph graph = Generate("random-geometric", {}, 700);
  for (const int32_t cores : {1, 4}) {
    const Allocation allocation = WholeTorus({8, 8, cores == 1 ? 12 : 4}, cores);
    const HybridOptions options = SmallParts(true);
    const HybridRun one = MapWith(options, graph, allocation, 1, absl::Seconds(120), 3);
    const HybridRun two = MapWith(options, graph, allocation, 2, absl::Seconds(120), 3);
    const HybridRun again = MapWith(options, graph, allocation, 2, absl::Seconds(120), 3);
    ExpectValidMapping(allocation, graph, one.mapping);
    EXPECT_EQ(one.mapping, two.mapping) << cores << " cores";
    EXPECT_EQ(two.mapping, again.mapping) << cores << " cores";
  }
}

// The work cap ends the final search (the variant says so), deterministically, and
// never makes the mapping worse than the search without it... only shorter.
TEST(HybridScaleTest, WorkCapEndsTheFinalSearchDeterministically) {
  const TaskGraph graph = Generate("stencil2d-5", {24, 24});
  const Allocation allocation = WholeTorus({8, 8, 9}, 1);
  HybridOptions capped = SmallParts(false);
  capped.refine_work_per_task = 1;
  const HybridRun a = MapWith(capped, graph, allocation, 2);
  const HybridRun b = MapWith(capped, graph, allocation, 2);
  ExpectValidMapping(allocation, graph, a.mapping);
  EXPECT_EQ(a.mapping, b.mapping);
  EXPECT_EQ(FindStatistic(a.stats, "boundary_work_cap"), 1);
  HybridOptions uncapped = capped;
  uncapped.refine_work_per_task = 0;
  const HybridRun c = MapWith(uncapped, graph, allocation, 2);
  EXPECT_EQ(FindStatistic(c.stats, "boundary_work_cap"), 0);
  EXPECT_LE(BruteHopBytes(graph, allocation, c.mapping),
            BruteHopBytes(graph, allocation, a.mapping));
}

// The final search from the leaf boundary only, or from every task: both valid;
// searching every task can only find more (the same passes, a superset of tasks)...
// not guaranteed pass for pass, so only validity and a sanity bound are checked.
TEST(HybridScaleTest, BoundaryOnlyAndFullFinalSearchValid) {
  const TaskGraph graph = Generate("random-geometric", {}, 900);
  const Allocation allocation = WholeTorus({8, 8, 4}, 4);
  for (const bool boundary : {true, false}) {
    HybridOptions options = SmallParts(true);
    options.refine_boundary_only = boundary;
    const HybridRun run = MapWith(options, graph, allocation, 2);
    ExpectValidMapping(allocation, graph, run.mapping);
    EXPECT_LT(BruteHopBytes(graph, allocation, run.mapping), InOrderHopBytes(graph, allocation));
  }
}

// A time limit that fires during the solve (a few ms into 20000 tasks): a valid
// mapping comes back. Which stage the limit hits depends on the machine's speed.
TEST(HybridScaleTest, ValidWhenTheLimitFiresEarly) {
  const TaskGraph graph = Generate("random-geometric", {}, 20000);
  for (const int32_t cores : {1, 4}) {
    const Allocation allocation = WholeTorus({32, 32, 20}, cores);
    for (const absl::Duration budget : {absl::Milliseconds(1), absl::Milliseconds(30)}) {
      const HybridRun run = MapWith(HybridOptions(), graph, allocation, 2, budget);
      ExpectValidMapping(allocation, graph, run.mapping);
    }
  }
}

}  // namespace
}  // namespace hopmap
