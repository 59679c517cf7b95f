// Allocation: the ordered machine nodes a job was given, and cores per node.
#ifndef HOPMAP_CORE_TOPOLOGY_ALLOCATION_H_
#define HOPMAP_CORE_TOPOLOGY_ALLOCATION_H_

#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "core/topology/machine.h"
#include "core/types.h"

namespace hopmap {

// slot = position * cores_per_node + core, where position indexes nodes(). The
// allocation may be any subset of the machine, in any order (fragmented, as real
// schedulers give it). Small allocations keep a dense hop matrix over their
// positions; larger ones on a torus or mesh keep each position's coordinates (the
// local searches ask for hops billions of times: no virtual call, no division);
// the others ask the machine model.
class Allocation {
 public:
  // Allocations up to this many nodes keep a dense position x position hop matrix.
  static constexpr int32_t kDefaultDenseLimit = 2048;

  // Fails on an empty list, a node outside the machine, a vacant node
  // (Machine::IsVacant), a node listed twice, or cores_per_node < 1.
  static absl::StatusOr<Allocation> Create(std::shared_ptr<const Machine> machine,
                                           std::vector<NodeId> nodes, int32_t cores_per_node,
                                           int32_t dense_limit = kDefaultDenseLimit);
  // Every node of the machine in id order (but the vacant ones), with the machine's
  // cores per node.
  static absl::StatusOr<Allocation> WholeMachine(std::shared_ptr<const Machine> machine);

  [[nodiscard]] const Machine& machine() const { return *machine_; }
  [[nodiscard]] const std::shared_ptr<const Machine>& shared_machine() const { return machine_; }
  [[nodiscard]] int32_t num_nodes() const { return static_cast<int32_t>(nodes_.size()); }
  [[nodiscard]] int32_t cores_per_node() const { return cores_; }
  [[nodiscard]] int64_t num_slots() const { return static_cast<int64_t>(nodes_.size()) * cores_; }
  [[nodiscard]] const std::vector<NodeId>& nodes() const { return nodes_; }
  [[nodiscard]] NodeId node_at(int32_t position) const { return nodes_[position]; }

  [[nodiscard]] int32_t PositionOfSlot(SlotId slot) const { return slot / cores_; }
  [[nodiscard]] int32_t CoreOfSlot(SlotId slot) const { return slot % cores_; }
  [[nodiscard]] NodeId NodeOfSlot(SlotId slot) const { return nodes_[slot / cores_]; }

  // Hops between the nodes at two positions (0 for the same position).
  [[nodiscard]] int32_t HopsBetweenPositions(int32_t a, int32_t b) const {
    if (!dense_.empty()) return dense_[static_cast<size_t>(a) * nodes_.size() + b];
    if (grid_dims_ > 0) return GridHops(a, b);
    return machine_->Hops(nodes_[a], nodes_[b]);
  }
  [[nodiscard]] int32_t HopsBetweenSlots(SlotId a, SlotId b) const {
    return HopsBetweenPositions(a / cores_, b / cores_);
  }
  [[nodiscard]] bool has_dense_hops() const { return !dense_.empty(); }
  // Whether hops come from cached torus/mesh coordinates (no dense matrix, a
  // TorusMachine); equal to machine().Hops either way.
  [[nodiscard]] bool has_grid_hops() const { return grid_dims_ > 0; }

  // For h = 0..diameter, an upper bound on how many allocated nodes lie within h
  // hops of any one allocated node: exact (max over positions) with a dense hop
  // matrix, else the machine's ball sizes capped by the allocation's size.
  // Computed once in Create (the lower bound needs it on every solve).
  [[nodiscard]] const std::vector<int64_t>& ball_sizes() const { return ball_sizes_; }

 private:
  std::vector<int64_t> ComputeBallSizes() const;
  // TorusMachine::Hops from the cached coordinates: per dimension min(d, period - d)
  // with d = |difference|, period = size with wrap and 2 * size without (then
  // period - d > d always, so it is |d| as on a mesh).
  [[nodiscard]] int32_t GridHops(int32_t a, int32_t b) const {
    const int32_t* ca = grid_coords_.data() + static_cast<size_t>(a) * grid_dims_;
    const int32_t* cb = grid_coords_.data() + static_cast<size_t>(b) * grid_dims_;
    int32_t hops = 0;
    for (int i = 0; i < grid_dims_; ++i) {
      const int32_t d = ca[i] > cb[i] ? ca[i] - cb[i] : cb[i] - ca[i];
      const int32_t around = grid_period_[i] - d;
      hops += d < around ? d : around;
    }
    return hops;
  }

  std::shared_ptr<const Machine> machine_;
  std::vector<NodeId> nodes_;
  int32_t cores_ = 1;
  std::vector<uint16_t> dense_;  // hops fit: diameters are far below 65535
  // Torus/mesh without a dense matrix: coordinates position-major, grid_dims_ per
  // position, and each dimension's period (see GridHops). grid_dims_ 0: unused.
  int grid_dims_ = 0;
  std::vector<int32_t> grid_coords_;
  std::vector<int32_t> grid_period_;
  std::vector<int64_t> ball_sizes_;
};

// Checks a mapping (slot_of_task[t] for every task t) against the allocation:
// every task placed on a slot in range, no slot used twice (so no node holds
// more tasks than its cores). `num_tasks` is the graph's size.
absl::Status ValidateMapping(const Allocation& allocation, int64_t num_tasks,
                             std::span<const SlotId> slot_of_task);

// Checks a placement of many objects per slot (ValidateMapping's counterpart):
// one slot per object, each in range. InvalidArgument "mapping: object 3 is on
// slot 40, outside slots 0..31".
absl::Status ValidatePlacement(const Allocation& allocation, int64_t num_objects,
                               std::span<const SlotId> slot_of_task);

}  // namespace hopmap

#endif  // HOPMAP_CORE_TOPOLOGY_ALLOCATION_H_
