// SolveMapping / EvaluateMapping: the one-task-per-slot problem's solve and
// evaluation (Solve and Evaluate in core/solve/solve.h dispatch here).
#ifndef HOPMAP_CORE_SOLVE_SOLVE_MAPPING_H_
#define HOPMAP_CORE_SOLVE_SOLVE_MAPPING_H_

#include <atomic>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/mappers/mapper.h"
#include "core/mappers/portfolio/registry.h"
#include "core/solve/report.h"

namespace hopmap {

// How a caller watches and stops a solve (the daemon's streaming and cancellation).
struct SolveControl {
  // Set to true by another thread to stop the solve; it returns its best so far.
  const std::atomic<bool>* cancelled = nullptr;
  // Called (on a solver thread) when a candidate finishes.
  ProgressCallback on_progress;
  // A mapping to start from (refine improves it; auto refines it with its own
  // candidates; grasp seeds a start with it). Checked: InvalidArgument names the
  // problem ("initial mapping: task 3 ...").
  const std::vector<SlotId>* initial = nullptr;
};

// Maps `graph` onto `allocation` with the named algorithm of `registry`, inside a
// task_arena of options.threads threads and the options' time limit, then measures
// the result. Precondition: what the request's checks (CheckSolveRequest,
// core/solve/solve.h) ensure and this does not check again: valid options
// (MapperOptions::Validate) and a slot for each task (CheckFits; each mapper also
// refuses more tasks than slots itself, the mapper contract). It still refuses what
// only it sees: hop-bytes that could overflow, the congestion objective on a
// machine without links, an unknown algorithm, an invalid initial mapping.
absl::StatusOr<MappingReport> SolveMapping(const TaskGraph& graph, const Allocation& allocation,
                                           absl::string_view algorithm,
                                           const MapperOptions& options,
                                           const MapperRegistry& registry = BuiltinMappers(),
                                           const SolveControl& control = {});

// Measures a given mapping (validated first).
absl::StatusOr<MappingReport> EvaluateMapping(const TaskGraph& graph, const Allocation& allocation,
                                              std::vector<SlotId> slot_of_task, Routing routing,
                                              int threads = 0);

}  // namespace hopmap

#endif  // HOPMAP_CORE_SOLVE_SOLVE_MAPPING_H_
