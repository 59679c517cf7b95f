// Placement: a mapping being improved in place, with its inverse and the exact
// hop-bytes change of exchanging two slots' occupants. The kernel every local search
// (refine, grasp, mahd, ohtma, hybrid) shares.
#ifndef HOPMAP_CORE_SEARCH_PLACEMENT_H_
#define HOPMAP_CORE_SEARCH_PLACEMENT_H_

#include <vector>

#include "core/graph/task_graph.h"
#include "core/topology/allocation.h"
#include "core/types.h"

namespace hopmap {

inline constexpr TaskId kNoTask = -1;

// The exchange kernel's one delta: what task's edges (other than to `ignore`) would
// cost more with the task on allocation position `to` than on `from`, its
// neighbours staying at position_of_task. One pass over its neighbours. Placement
// (one task per slot) and BalancedPlacement (many objects per slot) both use it.
inline HopBytes MoveDeltaAt(const TaskGraph& graph, const Allocation& allocation,
                            const int32_t* position_of_task, TaskId task, int32_t from, int32_t to,
                            TaskId ignore = kNoTask) {
  HopBytes delta = 0;
  graph.ForEachNeighbor(task, [&](TaskId u, Bytes w) {
    if (u == ignore) return;
    const int32_t at = position_of_task[u];
    delta +=
        w * (allocation.HopsBetweenPositions(to, at) - allocation.HopsBetweenPositions(from, at));
  });
  return delta;
}

// Slots may outnumber tasks: a slot without a task is empty, and moving a task to
// an empty slot is an exchange with nobody. Tasks on one node are 0 hops apart, so
// exchanging two tasks of one node changes nothing. Cost of an exchange is O(deg)
// of the two tasks; the graph and allocation must outlive the placement.
class Placement {
 public:
  // `slot_of_task` must be a valid mapping (ValidateMapping) of `graph` onto
  // `allocation`. Computes hop-bytes once (parallel).
  Placement(const TaskGraph& graph, const Allocation& allocation, std::vector<SlotId> slot_of_task);

  [[nodiscard]] const TaskGraph& graph() const { return *graph_; }
  [[nodiscard]] const Allocation& allocation() const { return *allocation_; }
  [[nodiscard]] const std::vector<SlotId>& slot_of_task() const { return slot_of_task_; }
  [[nodiscard]] SlotId slot_of(TaskId task) const { return slot_of_task_[task]; }
  // The allocation position (node) of a task's slot, kept so the searches divide
  // by cores_per_node once per exchange instead of once per hop lookup.
  [[nodiscard]] int32_t position_of(TaskId task) const { return position_of_task_[task]; }
  // kNoTask for an empty slot.
  [[nodiscard]] TaskId task_at(SlotId slot) const { return task_of_slot_[slot]; }
  [[nodiscard]] int64_t num_slots() const { return static_cast<int64_t>(task_of_slot_.size()); }
  // Hop-bytes of the current mapping, kept exact through every exchange.
  [[nodiscard]] HopBytes hop_bytes() const { return hop_bytes_; }

  [[nodiscard]] int32_t Hops(SlotId a, SlotId b) const {
    return allocation_->HopsBetweenSlots(a, b);
  }
  [[nodiscard]] int32_t HopsBetweenPositions(int32_t a, int32_t b) const {
    return allocation_->HopsBetweenPositions(a, b);
  }
  // Sum of w(task, u) * hops(position, position of u) over task's neighbours u other
  // than `ignore`: what task's edges would cost if it sat on `position` (every core
  // of a node costs the same).
  [[nodiscard]] HopBytes CostAtPosition(TaskId task, int32_t position,
                                        TaskId ignore = kNoTask) const;
  // What task's edges (other than to `ignore`) would cost more on position `to`
  // than on `from`: one pass over its neighbours.
  [[nodiscard]] HopBytes MoveDelta(TaskId task, int32_t from, int32_t to,
                                   TaskId ignore = kNoTask) const;
  // Hop-bytes change if the occupants of slots a and b are exchanged (either may be
  // empty; a == b gives 0). Negative is an improvement.
  [[nodiscard]] HopBytes SwapDelta(SlotId a, SlotId b) const;
  // Exchanges the occupants of a and b; `delta` must be SwapDelta(a, b).
  void SwapSlots(SlotId a, SlotId b, HopBytes delta);

  // An applied exchange, as a journal records it.
  struct Exchange {
    SlotId a;
    SlotId b;
    HopBytes delta;
  };
  // While set, every SwapSlots appends to `journal`, so that a search step that
  // did not pay can be undone in O(its exchanges) instead of O(tasks); null: none.
  void set_journal(std::vector<Exchange>* journal) { journal_ = journal; }
  // Undoes the journal's exchanges, newest first, and clears it.
  void Undo(std::vector<Exchange>& journal);

  // The mapping, leaving the placement empty.
  std::vector<SlotId> Release() &&;

 private:
  const TaskGraph* graph_;
  const Allocation* allocation_;
  std::vector<SlotId> slot_of_task_;
  std::vector<TaskId> task_of_slot_;
  std::vector<int32_t> position_of_task_;
  HopBytes hop_bytes_ = 0;
  std::vector<Exchange>* journal_ = nullptr;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_SEARCH_PLACEMENT_H_
