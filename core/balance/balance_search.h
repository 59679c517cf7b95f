// The local searches of the balanced problem: a repair that brings every slot under
// the load cap at the least cost, and a refinement that moves and swaps objects
// while hop-bytes (+ the migration cost) fall and the cap holds.
#ifndef HOPMAP_CORE_BALANCE_BALANCE_SEARCH_H_
#define HOPMAP_CORE_BALANCE_BALANCE_SEARCH_H_

#include <cstdint>

#include "absl/status/status.h"
#include "core/balance/balanced_placement.h"
#include "core/search/solve_options.h"

namespace hopmap {

struct BalanceRefineOptions {
  // Passes over the active set (every object first, then the objects moved in the
  // previous pass and their neighbours); a pass that changes nothing ends it.
  int32_t max_passes = 50;
  // When a move's target slot is full: objects of that slot tried as exchange
  // partners (a window that shifts with the pass).
  int32_t swap_candidates = 8;
  absl::Status Validate() const;
};

struct BalanceSearchStats {
  int32_t passes = 0;
  int64_t moves = 0;
  int64_t swaps = 0;
  // Coarse levels of a multilevel refinement's V-cycle (the most any of its
  // V-cycles built); 0 for the single-level searches.
  int32_t levels = 0;
  // Repair: every slot ended at or under the cap.
  bool balanced = false;
  // Repair: why a slot stayed over the cap (empty when balanced).
  std::string why_not_balanced;
};

// Adds the figures of `more` to `total` (passes, moves and swaps summed, levels the
// most): several searches after one start reported as one.
void AddSearchStats(BalanceSearchStats& total, const BalanceSearchStats& more);

// Moves objects off every slot above `cap` until none is, choosing each time, over
// the most loaded slot's objects and the destinations with room (a free core of
// the same node, the nodes of the object's neighbours, its current slot, the least
// loaded slot), the move with the least hop-bytes + migration cost per unit of
// excess load removed. Keeps the migration limits. A slot no single move can bring
// under the cap sheds what lowers its load without raising another above it.
BalanceSearchStats RepairBalance(BalancedPlacement& placement, double cap,
                                 const StopCondition& stop);

// Improves hop-bytes + migration cost by moving single objects to the nodes of
// their neighbours (or home) and, when the target slot is full, exchanging with one
// of its objects; never takes a slot above max(cap, its load) and keeps the
// migration limits. Sequential and deterministic.
BalanceSearchStats RefineBalanced(BalancedPlacement& placement, double cap,
                                  const BalanceRefineOptions& options, const StopCondition& stop);

// While the placement is over a migration limit, sends migrated objects back to
// their current slots, the cheapest return first (the least hop-bytes + migration
// cost added, re-evaluated as neighbours return), each only when its current slot
// has room under `cap`. For a remap that moved more than the limit allows: it
// keeps the moves that gain most. Returns whether the limits hold at the end.
bool TrimMigrations(BalancedPlacement& placement, double cap, const StopCondition& stop);

}  // namespace hopmap

#endif  // HOPMAP_CORE_BALANCE_BALANCE_SEARCH_H_
