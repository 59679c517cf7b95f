#include "core/mappers/grid/cart_greedy.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/mappers/grid/grid.h"
#include "core/metrics/hop_bytes.h"

namespace hopmap {
namespace {

// Next unused index at or after / at or before i (path-compressed skip lists).
class FreeList {
 public:
  explicit FreeList(int64_t n) : right_(n + 1), left_(n + 1) {
    std::iota(right_.begin(), right_.end(), 0);
    std::iota(left_.begin(), left_.end(), 0);  // left_[i + 1] names index i
  }
  void Use(int64_t i) {
    right_[i] = i + 1;
    left_[i + 1] = i;
  }
  // n when none.
  int64_t NextFree(int64_t i) { return Find(right_, i); }
  // -1 when none.
  int64_t PrevFree(int64_t i) { return Find(left_, i + 1) - 1; }

 private:
  static int64_t Find(std::vector<int64_t>& link, int64_t i) {
    int64_t root = i;
    while (link[root] != root) root = link[root];
    while (link[i] != root) {
      const int64_t next = link[i];
      link[i] = root;
      i = next;
    }
    return root;
  }
  std::vector<int64_t> right_, left_;
};

class Greedy {
 public:
  Greedy(const MachineBox& box, const Allocation& allocation)
      : box_(box), allocation_(allocation), used_(box.size(), false), free_(box.size()) {
    const size_t nd = box.dims.size();
    for (size_t a = 0; a < nd; ++a) {
      for (int sa : {1, -1}) {
        std::vector<int32_t> o(nd, 0);
        o[a] = sa;
        ring1_.push_back(o);
        for (size_t b = a; b < nd; ++b) {
          for (int sb : {1, -1}) {
            if (b == a && sb != sa) continue;
            std::vector<int32_t> o2 = o;
            o2[b] += sb;
            ring2_.push_back(o2);
          }
        }
      }
    }
  }

  // Box index of the cells in `order` (grid dims, fastest first) walked recursively.
  void Walk(const std::vector<int32_t>& dims, int level, int64_t start,
            std::vector<int64_t>& sequence) {
    if (level == 0) {
      int64_t current = start;
      Take(current, sequence);
      for (int32_t i = 1; i < dims[0]; ++i) {
        current = Nearest(current);
        Take(current, sequence);
      }
      return;
    }
    int64_t current = start;
    Walk(dims, level - 1, current, sequence);
    for (int32_t i = 1; i < dims[level]; ++i) {
      const int64_t next = Nearest(current);
      Walk(dims, level - 1, next, sequence);
      current = next;
    }
  }

 private:
  void Take(int64_t index, std::vector<int64_t>& sequence) {
    used_[index] = true;
    free_.Use(index);
    sequence.push_back(index);
  }
  int32_t Hops(int64_t a, int64_t b) const {
    return allocation_.HopsBetweenPositions(box_.position_at[a], box_.position_at[b]);
  }
  // The unused box node at the least (hops, |rank difference|) from `from`.
  int64_t Nearest(int64_t from) {
    const size_t nd = box_.dims.size();
    std::vector<int32_t> c(nd), o(nd);
    int64_t rest = from;
    for (size_t d = 0; d < nd; ++d) {
      c[d] = static_cast<int32_t>(rest % box_.dims[d]);
      rest /= box_.dims[d];
    }
    int64_t best = -1;
    int32_t best_hops = 0;
    auto consider = [&](int64_t index) {
      if (index < 0 || index >= box_.size() || used_[index]) return;
      const int32_t h = Hops(from, index);
      if (best < 0 || h < best_hops ||
          (h == best_hops && std::llabs(index - from) < std::llabs(best - from))) {
        best = index;
        best_hops = h;
      }
    };
    for (const auto* ring : {&ring1_, &ring2_}) {
      for (const auto& offset : *ring) {
        bool inside = true;
        for (size_t d = 0; d < nd && inside; ++d) {
          int32_t v = c[d] + offset[d];
          if (v < 0 || v >= box_.dims[d]) {
            if (!box_.wrap[d]) inside = false;
            v = (v + box_.dims[d]) % box_.dims[d];
          }
          o[d] = v;
        }
        if (inside) consider(box_.IndexOf(o));
      }
      if (best >= 0) return best;
    }
    consider(free_.NextFree(from));
    consider(free_.PrevFree(from));
    return best;
  }

  const MachineBox& box_;
  const Allocation& allocation_;
  std::vector<bool> used_;
  FreeList free_;
  std::vector<std::vector<int32_t>> ring1_, ring2_;
};

}  // namespace

absl::StatusOr<MapOutput> CartGreedyMapper::Map(const MapInput& input) const {
  if (absl::Status s = CheckFits(input.graph, input.allocation); !s.ok()) return s;
  absl::StatusOr<TaskGrid> grid = TaskGridOf(input, "cart-greedy");
  if (!grid.ok()) return grid.status();
  absl::StatusOr<MachineBox> box = BoxOf(input.allocation, "cart-greedy");
  if (!box.ok()) return box.status();
  const int32_t cores = input.allocation.cores_per_node();
  const CoarseGrid coarse = CoarsenByCores(*grid, cores);
  if (coarse.cells.size() != box->size()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cart-greedy needs one grid block per allocated node: the ", absl::StrJoin(grid->dims, "x"),
        " grid in blocks of ", absl::StrJoin(coarse.block, "x"), " has ", coarse.cells.size(),
        " blocks for a box of ", box->size(), " nodes"));
  }
  const size_t k = coarse.cells.dims.size();
  std::vector<int> perm(k);
  std::iota(perm.begin(), perm.end(), 0);
  const int64_t start = box->size() % 2 == 0 ? 0 : box->size() - 1;
  MapOutput best;
  HopBytes best_hop_bytes = 0;
  std::vector<int32_t> c(k), pc(k);
  do {
    std::vector<int32_t> dims(k);
    for (size_t i = 0; i < k; ++i) dims[i] = coarse.cells.dims[perm[i]];
    Greedy greedy(*box, input.allocation);
    std::vector<int64_t> sequence;
    sequence.reserve(box->size());
    greedy.Walk(dims, static_cast<int>(k) - 1, start, sequence);
    // sequence[t] is the box node of the t-th cell in the permuted grid order.
    TaskGrid permuted{dims, coarse.cells.wrap};
    std::vector<int32_t> position_of_cell(coarse.cells.size());
    for (int64_t t = 0; t < permuted.size(); ++t) {
      permuted.Coordinates(t, pc);
      for (size_t i = 0; i < k; ++i) c[perm[i]] = pc[i];
      position_of_cell[coarse.cells.IndexOf(c)] = box->position_at[sequence[t]];
    }
    std::vector<SlotId> slots = ExpandCoarseMapping(*grid, coarse, position_of_cell, cores);
    const HopBytes hb = ComputeHopBytes(input.graph, input.allocation, slots);
    if (best.slot_of_task.empty() || hb < best_hop_bytes) {
      best.slot_of_task = std::move(slots);
      best_hop_bytes = hb;
      std::vector<std::string> names;
      for (int i : perm) names.push_back(absl::StrCat("g", i));
      best.variant = absl::StrJoin(names, ",");
    }
    if (input.stop.ShouldStop()) break;
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

}  // namespace hopmap
