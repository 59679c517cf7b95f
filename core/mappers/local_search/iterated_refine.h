// Iterated local search on top of refine: the improvement `auto` runs on large jobs.
#ifndef HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_ITERATED_REFINE_H_
#define HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_ITERATED_REFINE_H_

#include <cstdint>
#include <vector>

#include "core/graph/task_graph.h"
#include "core/mappers/mapper.h"
#include "core/search/position_graph.h"
#include "core/topology/allocation.h"

namespace hopmap {

// Iterated local search: each round scrambles the slots of a small connected patch
// of tasks (a breadth-first ball around a random task) and refines; the result is
// kept when it is better. Round k draws from RandomStream(seed, k), so the result
// depends only on the seed and the number of rounds done.
// Stops after `rounds` rounds, after max(50, rounds / 5) failed rounds in a row, once
// refine has scanned more than `work_budget` edges (RefineStats::work), or at `stop`.
// `best` must be a valid mapping; the result is never worse. `near_nodes`:
// PositionGraph::Build(allocation) when the caller has it (null: built here).
std::vector<SlotId> PerturbAndRefine(const TaskGraph& graph, const Allocation& allocation,
                                     std::vector<SlotId> best, int64_t rounds, double work_budget,
                                     uint64_t seed, const StopCondition& stop,
                                     const PositionGraph* near_nodes = nullptr);

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_ITERATED_REFINE_H_
