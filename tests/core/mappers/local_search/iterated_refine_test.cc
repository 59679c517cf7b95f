#include "core/mappers/local_search/iterated_refine.h"

#include <memory>
#include <numeric>

#include "absl/time/clock.h"
#include "core/graph/generators.h"
#include "core/mappers/local_search/refine.h"
#include "core/metrics/hop_bytes.h"
#include "core/search/placement.h"
#include "core/search/random_stream.h"
#include "core/topology/torus.h"
#include "gtest/gtest.h"
#include "tbb/task_arena.h"

namespace hopmap {
namespace {

// A random geometric graph on a fragmented torus allocation with empty slots, from a
// refined random start: the perturbation rounds must find more, never lose, keep the
// mapping valid, and give the same answer for any thread count.
TEST(IteratedRefineTest, ImprovesOnRefineAndRepeats) {
  auto torus =
      std::make_shared<TorusMachine>(*TorusMachine::Create({12, 10, 8}, {true, true, true}));
  std::vector<NodeId> nodes;
  for (NodeId n = 0; n < 960; n += 3) nodes.push_back(n);  // 320 nodes, 640 slots
  const Allocation allocation = *Allocation::Create(torus, nodes, 2);
  GeneratorOptions gen;
  gen.kind = "random-geometric";
  gen.tasks = 600;
  gen.seed = 3;
  const TaskGraph graph = *GenerateGraph(gen);
  std::vector<SlotId> start(allocation.num_slots());
  std::iota(start.begin(), start.end(), 0);
  RandomStream random(9, 0);
  random.Shuffle(std::span<SlotId>(start));
  start.resize(graph.num_tasks());
  const StopCondition never(absl::InfiniteFuture());
  Placement refined(graph, allocation, start);
  RefinePlacement(refined, RefineOptions{}, never);
  const std::vector<SlotId> local_optimum = refined.slot_of_task();

  auto run = [&](int threads) {
    tbb::task_arena arena(threads);
    std::vector<SlotId> out;
    arena.execute(
        [&] { out = PerturbAndRefine(graph, allocation, local_optimum, 300, 1e12, 5, never); });
    return out;
  };
  const std::vector<SlotId> one = run(1);
  ASSERT_TRUE(ValidateMapping(allocation, graph.num_tasks(), one).ok());
  EXPECT_LT(ComputeHopBytes(graph, allocation, one), refined.hop_bytes());
  EXPECT_EQ(run(2), one);
  // No rounds: the start comes back unchanged.
  EXPECT_EQ(PerturbAndRefine(graph, allocation, local_optimum, 0, 1e12, 5, never), local_optimum);
}

}  // namespace
}  // namespace hopmap
