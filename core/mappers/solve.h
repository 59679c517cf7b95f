// SolveMapping / EvaluateMapping: what `hopmap map` and `hopmap eval` (and the
// daemon) compute, as one report.
#ifndef HOPMAP_CORE_MAPPERS_SOLVE_H_
#define HOPMAP_CORE_MAPPERS_SOLVE_H_

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "core/mappers/mapper.h"
#include "core/metrics/link_loads.h"
#include "core/metrics/lower_bound.h"

namespace hopmap {

struct MappingReport {
  TaskId tasks = 0;
  int64_t slots = 0;
  std::string algorithm;  // the winner, e.g. "axis-order(ZYXT)"; "given" for eval
  std::vector<SlotId> slot_of_task;

  HopBytes hop_bytes = 0;
  Bytes total_bytes = 0;
  Bytes self_bytes = 0;          // self traffic, not part of hop-bytes
  double avg_hops_per_byte = 0;  // hop_bytes / total_bytes (0 without traffic)
  int32_t max_dilation = 0;
  Routing routing = Routing::kDimensionOrder;
  LinkLoads link_loads;  // empty when the machine has no link model

  LowerBound lower_bound;
  std::optional<double> gap;        // hop_bytes / lower_bound; unset when the bound is 0
  HopBytes baseline_hop_bytes = 0;  // the in-order placement
  double improvement = 0;           // 1 - hop_bytes / baseline (0.25 = 25% fewer)
  double solve_seconds = 0;
  std::vector<Candidate> candidates;
};

// Maps `graph` onto `allocation` with the named algorithm of `registry`, inside a
// task_arena of options.threads threads and the options' time limit, then measures
// the result. `cancelled`, when set to true by another thread, stops the solve.
absl::StatusOr<MappingReport> SolveMapping(const TaskGraph& graph, const Allocation& allocation,
                                           absl::string_view algorithm,
                                           const MapperOptions& options,
                                           const MapperRegistry& registry = BuiltinMappers(),
                                           const std::atomic<bool>* cancelled = nullptr);

// Measures a given mapping (validated first).
absl::StatusOr<MappingReport> EvaluateMapping(const TaskGraph& graph, const Allocation& allocation,
                                              std::vector<SlotId> slot_of_task, Routing routing,
                                              int threads = 0);

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_SOLVE_H_
