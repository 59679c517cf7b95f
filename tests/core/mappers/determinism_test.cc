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
#include "core/mappers/solve.h"
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

MapperOptions Options() {
  MapperOptions options;
  options.seed = 5;
  options.threads = 2;
  // Iterative searches stop on this, not on the clock, so runs are comparable.
  options.iteration_limit = 4;
  options.time_limit_seconds = 120;
  return options;
}

std::vector<SlotId> Solve(const Problem& p, const std::string& algorithm) {
  absl::StatusOr<MappingReport> report = SolveMapping(p.graph, p.allocation, algorithm, Options());
  EXPECT_TRUE(report.ok()) << algorithm << ": " << report.status();
  return report.ok() ? report->slot_of_task : std::vector<SlotId>{};
}

TEST(DeterminismTest, EveryMapperRepeatsItselfAloneAndUnderConcurrency) {
  const Problem problem = MakeProblem();
  for (const MapperInfo& info : BuiltinMappers().mappers()) {
    // The 2D-mesh constructions refuse a random graph; that refusal is tested elsewhere.
    absl::StatusOr<MappingReport> probe =
        SolveMapping(problem.graph, problem.allocation, info.name, Options());
    if (!probe.ok()) continue;
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

}  // namespace
}  // namespace hopmap

namespace hopmap {
namespace {

// METIS draws from rand(); other code in the process (gRPC) calls rand() too. A thread
// calling srand()/rand() all the time must not change rec-bisect's mapping.
TEST(DeterminismTest, MetisIgnoresOtherRandCallers) {
  const Problem problem = MakeProblem();
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
