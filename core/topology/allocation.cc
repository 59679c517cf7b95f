#include "core/topology/allocation.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "tbb/parallel_for.h"

namespace hopmap {

absl::StatusOr<Allocation> Allocation::Create(std::shared_ptr<const Machine> machine,
                                              std::vector<NodeId> nodes, int32_t cores_per_node,
                                              int32_t dense_limit) {
  if (machine == nullptr) return absl::InvalidArgumentError("allocation: no machine");
  if (nodes.empty()) return absl::InvalidArgumentError("allocation: no nodes");
  if (cores_per_node < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("allocation: cores per node must be >= 1, got ", cores_per_node));
  }
  if (static_cast<int64_t>(nodes.size()) * cores_per_node > kMaxTasks) {
    return absl::InvalidArgumentError(
        absl::StrCat("allocation: ", nodes.size(), " nodes x ", cores_per_node,
                     " cores per node = ", static_cast<int64_t>(nodes.size()) * cores_per_node,
                     " slots, more than hopmap supports (2^31)"));
  }
  const NodeId machine_nodes = machine->num_nodes();
  std::vector<int32_t> position_of(machine_nodes, -1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeId node = nodes[i];
    if (node < 0 || node >= machine_nodes) {
      return absl::InvalidArgumentError(absl::StrCat("allocation: node ", node, " (position ", i,
                                                     ") is outside the machine (0..",
                                                     machine_nodes - 1, ")"));
    }
    if (machine->IsVacant(node)) {
      return absl::InvalidArgumentError(
          absl::StrCat("allocation: node ", node, " (", machine->NodeName(node),
                       ") is a cell without a host: no job can be given it"));
    }
    if (position_of[node] >= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("allocation: node ", node, " (", machine->NodeName(node),
                       ") is listed twice, at positions ", position_of[node], " and ", i));
    }
    position_of[node] = static_cast<int32_t>(i);
  }
  Allocation a;
  a.machine_ = std::move(machine);
  a.nodes_ = std::move(nodes);
  a.cores_ = cores_per_node;
  const size_t m = a.nodes_.size();
  if (static_cast<int64_t>(m) <= dense_limit && a.machine_->max_hops() < 65535) {
    a.dense_.resize(m * m);
    tbb::parallel_for(size_t{0}, m, [&](size_t i) {
      for (size_t j = 0; j < m; ++j) {
        a.dense_[i * m + j] = static_cast<uint16_t>(a.machine_->Hops(a.nodes_[i], a.nodes_[j]));
      }
    });
  }
  const GridGeometry* grid = a.machine_->grid_geometry();
  if (a.dense_.empty() && grid != nullptr) {
    const std::vector<int32_t>& dims = grid->dims;
    const int nd = static_cast<int>(dims.size());
    a.grid_period_.resize(nd);
    for (int i = 0; i < nd; ++i) a.grid_period_[i] = grid->wrap[i] ? dims[i] : 2 * dims[i];
    a.grid_coords_.resize(m * nd);
    tbb::parallel_for(size_t{0}, m, [&](size_t p) {
      a.machine_->Coordinates(a.nodes_[p], std::span<int32_t>(a.grid_coords_.data() + p * nd, nd));
    });
    a.grid_dims_ = nd;
  }
  a.ball_sizes_ = a.ComputeBallSizes();
  return a;
}

std::vector<int64_t> Allocation::ComputeBallSizes() const {
  const int32_t m = num_nodes();
  const int32_t diameter = machine_->max_hops();
  std::vector<int64_t> balls(diameter + 1, 0);
  if (has_dense_hops()) {
    std::vector<int64_t> counts(diameter + 1);
    for (int32_t a = 0; a < m; ++a) {
      std::fill(counts.begin(), counts.end(), 0);
      for (int32_t b = 0; b < m; ++b) ++counts[HopsBetweenPositions(a, b)];
      int64_t running = 0;
      for (int32_t h = 0; h <= diameter; ++h) {
        running += counts[h];
        balls[h] = std::max(balls[h], running);
      }
    }
    return balls;
  }
  const std::vector<int64_t> machine_balls = machine_->BallSizeUpperBounds();
  for (int32_t h = 0; h <= diameter; ++h) {
    const int64_t bound = h < static_cast<int32_t>(machine_balls.size()) ? machine_balls[h] : m;
    balls[h] = std::min<int64_t>(bound, m);
  }
  return balls;
}

absl::StatusOr<Allocation> Allocation::WholeMachine(std::shared_ptr<const Machine> machine) {
  if (machine == nullptr) return absl::InvalidArgumentError("allocation: no machine");
  std::vector<NodeId> nodes = machine->AllocatableNodes();
  const int32_t cores = machine->cores_per_node();
  return Create(std::move(machine), std::move(nodes), cores);
}

absl::Status ValidateMapping(const Allocation& allocation, int64_t num_tasks,
                             std::span<const SlotId> slot_of_task) {
  if (static_cast<int64_t>(slot_of_task.size()) != num_tasks) {
    return absl::InvalidArgumentError(absl::StrCat(
        "mapping: has ", slot_of_task.size(), " entries but the graph has ", num_tasks, " tasks"));
  }
  const int64_t slots = allocation.num_slots();
  std::vector<TaskId> task_on_slot(slots, kInvalidTask);
  for (size_t t = 0; t < slot_of_task.size(); ++t) {
    const SlotId slot = slot_of_task[t];
    if (slot < 0 || slot >= slots) {
      return absl::InvalidArgumentError(absl::StrCat("mapping: task ", t, " is on slot ", slot,
                                                     ", outside the allocation's slots 0..",
                                                     slots - 1));
    }
    if (task_on_slot[slot] != kInvalidTask) {
      return absl::InvalidArgumentError(absl::StrCat("mapping: tasks ", task_on_slot[slot], " and ",
                                                     t, " are both on slot ", slot));
    }
    task_on_slot[slot] = static_cast<TaskId>(t);
  }
  return absl::OkStatus();
}

absl::Status ValidatePlacement(const Allocation& allocation, int64_t num_objects,
                               std::span<const SlotId> slot_of_task) {
  if (static_cast<int64_t>(slot_of_task.size()) != num_objects) {
    return absl::InvalidArgumentError(
        absl::StrCat("mapping: ", slot_of_task.size(), " entries for ", num_objects, " objects"));
  }
  for (size_t t = 0; t < slot_of_task.size(); ++t) {
    if (slot_of_task[t] < 0 || slot_of_task[t] >= allocation.num_slots()) {
      return absl::InvalidArgumentError(absl::StrCat("mapping: object ", t, " is on slot ",
                                                     slot_of_task[t], ", outside slots 0..",
                                                     allocation.num_slots() - 1));
    }
  }
  return absl::OkStatus();
}

}  // namespace hopmap
