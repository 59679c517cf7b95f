#include "core/topology/hierarchy.h"

#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The definition, written out: s and t share level i when
// s / (A1*...*Ai) == t / (A1*...*Ai); their distance is Di for the lowest such i.
int32_t DefinedDistance(const std::vector<int32_t>& a, const std::vector<int32_t>& d, int64_t s,
                        int64_t t) {
  if (s == t) return 0;
  int64_t group = 1;
  for (size_t i = 0; i < a.size(); ++i) {
    group *= a[i];
    if (s / group == t / group) return d[i];
  }
  return -1;
}

TEST(HierarchyTest, DistancesFollowTheDefinition) {
  const std::vector<int32_t> arities = {4, 2, 3};
  const std::vector<int32_t> distances = {1, 10, 100};
  absl::StatusOr<HierarchyMachine> m = HierarchyMachine::Create(arities, distances);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->num_nodes(), 24);
  for (NodeId s = 0; s < 24; ++s) {
    for (NodeId t = 0; t < 24; ++t) {
      EXPECT_EQ(m->Hops(s, t), DefinedDistance(arities, distances, s, t)) << s << " " << t;
    }
  }
  EXPECT_EQ(m->Hops(0, 3), 1);
  EXPECT_EQ(m->Hops(0, 4), 10);
  EXPECT_EQ(m->Hops(7, 8), 100);
  EXPECT_EQ(m->min_hops(), 1);
  EXPECT_EQ(m->max_hops(), 100);
  EXPECT_EQ(m->Spec(), "hierarchy:4x2x3:distances=1,10,100");
  EXPECT_THAT(m->dims(), ElementsAre(4, 2, 3));
  EXPECT_THAT(m->dim_names(), ElementsAre("L1", "L2", "L3"));
  std::vector<int32_t> coordinates(3);
  m->Coordinates(13, coordinates);  // 13 = 1 + 4 * (1 + 2 * 1)
  EXPECT_THAT(coordinates, ElementsAre(1, 1, 1));
}

// Hops() reads packed digits (no divisions) unless the digits need more than 64
// bits; both ways must give the definition's distances, with levels of arity 1
// (no bits), arities that are not powers of two, and equal distances on two levels.
TEST(HierarchyTest, PackedDistancesFollowTheDefinition) {
  const std::vector<std::pair<std::vector<int32_t>, std::vector<int32_t>>> cases = {
      {{3, 1, 5, 2}, {1, 4, 4, 9}},
      {{1, 6, 7}, {2, 3, 50}},
      {{2, 2, 2, 2, 2, 2}, {1, 2, 3, 4, 5, 6}},
      {{5}, {7}},
      // 8 levels of 2 PEs: a bit each.
      {std::vector<int32_t>(8, 2), std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8}},
  };
  for (const auto& [arities, distances] : cases) {
    absl::StatusOr<HierarchyMachine> m = HierarchyMachine::Create(arities, distances);
    ASSERT_TRUE(m.ok()) << m.status();
    for (NodeId s = 0; s < m->num_nodes(); ++s) {
      for (NodeId t = 0; t < m->num_nodes(); ++t) {
        ASSERT_EQ(m->Hops(s, t), DefinedDistance(arities, distances, s, t))
            << m->Spec() << ": " << s << " " << t;
      }
    }
  }
  // Above 2^22 PEs Hops() divides instead (8 bytes of digits a PE would be too
  // much); the same distances, on a sample of pairs.
  const std::vector<int32_t> big_arities = {7, 1024, 600};
  const std::vector<int32_t> big_distances = {1, 10, 100};
  absl::StatusOr<HierarchyMachine> big = HierarchyMachine::Create(big_arities, big_distances);
  ASSERT_TRUE(big.ok()) << big.status();
  ASSERT_GT(big->num_nodes(), NodeId{1} << 22);
  for (NodeId s = 0; s < big->num_nodes(); s += 999'983) {
    for (NodeId t : {NodeId{0}, s + 1, s + 7, s + 7 * 1024, big->num_nodes() - 1}) {
      if (t >= big->num_nodes()) continue;
      ASSERT_EQ(big->Hops(s, t), DefinedDistance(big_arities, big_distances, s, t))
          << s << " " << t;
    }
  }
}

TEST(HierarchyTest, BallSizesAreExact) {
  absl::StatusOr<HierarchyMachine> m = HierarchyMachine::Create({2, 3, 2}, {2, 5, 9});
  ASSERT_TRUE(m.ok());
  const std::vector<int64_t> balls = m->BallSizeUpperBounds();
  ASSERT_EQ(balls.size(), 10u);
  for (int32_t h = 0; h <= 9; ++h) {
    int64_t count = 0;
    for (NodeId t = 0; t < m->num_nodes(); ++t) count += m->Hops(0, t) <= h;
    EXPECT_EQ(balls[h], count) << h;
  }
  // A level of one group adds no distance: min and max skip it.
  absl::StatusOr<HierarchyMachine> thin = HierarchyMachine::Create({1, 4, 1}, {1, 10, 100});
  ASSERT_TRUE(thin.ok());
  EXPECT_EQ(thin->min_hops(), 10);
  EXPECT_EQ(thin->max_hops(), 10);
}

TEST(HierarchyTest, RoutesClimbTheTreeOfLevels) {
  absl::StatusOr<HierarchyMachine> m = HierarchyMachine::Create({4, 4}, {1, 10});
  ASSERT_TRUE(m.ok());
  auto route = [&](NodeId a, NodeId b) {
    std::vector<std::string> names;
    m->ForEachRouteLink(a, b, Routing::kDimensionOrder, [&](int64_t link, double share) {
      EXPECT_EQ(share, 1.0);
      names.push_back(m->LinkName(link));
    });
    return names;
  };
  EXPECT_EQ(route(0, 1).size(), 2u);   // up to the group's switch and down
  EXPECT_EQ(route(0, 15).size(), 4u);  // through the top
  std::set<int64_t> links;
  for (NodeId a = 0; a < 16; ++a) {
    for (NodeId b = 0; b < 16; ++b) {
      m->ForEachRouteLink(a, b, Routing::kAdaptive, [&](int64_t link, double) {
        EXPECT_LT(link, m->num_links());
        links.insert(link);
      });
    }
  }
  EXPECT_EQ(static_cast<int64_t>(links.size()), m->num_links());
}

}  // namespace
}  // namespace hopmap
