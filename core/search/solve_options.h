// What every solve shares, whichever algorithm runs it (a mapper, a balancer, the
// portfolio): the objective, the options, the budget, progress reports, the one
// precondition, and the type of a sub-solver passed down to the balancers. It sits
// below the algorithms so that the balancers need nothing of the mappers.
#ifndef HOPMAP_CORE_SEARCH_SOLVE_OPTIONS_H_
#define HOPMAP_CORE_SEARCH_SOLVE_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/graph/task_graph.h"
#include "core/search/stop_condition.h"
#include "core/topology/allocation.h"
#include "core/topology/machine.h"
#include "core/types.h"

namespace hopmap {

enum class Objective {
  kHopBytes,    // minimise hop-bytes
  kCongestion,  // minimise the largest directed link load
  kDilation,    // minimise the most hops any edge travels, then hop-bytes
  kTime,        // minimise the estimated time of one exchange (exchange_time.h), then hop-bytes
};
// "hop-bytes", "congestion", "dilation", "time"
absl::StatusOr<Objective> ParseObjective(absl::string_view name);
std::string ObjectiveName(Objective objective);

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

// Fails unless the allocation has a slot for every task (every mapper's first check).
absl::Status CheckFits(const TaskGraph& graph, const Allocation& allocation);

// A solver of a sub-problem with one task per slot: a slot for every task of `graph`
// on `allocation`, or why not. The balancers map their parts' quotient graph onto the
// nodes with one; the request layer passes the portfolio (auto), so that the
// balancers never name a mapper.
using SubproblemMapper = std::function<absl::StatusOr<std::vector<SlotId>>(
    const TaskGraph& graph, const Allocation& allocation, const MapperOptions& options,
    const StopCondition& stop)>;

}  // namespace hopmap

#endif  // HOPMAP_CORE_SEARCH_SOLVE_OPTIONS_H_
