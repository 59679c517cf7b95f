#include "core/search/placement.h"

#include <utility>

#include "core/metrics/hop_bytes.h"

namespace hopmap {

Placement::Placement(const TaskGraph& graph, const Allocation& allocation,
                     std::vector<SlotId> slot_of_task)
    : graph_(&graph),
      allocation_(&allocation),
      slot_of_task_(std::move(slot_of_task)),
      task_of_slot_(allocation.num_slots(), kNoTask) {
  for (TaskId t = 0; t < static_cast<TaskId>(slot_of_task_.size()); ++t) {
    task_of_slot_[slot_of_task_[t]] = t;
  }
  position_of_task_ = PositionsOfTasks(allocation, slot_of_task_);
  hop_bytes_ = ComputeHopBytesFromPositions(graph, allocation, position_of_task_);
}

HopBytes Placement::CostAtPosition(TaskId task, int32_t position, TaskId ignore) const {
  HopBytes cost = 0;
  graph_->ForEachNeighbor(task, [&](TaskId u, Bytes w) {
    if (u != ignore) cost += w * HopsBetweenPositions(position, position_of_task_[u]);
  });
  return cost;
}

HopBytes Placement::MoveDelta(TaskId task, int32_t from, int32_t to, TaskId ignore) const {
  return MoveDeltaAt(*graph_, *allocation_, position_of_task_.data(), task, from, to, ignore);
}

HopBytes Placement::SwapDelta(SlotId a, SlotId b) const {
  const int32_t pa = allocation_->PositionOfSlot(a);
  const int32_t pb = allocation_->PositionOfSlot(b);
  // Cores of one node are 0 hops apart: exchanging them changes nothing.
  if (pa == pb) return 0;
  const TaskId ta = task_of_slot_[a];
  const TaskId tb = task_of_slot_[b];
  // The edge between ta and tb (if any) keeps its length: hops are symmetric.
  HopBytes delta = 0;
  if (ta != kNoTask) delta += MoveDelta(ta, pa, pb, tb);
  if (tb != kNoTask) delta += MoveDelta(tb, pb, pa, ta);
  return delta;
}

void Placement::SwapSlots(SlotId a, SlotId b, HopBytes delta) {
  const TaskId ta = task_of_slot_[a];
  const TaskId tb = task_of_slot_[b];
  task_of_slot_[a] = tb;
  task_of_slot_[b] = ta;
  if (ta != kNoTask) {
    slot_of_task_[ta] = b;
    position_of_task_[ta] = allocation_->PositionOfSlot(b);
  }
  if (tb != kNoTask) {
    slot_of_task_[tb] = a;
    position_of_task_[tb] = allocation_->PositionOfSlot(a);
  }
  hop_bytes_ += delta;
  if (journal_ != nullptr) journal_->push_back({a, b, delta});
}

void Placement::Undo(std::vector<Exchange>& journal) {
  std::vector<Exchange>* const recording = journal_;
  journal_ = nullptr;
  // An exchange is its own inverse, and undoing it changes hop-bytes by -delta.
  for (auto it = journal.rbegin(); it != journal.rend(); ++it) SwapSlots(it->a, it->b, -it->delta);
  journal.clear();
  journal_ = recording;
}

std::vector<SlotId> Placement::Release() && {
  task_of_slot_.clear();
  position_of_task_.clear();
  return std::move(slot_of_task_);
}

}  // namespace hopmap
