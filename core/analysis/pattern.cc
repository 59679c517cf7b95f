// Placeholder implementation replaced by the analyzer: reports no pattern.
#include "core/analysis/pattern.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace hopmap {

absl::Status AnalyzerOptions::Validate() const {
  if (!std::isfinite(weight_threshold) || weight_threshold < 0 || weight_threshold >= 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("weight threshold must be in [0, 1), got ", weight_threshold));
  }
  return absl::OkStatus();
}

absl::StatusOr<PatternReport> AnalyzePattern(const TaskGraph& graph,
                                             const AnalyzerOptions& options) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  PatternReport report;
  report.edges_left_out = graph.num_edges();
  report.bytes_left_out = graph.total_bytes();
  return report;
}

}  // namespace hopmap
