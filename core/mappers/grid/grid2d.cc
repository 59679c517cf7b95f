#include "core/mappers/grid/grid2d.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/mappers/grid/grid.h"
#include "core/metrics/hop_bytes.h"

namespace hopmap {
namespace {

struct Cell {
  int32_t x;
  int32_t y;
};

// Cells of a w x h grid by increasing Manhattan distance from (0, 0); within one
// anti-diagonal x rises on even diagonals and falls on odd ones (a snake, so the
// last cell of a diagonal touches the first of the next).
std::vector<Cell> DiagonalOrder(int32_t w, int32_t h) {
  std::vector<Cell> order;
  order.reserve(static_cast<size_t>(w) * h);
  for (int32_t d = 0; d <= w + h - 2; ++d) {
    const int32_t lo = std::max(0, d - (h - 1));
    const int32_t hi = std::min(w - 1, d);
    if (d % 2 == 0) {
      for (int32_t x = lo; x <= hi; ++x) order.push_back({x, d - x});
    } else {
      for (int32_t x = hi; x >= lo; --x) order.push_back({x, d - x});
    }
  }
  return order;
}

// A piece of the object grid: local (a, b) -> object (ux + a, uy + b), or
// (ux + b, uy + a) when swapped (the piece was transposed to align it).
struct Frame {
  int32_t ux = 0;
  int32_t uy = 0;
  bool swap = false;
  [[nodiscard]] Cell Orig(int32_t a, int32_t b) const {
    return swap ? Cell{ux + b, uy + a} : Cell{ux + a, uy + b};
  }
  // The sub-piece whose local origin is this piece's (da, db), transposed if `s`.
  [[nodiscard]] Frame Sub(int32_t da, int32_t db, bool s) const {
    const Cell o = Orig(da, db);
    return {o.x, o.y, swap != s};
  }
};

bool Misaligned(int32_t w, int32_t h, int32_t mw, int32_t mh) {
  return (w > h && mw < mh) || (w < h && mw > mh);
}

// Algorithm 2 (MXOVLP), iteratively (each recursive call is a tail call); with
// `realign` (MXOV+AL) the remaining piece is transposed whenever its longer dim does
// not lie along the remaining mesh's longer dim.
void MaxOverlap(bool realign, int32_t ox, int32_t oy, int32_t px, int32_t py,
                std::vector<int32_t>& out) {
  Frame frame;
  int32_t w = ox, h = oy, mx = 0, my = 0, mw = px, mh = py;
  auto place = [&](int32_t aw, int32_t bh) {
    for (int32_t b = 0; b < bh; ++b) {
      for (int32_t a = 0; a < aw; ++a) {
        const Cell c = frame.Orig(a, b);
        out[c.x + static_cast<int64_t>(ox) * c.y] = (mx + a) + px * (my + b);
      }
    }
  };
  while (true) {
    if (realign && Misaligned(w, h, mw, mh)) {
      frame = frame.Sub(0, 0, true);
      std::swap(w, h);
    }
    if (w <= mw && h <= mh) {
      place(w, h);
      return;
    }
    if (w > mw) {  // then h < mh (area): map mw x h, the rest goes above
      place(mw, h);
      frame = frame.Sub(mw, 0, false);
      w -= mw;
      my += h;
      mh -= h;
    } else {  // w < mw and h > mh: map w x mh, the rest goes to the right
      place(w, mh);
      frame = frame.Sub(0, mh, false);
      h -= mh;
      mx += w;
      mw -= w;
    }
  }
}

void ExpandFromCorner(int32_t ox, int32_t oy, int32_t px, int32_t py, std::vector<int32_t>& out) {
  const std::vector<Cell> objects = DiagonalOrder(ox, oy);
  const std::vector<Cell> nodes = DiagonalOrder(px, py);
  for (size_t i = 0; i < objects.size(); ++i) {
    out[objects[i].x + static_cast<int64_t>(ox) * objects[i].y] = nodes[i].x + px * nodes[i].y;
  }
}

// Corner k's local coordinates: k & 1 mirrors x, k & 2 mirrors y.
Cell FromCorner(int k, Cell c, int32_t w, int32_t h) {
  return {(k & 1) ? w - 1 - c.x : c.x, (k & 2) ? h - 1 - c.y : c.y};
}

int32_t CornerDistance(int k, Cell c, int32_t w, int32_t h) {
  const Cell l = FromCorner(k, c, w, h);
  return l.x + l.y;
}

// COCE: every object belongs to its nearest corner (ties: the lowest corner index);
// objects are taken by (distance to their corner, corner, snake order), and each goes
// to the free node nearest the same corner of the mesh (snake order from that corner).
// On equal shapes this is the identity.
void CornersToCenter(int32_t ox, int32_t oy, int32_t px, int32_t py, std::vector<int32_t>& out) {
  auto own_corner = [&](Cell c) {
    int best = 0;
    for (int k = 1; k < 4; ++k) {
      if (CornerDistance(k, c, ox, oy) < CornerDistance(best, c, ox, oy)) best = k;
    }
    return best;
  };
  std::array<std::vector<Cell>, 4> object_lists, node_lists;
  const std::vector<Cell> object_order = DiagonalOrder(ox, oy);
  const std::vector<Cell> node_order = DiagonalOrder(px, py);
  for (int k = 0; k < 4; ++k) {
    for (const Cell& local : object_order) {
      const Cell c = FromCorner(k, local, ox, oy);
      if (own_corner(c) == k) object_lists[k].push_back(c);
    }
    node_lists[k].reserve(node_order.size());
    for (const Cell& local : node_order) node_lists[k].push_back(FromCorner(k, local, px, py));
  }
  std::vector<char> used(static_cast<size_t>(px) * py, 0);
  std::array<size_t, 4> next_object{}, next_node{};
  for (int32_t d = 0; d <= ox + oy - 2; ++d) {
    for (int k = 0; k < 4; ++k) {
      std::vector<Cell>& objects = object_lists[k];
      while (next_object[k] < objects.size() &&
             CornerDistance(k, objects[next_object[k]], ox, oy) == d) {
        const Cell c = objects[next_object[k]++];
        size_t& p = next_node[k];
        while (used[node_lists[k][p].x + static_cast<int64_t>(px) * node_lists[k][p].y]) ++p;
        const int32_t node = node_lists[k][p].x + px * node_lists[k][p].y;
        used[node] = 1;
        out[c.x + static_cast<int64_t>(ox) * c.y] = node;
      }
    }
  }
}

// AFFN (Algorithm 4) with findNearest2D: the free node closest (Manhattan) to the
// affine target, searched ring by ring; within a ring by rising dx, then -dy first.
void Affine(int32_t ox, int32_t oy, int32_t px, int32_t py, std::vector<int32_t>& out) {
  std::vector<char> used(static_cast<size_t>(px) * py, 0);
  auto free_at = [&](int64_t x, int64_t y) {
    return x >= 0 && y >= 0 && x < px && y < py && !used[x + px * y];
  };
  for (int32_t i = 0; i < ox; ++i) {
    for (int32_t j = 0; j < oy; ++j) {
      const int64_t ax = static_cast<int64_t>(px) * i / ox;
      const int64_t ay = static_cast<int64_t>(py) * j / oy;
      int64_t fx = -1, fy = -1;
      for (int64_t r = 0; fx < 0 && r <= px + py; ++r) {
        for (int64_t dx = -r; dx <= r && fx < 0; ++dx) {
          const int64_t dy = r - std::abs(dx);
          if (free_at(ax + dx, ay - dy)) {
            fx = ax + dx, fy = ay - dy;
          } else if (dy != 0 && free_at(ax + dx, ay + dy)) {
            fx = ax + dx, fy = ay + dy;
          }
        }
      }
      used[fx + px * fy] = 1;
      out[i + static_cast<int64_t>(ox) * j] = static_cast<int32_t>(fx + px * fy);
    }
  }
}

absl::StatusOr<std::vector<int32_t>> MapAligned(Grid2dKind kind, int32_t ox, int32_t oy, int32_t px,
                                                int32_t py);

// f on the transposed problem, read back: object (x, y) is (y, x) there, and node
// (a, b) of the transposed mesh is (b, a) here.
absl::StatusOr<std::vector<int32_t>> Transposed(Grid2dKind kind, int32_t ox, int32_t oy, int32_t px,
                                                int32_t py, bool mesh_too) {
  const int32_t tpx = mesh_too ? py : px, tpy = mesh_too ? px : py;
  absl::StatusOr<std::vector<int32_t>> t = MapAligned(kind, oy, ox, tpx, tpy);
  if (!t.ok()) return t.status();
  std::vector<int32_t> out(static_cast<size_t>(ox) * oy);
  for (int32_t y = 0; y < oy; ++y) {
    for (int32_t x = 0; x < ox; ++x) {
      const int32_t node = (*t)[y + static_cast<int64_t>(oy) * x];
      out[x + static_cast<int64_t>(ox) * y] = mesh_too ? (node / tpx) + px * (node % tpx) : node;
    }
  }
  return out;
}

// STEP, with ox <= px and oy > py: strips of py object rows, each ox wide, laid left
// to right, every odd strip mirrored vertically so consecutive strips meet along the
// mesh row they share (the cut edges run ox hops, not ox + py); the rows left when no
// whole strip fits any more go to the rest of the mesh by MXOV+AL.
absl::StatusOr<std::vector<int32_t>> StepStrips(int32_t ox, int32_t oy, int32_t px, int32_t py) {
  std::vector<int32_t> out(static_cast<size_t>(ox) * oy);
  const int32_t strips = std::min(px / ox, (oy + py - 1) / py);
  for (int32_t s = 0; s < strips; ++s) {
    for (int32_t y = s * py; y < std::min(oy, (s + 1) * py); ++y) {
      const int32_t r = y - s * py;
      const int32_t mesh_y = (s % 2 == 1) ? py - 1 - r : r;
      for (int32_t x = 0; x < ox; ++x) {
        out[x + static_cast<int64_t>(ox) * y] = s * ox + x + px * mesh_y;
      }
    }
  }
  const int32_t done_rows = std::min(oy, strips * py);
  if (done_rows < oy) {
    const int32_t rest_w = px - strips * ox;
    absl::StatusOr<std::vector<int32_t>> rest =
        MapAligned(Grid2dKind::kMxovAl, ox, oy - done_rows, rest_w, py);
    if (!rest.ok()) return rest.status();
    for (int32_t y = done_rows; y < oy; ++y) {
      for (int32_t x = 0; x < ox; ++x) {
        const int32_t node = (*rest)[x + static_cast<int64_t>(ox) * (y - done_rows)];
        out[x + static_cast<int64_t>(ox) * y] = strips * ox + node % rest_w + px * (node / rest_w);
      }
    }
  }
  return out;
}

absl::StatusOr<std::vector<int32_t>> MapAligned(Grid2dKind kind, int32_t ox, int32_t oy, int32_t px,
                                                int32_t py) {
  if (ox <= 0 || oy <= 0 || px <= 0 || py <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("grid2d: dims must be positive, got ", ox, "x", oy, " -> ", px, "x", py));
  }
  if (static_cast<int64_t>(ox) * oy > static_cast<int64_t>(px) * py) {
    return absl::InvalidArgumentError(absl::StrCat("grid2d: the ", ox, "x", oy,
                                                   " object grid has more cells than the ", px, "x",
                                                   py, " mesh has nodes"));
  }
  if (Misaligned(ox, oy, px, py)) return Transposed(kind, ox, oy, px, py, /*mesh_too=*/false);
  std::vector<int32_t> out(static_cast<size_t>(ox) * oy);
  switch (kind) {
    case Grid2dKind::kMxovlp:
    case Grid2dKind::kMxovAl:
      MaxOverlap(kind == Grid2dKind::kMxovAl, ox, oy, px, py, out);
      return out;
    case Grid2dKind::kExco:
      ExpandFromCorner(ox, oy, px, py, out);
      return out;
    case Grid2dKind::kCoce:
      CornersToCenter(ox, oy, px, py, out);
      return out;
    case Grid2dKind::kAffn:
      Affine(ox, oy, px, py, out);
      return out;
    case Grid2dKind::kStep:
      if (ox <= px && oy <= py) {
        MaxOverlap(false, ox, oy, px, py, out);  // fits: one to one
        return out;
      }
      if (ox > px) return Transposed(kind, ox, oy, px, py, /*mesh_too=*/true);
      return StepStrips(ox, oy, px, py);
    case Grid2dKind::kPairs:
      break;
  }
  return absl::InvalidArgumentError("grid2d: pairs needs a graph; use Grid2dMapper");
}

int64_t EdgeDelta(const TaskGraph& graph, const Allocation& allocation,
                  const std::vector<int32_t>& pos, TaskId u, TaskId w) {
  const int32_t pu = pos[u], pw = pos[w];
  int64_t delta = 0;
  for (EdgeIndex e = graph.xadj()[u]; e < graph.xadj()[u + 1]; ++e) {
    const TaskId a = graph.adjncy()[e];
    if (a == w) continue;
    delta += graph.adjwgt()[e] * (allocation.HopsBetweenPositions(pw, pos[a]) -
                                  allocation.HopsBetweenPositions(pu, pos[a]));
  }
  for (EdgeIndex e = graph.xadj()[w]; e < graph.xadj()[w + 1]; ++e) {
    const TaskId b = graph.adjncy()[e];
    if (b == u) continue;
    delta += graph.adjwgt()[e] * (allocation.HopsBetweenPositions(pu, pos[b]) -
                                  allocation.HopsBetweenPositions(pw, pos[b]));
  }
  return delta;
}

}  // namespace

std::string Grid2dKindName(Grid2dKind kind) {
  switch (kind) {
    case Grid2dKind::kMxovlp:
      return "mxovlp";
    case Grid2dKind::kMxovAl:
      return "mxov-al";
    case Grid2dKind::kExco:
      return "exco";
    case Grid2dKind::kCoce:
      return "coce";
    case Grid2dKind::kAffn:
      return "affn";
    case Grid2dKind::kStep:
      return "step";
    case Grid2dKind::kPairs:
      return "pairs";
  }
  return "unknown";
}

const std::vector<Grid2dKind>& Grid2dHeuristics() {
  static const std::vector<Grid2dKind> kinds = {Grid2dKind::kMxovlp, Grid2dKind::kMxovAl,
                                                Grid2dKind::kExco,   Grid2dKind::kCoce,
                                                Grid2dKind::kAffn,   Grid2dKind::kStep};
  return kinds;
}

absl::StatusOr<std::vector<int32_t>> MapGrid2dToMesh(Grid2dKind kind, int32_t ox, int32_t oy,
                                                     int32_t px, int32_t py) {
  return MapAligned(kind, ox, oy, px, py);
}

int RefineByPairSwaps(const TaskGraph& graph, const Allocation& allocation,
                      std::vector<SlotId>& slot_of_task, const StopCondition& stop,
                      int max_passes) {
  const TaskId n = graph.num_tasks();
  std::vector<int32_t> pos = PositionsOfTasks(allocation, slot_of_task);
  int passes = 0;
  for (; passes < max_passes; ++passes) {
    bool improved = false;
    for (TaskId u = 0; u < n; ++u) {
      if (u % 1024 == 0 && stop.ShouldStop()) return passes;
      for (EdgeIndex e = graph.xadj()[u]; e < graph.xadj()[u + 1]; ++e) {
        const TaskId v = graph.adjncy()[e];
        for (EdgeIndex f = graph.xadj()[v]; f < graph.xadj()[v + 1]; ++f) {
          const TaskId w = graph.adjncy()[f];
          if (w == u || pos[w] == pos[u]) continue;
          if (EdgeDelta(graph, allocation, pos, u, w) < 0) {
            std::swap(slot_of_task[u], slot_of_task[w]);
            std::swap(pos[u], pos[w]);
            improved = true;
          }
        }
      }
    }
    if (!improved) return passes + 1;
  }
  return passes;
}

absl::StatusOr<MapOutput> Grid2dMapper::Map(const MapInput& input) const {
  const std::string name = Grid2dKindName(kind_);
  if (absl::Status s = CheckFits(input.graph, input.allocation); !s.ok()) return s;
  absl::StatusOr<TaskGrid> grid = TaskGridOf(input, name);
  if (!grid.ok()) return grid.status();
  int grid_dims = 0;
  for (int32_t d : grid->dims) grid_dims += d > 1 ? 1 : 0;
  if (grid_dims > 2) {
    return absl::FailedPreconditionError(absl::StrCat(name, " maps 2D grids; the task grid ",
                                                      absl::StrJoin(grid->dims, "x"), " has ",
                                                      grid_dims, " dims longer than 1"));
  }
  absl::StatusOr<MachineBox> box = BoxOf(input.allocation, name);
  if (!box.ok()) return box.status();
  std::vector<int> box_axes;
  for (size_t d = 0; d < box->dims.size(); ++d) {
    if (box->dims[d] > 1) box_axes.push_back(static_cast<int>(d));
  }
  if (box_axes.size() > 2) {
    return absl::FailedPreconditionError(absl::StrCat(
        name, " maps onto a 2D mesh; the allocation is a ", absl::StrJoin(box->dims, "x"),
        " box (at most two dims may be longer than 1)"));
  }
  const int32_t cores = input.allocation.cores_per_node();
  const CoarseGrid coarse = CoarsenByCores(*grid, cores);
  std::vector<int> cell_axes;
  for (size_t d = 0; d < coarse.cells.dims.size(); ++d) {
    if (coarse.cells.dims[d] > 1) cell_axes.push_back(static_cast<int>(d));
  }
  const int32_t ox = cell_axes.empty() ? 1 : coarse.cells.dims[cell_axes[0]];
  const int32_t oy = cell_axes.size() < 2 ? 1 : coarse.cells.dims[cell_axes[1]];
  const int32_t px = box_axes.empty() ? 1 : box->dims[box_axes[0]];
  const int32_t py = box_axes.size() < 2 ? 1 : box->dims[box_axes[1]];
  if (static_cast<int64_t>(ox) * oy > static_cast<int64_t>(px) * py) {
    return absl::FailedPreconditionError(absl::StrCat(
        name, ": the grid ", absl::StrJoin(grid->dims, "x"), " in blocks of ",
        absl::StrJoin(coarse.block, "x"), " tasks gives ", static_cast<int64_t>(ox) * oy,
        " cells, more than the ", px * py, " nodes of the ", px, "x", py, " box"));
  }
  const std::string shape = absl::StrCat(ox, "x", oy, "->", px, "x", py);

  auto slots_of = [&](Grid2dKind kind) -> absl::StatusOr<std::vector<SlotId>> {
    absl::StatusOr<std::vector<int32_t>> mesh = MapGrid2dToMesh(kind, ox, oy, px, py);
    if (!mesh.ok()) return mesh.status();
    const int64_t cells = coarse.cells.size();
    std::vector<int32_t> position_of_cell(cells);
    std::vector<int32_t> c(coarse.cells.dims.size());
    std::vector<int32_t> b(box->dims.size(), 0);
    for (int64_t i = 0; i < cells; ++i) {
      coarse.cells.Coordinates(i, c);
      const int32_t x = cell_axes.empty() ? 0 : c[cell_axes[0]];
      const int32_t y = cell_axes.size() < 2 ? 0 : c[cell_axes[1]];
      const int32_t node = (*mesh)[x + static_cast<int64_t>(ox) * y];
      if (!box_axes.empty()) b[box_axes[0]] = node % px;
      if (box_axes.size() > 1) b[box_axes[1]] = node / px;
      position_of_cell[i] = box->PositionAt(b);
    }
    return ExpandCoarseMapping(*grid, coarse, position_of_cell, cores);
  };

  MapOutput out;
  if (kind_ != Grid2dKind::kPairs) {
    absl::StatusOr<std::vector<SlotId>> slots = slots_of(kind_);
    if (!slots.ok()) return slots.status();
    out.slot_of_task = *std::move(slots);
    out.variant = shape;
    return out;
  }
  if (absl::Status s = CheckHopBytesFit(input.graph, input.allocation); !s.ok()) return s;
  HopBytes best = 0;
  Grid2dKind from = Grid2dKind::kMxovlp;
  for (Grid2dKind kind : Grid2dHeuristics()) {
    absl::StatusOr<std::vector<SlotId>> slots = slots_of(kind);
    if (!slots.ok()) return slots.status();
    const HopBytes hb = ComputeHopBytes(input.graph, input.allocation, *slots);
    if (out.slot_of_task.empty() || hb < best) {
      best = hb;
      from = kind;
      out.slot_of_task = *std::move(slots);
    }
    if (input.stop.ShouldStop()) break;
  }
  const int passes = RefineByPairSwaps(input.graph, input.allocation, out.slot_of_task, input.stop,
                                       kMaxPairsPasses);
  out.variant = absl::StrCat(shape, " from ", Grid2dKindName(from));
  out.stats = {{"passes", static_cast<double>(passes)}};
  return out;
}

}  // namespace hopmap
