// A V-cycle over the balanced refinement: objects that share a slot (and a current
// slot) are clustered along their heaviest edges, level after level, and
// RefineBalanced runs on the coarsest clusters first, then on each finer level.
// A cluster moving is a piece of a slot moving at once, which single-object moves
// do not find: each of its objects alone would cut more edges than it uncuts. As
// in METIS's and Scotch's multilevel refinement, and ParMETIS's adaptive
// repartitioning, whose coarsening also stays within the current parts.
// Also the search every balancer runs after its start (RepairAndRefine,
// TrimAndRefine): below balancers.h, so that what the balancers call
// (inside_nodes_balanced) can run it too.
#ifndef HOPMAP_CORE_BALANCE_MULTILEVEL_REFINE_H_
#define HOPMAP_CORE_BALANCE_MULTILEVEL_REFINE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "core/balance/balance_search.h"
#include "core/balance/balanced_placement.h"
#include "core/search/solve_options.h"

namespace hopmap {

struct MultilevelRefineOptions {
  // Coarse levels at most (0: RefineBalanced on the objects alone).
  int32_t max_levels = 8;
  // A cluster's load stays at or under this share of the cap, so that a slot
  // keeps several clusters to move and exchange.
  double max_cluster_share = 0.25;
  // Coarsening stops when a level keeps more than this share of the clusters
  // of the level below (the matching found little left to merge).
  double min_shrink = 0.9;
  // Coarsening stops when a level would have fewer clusters than this many per
  // slot.
  int32_t min_clusters_per_slot = 4;
  // With several cores per node: first a V-cycle a node at a time (clusters may
  // span a node's cores), spread back over the cores, then the one on slots.
  bool node_levels = true;
  // The matching visits clusters in an order drawn from this seed.
  uint64_t seed = 1;
  BalanceRefineOptions refine;
  absl::Status Validate() const;
};

// Refines `placement` in place: hop-bytes + migration cost never rise, no slot
// goes above max(cap, its load), and the migration limits hold as RefineBalanced
// keeps them (a cluster's move counts all its objects). Fixed objects stay
// alone and stay put. The last level is RefineBalanced on the objects
// themselves. Deterministic for a given placement and options.
BalanceSearchStats MultilevelRefine(BalancedPlacement& placement, double cap,
                                    const MultilevelRefineOptions& options,
                                    const StopCondition& stop);

// hopmap's search after a start: RepairBalance, then RefineBalanced, then a second
// repair if the refinement could not keep a slot under the cap. The repairs run
// to their end whatever the deadline (they stop on cancellation); the refinement
// stops at it. Its figures are the sums of the three (levels: the refinement's).
BalanceSearchStats RepairAndRefine(BalancedPlacement& placement, double cap,
                                   const StopCondition& stop);

// A remap brought back within the migration limits, then repaired and refined.
// Over a limit, the multilevel refinement runs with a price on every migration
// that rises (x2 a step while far over a limit, x1.25 near it) until the limits hold: the moves
// home that cost the least hop-bytes per migration saved go first, whole clusters at once. Then
// TrimMigrations for what is left, and RepairAndRefine under the caller's rules.
// Its figures are the final RepairAndRefine's plus the priced refinements' passes,
// moves and swaps.
BalanceSearchStats TrimAndRefine(BalancedPlacement& placement, double cap,
                                 const StopCondition& stop);

}  // namespace hopmap

#endif  // HOPMAP_CORE_BALANCE_MULTILEVEL_REFINE_H_
