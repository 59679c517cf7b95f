#include "core/mappers/baseline/baselines.h"

#include <numeric>

#include "absl/strings/str_cat.h"
#include "core/search/random_stream.h"

namespace hopmap {

absl::StatusOr<MapOutput> InOrderMapper::Map(const MapInput& input) const {
  if (absl::Status s = CheckFits(input.graph, input.allocation); !s.ok()) return s;
  MapOutput out;
  out.slot_of_task.resize(input.graph.num_tasks());
  std::iota(out.slot_of_task.begin(), out.slot_of_task.end(), 0);
  return out;
}

absl::StatusOr<MapOutput> RoundRobinMapper::Map(const MapInput& input) const {
  if (absl::Status s = CheckFits(input.graph, input.allocation); !s.ok()) return s;
  const int64_t m = input.allocation.num_nodes();
  const int64_t cores = input.allocation.cores_per_node();
  MapOutput out;
  out.slot_of_task.resize(input.graph.num_tasks());
  for (int64_t t = 0; t < input.graph.num_tasks(); ++t) {
    out.slot_of_task[t] = static_cast<SlotId>((t % m) * cores + t / m);
  }
  return out;
}

absl::StatusOr<MapOutput> RandomMapper::Map(const MapInput& input) const {
  if (absl::Status s = CheckFits(input.graph, input.allocation); !s.ok()) return s;
  std::vector<SlotId> slots(input.allocation.num_slots());
  std::iota(slots.begin(), slots.end(), 0);
  RandomStream random(input.options.seed, /*work_item=*/0);
  random.Shuffle(std::span<SlotId>(slots));
  slots.resize(input.graph.num_tasks());
  MapOutput out;
  out.slot_of_task = std::move(slots);
  return out;
}

}  // namespace hopmap
