#include "core/mappers/baseline/axis_order.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>

#include "absl/strings/str_cat.h"
#include "core/metrics/hop_bytes.h"
#include "core/metrics/link_loads.h"

namespace hopmap {
namespace {

// The coordinates of every allocated position, position-major (position p's at
// [p * ndims, (p + 1) * ndims)); machines without coordinates get one
// pseudo-dimension, the position itself.
struct PositionCoordinates {
  explicit PositionCoordinates(const Allocation& allocation)
      : ndims(std::max<int>(1, static_cast<int>(allocation.machine().dims().size()))),
        values(static_cast<size_t>(allocation.num_nodes()) * ndims) {
    const bool pseudo = allocation.machine().dims().empty();
    for (int32_t p = 0; p < allocation.num_nodes(); ++p) {
      std::span<int32_t> out(values.data() + static_cast<size_t>(p) * ndims, ndims);
      if (pseudo) {
        out[0] = p;
      } else {
        allocation.machine().Coordinates(allocation.node_at(p), out);
      }
    }
  }
  int32_t at(int32_t position, int dim) const {
    return values[static_cast<size_t>(position) * ndims + dim];
  }
  int ndims;
  std::vector<int32_t> values;
};

std::vector<std::string> AxisNames(const Allocation& allocation) {
  std::vector<std::string> names = {"T"};
  std::vector<std::string> dims = allocation.machine().dim_names();
  if (dims.empty()) dims = {"N"};
  names.insert(names.end(), dims.begin(), dims.end());
  return names;
}

// Positions sorted by their coordinates along `key_dims` (axis indices, 1 = the
// first dim; most significant first), ties by position: a stable sort. The
// coordinates are packed into one integer key per position when they fit (a million
// positions sort in a tenth of the time of a comparison through the coordinates).
std::vector<int32_t> SortedPositions(const PositionCoordinates& coords,
                                     const std::vector<int>& key_dims) {
  const int32_t n = static_cast<int32_t>(coords.values.size() / coords.ndims);
  std::vector<int32_t> positions(n);
  std::iota(positions.begin(), positions.end(), 0);
  // Mixed radix of the coordinates, then the position in the lowest digits.
  unsigned __int128 span = std::max<int32_t>(n, 1);
  std::vector<uint64_t> radix(key_dims.size());
  bool packs = true;
  for (size_t k = 0; k < key_dims.size() && packs; ++k) {
    int32_t low = 0, high = 0;
    for (int32_t p = 0; p < n; ++p) {
      low = std::min(low, coords.at(p, key_dims[k] - 1));
      high = std::max(high, coords.at(p, key_dims[k] - 1));
    }
    radix[k] = static_cast<uint64_t>(high) + 1;
    span *= radix[k];
    packs = low >= 0 && span <= std::numeric_limits<uint64_t>::max();
  }
  if (!packs) {
    std::stable_sort(positions.begin(), positions.end(), [&](int32_t a, int32_t b) {
      for (int d : key_dims) {
        if (coords.at(a, d - 1) != coords.at(b, d - 1)) {
          return coords.at(a, d - 1) < coords.at(b, d - 1);
        }
      }
      return false;
    });
    return positions;
  }
  std::vector<uint64_t> keys(n);
  for (int32_t p = 0; p < n; ++p) {
    uint64_t key = 0;
    for (size_t k = 0; k < key_dims.size(); ++k) {
      key = key * radix[k] + static_cast<uint64_t>(coords.at(p, key_dims[k] - 1));
    }
    keys[p] = key * static_cast<uint64_t>(n) + static_cast<uint64_t>(p);
  }
  std::sort(keys.begin(), keys.end());
  for (int32_t i = 0; i < n; ++i) positions[i] = static_cast<int32_t>(keys[i] % n);
  return positions;
}

std::vector<SlotId> SlotsFromCoordinates(const Allocation& allocation,
                                         const PositionCoordinates& coords,
                                         const std::vector<int>& order) {
  // Split the order at T: dims before it vary faster than the core, dims after it slower.
  const auto t_at = std::find(order.begin(), order.end(), 0);
  std::vector<int> faster(order.begin(), t_at), slower(t_at + 1, order.end());
  // Most significant first: slower dims from slowest, then faster dims from slowest.
  std::vector<int> key_dims(slower.rbegin(), slower.rend());
  key_dims.insert(key_dims.end(), faster.rbegin(), faster.rend());
  const std::vector<int32_t> positions = SortedPositions(coords, key_dims);
  auto same_slow_key = [&](int32_t a, int32_t b) {
    for (int d : slower) {
      if (coords.at(a, d - 1) != coords.at(b, d - 1)) return false;
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
  const PositionCoordinates coords(allocation);
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
