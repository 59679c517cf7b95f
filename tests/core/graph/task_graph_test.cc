#include "core/graph/task_graph.h"

#include "absl/strings/str_cat.h"
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

// The symmetry check runs over blocks of rows in parallel; the error still names the
// first bad edge in task order, whichever block finds its fault first. A ring of
// 100,000 tasks with two asymmetric weights, far apart.
TEST(TaskGraphTest, FromCsrNamesTheFirstAsymmetricEdge) {
  constexpr TaskId n = 100000;
  for (const TaskId first_bad : {TaskId{7}, TaskId{60000}}) {
    std::vector<EdgeIndex> xadj(n + 1);
    std::vector<TaskId> adjncy;
    std::vector<Bytes> adjwgt;
    for (TaskId u = 0; u < n; ++u) {
      xadj[u] = static_cast<EdgeIndex>(adjncy.size());
      for (const TaskId v : {(u + n - 1) % n, (u + 1) % n}) {
        adjncy.push_back(v);
        // u's edge to u + 1 weighs 9 at first_bad and at 90000; the reverse weighs 5.
        adjwgt.push_back(v == (u + 1) % n && (u == first_bad || u == 90000) ? 9 : 5);
      }
    }
    xadj[n] = static_cast<EdgeIndex>(adjncy.size());
    const absl::StatusOr<TaskGraph> g = TaskGraph::FromCsr(xadj, adjncy, adjwgt);
    ASSERT_FALSE(g.ok());
    EXPECT_EQ(g.status().message(),
              absl::StrCat("graph is not symmetric: edge ", first_bad, "-", first_bad + 1,
                           " weighs 9 but ", first_bad + 1, "-", first_bad, " weighs 5"));
  }
}

// The tasks {3, 0, 2} of a path 0-1-2-3 with a chord 0-3: local 0 is task 3, local 1
// task 0, local 2 task 2; the edges 0-3 and 2-3 stay, those through task 1 go.
TEST(TaskGraphTest, InducedSubgraphKeepsTheEdgesAmongTheTasks) {
  TaskGraphBuilder builder(4);
  ASSERT_TRUE(builder.AddTraffic(0, 1, 5).ok());
  ASSERT_TRUE(builder.AddTraffic(1, 2, 6).ok());
  ASSERT_TRUE(builder.AddTraffic(2, 3, 7).ok());
  ASSERT_TRUE(builder.AddTraffic(0, 3, 8).ok());
  const TaskGraph graph = *std::move(builder).Build();
  const std::vector<TaskId> tasks = {3, 0, 2};
  absl::StatusOr<TaskGraph> sub = InducedSubgraph(graph, tasks);
  ASSERT_TRUE(sub.ok()) << sub.status();
  EXPECT_EQ(sub->num_tasks(), 3);
  EXPECT_EQ(sub->num_edges(), 2);
  EXPECT_EQ(sub->total_bytes(), 15);
  std::vector<std::pair<TaskId, Bytes>> of_first;
  sub->ForEachNeighbor(0, [&](TaskId u, Bytes w) { of_first.push_back({u, w}); });
  EXPECT_THAT(of_first,
              ::testing::UnorderedElementsAre(std::make_pair(1, 8), std::make_pair(2, 7)));
}

// Permuted is the whole graph induced in a new order, and refuses an order that is
// not a permutation.
TEST(TaskGraphTest, PermutedIsTheSameGraphInTheNewOrder) {
  TaskGraphBuilder builder(5);
  ASSERT_TRUE(builder.AddTraffic(0, 1, 5).ok());
  ASSERT_TRUE(builder.AddTraffic(1, 2, 6).ok());
  ASSERT_TRUE(builder.AddTraffic(2, 3, 7).ok());
  ASSERT_TRUE(builder.AddTraffic(0, 3, 8).ok());
  ASSERT_TRUE(builder.AddTraffic(4, 4, 9).ok());  // self traffic, task 4 otherwise alone
  const TaskGraph graph = *std::move(builder).Build();
  const std::vector<TaskId> order = {3, 4, 0, 2, 1};
  absl::StatusOr<TaskGraph> permuted = graph.Permuted(order);
  ASSERT_TRUE(permuted.ok()) << permuted.status();
  absl::StatusOr<TaskGraph> induced = InducedSubgraph(graph, order);
  ASSERT_TRUE(induced.ok()) << induced.status();
  EXPECT_EQ(permuted->xadj(), induced->xadj());
  EXPECT_EQ(permuted->adjncy(), induced->adjncy());
  EXPECT_EQ(permuted->adjwgt(), induced->adjwgt());
  EXPECT_EQ(permuted->total_bytes(), graph.total_bytes());
  EXPECT_EQ(permuted->self_bytes(), 9);

  EXPECT_THAT(graph.Permuted(std::vector<TaskId>{0, 1, 2}).status().message(),
              ::testing::HasSubstr("has 3 tasks, the graph 5"));
  EXPECT_THAT(graph.Permuted(std::vector<TaskId>{0, 1, 2, 2, 4}).status().message(),
              ::testing::HasSubstr("names task 2 twice"));
  EXPECT_THAT(graph.Permuted(std::vector<TaskId>{0, 1, 2, 3, 7}).status().message(),
              ::testing::HasSubstr("task 7 twice or out of range"));
}

}  // namespace
}  // namespace hopmap
