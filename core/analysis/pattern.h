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
  // Edges lighter than this fraction of the mean edge weight (over the edges between
  // non-hub ranks) are noise (seed 000 uses 20%); they need not fit the pattern.
  double weight_threshold = 0.2;
  // Ignore edges to "hub" ranks (a rank talking to most others, like a rank-0
  // reduction root recorded as point-to-point messages).
  bool ignore_hubs = true;
  absl::Status Validate() const;
};

struct PatternReport {
  // "stencil2d-5", "stencil2d-9", "stencil3d-7", "stencil3d-27", "stencil4d-9",
  // "ring", "fft2d", "recursive-doubling", "binomial-tree", or "none".
  // The 9-point (2D) and 27-point (3D) kinds are reported when at least half of the
  // expected diagonal edges are present (e.g. a 27-point code whose corner messages
  // fell below the weight threshold, or a 2D torus with one diagonal direction).
  std::string kind = "none";
  // Grid kinds: the grid dims with task = c0 + D0*(c1 + D1*(c2 + ...)) (first dim
  // fastest in rank order); fft2d: {R, C}; ring/collectives: {n}.
  std::vector<int32_t> dims;
  // Grid kinds: periodic boundaries (every dim of size >= 3 wraps; see `periodic`
  // for grids that wrap in some dims only). ring: true for a closed ring, false for an
  // open chain 0-1-...-(n-1) (a 1D grid).
  bool wrap = false;
  // Grid kinds: per dim, whether an edge wraps around it (a dim of size 2 never
  // shows a wrap: its +1 and -1 neighbours are the same task).
  std::vector<bool> periodic;
  // Grid kinds and fft2d: "row-major", meaning the ranks' fastest dim is dims[0]
  // (task = c0 + D0*(c1 + D1*(c2 + ...))). The strides are read from the data, so the
  // dims are always reported fastest first: a 32x16 (x by y) grid recorded with y
  // fastest (task = y + 16*x) is reported as dims {16, 32}, still "row-major". Which
  // of the application's axes the fastest one is cannot be seen in the ranks alone;
  // the mappers only need the dims in rank order. Empty for the other kinds.
  std::string rank_order;
  double explained_share = 0;  // share of all bytes on the pattern's edges
  int64_t edges_left_out = 0;  // edges not explained (noise, hubs, extra)
  Bytes bytes_left_out = 0;
  // Ranks whose edges were ignored (a hub candidate: degree > n/2, or >= 16 and >= 8x
  // the median; only while there are at most n/8 of them): listed when at least one
  // of their edges is left out. A hub's edges that fit the pattern still count.
  std::vector<TaskId> hubs;
  [[nodiscard]] bool is_grid() const { return kind.rfind("stencil", 0) == 0; }
};

// Never fails on a valid graph: a graph without a pattern gets kind "none".
absl::StatusOr<PatternReport> AnalyzePattern(const TaskGraph& graph,
                                             const AnalyzerOptions& options = {});

}  // namespace hopmap

#endif  // HOPMAP_CORE_ANALYSIS_PATTERN_H_
