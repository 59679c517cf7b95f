#include "core/balance/balanced_placement.h"

#include <utility>

#include "core/metrics/hop_bytes.h"

namespace hopmap {

BalancedPlacement::BalancedPlacement(const BalanceInput& input, const BalanceOptions& options,
                                     std::vector<SlotId> slot_of_task)
    : input_(&input),
      options_(&options),
      slot_of_task_(std::move(slot_of_task)),
      load_(LoadsOf(input)),
      slot_load_(input.allocation.num_slots(), 0.0),
      members_(input.allocation.num_slots()),
      index_in_slot_(slot_of_task_.size(), 0) {
  PinFixedObjects(input, slot_of_task_);
  for (SlotId s = 0; s < num_slots(); ++s) slot_load_[s] = BackgroundLoadOf(input, s);
  for (TaskId t = 0; t < num_objects(); ++t) {
    Attach(t, slot_of_task_[t]);
    CountMigration(t, +1);
  }
  position_of_task_ = PositionsOfTasks(input.allocation, slot_of_task_);
  hop_bytes_ = ComputeHopBytesFromPositions(input.graph, input.allocation, position_of_task_);
}

SlotId BalancedPlacement::LeastLoadedSlotAt(int32_t position) const {
  const int32_t cores = allocation().cores_per_node();
  SlotId best = position * cores;
  for (SlotId s = best + 1; s < (position + 1) * cores; ++s) {
    if (slot_load_[s] < slot_load_[best]) best = s;
  }
  return best;
}

double BalancedPlacement::MigrationCostDelta(TaskId t, SlotId to) const {
  if (!has_current() || options_->migration_cost == 0) return 0;
  const SlotId home = input_->current_slot[t];
  const bool now = slot_of_task_[t] != home;
  const bool then = to != home;
  if (now == then) return 0;
  const double cost = options_->migration_cost * static_cast<double>(StateBytesOf(*input_, t));
  return then ? cost : -cost;
}

bool BalancedPlacement::WithinMigrationLimits(TaskId t, SlotId to, TaskId u) const {
  if (!has_current()) return true;
  int64_t objects = migrated_objects_;
  Bytes bytes = migrated_bytes_;
  auto account = [&](TaskId x, SlotId x_to) {
    const SlotId home = input_->current_slot[x];
    const int sign = (x_to != home ? 1 : 0) - (slot_of_task_[x] != home ? 1 : 0);
    objects += sign * ObjectCountOf(*input_, x);
    bytes += sign * StateBytesOf(*input_, x);
  };
  const SlotId from = slot_of_task_[t];
  account(t, to);
  if (u != kNoTask) account(u, from);
  // A step that does not add to a count is always allowed: it cannot make a
  // placement over the limit worse.
  if (options_->max_migrations >= 0 && objects > options_->max_migrations &&
      objects > migrated_objects_) {
    return false;
  }
  if (options_->max_migration_bytes >= 0 && bytes > options_->max_migration_bytes &&
      bytes > migrated_bytes_) {
    return false;
  }
  return true;
}

void BalancedPlacement::Detach(TaskId t) {
  const SlotId s = slot_of_task_[t];
  std::vector<TaskId>& list = members_[s];
  const int32_t i = index_in_slot_[t];
  list[i] = list.back();
  index_in_slot_[list[i]] = i;
  list.pop_back();
  slot_load_[s] -= load_[t];
}

void BalancedPlacement::Attach(TaskId t, SlotId s) {
  slot_of_task_[t] = s;
  index_in_slot_[t] = static_cast<int32_t>(members_[s].size());
  members_[s].push_back(t);
  slot_load_[s] += load_[t];
}

void BalancedPlacement::CountMigration(TaskId t, int sign) {
  if (!migrated(t)) return;
  migrated_objects_ += sign * ObjectCountOf(*input_, t);
  migrated_bytes_ += sign * StateBytesOf(*input_, t);
}

void BalancedPlacement::Move(TaskId t, SlotId to, HopBytes delta) {
  CountMigration(t, -1);
  Detach(t);
  Attach(t, to);
  position_of_task_[t] = allocation().PositionOfSlot(to);
  CountMigration(t, +1);
  hop_bytes_ += delta;
}

void BalancedPlacement::Swap(TaskId t, TaskId u, HopBytes delta) {
  const SlotId st = slot_of_task_[t];
  const SlotId su = slot_of_task_[u];
  CountMigration(t, -1);
  CountMigration(u, -1);
  Detach(t);
  Detach(u);
  Attach(t, su);
  Attach(u, st);
  position_of_task_[t] = allocation().PositionOfSlot(su);
  position_of_task_[u] = allocation().PositionOfSlot(st);
  CountMigration(t, +1);
  CountMigration(u, +1);
  hop_bytes_ += delta;
}

}  // namespace hopmap
