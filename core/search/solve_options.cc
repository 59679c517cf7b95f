#include "core/search/solve_options.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace hopmap {

absl::StatusOr<Objective> ParseObjective(absl::string_view name) {
  if (name == "hop-bytes") return Objective::kHopBytes;
  if (name == "congestion") return Objective::kCongestion;
  if (name == "dilation") return Objective::kDilation;
  if (name == "time") return Objective::kTime;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown objective '", name, "' (known: hop-bytes, congestion, dilation, time)"));
}

std::string ObjectiveName(Objective objective) {
  switch (objective) {
    case Objective::kHopBytes:
      return "hop-bytes";
    case Objective::kCongestion:
      return "congestion";
    case Objective::kDilation:
      return "dilation";
    case Objective::kTime:
      return "time";
  }
  return "hop-bytes";
}

double DefaultTimeLimitSeconds(int64_t num_tasks) {
  constexpr double kTasksPerSecond = 8192;
  constexpr double kMinSeconds = 1;
  constexpr double kMaxSeconds = 45;
  return std::clamp(static_cast<double>(num_tasks) / kTasksPerSecond, kMinSeconds, kMaxSeconds);
}

double EffectiveTimeLimitSeconds(const MapperOptions& options, int64_t num_tasks) {
  return options.time_limit_seconds > 0 ? options.time_limit_seconds
                                        : DefaultTimeLimitSeconds(num_tasks);
}

absl::Status MapperOptions::Validate() const {
  if (!std::isfinite(time_limit_seconds) || time_limit_seconds < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("time limit must be a number of seconds >= 0 (0: sized to the job), got ",
                     time_limit_seconds));
  }
  if (iteration_limit < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("iteration limit must be >= 0 (0: none), got ", iteration_limit));
  }
  if (threads < 0) {
    return absl::InvalidArgumentError(absl::StrCat("threads must be >= 0, got ", threads));
  }
  return absl::OkStatus();
}

absl::Status CheckFits(const TaskGraph& graph, const Allocation& allocation) {
  if (graph.num_tasks() > allocation.num_slots()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the graph has ", graph.num_tasks(), " tasks but the allocation has only ",
                     allocation.num_slots(), " slots (", allocation.num_nodes(), " nodes x ",
                     allocation.cores_per_node(), " cores)"));
  }
  return absl::OkStatus();
}

}  // namespace hopmap
