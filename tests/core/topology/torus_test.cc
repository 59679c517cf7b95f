#include "core/topology/torus.h"

#include <map>
#include <memory>

#include "core/topology/allocation.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TorusMachine MakeTorus(std::vector<int32_t> dims, bool wrap) {
  std::vector<bool> w(dims.size(), wrap);
  return *TorusMachine::Create(std::move(dims), std::move(w));
}

TEST(TorusTest, NumberingIsFirstCoordinateFastest) {
  TorusMachine t = MakeTorus({4, 3, 2}, true);
  EXPECT_EQ(t.num_nodes(), 24);
  std::vector<int32_t> c(3);
  t.Coordinates(1, c);
  EXPECT_THAT(c, ElementsAre(1, 0, 0));
  t.Coordinates(4, c);
  EXPECT_THAT(c, ElementsAre(0, 1, 0));
  t.Coordinates(23, c);
  EXPECT_THAT(c, ElementsAre(3, 2, 1));
  const int32_t xyz[] = {2, 1, 1};
  EXPECT_EQ(t.NodeAt(xyz), 2 + 4 * (1 + 3 * 1));
}

TEST(TorusTest, HopsWrapAndMesh) {
  TorusMachine torus = MakeTorus({8, 8, 8}, true);
  TorusMachine mesh = MakeTorus({8, 8, 8}, false);
  // (0,0,0) to (7,0,0): 1 hop round the torus, 7 on the mesh.
  EXPECT_EQ(torus.Hops(0, 7), 1);
  EXPECT_EQ(mesh.Hops(0, 7), 7);
  // (1,2,3) to (6,7,0): torus min(5,3)+min(5,3)+min(3,5) = 9; mesh 5+5+3 = 13.
  const int32_t a[] = {1, 2, 3}, b[] = {6, 7, 0};
  EXPECT_EQ(torus.Hops(torus.NodeAt(a), torus.NodeAt(b)), 9);
  EXPECT_EQ(mesh.Hops(mesh.NodeAt(a), mesh.NodeAt(b)), 13);
  EXPECT_EQ(torus.max_hops(), 12);
  EXPECT_EQ(mesh.max_hops(), 21);
  EXPECT_EQ(torus.kind(), "torus");
  EXPECT_EQ(mesh.kind(), "mesh");
}

TEST(TorusTest, MixedWrapSpec) {
  auto t = TorusMachine::Create({4, 4}, {true, false});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->Spec(), "torus:4x4:wrap=10:cores=1");
  EXPECT_EQ(t->Hops(0, 3), 1);
  EXPECT_EQ(t->Hops(0, 12), 3);
}

TEST(TorusTest, RejectsBadDims) {
  EXPECT_THAT(TorusMachine::Create({4, 0}, {true, true}).status().message(),
              HasSubstr("dimension 1 has size 0"));
  EXPECT_THAT(TorusMachine::Create({}, {}).status().message(), HasSubstr("at least one"));
  EXPECT_THAT(TorusMachine::Create({65536, 65536}, {true, true}).status().message(),
              HasSubstr("more nodes"));
}

TEST(TorusTest, DimensionOrderRouteGoesDim0FirstAndPositiveAtHalfWay) {
  TorusMachine t = MakeTorus({4, 4}, true);
  // (0,0) -> (2,1): x is exactly half way (2 of 4): positive; then y +1.
  std::vector<std::string> links;
  t.ForEachRouteLink(0, 2 + 4 * 1, Routing::kDimensionOrder, [&](int64_t link, double share) {
    EXPECT_EQ(share, 1.0);
    links.push_back(t.LinkName(link));
  });
  EXPECT_THAT(links, ElementsAre("(0,0)->(1,0)", "(1,0)->(2,0)", "(2,0)->(2,1)"));
  links.clear();
  // (0,0) -> (3,0): the shorter way is -1 round the wrap.
  t.ForEachRouteLink(0, 3, Routing::kDimensionOrder,
                     [&](int64_t link, double) { links.push_back(t.LinkName(link)); });
  EXPECT_THAT(links, ElementsAre("(0,0)->(3,0)"));
  // (3,2) -> (0,1): +1 round the wrap in x, then -1 in y.
  links.clear();
  t.ForEachRouteLink(3 + 4 * 2, 0 + 4 * 1, Routing::kDimensionOrder,
                     [&](int64_t link, double) { links.push_back(t.LinkName(link)); });
  EXPECT_THAT(links, ElementsAre("(3,2)->(0,2)", "(0,2)->(0,1)"));
  // Every pair of a torus with a dimension that does not wrap: a route of Hops links.
  const TorusMachine mixed = *TorusMachine::Create({5, 4, 3}, {true, false, true});
  for (NodeId a = 0; a < 60; ++a) {
    for (NodeId b = 0; b < 60; ++b) {
      int32_t count = 0;
      mixed.ForEachRouteLink(a, b, Routing::kDimensionOrder, [&](int64_t, double) { ++count; });
      EXPECT_EQ(count, mixed.Hops(a, b)) << a << " -> " << b;
    }
  }
}

TEST(TorusTest, AdaptiveRouteSplitsOverMinimalPaths) {
  TorusMachine t = MakeTorus({8, 8}, false);
  // (0,0) -> (1,1): two minimal paths, each link carries half.
  std::map<std::string, double> shares;
  t.ForEachRouteLink(0, 1 + 8, Routing::kAdaptive,
                     [&](int64_t link, double share) { shares[t.LinkName(link)] += share; });
  EXPECT_EQ(shares.size(), 4u);
  for (const auto& [name, share] : shares) EXPECT_DOUBLE_EQ(share, 0.5) << name;
  // (0,0) -> (2,1): 3 paths; the first x link is used by 2 of them.
  shares.clear();
  double total = 0;
  t.ForEachRouteLink(0, 2 + 8, Routing::kAdaptive, [&](int64_t link, double share) {
    shares[t.LinkName(link)] += share;
    total += share;
  });
  EXPECT_NEAR(shares["(0,0)->(1,0)"], 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(shares["(0,0)->(0,1)"], 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(total, 3.0, 1e-12);  // the shares add up to the path length
  // Exactly half way on a torus: both directions, half each.
  TorusMachine ring = MakeTorus({4}, true);
  shares.clear();
  ring.ForEachRouteLink(0, 2, Routing::kAdaptive,
                        [&](int64_t link, double share) { shares[ring.LinkName(link)] += share; });
  EXPECT_DOUBLE_EQ(shares["(0)->(1)"], 0.5);
  EXPECT_DOUBLE_EQ(shares["(0)->(3)"], 0.5);
}

TEST(TorusTest, BallSizesMatchBruteForce) {
  for (bool wrap : {true, false}) {
    TorusMachine t = MakeTorus({5, 4, 3}, wrap);
    std::vector<int64_t> balls = t.BallSizeUpperBounds();
    ASSERT_EQ(balls.size(), static_cast<size_t>(t.max_hops() + 1));
    for (int32_t h = 0; h <= t.max_hops(); ++h) {
      int64_t best = 0;
      for (NodeId a = 0; a < t.num_nodes(); ++a) {
        int64_t count = 0;
        for (NodeId b = 0; b < t.num_nodes(); ++b) count += t.Hops(a, b) <= h;
        best = std::max(best, count);
      }
      EXPECT_EQ(balls[h], best) << "h=" << h << " wrap=" << wrap;
    }
  }
}

TEST(AllocationTest, SlotsAndValidation) {
  auto machine = std::make_shared<TorusMachine>(MakeTorus({4, 4}, true));
  auto a = Allocation::Create(machine, {5, 0, 15}, 2);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->num_slots(), 6);
  EXPECT_EQ(a->NodeOfSlot(1), 5);
  EXPECT_EQ(a->NodeOfSlot(2), 0);
  EXPECT_EQ(a->CoreOfSlot(3), 1);
  EXPECT_TRUE(a->has_dense_hops());
  EXPECT_EQ(a->HopsBetweenSlots(0, 5), machine->Hops(5, 15));
  auto sparse = Allocation::Create(machine, {5, 0, 15}, 2, /*dense_limit=*/0);
  EXPECT_FALSE(sparse->has_dense_hops());
  EXPECT_EQ(sparse->HopsBetweenSlots(0, 5), machine->Hops(5, 15));

  EXPECT_THAT(Allocation::Create(machine, {1, 16}, 1).status().message(),
              HasSubstr("node 16 (position 1) is outside the machine"));
  EXPECT_THAT(Allocation::Create(machine, {3, 1, 3}, 1).status().message(),
              HasSubstr("node 3 (nid00003) is listed twice, at positions 0 and 2"));
  EXPECT_THAT(Allocation::Create(machine, {}, 1).status().message(), HasSubstr("no nodes"));
  EXPECT_THAT(Allocation::Create(machine, {1}, 0).status().message(), HasSubstr("cores"));

  const SlotId good[] = {5, 0, 2};
  EXPECT_TRUE(ValidateMapping(*a, 3, good).ok());
  const SlotId twice[] = {1, 1};
  EXPECT_THAT(ValidateMapping(*a, 2, twice).message(), HasSubstr("both on slot 1"));
  const SlotId outside[] = {6};
  EXPECT_THAT(ValidateMapping(*a, 1, outside).message(), HasSubstr("outside"));
  EXPECT_THAT(ValidateMapping(*a, 2, outside).message(), HasSubstr("graph has 2 tasks"));
}

}  // namespace
}  // namespace hopmap
