#include "core/mappers/construct/rec_bisect.h"

namespace hopmap {

absl::StatusOr<MapOutput> RecursiveBisectionMapper::Map(const MapInput& input) const {
  if (absl::Status s = CheckFits(input.graph, input.allocation); !s.ok()) return s;
  if (absl::Status s = options_.Validate(); !s.ok()) return s;
  Bisection bisection = RecursiveBisection(
      {.graph = input.graph, .allocation = input.allocation, .seed = input.options.seed}, options_,
      input.stop);
  MapOutput out;
  out.slot_of_task = std::move(bisection.slot_of_task);
  // Stopped: the sets not yet split were laid on their nodes in split order.
  out.stats = {{"stopped_early", bisection.stopped ? 1.0 : 0.0}};
  return out;
}

}  // namespace hopmap
