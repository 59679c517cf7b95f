// grasp: GRASP for the QAP (seed 001, after Li, Pardalos and Resende 1994), with a
// robust tabu search (Taillard 1991) as the improvement phase of its best starts.
#ifndef HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_GRASP_H_
#define HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_GRASP_H_

#include <cstdint>

#include "absl/status/status.h"
#include "core/mappers/local_search/refine.h"
#include "core/mappers/mapper.h"

namespace hopmap {

struct GraspOptions {
  // Problems with at most this many slots are solved densely: slots x slots flow,
  // hop and move-gain matrices, the classic O(1)-per-pair update after an exchange.
  // Larger ones use neighbour-only gains (Placement) and never build a matrix.
  int64_t dense_slot_limit = 512;
  // GRASP iterations (construction + 2-exchange local search); 0: until the GRASP
  // share of the time budget is spent. Iteration k draws from RandomStream(seed, k).
  int64_t max_iterations = 0;
  // Iterations run in parallel rounds of this size; the stop condition is checked
  // between rounds. Fixed, so the iterations done do not depend on the threads.
  int32_t round_size = 8;
  // Share of the time budget for the GRASP phase when tabu search follows it.
  double grasp_time_fraction = 0.1;
  // Li, Pardalos and Resende's restricted candidate lists: stage 1 keeps the
  // beta share of the heaviest task pairs and of the closest slot pairs and draws
  // from the alpha share of their cheapest products; stage 2 draws from the alpha
  // share of the cheapest (task, free slot) assignments.
  double stage1_beta = 0.5;
  double alpha = 0.1;
  // Sparse problems: a task takes one of this many cheapest candidate slots.
  int32_t sparse_choices = 3;
  // Robust tabu search (dense problems only) from the best distinct GRASP results,
  // each chain with its own stream. Iterations per chain; 0: until the time
  // budget, -1: no tabu search (plain GRASP).
  int64_t tabu_iterations = 0;
  // Tabu chains (and GRASP results kept to start them from). Fixed, not the arena's
  // width, so that an answer under iteration caps is the same on any thread count
  // (docs/tuning.md).
  int32_t tabu_chains = 2;
  // Taillard's parameters: a move is tabu for u^3 * tenure_factor * size
  // iterations (u uniform in [0,1)); a move untried for aspiration_factor * size^2
  // iterations is forced.
  double tabu_tenure_factor = 8.0;
  double tabu_aspiration_factor = 5.0;
  // Local search of sparse problems.
  RefineOptions refine;
  absl::Status Validate() const;
};

// Starts from input.initial (as iteration 0) when given. Deterministic for a given
// seed, on any thread count, when the iteration caps, not the clock, end the phases.
// MapperOptions::iteration_limit L caps the GRASP iterations at L and each tabu
// chain at L * slots iterations.
class GraspMapper final : public Mapper {
 public:
  explicit GraspMapper(GraspOptions options = {}) : options_(options) {}
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;

 private:
  GraspOptions options_;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_LOCAL_SEARCH_GRASP_H_
