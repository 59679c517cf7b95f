// CanonicalOrder numbers a graph's tasks from its structure: the same graph under
// any numbering gets the same order (as tasks of the graph, not as ids).
#include "core/graph/canonical_order.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "core/graph/generators.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

TaskGraph RandomGeometric(int32_t tasks) {
  GeneratorOptions options;
  options.kind = "random-geometric";
  options.tasks = tasks;
  absl::StatusOr<TaskGraph> graph = GenerateGraph(options);
  EXPECT_TRUE(graph.ok()) << graph.status();
  return *std::move(graph);
}

// Task i of the result is task old_id[i] of `graph`.
TaskGraph Renumber(const TaskGraph& graph, uint64_t seed, std::vector<TaskId>& old_id) {
  old_id.resize(graph.num_tasks());
  std::iota(old_id.begin(), old_id.end(), 0);
  std::mt19937_64 random(seed);
  std::shuffle(old_id.begin(), old_id.end(), random);
  absl::StatusOr<TaskGraph> renumbered = InducedSubgraph(graph, old_id);
  EXPECT_TRUE(renumbered.ok()) << renumbered.status();
  return *std::move(renumbered);
}

// Renumbered at random, the graph in its canonical order is the same graph, edge
// for edge. (Tasks whose labels tie here are twins, two close points with the same
// neighbours: either order gives the same graph.)
TEST(CanonicalOrderTest, EveryNumberingOfARandomGeometricGraphGetsTheSameOrder) {
  const TaskGraph graph = RandomGeometric(4096);
  EXPECT_GT(CanonicalLabelCount(graph), graph.num_tasks() * 9 / 10);
  const std::vector<TaskId> order = CanonicalOrder(graph);
  // A permutation of the tasks.
  std::vector<TaskId> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (TaskId t = 0; t < graph.num_tasks(); ++t) ASSERT_EQ(sorted[t], t);
  absl::StatusOr<TaskGraph> canonical = InducedSubgraph(graph, order);
  ASSERT_TRUE(canonical.ok()) << canonical.status();
  // The given numbering is not already canonical (the test could not fail).
  EXPECT_NE(canonical->adjncy(), graph.adjncy());
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    std::vector<TaskId> old_id;
    const TaskGraph renumbered = Renumber(graph, seed, old_id);
    absl::StatusOr<TaskGraph> again = InducedSubgraph(renumbered, CanonicalOrder(renumbered));
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(again->xadj(), canonical->xadj()) << "seed " << seed;
    EXPECT_EQ(again->adjncy(), canonical->adjncy()) << "seed " << seed;
    EXPECT_EQ(again->adjwgt(), canonical->adjwgt()) << "seed " << seed;
  }
}

// The canonical graph of `graph` and of three random renumberings of it are one.
void ExpectTheSameCanonicalGraph(const TaskGraph& graph) {
  absl::StatusOr<TaskGraph> canonical = graph.Permuted(CanonicalOrder(graph));
  ASSERT_TRUE(canonical.ok()) << canonical.status();
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    std::vector<TaskId> old_id;
    const TaskGraph renumbered = Renumber(graph, seed, old_id);
    absl::StatusOr<TaskGraph> again = renumbered.Permuted(CanonicalOrder(renumbered));
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(again->adjncy(), canonical->adjncy()) << "seed " << seed;
    EXPECT_EQ(again->adjwgt(), canonical->adjwgt()) << "seed " << seed;
  }
}

// Colour refinement alone leaves these tied: the four tasks of two triangles hanging
// off one hub (placed one at a time, each told apart by the ones before), and the
// inside of a grid without wrap (told apart by where their surroundings sit).
TEST(CanonicalOrderTest, TiesColourRefinementLeavesAreBrokenByTheOrderSoFar) {
  TaskGraphBuilder triangles(9);  // hub 0; triangles 0-1-2, 0-3-4; a tail 0-5-6-7-8
  for (auto [u, v] : std::vector<std::pair<TaskId, TaskId>>{
           {0, 1}, {1, 2}, {2, 0}, {0, 3}, {3, 4}, {4, 0}, {0, 5}, {5, 6}, {6, 7}, {7, 8}}) {
    ASSERT_TRUE(triangles.AddTraffic(u, v, 1).ok());
  }
  absl::StatusOr<TaskGraph> hub = std::move(triangles).Build();
  ASSERT_TRUE(hub.ok());
  ExpectTheSameCanonicalGraph(*hub);

  GeneratorOptions options;
  options.kind = "stencil2d-5";
  options.dims = {30, 20};
  absl::StatusOr<TaskGraph> grid = GenerateGraph(options);
  ASSERT_TRUE(grid.ok()) << grid.status();
  EXPECT_LT(CanonicalLabelCount(*grid), grid->num_tasks());
  ExpectTheSameCanonicalGraph(*grid);
}

TEST(CanonicalOrderTest, LoadsAndBytesTellTasksApart) {
  // A ring of 6: every task alike (one label), so the ids decide.
  TaskGraphBuilder ring(6);
  for (TaskId t = 0; t < 6; ++t) ASSERT_TRUE(ring.AddTraffic(t, (t + 1) % 6, 10).ok());
  absl::StatusOr<TaskGraph> graph = std::move(ring).Build();
  ASSERT_TRUE(graph.ok());
  EXPECT_EQ(CanonicalLabelCount(*graph), 1);
  // One heavier load splits the ring into the task and its mirror pairs.
  const std::vector<double> loads = {1, 1, 1, 5, 1, 1};
  EXPECT_EQ(CanonicalLabelCount(*graph, loads), 4);
  EXPECT_EQ(CanonicalOrder(*graph, loads).size(), 6u);

  // A path 0-1-2 whose edges differ in bytes: the ends are told apart.
  TaskGraphBuilder path(3);
  ASSERT_TRUE(path.AddTraffic(0, 1, 10).ok());
  ASSERT_TRUE(path.AddTraffic(1, 2, 20).ok());
  absl::StatusOr<TaskGraph> weighted = std::move(path).Build();
  ASSERT_TRUE(weighted.ok());
  EXPECT_EQ(CanonicalLabelCount(*weighted), 3);
}

TEST(CanonicalOrderTest, EveryComponentAndIsolatedTaskIsOrdered) {
  TaskGraphBuilder builder(7);  // 0-1, 2-3-4, and 5, 6 alone
  ASSERT_TRUE(builder.AddTraffic(0, 1, 1).ok());
  ASSERT_TRUE(builder.AddTraffic(2, 3, 1).ok());
  ASSERT_TRUE(builder.AddTraffic(3, 4, 1).ok());
  absl::StatusOr<TaskGraph> graph = std::move(builder).Build();
  ASSERT_TRUE(graph.ok());
  std::vector<TaskId> order = CanonicalOrder(*graph);
  std::sort(order.begin(), order.end());
  EXPECT_EQ(order, (std::vector<TaskId>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(CanonicalOrder(TaskGraph()).empty());
}

}  // namespace
}  // namespace hopmap
