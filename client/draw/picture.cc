#include "client/draw/picture.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/draw/canvas.h"
#include "client/draw/charts.h"
#include "client/draw/layout.h"
#include "client/draw/machine_panels.h"
#include "core/analysis/pattern.h"
#include "core/metrics/hop_bytes.h"
#include "core/metrics/hop_histogram.h"
#include "core/metrics/link_loads.h"
#include "core/topology/torus.h"

namespace hopmap::draw {
namespace {

constexpr double kPageWidth = 1400;
constexpr double kMargin = 24;
constexpr double kTitleHeight = 62;
constexpr double kMaxPanelHeight = 760;
constexpr double kSidebarWidth = 330;

// One mapping and the figures every picture of it needs.
struct Mapped {
  std::string name;  // "in-order", "answer"
  std::vector<SlotId> slot_of_task;
  std::vector<int32_t> position_of_task;
  std::vector<double> node_colour;  // of each allocation position (JobNodeColours)
  HopBytes hop_bytes = 0;
};

Mapped MakeMapped(const DrawJob& job, std::string name, std::vector<SlotId> slots) {
  Mapped m;
  m.name = std::move(name);
  m.slot_of_task = std::move(slots);
  m.position_of_task = PositionsOfTasks(*job.allocation, m.slot_of_task);
  m.node_colour = JobNodeColours(job.allocation->num_nodes(), m.position_of_task);
  m.hop_bytes = ComputeHopBytesFromPositions(*job.graph, *job.allocation, m.position_of_task);
  return m;
}

struct Context {
  const DrawJob& job;
  const DrawOptions& options;
  MachineLayout layout;
  Mapped answer, in_order;
};

// Link loads of one mapping, or why there are none.
struct Loads {
  std::optional<LinkLoads> loads;
  std::string skipped;  // set when loads is empty
};

Loads LinkLoadsOf(const Context& ctx, const Mapped& m) {
  Loads out;
  const Machine& machine = ctx.job.allocation->machine();
  if (machine.num_links() == 0) {
    out.skipped = absl::StrCat("the ", std::string(machine.kind()), " model has no links");
    return out;
  }
  const int64_t route_links = RouteLinkCount(*ctx.job.graph, *ctx.job.allocation, m.slot_of_task);
  if (route_links > kMaxReportRouteLinks) {
    out.skipped =
        absl::StrCat("the ", m.name, " mapping's routes cross ", FormatCount(route_links),
                     " links (over ", FormatCount(kMaxReportRouteLinks), "): too many to walk");
    return out;
  }
  out.loads =
      ComputeLinkLoads(*ctx.job.graph, *ctx.job.allocation, m.slot_of_task, ctx.options.routing);
  return out;
}

std::string Improvement(const Context& ctx) {
  if (ctx.in_order.hop_bytes == 0) return "in-order has no hop-bytes";
  const double gain =
      1.0 - static_cast<double>(ctx.answer.hop_bytes) / static_cast<double>(ctx.in_order.hop_bytes);
  return absl::StrFormat("%.1f%% %s than in-order's %s", 100 * std::abs(gain),
                         gain >= 0 ? "lower" : "higher", FormatCount(ctx.in_order.hop_bytes));
}

// A page's heading and the job's figures under it, wrapped to the page (a graph:
// spec or a long file name can be wider than it).
struct Title {
  std::vector<std::string> heading, detail;
  double height = 0;  // from the page's top margin to the space below it
};

constexpr double kHeadingSize = 17, kHeadingLine = 22, kDetailSize = 12.5, kDetailLine = 17;

Title MakeTitle(const Context& ctx, const std::string& heading) {
  const Allocation& a = *ctx.job.allocation;
  const double width = kPageWidth - 2 * kMargin;
  Title t;
  t.heading = WrapText(absl::StrCat(heading, ": ", ctx.job.job_name, " on ", a.machine().Spec()),
                       kHeadingSize, width, /*bold=*/true);
  t.detail = WrapText(absl::StrCat(FormatCount(ctx.job.graph->num_tasks()), " tasks, ",
                                   FormatBytes(static_cast<double>(ctx.job.graph->total_bytes())),
                                   "; ", FormatCount(a.num_nodes()), " nodes x ",
                                   a.cores_per_node(), " cores allocated; hop-bytes ",
                                   FormatCount(ctx.answer.hop_bytes), ", ", Improvement(ctx)),
                      kDetailSize, width);
  t.height = kTitleHeight + kHeadingLine * static_cast<double>(t.heading.size() - 1) +
             kDetailLine * static_cast<double>(t.detail.size() - 1);
  return t;
}

void DrawTitle(const Canvas& canvas, const Title& title) {
  double y = kMargin + 16;
  for (const std::string& line : title.heading) {
    canvas.Text(kMargin, y, line, kHeadingSize, kText, Align::kLeft, true);
    y += kHeadingLine;
  }
  y += 20 - kHeadingLine;
  for (const std::string& line : title.detail) {
    canvas.Text(kMargin, y, line, kDetailSize);
    y += kDetailLine;
  }
}

// ---- placement ----

// `by_task`: each cell coloured by the smallest task id it holds (task 0 to the
// last), so that two mappings on the same nodes look different; else by its node's
// place among the job's nodes (as the task grid beside it).
std::vector<CellState> CellStates(const Context& ctx, const Mapped& m, bool by_task = false) {
  const Allocation& a = *ctx.job.allocation;
  std::vector<CellState> cells(ctx.layout.cells.size());
  for (int32_t p = 0; p < a.num_nodes(); ++p) {
    cells[ctx.layout.cell_of_node[a.node_at(p)]].allocated = true;
  }
  // A cell's colour: its first node (in allocation order) that holds tasks.
  std::vector<bool> coloured(cells.size(), false);
  for (int32_t p = 0; p < a.num_nodes(); ++p) {
    const double colour = m.node_colour[static_cast<size_t>(p)];
    const int32_t c = ctx.layout.cell_of_node[a.node_at(p)];
    if (colour < 0 || coloured[c]) continue;
    coloured[c] = true;
    cells[c].colour = colour;
  }
  for (int32_t p : m.position_of_task) ++cells[ctx.layout.cell_of_node[a.node_at(p)]].tasks;
  if (by_task) {
    const double last = std::max<double>(1, static_cast<double>(m.position_of_task.size()) - 1);
    for (size_t t = m.position_of_task.size(); t-- > 0;) {  // the smallest id last
      cells[ctx.layout.cell_of_node[a.node_at(m.position_of_task[t])]].colour =
          static_cast<double>(t) / last;
    }
  }
  return cells;
}

std::vector<DrawnEdge> HeaviestEdges(const Context& ctx, const Mapped& m) {
  const Allocation& a = *ctx.job.allocation;
  std::vector<DrawnEdge> edges;
  const size_t keep = static_cast<size_t>(ctx.options.heaviest_edges);
  if (keep == 0) return edges;
  const auto lighter = [](const DrawnEdge& x, const DrawnEdge& y) { return x.weight > y.weight; };
  for (TaskId u = 0; u < ctx.job.graph->num_tasks(); ++u) {
    ctx.job.graph->ForEachNeighbor(u, [&](TaskId v, Bytes w) {
      if (v <= u) return;
      // A heap of the heaviest `keep` (its top the lightest kept); the weight test
      // first, as it turns away almost every edge of a large graph.
      if (edges.size() == keep && static_cast<double>(w) <= edges.front().weight) return;
      const int32_t ca = ctx.layout.cell_of_node[a.node_at(m.position_of_task[u])];
      const int32_t cb = ctx.layout.cell_of_node[a.node_at(m.position_of_task[v])];
      if (ca == cb) return;
      edges.push_back({ca, cb, static_cast<double>(w),
                       a.HopsBetweenPositions(m.position_of_task[u], m.position_of_task[v])});
      std::push_heap(edges.begin(), edges.end(), lighter);
      if (edges.size() > keep) {
        std::pop_heap(edges.begin(), edges.end(), lighter);
        edges.pop_back();
      }
    });
  }
  std::sort(edges.begin(), edges.end(), [](const DrawnEdge& x, const DrawnEdge& y) {
    return x.weight < y.weight;  // lightest first: the heaviest are drawn on top
  });
  return edges;
}

// The task grid (a 2D/3D stencil found in the graph), every task coloured as its
// node, with lines between neighbouring tasks on different nodes.
struct TaskGrid {
  PatternReport pattern;
  std::shared_ptr<TorusMachine> grid;  // the task grid's shape, as a mesh
  MachineLayout layout;
};

std::optional<TaskGrid> FindTaskGrid(const Context& ctx) {
  absl::StatusOr<PatternReport> pattern = AnalyzePattern(*ctx.job.graph);
  if (!pattern.ok() || !pattern->is_grid()) return std::nullopt;
  const std::vector<int32_t>& dims = pattern->dims;
  if (dims.size() < 2 || dims.size() > 3) return std::nullopt;
  int64_t product = 1;
  for (int32_t d : dims) product *= d;
  if (product != ctx.job.graph->num_tasks()) return std::nullopt;
  absl::StatusOr<TorusMachine> grid =
      TorusMachine::Create(dims, std::vector<bool>(dims.size(), false));
  if (!grid.ok()) return std::nullopt;
  TaskGrid out;
  out.pattern = *std::move(pattern);
  out.grid = std::make_shared<TorusMachine>(*std::move(grid));
  out.layout = BuildLayout(*out.grid, 2 * ctx.options.max_cells);
  return out;
}

// The grid's cells and node boundaries (up to 2 x max_cells cells and twice as many
// lines) as one raster layer; its title as text.
void DrawTaskGridCells(const Canvas& canvas, const Context& ctx, const TaskGrid& tg,
                       const View& view, const Mapped& m) {
  const Allocation& a = *ctx.job.allocation;
  std::vector<int32_t> first_task(tg.layout.cells.size(), -1);
  for (TaskId t = 0; t < ctx.job.graph->num_tasks(); ++t) {
    int32_t& f = first_task[tg.layout.cell_of_node[t]];
    if (f < 0) f = t;
  }
  for (size_t c = 0; c < tg.layout.cells.size(); ++c) {
    // Cells grown over the layout's gaps, and half a point more (no seams where
    // antialiased edges meet): the grid is one surface, parted by lines.
    const Rect& r = tg.layout.cells[c];
    const double grow = kCellGap / 2 + 0.5 / view.scale;
    canvas.FillRect(view.X(r.x - grow), view.Y(r.y - grow), (r.w + 2 * grow) * view.scale,
                    (r.h + 2 * grow) * view.scale,
                    Viridis(m.node_colour[m.position_of_task[first_task[c]]]));
  }
  // Node boundaries: between a cell and its +x / +y neighbour in the same slice.
  const std::vector<int32_t> dims = tg.grid->dims();
  const double line = std::clamp(view.scale * 0.15, 0.6, 2.0);
  std::vector<int32_t> coords(dims.size());
  for (size_t c = 0; c < tg.layout.cells.size(); ++c) {
    const TaskId t = first_task[c];
    tg.grid->Coordinates(t, coords);
    for (int dim = 0; dim < 2; ++dim) {
      // The first task of the next cell along `dim` (a cell may be a block; its
      // first task, the smallest id, is the block's lowest corner).
      std::vector<int32_t> next = coords;
      const Rect& r = tg.layout.cells[c];
      do {
        ++next[dim];
      } while (next[dim] < dims[dim] &&
               tg.layout.cell_of_node[tg.grid->NodeAt(next)] == static_cast<int32_t>(c));
      if (next[dim] >= dims[dim]) continue;
      const TaskId u = tg.grid->NodeAt(next);
      if (a.node_at(m.position_of_task[u]) == a.node_at(m.position_of_task[t])) continue;
      const double g = kCellGap / 2;
      if (dim == 0) {
        canvas.Line(view.X(r.x + r.w + g), view.Y(r.y - g), view.X(r.x + r.w + g),
                    view.Y(r.y + r.h + g), kText, line);
      } else {
        canvas.Line(view.X(r.x - g), view.Y(r.y + r.h + g), view.X(r.x + r.w + g),
                    view.Y(r.y + r.h + g), kText, line);
      }
    }
  }
}

void DrawTaskGrid(const Canvas& canvas, const Context& ctx, const TaskGrid& tg, const View& view,
                  const Mapped& m) {
  DrawAsRaster(canvas, view.X(0) - 2, view.Y(0) - 2, tg.layout.width * view.scale + 4,
               tg.layout.height * view.scale + 4,
               [&](const Canvas& layer) { DrawTaskGridCells(layer, ctx, tg, view, m); });
  std::vector<std::string> sizes;
  for (int32_t d : tg.grid->dims()) sizes.push_back(absl::StrCat(d));
  canvas.Text(view.X(0), view.Y(0) - 22,
              absl::StrCat("task grid (", tg.pattern.kind, ", ", absl::StrJoin(sizes, "x"),
                           "): each task coloured as its node"),
              11, kText, Align::kLeft, true);
}

void PlacementLegend(const Canvas& canvas, const Context& ctx, double y, int drawn_edges,
                     const HopClasses& classes, bool with_grid) {
  double x = kMargin;
  x += Swatch(canvas, x, y, kNotAllocated, "not allocated", true) + 18;
  x += Swatch(canvas, x, y, kAllocatedEmpty, "allocated, no task") + 18;
  DrawColourBar(canvas, x + 10, y - 9, 260,
                "tasks' node, by its place among the job's nodes (allocation order)",
                {"first", "last"});
  y += 34;
  const char* between = ctx.layout.aggregated ? "cells" : "nodes";
  if (drawn_edges == 0) {
    canvas.Text(kMargin, y,
                ctx.options.heaviest_edges == 0
                    ? std::string("no messages drawn (--edges 0)")
                    : absl::StrCat("no messages between ", between, ": every message stays in one ",
                                   ctx.layout.aggregated ? "cell" : "node"),
                10);
  } else {
    x = kMargin +
        canvas.Text(
            kMargin, y,
            absl::StrCat("the ", drawn_edges, " heaviest messages between ", between, ", by hops:"),
            10) +
        10;
    for (int c = 0; c < classes.size(); ++c) {
      x += LineSwatch(canvas, x, y, ClassColour(c), classes.Label(c)) + 14;
    }
  }
  y += 18;
  std::string note = absl::StrCat("each cell: ", ctx.layout.cell_note);
  if (!ctx.layout.aggregated) absl::StrAppend(&note, "; the number in a cell: its tasks");
  if (with_grid) absl::StrAppend(&note, "; task grid: black lines part tasks on different nodes");
  canvas.Text(kMargin, y, note, 10);
}

// ---- links ----

std::vector<bool> CellsAllocated(const Context& ctx) {
  std::vector<bool> allocated(ctx.layout.cells.size(), false);
  for (NodeId node : ctx.job.allocation->nodes()) allocated[ctx.layout.cell_of_node[node]] = true;
  return allocated;
}

std::vector<std::pair<int64_t, double>> BusiestLinks(const LinkLoads& loads, int count) {
  std::vector<int64_t> order(loads.bytes_on_link.size());
  std::iota(order.begin(), order.end(), 0);
  const size_t k = std::min(order.size(), static_cast<size_t>(count));
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t a, int64_t b) {
    const double la = loads.bytes_on_link[a], lb = loads.bytes_on_link[b];
    return la != lb ? la > lb : a < b;
  });
  std::vector<std::pair<int64_t, double>> out;
  for (size_t i = 0; i < k && loads.bytes_on_link[order[i]] > 0; ++i) {
    out.push_back({order[i], loads.bytes_on_link[order[i]]});
  }
  return out;
}

// `matrix_drawn`: the page shows the layout's link matrix (the dragonfly's global
// links); where it does not, its note says so instead of explaining it.
double LinkNotes(const Canvas& canvas, const Context& ctx, double y, bool matrix_drawn) {
  canvas.Text(
      kMargin, y,
      absl::StrCat("each cell: ", ctx.layout.cell_note, "; bytes per directed link, ",
                   ctx.options.routing == Routing::kAdaptive ? "adaptive" : "dimension-order",
                   " routing; grey: no traffic"),
      10);
  for (const std::string& note : ctx.layout.link_notes) {
    y += 15;
    canvas.Text(kMargin, y,
                !matrix_drawn && note.rfind("matrix:", 0) == 0
                    ? std::string("global links: not drawn here (their matrix is in --what links)")
                    : note,
                10);
  }
  return y + 10;
}

absl::Status DrawLinksPage(const Context& ctx, const std::string& path) {
  const Loads loads = LinkLoadsOf(ctx, ctx.answer);
  if (!loads.loads)
    return absl::FailedPreconditionError(absl::StrCat("--what links: ", loads.skipped));
  const Title title = MakeTitle(ctx, "Link loads");
  const double top = kMargin + title.height + kLabelBand;
  const double panel_w = kPageWidth - 2 * kMargin - kSidebarWidth - 24;
  View view = FitLayout(ctx.layout, kMargin, top, panel_w, kMaxPanelHeight);
  const double panel_h = ctx.layout.height * view.scale;
  const std::vector<std::pair<int64_t, double>> busiest =
      BusiestLinks(*loads.loads, ctx.options.busiest_links);
  const double matrix_size = ctx.layout.matrix.size > 0 ? kSidebarWidth - 20 : 0;
  const double sidebar_h =
      74 + 16.0 * (busiest.size() + 1) + (matrix_size > 0 ? matrix_size + 50 : 0);
  const double notes_h = 16.0 * (ctx.layout.link_notes.size() + 1) + 10;
  const double height = top + std::max(panel_h, sidebar_h) + 24 + notes_h + kMargin;
  absl::StatusOr<std::unique_ptr<Canvas>> canvas = Canvas::Open(path, kPageWidth, height);
  if (!canvas.ok()) return canvas.status();
  const Canvas& c = **canvas;
  DrawTitle(c, title);
  const LinkMarkLoads marks = CollectLinkMarks(ctx.layout, loads.loads->bytes_on_link);
  const double scale_max = std::max(marks.max_load, 1.0);
  DrawLinkPanel(c, ctx.layout, view, CellsAllocated(ctx), marks, scale_max);
  const double sx = kPageWidth - kMargin - kSidebarWidth;
  double sy = top;
  DrawColourBar(c, sx, sy + 10, kSidebarWidth - 20, "bytes on a directed link",
                ByteTicks(scale_max));
  sy += 64;
  // The heading and its figures on two lines: together they outgrow the sidebar.
  c.Text(sx, sy, "busiest links", 10, kText, Align::kLeft, true);
  sy += 14;
  c.Text(sx, sy,
         absl::StrCat("max ", FormatBytes(loads.loads->max_load), ", mean ",
                      FormatBytes(loads.loads->average_load), " over ",
                      FormatCount(loads.loads->links_used), " links used"),
         9.5);
  const Machine& machine = ctx.job.allocation->machine();
  for (const auto& [link, load] : busiest) {
    sy += 16;
    const double bytes_w =
        c.Text(sx + kSidebarWidth - 20, sy, FormatBytes(load), 9.5, kText, Align::kRight);
    c.Text(sx, sy, FitText(machine.LinkName(link), 9.5, kSidebarWidth - 20 - bytes_w - 8), 9.5);
  }
  if (matrix_size > 0)
    DrawLinkMatrix(c, sx, sy + 40, matrix_size, ctx.layout.matrix, marks, scale_max);
  LinkNotes(c, ctx, top + std::max(panel_h, sidebar_h) + 24, /*matrix_drawn=*/true);
  return (*canvas)->Finish();
}

// ---- placement page ----

absl::Status DrawPlacementPage(const Context& ctx, const std::string& path) {
  const std::optional<TaskGrid> grid = FindTaskGrid(ctx);
  const double usable = kPageWidth - 2 * kMargin;
  const double machine_w = grid ? 0.58 * usable : usable;
  const Title title = MakeTitle(ctx, "Placement");
  const double top = kMargin + title.height + kLabelBand;
  const View view = FitLayout(ctx.layout, kMargin, top, machine_w, kMaxPanelHeight);
  double panel_h = ctx.layout.height * view.scale;
  std::optional<View> grid_view;
  if (grid) {
    grid_view = FitLayout(grid->layout, kMargin + machine_w + 36, top + 30, usable - machine_w - 36,
                          kMaxPanelHeight - 30);
    panel_h = std::max(panel_h, 30 + grid->layout.height * grid_view->scale);
  }
  const double height = top + panel_h + 30 + 70 + kMargin;
  absl::StatusOr<std::unique_ptr<Canvas>> canvas = Canvas::Open(path, kPageWidth, height);
  if (!canvas.ok()) return canvas.status();
  const Canvas& c = **canvas;
  DrawTitle(c, title);
  const std::vector<DrawnEdge> edges = HeaviestEdges(ctx, ctx.answer);
  std::vector<int> hops;
  for (const DrawnEdge& e : edges) hops.push_back(e.hops);
  const HopClasses classes =
      HopClasses::OfValues(std::move(hops), ctx.job.allocation->machine().max_hops());
  DrawPlacementPanel(c, ctx.layout, view, CellStates(ctx, ctx.answer), edges, classes);
  if (grid) DrawTaskGrid(c, ctx, *grid, *grid_view, ctx.answer);
  PlacementLegend(c, ctx, top + panel_h + 30, static_cast<int>(edges.size()), classes,
                  grid.has_value());
  return (*canvas)->Finish();
}

// ---- hops ----

std::vector<HopSeries> BothSeries(const Context& ctx) {
  return {
      {"in-order", kInOrderColour,
       BytesByHops(*ctx.job.graph, *ctx.job.allocation, ctx.in_order.slot_of_task)},
      {"answer", kAnswerColour,
       BytesByHops(*ctx.job.graph, *ctx.job.allocation, ctx.answer.slot_of_task)},
  };
}

absl::Status DrawHopsPage(const Context& ctx, const std::string& path) {
  const Title title = MakeTitle(ctx, "Bytes by hops");
  const double top = kMargin + title.height + 10;
  const double chart_h = 440;
  absl::StatusOr<std::unique_ptr<Canvas>> canvas =
      Canvas::Open(path, kPageWidth, top + chart_h + 30 + kMargin);
  if (!canvas.ok()) return canvas.status();
  const Canvas& c = **canvas;
  DrawTitle(c, title);
  DrawHopsChart(c, kMargin, top, kPageWidth - 2 * kMargin, chart_h, BothSeries(ctx));
  c.Text(kMargin, top + chart_h + 20,
         "0 hops: both tasks on one node; the curves: share of all bytes that travel at most "
         "that many hops",
         10);
  return (*canvas)->Finish();
}

// ---- compare ----

absl::Status DrawComparePage(const Context& ctx, const std::string& path) {
  const Loads in_order = LinkLoadsOf(ctx, ctx.in_order);
  const Loads answer = LinkLoadsOf(ctx, ctx.answer);
  // Link panels where the layout draws links; else the placements (a model whose
  // links are only listed would show two blank machines).
  const bool links = in_order.loads && answer.loads && ctx.layout.links_drawn;
  const double gap = 36;
  const double panel_w = (kPageWidth - 2 * kMargin - gap) / 2;
  const Title title = MakeTitle(ctx, "In-order against the answer");
  const double top = kMargin + title.height + 20 + kLabelBand;
  const View left = FitLayout(ctx.layout, kMargin, top, panel_w, kMaxPanelHeight * 0.75);
  const View right =
      FitLayout(ctx.layout, kMargin + panel_w + gap, top, panel_w, kMaxPanelHeight * 0.75);
  const double panel_h = ctx.layout.height * left.scale;
  const double chart_h = 320;
  const double legend_h = links ? 58 + 16.0 * (ctx.layout.link_notes.size() + 1) : 60;
  const double height = top + panel_h + 20 + legend_h + chart_h + 30 + kMargin;
  absl::StatusOr<std::unique_ptr<Canvas>> canvas = Canvas::Open(path, kPageWidth, height);
  if (!canvas.ok()) return canvas.status();
  const Canvas& c = **canvas;
  DrawTitle(c, title);
  double y = top + panel_h + 20;
  if (links) {
    const LinkMarkLoads a = CollectLinkMarks(ctx.layout, in_order.loads->bytes_on_link);
    const LinkMarkLoads b = CollectLinkMarks(ctx.layout, answer.loads->bytes_on_link);
    const double scale_max = std::max({a.max_load, b.max_load, 1.0});  // one scale for both
    const std::vector<bool> allocated = CellsAllocated(ctx);
    DrawLinkPanel(c, ctx.layout, left, allocated, a, scale_max);
    DrawLinkPanel(c, ctx.layout, right, allocated, b, scale_max);
    for (int side = 0; side < 2; ++side) {
      const Mapped& m = side == 0 ? ctx.in_order : ctx.answer;
      const LinkLoads& l = side == 0 ? *in_order.loads : *answer.loads;
      c.Text(side == 0 ? kMargin : kMargin + panel_w + gap, top - kLabelBand - 4,
             absl::StrCat(m.name, ": hop-bytes ", FormatCount(m.hop_bytes), ", busiest link ",
                          FormatBytes(l.max_load)),
             12, kText, Align::kLeft, true);
    }
    DrawColourBar(c, kMargin, y + 8, 360, "bytes on a directed link (both sides)",
                  ByteTicks(scale_max));
    y = LinkNotes(c, ctx, y + 58, /*matrix_drawn=*/false);
  } else {
    const std::vector<DrawnEdge> none;
    const HopClasses classes(ctx.job.allocation->machine().max_hops());
    DrawPlacementPanel(c, ctx.layout, left, CellStates(ctx, ctx.in_order, /*by_task=*/true), none,
                       classes);
    DrawPlacementPanel(c, ctx.layout, right, CellStates(ctx, ctx.answer, /*by_task=*/true), none,
                       classes);
    for (int side = 0; side < 2; ++side) {
      const Mapped& m = side == 0 ? ctx.in_order : ctx.answer;
      c.Text(side == 0 ? kMargin : kMargin + panel_w + gap, top - kLabelBand - 4,
             absl::StrCat(m.name, ": hop-bytes ", FormatCount(m.hop_bytes)), 12, kText,
             Align::kLeft, true);
    }
    c.Text(kMargin, y + 10,
           absl::StrCat(
               "link loads not shown: ",
               !in_order.loads                 ? in_order.skipped
               : !answer.loads                 ? answer.skipped
               : ctx.layout.link_notes.empty() ? std::string("not drawn")
                                               : ctx.layout.link_notes.front(),
               "; each cell coloured by the first task it holds (viridis, task 0 to the last)"),
           10);
    y += 30;
  }
  DrawHopsChart(c, kMargin, y + 10, kPageWidth - 2 * kMargin, chart_h, BothSeries(ctx));
  return (*canvas)->Finish();
}

}  // namespace

absl::StatusOr<What> ParseWhat(absl::string_view name) {
  if (name == "placement") return What::kPlacement;
  if (name == "links") return What::kLinks;
  if (name == "hops") return What::kHops;
  if (name == "compare") return What::kCompare;
  return absl::InvalidArgumentError(absl::StrCat("--what: unknown picture '", name,
                                                 "' (known: placement, links, hops, compare)"));
}

absl::string_view WhatName(What what) {
  switch (what) {
    case What::kPlacement:
      return "placement";
    case What::kLinks:
      return "links";
    case What::kHops:
      return "hops";
    case What::kCompare:
      return "compare";
  }
  return "?";
}

absl::Status DrawOptions::Validate() const {
  if (max_cells < 16 || max_cells > 65536) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_cells: ", max_cells, " is outside [16, 65536]"));
  }
  if (heaviest_edges < 0 || heaviest_edges > 10000) {
    return absl::InvalidArgumentError(
        absl::StrCat("heaviest_edges: ", heaviest_edges, " is outside [0, 10000]"));
  }
  if (busiest_links < 0 || busiest_links > 10000) {
    return absl::InvalidArgumentError(
        absl::StrCat("busiest_links: ", busiest_links, " is outside [0, 10000]"));
  }
  return absl::OkStatus();
}

absl::Status DrawPicture(const DrawJob& job, const DrawOptions& options, const std::string& path) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  if (absl::StatusOr<FileFormat> f = FileFormatOfPath(path); !f.ok()) return f.status();
  const TaskGraph& graph = *job.graph;
  const Allocation& allocation = *job.allocation;
  if (static_cast<int64_t>(job.slot_of_task.size()) != graph.num_tasks()) {
    return absl::InvalidArgumentError(absl::StrCat("the mapping places ", job.slot_of_task.size(),
                                                   " tasks but the graph has ", graph.num_tasks()));
  }
  if (absl::Status s = ValidateMapping(allocation, graph.num_tasks(), job.slot_of_task); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckHopBytesFit(graph, allocation); !s.ok()) return s;
  std::vector<SlotId> identity(static_cast<size_t>(graph.num_tasks()));
  std::iota(identity.begin(), identity.end(), 0);
  Context ctx{job, options, BuildLayout(allocation.machine(), options.max_cells),
              MakeMapped(job, "answer", {job.slot_of_task.begin(), job.slot_of_task.end()}),
              MakeMapped(job, "in-order", std::move(identity))};
  switch (options.what) {
    case What::kPlacement:
      return DrawPlacementPage(ctx, path);
    case What::kLinks:
      return DrawLinksPage(ctx, path);
    case What::kHops:
      return DrawHopsPage(ctx, path);
    case What::kCompare:
      return DrawComparePage(ctx, path);
  }
  return absl::InternalError("unknown picture");
}

}  // namespace hopmap::draw
