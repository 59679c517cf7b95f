// Shared pieces of the regular-pattern mappers (seeds 000, 002, 003): the task grid
// of a near-neighbour pattern, the box of machine nodes an allocation covers, and
// the T dimension (a node's cores take a compact block of the grid).
#ifndef HOPMAP_CORE_MAPPERS_GRID_GRID_H_
#define HOPMAP_CORE_MAPPERS_GRID_GRID_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/mappers/mapper.h"

namespace hopmap {

// task = c0 + D0*(c1 + D1*(c2 + ...)): the first dim fastest.
struct TaskGrid {
  std::vector<int32_t> dims;
  bool wrap = false;
  [[nodiscard]] int64_t size() const;
  void Coordinates(int64_t task, std::span<int32_t> out) const;
  [[nodiscard]] int64_t IndexOf(std::span<const int32_t> coords) const;
};

// The grid of the input's near-neighbour pattern (input.pattern, or the analyzer's
// answer) covering every task. FailedPrecondition naming `mapper` otherwise.
absl::StatusOr<TaskGrid> TaskGridOf(const MapInput& input, absl::string_view mapper);

// The allocated nodes as a complete box of a machine with coordinates.
struct MachineBox {
  std::vector<int32_t> dims;  // extent per machine dim
  // A box dim wraps when it spans a whole wrapping machine dim (torus links close it).
  std::vector<bool> wrap;
  // position_at[IndexOf(box coords)] = allocation position of that node.
  std::vector<int32_t> position_at;
  [[nodiscard]] int64_t size() const;
  [[nodiscard]] int64_t IndexOf(std::span<const int32_t> coords) const;
  [[nodiscard]] int32_t PositionAt(std::span<const int32_t> coords) const {
    return position_at[IndexOf(coords)];
  }
};

// FailedPrecondition naming `mapper` unless the machine has coordinates and the
// allocated nodes are exactly the nodes of one box (in any order). Wrap is read
// from the machine's kind: tori wrap, meshes and other kinds do not.
absl::StatusOr<MachineBox> BoxOf(const Allocation& allocation, absl::string_view mapper);

// The T dimension: splits the grid into equal blocks of at most `cores` tasks, as
// compact as possible (near-cubic), each block dim dividing the grid dim. Returns
// the coarse grid (one cell per node) and the block dims. Prefers exactly `cores`
// tasks per block; takes fewer when `cores` does not split the grid evenly.
struct CoarseGrid {
  TaskGrid cells;
  std::vector<int32_t> block;
};
CoarseGrid CoarsenByCores(const TaskGrid& grid, int32_t cores);

// slot_of_task from a mapping of coarse cells to allocation positions: the tasks of
// a cell go to that node's cores 0, 1, ... in grid order.
std::vector<SlotId> ExpandCoarseMapping(const TaskGrid& grid, const CoarseGrid& coarse,
                                        std::span<const int32_t> position_of_cell,
                                        int32_t cores_per_node);

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_GRID_GRID_H_
