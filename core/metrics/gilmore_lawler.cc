#include "core/metrics/gilmore_lawler.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"

namespace hopmap {
namespace {

constexpr int64_t kInfinity = int64_t{1} << 62;
// Costs the assignment sees stay below this, so potentials and sums never overflow.
constexpr int64_t kMaxTotal = int64_t{1} << 60;

// A rectangular assignment only ever needs, for each row, its `rows` cheapest
// columns: a row placed elsewhere has one of those free (the other rows hold at most
// rows - 1 of them) and moving there costs no more. This is how many columns the
// union of those can have.
int64_t ReducedColumns(int64_t rows, int64_t cols) { return std::min(cols, rows * rows); }

}  // namespace

int64_t LinearAssignmentSolver::Solve(int32_t rows, int32_t cols, std::span<const int64_t> cost) {
  column_of_row_.assign(rows, -1);
  if (rows == 0) return 0;
  // 1-based rows and columns; column 0 is the virtual start of each augmenting path.
  u_.assign(rows + 1, 0);
  v_.assign(cols + 1, 0);
  row_of_col_.assign(cols + 1, 0);
  way_.assign(cols + 1, 0);
  for (int32_t i = 1; i <= rows; ++i) {
    row_of_col_[0] = i;
    int32_t j0 = 0;
    min_to_.assign(cols + 1, kInfinity);
    used_.assign(cols + 1, 0);
    do {
      used_[j0] = 1;
      const int32_t i0 = row_of_col_[j0];
      const int64_t* row = cost.data() + static_cast<size_t>(i0 - 1) * cols;
      int64_t delta = kInfinity;
      int32_t j1 = 0;
      for (int32_t j = 1; j <= cols; ++j) {
        if (used_[j]) continue;
        const int64_t reduced = row[j - 1] - u_[i0] - v_[j];
        if (reduced < min_to_[j]) {
          min_to_[j] = reduced;
          way_[j] = j0;
        }
        if (min_to_[j] < delta) {
          delta = min_to_[j];
          j1 = j;
        }
      }
      for (int32_t j = 0; j <= cols; ++j) {
        if (used_[j]) {
          u_[row_of_col_[j]] += delta;
          v_[j] -= delta;
        } else {
          min_to_[j] -= delta;
        }
      }
      j0 = j1;
    } while (row_of_col_[j0] != 0);
    do {
      const int32_t j1 = way_[j0];
      row_of_col_[j0] = row_of_col_[j1];
      j0 = j1;
    } while (j0 != 0);
  }
  int64_t total = 0;
  for (int32_t j = 1; j <= cols; ++j) {
    if (row_of_col_[j] != 0) {
      column_of_row_[row_of_col_[j] - 1] = j - 1;
      total += cost[static_cast<size_t>(row_of_col_[j] - 1) * cols + (j - 1)];
    }
  }
  return total;
}

int64_t GilmoreLawlerWork(const TaskGraph& graph, const Allocation& allocation) {
  const int64_t n = graph.num_tasks();
  const int64_t positions = allocation.num_nodes();
  const int64_t slots = allocation.num_slots();
  const int64_t edges = graph.num_edges();
  // Sorted hop rows, scalar products per (task, position), choosing the columns,
  // and the assignment on the reduced columns.
  auto sat_mul = [](int64_t a, int64_t b) {
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<int64_t>::max() / 4 : r;
  };
  const int64_t work = sat_mul(positions, positions) + sat_mul(2 * edges, positions) +
                       sat_mul(n, slots) + sat_mul(sat_mul(n, n), ReducedColumns(n, slots));
  return work;
}

std::optional<HopBytes> GilmoreLawlerLowerBound(const TaskGraph& graph,
                                                const Allocation& allocation, int64_t max_work) {
  const TaskId n = graph.num_tasks();
  if (n == 0) return HopBytes{0};
  if (GilmoreLawlerWork(graph, allocation) > max_work) return std::nullopt;
  const int64_t diameter = std::max(allocation.machine().max_hops(), 1);
  // GL <= sum of every task's weighted degree x diameter = 2 x total bytes x diameter.
  if (graph.total_bytes() > kMaxTotal / 2 / diameter) return std::nullopt;

  const int32_t positions = allocation.num_nodes();
  const int32_t cores = allocation.cores_per_node();
  const int64_t slots = allocation.num_slots();
  const int64_t max_degree = graph.max_degree();

  // nearest[a][r] = the r-th smallest distance from a slot on position a to another
  // slot (cores - 1 zeros for the node's other cores, then every other position's
  // hops once per core), for r < max degree: no task needs more.
  std::vector<std::vector<int32_t>> nearest(positions);
  tbb::parallel_for(
      tbb::blocked_range<int32_t>(0, positions, 16), [&](const tbb::blocked_range<int32_t>& r) {
        std::vector<int32_t> hops;
        for (int32_t a = r.begin(); a < r.end(); ++a) {
          hops.clear();
          for (int32_t b = 0; b < positions; ++b) {
            if (b != a) hops.push_back(allocation.HopsBetweenPositions(a, b));
          }
          // Only the nearest ceil(max_degree / cores) + 1 are read: a partial sort
          // keeps a row at O(positions), as GilmoreLawlerWork counts it
          // (docs/tuning.md).
          const size_t need = std::min<size_t>(
              hops.size(), static_cast<size_t>((max_degree + cores - 1) / cores) + 1);
          std::partial_sort(hops.begin(), hops.begin() + static_cast<std::ptrdiff_t>(need),
                            hops.end());
          std::vector<int32_t>& row = nearest[a];
          row.assign(std::min<int64_t>(cores - 1, max_degree), 0);
          for (size_t k = 0; k < need && static_cast<int64_t>(row.size()) < max_degree; ++k) {
            for (int32_t c = 0; c < cores && static_cast<int64_t>(row.size()) < max_degree; ++c) {
              row.push_back(hops[k]);
            }
          }
        }
      });

  // l[i][a]: task i on any slot of position a (all cores of a node look alike).
  std::vector<int64_t> l(static_cast<size_t>(n) * positions);
  tbb::parallel_for(tbb::blocked_range<TaskId>(0, n, 8), [&](const tbb::blocked_range<TaskId>& r) {
    std::vector<Bytes> weights;
    for (TaskId i = r.begin(); i < r.end(); ++i) {
      weights.clear();
      graph.ForEachNeighbor(i, [&](TaskId, Bytes w) { weights.push_back(w); });
      std::sort(weights.begin(), weights.end(), std::greater<>());
      for (int32_t a = 0; a < positions; ++a) {
        const std::vector<int32_t>& row = nearest[a];
        int64_t sum = 0;
        for (size_t k = 0; k < weights.size(); ++k) sum += weights[k] * row[k];
        l[static_cast<size_t>(i) * positions + a] = sum;
      }
    }
  });

  // Columns: every slot, or with many more slots than tasks, the union of each task's
  // n cheapest slots (taking a position's cores in order), which keeps the optimum.
  std::vector<SlotId> columns;
  if (ReducedColumns(n, slots) < slots) {
    std::vector<char> chosen(slots, 0);
    std::vector<int32_t> order(positions);
    for (TaskId i = 0; i < n; ++i) {
      const int64_t* row = l.data() + static_cast<size_t>(i) * positions;
      for (int32_t a = 0; a < positions; ++a) order[a] = a;
      // Enough positions to hold n slots, cheapest first (ties by position).
      const int32_t need =
          static_cast<int32_t>(std::min<int64_t>(positions, (n + cores - 1) / cores));
      std::partial_sort(
          order.begin(), order.begin() + need, order.end(),
          [&](int32_t x, int32_t y) { return row[x] != row[y] ? row[x] < row[y] : x < y; });
      int64_t taken = 0;
      for (int32_t k = 0; k < need && taken < n; ++k) {
        for (int32_t c = 0; c < cores && taken < n; ++c, ++taken) {
          chosen[static_cast<int64_t>(order[k]) * cores + c] = 1;
        }
      }
    }
    for (int64_t s = 0; s < slots; ++s) {
      if (chosen[s]) columns.push_back(static_cast<SlotId>(s));
    }
  } else {
    columns.resize(slots);
    for (int64_t s = 0; s < slots; ++s) columns[s] = static_cast<SlotId>(s);
  }
  const int32_t cols = static_cast<int32_t>(columns.size());
  std::vector<int64_t> cost(static_cast<size_t>(n) * cols);
  for (TaskId i = 0; i < n; ++i) {
    for (int32_t c = 0; c < cols; ++c) {
      cost[static_cast<size_t>(i) * cols + c] =
          l[static_cast<size_t>(i) * positions + columns[c] / cores];
    }
  }
  LinearAssignmentSolver solver;
  const int64_t twice = solver.Solve(n, cols, cost);
  return (twice + 1) / 2;
}

}  // namespace hopmap
