// The recursive bisection engine: Hoefler & Snir's recursive bisection of the task
// graph (METIS) and of the allocation, matched half to half. The rec-bisect mapper
// (core/mappers/construct) runs it with one task per core; the balanced problem
// (core/balance) with loads, homes and geometric cuts.
#ifndef HOPMAP_CORE_BISECTION_BISECTION_H_
#define HOPMAP_CORE_BISECTION_BISECTION_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "core/graph/task_graph.h"
#include "core/search/stop_condition.h"
#include "core/topology/allocation.h"

namespace hopmap {

// Splits the allocated nodes in two halves (sizes ceil(m/2) and floor(m/2)): on a
// torus/mesh across the longest dimension of their bounding box; elsewhere by the
// farthest pair (a, b), sorting nodes by hops(a, x) - hops(b, x). A task set that
// fits the first half goes there whole (fewer tasks than slots stay compact), to
// the half nearer its outside neighbours; otherwise METIS_PartGraphRecursive cuts
// it in proportion to the halves' slots (target weights, a fixed METIS seed from
// the options), and any cut both halves can hold is kept (sizes outside that are
// restored by moving the vertices that gain most), so a job of identical pieces
// splits between pieces. The cut sees the set's outside neighbours as in Scotch's
// dual recursive bipartitioning: two anchor vertices, one per half, pull each task
// by the hop-bytes its outside edges save on that side (their ends counted at the
// representative, a central node, of the half they went to). Fiduccia-Mattheyses
// passes then refine the cut with the same costs. Graphs METIS refuses or cannot
// help with (no edges inside, an error code) are cut in breadth-first order
// instead. Level by level: every set of a level is cut, in parallel, before the
// next level, each against the previous levels' state, so the mapping does not
// depend on the thread count. Recurses until a half is one node. When the time
// limit fires, the sets not yet split are laid on their nodes in the split order
// (valid, coarser; the variant says so).
struct RecursiveBisectionOptions {
  // METIS_OPTION_NCUTS (best of that many bisections) for task sets up to
  // multi_cut_max_tasks; larger sets take one (docs/tuning.md).
  int metis_cuts = 4;
  int64_t multi_cut_max_tasks = 65536;
  // Fiduccia-Mattheyses passes after each bisection, weighing the hops to the
  // set's placed outside neighbours (0: off).
  int refine_passes = 4;
  // Cut each set knowing where its outside neighbours went (anchor vertices in
  // METIS); false: METIS sees the set alone and only the orientation and the
  // refinement passes weigh the outside.
  bool anchored_cut = true;
  // ... for sets of at least this many tasks; smaller sets get the plain cut
  // (docs/tuning.md).
  size_t anchored_min_tasks = 128;
  // With grid_dims (BisectByWeight): each plane cut slides, before its refinement,
  // to the prefix of the set in grid order that costs the least hop-bytes within
  // the halves' sizes, with either half first, instead of staying at the weight
  // target; the sets cut before it count as outside neighbours, distances taken
  // between domain centres (as Scotch's), not representative nodes. Off by default;
  // `partition` runs it as a start of its own (docs/tuning.md).
  bool slide_grid_cuts = false;
  absl::Status Validate() const;
};

// What to bisect. Only graph and allocation are required.
struct BisectionProblem {
  const TaskGraph& graph;
  const Allocation& allocation;
  uint64_t seed = 1;  // METIS's seed
  // Task weights instead of one task per core (the balanced problem): a node holds
  // up to `node_capacity` weight, every set is split in proportion to its halves'
  // nodes (within their capacities), and a set down to one node goes there whole.
  // Weights must be >= 1 and their sum at most 2^29 (METIS's 32-bit sums).
  std::span<const int64_t> weights = {};
  int64_t node_capacity = 0;
  // Remapping (Scotch's remap): with `home` (each task's current position) and
  // `stay` (what moving it costs, in hop-bytes), every cut also weighs keeping
  // tasks in the half that holds their home, as if each home were an outside
  // neighbour joined by `stay` bytes at one hop.
  std::span<const int32_t> home = {};
  std::span<const int64_t> stay = {};
  // A grid whose size is the number of tasks (task = c0 + D0 * (c1 + ...)), on a
  // torus or mesh: the plain cut of every set is a plane across the grid instead
  // of METIS's, the grid's axes following the machine's (the anchored cut still
  // competes with it). Dims of another size are ignored (METIS cuts).
  std::span<const int32_t> grid_dims = {};
};

struct Bisection {
  std::vector<SlotId> slot_of_task;
  bool stopped = false;  // the time limit placed the last levels in split order
};

Bisection RecursiveBisection(BisectionProblem problem, const RecursiveBisectionOptions& options,
                             const StopCondition& stop);

// The same, as the allocation position of every task (the balanced problem's form).
std::vector<int32_t> BisectByWeight(const BisectionProblem& problem,
                                    const RecursiveBisectionOptions& options,
                                    const StopCondition& stop, bool* stopped = nullptr);

}  // namespace hopmap

#endif  // HOPMAP_CORE_BISECTION_BISECTION_H_
