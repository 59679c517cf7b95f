#include "core/mappers/inside_nodes.h"

#include <memory>
#include <vector>

#include "core/metrics/node_cost.h"
#include "core/topology/torus.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

// Two nodes of 2 packages x 4 cores; tasks 0-3 talk among themselves, 4-7 too, and
// each group is split over the packages of node 0 by the given mapping.
TEST(InsideNodesTest, TiedTasksShareAPackage) {
  absl::StatusOr<TorusMachine> torus = TorusMachine::Create({2}, {true});
  ASSERT_TRUE(torus.ok());
  auto machine = std::make_shared<TorusMachine>(*std::move(torus));
  absl::StatusOr<NodeInterior> interior = NodeInterior::Create({4, 2}, {1, 10});
  ASSERT_TRUE(interior.ok());
  machine->set_node_interior(std::make_shared<const NodeInterior>(*std::move(interior)));
  absl::StatusOr<Allocation> allocation = Allocation::WholeMachine(machine);
  ASSERT_TRUE(allocation.ok());
  TaskGraphBuilder builder(8);
  for (int g = 0; g < 2; ++g) {
    for (int a = 0; a < 4; ++a) {
      for (int b = a + 1; b < 4; ++b)
        ASSERT_TRUE(builder.AddTraffic(4 * g + a, 4 * g + b, 100).ok());
    }
  }
  ASSERT_TRUE(builder.AddTraffic(3, 4, 1).ok());
  absl::StatusOr<TaskGraph> graph = std::move(builder).Build();
  ASSERT_TRUE(graph.ok()) << graph.status();
  // Alternating packages: every group edge but a few crosses the packages.
  const std::vector<SlotId> given = {0, 4, 1, 5, 2, 6, 3, 7};
  const HopBytes before = ComputeNodeCost(*graph, *allocation, given);
  const std::vector<SlotId> placed = PlaceInsideNodes(*graph, *allocation, given);
  for (size_t t = 0; t < placed.size(); ++t) EXPECT_LT(placed[t], 8);  // still node 0
  // Each group in one package: 12 edges of 100 at distance 1, one of 1 across.
  EXPECT_EQ(ComputeNodeCost(*graph, *allocation, placed), 12 * 100 + 10);
  EXPECT_LT(ComputeNodeCost(*graph, *allocation, placed), before);
  // A placement already best stays as good.
  EXPECT_EQ(ComputeNodeCost(*graph, *allocation, PlaceInsideNodes(*graph, *allocation, placed)),
            12 * 100 + 10);
}

}  // namespace
}  // namespace hopmap
