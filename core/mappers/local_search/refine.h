// refine: pair-exchange local search (seed 000's PAIRS) that improves any mapping.
// The portfolio runs it after the constructive mappers; GRASP uses it as the local
// search of large sparse problems.
#ifndef HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_REFINE_H_
#define HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_REFINE_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/mappers/mapper.h"
#include "core/search/placement.h"
#include "core/search/position_graph.h"
#include "core/search/random_stream.h"

namespace hopmap {

struct RefineOptions {
  // Passes of either kind below (full or active-set); a full pass that applies no
  // exchange ends the search early.
  int32_t max_passes = 100;
  // After the first (full) pass, search only the active set: the tasks moved in the
  // previous pass and their graph neighbours, in ascending task id. When that set
  // is empty, a full pass confirms (or not) the local optimum. false: every pass is
  // full (the reference the tests compare with).
  bool active_set = true;
  // The active set also takes the tasks with a neighbour on, or next to, a node
  // whose occupants changed (their candidate exchanges changed), in neighbour mode.
  // false: only the moved tasks and their neighbours; the woken tasks' exchanges are
  // then left to a confirming pass. On a 1M-task stencil the woken set made the
  // second pass one over 97% of the tasks (21,040 exchanges) instead of 57%
  // (18,718); the confirming pass then found 94 exchanges more.
  bool wake_near_nodes = true;
  // When the active set empties, a full pass confirms the local optimum (and applies
  // what the active sets missed). false: stop there, local_optimum stays false. At
  // 1M tasks that pass found 0.001% more and cost a pass over every task.
  bool confirm_local_optimum = true;
  // Up to this many slots every task is tried against every slot (a true 2-exchange
  // local optimum); above it only the slots on the nodes of a task's neighbours
  // (occupied or empty), which keeps a pass near O(sum of deg^2 * cores) for 1M tasks.
  int64_t all_pairs_slot_limit = 512;
  // Above that limit, slots tried per neighbour node: all its cores when it has at
  // most this many, else a window of this many that shifts with the pass and the
  // task (then "local optimum" means: none among the pass's candidates improves).
  int32_t slots_per_node = 8;
  // Above that limit, the nodes next to the neighbours' nodes (PositionGraph: one
  // hop on a torus or mesh, the nearest few elsewhere) are tried too, until a task
  // has this many candidate nodes in all; 0: only the neighbours' nodes.
  int32_t max_candidate_nodes = 48;
  // Tasks whose best exchange is searched in parallel against one state before the
  // improving ones are applied in task order (each re-checked against the current
  // state). A constant, so results do not depend on the thread count.
  int32_t block_size = 256;
  absl::Status Validate() const;
};

struct RefineStats {
  int32_t passes = 0;       // passes started
  int32_t full_passes = 0;  // of which over every task of `only` (the rest: active sets)
  int64_t exchanges = 0;    // exchanges applied
  // The last pass was a full one (every task of `only`) and found no improving
  // exchange among its candidates.
  bool local_optimum = false;
  // Edges scanned while searching (a measure of work that does not depend on the
  // clock or the threads).
  int64_t work = 0;
};

// Improves `placement` in place by exchanging slot occupants (task-task or
// task-empty slot) while that lowers hop-bytes, until a pass finds no improving
// exchange among the candidates, max_passes, or `stop`. Never increases hop-bytes.
// Deterministic for any thread count (parallel work only evaluates; exchanges are
// applied sequentially in a fixed order). Runs on the caller's TBB arena.
// `only`: the first pass searches exchanges for these tasks only (in this order;
// each may still be exchanged with any task), e.g. a patch just perturbed; empty:
// every task. Later passes search the active set (RefineOptions::active_set), which
// may reach tasks outside `only`: improvements spread from the patch. A full
// (confirming) pass is again over `only`, so local_optimum says none of `only`'s
// tasks has an improving exchange.
// `near_nodes`: PositionGraph::Build(placement.allocation()) when the caller refines
// many times; null: built here when needed.
RefineStats RefinePlacement(Placement& placement, const RefineOptions& options,
                            const StopCondition& stop, std::span<const TaskId> only = {},
                            const PositionGraph* near_nodes = nullptr);

// A greedy breadth-first placement: tasks in BFS order (components one after
// another), each on the cheapest free slot, given its placed neighbours, among the
// free slots of its placed neighbours' nodes (the next free slot in allocation
// order when those are full). With `random`, the BFS starts at a random task and a
// task takes one of its `choices` cheapest candidate slots at random (GRASP's
// restricted candidate list); without, it starts at task 0 and takes the cheapest.
// Requires num_tasks <= num_slots.
std::vector<SlotId> GreedyBfsMapping(const TaskGraph& graph, const Allocation& allocation,
                                     RandomStream* random = nullptr, int32_t choices = 1);

// The starting mapping of RefineMapper without input.initial: the better of
// in-order and GreedyBfsMapping (`from` names which).
std::vector<SlotId> RefineStartMapping(const TaskGraph& graph, const Allocation& allocation,
                                       std::string* from = nullptr);

// Where a local search mapper (refine, anneal) starts: input.initial when given
// (an invalid one is refused, the message led by `mapper`), else
// RefineStartMapping; `from` gets "initial" or RefineStartMapping's name. First
// checks that the graph fits the allocation and its hop-bytes fit 64 bits.
absl::StatusOr<std::vector<SlotId>> LocalSearchStart(const MapInput& input,
                                                     absl::string_view mapper, std::string* from);

// "refine": refines input.initial when given, else RefineStartMapping.
// MapperOptions::iteration_limit caps the passes.
class RefineMapper final : public Mapper {
 public:
  explicit RefineMapper(RefineOptions options = {}) : options_(options) {}
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;

 private:
  RefineOptions options_;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_REFINE_H_
