// stack and fold: grids onto boxes of a torus/mesh by splitting grid dims over box
// dims (seed 000 section VI, Heuristics 1 and 2, generalized to N-D).
#ifndef HOPMAP_CORE_MAPPERS_GRID_FOLD_H_
#define HOPMAP_CORE_MAPPERS_GRID_FOLD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/mappers/grid/grid.h"
#include "core/mappers/mapper.h"

namespace hopmap {

// fold: embeds the coarse task grid (one cell per node, CoarsenByCores) into the
// allocation's box. Every box dim is cut into at most two factors ("parts"), each
// part is given to one grid dim, and a grid dim's parts multiply to its length. A
// grid coordinate walks its parts as a boustrophedon (snake: neighbours stay
// adjacent, the accordion fold of seed 000), or, for periodic grids, as a
// Hamiltonian cycle of its parts' sub-box so the ring closes too; a box dim holding
// two parts codes them as a snake as well (a wrapping box dim of 4 holds 2 x 2 with
// dilation 1). Every such plan is scored by the hops of the grid's axis edges on the
// allocation, and the best one kept (ties: the first enumerated). 2D -> 3D, 3D -> 3D,
// 2D -> 2D and other dimensionalities alike.
//
// Why a 2D grid cannot always reach one hop per edge: if the grid's sides are >= 3
// and the box's sides >= 5 (or it does not wrap), a dilation-1 embedding maps unit
// squares to unit squares, so fold lines are whole grid lines and cannot cross;
// one grid dim then runs straight along one box dim and must fit in it. So
// X x Y onto a x b x c at one hop per byte needs X or Y to equal a box side (e.g.
// 32x16 onto 8x8x8 or 64x64 onto 16x16x16 cannot: no mapping reaches 1.000 there).
class FoldMapper final : public Mapper {
 public:
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;
};

// stack: seed 000's stacking for 2D grids onto a box of >= 3 dims: the longer grid
// dim is cut into as many slabs as the box's smallest dim (> 1) is long; slab k goes
// to plane k of that dim, every slab with the same 2D placement (a translation, the
// base case being the best plan of the 2D subgrid onto the plane).
class StackMapper final : public Mapper {
 public:
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;
};

// One grid dim's walk over its parts.
enum class WalkMode {
  kSnake,       // boustrophedon over the parts, first part fastest
  kCycle,       // Hamiltonian cycle of the parts' sub-box (closes a periodic dim)
  kStackOuter,  // the last part is the slab index (plain); the others snake
};

// A plan: for every box dim its parts (first = fastest in the box coordinate), and
// for every grid dim the (box dim, part index) pairs it walks, fastest first.
struct FoldPlan {
  struct Part {
    int box_dim = 0;
    int32_t size = 1;
    int grid_dim = 0;
  };
  std::vector<std::vector<Part>> box_parts;            // per box dim
  std::vector<std::vector<std::pair<int, int>>> walk;  // per grid dim: (box dim, part)
  std::vector<WalkMode> mode;                          // per grid dim
  [[nodiscard]] std::string Describe(const std::vector<std::string>& box_names) const;
};

// The box coordinates (box.IndexOf order) of every coarse cell under `plan`, as
// box indices, cell = coarse.IndexOf(...). Requires a consistent plan.
std::vector<int64_t> FoldBoxIndexOfCells(const TaskGrid& cells, const std::vector<int32_t>& box,
                                         const FoldPlan& plan);

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_GRID_FOLD_H_
