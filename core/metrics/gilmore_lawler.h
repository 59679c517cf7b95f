// The Gilmore-Lawler lower bound (seed 001) for mapping a task graph onto an
// allocation, and the rectangular linear assignment solver it needs.
#ifndef HOPMAP_CORE_METRICS_GILMORE_LAWLER_H_
#define HOPMAP_CORE_METRICS_GILMORE_LAWLER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/graph/task_graph.h"
#include "core/topology/allocation.h"
#include "core/types.h"

namespace hopmap {

// Minimum-cost assignment of every row to a distinct column (rows <= cols) of a
// row-major rows x cols matrix: the Hungarian method with potentials (shortest
// augmenting paths, as in Jonker-Volgenant), O(rows^2 * cols). Buffers are kept
// between calls, so one solver per thread serves many small problems without
// allocating. Costs must be >= 0 and their sum must fit in 62 bits.
class LinearAssignmentSolver {
 public:
  // Returns the minimum total cost; column_of_row() then holds the assignment.
  int64_t Solve(int32_t rows, int32_t cols, std::span<const int64_t> cost);
  [[nodiscard]] const std::vector<int32_t>& column_of_row() const { return column_of_row_; }

 private:
  std::vector<int64_t> u_, v_, min_to_;
  std::vector<int32_t> row_of_col_, way_, column_of_row_;
  std::vector<char> used_;
};

// Default budget: the bound runs where about this many elementary steps suffice
// (well under a second), so every solve's report can afford it. Fuzz builds
// (ASan+UBSan, see CMakeLists.txt) get 1/16 of it (docs/tuning.md).
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
inline constexpr int64_t kGilmoreLawlerMaxWork = 30'000'000 / 16;
#else
inline constexpr int64_t kGilmoreLawlerMaxWork = 30'000'000;
#endif

// The steps GilmoreLawlerLowerBound would take on this problem (hop matrix,
// per-task scalar products, assignment), to decide whether it fits a budget.
int64_t GilmoreLawlerWork(const TaskGraph& graph, const Allocation& allocation);

// In QAP form the mapping costs sum_{i != j} F_ij D_{p(i)p(j)} = 2 x hop-bytes, with F
// the graph's weights and D the slot distances (0 within a node). For task i on slot
// k, l(i,k) = the minimal scalar product of i's edge weights with k's distances to
// the other slots (heaviest weight on the nearest slot); the cheapest assignment of
// tasks to distinct slots under l is at most twice the optimal hop-bytes, so
// ceil(GL / 2) is a valid hop-bytes bound. Empty slots and several cores are
// handled exactly: tasks <= slots, distances between slots of one node are 0.
// nullopt when GilmoreLawlerWork exceeds max_work or the sums could overflow.
std::optional<HopBytes> GilmoreLawlerLowerBound(const TaskGraph& graph,
                                                const Allocation& allocation,
                                                int64_t max_work = kGilmoreLawlerMaxWork);

}  // namespace hopmap

#endif  // HOPMAP_CORE_METRICS_GILMORE_LAWLER_H_
