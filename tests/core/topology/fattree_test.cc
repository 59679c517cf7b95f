#include "core/topology/fattree.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/topology/regular_machines_test_util.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

FatTreeMachine Make(std::vector<int32_t> arities) {
  auto m = FatTreeMachine::Create(std::move(arities));
  EXPECT_TRUE(m.ok()) << m.status();
  return *std::move(m);
}

TEST(FatTreeTest, TwoLevelHops) {
  const FatTreeMachine m = Make({4, 4});
  EXPECT_EQ(m.kind(), "fattree");
  EXPECT_EQ(m.num_nodes(), 16);
  EXPECT_EQ(m.Hops(0, 0), 0);
  EXPECT_EQ(m.Hops(0, 1), 2);
  EXPECT_EQ(m.Hops(0, 3), 2);
  EXPECT_EQ(m.Hops(5, 6), 2);
  EXPECT_EQ(m.Hops(0, 4), 4);
  EXPECT_EQ(m.Hops(3, 12), 4);
  EXPECT_EQ(m.max_hops(), 4);
  EXPECT_EQ(m.min_hops(), 2);
  // 16 nodes + 4 leaf switches, each with an up and a down link.
  EXPECT_EQ(m.num_links(), 40);
}

TEST(FatTreeTest, ThreeLevelHopsAndCoordinates) {
  const FatTreeMachine m = Make({2, 3, 4});
  EXPECT_EQ(m.num_nodes(), 24);
  EXPECT_EQ(m.Hops(0, 23), 6);
  EXPECT_EQ(m.Hops(0, 3), 2);    // (0,0,0) - (0,0,3): one leaf switch
  EXPECT_EQ(m.Hops(0, 4), 4);    // (0,0,0) - (0,1,0): share d0
  EXPECT_EQ(m.Hops(0, 12), 6);   // (0,0,0) - (1,0,0): through the root
  EXPECT_EQ(m.Hops(12, 20), 4);  // (1,0,0) - (1,2,0)
  EXPECT_EQ(m.Hops(13, 14), 2);
  EXPECT_THAT(m.dims(), ElementsAre(2, 3, 4));
  EXPECT_THAT(m.dim_names(), ElementsAre("L0", "L1", "L2"));
  std::vector<int32_t> c(3);
  m.Coordinates(23, c);
  EXPECT_THAT(c, ElementsAre(1, 2, 3));
  m.Coordinates(17, c);
  EXPECT_THAT(c, ElementsAre(1, 1, 1));
  m.Coordinates(6, c);
  EXPECT_THAT(c, ElementsAre(0, 1, 2));
  EXPECT_EQ(m.vertices_at_level(0), 1);
  EXPECT_EQ(m.vertices_at_level(1), 2);
  EXPECT_EQ(m.vertices_at_level(2), 6);
  // 24 nodes + 6 leaf switches + 2 level-1 switches.
  EXPECT_EQ(m.num_links(), 64);
  EXPECT_THAT(m.BallSizeUpperBounds(), ElementsAre(1, 1, 4, 4, 12, 12, 24));
}

TEST(FatTreeTest, RouteGoesUpToTheCommonSwitchAndDown) {
  const FatTreeMachine m = Make({2, 3, 4});
  EXPECT_THAT(regular_test::RouteNames(m, 0, 23, Routing::kDimensionOrder),
              ElementsAre("node 0 -> L2 switch 0", "L2 switch 0 -> L1 switch 0",
                          "L1 switch 0 -> L0 switch 0", "L0 switch 0 -> L1 switch 1",
                          "L1 switch 1 -> L2 switch 5", "L2 switch 5 -> node 23"));
  // The documented ids: nodes are vertices 0..23, leaf switches 24..29, level-1
  // switches 30..31; link = 2 * vertex + (0 up, 1 down).
  std::vector<int64_t> links;
  m.ForEachRouteLink(0, 23, Routing::kAdaptive, [&](int64_t link, double share) {
    links.push_back(link);
    EXPECT_EQ(share, 1.0);
  });
  EXPECT_THAT(links, ElementsAre(0, 48, 60, 63, 59, 47));
  EXPECT_THAT(regular_test::RouteNames(m, 9, 8, Routing::kAdaptive),
              ElementsAre("node 9 -> L2 switch 2", "L2 switch 2 -> node 8"));
}

TEST(FatTreeTest, BruteForceSmallInstances) {
  for (const std::vector<int32_t>& arities : std::vector<std::vector<int32_t>>{
           {4, 4}, {2, 3, 4}, {2, 1, 3}, {1, 3}, {3, 1}, {5}, {1}, {2, 2, 2, 2}}) {
    SCOPED_TRACE(::testing::PrintToString(arities));
    const FatTreeMachine m = Make(arities);
    regular_test::CheckDistancesByBruteForce(m);
    regular_test::CheckLinkNames(m);
    regular_test::CheckRoutes(
        m, [&](NodeId a, NodeId b) { return static_cast<double>(m.Hops(a, b)); },
        /*single_path=*/true);
  }
}

TEST(FatTreeTest, ArityOneLevelsCount) {
  // A level of arity 1 is a switch with one child: every pair of 2x1 goes
  // through the root, 4 hops.
  const FatTreeMachine m = Make({2, 1});
  EXPECT_EQ(m.Hops(0, 1), 4);
  EXPECT_EQ(m.min_hops(), 4);
  EXPECT_EQ(m.max_hops(), 4);
  EXPECT_THAT(m.BallSizeUpperBounds(), ElementsAre(1, 1, 1, 1, 2));
  const FatTreeMachine top = Make({1, 3});
  EXPECT_EQ(top.max_hops(), 2);
  const FatTreeMachine one = Make({1});
  EXPECT_EQ(one.num_nodes(), 1);
  EXPECT_EQ(one.max_hops(), 0);
  EXPECT_EQ(one.min_hops(), 0);
  EXPECT_THAT(one.BallSizeUpperBounds(), ElementsAre(1));
}

TEST(FatTreeTest, LargeInstanceWithoutScanning) {
  const FatTreeMachine m = Make({64, 64});
  EXPECT_EQ(m.num_nodes(), 4096);
  EXPECT_EQ(m.Hops(0, 63), 2);
  EXPECT_EQ(m.Hops(0, 64), 4);
  EXPECT_EQ(m.Hops(4095, 0), 4);
  EXPECT_EQ(m.Spec(), "fattree:64x64:cores=1");
  FatTreeMachine with_cores = m;
  with_cores.set_cores_per_node(4);
  EXPECT_EQ(with_cores.Spec(), "fattree:64x64:cores=4");
  const FatTreeMachine big = Make({32, 32, 32});
  EXPECT_THAT(big.BallSizeUpperBounds(), ElementsAre(1, 1, 32, 32, 1024, 1024, 32768));
  EXPECT_EQ(big.Hops(0, 32767), 6);
  EXPECT_EQ(big.LinkName(2 * 32768 + 2 * 1024 + 1), "L0 switch 0 -> L1 switch 0");
  EXPECT_EQ(big.LinkName(2 * 32768 + 2 * 1024 + 2 * 31), "L1 switch 31 -> L0 switch 0");
  EXPECT_EQ(big.num_links(), 2 * (32768 + 1024 + 32));
}

TEST(FatTreeTest, RejectsBadInput) {
  EXPECT_THAT(FatTreeMachine::Create({}).status().message(), HasSubstr("at least one level"));
  EXPECT_THAT(FatTreeMachine::Create({4, 0}).status().message(), HasSubstr("level 1 has arity 0"));
  EXPECT_THAT(FatTreeMachine::Create({-2, 4}).status().message(),
              HasSubstr("level 0 has arity -2"));
  EXPECT_THAT(FatTreeMachine::Create({65536, 65536}).status().message(),
              HasSubstr("more nodes than hopmap supports"));
  EXPECT_THAT(FatTreeMachine::Create(std::vector<int32_t>(65, 1)).status().message(),
              HasSubstr("65 levels"));
  EXPECT_EQ(FatTreeMachine::Create({4, 0}).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hopmap
