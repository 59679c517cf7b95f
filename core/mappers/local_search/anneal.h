// anneal: simulated annealing over slot exchanges, the improvement that keeps going
// where pair-exchange local search (refine) and its iterated form stop: it accepts
// uphill exchanges while the temperature is high, so it leaves the basins that
// refine's descents end in. `auto` runs it on the best mapping of its searches.
#ifndef HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_ANNEAL_H_
#define HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_ANNEAL_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "core/graph/task_graph.h"
#include "core/mappers/mapper.h"
#include "core/search/position_graph.h"
#include "core/topology/allocation.h"

namespace hopmap {

struct AnnealOptions {
  // Exchanges proposed per task over one chain's cooling schedule (a count, not the
  // clock, so a chain the deadline does not cut repeats exactly).
  int64_t moves_per_task = 2000;
  // Independent chains from the same start, each from RandomStream(seed, chain); the
  // best wins, ties to the lower chain. A constant (not the thread count), so the
  // answer does not depend on the threads.
  int32_t chains = 2;
  // Start temperature as a multiple of the mean uphill hop-bytes change of
  // exchanges proposed from the start mapping (sampled before the chain runs).
  double start_temperature = 0.5;
  // The temperature falls geometrically to start / cooling_ratio.
  double cooling_ratio = 1000;
  // When the deadline would cut the schedule, cool over the moves the time left
  // affords (at the chain's measured rate) instead, so the chain ends cold.
  bool cool_to_deadline = true;
  absl::Status Validate() const;
};

struct AnnealStats {
  int64_t moves = 0;     // exchanges proposed, all chains
  int64_t accepted = 0;  // of which applied
  int32_t best_chain = -1;
  HopBytes best_hop_bytes = 0;  // of the returned mapping
  bool stopped_early = false;   // the deadline or a cancel cut a chain
  // A chain's schedule would have outlasted the deadline, so it cooled over fewer
  // moves (the time left at its measured rate); `moves` counts what ran.
  bool hurried = false;
  // Moves the best chain had made when it found its best (0: none better than the
  // start): how much of the schedule the answer needed.
  int64_t best_found_at_move = 0;
};
// The figures a report lists: moves, accepted, best_found_at_move, cooled_faster,
// stopped_early.
std::vector<Statistic> AnnealStatistics(const AnnealStats& stats);

// Anneals `start` (a valid mapping). An exchange moves a random task next to one
// of its neighbours: to a random slot on that neighbour's node or on a node next
// to it (PositionGraph), exchanging with whatever sits there (a task or nothing).
// Returns the best mapping any chain visited; never worse than `start`.
// Chains run in parallel on the caller's TBB arena. `near`: the allocation's
// PositionGraph, or null to build it here.
std::vector<SlotId> Anneal(const TaskGraph& graph, const Allocation& allocation,
                           const std::vector<SlotId>& start, const AnnealOptions& options,
                           uint64_t seed, const StopCondition& stop,
                           const PositionGraph* near = nullptr, AnnealStats* stats = nullptr);

// "anneal": anneals input.initial when given, else RefineStartMapping's start.
// MapperOptions::iteration_limit, when set, is the moves per task.
class AnnealMapper final : public Mapper {
 public:
  explicit AnnealMapper(AnnealOptions options = {}) : options_(options) {}
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;

 private:
  AnnealOptions options_;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_ANNEAL_H_
