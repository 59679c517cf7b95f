#include "core/mappers/placement.h"

#include <memory>
#include <numeric>

#include "core/graph/generators.h"
#include "core/mappers/random_stream.h"
#include "core/metrics/hop_bytes.h"
#include "core/topology/torus.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

// Every exchange, of two tasks, a task and an empty slot, two empty slots, or two
// tasks of one node, changes hop-bytes by exactly SwapDelta.
TEST(PlacementTest, SwapDeltaMatchesRecomputedHopBytes) {
  auto torus =
      std::make_shared<TorusMachine>(*TorusMachine::Create({4, 3, 2}, {true, false, true}));
  Allocation allocation = *Allocation::Create(torus, {0, 5, 7, 8, 11, 13, 17, 20, 22, 23}, 3);
  GeneratorOptions gen;
  gen.kind = "random-geometric";
  gen.tasks = 22;  // 30 slots: 8 stay empty
  gen.seed = 7;
  TaskGraph graph = *GenerateGraph(gen);
  std::vector<SlotId> slots(allocation.num_slots());
  std::iota(slots.begin(), slots.end(), 0);
  RandomStream random(3, 0);
  random.Shuffle(std::span<SlotId>(slots));
  slots.resize(graph.num_tasks());
  Placement placement(graph, allocation, slots);
  for (int step = 0; step < 500; ++step) {
    const SlotId a = static_cast<SlotId>(random.Below(allocation.num_slots()));
    const SlotId b = static_cast<SlotId>(random.Below(allocation.num_slots()));
    const HopBytes delta = placement.SwapDelta(a, b);
    placement.SwapSlots(a, b, delta);
    ASSERT_EQ(placement.hop_bytes(), ComputeHopBytes(graph, allocation, placement.slot_of_task()))
        << "step " << step;
    for (TaskId t = 0; t < graph.num_tasks(); ++t) {
      ASSERT_EQ(placement.task_at(placement.slot_of(t)), t);
    }
  }
  EXPECT_EQ(std::move(placement).Release().size(), static_cast<size_t>(graph.num_tasks()));
}

}  // namespace
}  // namespace hopmap
