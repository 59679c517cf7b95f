// The MPI-free parts of libhopmap_mpi: the recording's text (read back by hopmap's
// own edge-list reader) and the reorder plan (patterns, node layout, vertices).
#include <string>
#include <vector>

#include "client/mpi/record_format.h"
#include "client/mpi/reorder_plan.h"
#include "core/io/graph_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap::mpi {
namespace {

using ::testing::HasSubstr;

TEST(RecordFormatTest, RankRangesCompressRuns) {
  EXPECT_EQ(RankRanges({}), "");
  EXPECT_EQ(RankRanges({3}), "3");
  EXPECT_EQ(RankRanges({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
}

TEST(RecordFormatTest, TheRecordIsAnEdgeListHopmapReads) {
  RecordHeader header;
  header.ranks = 4;
  header.date = "2026-11-25T08:00:00Z";
  header.program = "./halo";
  header.host_of_rank = {"a", "a", "b", "b"};
  // A repeated pair is summed; rank 3 sends nothing.
  std::vector<PairTraffic> pairs = {{0, 1, 2, 100}, {1, 0, 1, 50}, {2, 1, 1, 7}, {0, 1, 1, 10}};
  CollectiveTable collectives;
  MergeCollective(&collectives, "0-3", "allreduce", {5, 40});
  MergeCollective(&collectives, "0-3", "allreduce", {5, 40});
  const std::string text = FormatRecord(header, pairs, collectives);
  EXPECT_THAT(text, HasSubstr("# tasks: 4\n"));
  EXPECT_THAT(text, HasSubstr("# host a: ranks 0-1\n# host b: ranks 2-3\n"));
  EXPECT_THAT(text, HasSubstr("# point-to-point: 5 messages, 167 bytes"));
  EXPECT_THAT(text, HasSubstr("0 1 110 # msgs=3\n"));
  EXPECT_THAT(text, HasSubstr("# collective allreduce ranks=0-3 calls=5 bytes=80\n"));

  absl::StatusOr<TaskGraph> graph = ParseGraph(text, GraphFormat::kEdgeList, "record");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->num_tasks(), 4);  // the declared count keeps the silent rank 3
  EXPECT_EQ(graph->total_bytes(), 167);
}

TEST(RecordFormatTest, CollectiveLinesRoundTrip) {
  std::string ranks, op;
  CollectiveTraffic traffic;
  ASSERT_TRUE(
      ParseCollectiveLine(CollectiveLine("0,2-5", "ibcast", {3, 96}), &ranks, &op, &traffic));
  EXPECT_EQ(ranks, "0,2-5");
  EXPECT_EQ(op, "ibcast");
  EXPECT_EQ(traffic.calls, 3);
  EXPECT_EQ(traffic.bytes, 96);
  EXPECT_FALSE(ParseCollectiveLine("0-3 bcast x", &ranks, &op, &traffic));
}

TEST(ReorderPlanTest, CartPatternIsTheHaloOfEachDimension) {
  const int dims[] = {3, 4};
  const int periodic[] = {1, 1};
  absl::StatusOr<TaskGraph> torus = CartPattern(dims, periodic);
  ASSERT_TRUE(torus.ok()) << torus.status();
  EXPECT_EQ(torus->num_tasks(), 12);
  EXPECT_EQ(torus->total_bytes(), 12 * 4);  // one unit to each of 4 neighbours
  EXPECT_EQ(torus->xadj()[1] - torus->xadj()[0], 4);
  const int open[] = {0, 0};
  absl::StatusOr<TaskGraph> mesh = CartPattern(dims, open);
  ASSERT_TRUE(mesh.ok());
  EXPECT_EQ(mesh->xadj()[1] - mesh->xadj()[0], 2);  // a corner
  EXPECT_EQ(mesh->total_bytes(), 2 * (3 * 3 + 2 * 4));
  const int bad[] = {3, 0};
  EXPECT_THAT(CartPattern(bad, periodic).status().message(), HasSubstr("dims[1] is 0"));
}

TEST(ReorderPlanTest, GraphAndEdgePatternsCheckTheirRanks) {
  const int index[] = {1, 2, 3};
  const int edges[] = {1, 2, 0};
  absl::StatusOr<TaskGraph> ring = GraphPattern(3, index, edges);
  ASSERT_TRUE(ring.ok());
  EXPECT_EQ(ring->total_bytes(), 3);
  const int out_of_range[] = {1, 2, 3};
  EXPECT_THAT(GraphPattern(3, index, out_of_range).status().message(), HasSubstr("edges[2] is 3"));
  const std::vector<WeightedEdge> weighted = {{0, 1, 10}, {1, 0, 10}, {1, 2, 1}};
  absl::StatusOr<TaskGraph> graph = EdgesPattern(3, weighted);
  ASSERT_TRUE(graph.ok());
  EXPECT_EQ(graph->total_bytes(), 21);
  const std::vector<WeightedEdge> outside = {{0, 3, 1}};
  EXPECT_THAT(EdgesPattern(3, outside).status().message(), HasSubstr("0 -> 3"));
}

TEST(ReorderPlanTest, NodesInOrderOfTheirFirstProcess) {
  absl::StatusOr<NodeLayout> layout = LayOutNodes({"n2", "n1", "n2", "n1"});
  ASSERT_TRUE(layout.ok()) << layout.status();
  EXPECT_EQ(NodeList(*layout), "n2,n1");
  EXPECT_EQ(layout->processes_per_node, 2);
  EXPECT_EQ(layout->node_of_process, (std::vector<int32_t>{0, 1, 0, 1}));
  EXPECT_TRUE(layout->even());
  EXPECT_TRUE(PhantomSlotLoads(*layout).empty());
  EXPECT_EQ(layout->SlotOfProcess(), (std::vector<int32_t>{0, 2, 1, 3}));
  EXPECT_THAT(LayOutNodes({"a", "n[1-2]"}).status().message(), HasSubstr("'n[1-2]'"));
  EXPECT_THAT(LayOutNodes({"a", ""}).status().message(), HasSubstr("process 1 has no node name"));
}

TEST(ReorderPlanTest, VertexOfProcessFollowsTheSlots) {
  // Processes 0 and 2 on n2 (node position 0), 1 and 3 on n1 (position 1).
  absl::StatusOr<NodeLayout> layout = LayOutNodes({"n2", "n1", "n2", "n1"});
  ASSERT_TRUE(layout.ok());
  // Vertex 0 on slot 3 (n1, its second process: 3), vertex 1 on slot 0 (process 0),
  // vertex 2 on slot 2 (n1's first: 1); process 2 gets none.
  const std::vector<int32_t> slots = {3, 0, 2};
  absl::StatusOr<std::vector<int32_t>> vertices = VertexOfProcess(*layout, slots);
  ASSERT_TRUE(vertices.ok()) << vertices.status();
  EXPECT_EQ(*vertices, (std::vector<int32_t>{1, 2, -1, 0}));
  const std::vector<int32_t> repeated = {1, 1};
  EXPECT_THAT(VertexOfProcess(*layout, repeated).status().message(),
              HasSubstr("slot 1 holds vertices 0 and 1"));
  const std::vector<int32_t> outside = {4};
  EXPECT_THAT(VertexOfProcess(*layout, outside).status().message(), HasSubstr("not in [0, 4)"));
}

// A scheduler's uneven allocation: a gets 3 processes, b 1, c 2. Every node gets
// 3 slots; the slots past a node's processes are phantoms, loaded so that the
// balanced Map leaves them empty, and a vertex on one is refused.
TEST(ReorderPlanTest, UnevenNodesHavePhantomSlots) {
  absl::StatusOr<NodeLayout> layout = LayOutNodes({"a", "b", "a", "c", "a", "c"});
  ASSERT_TRUE(layout.ok()) << layout.status();
  EXPECT_FALSE(layout->even());
  EXPECT_EQ(layout->processes_per_node, 3);
  EXPECT_EQ(layout->processes_on_node, (std::vector<int32_t>{3, 1, 2}));
  // a: slots 0-2; b: 3 (4, 5 phantom); c: 6, 7 (8 phantom).
  EXPECT_EQ(layout->SlotOfProcess(), (std::vector<int32_t>{0, 3, 1, 6, 2, 7}));
  EXPECT_EQ(PhantomSlotLoads(*layout), (std::vector<double>{0, 0, 0, 0, 1, 1, 0, 0, 1}));
  // The identity comes back as the identity.
  const std::vector<int32_t> identity = layout->SlotOfProcess();
  absl::StatusOr<std::vector<int32_t>> vertices = VertexOfProcess(*layout, identity);
  ASSERT_TRUE(vertices.ok()) << vertices.status();
  EXPECT_EQ(*vertices, (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
  const std::vector<int32_t> on_phantom = {4};
  EXPECT_THAT(VertexOfProcess(*layout, on_phantom).status().message(),
              HasSubstr("vertex 0 is on slot 4 of node b, which has 1 processes"));
}

}  // namespace
}  // namespace hopmap::mpi
