// LayOutCoresInsideNodes: the balanced solve's cores inside each node.
#include "core/balance/inside_nodes_balanced.h"

#include <map>
#include <memory>
#include <vector>

#include "core/balance/balance_problem.h"
#include "core/balance/construct.h"
#include "core/metrics/node_cost.h"
#include "core/solve/solve_balanced.h"
#include "core/topology/torus.h"
#include "gtest/gtest.h"
#include "tests/core/mappers/search_test_util.h"

namespace hopmap {
namespace {

using ::hopmap::testing::Generate;

// A 2x2 torus of nodes of 2 packages x 4 cores (node=4x2, distances 1 and 10).
Allocation NodesWithLevels() {
  auto torus = std::make_shared<TorusMachine>(*TorusMachine::Create({2, 2}, {true, true}));
  torus->set_node_interior(
      std::make_shared<const NodeInterior>(*NodeInterior::Create({4, 2}, {1, 10})));
  return *Allocation::WholeMachine(torus);
}

// Each node's objects dealt to its cores round-robin: neighbours on different
// packages. The layout keeps every object's node, lowers the node cost a lot
// (1,376,256 -> 524,288 here) and keeps the cap.
TEST(LayOutCoresInsideNodesTest, LowersTheNodeCostWithinTheCap) {
  const TaskGraph graph = Generate("stencil2d-5", {16, 16});  // 256 objects, 8 per core
  const Allocation allocation = NodesWithLevels();
  ASSERT_EQ(allocation.cores_per_node(), 8);
  const BalanceInput input{graph, allocation};
  std::vector<SlotId> start(256);
  for (TaskId t = 0; t < 256; ++t) start[t] = (t / 64) * 8 + t % 8;
  const double cap = ComputeLoadCap(input, 0.05).cap;
  const StopCondition no_deadline(absl::InfiniteFuture());
  const std::vector<SlotId> laid = LayOutCoresInsideNodes(input, start, cap, {}, no_deadline);
  ASSERT_EQ(laid.size(), 256u);
  std::map<SlotId, int> count;
  for (TaskId t = 0; t < 256; ++t) {
    EXPECT_EQ(allocation.PositionOfSlot(laid[t]), allocation.PositionOfSlot(start[t])) << t;
    ++count[laid[t]];
  }
  for (const auto& [slot, objects] : count) EXPECT_LE(objects, cap) << slot;
  const HopBytes before = ComputeNodeCost(graph, allocation, start);
  const HopBytes after = ComputeNodeCost(graph, allocation, laid);
  EXPECT_LT(after, before / 2) << before;
  // Deterministic whatever the threads (nodes run in parallel).
  EXPECT_EQ(LayOutCoresInsideNodes(input, start, cap, {}, no_deadline), laid);
  // With a current placement moving between cores is a migration: unchanged.
  const BalanceInput remap{graph, allocation, {}, start};
  EXPECT_EQ(LayOutCoresInsideNodes(remap, start, cap, {}, no_deadline), start);
}

// The balanced solve lays the cores out: its node cost is below the cores the
// solve spreads (SpreadOverCores) on the same nodes.
TEST(LayOutCoresInsideNodesTest, TheBalancedSolveLaysOutTheCores) {
  const TaskGraph graph = Generate("stencil2d-5", {16, 16});
  const Allocation allocation = NodesWithLevels();
  const BalanceInput input{graph, allocation};
  MapperOptions options;
  options.time_limit_seconds = 5;
  absl::StatusOr<MappingReport> report = SolveBalancedMapping(input, "partition", options, {});
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->balance.has_value());
  EXPECT_TRUE(report->balance->balanced) << report->balance->note;
  std::vector<int32_t> position(256);
  for (TaskId t = 0; t < 256; ++t) position[t] = allocation.PositionOfSlot(report->slot_of_task[t]);
  const HopBytes spread = ComputeNodeCost(graph, allocation, SpreadOverCores(input, position));
  ASSERT_TRUE(report->node_cost.has_value());
  EXPECT_LT(report->node_cost->node_cost, spread);
  EXPECT_EQ(report->node_cost->node_cost, ComputeNodeCost(graph, allocation, report->slot_of_task));
}

}  // namespace
}  // namespace hopmap
