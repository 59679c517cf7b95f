// BalancedPlacement: a placement of many objects per slot being improved in place,
// with each slot's load, exact hop-bytes (the exchange kernel's MoveDeltaAt), and
// what the objects' moves away from their current slots cost and count.
#ifndef HOPMAP_CORE_BALANCE_BALANCED_PLACEMENT_H_
#define HOPMAP_CORE_BALANCE_BALANCED_PLACEMENT_H_

#include <algorithm>
#include <span>
#include <vector>

#include "core/balance/balance_problem.h"
#include "core/search/placement.h"

namespace hopmap {

class BalancedPlacement {
 public:
  // `slot_of_task`: a slot in range for every object (any number per slot); fixed
  // objects are put back on their current slots. The input (graph, allocation,
  // spans) must outlive the placement.
  BalancedPlacement(const BalanceInput& input, const BalanceOptions& options,
                    std::vector<SlotId> slot_of_task);

  [[nodiscard]] const BalanceInput& input() const { return *input_; }
  [[nodiscard]] const BalanceOptions& options() const { return *options_; }
  [[nodiscard]] const Allocation& allocation() const { return input_->allocation; }
  [[nodiscard]] const TaskGraph& graph() const { return input_->graph; }
  [[nodiscard]] TaskId num_objects() const { return static_cast<TaskId>(slot_of_task_.size()); }
  [[nodiscard]] int64_t num_slots() const { return static_cast<int64_t>(slot_load_.size()); }
  [[nodiscard]] const std::vector<SlotId>& slot_of_task() const { return slot_of_task_; }
  [[nodiscard]] SlotId slot_of(TaskId t) const { return slot_of_task_[t]; }
  [[nodiscard]] int32_t position_of(TaskId t) const { return position_of_task_[t]; }
  [[nodiscard]] double load(TaskId t) const { return load_[t]; }
  // Whether the searches may move t (fixed objects stay).
  [[nodiscard]] bool movable(TaskId t) const { return !IsFixed(*input_, t); }
  // The objects' loads plus the slot's background load.
  [[nodiscard]] double slot_load(SlotId s) const { return slot_load_[s]; }
  // The largest slot_load (O(slots)).
  [[nodiscard]] double max_slot_load() const {
    return slot_load_.empty() ? 0 : *std::max_element(slot_load_.begin(), slot_load_.end());
  }
  [[nodiscard]] std::span<const TaskId> objects_on(SlotId s) const { return members_[s]; }
  [[nodiscard]] HopBytes hop_bytes() const { return hop_bytes_; }

  // What the object's edges (other than to `ignore`) would cost more on position
  // `to` than where it is: the shared exchange kernel.
  [[nodiscard]] HopBytes MoveDelta(TaskId t, int32_t to, TaskId ignore = kNoTask) const {
    return MoveDeltaAt(graph(), allocation(), position_of_task_.data(), t, position_of_task_[t], to,
                       ignore);
  }
  // The least loaded slot of a position (lowest slot id on ties).
  [[nodiscard]] SlotId LeastLoadedSlotAt(int32_t position) const;

  // Migration (all zero without a current placement). An object has migrated when
  // its slot differs from its current one.
  [[nodiscard]] bool has_current() const { return !input_->current_slot.empty(); }
  [[nodiscard]] bool migrated(TaskId t) const {
    return has_current() && slot_of_task_[t] != input_->current_slot[t];
  }
  // Objects migrated (each counted ObjectCountOf times).
  [[nodiscard]] int64_t migrated_objects() const { return migrated_objects_; }
  [[nodiscard]] Bytes migrated_bytes() const { return migrated_bytes_; }
  // Change of the migration term (migration_cost x migrated bytes) if t moved to
  // slot `to`: positive when it starts to count, negative when it goes home.
  [[nodiscard]] double MigrationCostDelta(TaskId t, SlotId to) const;
  // Whether moving t to `to`, and `u` (kNoTask: nobody) to t's slot, keeps the
  // migration limits.
  [[nodiscard]] bool WithinMigrationLimits(TaskId t, SlotId to, TaskId u = kNoTask) const;
  // Whether the placement as it is keeps the migration limits.
  [[nodiscard]] bool MigrationLimitsHold() const {
    return (options_->max_migrations < 0 || migrated_objects_ <= options_->max_migrations) &&
           (options_->max_migration_bytes < 0 || migrated_bytes_ <= options_->max_migration_bytes);
  }
  // hop-bytes + migration_cost x migrated bytes: what the search minimises.
  [[nodiscard]] double objective() const {
    return static_cast<double>(hop_bytes_) +
           options_->migration_cost * static_cast<double>(migrated_bytes_);
  }

  // Moves t to slot `to`; `delta` must be MoveDelta(t, position of `to`).
  void Move(TaskId t, SlotId to, HopBytes delta);
  // Exchanges the slots of t and u; `delta` must be MoveDelta(t, pos(u), u) +
  // MoveDelta(u, pos(t), t).
  void Swap(TaskId t, TaskId u, HopBytes delta);

  std::vector<SlotId> Release() && { return std::move(slot_of_task_); }

 private:
  void Detach(TaskId t);
  void Attach(TaskId t, SlotId s);
  void CountMigration(TaskId t, int sign);

  const BalanceInput* input_;
  const BalanceOptions* options_;
  std::vector<SlotId> slot_of_task_;
  std::vector<int32_t> position_of_task_;
  std::vector<double> load_;
  std::vector<double> slot_load_;
  std::vector<std::vector<TaskId>> members_;
  std::vector<int32_t> index_in_slot_;
  HopBytes hop_bytes_ = 0;
  int64_t migrated_objects_ = 0;
  Bytes migrated_bytes_ = 0;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_BALANCE_BALANCED_PLACEMENT_H_
