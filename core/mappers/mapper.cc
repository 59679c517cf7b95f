#include "core/mappers/mapper.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hopmap {

absl::StatusOr<Objective> ParseObjective(absl::string_view name) {
  if (name == "hop-bytes") return Objective::kHopBytes;
  if (name == "congestion") return Objective::kCongestion;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown objective '", name, "' (known: hop-bytes, congestion)"));
}

std::string ObjectiveName(Objective objective) {
  return objective == Objective::kHopBytes ? "hop-bytes" : "congestion";
}

absl::StatusOr<Routing> ParseRouting(absl::string_view name) {
  if (name == "dimension-order") return Routing::kDimensionOrder;
  if (name == "adaptive") return Routing::kAdaptive;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown routing '", name, "' (known: dimension-order, adaptive)"));
}

std::string RoutingName(Routing routing) {
  return routing == Routing::kDimensionOrder ? "dimension-order" : "adaptive";
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

absl::string_view MapperInputName(MapperInput input) {
  switch (input) {
    case MapperInput::kAnyGraph:
      return "any-graph";
    case MapperInput::kGrid:
      return "grid";
    case MapperInput::kGrid2dOnMesh:
      return "grid2d-on-mesh";
    case MapperInput::kSmallGraph:
      return "small-graph";
  }
  return "any-graph";
}

absl::Status MapperRegistry::Register(MapperInfo info) {
  if (info.name.empty()) return absl::InvalidArgumentError("mapper registered without a name");
  if (Find(info.name) != nullptr) {
    return absl::AlreadyExistsError(absl::StrCat("mapper '", info.name, "' registered twice"));
  }
  mappers_.push_back(std::move(info));
  return absl::OkStatus();
}

const MapperInfo* MapperRegistry::Find(absl::string_view name) const {
  for (const MapperInfo& info : mappers_) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

absl::StatusOr<std::unique_ptr<Mapper>> MapperRegistry::Create(absl::string_view name) const {
  const MapperInfo* info = Find(name);
  if (info == nullptr) {
    std::vector<std::string> names;
    for (const MapperInfo& m : mappers_) names.push_back(m.name);
    return absl::NotFoundError(
        absl::StrCat("unknown algorithm '", name, "' (known: ", absl::StrJoin(names, ", "), ")"));
  }
  return info->create();
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

std::optional<double> FindStatistic(const std::vector<Statistic>& stats, absl::string_view name) {
  for (const Statistic& s : stats) {
    if (s.name == name) return s.value;
  }
  return std::nullopt;
}

}  // namespace hopmap
