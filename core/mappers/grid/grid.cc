#include "core/mappers/grid/grid.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hopmap {

int64_t TaskGrid::size() const {
  int64_t n = 1;
  for (int32_t d : dims) n *= d;
  return n;
}

void TaskGrid::Coordinates(int64_t task, std::span<int32_t> out) const {
  for (size_t i = 0; i < dims.size(); ++i) {
    out[i] = static_cast<int32_t>(task % dims[i]);
    task /= dims[i];
  }
}

int64_t TaskGrid::IndexOf(std::span<const int32_t> coords) const {
  int64_t index = 0;
  for (size_t i = dims.size(); i-- > 0;) index = index * dims[i] + coords[i];
  return index;
}

absl::StatusOr<TaskGrid> TaskGridOf(const MapInput& input, absl::string_view mapper) {
  PatternReport analysed;
  const PatternReport* pattern = input.pattern;
  if (pattern == nullptr) {
    absl::StatusOr<PatternReport> report = AnalyzePattern(input.graph);
    if (!report.ok()) return report.status();
    analysed = *std::move(report);
    pattern = &analysed;
  }
  if (!pattern->is_grid()) {
    return absl::FailedPreconditionError(absl::StrCat(
        mapper, " needs a near-neighbour grid pattern; the analyzer found '", pattern->kind, "'"));
  }
  TaskGrid grid{pattern->dims, pattern->wrap};
  if (grid.size() != input.graph.num_tasks()) {
    return absl::FailedPreconditionError(
        absl::StrCat(mapper, ": the grid ", absl::StrJoin(grid.dims, "x"), " has ", grid.size(),
                     " tasks but the graph has ", input.graph.num_tasks()));
  }
  return grid;
}

int64_t MachineBox::size() const {
  int64_t n = 1;
  for (int32_t d : dims) n *= d;
  return n;
}

int64_t MachineBox::IndexOf(std::span<const int32_t> coords) const {
  int64_t index = 0;
  for (size_t i = dims.size(); i-- > 0;) index = index * dims[i] + coords[i];
  return index;
}

absl::StatusOr<MachineBox> BoxOf(const Allocation& allocation, absl::string_view mapper) {
  const Machine& machine = allocation.machine();
  const std::vector<int32_t> machine_dims = machine.dims();
  const size_t nd = machine_dims.size();
  if (nd == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(mapper, " needs a machine with coordinates; ", machine.Spec(), " has none"));
  }
  const int32_t m = allocation.num_nodes();
  std::vector<std::vector<int32_t>> coords(m, std::vector<int32_t>(nd));
  std::vector<int32_t> low(nd, INT32_MAX), high(nd, INT32_MIN);
  for (int32_t p = 0; p < m; ++p) {
    machine.Coordinates(allocation.node_at(p), coords[p]);
    for (size_t d = 0; d < nd; ++d) {
      low[d] = std::min(low[d], coords[p][d]);
      high[d] = std::max(high[d], coords[p][d]);
    }
  }
  // Boxes that wrap round a torus dim (e.g. x in {6,7,0,1}) are not recognised:
  // such allocations go to the general mappers.
  MachineBox box;
  box.dims.resize(nd);
  box.wrap.resize(nd);
  // A box dimension is a ring only where the machine's own dimension wraps and the
  // box spans it whole (a torus may wrap some dimensions and not others).
  const GridGeometry* grid = machine.grid_geometry();
  for (size_t d = 0; d < nd; ++d) {
    box.dims[d] = high[d] - low[d] + 1;
    box.wrap[d] =
        grid != nullptr && grid->wrap[d] && box.dims[d] == machine_dims[d] && machine_dims[d] > 2;
  }
  if (box.size() != m) {
    return absl::FailedPreconditionError(
        absl::StrCat(mapper, " needs the allocation to be a complete box of ", machine.Spec(),
                     "; its ", m, " nodes span a ", absl::StrJoin(box.dims, "x"), " box"));
  }
  box.position_at.assign(m, -1);
  std::vector<int32_t> local(nd);
  for (int32_t p = 0; p < m; ++p) {
    for (size_t d = 0; d < nd; ++d) local[d] = coords[p][d] - low[d];
    box.position_at[box.IndexOf(local)] = p;
  }
  return box;
}

namespace {

// Distributes the prime factors of `count` over the dims, largest factor to the dim
// with the most room left relative to its block, keeping blocks near cubic.
bool BlockDims(const std::vector<int32_t>& dims, int32_t count, std::vector<int32_t>& block) {
  block.assign(dims.size(), 1);
  std::vector<int32_t> factors;
  for (int32_t f = 2, rest = count; rest > 1;) {
    if (rest % f == 0) {
      factors.push_back(f);
      rest /= f;
    } else {
      ++f;
    }
  }
  std::sort(factors.rbegin(), factors.rend());
  for (int32_t f : factors) {
    int best = -1;
    for (size_t d = 0; d < dims.size(); ++d) {
      if ((dims[d] / block[d]) % f != 0) continue;
      if (best < 0 || block[d] < block[best] || (block[d] == block[best] && dims[d] > dims[best])) {
        best = static_cast<int>(d);
      }
    }
    if (best < 0) return false;
    block[best] *= f;
  }
  return true;
}

}  // namespace

CoarseGrid CoarsenByCores(const TaskGrid& grid, int32_t cores) {
  CoarseGrid coarse;
  for (int32_t count = std::max(cores, 1); count >= 1; --count) {
    if (BlockDims(grid.dims, count, coarse.block)) break;
  }
  coarse.cells.wrap = grid.wrap;
  coarse.cells.dims.resize(grid.dims.size());
  for (size_t d = 0; d < grid.dims.size(); ++d) {
    coarse.cells.dims[d] = grid.dims[d] / coarse.block[d];
  }
  return coarse;
}

std::vector<SlotId> ExpandCoarseMapping(const TaskGrid& grid, const CoarseGrid& coarse,
                                        std::span<const int32_t> position_of_cell,
                                        int32_t cores_per_node) {
  const size_t nd = grid.dims.size();
  std::vector<SlotId> slot_of_task(grid.size());
  std::vector<int32_t> next_core(position_of_cell.size(), 0);
  std::vector<int32_t> c(nd), cell(nd);
  for (int64_t t = 0; t < grid.size(); ++t) {
    grid.Coordinates(t, c);
    for (size_t d = 0; d < nd; ++d) cell[d] = c[d] / coarse.block[d];
    const int64_t index = coarse.cells.IndexOf(cell);
    slot_of_task[t] = position_of_cell[index] * cores_per_node + next_core[index]++;
  }
  return slot_of_task;
}

}  // namespace hopmap
