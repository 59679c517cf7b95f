#include "core/topology/distance_matrix.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string CreateError(int32_t n, std::vector<int32_t> hops, std::vector<std::string> names = {}) {
  absl::StatusOr<DistanceMatrixMachine> m =
      DistanceMatrixMachine::Create(n, std::move(hops), std::move(names));
  EXPECT_FALSE(m.ok());
  return m.ok() ? "" : std::string(m.status().message());
}

TEST(DistanceMatrixTest, HopsAndBounds) {
  absl::StatusOr<DistanceMatrixMachine> m = DistanceMatrixMachine::Create(3, {0, 1, 5,  //
                                                                              1, 0, 2,  //
                                                                              5, 2, 0});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->kind(), "matrix");
  EXPECT_EQ(m->Spec(), "matrix:3");
  EXPECT_EQ(m->num_nodes(), 3);
  EXPECT_EQ(m->Hops(0, 2), 5);
  EXPECT_EQ(m->Hops(2, 1), 2);
  EXPECT_EQ(m->Hops(1, 1), 0);
  EXPECT_EQ(m->min_hops(), 1);
  EXPECT_EQ(m->max_hops(), 5);
  EXPECT_EQ(m->num_links(), 0);
  EXPECT_EQ(m->LinkName(0), "");
  int visits = 0;
  m->ForEachRouteLink(0, 2, Routing::kAdaptive, [&](int64_t, double) { ++visits; });
  EXPECT_EQ(visits, 0);
  EXPECT_EQ(m->NodeName(2), "nid00002");
  m->set_source("/tmp/x.txt");
  EXPECT_EQ(m->Spec(), "matrix:/tmp/x.txt");
  // Ball sizes (exact, from the base class): node 1 has node 0 at 1 hop and node 2 at 2.
  EXPECT_THAT(m->BallSizeUpperBounds(), ElementsAre(1, 2, 3, 3, 3, 3));
}

TEST(DistanceMatrixTest, NamesAndSingleNode) {
  absl::StatusOr<DistanceMatrixMachine> m =
      DistanceMatrixMachine::Create(2, {0, 3, 3, 0}, {"h1", "h2"});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->NodeName(1), "h2");
  EXPECT_EQ(m->node_names().Find("h1", 2), 0);
  EXPECT_EQ(m->min_hops(), 3);
  absl::StatusOr<DistanceMatrixMachine> one = DistanceMatrixMachine::Create(1, {0});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->min_hops(), 0);
  EXPECT_EQ(one->max_hops(), 0);
}

TEST(DistanceMatrixTest, Errors) {
  std::vector<int32_t> hops(36, 1);
  for (int i = 0; i < 6; ++i) hops[i * 6 + i] = 0;
  hops[3 * 6 + 5] = 2;
  hops[5 * 6 + 3] = 4;
  EXPECT_EQ(CreateError(6, hops), "distance matrix: hops[3][5] = 2 but hops[5][3] = 4");
  std::optional<HopMatrixProblem> problem = FindHopMatrixProblem(6, hops);
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->row, 3);
  EXPECT_EQ(problem->col, 5);

  EXPECT_EQ(CreateError(2, {0, 1, 1, 7}),
            "distance matrix: hops[1][1] = 7 but a node is 0 hops from itself");
  EXPECT_EQ(CreateError(2, {0, -1, -1, 0}), "distance matrix: hops[0][1] = -1 is negative");
  EXPECT_THAT(CreateError(2, {0, 2000000, 2000000, 0}), HasSubstr("above the largest supported"));
  EXPECT_THAT(CreateError(2, {0, 1, 1}), HasSubstr("3 entries for 2 nodes (need 4)"));
  EXPECT_THAT(CreateError(0, {}), HasSubstr("0 nodes"));
  EXPECT_THAT(CreateError(2, {0, 1, 1, 0}, {"a"}), HasSubstr("1 names for 2 nodes"));
  EXPECT_THAT(CreateError(2, {0, 1, 1, 0}, {"a", "a"}), HasSubstr("node name 'a'"));
  EXPECT_FALSE(FindHopMatrixProblem(2, std::vector<int32_t>{0, 1, 1, 0}).has_value());
}

}  // namespace
}  // namespace hopmap
