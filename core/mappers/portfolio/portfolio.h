// auto: runs a portfolio of mappers, refines the best, and keeps the best of all.
#ifndef HOPMAP_CORE_MAPPERS_PORTFOLIO_PORTFOLIO_H_
#define HOPMAP_CORE_MAPPERS_PORTFOLIO_PORTFOLIO_H_

#include <string>
#include <vector>

#include "core/mappers/local_search/anneal.h"
#include "core/mappers/mapper.h"

namespace hopmap {

// What `auto` runs, and when (why each default: docs/tuning.md).
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
  // On a job the analyzer finds a near-neighbour grid in, these constructions (for
  // irregular graphs) start after the others, and not at all when one of those is
  // within grid_fallback_within x the lower bound: they never came near the grid
  // constructions there and held a core for most of the budget (docs/tuning.md).
  std::vector<std::string> grid_fallbacks;
  double grid_fallback_within = 1.1;
  // Constructions that do not start when they could not finish within the
  // constructions' share of the budget at this many tasks per second: cut by the
  // clock they return little (hybrid: in-order's mapping, or greedy placements of
  // the groups it did not reach) and hold a core the others need. Pairs of (name,
  // tasks per second > 0); the first construction always runs (docs/tuning.md).
  std::vector<std::pair<std::string, double>> tasks_per_second;
  // The best this many distinct construction results, those within refine_within x
  // the best hop-bytes, are refined by pair exchanges, concurrently.
  int32_t refine_best = 3;
  // >= 1; results more than this factor above the best are not refined
  // (docs/tuning.md).
  double refine_within = 1.1;
  // Above this many tasks only the best result is refined, its active sets without
  // the tasks near moved nodes (RefineOptions::wake_near_nodes) and without the
  // confirming pass over every task at its end (RefineOptions::confirm_local_optimum):
  // there one refinement keeps every core busy, two side by side took each well over
  // twice as long, and the woken tasks made the second pass one over 97% of 1M
  // tasks for 2% of them moved (docs/tuning.md).
  int64_t refine_one_above_tasks = 262144;
  // Up to this many slots, GRASP with robust tabu search continues from the best.
  int64_t grasp_slot_limit = 512;
  // Above it, at most this many rounds of iterated local search (a patch of 12 tasks
  // scrambled, then refined) from the best so far, also bounded by a count of work
  // worth about half the budget; MapperOptions::iteration_limit overrides; 0: none.
  int64_t perturbations = 4000;
  // Then, while the budget lasts, up to this many restarts: recursive bisection with
  // another seed (METIS cuts differently), refined and searched the same way; the
  // best result wins. Only jobs up to restart_max_tasks (docs/tuning.md).
  int32_t restarts = 8;
  int64_t restart_max_tasks = 65536;
  // The searches of large problems from the best (iterated local search,
  // annealing) do not run when the best mapping after refinement is one that pair
  // exchanges left as it was (its refinement applied none and ended at a local
  // optimum): from such a start, a structured construction's on a regular graph,
  // they found nothing better on any job measured, and they would spend the rest of
  // the budget. The restarts still run when that best is rec-bisect's (other seeds
  // can land lower; docs/tuning.md).
  bool skip_searches_at_exchange_optimum = true;
  // Beside the iterated search and the restarts (which use one core: their
  // refinements are small), simulated annealing from the same start on another core,
  // not with the congestion objective. Its moves per task are set from anneal_share (in [0, 1);
  // 0: off) of the budget at a nominal rate of anneal_edge_rate / sqrt(tasks) edges
  // scanned per second, never below anneal_min_edge_rate (a count, not the clock, so a
  // run the deadline does not cut repeats). Below anneal_min_moves_per_task it does not
  // run. MapperOptions::iteration_limit, when set, is the moves per task instead
  // (docs/tuning.md).
  double anneal_share = 0.6;
  double anneal_edge_rate = 4.2e9;
  double anneal_min_edge_rate = 4e7;
  int64_t anneal_min_moves_per_task = 50;
  // With the congestion objective, last: exchanges that lower the busiest link
  // (RefineCongestion) from the best, over route links worth congestion_share of the
  // budget at congestion_links_per_second (a count of work, not the clock).
  double congestion_share = 0.3;
  double congestion_links_per_second = 5e7;
  // With the dilation objective, last: exchanges that shorten the longest edges,
  // then lower hop-bytes under the bound they reached (RefineDilation), from the
  // best, over edges worth dilation_share of the budget at dilation_edges_per_second.
  double dilation_share = 0.3;
  double dilation_edges_per_second = 5e7;
  // With the time objective, last: both refinements above from the least
  // hop-bytes, side by side, each over work worth time_share of the budget at its
  // own rate; the estimated exchange time (core/metrics/exchange_time.h) picks.
  double time_share = 0.3;
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
