#include "core/graph/task_graph.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(TaskGraphBuilderTest, MergesDirectionsAndDuplicates) {
  TaskGraphBuilder b(3);
  ASSERT_TRUE(b.AddTraffic(0, 1, 10).ok());
  ASSERT_TRUE(b.AddTraffic(1, 0, 5).ok());
  ASSERT_TRUE(b.AddTraffic(0, 1, 1).ok());
  ASSERT_TRUE(b.AddTraffic(2, 2, 7).ok());
  ASSERT_TRUE(b.AddTraffic(1, 2, 0).ok());
  auto g = std::move(b).Build();
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->num_tasks(), 3);
  EXPECT_EQ(g->num_edges(), 1);
  EXPECT_THAT(g->xadj(), ElementsAre(0, 1, 2, 2));
  EXPECT_THAT(g->adjncy(), ElementsAre(1, 0));
  EXPECT_THAT(g->adjwgt(), ElementsAre(16, 16));
  EXPECT_EQ(g->total_bytes(), 16);
  EXPECT_EQ(g->self_bytes(), 7);
}

TEST(TaskGraphBuilderTest, RejectsOutOfRangeAndNegative) {
  TaskGraphBuilder b(2);
  EXPECT_THAT(b.AddTraffic(0, 2, 1).message(), HasSubstr("task 2 out of range"));
  EXPECT_THAT(b.AddTraffic(0, 1, -3).message(), HasSubstr("negative weight"));
}

TEST(TaskGraphTest, FromCsrValidates) {
  EXPECT_TRUE(TaskGraph::FromCsr({0, 1, 2}, {1, 0}, {4, 4}).ok());
  EXPECT_THAT(TaskGraph::FromCsr({0, 2, 1}, {1, 0}, {4, 4}).status().message(),
              HasSubstr("not monotone"));
  EXPECT_THAT(TaskGraph::FromCsr({0, 1, 2}, {2, 0}, {4, 4}).status().message(),
              HasSubstr("out of range"));
  EXPECT_THAT(TaskGraph::FromCsr({0, 1, 2}, {1, 0}, {4, 5}).status().message(),
              HasSubstr("not symmetric"));
  EXPECT_THAT(TaskGraph::FromCsr({0, 1, 1}, {1}, {4}).status().message(),
              HasSubstr("no reverse edge"));
  EXPECT_THAT(TaskGraph::FromCsr({0, 1, 2}, {1, 0}, {-1, -1}).status().message(),
              HasSubstr("must be positive"));
  EXPECT_THAT(TaskGraph::FromCsr({0, 1, 2}, {0, 1}, {1, 1}).status().message(),
              HasSubstr("self loop"));
  EXPECT_THAT(TaskGraph::FromCsr({0, 2, 3, 4}, {1, 1, 0, 0}, {1, 1, 1, 1}).status().message(),
              HasSubstr("twice"));
  EXPECT_THAT(TaskGraph::FromCsr({1, 2}, {0}, {1}).status().message(), HasSubstr("xadj[0]"));
}

}  // namespace
}  // namespace hopmap
