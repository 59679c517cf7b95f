#include "client/draw/machine_panels.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace hopmap::draw {
namespace {

// Frame labels are drawn where they fit and are not too many to read.
constexpr size_t kMaxLabelledFrames = 400;
// A label's height and descent as shares of its font size (DejaVu Sans: ascenders
// 0.76, descenders 0.24), and the smallest size drawn.
constexpr double kLabelHeight = 1.0, kLabelDescent = 0.24, kMinLabelSize = 6.5;
// The link bar on top of a box (DrawLinkPanel): 6% of the box's height, 2.5 to 7.
constexpr double kMinBarHeight = 2.5, kMaxBarHeight = 7.0;
// Above this many marks (a cell is up to three: ground, fill, halves) a link
// panel's cells are one raster layer.
constexpr size_t kMaxVectorMarks = 8000;

void DrawFrames(const Canvas& canvas, const MachineLayout& layout, const View& view) {
  std::vector<size_t> per_depth;
  for (const Frame& f : layout.frames) {
    if (per_depth.size() <= static_cast<size_t>(f.depth)) per_depth.resize(f.depth + 1, 0);
    ++per_depth[f.depth];
  }
  for (const Frame& f : layout.frames) {
    const double w = f.rect.w * view.scale, h = f.rect.h * view.scale;
    canvas.StrokeRect(view.X(f.rect.x), view.Y(f.rect.y), w, h, kFrame, f.depth == 0 ? 1.0 : 0.6);
    if (per_depth[f.depth] > kMaxLabelledFrames) continue;
    // The label in the room above the box: smaller where the room is short, none
    // below a readable size.
    // An inner box's room may begin under its parent's link bar (links pictures).
    const double room = f.label_room * view.scale - (f.depth > 0 ? kMaxBarHeight : 0);
    const double size = std::min(f.depth == 0 ? 10.0 : 8.5, (room - 2) / kLabelHeight);
    if (size < kMinLabelSize || h < 3 * size || canvas.TextWidth(f.label, size) + 4 > w) continue;
    canvas.Text(view.X(f.rect.x) + 2, view.Y(f.rect.y) - 1 - kLabelDescent * size, f.label, size,
                kFrame);
  }
}

bool Dark(const Rgb& c) { return 0.299 * c.r + 0.587 * c.g + 0.114 * c.b < 0.5; }

}  // namespace

std::vector<double> JobNodeColours(int32_t num_positions,
                                   std::span<const int32_t> position_of_task) {
  std::vector<double> colour(static_cast<size_t>(std::max(num_positions, 0)), -1);
  for (int32_t p : position_of_task) colour[static_cast<size_t>(p)] = 0;
  int32_t used = 0;
  for (double c : colour) used += c >= 0;
  int32_t rank = 0;
  for (double& c : colour) {
    if (c >= 0) c = used > 1 ? static_cast<double>(rank++) / (used - 1) : 0;
  }
  return colour;
}

View FitLayout(const MachineLayout& layout, double x, double y, double w, double h) {
  View view;
  view.scale = std::min(w / std::max(layout.width, 1e-9), h / std::max(layout.height, 1e-9));
  view.x0 = x;
  view.y0 = y;
  return view;
}

Rgb LoadColour(double load, double scale_max) {
  if (load <= 0) return kNoTraffic;
  return Viridis(scale_max > 0 ? load / scale_max : 1);
}

void DrawPlacementPanel(const Canvas& canvas, const MachineLayout& layout, const View& view,
                        const std::vector<CellState>& cells, const std::vector<DrawnEdge>& edges,
                        const HopClasses& hop_classes) {
  for (size_t i = 0; i < layout.cells.size(); ++i) {
    const Rect& r = layout.cells[i];
    const double x = view.X(r.x), y = view.Y(r.y), w = r.w * view.scale, h = r.h * view.scale;
    const CellState& s = cells[i];
    const Rgb fill = !s.allocated   ? kNotAllocated
                     : s.tasks == 0 ? kAllocatedEmpty
                                    : Viridis(s.colour);
    canvas.FillRect(x, y, w, h, fill);
    if (!s.allocated && w >= 3) canvas.StrokeRect(x, y, w, h, kAllocatedEmpty, 0.5);
  }
  DrawFrames(canvas, layout, view);
  double heaviest = 0;
  for (const DrawnEdge& e : edges) heaviest = std::max(heaviest, e.weight);
  cairo_set_line_cap(canvas.cr(), CAIRO_LINE_CAP_ROUND);
  for (const DrawnEdge& e : edges) {  // lightest first, so the heaviest lie on top
    const Rect& a = layout.cells[e.cell_a];
    const Rect& b = layout.cells[e.cell_b];
    const double width = 0.8 + 2.2 * (heaviest > 0 ? e.weight / heaviest : 1);
    canvas.Line(view.X(a.cx()), view.Y(a.cy()), view.X(b.cx()), view.Y(b.cy()), {1, 1, 1},
                width + 1.0);
    canvas.Line(view.X(a.cx()), view.Y(a.cy()), view.X(b.cx()), view.Y(b.cy()),
                ClassColour(hop_classes.ClassOf(e.hops)), width);
  }
  cairo_set_line_cap(canvas.cr(), CAIRO_LINE_CAP_BUTT);
  // Task counts last, in the cell's corner, so no edge hides them.
  if (layout.aggregated) return;
  for (size_t i = 0; i < layout.cells.size(); ++i) {
    const Rect& r = layout.cells[i];
    const double w = r.w * view.scale, h = r.h * view.scale;
    if (cells[i].tasks == 0 || w < 16 || h < 12) continue;
    const Rgb fill = Viridis(cells[i].colour);
    canvas.Text(view.X(r.x) + 2, view.Y(r.y) + std::min(10.0, h * 0.6),
                absl::StrCat(cells[i].tasks), std::min(9.0, h * 0.5),
                Dark(fill) ? Rgb{1, 1, 1} : kText);
  }
}

LinkMarkLoads CollectLinkMarks(const MachineLayout& layout,
                               const std::vector<double>& bytes_on_link) {
  LinkMarkLoads out;
  const size_t cells = layout.cells.size(), frames = layout.frames.size();
  out.cell_fill.assign(cells, -1);
  out.cell_left.assign(cells, -1);
  out.cell_right.assign(cells, -1);
  out.bar_left.assign(frames, -1);
  out.bar_right.assign(frames, -1);
  out.bar_full.assign(frames, -1);
  out.matrix.assign(static_cast<size_t>(layout.matrix.size * layout.matrix.size), -1);
  const auto keep = [](std::vector<double>& v, int64_t i, double load) {
    double& slot = v[static_cast<size_t>(i)];
    slot = std::max(slot, load);
  };
  for (size_t link = 0; link < bytes_on_link.size(); ++link) {
    const double load = bytes_on_link[link];
    out.max_load = std::max(out.max_load, load);
    const LinkMark mark = layout.mark_of_link(static_cast<int64_t>(link));
    switch (mark.kind) {
      case LinkMark::Kind::kNone:
        break;
      case LinkMark::Kind::kSegment:
        out.segments.push_back({mark, load});
        break;
      case LinkMark::Kind::kCellFill:
        keep(out.cell_fill, mark.index, load);
        break;
      case LinkMark::Kind::kCellHalf:
        keep(mark.half == 0 ? out.cell_left : out.cell_right, mark.index, load);
        break;
      case LinkMark::Kind::kFrameBar:
        keep(mark.half == 0 ? out.bar_left : (mark.half == 1 ? out.bar_right : out.bar_full),
             mark.index, load);
        break;
      case LinkMark::Kind::kMatrix:
        keep(out.matrix, mark.row * layout.matrix.size + mark.col, load);
        break;
    }
  }
  return out;
}

namespace {

// The cells and their link marks (everything but frames and bars).
void DrawLinkCells(const Canvas& canvas, const MachineLayout& layout, const View& view,
                   const std::vector<bool>& cell_allocated, const LinkMarkLoads& loads,
                   double scale_max) {
  for (size_t i = 0; i < layout.cells.size(); ++i) {
    const Rect& r = layout.cells[i];
    const double x = view.X(r.x), y = view.Y(r.y), w = r.w * view.scale, h = r.h * view.scale;
    canvas.FillRect(x, y, w, h, cell_allocated[i] ? Rgb{0.95, 0.95, 0.95} : kNotAllocated);
    if (w >= 3) canvas.StrokeRect(x, y, w, h, kAllocatedEmpty, 0.5);
    if (loads.cell_fill[i] >= 0 && loads.segments.empty()) {
      canvas.FillRect(x, y, w, h, LoadColour(loads.cell_fill[i], scale_max));
    }
    if (loads.cell_left[i] >= 0) {
      canvas.FillRect(x, y, w / 2, h, LoadColour(loads.cell_left[i], scale_max));
    }
    if (loads.cell_right[i] >= 0) {
      canvas.FillRect(x + w / 2, y, w / 2, h, LoadColour(loads.cell_right[i], scale_max));
    }
  }
  const double line = std::clamp(0.28 * view.scale, 1.0, 6.0);
  for (const LinkMarkLoads::Segment& s : loads.segments) {
    canvas.Line(view.X(s.mark.x1), view.Y(s.mark.y1), view.X(s.mark.x2), view.Y(s.mark.y2),
                LoadColour(s.load, scale_max), line);
  }
  if (loads.segments.empty()) return;
  // Beside segments (a torus's X and Y links) the fill (its other links, Z) is an
  // inner square on top of them: the segments start under it, and the busiest Z
  // link is not hidden where they cross.
  for (size_t i = 0; i < layout.cells.size(); ++i) {
    if (loads.cell_fill[i] < 0) continue;
    const Rect& r = layout.cells[i];
    const double w = 0.4 * r.w * view.scale, h = 0.4 * r.h * view.scale;
    const double x = view.X(r.x) + 0.3 * r.w * view.scale, y = view.Y(r.y) + 0.3 * r.h * view.scale;
    canvas.FillRect(x, y, w, h, LoadColour(loads.cell_fill[i], scale_max));
    if (w >= 6) canvas.StrokeRect(x, y, w, h, Rgb{1, 1, 1}, 0.8);
  }
}

}  // namespace

void DrawLinkPanel(const Canvas& canvas, const MachineLayout& layout, const View& view,
                   const std::vector<bool>& cell_allocated, const LinkMarkLoads& loads,
                   double scale_max) {
  if (3 * layout.cells.size() + loads.segments.size() > kMaxVectorMarks) {
    DrawAsRaster(canvas, view.X(0) - 4, view.Y(0) - 4, layout.width * view.scale + 8,
                 layout.height * view.scale + 8, [&](const Canvas& layer) {
                   DrawLinkCells(layer, layout, view, cell_allocated, loads, scale_max);
                 });
  } else {
    DrawLinkCells(canvas, layout, view, cell_allocated, loads, scale_max);
  }
  DrawFrames(canvas, layout, view);
  for (size_t i = 0; i < layout.frames.size(); ++i) {
    const Rect& r = layout.frames[i].rect;
    const double x = view.X(r.x), w = r.w * view.scale;
    const double bar = std::clamp(r.h * view.scale * 0.06, kMinBarHeight, kMaxBarHeight);
    const double y = view.Y(r.y) + 0.5;  // inside the box, clear of its label above
    if (loads.bar_full[i] >= 0)
      canvas.FillRect(x, y, w, bar, LoadColour(loads.bar_full[i], scale_max));
    if (loads.bar_left[i] >= 0)
      canvas.FillRect(x, y, w / 2, bar, LoadColour(loads.bar_left[i], scale_max));
    if (loads.bar_right[i] >= 0) {
      canvas.FillRect(x + w / 2, y, w / 2, bar, LoadColour(loads.bar_right[i], scale_max));
    }
  }
}

void DrawLinkMatrix(const Canvas& canvas, double x, double y, double size, const LinkMatrix& matrix,
                    const LinkMarkLoads& loads, double scale_max) {
  const int64_t n = matrix.size;
  if (n <= 0) return;
  canvas.Text(x, y - 6, matrix.title, 10);
  const double cell = size / static_cast<double>(n);
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t c = 0; c < n; ++c) {
      const double load = loads.matrix[static_cast<size_t>(r * n + c)];
      if (load < 0) continue;
      canvas.FillRect(x + c * cell, y + r * cell, cell, cell, LoadColour(load, scale_max));
    }
  }
  canvas.StrokeRect(x, y, size, size, kFrame, 1);
  canvas.Text(x, y + size + 12, "rows: from group; columns: to group; diagonal: none", 9, kFrame);
}

}  // namespace hopmap::draw
