// HierarchyOfPositions and OrderHierarchyForSplit (core/search/position_graph).
#include <memory>
#include <numeric>
#include <vector>

#include "core/search/position_graph.h"
#include "core/topology/fattree.h"
#include "core/topology/hierarchy.h"
#include "gtest/gtest.h"
#include "tests/core/mappers/search_test_util.h"

namespace hopmap {
namespace {

Allocation WholeHierarchy(std::vector<int32_t> arities, std::vector<int32_t> distances) {
  return *Allocation::WholeMachine(std::make_shared<HierarchyMachine>(
      *HierarchyMachine::Create(std::move(arities), std::move(distances))));
}

TEST(PositionGroupsTest, AHierarchysLevelsTopFirst) {
  const Allocation allocation = WholeHierarchy({4, 8, 6}, {1, 10, 100});
  const PositionGroup root = HierarchyOfPositions(allocation);
  ASSERT_EQ(root.positions.size(), 192u);
  EXPECT_EQ(root.height, 3);
  ASSERT_EQ(root.children.size(), 6u);
  const PositionGroup& rack = root.children[1];
  ASSERT_EQ(rack.children.size(), 8u);
  EXPECT_EQ(rack.positions.front(), 32);
  EXPECT_EQ(rack.children[2].positions, (std::vector<int32_t>{40, 41, 42, 43}));
  EXPECT_EQ(rack.children[2].children.size(), 4u);
  EXPECT_TRUE(rack.children[2].children[0].children.empty());
}

TEST(PositionGroupsTest, AFatTreeIsAHierarchyATorusIsNot) {
  const Allocation fat =
      *Allocation::WholeMachine(std::make_shared<FatTreeMachine>(*FatTreeMachine::Create({3, 4})));
  const PositionGroup tree = HierarchyOfPositions(fat);
  EXPECT_EQ(tree.children.size(), 3u);
  EXPECT_EQ(tree.height, 2);
  const PositionGroup torus = HierarchyOfPositions(testing::WholeTorus({4, 4}, 1));
  EXPECT_TRUE(torus.positions.empty());
  EXPECT_TRUE(torus.children.empty());
}

// A partial allocation listed out of order: the groups are put together and the
// half ends between two of them.
TEST(PositionGroupsTest, SplitKeepsGroupsWholeInAnyOrder) {
  auto machine = std::make_shared<HierarchyMachine>(*HierarchyMachine::Create({2, 3}, {1, 10}));
  // Nodes 0-1, 2-3, 4-5 are the 3 groups; listed interleaved.
  const Allocation allocation = *Allocation::Create(machine, {0, 2, 4, 1, 3, 5}, 1);
  std::vector<int32_t> positions(6);
  std::iota(positions.begin(), positions.end(), 0);
  const size_t half = OrderHierarchyForSplit(allocation, positions);
  EXPECT_EQ(half, 2u);  // one group | two (ties go to the lower boundary)
  // Positions of nodes 0,1 first (positions 0 and 3), then 2,3, then 4,5.
  EXPECT_EQ(positions, (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
}

}  // namespace
}  // namespace hopmap
