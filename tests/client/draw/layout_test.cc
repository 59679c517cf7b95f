#include "client/draw/layout.h"

#include <set>

#include "core/topology/chipmesh.h"
#include "core/topology/dragonfly.h"
#include "core/topology/fattree.h"
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

}  // namespace
}  // namespace hopmap::draw
