#include "core/topology/node_selection.h"

#include "core/topology/switch_graph.h"
#include "core/topology/torus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TorusMachine Torus8() { return *TorusMachine::Create({8, 8, 8}, {true, true, true}); }

std::vector<NodeId> Select(absl::string_view text, const Machine& machine) {
  absl::StatusOr<std::vector<NodeId>> nodes = ParseNodeSelection(text, machine);
  EXPECT_TRUE(nodes.ok()) << nodes.status();
  return nodes.ok() ? *nodes : std::vector<NodeId>{};
}

std::string SelectError(absl::string_view text, const Machine& machine) {
  absl::StatusOr<std::vector<NodeId>> nodes = ParseNodeSelection(text, machine);
  EXPECT_FALSE(nodes.ok()) << text;
  return nodes.ok() ? "" : std::string(nodes.status().message());
}

TEST(NodeSelectionTest, IdsRangesAndHostlistsInOrder) {
  const TorusMachine torus = Torus8();
  EXPECT_THAT(Select("17", torus), ElementsAre(17));
  EXPECT_THAT(Select("0-3,17,5", torus), ElementsAre(0, 1, 2, 3, 17, 5));
  EXPECT_THAT(Select(" 9 , 8-8 ", torus), ElementsAre(9, 8));
  EXPECT_THAT(Select("511,0", torus), ElementsAre(511, 0));
  EXPECT_THAT(Select("nid[00012-00014,00200]", torus), ElementsAre(12, 13, 14, 200));
  EXPECT_THAT(Select("nid00007,3,nid[00001-00002]", torus), ElementsAre(7, 3, 1, 2));
  // Pattern names accept other paddings.
  EXPECT_THAT(Select("nid12", torus), ElementsAre(12));
  // Duplicates are left to Allocation::Create.
  EXPECT_THAT(Select("1,1,nid00001", torus), ElementsAre(1, 1, 1));
  EXPECT_EQ(Select("0-511", torus).size(), 512u);
}

TEST(NodeSelectionTest, Errors) {
  const TorusMachine torus = Torus8();
  EXPECT_EQ(SelectError("5000", torus),
            "node 5000 is outside machine torus:8x8x8:cores=1 (nodes 0..511)");
  EXPECT_EQ(SelectError("510-512", torus),
            "node 512 is outside machine torus:8x8x8:cores=1 (nodes 0..511)");
  EXPECT_THAT(SelectError("99999999999999999999999", torus), HasSubstr("is outside machine"));
  EXPECT_THAT(SelectError("9-3", torus), HasSubstr("reversed range 9-3"));
  EXPECT_EQ(SelectError("nid9999", torus), "host 'nid9999' is not a node of torus:8x8x8:cores=1");
  EXPECT_EQ(SelectError("circe-n005", torus),
            "host 'circe-n005' is not a node of torus:8x8x8:cores=1");
  EXPECT_THAT(SelectError("", torus), HasSubstr("node selection is empty"));
  EXPECT_THAT(SelectError("  ", torus), HasSubstr("node selection is empty"));
  EXPECT_THAT(SelectError("1,,2", torus), HasSubstr("item 2 is empty"));
  EXPECT_THAT(SelectError("nid[1-", torus), HasSubstr("unbalanced '['"));
}

TEST(NodeSelectionTest, ExplicitNames) {
  SwitchGraphSpec spec;
  spec.node_names = {"circe-n004", "circe-n005", "n019"};
  spec.switch_names = {"s0"};
  spec.links = {{"s0", "circe-n004"}, {"s0", "circe-n005"}, {"s0", "n019"}};
  absl::StatusOr<SwitchGraphMachine> graph = SwitchGraphMachine::Create(spec);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_THAT(Select("circe-n005", *graph), ElementsAre(1));
  EXPECT_THAT(Select("n019,circe-n[004-005],0", *graph), ElementsAre(2, 0, 1, 0));
  EXPECT_EQ(SelectError("circe-n[005-006]", *graph), "host 'circe-n006' is not a node of graph");
  EXPECT_EQ(SelectError("3", *graph), "node 3 is outside machine graph (nodes 0..2)");
}

}  // namespace
}  // namespace hopmap
