#include "client/draw/layout.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/topology/chipmesh.h"
#include "core/topology/dragonfly.h"
#include "core/topology/fattree.h"
#include "core/topology/gpu_cluster.h"
#include "core/topology/switch_graph.h"
#include "core/topology/torus.h"

namespace hopmap::draw {
namespace {

// One level of nested boxes: `count` children per parent, laid out `cols` wide
// (0: about square, or for the outermost level about 16:10 overall).
struct GridLevel {
  int64_t count = 1;
  int64_t cols = 0;
};

// The rectangles of every box, depth by depth (depth 0 outermost; the last depth
// holds the cells, 1 x 1 each), each depth in index order (box j at depth d + 1
// is child j % count of box j / count at depth d), and above each box that is not
// a cell the room its label has (label_room[d], in layout units).
struct NestedGrid {
  double width = 0, height = 0;
  std::vector<std::vector<Rect>> boxes;
  std::vector<double> label_room;
};

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The room above each box of a level with labels, as a share of the box's height:
// the label is drawn there, clear of the box above (fat tree switches stacked
// several rows high left their labels no room when rows were as close as columns).
constexpr double kLabelRoom = 0.16;

NestedGrid LayOutNestedGrid(const std::vector<GridLevel>& levels) {
  const size_t k = levels.size();
  // gap: between neighbouring boxes of one row; gap_y: between rows (and, inside a
  // parent, above its first row), the labels' room; pad: a parent's other sides.
  std::vector<double> w(k, 1), h(k, 1), gap(k, kCellGap), gap_y(k, kCellGap), pad(k, 0);
  std::vector<int64_t> cols(k, 1);
  for (size_t d = k; d-- > 0;) {
    const bool leaf = d + 1 == k;
    if (!leaf) {
      // A box at depth d holds levels[d + 1].count boxes of depth d + 1.
      const int64_t n = levels[d + 1].count;
      const int64_t c = cols[d + 1];
      const int64_t rows = CeilDiv(n, c);
      pad[d] = gap[d + 1];
      w[d] =
          2 * pad[d] + static_cast<double>(c) * w[d + 1] + static_cast<double>(c - 1) * gap[d + 1];
      h[d] = pad[d] + static_cast<double>(rows) * (gap_y[d + 1] + h[d + 1]);
      gap[d] = std::max(0.5, 0.08 * std::max(w[d], h[d]));
    }
    const int64_t n = levels[d].count;
    if (levels[d].cols > 0) {
      cols[d] = std::min(levels[d].cols, n);
    } else if (d == 0) {
      // cols * w / (rows * h) ~ 1.6 with rows = n / cols.
      const double c = std::sqrt(1.6 * static_cast<double>(n) * h[d] / w[d]);
      cols[d] = std::clamp<int64_t>(std::llround(c), 1, n);
    } else {
      cols[d] = std::max<int64_t>(1, std::llround(std::ceil(std::sqrt(static_cast<double>(n)))));
    }
    // Boxes stacked in rows get room for their labels between the rows (and above
    // the first); one row of them, the gap.
    if (!leaf) gap_y[d] = n > cols[d] ? std::max(gap[d], kLabelRoom * h[d]) : gap[d];
  }
  NestedGrid grid;
  grid.boxes.resize(k);
  // Each row of boxes below its room (gap_y: a label's above a box, a cell gap
  // above a cell); the outermost boxes' first row at the top, its labels above
  // the layout (the pictures leave a band there).
  const auto place = [&](size_t d, double x0, double y0, int64_t i) {
    const int64_t c = cols[d];
    const double room = d == 0 ? 0 : gap_y[d];
    return Rect{x0 + static_cast<double>(i % c) * (w[d] + gap[d]),
                y0 + room + static_cast<double>(i / c) * (h[d] + gap_y[d]), w[d], h[d]};
  };
  for (int64_t i = 0; i < levels[0].count; ++i) grid.boxes[0].push_back(place(0, 0, 0, i));
  for (size_t d = 1; d < k; ++d) {
    grid.boxes[d].reserve(grid.boxes[d - 1].size() * static_cast<size_t>(levels[d].count));
    for (const Rect& parent : grid.boxes[d - 1]) {
      for (int64_t i = 0; i < levels[d].count; ++i) {
        grid.boxes[d].push_back(place(d, parent.x + pad[d - 1], parent.y, i));
      }
    }
  }
  for (const Rect& r : grid.boxes[0]) {
    grid.width = std::max(grid.width, r.x + r.w);
    grid.height = std::max(grid.height, r.y + r.h);
  }
  grid.label_room.assign(gap_y.begin(), gap_y.end());
  return grid;
}

// Adds the boxes of one depth as frames; returns the index of the first.
int64_t AddFrames(MachineLayout& layout, const NestedGrid& grid, int depth,
                  const std::function<std::string(int64_t)>& label) {
  const int64_t first = static_cast<int64_t>(layout.frames.size());
  const std::vector<Rect>& boxes = grid.boxes[static_cast<size_t>(depth)];
  for (size_t i = 0; i < boxes.size(); ++i) {
    const double room = depth == 0 && boxes[i].y == 0 ? kRoomAboveLayout
                                                      : grid.label_room[static_cast<size_t>(depth)];
    layout.frames.push_back({boxes[i], label(static_cast<int64_t>(i)), depth, room});
  }
  return first;
}

void SetCells(MachineLayout& layout, NestedGrid grid) {
  layout.width = grid.width;
  layout.height = grid.height;
  layout.cells = std::move(grid.boxes.back());
}

// ---- torus and mesh ----

MachineLayout TorusLayout(const TorusMachine& torus, int64_t max_cells) {
  const std::vector<int32_t> dims = torus.dims();
  const std::vector<std::string> names = torus.dim_names();
  const int n = static_cast<int>(dims.size());
  // The smallest cubic block that brings the cell count under the cap.
  int64_t block = 1;
  const auto cells_for = [&](int64_t b) {
    int64_t c = 1;
    for (int32_t d : dims) c *= CeilDiv(d, b);
    return c;
  };
  while (cells_for(block) > max_cells) ++block;
  std::vector<int64_t> blocks(n);  // cells along each dim
  for (int i = 0; i < n; ++i) blocks[i] = CeilDiv(dims[i], block);
  const int64_t cx = blocks[0];
  const int64_t cy = n >= 2 ? blocks[1] : 1;
  int64_t slices = 1;
  for (int i = 2; i < n; ++i) slices *= blocks[i];

  MachineLayout layout;
  NestedGrid grid = LayOutNestedGrid({{slices, 0}, {cx * cy, cx}});
  AddFrames(layout, grid, 0, [&](int64_t s) {
    if (n <= 2) return absl::StrCat(names[0], " across", n == 2 ? ", " + names[1] + " down" : "");
    std::vector<std::string> parts;
    for (int i = 2; i < n; ++i) {
      const int64_t c = s % blocks[i];
      s /= blocks[i];
      const int64_t lo = c * block;
      const int64_t hi = std::min<int64_t>(dims[i], lo + block) - 1;
      parts.push_back(lo == hi ? absl::StrCat(names[i], "=", lo)
                               : absl::StrCat(names[i], "=", lo, "-", hi));
    }
    return absl::StrJoin(parts, " ");
  });
  SetCells(layout, std::move(grid));
  layout.aggregated = block > 1;
  if (block == 1) {
    layout.cell_note = "one node";
  } else {
    std::vector<std::string> sides;
    for (int32_t d : dims) sides.push_back(absl::StrCat(std::min<int64_t>(d, block)));
    layout.cell_note = absl::StrCat("a ", absl::StrJoin(sides, "x"), " block of nodes");
  }
  const NodeId num_nodes = torus.num_nodes();
  layout.cell_of_node.resize(num_nodes);
  std::vector<int32_t> coords(n);
  for (NodeId v = 0; v < num_nodes; ++v) {
    torus.Coordinates(v, coords);
    int64_t slice = 0;
    for (int i = n - 1; i >= 2; --i) slice = slice * blocks[i] + coords[i] / block;
    const int64_t in_slice = coords[0] / block + cx * (n >= 2 ? coords[1] / block : 0);
    layout.cell_of_node[v] = static_cast<int32_t>(slice * cx * cy + in_slice);
  }
  const std::vector<bool> wrap = torus.wrap();
  const double half_gap = kCellGap / 2;
  // The closure outlives this function's `layout` (it is returned by value), so it
  // owns copies of what it reads.
  auto cells = std::make_shared<const std::vector<Rect>>(layout.cells);
  auto cell_of_node = std::make_shared<const std::vector<int32_t>>(layout.cell_of_node);
  // Node id strides (first dim fastest): a link's coordinate along its own dim
  // without a Coordinates() call per link (millions of links at 1M nodes).
  std::vector<int64_t> stride(n, 1);
  for (int i = 1; i < n; ++i) stride[i] = stride[i - 1] * dims[i - 1];
  layout.mark_of_link = [dims, stride, wrap, n, block, cells, cell_of_node,
                         half_gap](int64_t link) {
    LinkMark mark;
    const NodeId node = static_cast<NodeId>(link / (2 * n));
    const int dim = static_cast<int>((link / 2) % n);
    const int sign = link % 2 == 0 ? 1 : -1;
    if (dims[dim] == 1) return mark;
    const int64_t next = node / stride[dim] % dims[dim] + sign;
    if (!wrap[dim] && (next < 0 || next >= dims[dim])) return mark;  // a mesh's edge
    const int64_t cell = (*cell_of_node)[node];
    if (block > 1 || dim >= 2) {
      mark.kind = LinkMark::Kind::kCellFill;
      mark.index = cell;
      return mark;
    }
    const Rect& r = (*cells)[cell];
    mark.kind = LinkMark::Kind::kSegment;
    mark.x1 = r.cx();
    mark.y1 = r.cy();
    mark.x2 = dim == 0 ? (sign > 0 ? r.x + r.w + half_gap : r.x - half_gap) : r.cx();
    mark.y2 = dim == 1 ? (sign > 0 ? r.y + r.h + half_gap : r.y - half_gap) : r.cy();
    return mark;
  };
  if (block > 1) {
    layout.link_notes.push_back("cell colour: the busiest link leaving any node of the block");
  } else {
    layout.link_notes.push_back(
        absl::StrCat("line from a node's centre toward a neighbour: its link that way (", names[0],
                     n >= 2 ? " across, " + names[1] + " down" : " across",
                     "; wrap-around links end at the border)"));
    if (n >= 3) {
      std::vector<std::string> rest(names.begin() + 2, names.end());
      layout.link_notes.push_back(absl::StrCat("cell colour: the busiest of the node's ",
                                               absl::StrJoin(rest, ", "), " links"));
    }
  }
  return layout;
}

// ---- fat tree ----

MachineLayout FatTreeLayout(const FatTreeMachine& tree, int64_t max_cells) {
  const std::vector<int32_t>& arity = tree.arities();
  const int levels = tree.num_levels();
  // Keep the top `kept` levels of boxes: cells are the level-`kept` vertices.
  int kept = 1;
  int64_t cells = arity[0];
  while (kept < levels && cells * arity[kept] <= max_cells) cells *= arity[kept++];
  std::vector<GridLevel> grid_levels;
  for (int i = 0; i < kept; ++i) grid_levels.push_back({arity[i], 0});
  MachineLayout layout;
  NestedGrid grid = LayOutNestedGrid(grid_levels);
  // size_at[l]: vertices at level l (level 0 the root, level L the nodes).
  std::vector<int64_t> size_at(levels + 1, 1);
  for (int l = 1; l <= levels; ++l) size_at[l] = size_at[l - 1] * arity[l - 1];
  // Boxes at depth d are the level-(d + 1) switches.
  std::vector<int64_t> frame_first(levels + 1, -1);
  for (int d = 0; d + 1 < kept; ++d) {
    frame_first[d + 1] = AddFrames(
        layout, grid, d, [d](int64_t j) { return absl::StrCat("L", d + 1, " switch ", j); });
  }
  SetCells(layout, std::move(grid));
  layout.aggregated = kept < levels;
  layout.cell_note = layout.aggregated ? absl::StrCat("a level-", kept, " switch's ",
                                                      size_at[levels] / size_at[kept], " nodes")
                                       : "one node";
  const NodeId num_nodes = tree.num_nodes();
  const int64_t nodes_per_cell = size_at[levels] / size_at[kept];
  layout.cell_of_node.resize(num_nodes);
  for (NodeId v = 0; v < num_nodes; ++v) {
    layout.cell_of_node[v] = static_cast<int32_t>(v / nodes_per_cell);
  }
  // Vertex numbering (FatTreeMachine): the nodes, then level L-1, ..., level 1.
  std::vector<int64_t> first_vertex(levels + 1, 0);
  for (int l = levels - 1; l >= 1; --l) first_vertex[l] = first_vertex[l + 1] + size_at[l + 1];
  layout.mark_of_link = [levels, kept, size_at, first_vertex, frame_first](int64_t link) {
    const int64_t vertex = link / 2;
    const int half = static_cast<int>(link % 2);
    int level = levels;
    while (level > 1 && vertex >= first_vertex[level - 1]) --level;
    const int64_t index = vertex - first_vertex[level];
    LinkMark mark;
    mark.half = half;
    if (level > kept) {
      mark.kind = LinkMark::Kind::kCellFill;
      mark.index = index / (size_at[level] / size_at[kept]);
    } else if (level == kept) {
      mark.kind = LinkMark::Kind::kCellHalf;
      mark.index = index;
    } else {
      mark.kind = LinkMark::Kind::kFrameBar;
      mark.index = frame_first[level] + index;
    }
    return mark;
  };
  if (layout.aggregated) {
    layout.link_notes.push_back("cell colour: the busiest link below the switch");
    layout.link_notes.push_back(
        "cell halves: the switch's link up to its parent (left) and down from it (right)");
  } else {
    layout.link_notes.push_back(
        "cell halves: the node's link up to its switch (left) and down from it (right)");
  }
  if (kept > 1) {
    layout.link_notes.push_back(
        "bar on a switch's box: its link up (left half) and down (right half)");
  }
  return layout;
}

// ---- dragonfly ----

MachineLayout DragonflyLayout(const DragonflyMachine& df, int64_t max_cells) {
  const int64_t g = df.groups(), a = df.routers_per_group(), p = df.nodes_per_router();
  const int kept = g * a * p <= max_cells ? 3 : (g * a <= max_cells ? 2 : 1);
  std::vector<GridLevel> grid_levels = {{g, 0}, {a, 0}, {p, 0}};
  grid_levels.resize(kept);
  MachineLayout layout;
  NestedGrid grid = LayOutNestedGrid(grid_levels);
  int64_t router_frames = -1;
  if (kept >= 2) {
    AddFrames(layout, grid, 0, [](int64_t j) { return absl::StrCat("group ", j); });
  }
  if (kept == 3) {
    router_frames =
        AddFrames(layout, grid, 1, [a](int64_t j) { return absl::StrCat("router ", j % a); });
  }
  SetCells(layout, std::move(grid));
  layout.aggregated = kept < 3;
  layout.cell_note = kept == 3   ? "one node"
                     : kept == 2 ? absl::StrCat("a router's ", p, " nodes")
                                 : absl::StrCat("a group's ", a * p, " nodes");
  const int64_t nodes_per_cell = kept == 3 ? 1 : (kept == 2 ? p : a * p);
  layout.cell_of_node.resize(df.num_nodes());
  for (NodeId v = 0; v < df.num_nodes(); ++v) {
    layout.cell_of_node[v] = static_cast<int32_t>(v / nodes_per_cell);
  }
  const int64_t n = df.num_nodes();
  const int64_t local_base = 2 * n;
  const int64_t global_base = local_base + g * a * (a - 1);
  const int64_t per_entry = CeilDiv(g, 64);
  layout.matrix.size = CeilDiv(g, per_entry);
  layout.matrix.groups_per_entry = per_entry;
  layout.matrix.title = per_entry == 1
                            ? "global links: from group (row) to group (column)"
                            : absl::StrCat("global links: from groups (row) to groups (column), ",
                                           per_entry, " groups per entry");
  layout.mark_of_link = [=](int64_t link) {
    LinkMark mark;
    if (link < local_base) {  // node links
      const int64_t node = link / 2;
      mark.half = static_cast<int>(link % 2);
      mark.kind = kept == 3 ? LinkMark::Kind::kCellHalf : LinkMark::Kind::kCellFill;
      mark.index = node / nodes_per_cell;
    } else if (link < global_base) {  // local links, by their source router
      const int64_t router = (link - local_base) / (a - 1);
      if (kept == 3) {
        mark.kind = LinkMark::Kind::kFrameBar;
        mark.index = router_frames + router;
        mark.half = 2;
      } else if (kept == 2) {
        mark.kind = LinkMark::Kind::kCellFill;
        mark.index = router;
      } else {
        mark.kind = LinkMark::Kind::kCellFill;
        mark.index = router / a;
      }
    } else {
      const int64_t k = link - global_base;
      const int64_t from = k / (g - 1);
      const int64_t to = (from + k % (g - 1) + 1) % g;
      mark.kind = LinkMark::Kind::kMatrix;
      mark.row = from / per_entry;
      mark.col = to / per_entry;
    }
    return mark;
  };
  if (kept == 3) {
    layout.link_notes.push_back("cell halves: node -> router (left), router -> node (right)");
    layout.link_notes.push_back("bar on a router: its busiest local link out");
  } else {
    layout.link_notes.push_back("cell colour: the busiest node or local link of the cell");
  }
  layout.link_notes.push_back("matrix: each global link, from its group (row) to (column)");
  return layout;
}

// ---- chip mesh ----

MachineLayout ChipMeshLayout(const ChipMeshMachine& mesh, int64_t max_cells) {
  const int64_t x = mesh.size_x(), y = mesh.size_y(), per_chip = mesh.nodes_per_chip();
  const int64_t chips = x * y, half = per_chip / 2;
  const int kept = chips * per_chip <= max_cells ? 3 : (chips * 2 <= max_cells ? 2 : 1);
  std::vector<GridLevel> grid_levels = {{chips, x}, {2, 2}, {half, 0}};
  grid_levels.resize(kept);
  MachineLayout layout;
  NestedGrid grid = LayOutNestedGrid(grid_levels);
  int64_t chip_frames = -1, side_frames = -1;
  if (kept >= 2) {
    chip_frames = AddFrames(
        layout, grid, 0, [x](int64_t c) { return absl::StrCat("chip (", c % x, ",", c / x, ")"); });
  }
  if (kept == 3) {
    side_frames =
        AddFrames(layout, grid, 1, [](int64_t s) { return s % 2 == 0 ? "left" : "right"; });
  }
  SetCells(layout, std::move(grid));
  layout.aggregated = kept < 3;
  layout.cell_note = kept == 3   ? "one node"
                     : kept == 2 ? absl::StrCat("one side of a chip (", half, " nodes)")
                                 : absl::StrCat("a chip's ", per_chip, " nodes");
  const int64_t nodes_per_cell = kept == 3 ? 1 : (kept == 2 ? half : per_chip);
  layout.cell_of_node.resize(mesh.num_nodes());
  for (NodeId v = 0; v < mesh.num_nodes(); ++v) {
    layout.cell_of_node[v] = static_cast<int32_t>(v / nodes_per_cell);
  }
  const int64_t n = mesh.num_nodes();
  const int64_t cross_base = 2 * n;
  const int64_t row_base = cross_base + 2 * chips;
  const int64_t col_base = row_base + 2 * chips * (x - 1);
  layout.mark_of_link = [=](int64_t link) {
    LinkMark mark;
    if (link < cross_base) {
      mark.half = static_cast<int>(link % 2);
      mark.kind = kept == 3 ? LinkMark::Kind::kCellHalf : LinkMark::Kind::kCellFill;
      mark.index = (link / 2) / nodes_per_cell;
      return mark;
    }
    if (link < row_base) {
      const int64_t chip = (link - cross_base) / 2;
      mark.half = static_cast<int>((link - cross_base) % 2);
      if (kept >= 2) {
        mark.kind = LinkMark::Kind::kFrameBar;
        mark.index = chip_frames + chip;
      } else {
        mark.kind = LinkMark::Kind::kCellHalf;
        mark.index = chip;
      }
      return mark;
    }
    const bool row = link < col_base;
    const int64_t side = row ? (link - row_base) / (x - 1) : (link - col_base) / (y - 1);
    mark.half = row ? 0 : 1;
    if (kept == 3) {
      mark.kind = LinkMark::Kind::kFrameBar;
      mark.index = side_frames + side;
    } else if (kept == 2) {
      mark.kind = LinkMark::Kind::kCellHalf;
      mark.index = side;
    } else {
      mark.kind = LinkMark::Kind::kCellFill;
      mark.index = side / 2;
    }
    return mark;
  };
  if (kept == 3) {
    layout.link_notes.push_back(
        "cell halves: node -> side switch (left), side switch -> node (right)");
    layout.link_notes.push_back(
        "bar on a side: its busiest row link out (left half), column link out (right half)");
  } else if (kept == 2) {
    layout.link_notes.push_back("cell colour: the busiest node link of the side");
    layout.link_notes.push_back(
        "cell halves: the side's busiest row link out (left), column link out (right)");
  } else {
    layout.link_notes.push_back("cell colour: the busiest node, row or column link of the chip");
  }
  layout.link_notes.push_back(
      "bar on a chip: crossing link left -> right (left half), right -> left (right half)");
  return layout;
}

// ---- switch graph (graph:, slurm:) ----

// The nodes in boxes by their switch (a node on several switches in its first
// one's box), each box in node id order; up to max_cells nodes, else nullopt.
std::optional<MachineLayout> SwitchGraphLayout(const SwitchGraphMachine& machine,
                                               int64_t max_cells) {
  const NodeId n = machine.num_nodes();
  if (n > max_cells) return std::nullopt;
  std::vector<std::vector<NodeId>> nodes_of_switch(static_cast<size_t>(machine.num_switches()));
  for (NodeId v = 0; v < n; ++v) nodes_of_switch[machine.SwitchesOfNode(v).front()].push_back(v);
  std::vector<int32_t> switches;  // those with nodes, in switch order
  int64_t widest = 1;
  for (int32_t s = 0; s < machine.num_switches(); ++s) {
    if (nodes_of_switch[s].empty()) continue;
    switches.push_back(s);
    widest = std::max<int64_t>(widest, static_cast<int64_t>(nodes_of_switch[s].size()));
  }
  // Every box as big as the largest; a box holds only its switch's nodes.
  NestedGrid grid = LayOutNestedGrid({{static_cast<int64_t>(switches.size()), 0}, {widest, 0}});
  MachineLayout layout;
  AddFrames(layout, grid, 0, [&](int64_t j) { return machine.switch_name(switches[j]); });
  layout.width = grid.width;
  layout.height = grid.height;
  layout.cell_of_node.resize(n);
  for (size_t j = 0; j < switches.size(); ++j) {
    for (size_t i = 0; i < nodes_of_switch[switches[j]].size(); ++i) {
      layout.cell_of_node[nodes_of_switch[switches[j]][i]] =
          static_cast<int32_t>(layout.cells.size());
      layout.cells.push_back(grid.boxes[1][j * static_cast<size_t>(widest) + i]);
    }
  }
  layout.cell_note = "one node";
  auto cell_of_link = std::make_shared<std::vector<std::pair<int32_t, int>>>(
      static_cast<size_t>(machine.num_links()), std::pair<int32_t, int>{-1, 0});
  for (NodeId v = 0; v < n; ++v) {
    for (const auto& [up, down] : machine.NodeLinks(v)) {
      (*cell_of_link)[up] = {layout.cell_of_node[v], 0};
      (*cell_of_link)[down] = {layout.cell_of_node[v], 1};
    }
  }
  layout.mark_of_link = [cell_of_link](int64_t link) {
    LinkMark mark;
    const auto [cell, half] = (*cell_of_link)[static_cast<size_t>(link)];
    if (cell < 0) return mark;  // switch to switch: listed
    mark.kind = LinkMark::Kind::kCellHalf;
    mark.index = cell;
    mark.half = half;
    return mark;
  };
  layout.link_notes.push_back(
      "cell halves: the node's link up to its switch (left) and down from it (right)");
  layout.link_notes.push_back(
      "boxes: the nodes of one switch (a node on several: in its first's box); links between "
      "switches are listed, not drawn");
  return layout;
}

// ---- GPU cluster: hosts in their leaf groups' boxes ----

std::optional<MachineLayout> GpuClusterLayout(const GpuClusterMachine& machine, int64_t max_cells) {
  const NodeId n = machine.num_nodes();
  if (n > max_cells) return std::nullopt;
  std::vector<std::vector<NodeId>> hosts_of_leaf(static_cast<size_t>(machine.num_leaves()));
  int64_t widest = 1;
  for (NodeId h = 0; h < n; ++h) {
    std::vector<NodeId>& hosts = hosts_of_leaf[machine.LeafOf(h)];
    hosts.push_back(h);
    widest = std::max<int64_t>(widest, static_cast<int64_t>(hosts.size()));
  }
  NestedGrid grid = LayOutNestedGrid({{machine.num_leaves(), 0}, {widest, 0}});
  MachineLayout layout;
  AddFrames(layout, grid, 0, [&](int64_t l) { return machine.LeafName(static_cast<int32_t>(l)); });
  layout.width = grid.width;
  layout.height = grid.height;
  layout.cell_of_node.resize(n);
  for (size_t l = 0; l < hosts_of_leaf.size(); ++l) {
    for (size_t i = 0; i < hosts_of_leaf[l].size(); ++i) {
      layout.cell_of_node[hosts_of_leaf[l][i]] = static_cast<int32_t>(layout.cells.size());
      layout.cells.push_back(grid.boxes[1][l * static_cast<size_t>(widest) + i]);
    }
  }
  layout.cell_note = "one host (its GPUs are its slots)";
  // Host h's rail bundle is links 2h (up) and 2h + 1 (down); the spine and NVLink
  // links follow (GpuClusterMachine).
  layout.mark_of_link = [cells = layout.cell_of_node](int64_t link) {
    LinkMark mark;
    if (link >= 2 * static_cast<int64_t>(cells.size())) return mark;  // listed
    mark.kind = LinkMark::Kind::kCellHalf;
    mark.index = cells[static_cast<size_t>(link / 2)];
    mark.half = static_cast<int>(link % 2);
    return mark;
  };
  layout.link_notes.push_back(
      "cell halves: the host's rails up to its leaf group (left) and down from it (right)");
  layout.link_notes.push_back(
      "boxes: the hosts of one leaf group; spine uplinks and NVLink links are listed, not drawn");
  return layout;
}

// ---- anything else: nodes in id order ----

MachineLayout PlainLayout(const Machine& machine, int64_t max_cells) {
  const int64_t n = machine.num_nodes();
  const int64_t per_cell = CeilDiv(n, max_cells);
  MachineLayout layout;
  NestedGrid grid = LayOutNestedGrid({{CeilDiv(n, per_cell), 0}});
  SetCells(layout, std::move(grid));
  layout.aggregated = per_cell > 1;
  layout.cell_note =
      per_cell == 1 ? "one node (in id order)" : absl::StrCat(per_cell, " consecutive nodes");
  layout.cell_of_node.resize(n);
  for (NodeId v = 0; v < n; ++v) layout.cell_of_node[v] = static_cast<int32_t>(v / per_cell);
  layout.mark_of_link = [](int64_t) { return LinkMark{}; };
  layout.links_drawn = false;
  layout.link_notes.push_back(
      absl::StrCat("the ", std::string(machine.kind()), " model's links are listed, not drawn"));
  return layout;
}

// ---- the layout of each kind ----

// Kind M's own layout for a machine its table row names. A machine of another class
// reporting that kind() (none is built so) is drawn in id order, not cast blindly.
template <typename M, MachineLayout (*kLayOut)(const M&, int64_t)>
MachineLayout LayOutAs(const Machine& machine, int64_t max_cells) {
  const auto* of_kind = dynamic_cast<const M*>(&machine);
  return of_kind != nullptr ? kLayOut(*of_kind, max_cells) : PlainLayout(machine, max_cells);
}

// Up to max_cells nodes in their switches' boxes, else in id order.
MachineLayout SwitchGraphOrPlainLayout(const SwitchGraphMachine& machine, int64_t max_cells) {
  std::optional<MachineLayout> layout = SwitchGraphLayout(machine, max_cells);
  return layout ? *std::move(layout) : PlainLayout(machine, max_cells);
}

MachineLayout GpuClusterOrPlainLayout(const GpuClusterMachine& machine, int64_t max_cells) {
  std::optional<MachineLayout> layout = GpuClusterLayout(machine, max_cells);
  return layout ? *std::move(layout) : PlainLayout(machine, max_cells);
}

struct KindLayout {
  std::string_view kind;  // Machine::kind()
  MachineLayout (*lay_out)(const Machine& machine, int64_t max_cells);
};

// How each machine kind is drawn (a row per MachineKind::machine_kind,
// core/io/machine_kinds.h): the one table BuildLayout chooses from.
constexpr KindLayout kKindLayouts[] = {
    {"torus", &LayOutAs<TorusMachine, TorusLayout>},
    {"mesh", &LayOutAs<TorusMachine, TorusLayout>},
    {"fattree", &LayOutAs<FatTreeMachine, FatTreeLayout>},
    {"chipmesh", &LayOutAs<ChipMeshMachine, ChipMeshLayout>},
    {"dragonfly", &LayOutAs<DragonflyMachine, DragonflyLayout>},
    {"hierarchy", &PlainLayout},  // no picture of its own yet: the PEs in id order
    {"gpu", &LayOutAs<GpuClusterMachine, GpuClusterOrPlainLayout>},
    {"graph", &LayOutAs<SwitchGraphMachine, SwitchGraphOrPlainLayout>},
    {"matrix", &PlainLayout},  // no links to draw: the nodes in id order
};

const KindLayout* FindKindLayout(std::string_view kind) {
  for (const KindLayout& row : kKindLayouts) {
    if (row.kind == kind) return &row;
  }
  return nullptr;
}

}  // namespace

MachineLayout BuildLayout(const Machine& machine, int64_t max_cells) {
  max_cells = std::max<int64_t>(max_cells, 1);
  const KindLayout* row = FindKindLayout(machine.kind());
  return row != nullptr ? row->lay_out(machine, max_cells) : PlainLayout(machine, max_cells);
}

bool HasKindLayout(std::string_view machine_kind) {
  return FindKindLayout(machine_kind) != nullptr;
}

}  // namespace hopmap::draw
