// A balanced problem with its objects renumbered, so a balancer can solve it in an
// order of its choosing (CanonicalOrder: the same answer however the caller
// numbered the objects) and hand back the caller's numbering.
#ifndef HOPMAP_CORE_BALANCE_RENUMBERED_PROBLEM_H_
#define HOPMAP_CORE_BALANCE_RENUMBERED_PROBLEM_H_

#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "core/balance/balance_problem.h"
#include "core/graph/task_graph.h"
#include "core/types.h"

namespace hopmap {

class RenumberedProblem {
 public:
  // Object i of the result is object old_id[i] of `input` (every object once). A
  // problem from scratch only: `input` has no current placement.
  static absl::StatusOr<std::unique_ptr<RenumberedProblem>> Create(const BalanceInput& input,
                                                                   std::vector<TaskId> old_id);
  [[nodiscard]] const BalanceInput& input() const { return *input_; }
  // The problem as the caller numbered it (Create's `input`, which must outlive this).
  [[nodiscard]] const BalanceInput& caller() const { return *caller_; }
  // A placement of the renumbered objects as a placement of the caller's.
  [[nodiscard]] std::vector<SlotId> ToCaller(std::span<const SlotId> slot_of_task) const;
  // A placement of the caller's objects as one of the renumbered.
  [[nodiscard]] std::vector<SlotId> FromCaller(std::span<const SlotId> slot_of_task) const;

 private:
  RenumberedProblem() = default;
  const BalanceInput* caller_ = nullptr;
  std::vector<TaskId> old_id_;
  TaskGraph graph_;
  std::vector<double> loads_;
  std::vector<Bytes> state_bytes_;
  std::vector<int64_t> object_counts_;
  std::unique_ptr<BalanceInput> input_;  // views of the above and the caller's allocation
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_BALANCE_RENUMBERED_PROBLEM_H_
