#include "client/draw/layout.h"

#include <algorithm>
#include <initializer_list>
#include <set>

#include "client/draw/machine_panels.h"
#include "core/io/machine_kinds.h"
#include "core/topology/chipmesh.h"
#include "core/topology/dragonfly.h"
#include "core/topology/fattree.h"
#include "core/topology/switch_graph.h"
#include "core/topology/torus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap::draw {
namespace {

using ::testing::HasSubstr;
using Kind = LinkMark::Kind;

bool Overlap(const Rect& a, const Rect& b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}
bool Inside(const Rect& in, const Rect& out) {
  return in.x >= out.x && in.y >= out.y && in.x + in.w <= out.x + out.w &&
         in.y + in.h <= out.y + out.h;
}

// Every node has a cell, no two cells overlap, everything is inside the layout.
void ExpectSane(const Machine& machine, const MachineLayout& layout) {
  ASSERT_EQ(layout.cell_of_node.size(), static_cast<size_t>(machine.num_nodes()));
  std::set<int32_t> used(layout.cell_of_node.begin(), layout.cell_of_node.end());
  EXPECT_EQ(used.size(), layout.cells.size()) << "every cell holds a node";
  const Rect page{0, 0, layout.width, layout.height};
  for (size_t i = 0; i < layout.cells.size(); ++i) {
    EXPECT_TRUE(Inside(layout.cells[i], page));
    for (size_t j = i + 1; j < layout.cells.size() && layout.cells.size() <= 2048; ++j) {
      EXPECT_FALSE(Overlap(layout.cells[i], layout.cells[j])) << i << " " << j;
    }
  }
}

// Every kind a spec makes is drawn by a row of its own (in id order, when it has no
// picture): a new kind decides how it is drawn.
TEST(LayoutTest, EveryMachineKindHasALayout) {
  for (const MachineKind& kind : BuiltinMachineKinds()) {
    EXPECT_TRUE(HasKindLayout(kind.machine_kind)) << kind.name;
  }
  EXPECT_FALSE(HasKindLayout("slurm"));  // its machines are switch graphs: "graph"
  EXPECT_FALSE(HasKindLayout(""));
}

TEST(LayoutTest, TorusSlicesSideBySide) {
  const TorusMachine torus = *TorusMachine::Create({4, 3, 2}, {true, false, true});
  const MachineLayout layout = BuildLayout(torus, 4096);
  ExpectSane(torus, layout);
  EXPECT_FALSE(layout.aggregated);
  EXPECT_EQ(layout.cell_note, "one node");
  ASSERT_EQ(layout.frames.size(), 2u);  // two Z slices
  EXPECT_EQ(layout.frames[0].label, "Z=0");
  EXPECT_EQ(layout.frames[1].label, "Z=1");
  // Cells of slice z lie in frame z; x runs across, y down.
  for (NodeId v = 0; v < torus.num_nodes(); ++v) {
    EXPECT_TRUE(Inside(layout.cells[layout.cell_of_node[v]], layout.frames[v / 12].rect));
  }
  EXPECT_LT(layout.cells[layout.cell_of_node[0]].x, layout.cells[layout.cell_of_node[1]].x);
  EXPECT_LT(layout.cells[layout.cell_of_node[0]].y, layout.cells[layout.cell_of_node[4]].y);
  // Link ids: (node * 3 + dim) * 2 + {+, -}.
  const auto link = [](NodeId node, int dim, int sign) {
    return (node * 3 + dim) * 2 + (sign > 0 ? 0 : 1);
  };
  const LinkMark x_plus = layout.mark_of_link(link(5, 0, +1));
  ASSERT_EQ(x_plus.kind, Kind::kSegment);
  const Rect& c5 = layout.cells[layout.cell_of_node[5]];
  EXPECT_DOUBLE_EQ(x_plus.x1, c5.cx());
  EXPECT_GT(x_plus.x2, c5.x + c5.w);  // toward node 6, to the right
  EXPECT_DOUBLE_EQ(x_plus.y2, c5.cy());
  const LinkMark y_minus = layout.mark_of_link(link(5, 1, -1));
  ASSERT_EQ(y_minus.kind, Kind::kSegment);
  EXPECT_LT(y_minus.y2, c5.y);  // toward node 1, above
  // Y does not wrap: node 9 (y = 2) has no +Y link; Z links colour the cell.
  EXPECT_EQ(layout.mark_of_link(link(9, 1, +1)).kind, Kind::kNone);
  const LinkMark z = layout.mark_of_link(link(5, 2, +1));
  EXPECT_EQ(z.kind, Kind::kCellFill);
  EXPECT_EQ(z.index, layout.cell_of_node[5]);
}

TEST(LayoutTest, LargeTorusIsDrawnInBlocks) {
  const TorusMachine torus = *TorusMachine::Create({64, 64, 64}, {true, true, true});
  const MachineLayout layout = BuildLayout(torus, 4096);
  EXPECT_TRUE(layout.aggregated);
  EXPECT_EQ(layout.cells.size(), 4096u);  // 16 x 16 x 16 blocks of 4 x 4 x 4
  EXPECT_EQ(layout.cell_note, "a 4x4x4 block of nodes");
  EXPECT_EQ(layout.frames.size(), 16u);
  EXPECT_EQ(layout.frames[1].label, "Z=4-7");
  ExpectSane(torus, layout);
  EXPECT_EQ(layout.mark_of_link(0).kind, Kind::kCellFill);
}

TEST(LayoutTest, FatTreeSwitchesAsBoxes) {
  const FatTreeMachine tree = *FatTreeMachine::Create({2, 3, 4});  // 24 nodes
  const MachineLayout layout = BuildLayout(tree, 4096);
  ExpectSane(tree, layout);
  ASSERT_EQ(layout.frames.size(), 2u + 6u);  // level-1 and level-2 switches
  EXPECT_EQ(layout.frames[0].label, "L1 switch 0");
  EXPECT_EQ(layout.frames[2].label, "L2 switch 0");
  // Node 5 is under L2 switch 1 (nodes 4..7), under L1 switch 0.
  EXPECT_TRUE(Inside(layout.cells[5], layout.frames[2 + 1].rect));
  EXPECT_TRUE(Inside(layout.cells[5], layout.frames[0].rect));
  // A node's up link (2 * node) is the left half of its cell, down the right.
  EXPECT_EQ(layout.mark_of_link(10).kind, Kind::kCellHalf);
  EXPECT_EQ(layout.mark_of_link(10).index, 5);
  EXPECT_EQ(layout.mark_of_link(11).half, 1);
  // Vertex 24 + 1 is L2 switch 1: its links are bars on its box.
  const LinkMark l2 = layout.mark_of_link(2 * 25);
  EXPECT_EQ(l2.kind, Kind::kFrameBar);
  EXPECT_EQ(l2.index, 2 + 1);
  // Vertex 24 + 6 + 1 is L1 switch 1.
  const LinkMark l1 = layout.mark_of_link(2 * 31 + 1);
  EXPECT_EQ(l1.kind, Kind::kFrameBar);
  EXPECT_EQ(l1.index, 1);
  EXPECT_EQ(l1.half, 1);
}

TEST(LayoutTest, LargeFatTreeIsDrawnPerSwitch) {
  const FatTreeMachine tree = *FatTreeMachine::Create({32, 32, 64});  // 65,536 nodes
  const MachineLayout layout = BuildLayout(tree, 4096);
  EXPECT_TRUE(layout.aggregated);
  EXPECT_EQ(layout.cells.size(), 1024u);
  EXPECT_THAT(layout.cell_note, HasSubstr("64 nodes"));
  ExpectSane(tree, layout);
  EXPECT_EQ(layout.mark_of_link(0).kind, Kind::kCellFill);  // node links inside a switch
}

TEST(LayoutTest, DragonflyGlobalLinksAreAMatrix) {
  const DragonflyMachine df = *DragonflyMachine::Create(9, 4, 2);
  const MachineLayout layout = BuildLayout(df, 4096);
  ExpectSane(df, layout);
  EXPECT_EQ(layout.frames.size(), 9u + 36u);
  ASSERT_EQ(layout.matrix.size, 9);
  std::set<std::pair<int64_t, int64_t>> entries;
  int64_t globals = 0;
  for (int64_t link = 0; link < df.num_links(); ++link) {
    const LinkMark m = layout.mark_of_link(link);
    ASSERT_NE(m.kind, Kind::kNone) << link;
    if (m.kind != Kind::kMatrix) continue;
    ++globals;
    EXPECT_NE(m.row, m.col);
    entries.insert({m.row, m.col});
  }
  EXPECT_EQ(globals, 9 * 8);
  EXPECT_EQ(entries.size(), 72u) << "one entry per directed global link";
}

TEST(LayoutTest, ChipMeshChipsAndSides) {
  const ChipMeshMachine mesh = *ChipMeshMachine::Create(3, 2, 4);
  const MachineLayout layout = BuildLayout(mesh, 4096);
  ExpectSane(mesh, layout);
  ASSERT_EQ(layout.frames.size(), 6u + 12u);
  EXPECT_EQ(layout.frames[4].label, "chip (1,1)");
  // Chips sit on their grid: chip 1 right of chip 0, chip 3 below it.
  EXPECT_LT(layout.frames[0].rect.x, layout.frames[1].rect.x);
  EXPECT_LT(layout.frames[0].rect.y, layout.frames[3].rect.y);
  // Crossing links of chip 2 (ids 2n + 2 * 2 + d) are bars on chip 2's box.
  const LinkMark cross = layout.mark_of_link(2 * 24 + 5);
  EXPECT_EQ(cross.kind, Kind::kFrameBar);
  EXPECT_EQ(cross.index, 2);
  EXPECT_EQ(cross.half, 1);
  for (int64_t link = 0; link < mesh.num_links(); ++link) {
    ASSERT_NE(layout.mark_of_link(link).kind, Kind::kNone) << link;
  }
}

TEST(LayoutTest, SwitchGraphNodesInTheirSwitchesBoxes) {
  // A spine over two leaf switches; n0, n2 on leaf a, n1 on leaf b, n3 on both.
  SwitchGraphSpec spec;
  spec.node_names = {"n0", "n1", "n2", "n3"};
  spec.switch_names = {"spine", "a", "b"};
  spec.links = {{"spine", "a"}, {"spine", "b"}, {"a", "n0"}, {"b", "n1"},
                {"a", "n2"},    {"b", "n3"},    {"a", "n3"}};
  const SwitchGraphMachine graph = *SwitchGraphMachine::Create(spec);
  const MachineLayout layout = BuildLayout(graph, 4096);
  ExpectSane(graph, layout);
  ASSERT_EQ(layout.frames.size(), 2u);  // the spine has no nodes: no box
  EXPECT_EQ(layout.frames[0].label, "a");
  EXPECT_EQ(layout.frames[1].label, "b");
  for (NodeId v : {0, 2}) {
    EXPECT_TRUE(Inside(layout.cells[layout.cell_of_node[v]], layout.frames[0].rect));
  }
  for (NodeId v : {1, 3}) {  // n3 in its first switch's box (b: listed first)
    EXPECT_TRUE(Inside(layout.cells[layout.cell_of_node[v]], layout.frames[1].rect));
  }
  // Node links are cell halves (up left, down right); switch links are listed.
  EXPECT_EQ(layout.mark_of_link(0).kind, Kind::kNone);  // spine -> a
  for (NodeId v = 0; v < 4; ++v) {
    for (const auto& [up, down] : graph.NodeLinks(v)) {
      const LinkMark u = layout.mark_of_link(up), d = layout.mark_of_link(down);
      EXPECT_EQ(u.kind, Kind::kCellHalf);
      EXPECT_EQ(u.index, layout.cell_of_node[v]);
      EXPECT_EQ(u.half, 0);
      EXPECT_EQ(d.index, layout.cell_of_node[v]);
      EXPECT_EQ(d.half, 1);
      EXPECT_THAT(graph.LinkName(up), ::testing::StartsWith(spec.node_names[v] + "->"));
    }
  }
  EXPECT_EQ(graph.NodeLinks(3).size(), 2u);
  EXPECT_TRUE(layout.links_drawn);
}

// The free height above frame `i`: up to the nearest box above it in the same
// columns (a box around it counts by its top); kRoomAboveLayout when there is none
// (a picture leaves a band of kLabelBand points above the layout).
double RoomAbove(const MachineLayout& layout, size_t i) {
  const Rect& f = layout.frames[i].rect;
  double limit = -1;
  const auto consider = [&](const Rect& b) {
    if (Inside(f, b)) {
      limit = std::max(limit, b.y);
    } else if (b.x < f.x + f.w && f.x < b.x + b.w && b.y + b.h <= f.y + 1e-9) {
      limit = std::max(limit, b.y + b.h);
    }
  };
  for (size_t j = 0; j < layout.frames.size(); ++j) {
    if (j != i) consider(layout.frames[j].rect);
  }
  for (const Rect& c : layout.cells) consider(c);
  return limit < 0 ? kRoomAboveLayout : f.y - limit;
}

// Switch labels go above their boxes: at the scale of a picture (the layout fit
// into 1352 x 760 points) a 10-point label has room there, on a big fat tree whose
// switches stack eight rows high as on a small one; and every layout's frames have
// the room they claim.
TEST(LayoutTest, FrameLabelsHaveRoomAboveTheirBoxes) {
  const FatTreeMachine big = *FatTreeMachine::Create({64, 64});
  const FatTreeMachine small = *FatTreeMachine::Create({4, 4});
  const FatTreeMachine three = *FatTreeMachine::Create({2, 3, 4});
  for (const FatTreeMachine* tree : {&big, &small, &three}) {
    const MachineLayout layout = BuildLayout(*tree, 4096);
    ASSERT_FALSE(layout.frames.empty());
    const View view = FitLayout(layout, 0, 0, 1352, 760);
    for (size_t i = 0; i < layout.frames.size(); ++i) {
      const double room = RoomAbove(layout, i);
      const double px = room == kRoomAboveLayout ? kLabelBand : room * view.scale;
      EXPECT_GE(px, layout.frames[i].depth == 0 ? 12 : 10.5)
          << tree->Spec() << " " << layout.frames[i].label;
    }
  }
  const TorusMachine torus = *TorusMachine::Create({25, 16, 24}, {true, true, true});
  const DragonflyMachine df = *DragonflyMachine::Create(15, 96, 4);
  const DragonflyMachine small_df = *DragonflyMachine::Create(9, 4, 2);
  const ChipMeshMachine mesh = *ChipMeshMachine::Create(4, 4, 96);
  const ChipMeshMachine small_mesh = *ChipMeshMachine::Create(3, 2, 4);
  for (const Machine* m : std::initializer_list<const Machine*>{&big, &small, &three, &torus, &df,
                                                                &small_df, &mesh, &small_mesh}) {
    const MachineLayout layout = BuildLayout(*m, 4096);
    for (size_t i = 0; i < layout.frames.size(); ++i) {
      EXPECT_GT(layout.frames[i].label_room, 0) << m->Spec();
      EXPECT_GE(RoomAbove(layout, i) + 1e-9, layout.frames[i].label_room)
          << m->Spec() << " " << layout.frames[i].label;
    }
  }
}

}  // namespace
}  // namespace hopmap::draw
