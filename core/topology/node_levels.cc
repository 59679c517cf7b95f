#include "core/topology/node_levels.h"

#include <memory>
#include <utility>

#include "core/topology/hierarchy.h"

namespace hopmap {

std::optional<Allocation> NodeLevelsAsAllocation(const NodeInterior& interior) {
  absl::StatusOr<HierarchyMachine> levels =
      HierarchyMachine::Create(interior.arities(), interior.distances());
  if (!levels.ok()) return std::nullopt;
  absl::StatusOr<Allocation> pes =
      Allocation::WholeMachine(std::make_shared<HierarchyMachine>(*std::move(levels)));
  if (!pes.ok()) return std::nullopt;
  return *std::move(pes);
}

}  // namespace hopmap
