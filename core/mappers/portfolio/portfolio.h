// auto: runs a portfolio of mappers, refines the best, and keeps the best of all.
#ifndef HOPMAP_CORE_MAPPERS_PORTFOLIO_PORTFOLIO_H_
#define HOPMAP_CORE_MAPPERS_PORTFOLIO_PORTFOLIO_H_

#include <string>
#include <vector>

#include "core/mappers/local_search/anneal.h"
#include "core/mappers/mapper.h"

namespace hopmap {

// What `auto` runs, and when.
struct PortfolioPlan {
  // Constructions, run concurrently within the shared deadline (the first always
  // runs; the others are skipped once the deadline has passed).
  std::vector<std::string> constructions;
  // Constructions too costly above a size: skipped (and listed) when the graph has
  // more tasks. Pairs of (name, max tasks).
  std::vector<std::pair<std::string, int64_t>> task_limits;
  // Constructions only worth their CPU on large jobs: skipped (and listed) when the
  // graph has fewer tasks. Pairs of (name, min tasks).
  std::vector<std::pair<std::string, int64_t>> task_minimums;
  // The best this many distinct construction results, those within refine_within x
  // the best hop-bytes, are refined by pair exchanges, concurrently.
  int32_t refine_best = 3;
  // Each refinement runs on the cores the others leave, and the searches after them
  // wait for the slowest, which is the one from the worst start (it has the most to
  // repair). Measured on rgg 65536 onto a 32x32x64 torus: gge at 1.21x rec-bisect
  // refined for 4.3 s of the 8 s budget to end 1.17x above refine(rec-bisect),
  // which left the annealing 1 s (0.879 x Scotch); at 1.1 only rec-bisect is
  // refined, on both cores, in 1.5 s, and the annealing gets 3.8 s (0.855-0.863 x).
  double refine_within = 1.1;
  // Up to this many slots, GRASP with robust tabu search continues from the best.
  int64_t grasp_slot_limit = 512;
  // Above it, at most this many rounds of iterated local search (a patch of 12 tasks
  // scrambled, then refined) from the best so far, also bounded by a count of work
  // worth about half the budget; MapperOptions::iteration_limit overrides; 0: none.
  int64_t perturbations = 4000;
  // Then, while the budget lasts, up to this many restarts: recursive bisection with
  // another seed (METIS cuts differently), refined and searched the same way; the
  // best result wins. Measured on lulesh_1000 onto a 4-core 4x8x8 torus: the
  // search from one start ends within 0.6 s of its 1 s budget, and six seeds give
  // 0.69-0.85x Scotch's hop-bytes. Only jobs up to restart_max_tasks (larger ones
  // use their budget before this point).
  int32_t restarts = 8;
  int64_t restart_max_tasks = 65536;
  // Beside the iterated search and the restarts (which use one core: their
  // refinements are small), simulated annealing from the same start on another core.
  // Its moves per task are set from anneal_share of the budget at a nominal rate of
  // anneal_edge_rate / sqrt(tasks) edges scanned per second (a count, not the
  // clock, so a run the deadline does not cut repeats). The rate falls with size as
  // the chain's random reads leave the caches; measured on the 2-core reference
  // machine with rgg (bench/anneal_rate.sh; bench/README.md, session 6): 1.6e8
  // edges/s at 1,024 tasks, 6.4e7 at 4,096, 3.6e7 at 16,384, 2.2e7 at 65,536, 6.9e6
  // at 262,144.
  // The rate is never taken below anneal_min_edge_rate (the flat rate auto used before):
  // above ~11k tasks the true rate plans fewer moves than the deadline cuts a run at,
  // and a run that ends cold in them did worse than one the deadline cuts warm
  // (rgg 16384 on the fragmented allocation: 0.849-0.852 against 0.840-0.846 x
  // Scotch, 3 runs each). Below anneal_min_moves_per_task it does not run.
  // MapperOptions::iteration_limit, when set, is the moves per task instead. Only for the hop-bytes
  // objective. Measured on random geometric graphs of 1,024-16,384 tasks (bench/README.md): 2-12%
  // fewer hop-bytes than the best of the other searches; on replicated lulesh it seldom wins and
  // costs < 0.5%.
  double anneal_share = 0.6;
  double anneal_edge_rate = 4.2e9;
  double anneal_min_edge_rate = 4e7;
  int64_t anneal_min_moves_per_task = 50;
  // The anneal options; runs of more than anneal.moves_per_task moves per task
  // start hotter (x sqrt of the ratio, at most 3.3x).
  AnnealOptions anneal;
  absl::Status Validate() const;
};

// The plan `auto` uses: every construction that can apply, then refine, then GRASP
// for small problems.
PortfolioPlan DefaultPortfolioPlan();

// Runs the plan: every construction at once on the caller's TBB arena within the
// shared deadline, each scored by the objective (hop-bytes; or max link load, then
// hop-bytes); then RefinePlacement on the best refine_best results with distinct
// hop-bytes, concurrently; then from the best, iterated local search and restarts
// with simulated annealing beside them (large problems), or GRASP (small ones). Ties go to the
// candidate earlier in the plan, whatever order they finish in. Every candidate, with its score and
// time, is listed in MapOutput::candidates in plan order; progress is reported as each finishes.
// The searches are capped by work counts (MapperOptions::iteration_limit, or ones chosen from the
// size), so when the deadline does not cut them the answer is the same on every run with the same
// seed, whatever the thread count.
class PortfolioMapper final : public Mapper {
 public:
  PortfolioMapper(const MapperRegistry* registry, PortfolioPlan plan)
      : registry_(registry), plan_(std::move(plan)) {}
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;

 private:
  // Moves per task for the annealing, 0 when it does not run.
  int64_t AnnealMovesPerTask(const MapInput& input, int64_t num_tasks) const;
  const MapperRegistry* registry_;
  PortfolioPlan plan_;
};

// Display name of a mapper's result: "axis-order(ZYXT)", or just the name.
std::string CandidateName(const std::string& mapper, const std::string& variant);

// GRASP iterations `auto` allows itself when the caller set no iteration limit:
// tabu chains cost about iterations x slots^3, kept near 1e8 steps.
int64_t DefaultGraspIterations(int64_t slots);

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_PORTFOLIO_PORTFOLIO_H_
