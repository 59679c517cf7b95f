// hybrid: seed 001's hybrid heuristic. The task graph and the allocated nodes are
// cut into matching parts (METIS on the tasks, compact node groups on the machine),
// GRASP maps parts to groups on the quotient problem (edge weights = bytes between
// parts, distances = average hops between groups), then each part is mapped onto its
// group's slots the same way, recursively, groups in parallel; GRASP solves the
// bottom groups. A final pair-exchange pass over the whole mapping repairs the part
// boundaries, which the per-part solves cannot see.
#ifndef HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_HYBRID_H_
#define HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_HYBRID_H_

#include <cstdint>

#include "absl/status/status.h"
#include "core/mappers/construct/rec_bisect.h"
#include "core/mappers/local_search/refine.h"
#include "core/mappers/mapper.h"

namespace hopmap {

struct HybridOptions {
  // A group with at most this many slots is solved directly (a leaf); larger
  // ones are split into groups of about this many slots (whole nodes; a node with
  // more cores than this is one group). Must fit GRASP's dense limit (512).
  int64_t part_slots = 256;
  // At most this many groups per level (the quotient GRASP's size); when more would
  // be needed the groups are larger and split again one level down (parts of parts).
  int32_t max_parts_per_level = 64;
  // Quotient GRASP: iterations, and robust tabu iterations per quotient slot.
  int64_t quotient_grasp_iterations = 4;
  int64_t quotient_tabu_iterations_per_slot = 10;
  // Bottom groups are solved by GRASP when the whole problem has at most this many
  // slots, else by recursive bisection + leaf_refine (a 2-exchange local optimum
  // within the group) (docs/tuning.md).
  int64_t grasp_leaves_max_slots = 8192;
  // The refinement leaves' start: one METIS cut per bisection and one exchange pass
  // after each (leaf_refine follows). GRASP leaves (small problems) keep rec-bisect's
  // defaults (docs/tuning.md).
  RecursiveBisectionOptions leaf_start = {.metis_cuts = 1, .refine_passes = 1};
  // The refinement leaves' search: neighbour-only candidates (docs/tuning.md).
  RefineOptions leaf_refine = {.all_pairs_slot_limit = 0};
  // GRASP leaves: iterations (>= 1; the first starts from recursive bisection of the
  // group) and tabu iterations per slot (0: none). Small, as there are slots /
  // part_slots leaves (docs/tuning.md).
  int64_t leaf_grasp_iterations = 1;
  int64_t leaf_tabu_iterations_per_slot = 2;
  // Average hops between two groups are estimated from up to this many evenly spaced
  // nodes of each (never a node x node matrix), scaled by hop_scale and rounded (the
  // quotient machine's hops are integers).
  int32_t distance_samples = 8;
  int32_t hop_scale = 16;
  // The final pair-exchange search (max_passes: passes over the active tasks,
  // capped: docs/tuning.md).
  RefineOptions refine = {.max_passes = 6};
  // The final search starts from the leaf-boundary tasks only (a task with a
  // neighbour on another leaf group's nodes: the leaves saw everything else), and
  // each later pass from the tasks the previous one moved and their neighbours.
  // false: every task, every pass.
  bool refine_boundary_only = true;
  // The final search stops after scanning this many edges per task of the graph
  // (RefineStats::work; 0: no cap). A count, not the clock, so the result repeats
  // (docs/tuning.md).
  int64_t refine_work_per_task = 1000;
  // Several cores per node: first cut the tasks into node-sized groups of exactly
  // cores_per_node tasks (k-way METIS, sizes repaired), map the group graph onto the
  // nodes as a 1-core problem, then fill each node's cores with its group. Off by
  // default (docs/tuning.md).
  bool group_cores_first = false;
  // The partition-and-leaves stage may use this share of the remaining time limit;
  // the final search gets the rest. A safety net: the work caps are meant to end
  // both first (then the clock plays no part in the result).
  double parts_time_share = 0.75;

  absl::Status Validate() const;
};

// Deterministic for a given seed on any thread count (fixed METIS seeds, iteration
// and work caps, results stored by group index) as long as the caps, not the clock,
// end the searches. Returns within the time limit: when it fires, the groups not yet
// solved get a greedy breadth-first placement (valid, coarser) and the final
// search stops where it is; only one METIS call (not interruptible) can overrun it.
class HybridMapper final : public Mapper {
 public:
  explicit HybridMapper(HybridOptions options = {}) : options_(options) {}
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;

 private:
  HybridOptions options_;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_HYBRID_H_
