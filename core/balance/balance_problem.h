// The runtime-remapping problem: many migratable objects per slot, each with a
// compute load, a load-balance constraint, and optionally a current placement with
// a migration limit or a migration cost (docs/algorithms.md, "Load balancing").
#ifndef HOPMAP_CORE_BALANCE_BALANCE_PROBLEM_H_
#define HOPMAP_CORE_BALANCE_BALANCE_PROBLEM_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/graph/task_graph.h"
#include "core/topology/allocation.h"
#include "core/types.h"

namespace hopmap {

// Objects are the graph's tasks. Spans may be empty (see each); when not, they
// have one entry per object. The data must outlive the solve.
struct BalanceInput {
  const TaskGraph& graph;
  const Allocation& allocation;
  // Compute load of every object (any non-negative number); empty: every load is 1.
  std::span<const double> loads = {};
  // The slot every object is on now; empty: no current placement.
  std::span<const SlotId> current_slot = {};
  // Bytes of every object's state (what a migration moves); empty: 1 per object,
  // so the byte limit and the cost count objects.
  std::span<const Bytes> state_bytes = {};
  // Objects that stay on their current slot whatever the balance (a runtime's
  // non-migratable objects): true for those; empty: every object may move. Needs
  // current_slot.
  std::span<const bool> fixed = {};
  // Load every slot carries besides the objects (a runtime's background work: other
  // processes, its own threads); empty: none. Counts in the slot loads and the
  // average like objects' loads, and never moves.
  std::span<const double> background_load = {};
  // How many of the caller's objects each object stands for (a cluster of a
  // coarse problem, MultilevelRefine); empty: 1 each. The migration limit on
  // objects counts these.
  std::span<const int64_t> object_counts = {};
};

struct BalanceOptions {
  // Beyond this a slot may hold a thousand times the average: no balance is left to
  // keep, and larger values only overflow the weights the solvers derive from it.
  static constexpr double kMaxImbalance = 1000;
  // Every slot's load must stay <= (1 + imbalance) x the average slot load, rounded
  // up to a whole load when every load is whole (ComputeLoadCap).
  double imbalance = 0.05;
  // With a current placement: at most this many objects change slot (-1: no limit).
  int64_t max_migrations = -1;
  // With a current placement: at most this many bytes of state move (-1: no limit).
  int64_t max_migration_bytes = -1;
  // With a current placement: each migrated byte of state costs this many
  // hop-bytes; the search minimises hop-bytes + migration_cost x migrated bytes.
  double migration_cost = 0;
  absl::Status Validate() const;
  // Whether migrations are limited or charged (then from-scratch placements,
  // which move almost every object, are not what the caller wants).
  [[nodiscard]] bool restricts_migration() const {
    return max_migrations >= 0 || max_migration_bytes >= 0 || migration_cost > 0;
  }
};

// Checks the spans' sizes and values against the graph and the allocation:
// InvalidArgument naming the field and the first bad object ("loads: object 3 has
// load -1; loads must be >= 0"). Also refuses a migration limit or cost without a
// current placement.
absl::Status ValidateBalanceInput(const BalanceInput& input, const BalanceOptions& options);

// The load of object t (1 when input.loads is empty).
inline double LoadOf(const BalanceInput& input, TaskId t) {
  return input.loads.empty() ? 1.0 : input.loads[t];
}
inline Bytes StateBytesOf(const BalanceInput& input, TaskId t) {
  return input.state_bytes.empty() ? 1 : input.state_bytes[t];
}
inline int64_t ObjectCountOf(const BalanceInput& input, TaskId t) {
  return input.object_counts.empty() ? 1 : input.object_counts[t];
}
inline bool IsFixed(const BalanceInput& input, TaskId t) {
  return !input.fixed.empty() && input.fixed[t];
}
inline double BackgroundLoadOf(const BalanceInput& input, SlotId s) {
  return input.background_load.empty() ? 0.0 : input.background_load[s];
}
// Whether any object is fixed.
bool HasFixedObjects(const BalanceInput& input);
// Puts every fixed object on its current slot (what every balancer's result must
// show; constructions that ignore the pins start from this).
void PinFixedObjects(const BalanceInput& input, std::span<SlotId> slot_of_task);
// Every object's load (1s when input.loads is empty).
std::vector<double> LoadsOf(const BalanceInput& input);

// The load every slot carries under slot_of_task (with its background load).
std::vector<double> SlotLoads(const BalanceInput& input, std::span<const SlotId> slot_of_task);

// The load on every slot that no placement moves: its background load plus the
// fixed objects on it.
std::vector<double> FixedSlotLoads(const BalanceInput& input);

// Loads within this of a cap count as meeting it (floating-point sums).
inline double LoadTolerance(double cap) { return 1e-9 * (cap > 1.0 ? cap : 1.0); }

// Whether every object's load and every slot's background load is a whole number
// (true when no loads are given: each is 1).
bool HasWholeLoads(const BalanceInput& input);

// The most a part meant to carry `share` of the load may carry under `imbalance`,
// by the field's rule (Scotch's -b, KaHIP's and SharedMap's -e): with whole loads
// ceil((1 + imbalance) x share), a part holding whole loads only, otherwise
// (1 + imbalance) x share. The ceiling ignores the product's floating-point error
// (up to LoadTolerance): (1 + 0.1) x 50 gives 55, not 56; (1 + 0.03) x 32 gives 33.
double ImbalanceCap(double share, double imbalance, bool whole_loads);

// The cap the solvers aim at: the average slot load under `imbalance`
// (ImbalanceCap: with whole loads ceil((1 + imbalance) x average), as the field
// counts: 2^15 unit objects on 1024 slots within 3% may put 33 on a slot), raised
// to the heaviest object, or to the load a slot carries whatever happens (its
// background plus its fixed objects), when that is higher (then no placement meets
// the first).
struct LoadCap {
  double average = 0;        // total load (objects and background) / slots
  bool whole_loads = false;  // HasWholeLoads: requested is rounded up
  double requested = 0;      // ImbalanceCap(average, imbalance, whole_loads)
  // max(requested, heaviest_placed, fixed_load): the least max slot load any
  // placement can reach, as far as these two bounds see.
  double cap = 0;
  // The heaviest object that may move (kInvalidTask when none may).
  TaskId heaviest = kInvalidTask;
  double heaviest_load = 0;
  // The slot with the most load that cannot leave it (background + fixed objects).
  SlotId fixed_slot = kInvalidSlot;
  double fixed_load = 0;
  // The slot with the least such load: wherever the heaviest object goes, its slot
  // carries at least this besides it.
  SlotId least_fixed_slot = kInvalidSlot;
  double least_fixed_load = 0;
  // heaviest_load + least_fixed_load: what the heaviest object's slot carries at
  // least (0 when no object may move).
  double heaviest_placed = 0;
};
LoadCap ComputeLoadCap(const BalanceInput& input, double imbalance);

}  // namespace hopmap

#endif  // HOPMAP_CORE_BALANCE_BALANCE_PROBLEM_H_
