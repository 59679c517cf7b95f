#include "core/topology/dragonfly.h"

#include <array>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/topology/regular_machines_test_util.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

DragonflyMachine Make(int32_t g, int32_t a, int32_t p) {
  auto m = DragonflyMachine::Create(g, a, p);
  EXPECT_TRUE(m.ok()) << m.status();
  return *std::move(m);
}

// G=9, A=4, P=2: h = ceil(8/4) = 2 global links per router. Node = (g*4 + r)*2 + p.
// Group 0's link k goes to group k+1 from router k/2; group 1's link to group 0
// is k = (0-1-1) mod 9 = 7, on router 3. Group 0 -> 5: k = 4, router 2; group
// 5 -> 0: k = 3, router 1.
TEST(DragonflyTest, HandComputedHops) {
  const DragonflyMachine m = Make(9, 4, 2);
  EXPECT_EQ(m.kind(), "dragonfly");
  EXPECT_EQ(m.num_nodes(), 72);
  EXPECT_EQ(m.global_links_per_router(), 2);
  EXPECT_EQ(m.Gateway(0, 1), 0);
  EXPECT_EQ(m.Gateway(1, 0), 3);
  EXPECT_EQ(m.Gateway(0, 5), 2);
  EXPECT_EQ(m.Gateway(5, 0), 1);
  EXPECT_EQ(m.Gateway(8, 7), 3);  // k = (7-8-1) mod 9 = 7
  EXPECT_EQ(m.Hops(0, 0), 0);
  EXPECT_EQ(m.Hops(0, 1), 2);   // same router
  EXPECT_EQ(m.Hops(0, 2), 3);   // g0 r0 - g0 r1
  EXPECT_EQ(m.Hops(0, 14), 3);  // g0 r0 (gateway) - g1 r3 (arrival)
  EXPECT_EQ(m.Hops(0, 8), 4);   // g0 r0 (gateway) - g1 r0
  EXPECT_EQ(m.Hops(2, 8), 5);   // g0 r1 - g1 r0: both off their gateways
  EXPECT_EQ(m.Hops(5, 42), 3);  // g0 r2 (gateway) - g5 r1 (arrival)
  EXPECT_EQ(m.Hops(0, 42), 4);
  EXPECT_EQ(m.Hops(5, 40), 4);
  EXPECT_EQ(m.Hops(0, 40), 5);
  EXPECT_EQ(m.Hops(40, 0), 5);
  EXPECT_EQ(m.max_hops(), 5);
  EXPECT_EQ(m.min_hops(), 2);
  EXPECT_THAT(m.dims(), ElementsAre(9, 4, 2));
  EXPECT_THAT(m.dim_names(), ElementsAre("G", "R", "P"));
  std::array<int32_t, 3> c;
  m.Coordinates(42, c);
  EXPECT_THAT(c, ElementsAre(5, 1, 0));
  m.Coordinates(71, c);
  EXPECT_THAT(c, ElementsAre(8, 3, 1));
  // 72 x 2 node links + 36 routers x 3 local + 9 x 8 global.
  EXPECT_EQ(m.num_links(), 144 + 108 + 72);
  EXPECT_EQ(m.Spec(), "dragonfly:9,4,2:cores=1");
  // Every router holds 2 global links: per node 1, 1 (same router), 10 more
  // within 3 hops (6 in the group, 2 x 2 across), 24 at 4, 36 at 5.
  EXPECT_THAT(m.BallSizeUpperBounds(), ElementsAre(1, 1, 2, 12, 36, 72));
}

TEST(DragonflyTest, RouteThroughBothGateways) {
  const DragonflyMachine m = Make(9, 4, 2);
  EXPECT_THAT(regular_test::RouteNames(m, 2, 8, Routing::kDimensionOrder),
              ElementsAre("node 2 -> router (g0,r1)", "router (g0,r1) -> router (g0,r0)",
                          "router (g0,r0) -> router (g1,r3)", "router (g1,r3) -> router (g1,r0)",
                          "router (g1,r0) -> node 8"));
  EXPECT_THAT(regular_test::RouteNames(m, 5, 42, Routing::kAdaptive),
              ElementsAre("node 5 -> router (g0,r2)", "router (g0,r2) -> router (g5,r1)",
                          "router (g5,r1) -> node 42"));
  EXPECT_THAT(regular_test::RouteNames(m, 1, 0, Routing::kAdaptive),
              ElementsAre("node 1 -> router (g0,r0)", "router (g0,r0) -> node 0"));
  // Documented ids: local base 144, global base 144 + 108 = 252.
  EXPECT_EQ(m.LinkName(144), "router (g0,r0) -> router (g0,r1)");
  EXPECT_EQ(m.LinkName(144 + 3 * 1 + 0), "router (g0,r1) -> router (g0,r0)");
  EXPECT_EQ(m.LinkName(252), "router (g0,r0) -> router (g1,r3)");
  EXPECT_EQ(m.LinkName(252 + 8 * 8 + 7), "router (g8,r3) -> router (g7,r0)");
}

TEST(DragonflyTest, BruteForceSmallInstances) {
  for (const std::array<int32_t, 3>& s : std::vector<std::array<int32_t, 3>>{
           {9, 4, 2},  // balanced: A * h = G - 1
           {6, 4, 1},  // h = 2: routers hold 2, 2, 1, 0 global links
           {4, 5, 1},  // more routers than global links
           {5, 1, 2},  // one router per group
           {5, 1, 1},
           {2, 2, 1},
           {1, 3, 2},  // one group: no global links
           {1, 1, 3},
           {1, 1, 1},
           {7, 3, 2}}) {
    SCOPED_TRACE(::testing::PrintToString(s));
    const DragonflyMachine m = Make(s[0], s[1], s[2]);
    regular_test::CheckDistancesByBruteForce(m);
    regular_test::CheckLinkNames(m);
    regular_test::CheckRoutes(
        m, [&](NodeId a, NodeId b) { return static_cast<double>(m.Hops(a, b)); },
        /*single_path=*/true);
  }
}

TEST(DragonflyTest, DegenerateExtremes) {
  EXPECT_EQ(Make(5, 1, 1).min_hops(), 3);
  EXPECT_EQ(Make(5, 1, 1).max_hops(), 3);
  EXPECT_EQ(Make(1, 3, 2).max_hops(), 3);
  EXPECT_EQ(Make(1, 1, 3).max_hops(), 2);
  const DragonflyMachine one = Make(1, 1, 1);
  EXPECT_EQ(one.max_hops(), 0);
  EXPECT_EQ(one.min_hops(), 0);
  EXPECT_THAT(one.BallSizeUpperBounds(), ElementsAre(1));
  // Unbalanced: the bound is the router holding the most global links (r0: 2).
  // Per node on r0 (P=1): 3 in its group + 2 arrival routers at 3 hops,
  // 2 x 3 + 3 x 1 at 4, 3 x 3 at 5.
  EXPECT_THAT(Make(6, 4, 1).BallSizeUpperBounds(), ElementsAre(1, 1, 1, 6, 15, 24));
}

TEST(DragonflyTest, LargeInstanceBalls) {
  const DragonflyMachine m = Make(257, 16, 8);  // h = 16
  EXPECT_EQ(m.num_nodes(), 257 * 16 * 8);
  const std::vector<int64_t> balls = m.BallSizeUpperBounds();
  ASSERT_EQ(balls.size(), 6u);
  EXPECT_EQ(balls[2], 8);
  EXPECT_EQ(balls[3], 8 + 15 * 8 + 16 * 8);
  EXPECT_EQ(balls[5], m.num_nodes());
  EXPECT_EQ(m.num_links(), 2LL * m.num_nodes() + 257LL * 16 * 15 + 257LL * 256);
}

TEST(DragonflyTest, RejectsBadInput) {
  EXPECT_THAT(DragonflyMachine::Create(0, 4, 2).status().message(), HasSubstr("0 groups"));
  EXPECT_THAT(DragonflyMachine::Create(9, -1, 2).status().message(),
              HasSubstr("-1 routers per group"));
  EXPECT_THAT(DragonflyMachine::Create(9, 4, 0).status().message(),
              HasSubstr("0 nodes per router"));
  EXPECT_THAT(DragonflyMachine::Create(100000, 100, 1000).status().message(),
              HasSubstr("10000000000 nodes"));
  EXPECT_EQ(DragonflyMachine::Create(0, 4, 2).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hopmap
