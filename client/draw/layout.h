// Where a picture puts each machine node and link: the machine's nodes as cells in
// nested boxes (torus/mesh slices side by side, fat tree switches, dragonfly
// groups and routers, chip mesh chips and sides), and for every directed link the
// mark that shows its load. Above `max_cells` nodes, a cell stands for a block of
// nodes (a block of the torus, a switch's, router's or chip's nodes), so a
// picture of a million nodes is as small as one of a few thousand.
#ifndef HOPMAP_CLIENT_DRAW_LAYOUT_H_
#define HOPMAP_CLIENT_DRAW_LAYOUT_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/topology/machine.h"

namespace hopmap::draw {

// The space between two neighbouring cells, in layout units (a cell is 1 x 1).
inline constexpr double kCellGap = 0.12;

struct Rect {
  double x = 0, y = 0, w = 0, h = 0;
  [[nodiscard]] double cx() const { return x + w / 2; }
  [[nodiscard]] double cy() const { return y + h / 2; }
};

// A box around a group of cells: a torus slice, a switch, a router, a group, a chip.
struct Frame {
  Rect rect;
  std::string label;  // drawn when there is room
  int depth = 0;      // 0 for the outermost boxes
  // The free height above the box (in layout units): its label goes there, clear
  // of the box above (or of the parent's top). kRoomAboveLayout for the top row of
  // the outermost boxes: their labels go above the layout, where a picture leaves
  // a band of kLabelBand points.
  double label_room = 0;
};
inline constexpr double kRoomAboveLayout = std::numeric_limits<double>::infinity();
inline constexpr double kLabelBand = 14;

// How a directed link's load is shown. Several links may share a mark (an
// aggregated cell, a router's local links): the mark shows the largest load.
struct LinkMark {
  enum class Kind {
    kNone,      // not drawn (listed among the busiest links only)
    kSegment,   // a line from the source cell's centre to the shared edge: x1..y2
    kCellFill,  // the cell `index` filled
    kCellHalf,  // the left (half 0) or right (half 1) half of cell `index`
    kFrameBar,  // the left/right half of a bar on top of frame `index`
    kMatrix,    // entry (row, col) of the layout's link matrix
  };
  Kind kind = Kind::kNone;
  int64_t index = 0;
  int half = 0;
  int64_t row = 0, col = 0;
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
};

// A square matrix of links between groups (the dragonfly's global links).
struct LinkMatrix {
  int64_t size = 0;              // rows = columns; 0: none
  int64_t groups_per_entry = 1;  // above ~64 groups an entry stands for a block
  std::string title;             // "global links: from group (row) to group (column)"
};

struct MachineLayout {
  double width = 0, height = 0;  // in layout units (a single-node cell is 1 x 1)
  std::vector<Rect> cells;
  std::vector<int32_t> cell_of_node;  // every machine node's cell
  std::vector<Frame> frames;
  bool aggregated = false;  // cells stand for several nodes
  std::string cell_note;    // what one cell is: "one node", "a 4x4x4 block of nodes"
  // Whether any link has a mark (false: the links are only listed).
  bool links_drawn = true;
  // What each kind of link mark means, one legend line each.
  std::vector<std::string> link_notes;
  LinkMatrix matrix;
  // The mark of every directed link id in [0, machine.num_links()). It may refer
  // to the machine, which must outlive the layout.
  std::function<LinkMark(int64_t link)> mark_of_link;
};

// At most `max_cells` cells (a cell for every node up to that many nodes), laid out
// as the machine's kind() is drawn; a kind without a row of its own in id order.
MachineLayout BuildLayout(const Machine& machine, int64_t max_cells);

// Whether BuildLayout has a row for `machine_kind` (a Machine::kind()): every kind a
// spec makes has one, even when it is drawn in id order.
[[nodiscard]] bool HasKindLayout(std::string_view machine_kind);

}  // namespace hopmap::draw

#endif  // HOPMAP_CLIENT_DRAW_LAYOUT_H_
