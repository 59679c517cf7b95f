// congestion refinement: exchanges that lower the largest link load, the figure a
// bandwidth-bound phase's time follows (every message of a phase at once: the
// busiest link carries its bytes last). The other searches lower hop-bytes, a sum,
// and leave the load where it falls: on an irregular graph over a fragmented torus
// allocation hopmap's hop-bytes were 0.16x Slurm's ranking's but its busiest link
// carried half of Slurm's (bench/README.md, "Slurm 26's own ranking").
#ifndef HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_CONGESTION_REFINE_H_
#define HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_CONGESTION_REFINE_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "core/graph/task_graph.h"
#include "core/mappers/mapper.h"
#include "core/search/position_graph.h"
#include "core/topology/allocation.h"

namespace hopmap {

struct CongestionRefineOptions {
  // Exchanges applied at most, as a multiple of the task count (a count, not the
  // clock, so a run the deadline does not cut repeats).
  int64_t max_exchanges_per_task = 4;
  // Route links visited (loads updated, routes searched for the busiest link) at
  // most: the search's work, a count like the exchanges.
  int64_t max_work = int64_t{1} << 40;
  // The busiest link by the time its bytes take (bytes over the link's bandwidth),
  // not by its bytes: on a machine whose links differ in speed (a GPU cluster's
  // NVLink, rails and spine) the link that sets a phase's time is the slowest to
  // drain, not the one that carries most. `--objective time` sets it.
  bool by_link_time = false;
  absl::Status Validate() const;
};

struct CongestionRefineStats {
  int64_t exchanges = 0;
  // Bytes on the busiest directed link (by_link_time: the one whose bytes take
  // longest), before and after.
  double start_max_load = 0;
  double end_max_load = 0;
  // No exchange lowers the busiest link without loading another as much.
  bool local_optimum = false;
  int64_t work = 0;  // route links visited
};

// From `start` (a valid mapping): repeatedly takes the busiest directed link (the
// lowest index among equals) and, for the tasks with an edge routed over it in
// increasing id order, the first exchange with a slot on or next to the node of the
// task or of one of its neighbours (PositionGraph) after which that link and every
// link the exchange changes carry less than the busiest did; so each exchange
// lowers the largest load or the number of links at it. Loads as ComputeLinkLoads
// counts them (each edge's bytes half each way along `routing`'s routes). Hop-bytes
// may rise. `near`: the allocation's PositionGraph, or null to build it here.
std::vector<SlotId> RefineCongestion(const TaskGraph& graph, const Allocation& allocation,
                                     std::vector<SlotId> start, Routing routing,
                                     const CongestionRefineOptions& options,
                                     const StopCondition& stop, const PositionGraph* near = nullptr,
                                     CongestionRefineStats* stats = nullptr);

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_CONGESTION_REFINE_H_
