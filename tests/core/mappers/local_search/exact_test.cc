// The exact mapper against brute force, and its refusals.
#include "core/mappers/local_search/exact.h"

#include <functional>
#include <limits>
#include <memory>

#include "core/graph/task_graph.h"
#include "core/metrics/hop_bytes.h"
#include "core/search/random_stream.h"
#include "core/topology/fattree.h"
#include "core/topology/torus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tbb/task_arena.h"

namespace hopmap {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<const Machine> MakeFatTree(std::vector<int32_t> arities) {
  return std::make_shared<FatTreeMachine>(*FatTreeMachine::Create(std::move(arities)));
}

std::shared_ptr<const Machine> MakeTorus(std::vector<int32_t> dims, bool wrap) {
  std::vector<bool> w(dims.size(), wrap);
  return std::make_shared<TorusMachine>(*TorusMachine::Create(std::move(dims), std::move(w)));
}

// Every placement, by plain enumeration of slots (no symmetry used, so the test
// does not share the mapper's assumptions).
HopBytes BruteForceOptimum(const TaskGraph& g, const Allocation& alloc) {
  const TaskId n = g.num_tasks();
  std::vector<SlotId> slot_of(n, -1);
  std::vector<char> used(alloc.num_slots(), 0);
  HopBytes best = std::numeric_limits<HopBytes>::max();
  std::function<void(TaskId)> go = [&](TaskId t) {
    if (t == n) {
      best = std::min(best, ComputeHopBytes(g, alloc, slot_of));
      return;
    }
    for (SlotId s = 0; s < alloc.num_slots(); ++s) {
      if (used[s]) continue;
      used[s] = 1;
      slot_of[t] = s;
      go(t + 1);
      used[s] = 0;
    }
  };
  go(0);
  return best;
}

TaskGraph RandomGraph(TaskId n, RandomStream& random, int density_in_3) {
  TaskGraphBuilder b(n);
  for (TaskId u = 0; u < n; ++u) {
    for (TaskId v = u + 1; v < n; ++v) {
      if (static_cast<int>(random.Below(3)) < density_in_3) {
        EXPECT_TRUE(b.AddTraffic(u, v, 1 + random.Below(50)).ok());
      }
    }
  }
  return *std::move(b).Build();
}

absl::StatusOr<MapOutput> RunExact(const TaskGraph& g, const Allocation& alloc, int threads,
                                   ExactOptions exact = {}, double seconds = 60) {
  MapperOptions options;
  options.time_limit_seconds = seconds;
  options.threads = threads;
  const StopCondition stop(absl::Now() + absl::Seconds(seconds));
  const MapInput input{g, alloc, options, stop};
  tbb::task_arena arena(threads);
  return arena.execute([&] { return ExactMapper(exact).Map(input); });
}

TEST(ExactMapperTest, AgreesWithBruteForce) {
  struct Case {
    std::shared_ptr<const Machine> machine;
    std::vector<NodeId> nodes;
    int32_t cores;
    TaskId tasks;
  };
  const std::vector<Case> cases = {
      {MakeTorus({3, 3}, true), {0, 1, 2, 3, 4, 5, 6}, 1, 7},   // full
      {MakeTorus({4, 4}, false), {0, 5, 10, 15, 3, 12}, 1, 5},  // scattered, an empty slot
      {MakeTorus({8}, true), {7, 0, 3, 4}, 2, 7},               // several cores, an empty slot
      {MakeTorus({2, 2, 2}, true), {0, 3, 5, 6}, 2, 6},         // several cores, 2 empty slots
      {MakeTorus({6}, false), {5, 1, 3}, 3, 7},                 // three cores per node
      // Fat trees: nodes under one leaf switch are twins (the search tries one empty
      // twin only), with empty nodes and several cores.
      {MakeFatTree({2, 2, 3}), {0, 1, 2, 4, 6, 7, 9, 11}, 1, 6},
      {MakeFatTree({2, 4}), {0, 1, 2, 5}, 2, 7},
  };
  for (size_t c = 0; c < cases.size(); ++c) {
    for (uint64_t seed = 0; seed < 4; ++seed) {
      SCOPED_TRACE(testing::Message() << "case " << c << " seed " << seed);
      RandomStream random(seed, c);
      TaskGraph g = RandomGraph(cases[c].tasks, random, 1 + static_cast<int>(seed % 3));
      auto alloc = *Allocation::Create(cases[c].machine, cases[c].nodes, cases[c].cores);
      const HopBytes optimum = BruteForceOptimum(g, alloc);
      // With and without the local search's incumbent: without it, the branch and
      // bound alone has to find the optimum.
      for (bool local_search : {true, false}) {
        absl::StatusOr<MapOutput> out = RunExact(g, alloc, 2, {.local_search = local_search});
        ASSERT_TRUE(out.ok()) << out.status();
        ASSERT_TRUE(ValidateMapping(alloc, g.num_tasks(), out->slot_of_task).ok());
        EXPECT_EQ(out->variant, "proven");
        EXPECT_EQ(ComputeHopBytes(g, alloc, out->slot_of_task), optimum) << local_search;
      }
    }
  }
}

TEST(ExactMapperTest, SameMappingForAnyThreadCount) {
  RandomStream random(7, 0);
  TaskGraph g = RandomGraph(10, random, 2);
  auto alloc = *Allocation::Create(MakeTorus({4, 4}, true), {0, 1, 2, 4, 5, 6, 8, 9, 10, 15}, 1);
  // Without the local search, so the parallel subtrees find the optimum themselves.
  const ExactOptions no_local_search{.local_search = false};
  absl::StatusOr<MapOutput> one = RunExact(g, alloc, 1, no_local_search);
  absl::StatusOr<MapOutput> two = RunExact(g, alloc, 2, no_local_search);
  absl::StatusOr<MapOutput> four = RunExact(g, alloc, 4, no_local_search);
  ASSERT_TRUE(one.ok() && two.ok() && four.ok());
  EXPECT_EQ(one->variant, "proven");
  EXPECT_EQ(one->slot_of_task, two->slot_of_task);
  EXPECT_EQ(one->slot_of_task, four->slot_of_task);
}

TEST(ExactMapperTest, RefusesAboveItsLimits) {
  TaskGraphBuilder b(kExactMaxTasks + 1);
  ASSERT_TRUE(b.AddTraffic(0, 1, 1).ok());
  TaskGraph big = *std::move(b).Build();
  auto alloc = *Allocation::WholeMachine(MakeTorus({8, 8}, true));
  absl::StatusOr<MapOutput> out = RunExact(big, alloc, 1);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(out.status().message(), HasSubstr("21 tasks is above the 20"));

  TaskGraphBuilder small(2);
  ASSERT_TRUE(small.AddTraffic(0, 1, 1).ok());
  TaskGraph g = *std::move(small).Build();
  auto many_slots = *Allocation::WholeMachine(MakeTorus({16, 17}, true));
  out = RunExact(g, many_slots, 1);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(out.status().message(), HasSubstr("272 slots is above the 256"));
}

TEST(ExactMapperTest, ReturnsIncumbentWhenTheBudgetEnds) {
  // A budget already spent: the search stops at once with a valid mapping.
  RandomStream random(3, 0);
  TaskGraph g = RandomGraph(14, random, 2);
  auto alloc = *Allocation::WholeMachine(MakeTorus({4, 4}, true));
  MapperOptions options;
  const StopCondition stop(absl::Now() - absl::Seconds(1));
  const MapInput input{g, alloc, options, stop};
  absl::StatusOr<MapOutput> out = ExactMapper().Map(input);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(ValidateMapping(alloc, g.num_tasks(), out->slot_of_task).ok());
  EXPECT_EQ(out->variant, "not proven");
}

}  // namespace
}  // namespace hopmap
