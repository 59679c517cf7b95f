// Seed 000's 2D grid -> 2D mesh heuristics (section V): MXOVLP, MXOV+AL, EXCO, COCE,
// AFFN, STEP, and PAIRS (pairwise-exchange refinement, the paper's reference).
#ifndef HOPMAP_CORE_MAPPERS_GRID_GRID2D_H_
#define HOPMAP_CORE_MAPPERS_GRID_GRID2D_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/mappers/mapper.h"

namespace hopmap {

enum class Grid2dKind {
  kMxovlp,  // "mxovlp": maximum overlap, recursive (Algorithm 2)
  kMxovAl,  // "mxov-al": maximum overlap, realigning the longer dims at every step
  kExco,    // "exco": expand from corner (Algorithm 3)
  kCoce,    // "coce": corners to center
  kAffn,    // "affn": affine stretch/shrink, findNearest for conflicts (Algorithm 4)
  kStep,    // "step": strips of the mesh's height laid side by side, every other one mirrored
  kPairs,   // "pairs": the best of the six above, then pairwise exchanges
};

// The registry name of each kind ("mxovlp", "mxov-al", ...).
std::string Grid2dKindName(Grid2dKind kind);
// The six constructive heuristics, in the paper's order (PAIRS excluded).
const std::vector<Grid2dKind>& Grid2dHeuristics();

// The pure geometric part: maps the cells of an ox x oy object grid (cell x + ox*y)
// onto a px x py processor mesh (node X + px*Y), one cell per node; needs
// ox*oy <= px*py (more nodes than cells is fine: some stay empty). Returns the mesh
// index of every cell. Every kind first aligns the longer object dim with the longer
// mesh dim (transposing the object when they differ). Deterministic, O(n) except
// AFFN, whose findNearest2D (ring search for the closest free node, ties to the first
// in ring order) is O(n) per conflict in the worst case. Not for kPairs (it needs a
// graph). InvalidArgument on non-positive dims or too few nodes.
absl::StatusOr<std::vector<int32_t>> MapGrid2dToMesh(Grid2dKind kind, int32_t ox, int32_t oy,
                                                     int32_t px, int32_t py);

// The mapper. Input: a near-neighbour grid pattern (input.pattern, or the analyzer's
// answer) with at most two dims of extent > 1, and an allocation that is a complete
// box of a machine with coordinates with at most two dims of extent > 1 (a 2D mesh or
// torus, or a plane of a 3D one; a torus box that spans a whole ring keeps its wrap
// links in the hop counts but the heuristics themselves ignore wrap). Several cores
// per node: the grid is coarsened first (CoarsenByCores), the heuristic maps the
// coarse cells onto the nodes, and ExpandCoarseMapping gives the tasks their cores.
// FailedPrecondition (naming the mapper) for anything else, or when the coarse grid
// has more cells than the box has nodes.
//
// kPairs runs the six heuristics, keeps the one with the least hop-bytes, then
// improves it by swapping pairs of tasks: for every task u and every task w two graph
// hops away (a neighbour of a neighbour), the swap is kept if it lowers hop-bytes,
// computed exactly from the two tasks' edges (delta evaluation). Passes repeat until
// one improves nothing, at most kMaxPairsPasses, and stop early (keeping the best so
// far) when input.stop says so. Works at the task level, so cores are honoured.
class Grid2dMapper final : public Mapper {
 public:
  static constexpr int kMaxPairsPasses = 50;

  explicit Grid2dMapper(Grid2dKind kind) : kind_(kind) {}
  // variant: "<ox>x<oy>-><px>x<py>" (the coarse grid and the mesh), and for pairs the
  // heuristic it started from, e.g. "from mxov-al, 3 passes".
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;

 private:
  Grid2dKind kind_;
};

// Pairwise-exchange refinement of any valid mapping (also used by kPairs): returns the
// number of passes made. slot_of_task is improved in place; hop-bytes never rise.
int RefineByPairSwaps(const TaskGraph& graph, const Allocation& allocation,
                      std::vector<SlotId>& slot_of_task, const StopCondition& stop, int max_passes);

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_GRID_GRID2D_H_
