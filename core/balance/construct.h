// Placements of many objects per slot built from scratch: hopmap's construction
// (METIS parts per node, the parts mapped onto the network) and what runtimes use
// instead (a block distribution, Charm++'s GreedyLB and RefineLB).
#ifndef HOPMAP_CORE_BALANCE_CONSTRUCT_H_
#define HOPMAP_CORE_BALANCE_CONSTRUCT_H_

#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/balance/balance_problem.h"
#include "core/search/solve_options.h"

namespace hopmap {

// Objects cut into one part per allocated node by METIS k-way (vertex weights: the
// loads; parts within `node_imbalance` of the average), the parts' quotient graph
// mapped onto the nodes by `map_quotient` (one part per node; the request layer
// passes auto) within two thirds of what is left of `stop`, then each
// node's objects spread over its cores heaviest first (SpreadOverCores). Without
// edges or when METIS fails, runs of the breadth-first order cut by load.
std::vector<SlotId> PartitionPlacement(const BalanceInput& input, double node_imbalance,
                                       const MapperOptions& options, const StopCondition& stop,
                                       const SubproblemMapper& map_quotient);

// How BisectionPlacement cuts; the defaults are METIS's plain and anchored cuts.
struct BisectionHints {
  // With input.current_slot: one entry per object, what moving it costs in
  // hop-bytes. Every cut also weighs keeping objects in the half that holds their
  // current node (BisectByWeight's remapping): a remap that moves few objects.
  std::span<const int64_t> stay;
  // The grid the objects form (dims, first fastest): the plain cuts are planes
  // across it, its axes following the machine's (BisectByWeight's geometric cuts).
  std::span<const int32_t> grid_dims;
  // Whether every cut is also tried by METIS seeing where the set's outside
  // neighbours went (RecursiveBisectionOptions::anchored_cut).
  bool anchored_cut = true;
  // With grid_dims: every plane cut slides to where it costs least within the
  // sizes (RecursiveBisectionOptions::slide_grid_cuts).
  bool slide_grid_cuts = false;
};

// Dual recursive bisection by load (BisectByWeight: the objects and the nodes cut
// in halves together, each cut weighing where the set's outside neighbours went, as
// Scotch maps), nodes holding (1 + node_imbalance) x their share of the load, then
// each node's objects spread over its cores (SpreadOverCores).
std::vector<SlotId> BisectionPlacement(const BalanceInput& input, double node_imbalance,
                                       const MapperOptions& options, const StopCondition& stop,
                                       const BisectionHints& hints = {});

// METIS vertex weights for the objects: their loads scaled so the sum stays within
// 2^30 (every 1 with no load at all).
std::vector<int32_t> MetisLoadWeights(const BalanceInput& input);

// Every node's objects (position_of_task[t] = allocation position) spread over
// its cores: heaviest object first onto the least loaded core (lowest core on
// ties; Graham's LPT). With input.current_slot, an object that stays on its
// current node keeps its core (it does not migrate) and only the others are spread.
std::vector<SlotId> SpreadOverCores(const BalanceInput& input,
                                    std::span<const int32_t> position_of_task);

// Objects in id order cut into contiguous runs of about equal load, one per slot
// (a runtime's default block mapping of an array of objects).
std::vector<SlotId> BlockPlacement(const BalanceInput& input);

// Charm++'s GreedyLB: heaviest object first (lowest id on ties) onto the least
// loaded slot (lowest slot on ties); communication is not looked at.
std::vector<SlotId> GreedyLbPlacement(const BalanceInput& input);

// Charm++'s RefineLB: from `start`, while a slot is above `cap`, moves the heaviest
// of its objects that fits under the cap on the least loaded slot there, most
// loaded slot first; communication is not looked at, few objects move.
std::vector<SlotId> RefineLbPlacement(const BalanceInput& input, std::span<const SlotId> start,
                                      double cap);

}  // namespace hopmap

#endif  // HOPMAP_CORE_BALANCE_CONSTRUCT_H_
