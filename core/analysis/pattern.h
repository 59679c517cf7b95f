// Regular-pattern detection (seed 000's Algorithm 1, generalized): finds the grid,
// ring, transpose or collective structure hidden in a recorded communication graph.
#ifndef HOPMAP_CORE_ANALYSIS_PATTERN_H_
#define HOPMAP_CORE_ANALYSIS_PATTERN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/graph/task_graph.h"

namespace hopmap {

struct AnalyzerOptions {
  // Edges lighter than this fraction of the mean edge weight are noise (seed 000
  // uses 20%); they are left out of the pattern and reported.
  double weight_threshold = 0.2;
  // Ignore edges to "hub" ranks (a rank talking to most others, like a rank-0
  // reduction root recorded as point-to-point messages).
  bool ignore_hubs = true;
  absl::Status Validate() const;
};

struct PatternReport {
  // "stencil2d-5", "stencil2d-9", "stencil3d-7", "stencil3d-27", "stencil4d-9",
  // "ring", "fft2d", "recursive-doubling", "binomial-tree", or "none".
  std::string kind = "none";
  // Grid kinds: the grid dims with task = c0 + D0*(c1 + D1*(c2 + ...)) (first dim
  // fastest in rank order); fft2d: {R, C}; ring/collectives: {n}.
  std::vector<int32_t> dims;
  bool wrap = false;  // grid kinds: periodic boundaries
  // "row-major" when the dims were found with the first dim fastest as given by the
  // ranks; the report always lists dims first-fastest, so a grid recorded with y
  // fastest is reported with y first and this says "column-major" for the reader.
  std::string rank_order;
  double explained_share = 0;      // share of all bytes on the pattern's edges
  int64_t edges_left_out = 0;      // edges not explained (noise, hubs, extra)
  Bytes bytes_left_out = 0;
  std::vector<TaskId> hubs;        // ranks whose edges were ignored
  [[nodiscard]] bool is_grid() const { return kind.rfind("stencil", 0) == 0; }
};

// Never fails on a valid graph: a graph without a pattern gets kind "none".
absl::StatusOr<PatternReport> AnalyzePattern(const TaskGraph& graph,
                                             const AnalyzerOptions& options = {});

}  // namespace hopmap

#endif  // HOPMAP_CORE_ANALYSIS_PATTERN_H_
