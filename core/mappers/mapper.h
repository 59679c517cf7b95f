// The mapper interface and the registry type (the built-in list is
// core/mappers/portfolio/registry.h). The vocabulary every solve shares (objective,
// options, progress, statistics, candidates) is below, in core/search.
#ifndef HOPMAP_CORE_MAPPERS_MAPPER_H_
#define HOPMAP_CORE_MAPPERS_MAPPER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/analysis/pattern.h"
#include "core/graph/task_graph.h"
#include "core/metrics/lower_bound.h"
#include "core/search/solve_options.h"
#include "core/search/statistics.h"
#include "core/search/stop_condition.h"
#include "core/topology/allocation.h"

namespace hopmap {

struct MapInput {
  const TaskGraph& graph;
  const Allocation& allocation;
  const MapperOptions& options;
  const StopCondition& stop;
  // May be empty; portfolios call it after each candidate.
  const ProgressCallback* on_progress = nullptr;
  // The graph's pattern when a portfolio already analysed it; grid mappers analyse
  // the graph themselves when it is null.
  const PatternReport* pattern = nullptr;
  // A valid mapping to start from (local searches such as refine improve it; GRASP
  // and MAHD may seed a start with it). Null: the mapper starts from its own.
  const std::vector<SlotId>* initial = nullptr;
};

struct MapOutput {
  std::vector<SlotId> slot_of_task;
  // The variant that won inside the mapper, e.g. "ZYXT" for axis-order; empty if none.
  std::string variant;
  // What the mapper did (iterations, passes, stops), as figures.
  std::vector<Statistic> stats;
  // Filled by portfolios (auto) with every algorithm they ran; the winner's name.
  std::vector<Candidate> candidates;
  std::string winner;
  // ComputeLowerBound of this graph and allocation, when the mapper needed it (auto
  // does); the report reuses it instead of computing it again.
  std::optional<LowerBound> lower_bound;
};

class Mapper {
 public:
  virtual ~Mapper() = default;
  // Returns a valid mapping (every task on its own slot) or an error saying why this
  // mapper cannot map this input. Must be deterministic for a given seed and thread
  // count, and return its best so far once input.stop says so.
  virtual absl::StatusOr<MapOutput> Map(const MapInput& input) const = 0;
};

// What a mapper can map: any task graph; only the near-neighbour grids the pattern
// analysis finds (it refuses other graphs); such a 2D grid onto a 2D mesh or torus;
// or only graphs small enough to solve exactly (exact: at most 20 tasks).
enum class MapperInput { kAnyGraph, kGrid, kGrid2dOnMesh, kSmallGraph };
// "any-graph", "grid", "grid2d-on-mesh", "small-graph" (as `hopmap algorithms
// --format json` prints).
absl::string_view MapperInputName(MapperInput input);

struct MapperInfo {
  std::string name;         // the CLI/RPC name
  std::string description;  // one line for --help and `hopmap algorithms`
  std::function<std::unique_ptr<Mapper>()> create;
  MapperInput input = MapperInput::kAnyGraph;
};

class MapperRegistry {
 public:
  // Fails on an empty or duplicate name.
  absl::Status Register(MapperInfo info);
  [[nodiscard]] const MapperInfo* Find(absl::string_view name) const;
  // In registration order.
  [[nodiscard]] const std::vector<MapperInfo>& mappers() const { return mappers_; }
  // NotFound naming the known algorithms.
  absl::StatusOr<std::unique_ptr<Mapper>> Create(absl::string_view name) const;

 private:
  std::vector<MapperInfo> mappers_;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_MAPPER_H_
