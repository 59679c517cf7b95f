#include "core/mappers/baseline/axis_order.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "core/metrics/hop_bytes.h"
#include "core/metrics/link_loads.h"

namespace hopmap {
namespace {

// Coordinates of every allocated position; machines without coordinates get one
// pseudo-dimension, the position itself.
std::vector<std::vector<int32_t>> PositionCoordinates(const Allocation& allocation) {
  const Machine& machine = allocation.machine();
  const size_t ndims = machine.dims().size();
  std::vector<std::vector<int32_t>> coords(allocation.num_nodes());
  for (int32_t p = 0; p < allocation.num_nodes(); ++p) {
    if (ndims == 0) {
      coords[p] = {p};
    } else {
      coords[p].resize(ndims);
      machine.Coordinates(allocation.node_at(p), coords[p]);
    }
  }
  return coords;
}

std::vector<std::string> AxisNames(const Allocation& allocation) {
  std::vector<std::string> names = {"T"};
  std::vector<std::string> dims = allocation.machine().dim_names();
  if (dims.empty()) dims = {"N"};
  names.insert(names.end(), dims.begin(), dims.end());
  return names;
}

std::vector<SlotId> SlotsFromCoordinates(const Allocation& allocation,
                                         const std::vector<std::vector<int32_t>>& coords,
                                         const std::vector<int>& order) {
  // Split the order at T: dims before it vary faster than the core, dims after it slower.
  const auto t_at = std::find(order.begin(), order.end(), 0);
  std::vector<int> faster(order.begin(), t_at), slower(t_at + 1, order.end());
  // Most significant first: slower dims from slowest, then faster dims from slowest.
  std::vector<int> key_dims(slower.rbegin(), slower.rend());
  key_dims.insert(key_dims.end(), faster.rbegin(), faster.rend());
  std::vector<int32_t> positions(allocation.num_nodes());
  std::iota(positions.begin(), positions.end(), 0);
  std::stable_sort(positions.begin(), positions.end(), [&](int32_t a, int32_t b) {
    for (int d : key_dims) {
      if (coords[a][d - 1] != coords[b][d - 1]) return coords[a][d - 1] < coords[b][d - 1];
    }
    return false;
  });
  auto same_slow_key = [&](int32_t a, int32_t b) {
    for (int d : slower) {
      if (coords[a][d - 1] != coords[b][d - 1]) return false;
    }
    return true;
  };
  const int32_t cores = allocation.cores_per_node();
  std::vector<SlotId> sequence;
  sequence.reserve(allocation.num_slots());
  for (size_t begin = 0; begin < positions.size();) {
    size_t end = begin + 1;
    while (end < positions.size() && same_slow_key(positions[begin], positions[end])) ++end;
    for (int32_t core = 0; core < cores; ++core) {
      for (size_t i = begin; i < end; ++i) sequence.push_back(positions[i] * cores + core);
    }
    begin = end;
  }
  return sequence;
}

}  // namespace

std::vector<SlotId> AxisOrderSlots(const Allocation& allocation, const std::vector<int>& order) {
  return SlotsFromCoordinates(allocation, PositionCoordinates(allocation), order);
}

std::string AxisOrderName(const Allocation& allocation, const std::vector<int>& order) {
  const std::vector<std::string> names = AxisNames(allocation);
  std::string name;
  for (int axis : order) absl::StrAppend(&name, names[axis]);
  return name;
}

absl::StatusOr<MapOutput> AxisOrderMapper::Map(const MapInput& input) const {
  if (absl::Status s = CheckFits(input.graph, input.allocation); !s.ok()) return s;
  const Allocation& allocation = input.allocation;
  const auto coords = PositionCoordinates(allocation);
  const int axes = static_cast<int>(AxisNames(allocation).size());
  std::vector<int> order(axes);
  std::iota(order.begin(), order.end(), 0);
  const bool congestion = input.options.objective == Objective::kCongestion;

  MapOutput best;
  double best_load = 0;
  HopBytes best_hop_bytes = 0;
  do {
    // With one core per node T's place changes nothing: the orders with T first (the
    // first in this sequence, so they win the ties) are every distinct sequence.
    if (allocation.cores_per_node() == 1 && order.front() != 0) break;
    std::vector<SlotId> slots = SlotsFromCoordinates(allocation, coords, order);
    slots.resize(input.graph.num_tasks());
    const HopBytes hop_bytes = ComputeHopBytes(input.graph, allocation, slots);
    double load = 0;
    if (congestion) {
      load = ComputeLinkLoads(input.graph, allocation, slots, input.options.routing).max_load;
    }
    const bool better =
        best.slot_of_task.empty() ||
        (congestion ? (load < best_load || (load == best_load && hop_bytes < best_hop_bytes))
                    : hop_bytes < best_hop_bytes);
    if (better) {
      best.slot_of_task = std::move(slots);
      best.variant = AxisOrderName(allocation, order);
      best_hop_bytes = hop_bytes;
      best_load = load;
    }
    if (input.stop.ShouldStop()) break;
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

}  // namespace hopmap
