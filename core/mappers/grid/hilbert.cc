#include "core/mappers/grid/hilbert.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/mappers/grid/grid.h"
#include "core/metrics/hop_bytes.h"

namespace hopmap {
namespace {

int64_t Sgn(int64_t v) { return (v > 0) - (v < 0); }
int64_t FloorDiv2(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

struct Emit {
  std::vector<int64_t>* out;
  int64_t dx, dy;  // strides of x and y (z stride = dx * dy)
  void operator()(int64_t x, int64_t y, int64_t z = 0) const {
    out->push_back(x + dx * (y + dy * z));
  }
};

// Jakub Cervený's gilbert2d (BSD-2), integer version.
void Gilbert2D(const Emit& emit, int64_t x, int64_t y, int64_t ax, int64_t ay, int64_t bx,
               int64_t by) {
  const int64_t w = std::abs(ax + ay), h = std::abs(bx + by);
  const int64_t dax = Sgn(ax), day = Sgn(ay), dbx = Sgn(bx), dby = Sgn(by);
  if (h == 1) {
    for (int64_t i = 0; i < w; ++i, x += dax, y += day) emit(x, y);
    return;
  }
  if (w == 1) {
    for (int64_t i = 0; i < h; ++i, x += dbx, y += dby) emit(x, y);
    return;
  }
  int64_t ax2 = FloorDiv2(ax), ay2 = FloorDiv2(ay), bx2 = FloorDiv2(bx), by2 = FloorDiv2(by);
  const int64_t w2 = std::abs(ax2 + ay2), h2 = std::abs(bx2 + by2);
  if (2 * w > 3 * h) {
    if ((w2 % 2) && w > 2) ax2 += dax, ay2 += day;
    Gilbert2D(emit, x, y, ax2, ay2, bx, by);
    Gilbert2D(emit, x + ax2, y + ay2, ax - ax2, ay - ay2, bx, by);
  } else {
    if ((h2 % 2) && h > 2) bx2 += dbx, by2 += dby;
    Gilbert2D(emit, x, y, bx2, by2, ax2, ay2);
    Gilbert2D(emit, x + bx2, y + by2, ax, ay, bx - bx2, by - by2);
    Gilbert2D(emit, x + (ax - dax) + (bx2 - dbx), y + (ay - day) + (by2 - dby), -bx2, -by2,
              -(ax - ax2), -(ay - ay2));
  }
}

struct V3 {
  int64_t x, y, z;
  V3 operator+(const V3& o) const { return {x + o.x, y + o.y, z + o.z}; }
  V3 operator-(const V3& o) const { return {x - o.x, y - o.y, z - o.z}; }
  V3 operator-() const { return {-x, -y, -z}; }
  [[nodiscard]] int64_t Len() const { return std::abs(x + y + z); }
  [[nodiscard]] V3 Dir() const { return {Sgn(x), Sgn(y), Sgn(z)}; }
  [[nodiscard]] V3 Half() const { return {FloorDiv2(x), FloorDiv2(y), FloorDiv2(z)}; }
};

// gilbert3d, the same source.
void Gilbert3D(const Emit& emit, V3 p, V3 a, V3 b, V3 c) {
  const int64_t w = a.Len(), h = b.Len(), d = c.Len();
  const V3 da = a.Dir(), db = b.Dir(), dc = c.Dir();
  auto line = [&](int64_t n, V3 step) {
    for (int64_t i = 0; i < n; ++i, p = p + step) emit(p.x, p.y, p.z);
  };
  if (h == 1 && d == 1) return line(w, da);
  if (w == 1 && d == 1) return line(h, db);
  if (w == 1 && h == 1) return line(d, dc);
  V3 a2 = a.Half(), b2 = b.Half(), c2 = c.Half();
  if ((a2.Len() % 2) && w > 2) a2 = a2 + da;
  if ((b2.Len() % 2) && h > 2) b2 = b2 + db;
  if ((c2.Len() % 2) && d > 2) c2 = c2 + dc;
  if (2 * w > 3 * h && 2 * w > 3 * d) {
    Gilbert3D(emit, p, a2, b, c);
    Gilbert3D(emit, p + a2, a - a2, b, c);
  } else if (3 * h > 4 * d) {
    Gilbert3D(emit, p, b2, c, a2);
    Gilbert3D(emit, p + b2, a, b - b2, c);
    Gilbert3D(emit, p + (a - da) + (b2 - db), -b2, c, -(a - a2));
  } else if (3 * d > 4 * h) {
    Gilbert3D(emit, p, c2, a2, b);
    Gilbert3D(emit, p + c2, a, b, c - c2);
    Gilbert3D(emit, p + (a - da) + (c2 - dc), -c2, -(a - a2), b);
  } else {
    Gilbert3D(emit, p, b2, c2, a2);
    Gilbert3D(emit, p + b2, c, a2, b - b2);
    Gilbert3D(emit, p + (b2 - db) + (c - dc), a, -b2, -(c - c2));
    Gilbert3D(emit, p + (a - da) + b2 + (c - dc), -c, -(a - a2), b - b2);
    Gilbert3D(emit, p + (a - da) + (b2 - db), -b2, c2, -(a - a2));
  }
}

// Allocation positions in curve order, the machine dims taken in the order `perm`
// (the curve's first, second, ... axis).
absl::StatusOr<std::vector<int32_t>> NodesInCurveOrder(const Allocation& allocation,
                                                       const std::vector<int>& perm) {
  const Machine& machine = allocation.machine();
  const std::vector<int32_t> mdims = machine.dims();
  const size_t nd = mdims.size();
  if (nd == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("hilbert needs a machine with coordinates; ", machine.Spec(), " has none"));
  }
  const int32_t m = allocation.num_nodes();
  std::vector<std::vector<int32_t>> coords(m, std::vector<int32_t>(nd));
  std::vector<int32_t> low(nd, INT32_MAX), high(nd, INT32_MIN);
  for (int32_t p = 0; p < m; ++p) {
    std::vector<int32_t> raw(nd);
    machine.Coordinates(allocation.node_at(p), raw);
    for (size_t d = 0; d < nd; ++d) coords[p][d] = raw[perm[d]];
    for (size_t d = 0; d < nd; ++d) {
      low[d] = std::min(low[d], coords[p][d]);
      high[d] = std::max(high[d], coords[p][d]);
    }
  }
  std::vector<int32_t> extent(nd);
  int64_t volume = 1;
  for (size_t d = 0; d < nd; ++d) {
    extent[d] = high[d] - low[d] + 1;
    volume *= extent[d];
  }
  std::vector<int32_t> order;
  order.reserve(m);
  if (nd <= 3 && volume <= 64 * static_cast<int64_t>(m)) {
    std::vector<int32_t> at(volume, -1);
    for (int32_t p = 0; p < m; ++p) {
      int64_t index = 0;
      for (size_t d = nd; d-- > 0;) index = index * extent[d] + (coords[p][d] - low[d]);
      at[index] = p;
    }
    for (int64_t index : GilbertOrder(extent)) {
      if (at[index] >= 0) order.push_back(at[index]);
    }
    return order;
  }
  int bits = 1;
  for (size_t d = 0; d < nd; ++d) {
    while ((int64_t{1} << bits) < extent[d]) ++bits;
  }
  std::vector<std::vector<uint64_t>> keys(m);
  for (int32_t p = 0; p < m; ++p) {
    std::vector<uint32_t> c(nd);
    for (size_t d = 0; d < nd; ++d) c[d] = static_cast<uint32_t>(coords[p][d] - low[d]);
    keys[p] = HilbertKey(std::move(c), bits);
  }
  order.resize(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return keys[a] < keys[b]; });
  return order;
}

}  // namespace

std::vector<int64_t> GilbertOrder(const std::vector<int32_t>& dims) {
  std::vector<int64_t> out;
  int64_t n = 1;
  for (int32_t d : dims) n *= d;
  out.reserve(n);
  if (n == 0) return out;
  if (dims.size() == 1) {
    for (int64_t i = 0; i < n; ++i) out.push_back(i);
  } else if (dims.size() == 2) {
    const Emit emit{&out, dims[0], dims[1]};
    if (dims[0] >= dims[1]) {
      Gilbert2D(emit, 0, 0, dims[0], 0, 0, dims[1]);
    } else {
      Gilbert2D(emit, 0, 0, 0, dims[1], dims[0], 0);
    }
  } else if (dims.size() == 3) {
    const Emit emit{&out, dims[0], dims[1]};
    const int64_t w = dims[0], h = dims[1], d = dims[2];
    if (w >= h && w >= d) {
      Gilbert3D(emit, {0, 0, 0}, {w, 0, 0}, {0, h, 0}, {0, 0, d});
    } else if (h >= w && h >= d) {
      Gilbert3D(emit, {0, 0, 0}, {0, h, 0}, {w, 0, 0}, {0, 0, d});
    } else {
      Gilbert3D(emit, {0, 0, 0}, {0, 0, d}, {w, 0, 0}, {0, h, 0});
    }
  } else {
    // Boustrophedon: digit k reflected when the index above it is odd.
    for (int64_t t = 0; t < n; ++t) {
      int64_t below = 1, index = 0, stride = 1;
      for (int32_t s : dims) {
        const int64_t q = (t / below) % s;
        const int64_t above = t / (below * s);
        index += ((above & 1) ? s - 1 - q : q) * stride;
        below *= s;
        stride *= s;
      }
      out.push_back(index);
    }
  }
  return out;
}

std::vector<uint64_t> HilbertKey(std::vector<uint32_t> x, int bits) {
  const size_t n = x.size();
  // Skilling, "Programming the Hilbert curve" (2004): AxesToTranspose.
  const uint32_t top = uint32_t{1} << (bits - 1);
  for (uint32_t q = top; q > 1; q >>= 1) {
    const uint32_t p = q - 1;
    for (size_t i = 0; i < n; ++i) {
      if (x[i] & q) {
        x[0] ^= p;
      } else {
        const uint32_t t = (x[0] ^ x[i]) & p;
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  for (size_t i = 1; i < n; ++i) x[i] ^= x[i - 1];
  uint32_t t = 0;
  for (uint32_t q = top; q > 1; q >>= 1) {
    if (x[n - 1] & q) t ^= q - 1;
  }
  for (size_t i = 0; i < n; ++i) x[i] ^= t;
  // Interleave, most significant bit first.
  std::vector<uint64_t> key((n * bits + 63) / 64, 0);
  size_t pos = 0;
  for (int b = bits - 1; b >= 0; --b) {
    for (size_t i = 0; i < n; ++i, ++pos) {
      if ((x[i] >> b) & 1) key[pos / 64] |= uint64_t{1} << (63 - pos % 64);
    }
  }
  return key;
}

absl::StatusOr<MapOutput> HilbertMapper::Map(const MapInput& input) const {
  if (absl::Status s = CheckFits(input.graph, input.allocation); !s.ok()) return s;
  absl::StatusOr<TaskGrid> grid = TaskGridOf(input, "hilbert");
  if (!grid.ok()) return grid.status();
  const size_t nd = input.allocation.machine().dims().size();
  if (nd == 0) {
    return absl::FailedPreconditionError(absl::StrCat("hilbert needs a machine with coordinates; ",
                                                      input.allocation.machine().Spec(),
                                                      " has none"));
  }
  const int32_t cores = input.allocation.cores_per_node();
  const CoarseGrid coarse = CoarsenByCores(*grid, cores);
  if (coarse.cells.size() > input.allocation.num_nodes()) {
    return absl::FailedPreconditionError(
        absl::StrCat("hilbert: the ", absl::StrJoin(grid->dims, "x"), " grid in blocks of ",
                     absl::StrJoin(coarse.block, "x"), " has ", coarse.cells.size(), " blocks for ",
                     input.allocation.num_nodes(), " nodes"));
  }
  // Variants: the grid curve led by each grid dim (first two orders), the machine
  // curve over every order of the machine dims (up to 24); the best by hop-bytes.
  const size_t k = coarse.cells.dims.size();
  std::vector<std::vector<int64_t>> cell_orders;
  std::vector<int> gperm(k);
  std::iota(gperm.begin(), gperm.end(), 0);
  for (int v = 0; v < (k > 1 ? 2 : 1); ++v) {
    if (v == 1) std::reverse(gperm.begin(), gperm.end());
    std::vector<int32_t> dims(k);
    for (size_t i = 0; i < k; ++i) dims[i] = coarse.cells.dims[gperm[i]];
    TaskGrid permuted{dims, false};
    std::vector<int32_t> pc(k), c(k);
    std::vector<int64_t> order;
    for (int64_t index : GilbertOrder(dims)) {
      permuted.Coordinates(index, pc);
      for (size_t i = 0; i < k; ++i) c[gperm[i]] = pc[i];
      order.push_back(coarse.cells.IndexOf(c));
    }
    cell_orders.push_back(std::move(order));
  }
  std::vector<int> mperm(nd);
  std::iota(mperm.begin(), mperm.end(), 0);
  MapOutput best;
  HopBytes best_hop_bytes = 0;
  int tried = 0;
  do {
    absl::StatusOr<std::vector<int32_t>> nodes = NodesInCurveOrder(input.allocation, mperm);
    if (!nodes.ok()) return nodes.status();
    for (size_t v = 0; v < cell_orders.size(); ++v) {
      const std::vector<int64_t>& cells = cell_orders[v];
      std::vector<int32_t> position_of_cell(cells.size());
      for (size_t i = 0; i < cells.size(); ++i) position_of_cell[cells[i]] = (*nodes)[i];
      std::vector<SlotId> slots = ExpandCoarseMapping(*grid, coarse, position_of_cell, cores);
      const HopBytes hb = ComputeHopBytes(input.graph, input.allocation, slots);
      if (best.slot_of_task.empty() || hb < best_hop_bytes) {
        best.slot_of_task = std::move(slots);
        best_hop_bytes = hb;
        const std::vector<std::string> names = input.allocation.machine().dim_names();
        std::string machine_order;
        for (int d : mperm)
          absl::StrAppend(&machine_order, d < static_cast<int>(names.size()) ? names[d] : "?");
        best.variant = absl::StrCat(v == 0 ? "grid" : "grid-transposed", ",", machine_order);
      }
    }
    if (++tried >= 24 || input.stop.ShouldStop()) break;
  } while (std::next_permutation(mperm.begin(), mperm.end()));
  return best;
}

}  // namespace hopmap
