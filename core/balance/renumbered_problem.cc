#include "core/balance/renumbered_problem.h"

#include <utility>

namespace hopmap {
namespace {

// values[old_id[i]] for every i; empty stays empty.
template <typename T>
std::vector<T> Renumbered(std::span<const T> values, std::span<const TaskId> old_id) {
  std::vector<T> out;
  if (values.empty()) return out;
  out.reserve(old_id.size());
  for (TaskId t : old_id) out.push_back(values[t]);
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<RenumberedProblem>> RenumberedProblem::Create(
    const BalanceInput& input, std::vector<TaskId> old_id) {
  if (!input.current_slot.empty()) {
    return absl::InvalidArgumentError("only a problem without a current placement is renumbered");
  }
  absl::StatusOr<TaskGraph> graph = input.graph.Permuted(old_id);
  if (!graph.ok()) return graph.status();
  std::unique_ptr<RenumberedProblem> problem(new RenumberedProblem());
  problem->caller_ = &input;
  problem->graph_ = *std::move(graph);
  problem->loads_ = Renumbered(input.loads, old_id);
  problem->state_bytes_ = Renumbered(input.state_bytes, old_id);
  problem->object_counts_ = Renumbered(input.object_counts, old_id);
  problem->old_id_ = std::move(old_id);
  problem->input_ = std::make_unique<BalanceInput>(BalanceInput{
      .graph = problem->graph_,
      .allocation = input.allocation,
      .loads = problem->loads_,
      .state_bytes = problem->state_bytes_,
      .background_load = input.background_load,
      .object_counts = problem->object_counts_,
  });
  return problem;
}

std::vector<SlotId> RenumberedProblem::ToCaller(std::span<const SlotId> slot_of_task) const {
  std::vector<SlotId> out(slot_of_task.size());
  for (size_t i = 0; i < old_id_.size(); ++i) out[old_id_[i]] = slot_of_task[i];
  return out;
}

std::vector<SlotId> RenumberedProblem::FromCaller(std::span<const SlotId> slot_of_task) const {
  return Renumbered(slot_of_task, old_id_);
}

}  // namespace hopmap
