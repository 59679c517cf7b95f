#include "core/mappers/grid/fold.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hopmap {
namespace {

// Boustrophedon digits of `t` over `sizes` (first fastest): consecutive t differ in
// one digit by one.
void SnakeDigits(int64_t t, const std::vector<int32_t>& sizes, std::vector<int32_t>& digits) {
  digits.resize(sizes.size());
  int64_t below = 1;
  for (size_t k = 0; k < sizes.size(); ++k) {
    const int64_t q = (t / below) % sizes[k];
    const int64_t above = t / (below * sizes[k]);
    digits[k] = static_cast<int32_t>((above & 1) ? sizes[k] - 1 - q : q);
    below *= sizes[k];
  }
}

int64_t Product(const std::vector<int32_t>& v, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= v[i];
  return p;
}

// The digits of step `t` of one grid dim's walk.
void WalkDigits(int64_t t, const std::vector<int32_t>& sizes, WalkMode mode,
                std::vector<int32_t>& digits) {
  const size_t r = sizes.size();
  if (r <= 1 || mode == WalkMode::kSnake) {
    SnakeDigits(t, sizes, digits);
    return;
  }
  if (mode == WalkMode::kStackOuter) {
    const std::vector<int32_t> inner(sizes.begin(), sizes.end() - 1);
    const int64_t inner_size = Product(sizes, 0, r - 1);
    SnakeDigits(t % inner_size, inner, digits);
    digits.push_back(static_cast<int32_t>(t / inner_size));
    return;
  }
  // kCycle: a Hamiltonian cycle of the A x B grid of (u, v), A even, B >= 2; u and
  // v each walk a group of parts as a snake. u = parts 1.. when their product is
  // even, else u = part 0 (the plan only asks for a cycle when one of them is even).
  const int64_t rest = Product(sizes, 1, r);
  const bool u_is_rest = rest % 2 == 0;
  const std::vector<int32_t> first(sizes.begin(), sizes.begin() + 1);
  const std::vector<int32_t> others(sizes.begin() + 1, sizes.end());
  const int64_t a = u_is_rest ? rest : sizes[0];
  const int64_t b = u_is_rest ? sizes[0] : rest;
  int64_t u, v;
  if (t < a * (b - 1)) {
    u = t / (b - 1);
    const int64_t off = t % (b - 1);
    v = (u % 2 == 0) ? 1 + off : b - 1 - off;
  } else {
    u = a - 1 - (t - a * (b - 1));
    v = 0;
  }
  std::vector<int32_t> du, dv;
  SnakeDigits(u, u_is_rest ? others : first, du);
  SnakeDigits(v, u_is_rest ? first : others, dv);
  digits.clear();
  if (u_is_rest) {
    digits.push_back(dv[0]);
    digits.insert(digits.end(), du.begin(), du.end());
  } else {
    digits.push_back(du[0]);
    digits.insert(digits.end(), dv.begin(), dv.end());
  }
}

bool CanCycle(const std::vector<int32_t>& sizes) {
  return sizes.size() >= 2 && (sizes[0] % 2 == 0 || Product(sizes, 1, sizes.size()) % 2 == 0);
}

struct Enumeration {
  const TaskGrid* cells;
  const std::vector<int32_t>* box;
  // Stack: the box dim that holds the slabs and the grid dim cut into them.
  int stack_box_dim = -1;
  int stack_grid_dim = -1;
  size_t limit = 20000;
  std::vector<FoldPlan> plans;
};

void AddWalkVariants(Enumeration& e, const FoldPlan& base) {
  const size_t k = e.cells->dims.size();
  // Per grid dim, its parts in box order; walk orders are their permutations.
  std::vector<std::vector<std::pair<int, int>>> parts(k);
  for (size_t j = 0; j < base.box_parts.size(); ++j) {
    for (size_t p = 0; p < base.box_parts[j].size(); ++p) {
      parts[base.box_parts[j][p].grid_dim].push_back({static_cast<int>(j), static_cast<int>(p)});
    }
  }
  for (auto& list : parts) std::sort(list.begin(), list.end());
  // Odometer over the permutations of every grid dim (and cycle/snake when periodic).
  std::vector<std::vector<std::vector<std::pair<int, int>>>> orders(k);
  for (size_t i = 0; i < k; ++i) {
    std::vector<std::pair<int, int>> list = parts[i];
    do {
      if (e.stack_grid_dim == static_cast<int>(i) &&
          (list.empty() || list.back().first != e.stack_box_dim)) {
        continue;  // the slab part walks last
      }
      orders[i].push_back(list);
    } while (std::next_permutation(list.begin(), list.end()));
    if (orders[i].empty()) return;
  }
  std::vector<size_t> pick(k, 0);
  while (e.plans.size() < e.limit) {
    FoldPlan plan = base;
    plan.walk.resize(k);
    plan.mode.assign(k, WalkMode::kSnake);
    for (size_t i = 0; i < k; ++i) plan.walk[i] = orders[i][pick[i]];
    // Periodic grids: close the ring where a cycle exists (and keep the snake too
    // for the dims where it may do better, e.g. a part on a wrapping box dim).
    std::vector<int> cyclable;
    for (size_t i = 0; i < k; ++i) {
      if (e.stack_grid_dim == static_cast<int>(i)) {
        plan.mode[i] = WalkMode::kStackOuter;
        continue;
      }
      std::vector<int32_t> sizes;
      for (auto [j, p] : plan.walk[i]) sizes.push_back(plan.box_parts[j][p].size);
      if (e.cells->wrap && CanCycle(sizes)) cyclable.push_back(static_cast<int>(i));
    }
    for (uint32_t mask = 0; mask < (1u << cyclable.size()) && e.plans.size() < e.limit; ++mask) {
      FoldPlan variant = plan;
      for (size_t c = 0; c < cyclable.size(); ++c) {
        if (mask & (1u << c)) variant.mode[cyclable[c]] = WalkMode::kCycle;
      }
      e.plans.push_back(std::move(variant));
    }
    size_t i = 0;
    for (; i < k; ++i) {
      if (++pick[i] < orders[i].size()) break;
      pick[i] = 0;
    }
    if (i == k) break;
  }
}

// Assigns parts to box dims j, j+1, ...; remaining[i] is what grid dim i still needs.
void EnumerateParts(Enumeration& e, size_t j, std::vector<int64_t>& remaining, FoldPlan& plan) {
  if (e.plans.size() >= e.limit) return;
  const std::vector<int32_t>& box = *e.box;
  const size_t k = remaining.size();
  if (j == box.size()) {
    for (int64_t r : remaining) {
      if (r != 1) return;
    }
    AddWalkVariants(e, plan);
    return;
  }
  const int32_t b = box[j];
  auto recurse = [&](std::vector<FoldPlan::Part> parts) {
    for (const auto& part : parts) remaining[part.grid_dim] /= part.size;
    plan.box_parts[j] = std::move(parts);
    EnumerateParts(e, j + 1, remaining, plan);
    for (const auto& part : plan.box_parts[j]) remaining[part.grid_dim] *= part.size;
    plan.box_parts[j].clear();
  };
  if (b == 1) {
    recurse({});
    return;
  }
  const int jj = static_cast<int>(j);
  for (size_t i = 0; i < k; ++i) {
    if (e.stack_box_dim == jj && e.stack_grid_dim != static_cast<int>(i)) continue;
    if (remaining[i] % b == 0) recurse({{jj, b, static_cast<int>(i)}});
  }
  if (e.stack_box_dim == jj) return;  // the slab dim is one whole part
  for (int32_t s = 2; s < b; ++s) {
    if (b % s != 0) continue;
    for (size_t i1 = 0; i1 < k; ++i1) {
      for (size_t i2 = 0; i2 < k; ++i2) {
        if (i1 == i2 || remaining[i1] % s != 0 || remaining[i2] % (b / s) != 0) continue;
        recurse({{jj, s, static_cast<int>(i1)}, {jj, b / s, static_cast<int>(i2)}});
      }
    }
  }
}

// Hops of the grid's axis edges (each once) when cell c sits on position_of_cell[c].
HopBytes AxisHops(const TaskGrid& cells, const Allocation& allocation,
                  const std::vector<int32_t>& position_of_cell) {
  const size_t k = cells.dims.size();
  std::vector<int32_t> c(k);
  HopBytes total = 0;
  for (int64_t cell = 0; cell < cells.size(); ++cell) {
    cells.Coordinates(cell, c);
    for (size_t i = 0; i < k; ++i) {
      const int32_t d = cells.dims[i];
      if (d == 1) continue;
      const int32_t keep = c[i];
      if (c[i] + 1 < d) {
        ++c[i];
      } else if (cells.wrap && d > 2) {
        c[i] = 0;
      } else {
        continue;
      }
      total += allocation.HopsBetweenPositions(position_of_cell[cell],
                                               position_of_cell[cells.IndexOf(c)]);
      c[i] = keep;
    }
  }
  return total;
}

absl::StatusOr<MapOutput> RunPlans(const MapInput& input, absl::string_view name, bool stack) {
  if (absl::Status s = CheckFits(input.graph, input.allocation); !s.ok()) return s;
  absl::StatusOr<TaskGrid> grid = TaskGridOf(input, name);
  if (!grid.ok()) return grid.status();
  absl::StatusOr<MachineBox> box = BoxOf(input.allocation, name);
  if (!box.ok()) return box.status();
  const int32_t cores = input.allocation.cores_per_node();
  const CoarseGrid coarse = CoarsenByCores(*grid, cores);
  if (coarse.cells.size() != box->size()) {
    return absl::FailedPreconditionError(absl::StrCat(
        name, " needs one grid block per allocated node: the ", absl::StrJoin(grid->dims, "x"),
        " grid in blocks of ", absl::StrJoin(coarse.block, "x"), " has ", coarse.cells.size(),
        " blocks for a ", absl::StrJoin(box->dims, "x"), " box of ", box->size(), " nodes"));
  }
  Enumeration e;
  e.cells = &coarse.cells;
  e.box = &box->dims;
  if (stack) {
    int nontrivial = 0;
    for (int32_t d : box->dims) nontrivial += d > 1;
    if (grid->dims.size() != 2 || nontrivial < 3) {
      return absl::FailedPreconditionError(absl::StrCat(
          name, " maps 2D grids onto boxes of at least 3 dims; got a ",
          absl::StrJoin(grid->dims, "x"), " grid and a ", absl::StrJoin(box->dims, "x"), " box"));
    }
    for (size_t j = 0; j < box->dims.size(); ++j) {
      if (box->dims[j] > 1 && (e.stack_box_dim < 0 || box->dims[j] < box->dims[e.stack_box_dim])) {
        e.stack_box_dim = static_cast<int>(j);
      }
    }
    const auto& cd = coarse.cells.dims;
    e.stack_grid_dim = cd[1] > cd[0] ? 1 : 0;
    if (cd[e.stack_grid_dim] % box->dims[e.stack_box_dim] != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat(name, ": the longer grid dim (", cd[e.stack_grid_dim],
                       ") does not split into ", box->dims[e.stack_box_dim], " slabs"));
    }
  }
  FoldPlan plan;
  plan.box_parts.resize(box->dims.size());
  std::vector<int64_t> remaining(coarse.cells.dims.begin(), coarse.cells.dims.end());
  EnumerateParts(e, 0, remaining, plan);
  if (e.plans.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(name, " found no way to split the ", absl::StrJoin(coarse.cells.dims, "x"),
                     " grid of nodes over the ", absl::StrJoin(box->dims, "x"), " box"));
  }
  // Fewer shared box dims first: they are the likelier winners when the budget
  // (about 5e7 edge evaluations) cuts the list short.
  std::stable_sort(e.plans.begin(), e.plans.end(), [](const FoldPlan& a, const FoldPlan& b) {
    auto shared = [](const FoldPlan& p) {
      int n = 0;
      for (const auto& parts : p.box_parts) n += parts.size() > 1;
      return n;
    };
    return shared(a) < shared(b);
  });
  const int64_t work = std::max<int64_t>(1, coarse.cells.size() * coarse.cells.dims.size());
  const size_t budget = std::max<size_t>(16, static_cast<size_t>(50'000'000 / work));
  const int64_t ideal = [&] {
    int64_t edges = 0;
    for (int32_t d : coarse.cells.dims) {
      if (d == 1) continue;
      edges += coarse.cells.size() / d * ((coarse.cells.wrap && d > 2) ? d : d - 1);
    }
    return edges * input.allocation.machine().min_hops();
  }();
  std::vector<std::string> names = input.allocation.machine().dim_names();
  names.resize(box->dims.size(), "?");
  std::vector<int32_t> best_positions, positions(coarse.cells.size());
  HopBytes best_hops = 0;
  std::string best_variant;
  for (size_t c = 0; c < e.plans.size() && c < budget; ++c) {
    const std::vector<int64_t> index = FoldBoxIndexOfCells(coarse.cells, box->dims, e.plans[c]);
    for (int64_t cell = 0; cell < coarse.cells.size(); ++cell) {
      positions[cell] = box->position_at[index[cell]];
    }
    const HopBytes hops = AxisHops(coarse.cells, input.allocation, positions);
    if (best_positions.empty() || hops < best_hops) {
      best_positions = positions;
      best_hops = hops;
      best_variant = e.plans[c].Describe(names);
    }
    if (best_hops <= ideal || input.stop.ShouldStop()) break;
  }
  MapOutput out;
  out.slot_of_task = ExpandCoarseMapping(*grid, coarse, best_positions, cores);
  out.variant = best_variant;
  return out;
}

}  // namespace

std::string FoldPlan::Describe(const std::vector<std::string>& box_names) const {
  std::vector<std::string> dims;
  for (size_t i = 0; i < walk.size(); ++i) {
    std::vector<std::string> parts;
    for (auto [j, p] : walk[i]) {
      parts.push_back(absl::StrCat(box_names[j], box_parts[j][p].size));
    }
    std::string s = absl::StrCat("g", i, "=", parts.empty() ? "1" : absl::StrJoin(parts, "."));
    if (mode[i] == WalkMode::kCycle) absl::StrAppend(&s, "~cycle");
    if (mode[i] == WalkMode::kStackOuter) absl::StrAppend(&s, "~stack");
    dims.push_back(std::move(s));
  }
  return absl::StrJoin(dims, ",");
}

std::vector<int64_t> FoldBoxIndexOfCells(const TaskGrid& cells, const std::vector<int32_t>& box,
                                         const FoldPlan& plan) {
  const size_t k = cells.dims.size();
  const size_t nd = box.size();
  std::vector<std::vector<int32_t>> sizes(k);
  for (size_t i = 0; i < k; ++i) {
    for (auto [j, p] : plan.walk[i]) sizes[i].push_back(plan.box_parts[j][p].size);
  }
  // Digits of every grid coordinate, per grid dim, precomputed (sum of dims entries).
  std::vector<std::vector<std::vector<int32_t>>> digits(k);
  for (size_t i = 0; i < k; ++i) {
    digits[i].resize(cells.dims[i]);
    for (int32_t t = 0; t < cells.dims[i]; ++t) {
      WalkDigits(t, sizes[i], plan.mode[i], digits[i][t]);
    }
  }
  std::vector<int64_t> index(cells.size());
  std::vector<int32_t> c(k), x(nd), part_digit;
  std::vector<std::vector<int32_t>> box_digit(nd);
  for (size_t j = 0; j < nd; ++j) box_digit[j].resize(plan.box_parts[j].size());
  for (int64_t cell = 0; cell < cells.size(); ++cell) {
    cells.Coordinates(cell, c);
    for (size_t i = 0; i < k; ++i) {
      const std::vector<int32_t>& d = digits[i][c[i]];
      for (size_t w = 0; w < plan.walk[i].size(); ++w) {
        box_digit[plan.walk[i][w].first][plan.walk[i][w].second] = d[w];
      }
    }
    for (size_t j = 0; j < nd; ++j) {
      const auto& parts = plan.box_parts[j];
      if (parts.empty()) {
        x[j] = 0;
      } else if (parts.size() == 1) {
        x[j] = box_digit[j][0];
      } else {
        const int32_t s0 = parts[0].size;
        const int32_t d0 = box_digit[j][0], d1 = box_digit[j][1];
        x[j] = ((d1 & 1) ? s0 - 1 - d0 : d0) + s0 * d1;
      }
    }
    int64_t id = 0;
    for (size_t j = nd; j-- > 0;) id = id * box[j] + x[j];
    index[cell] = id;
  }
  return index;
}

absl::StatusOr<MapOutput> FoldMapper::Map(const MapInput& input) const {
  return RunPlans(input, "fold", /*stack=*/false);
}

absl::StatusOr<MapOutput> StackMapper::Map(const MapInput& input) const {
  return RunPlans(input, "stack", /*stack=*/true);
}

}  // namespace hopmap
