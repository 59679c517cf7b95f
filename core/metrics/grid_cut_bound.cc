#include "core/metrics/grid_cut_bound.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace hopmap {

int64_t MaxInternalGridEdges(int32_t d, int64_t c) {
  if (d < 1 || c < 2) return 0;
  const double dc = static_cast<double>(c);
  // The tiny slack keeps exact cubes (4 cells in 2D: 4 edges) from rounding down.
  const double bound = d * dc - d * std::pow(dc, static_cast<double>(d - 1) / d);
  return static_cast<int64_t>(std::floor(bound + 1e-9));
}

namespace {

// Whether u and v are one step apart along exactly one dim of the grid.
bool IsGridStep(int64_t u, int64_t v, const std::vector<int32_t>& dims,
                const std::vector<bool>& periodic) {
  int differing = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t cu = u % dims[i], cv = v % dims[i];
    u /= dims[i];
    v /= dims[i];
    if (cu == cv) continue;
    if (++differing > 1) return false;
    const int64_t diff = std::abs(cu - cv);
    if (diff != 1 && !(periodic[i] && diff == dims[i] - 1)) return false;
  }
  return differing == 1;
}

}  // namespace

std::optional<HopBytes> GridCutLowerBound(const TaskGraph& graph, const Allocation& allocation,
                                          const std::vector<int32_t>& dims,
                                          const std::vector<bool>& periodic) {
  const int64_t n = graph.num_tasks();
  const int64_t cores = allocation.cores_per_node();
  if (dims.empty() || dims.size() != periodic.size() || n < 1) return std::nullopt;
  int64_t cells = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 1) return std::nullopt;
    cells *= dims[i];
    if (periodic[i] && cores >= dims[i]) return std::nullopt;
  }
  if (cells != n) return std::nullopt;
  std::vector<Bytes> weights;
  weights.reserve(graph.num_edges());
  for (TaskId u = 0; u < n; ++u) {
    bool ok = true;
    graph.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
      if (v <= u) return;
      if (!IsGridStep(u, v, dims, periodic)) ok = false;
      weights.push_back(w);
    });
    if (!ok) return std::nullopt;
  }
  const int32_t d = static_cast<int32_t>(dims.size());
  const int64_t internal =
      (n / cores) * MaxInternalGridEdges(d, cores) + MaxInternalGridEdges(d, n % cores);
  const int64_t kept = std::min<int64_t>(internal, static_cast<int64_t>(weights.size()));
  std::partial_sort(weights.begin(), weights.begin() + kept, weights.end(), std::greater<>());
  Bytes inside = 0;
  for (int64_t i = 0; i < kept; ++i) inside += weights[i];
  const Bytes crossing = graph.total_bytes() - inside;
  return crossing * allocation.machine().min_hops();
}

}  // namespace hopmap
