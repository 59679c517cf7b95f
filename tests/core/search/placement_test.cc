#include "core/search/placement.h"

#include <memory>
#include <numeric>

#include "core/graph/generators.h"
#include "core/metrics/hop_bytes.h"
#include "core/search/random_stream.h"
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

// A journal records the exchanges made while it is set; Undo puts back the mapping
// and the hop-bytes from before them, including exchanges with empty slots.
TEST(PlacementTest, UndoRestoresTheJournalledState) {
  auto torus = std::make_shared<TorusMachine>(*TorusMachine::Create({4, 4}, {true, true}));
  std::vector<NodeId> nodes(16);
  std::iota(nodes.begin(), nodes.end(), 0);
  Allocation allocation = *Allocation::Create(torus, nodes, 2);  // 32 slots
  GeneratorOptions gen;
  gen.kind = "random-geometric";
  gen.tasks = 25;
  gen.seed = 4;
  TaskGraph graph = *GenerateGraph(gen);
  std::vector<SlotId> slots(graph.num_tasks());
  std::iota(slots.begin(), slots.end(), 0);
  Placement placement(graph, allocation, slots);
  RandomStream random(8, 0);
  auto scramble = [&](int steps) {
    for (int step = 0; step < steps; ++step) {
      const SlotId a = static_cast<SlotId>(random.Below(allocation.num_slots()));
      const SlotId b = static_cast<SlotId>(random.Below(allocation.num_slots()));
      placement.SwapSlots(a, b, placement.SwapDelta(a, b));
    }
  };
  scramble(10);  // not journalled
  const std::vector<SlotId> before = placement.slot_of_task();
  const HopBytes hop_bytes_before = placement.hop_bytes();
  std::vector<Placement::Exchange> journal;
  placement.set_journal(&journal);
  scramble(40);
  EXPECT_EQ(journal.size(), 40u);
  ASSERT_NE(placement.slot_of_task(), before);
  placement.Undo(journal);
  EXPECT_TRUE(journal.empty());
  EXPECT_EQ(placement.slot_of_task(), before);
  EXPECT_EQ(placement.hop_bytes(), hop_bytes_before);
  for (SlotId s = 0; s < allocation.num_slots(); ++s) {
    const TaskId t = placement.task_at(s);
    if (t != kNoTask) {
      EXPECT_EQ(placement.slot_of(t), s);
    }
  }
  // Still recording after an undo.
  scramble(3);
  EXPECT_EQ(journal.size(), 3u);
}

}  // namespace
}  // namespace hopmap
