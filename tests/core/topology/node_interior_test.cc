#include "core/topology/node_interior.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::HasSubstr;

TEST(NodeInteriorTest, DistancesFollowTheLowestSharedLevel) {
  // 2 PEs per L2 pair, 4 pairs per package, 2 packages: 16 PEs.
  absl::StatusOr<NodeInterior> n = NodeInterior::Create({2, 4, 2}, {1, 5, 20});
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(n->num_pes(), 16);
  EXPECT_EQ(n->Distance(3, 3), 0);
  EXPECT_EQ(n->Distance(2, 3), 1);   // one pair
  EXPECT_EQ(n->Distance(1, 2), 5);   // one package, two pairs
  EXPECT_EQ(n->Distance(7, 8), 20);  // two packages
  EXPECT_EQ(n->Distance(0, 15), 20);
  EXPECT_EQ(n->hop_cost(), 200);    // 10 x the top level's distance
  EXPECT_EQ(n->num_packages(), 2);  // the top level's groups
  EXPECT_EQ(n->PackageOf(9), 1);
  EXPECT_EQ(n->CoreInPackage(9), 1);
  EXPECT_EQ(n->SpecOptions(), ":node=2x4x2:node-distances=1,5,20:hop-cost=200");
}

TEST(NodeInteriorTest, OneLevelIsOnePackageAndPackagesCanBeGiven) {
  absl::StatusOr<NodeInterior> one = NodeInterior::Create({8}, {3}, 7);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->num_packages(), 1);
  EXPECT_EQ(one->CoreInPackage(5), 5);
  EXPECT_EQ(one->hop_cost(), 7);
  // 4 L3 groups of 4 in one package: the packages are not the top level's groups.
  absl::StatusOr<NodeInterior> single =
      NodeInterior::Create({4, 4}, {1, 2}, 0, {"l3", "node"}, "x.xml", 16);
  ASSERT_TRUE(single.ok()) << single.status();
  EXPECT_EQ(single->num_packages(), 1);
  EXPECT_EQ(single->SpecOptions(), ":node=4x4:node-distances=1,2:hop-cost=20:packages=1");
}

TEST(NodeInteriorTest, RefusesWhatIsNotAHierarchy) {
  EXPECT_THAT(NodeInterior::Create({}, {}).status().message(), HasSubstr("at least one level"));
  EXPECT_EQ(NodeInterior::Create({2, 4}, {1}).status().message(),
            "node=2x4 has 2 levels but node-distances= gives 1 (one per level, the lowest first)");
  EXPECT_EQ(NodeInterior::Create({2, 0}, {1, 2}).status().message(),
            "node=: level 2 has arity 0 (must be >= 1)");
  EXPECT_EQ(NodeInterior::Create({2, 2}, {5, 1}).status().message(),
            "node-distances=: distance 2 (1) is less than the level below it (5): a higher "
            "level never costs less");
  EXPECT_THAT(NodeInterior::Create({256, 512}, {1, 2}).status().message(),
              HasSubstr("more than 65536 PEs per node"));
  EXPECT_THAT(NodeInterior::Create({4}, {1}, 0, {}, "", 3).status().message(),
              HasSubstr("3 PEs per package do not divide 4"));
}

}  // namespace
}  // namespace hopmap
