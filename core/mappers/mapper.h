// The mapper interface, its options, and the registry type (the built-in list is
// core/mappers/portfolio/registry.h).
#ifndef HOPMAP_CORE_MAPPERS_MAPPER_H_
#define HOPMAP_CORE_MAPPERS_MAPPER_H_

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "core/analysis/pattern.h"
#include "core/graph/task_graph.h"
#include "core/metrics/lower_bound.h"
#include "core/search/stop_condition.h"
#include "core/topology/allocation.h"

namespace hopmap {

enum class Objective {
  kHopBytes,    // minimise hop-bytes
  kCongestion,  // minimise the largest directed link load
};
absl::StatusOr<Objective> ParseObjective(absl::string_view name);  // "hop-bytes", "congestion"
std::string ObjectiveName(Objective objective);
absl::StatusOr<Routing> ParseRouting(absl::string_view name);  // "dimension-order", "adaptive"
std::string RoutingName(Routing routing);

struct MapperOptions {
  uint64_t seed = 1;
  // Wall-clock budget of the whole solve; 0: DefaultTimeLimitSeconds(tasks), which
  // SolveMapping substitutes before any mapper runs.
  double time_limit_seconds = 0;
  int threads = 0;  // 0: every hardware thread
  Objective objective = Objective::kHopBytes;
  Routing routing = Routing::kDimensionOrder;  // for the congestion objective and reports
  // Iterative searches (grasp, emahd, ...) stop after this many iterations or starts
  // (0: only the time limit stops them). A search that stops on this limit before the
  // deadline gives the same answer on every run; one stopped by the clock may not.
  int64_t iteration_limit = 0;
  absl::Status Validate() const;
};

// The budget of a solve whose caller gave none, in seconds: 1 per 8192 tasks, at
// least 1, at most 45 (docs/tuning.md).
double DefaultTimeLimitSeconds(int64_t num_tasks);
// options.time_limit_seconds, or the default for num_tasks when it is 0.
double EffectiveTimeLimitSeconds(const MapperOptions& options, int64_t num_tasks);

// What a solve reports while it runs.
struct Progress {
  double elapsed_seconds = 0;
  std::string candidate_finished;  // the candidate that just finished
  HopBytes candidate_hop_bytes = 0;
  std::string best_algorithm;  // the best so far
  HopBytes best_hop_bytes = 0;
};
using ProgressCallback = std::function<void(const Progress&)>;

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

// One figure a mapper reports about its run: a count ("passes"), a flag (1 or 0,
// "stopped_early") or a wall time (the name ends in "_seconds"). Figures never go
// into names: the algorithm and its variant say what was chosen, these what it did.
struct Statistic {
  std::string name;
  double value = 0;
  bool operator==(const Statistic&) const = default;
};
// The value of the statistic `name`, if `stats` has it.
std::optional<double> FindStatistic(const std::vector<Statistic>& stats, absl::string_view name);

// One algorithm a solve tried, as the report lists it.
struct Candidate {
  std::string algorithm;  // e.g. "axis-order(ZYXT)"
  HopBytes hop_bytes = 0;
  double max_link_load = 0;  // filled when the objective is congestion
  double seconds = 0;
  std::string error;  // why it produced no mapping; empty when it did
  std::vector<Statistic> stats;
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

// Fails unless the allocation has a slot for every task (every mapper's first check).
absl::Status CheckFits(const TaskGraph& graph, const Allocation& allocation);

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_MAPPER_H_
