// SolveBalancedMapping / EvaluateBalancedMapping: the balanced problem's `hopmap
// map` and `hopmap eval` (and the daemon's), as one MappingReport with its
// LoadBalanceReport.
#ifndef HOPMAP_CORE_SOLVE_SOLVE_BALANCED_H_
#define HOPMAP_CORE_SOLVE_SOLVE_BALANCED_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/balance/balance_problem.h"
#include "core/solve/solve_mapping.h"

namespace hopmap {

// The budget of a balanced solve whose caller gave none: sized to the slots
// (DefaultTimeLimitSeconds(slots): a load balancer runs every few steps and must
// answer fast; the searches usually converge well before it), but at least 1 s per
// 32,768 objects: below that the first partition of a large input is cut, and the
// parts it had not cut yet stay in order (rgg 2^17 onto 192 PEs: 16x Scotch's cost
// at 1 s, 0.78x at 2 s; bench/README.md, "Hierarchical machines"). At most 45 s.
double DefaultBalanceTimeLimitSeconds(int64_t num_slots, int64_t num_objects);

// Places input's objects with the named balancer (BuiltinBalancers) inside a
// task_arena of options.threads, within options' time limit, and measures the
// result. Precondition: valid options (MapperOptions::Validate; CheckSolveOptions,
// core/solve/solve.h, checks them for a request). InvalidArgument for a bad input
// (ValidateBalanceInput: direct callers build their own), the congestion objective
// (the balanced solve minimises hop-bytes) or hop-bytes that could overflow;
// NotFound for an unknown algorithm. control.initial is not used (the current
// placement is input.current_slot).
absl::StatusOr<MappingReport> SolveBalancedMapping(const BalanceInput& input,
                                                   absl::string_view algorithm,
                                                   const MapperOptions& options,
                                                   const BalanceOptions& balance,
                                                   const SolveControl& control = {});

// Measures a given placement (any number of objects per slot, every slot in
// range) against input's loads, current placement and balance options.
absl::StatusOr<MappingReport> EvaluateBalancedMapping(const BalanceInput& input,
                                                      std::vector<SlotId> slot_of_task,
                                                      const BalanceOptions& balance,
                                                      Routing routing, int threads = 0);

}  // namespace hopmap

#endif  // HOPMAP_CORE_SOLVE_SOLVE_BALANCED_H_
