#include "core/topology/chipmesh.h"

#include <array>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/topology/regular_machines_test_util.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

ChipMeshMachine Make(int32_t x, int32_t y, int32_t nodes = 96,
                     std::array<int32_t, 6> table = {1, 2, 3, 4, 5, 6}) {
  auto m = ChipMeshMachine::Create(x, y, nodes, table);
  EXPECT_TRUE(m.ok()) << m.status();
  return *std::move(m);
}

// Links a route visits (the documented link model): up + down, one crossing when
// the sides differ, one direct link per chip coordinate that differs.
double RouteLength(const ChipMeshMachine& m, NodeId a, NodeId b) {
  if (a == b) return 0;
  std::array<int32_t, 3> ca, cb;
  m.Coordinates(a, ca);
  m.Coordinates(b, cb);
  const int half = m.nodes_per_chip() / 2;
  return 2 + ((ca[2] < half) != (cb[2] < half) ? 1 : 0) + (ca[0] != cb[0] ? 1 : 0) +
         (ca[1] != cb[1] ? 1 : 0);
}

TEST(ChipMeshTest, SeedTableOnTwoByTwo) {
  // Chips: 0 = (0,0), 1 = (1,0), 2 = (0,1), 3 = (1,1); 4 nodes each, 0-1 left, 2-3 right.
  const ChipMeshMachine m = Make(2, 2, 4);
  EXPECT_EQ(m.kind(), "chipmesh");
  EXPECT_EQ(m.num_nodes(), 16);
  EXPECT_EQ(m.Hops(0, 0), 0);
  EXPECT_EQ(m.Hops(0, 1), 1);  // one chip, same side
  EXPECT_EQ(m.Hops(0, 2), 2);  // one chip, different sides
  EXPECT_EQ(m.Hops(1, 3), 2);
  EXPECT_EQ(m.Hops(0, 4), 3);   // (0,0)-(1,0) same side
  EXPECT_EQ(m.Hops(0, 6), 4);   // (0,0)-(1,0) different sides
  EXPECT_EQ(m.Hops(0, 8), 3);   // (0,0)-(0,1): same column
  EXPECT_EQ(m.Hops(3, 9), 4);   // right (0,0) - left (0,1)
  EXPECT_EQ(m.Hops(0, 12), 5);  // (0,0)-(1,1) same side
  EXPECT_EQ(m.Hops(0, 14), 6);  // (0,0)-(1,1) different sides
  EXPECT_EQ(m.Hops(6, 9), 6);   // (1,0) right - (0,1) left
  EXPECT_EQ(m.Hops(5, 12), 3);  // (1,0)-(1,1) same column
  EXPECT_EQ(m.max_hops(), 6);
  EXPECT_EQ(m.min_hops(), 1);
  EXPECT_THAT(m.dims(), ElementsAre(2, 2, 4));
  EXPECT_THAT(m.dim_names(), ElementsAre("X", "Y", "N"));
  std::array<int32_t, 3> c;
  m.Coordinates(14, c);
  EXPECT_THAT(c, ElementsAre(1, 1, 2));
  m.Coordinates(9, c);
  EXPECT_THAT(c, ElementsAre(0, 1, 1));
  // 16 nodes x 2 + 4 chips x 2 crossings + 4 chips x 2 sides x (1 row + 1 column).
  EXPECT_EQ(m.num_links(), 32 + 8 + 8 + 8);
}

TEST(ChipMeshTest, CustomTableHonoured) {
  const ChipMeshMachine m = Make(2, 2, 4, {2, 4, 7, 9, 11, 13});
  EXPECT_EQ(m.Hops(0, 1), 2);
  EXPECT_EQ(m.Hops(0, 2), 4);
  EXPECT_EQ(m.Hops(0, 4), 7);
  EXPECT_EQ(m.Hops(0, 6), 9);
  EXPECT_EQ(m.Hops(0, 12), 11);
  EXPECT_EQ(m.Hops(0, 14), 13);
  EXPECT_EQ(m.max_hops(), 13);
  EXPECT_EQ(m.min_hops(), 2);
  EXPECT_EQ(m.Spec(), "chipmesh:2x2:nodes=4:hops=2,4,7,9,11,13:cores=1");
  // A table that is not increasing: extremes are over the cases that exist.
  const ChipMeshMachine odd = Make(2, 2, 4, {5, 1, 2, 3, 4, 6});
  EXPECT_EQ(odd.min_hops(), 1);
  EXPECT_EQ(odd.max_hops(), 6);
  EXPECT_EQ(odd.Hops(0, 1), 5);
  EXPECT_EQ(odd.Hops(0, 2), 1);
  // Cases that cannot occur do not count: one chip of two nodes has only case 1.
  const ChipMeshMachine pair = Make(1, 1, 2, {1, 7, 3, 4, 9, 10});
  EXPECT_EQ(pair.min_hops(), 7);
  EXPECT_EQ(pair.max_hops(), 7);
  // A single row has no case 4/5.
  const ChipMeshMachine row = Make(3, 1, 2);
  EXPECT_EQ(row.max_hops(), 4);
  EXPECT_EQ(row.min_hops(), 2);
}

TEST(ChipMeshTest, SpecAndBallsAtDefaultSize) {
  ChipMeshMachine m = Make(4, 4);
  EXPECT_EQ(m.num_nodes(), 1536);
  EXPECT_EQ(m.Spec(), "chipmesh:4x4:cores=1");
  m.set_cores_per_node(8);
  EXPECT_EQ(m.Spec(), "chipmesh:4x4:cores=8");
  EXPECT_EQ(Make(2, 3, 4).Spec(), "chipmesh:2x3:nodes=4:cores=1");
  EXPECT_EQ(Make(2, 3, 96, {1, 2, 3, 4, 5, 7}).Spec(), "chipmesh:2x3:hops=1,2,3,4,5,7:cores=1");
  // Per node: 47 same chip same side, 48 other side, 6 chips x 48 per side in
  // its row/column, 9 chips x 48 per side elsewhere.
  EXPECT_THAT(m.BallSizeUpperBounds(), ElementsAre(1, 48, 96, 384, 672, 1104, 1536));
  EXPECT_EQ(m.Hops(0, 1535), 6);  // (0,0) left - (3,3) right
  EXPECT_EQ(m.Hops(47, 48), 2);   // the two sides of chip 0
  EXPECT_EQ(m.Hops(0, 3 * 96), 3);
}

TEST(ChipMeshTest, BruteForceSmallInstances) {
  struct Case {
    int32_t x, y, n;
    std::array<int32_t, 6> table;
  };
  for (const Case& c : std::vector<Case>{{2, 2, 4, {1, 2, 3, 4, 5, 6}},
                                         {3, 2, 4, {1, 2, 3, 4, 5, 6}},
                                         {2, 3, 2, {1, 2, 3, 4, 5, 6}},
                                         {1, 3, 6, {1, 2, 3, 4, 5, 6}},
                                         {3, 3, 2, {5, 1, 2, 3, 4, 6}},
                                         {1, 1, 2, {1, 2, 3, 4, 5, 6}},
                                         {1, 1, 6, {4, 3, 2, 1, 1, 1}},
                                         {2, 2, 4, {3, 3, 3, 3, 3, 3}}}) {
    SCOPED_TRACE(::testing::Message() << c.x << "x" << c.y << " n=" << c.n);
    const ChipMeshMachine m = Make(c.x, c.y, c.n, c.table);
    regular_test::CheckDistancesByBruteForce(m);
    regular_test::CheckLinkNames(m);
    regular_test::CheckRoutes(
        m, [&](NodeId a, NodeId b) { return RouteLength(m, a, b); }, /*single_path=*/false);
  }
}

TEST(ChipMeshTest, LinkIdsFollowTheDocumentedLayout) {
  const ChipMeshMachine m = Make(3, 2, 4);  // 24 nodes, 6 chips
  EXPECT_EQ(m.num_links(), 48 + 12 + 2 * 6 * 2 + 2 * 6 * 1);
  EXPECT_EQ(m.LinkName(0), "node 0 -> chip (0,0) left");
  EXPECT_EQ(m.LinkName(2 * 23 + 1), "chip (2,1) right -> node 23");
  EXPECT_EQ(m.LinkName(48), "chip (0,0) left -> chip (0,0) right");
  EXPECT_EQ(m.LinkName(48 + 2 * 5 + 1), "chip (2,1) right -> chip (2,1) left");
  // Row links start at 60: chip 0 left -> cx 1, cx 2; chip 0 right -> cx 1, cx 2; ...
  EXPECT_EQ(m.LinkName(60), "chip (0,0) left -> chip (1,0) left");
  EXPECT_EQ(m.LinkName(61), "chip (0,0) left -> chip (2,0) left");
  EXPECT_EQ(m.LinkName(62), "chip (0,0) right -> chip (1,0) right");
  EXPECT_EQ(m.LinkName(64), "chip (1,0) left -> chip (0,0) left");
  // Column links start at 84.
  EXPECT_EQ(m.LinkName(84), "chip (0,0) left -> chip (0,1) left");
  EXPECT_EQ(m.LinkName(95), "chip (2,1) right -> chip (2,0) right");
}

TEST(ChipMeshTest, RoutesRowFirstAndAdaptiveSplits) {
  const ChipMeshMachine m = Make(2, 2, 4);
  // Node 0: chip (0,0) left; node 14: chip (1,1) right.
  EXPECT_THAT(regular_test::RouteNames(m, 0, 14, Routing::kDimensionOrder),
              ElementsAre("node 0 -> chip (0,0) left", "chip (0,0) left -> chip (0,0) right",
                          "chip (0,0) right -> chip (1,0) right",
                          "chip (1,0) right -> chip (1,1) right", "chip (1,1) right -> node 14"));
  std::vector<std::pair<std::string, double>> adaptive;
  m.ForEachRouteLink(0, 14, Routing::kAdaptive, [&](int64_t link, double share) {
    adaptive.push_back({m.LinkName(link), share});
  });
  EXPECT_THAT(adaptive, ElementsAre(Pair("node 0 -> chip (0,0) left", 1.0),
                                    Pair("chip (0,0) left -> chip (0,0) right", 1.0),
                                    Pair("chip (0,0) right -> chip (1,0) right", 0.5),
                                    Pair("chip (1,0) right -> chip (1,1) right", 0.5),
                                    Pair("chip (0,0) right -> chip (0,1) right", 0.5),
                                    Pair("chip (0,1) right -> chip (1,1) right", 0.5),
                                    Pair("chip (1,1) right -> node 14", 1.0)));
  // One coordinate differs: adaptive is the single direct path.
  EXPECT_EQ(regular_test::RouteNames(m, 9, 1, Routing::kAdaptive),
            regular_test::RouteNames(m, 9, 1, Routing::kDimensionOrder));
  EXPECT_THAT(regular_test::RouteNames(m, 0, 1, Routing::kAdaptive),
              ElementsAre("node 0 -> chip (0,0) left", "chip (0,0) left -> node 1"));
}

TEST(ChipMeshTest, RejectsBadInput) {
  EXPECT_THAT(ChipMeshMachine::Create(0, 2).status().message(), HasSubstr("chip grid 0x2"));
  EXPECT_THAT(ChipMeshMachine::Create(2, -1).status().message(), HasSubstr("chip grid 2x-1"));
  EXPECT_THAT(ChipMeshMachine::Create(2, 2, 3).status().message(),
              HasSubstr("nodes per chip is 3"));
  EXPECT_THAT(ChipMeshMachine::Create(2, 2, 0).status().message(),
              HasSubstr("nodes per chip is 0"));
  EXPECT_THAT(ChipMeshMachine::Create(2, 2, 4, {1, 2, 0, 4, 5, 6}).status().message(),
              HasSubstr("hop table entry 2 is 0"));
  EXPECT_THAT(ChipMeshMachine::Create(2, 2, 4, {1, 2, 3, 4, 5, -6}).status().message(),
              HasSubstr("hop table entry 5 is -6"));
  EXPECT_THAT(ChipMeshMachine::Create(2, 2, 4, {1, 2, 3, 4, 5, 70000}).status().message(),
              HasSubstr("hop table entry 5 is 70000"));
  EXPECT_THAT(ChipMeshMachine::Create(5000, 5000, 96).status().message(),
              HasSubstr("2400000000 nodes"));
  EXPECT_EQ(ChipMeshMachine::Create(2, 2, 3).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hopmap
