// Every registered mapper gives the same mapping for the same seed and thread count:
// run after run, and when other solves run at the same time in the same process (the
// daemon's situation).
#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/graph/generators.h"
#include "core/mappers/mapper.h"
#include "core/mappers/portfolio/registry.h"
#include "core/solve/report.h"
#include "core/solve/solve_mapping.h"
#include "core/topology/torus.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

struct Problem {
  TaskGraph graph;
  Allocation allocation;
};

// A fragmented 2-core allocation with empty slots, and an irregular graph.
Problem MakeProblem() {
  auto machine =
      std::make_shared<TorusMachine>(*TorusMachine::Create({8, 6, 4}, {true, true, true}));
  std::vector<NodeId> nodes;
  for (NodeId n = 0; n < 192; n += 3) nodes.push_back(n);  // 64 nodes, not a box
  Allocation allocation = *Allocation::Create(machine, std::move(nodes), 2);
  GeneratorOptions gen;
  gen.kind = "random-geometric";
  gen.tasks = 120;  // 128 slots
  gen.seed = 11;
  return {*GenerateGraph(gen), std::move(allocation)};
}

// For the mappers that only take small graphs (exact): 12 tasks on 8 nodes of 2 cores.
Problem MakeSmallProblem() {
  auto machine = std::make_shared<TorusMachine>(*TorusMachine::Create({4, 4}, {true, true}));
  Allocation allocation = *Allocation::Create(machine, {0, 1, 2, 5, 6, 9, 10, 15}, 2);
  GeneratorOptions gen;
  gen.kind = "random-geometric";
  gen.tasks = 12;
  gen.seed = 3;
  return {*GenerateGraph(gen), std::move(allocation)};
}

// The problem a mapper is tried on: the big one unless it only takes small graphs.
const Problem& ProblemFor(const MapperInfo& info) {
  static const Problem big = MakeProblem();
  static const Problem small = MakeSmallProblem();
  return info.input == MapperInput::kSmallGraph ? small : big;
}

// Whether a mapper must map a random graph (grid constructions refuse one).
bool TakesRandomGraphs(const MapperInfo& info) {
  return info.input == MapperInput::kAnyGraph || info.input == MapperInput::kSmallGraph;
}

MapperOptions Options(int threads = 2) {
  MapperOptions options;
  options.seed = 5;
  options.threads = threads;
  // Iterative searches stop on this, not on the clock, so runs are comparable.
  options.iteration_limit = 4;
  options.time_limit_seconds = 120;
  return options;
}

std::vector<SlotId> Solve(const Problem& p, const std::string& algorithm, int threads = 2) {
  absl::StatusOr<MappingReport> report =
      SolveMapping(p.graph, p.allocation, algorithm, Options(threads));
  EXPECT_TRUE(report.ok()) << algorithm << ": " << report.status();
  return report.ok() ? report->slot_of_task : std::vector<SlotId>{};
}

TEST(DeterminismTest, EveryMapperRepeatsItselfAloneAndUnderConcurrency) {
  for (const MapperInfo& info : BuiltinMappers().mappers()) {
    const Problem& problem = ProblemFor(info);
    absl::StatusOr<MappingReport> probe =
        SolveMapping(problem.graph, problem.allocation, info.name, Options());
    // Grid constructions refuse a random graph (tested elsewhere); every other mapper
    // must map it: an error fails the test, it does not skip it.
    if (!TakesRandomGraphs(info)) {
      EXPECT_FALSE(probe.ok()) << info.name << " mapped a random graph";
      continue;
    }
    ASSERT_TRUE(probe.ok()) << info.name << ": " << probe.status();
    const std::vector<SlotId> first = probe->slot_of_task;
    EXPECT_EQ(Solve(problem, info.name), first) << info.name << ": second run differs";
    // Two solves at once in one process, as in the daemon.
    std::vector<SlotId> a, b;
    std::thread ta([&] { a = Solve(problem, info.name); });
    std::thread tb([&] { b = Solve(problem, info.name); });
    ta.join();
    tb.join();
    EXPECT_EQ(a, first) << info.name << ": concurrent run differs";
    EXPECT_EQ(b, first) << info.name << ": concurrent run differs";
  }
}

// Under iteration caps the answer is a function of the request and its seed: one
// thread or two give the same mapping (a daemon fills in its own thread count when a
// client sends 0, so two replicas may differ in threads). The problem is dense
// enough for GRASP's tabu chains and every search to run.
TEST(DeterminismTest, EveryMapperAnswersTheSameOnOneAndTwoThreads) {
  for (const MapperInfo& info : BuiltinMappers().mappers()) {
    if (!TakesRandomGraphs(info)) continue;
    const Problem& problem = ProblemFor(info);
    const std::vector<SlotId> two = Solve(problem, info.name, 2);
    ASSERT_FALSE(two.empty()) << info.name;
    EXPECT_EQ(Solve(problem, info.name, 1), two) << info.name << ": 1 thread differs from 2";
  }
}

}  // namespace
}  // namespace hopmap

namespace hopmap {
namespace {

// METIS draws from rand(); other code in the process (gRPC) calls rand() too. A thread
// calling srand()/rand() all the time must not change rec-bisect's mapping.
TEST(DeterminismTest, MetisIgnoresOtherRandCallers) {
  const Problem& problem = ProblemFor(*BuiltinMappers().Find("rec-bisect"));
  const std::vector<SlotId> quiet = Solve(problem, "rec-bisect");
  std::atomic<bool> done{false};
  std::thread noise([&] {
    unsigned int seed = 1;
    while (!done.load()) {
      srand(seed++);
      for (int i = 0; i < 64; ++i) (void)rand();
    }
  });
  for (int run = 0; run < 20; ++run) {
    EXPECT_EQ(Solve(problem, "rec-bisect"), quiet) << "run " << run;
  }
  done.store(true);
  noise.join();
}

}  // namespace
}  // namespace hopmap
