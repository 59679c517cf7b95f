#include "core/mappers/portfolio/portfolio.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/mappers/construct/rec_bisect.h"
#include "core/mappers/local_search/congestion_refine.h"
#include "core/mappers/local_search/dilation_refine.h"
#include "core/mappers/local_search/grasp.h"
#include "core/mappers/local_search/iterated_refine.h"
#include "core/mappers/local_search/refine.h"
#include "core/metrics/exchange_time.h"
#include "core/metrics/hop_bytes.h"
#include "core/metrics/link_loads.h"
#include "core/metrics/lower_bound.h"
#include "core/search/placement.h"
#include "core/search/position_graph.h"
#include "core/search/random_stream.h"
#include "tbb/task_group.h"

namespace hopmap {

std::string CandidateName(const std::string& mapper, const std::string& variant) {
  return variant.empty() ? mapper : absl::StrCat(mapper, "(", variant, ")");
}

absl::Status PortfolioPlan::Validate() const {
  if (constructions.empty()) {
    return absl::InvalidArgumentError("portfolio plan: no constructions");
  }
  if (refine_one_above_tasks < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "portfolio plan: refine_one_above_tasks must be >= 0, got ", refine_one_above_tasks));
  }
  if (refine_best < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("portfolio plan: refine_best must be >= 0, got ", refine_best));
  }
  if (!(refine_within >= 1) || !std::isfinite(refine_within)) {
    return absl::InvalidArgumentError(
        absl::StrCat("portfolio plan: refine_within must be >= 1, got ", refine_within));
  }
  if (grasp_slot_limit < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("portfolio plan: grasp_slot_limit must be >= 0, got ", grasp_slot_limit));
  }
  if (restarts < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("portfolio plan: restarts must be >= 0, got ", restarts));
  }
  if (!(anneal_share >= 0 && anneal_share < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("portfolio plan: anneal_share must be in [0, 1), got ", anneal_share));
  }
  if (!(anneal_min_edge_rate >= 0) || !std::isfinite(anneal_min_edge_rate)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "portfolio plan: anneal_min_edge_rate must be >= 0, got ", anneal_min_edge_rate));
  }
  if (!(anneal_edge_rate > 0) || !std::isfinite(anneal_edge_rate)) {
    return absl::InvalidArgumentError(
        absl::StrCat("portfolio plan: anneal_edge_rate must be > 0, got ", anneal_edge_rate));
  }
  if (!(grid_fallback_within >= 1) || !std::isfinite(grid_fallback_within)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "portfolio plan: grid_fallback_within must be >= 1, got ", grid_fallback_within));
  }
  for (const auto& [name, rate] : tasks_per_second) {
    if (!(rate > 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("portfolio plan: tasks_per_second of ", name, " must be > 0, got ", rate));
    }
  }
  if (!(congestion_share >= 0 && congestion_share <= 1) || !(congestion_links_per_second > 0) ||
      !std::isfinite(congestion_links_per_second)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "portfolio plan: congestion_share must be in [0, 1] and congestion_links_per_second > 0, "
        "got ",
        congestion_share, " and ", congestion_links_per_second));
  }
  if (!(dilation_share >= 0 && dilation_share <= 1) || !(dilation_edges_per_second > 0) ||
      !std::isfinite(dilation_edges_per_second)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "portfolio plan: dilation_share must be in [0, 1] and dilation_edges_per_second > 0, got ",
        dilation_share, " and ", dilation_edges_per_second));
  }
  if (!(time_share >= 0 && time_share <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("portfolio plan: time_share must be in [0, 1], got ", time_share));
  }
  if (absl::Status s = anneal.Validate(); !s.ok()) return s;
  return absl::OkStatus();
}

PortfolioPlan DefaultPortfolioPlan() {
  PortfolioPlan plan;
  plan.anneal.chains = 1;
  plan.anneal.moves_per_task = 2000;
  plan.anneal.start_temperature = 0.15;
  // A schedule the deadline cuts ends warm, which did as well or better than cooling
  // over fewer moves (docs/tuning.md).
  plan.anneal.cool_to_deadline = false;
  // Cheap baselines first (a solve always has them), then the grid constructions
  // (they refuse unless the analyzer finds a near-neighbour grid), then the general
  // constructions of issue 4.
  plan.constructions = {"in-order",   "axis-order", "round-robin", "fold",  "stack", "cart-greedy",
                        "hilbert",    "mxov-al",    "affn",        "step",  "pairs", "gge",
                        "rec-bisect", "mahd",       "ohtma",       "exact", "hybrid"};
  // Each limit keeps a construction where it pays for its time; hybrid only replaces
  // rec-bisect above its limit (docs/tuning.md).
  plan.task_limits = {{"ohtma", 2048}, {"exact", 12}, {"mahd", 65536}, {"rec-bisect", 262144}};
  plan.task_minimums = {{"hybrid", 262145}};
  plan.tasks_per_second = {{"hybrid", 30000}};
  plan.grid_fallbacks = {"hybrid"};
  return plan;
}

int64_t DefaultGraspIterations(int64_t slots) {
  const int64_t cube = std::max<int64_t>(slots, 1) * slots * slots;
  return std::clamp<int64_t>(100'000'000 / cube, 1, 64);
}

namespace {

// Keeps the best result and the few best distinct ones to refine. Candidates are
// added from several threads in whatever order they finish; every decision depends
// only on (score, index), where the index is the candidate's place in the plan, so
// the outcome does not depend on the order (ties go to the lower index).
class CandidateBook {
 public:
  CandidateBook(const MapInput& input, int32_t keep)
      : input_(input), objective_(input.options.objective), keep_(keep), start_(absl::Now()) {}

  // Scores `slots` and records it as candidate `name` at plan position `index`;
  // keeps it if it is among the best. `started` is when the candidate began.
  HopBytes Add(int32_t index, const std::string& name, std::vector<SlotId> slots,
               absl::Time started, std::vector<Statistic> stats = {}) {
    Candidate candidate;
    candidate.algorithm = name;
    candidate.stats = std::move(stats);
    candidate.hop_bytes = ComputeHopBytes(input_.graph, input_.allocation, slots);
    // The time objective's refinements start from the best by the other objectives.
    const bool time = objective_ == Objective::kTime;
    if (objective_ == Objective::kCongestion || time) {
      const LinkLoads loads =
          ComputeLinkLoads(input_.graph, input_.allocation, slots, input_.options.routing);
      candidate.max_link_load = loads.max_load;
      if (time) {
        // SolveMapping refuses the objective on a machine without links.
        candidate.exchange_seconds = EstimateExchangeTime(input_.graph, input_.allocation, slots,
                                                          input_.options.routing, &loads)
                                         .value_or(ExchangeTimeEstimate{})
                                         .seconds;
      }
    }
    if (objective_ == Objective::kDilation || time) {
      candidate.max_dilation = ComputeMaxDilation(input_.graph, input_.allocation, slots);
    }
    candidate.seconds = absl::ToDoubleSeconds(absl::Now() - started);
    const std::lock_guard<std::mutex> lock(mutex_);
    if (best_index_ < 0 || Better(objective_, candidate, index, best_score_, best_index_)) {
      best_.slot_of_task = slots;
      best_.winner = candidate.algorithm;
      best_score_ = candidate;
      best_index_ = index;
    }
    // The objective's best may not be the lowest hop-bytes: the dilation refinement
    // starts from both (a crude construction can have the shorter longest edge), the
    // time objective's from those and the best by longest edge and by busiest link.
    if (objective_ == Objective::kDilation || time) {
      least_hop_bytes_.Offer(Objective::kHopBytes, candidate, index, slots);
    }
    if (time) {
      least_dilation_.Offer(Objective::kDilation, candidate, index, slots);
      least_link_load_.Offer(Objective::kCongestion, candidate, index, slots);
    }
    KeepForRefinement(candidate, index, std::move(slots));
    Report(candidate);
    const HopBytes hop_bytes = candidate.hop_bytes;
    listed_.emplace_back(index, std::move(candidate));
    return hop_bytes;
  }
  void AddError(int32_t index, const std::string& name, absl::string_view error,
                absl::Time started) {
    Candidate candidate;
    candidate.algorithm = name;
    candidate.error = std::string(error);
    candidate.seconds = absl::ToDoubleSeconds(absl::Now() - started);
    const std::lock_guard<std::mutex> lock(mutex_);
    listed_.emplace_back(index, std::move(candidate));
  }

  // Lists every candidate with an index in (winner, end) as not needed: `winner`
  // reached the lower bound, and none after it in the plan could beat it.
  void Supersede(int32_t winner, int32_t end) {
    const std::lock_guard<std::mutex> lock(mutex_);
    std::string name;
    for (const auto& [index, c] : listed_) {
      if (index == winner) name = c.algorithm;
    }
    for (auto& [index, c] : listed_) {
      if (index <= winner || index >= end) continue;
      // How far a stopped construction got depends on the clock: the report names
      // it by the plan alone (no variant, no figures), the same on every run.
      c.algorithm = c.algorithm.substr(0, c.algorithm.find('('));
      c.stats.clear();
      c.hop_bytes = 0;
      c.max_link_load = 0;
      c.max_dilation = 0;
      c.exchange_seconds = 0;
      c.error = absl::StrCat("not needed: ", name, ", earlier in the plan, is at the lower bound");
    }
  }

  // These are for the sequential stages between the concurrent ones.
  [[nodiscard]] bool empty() const { return best_index_ < 0; }
  [[nodiscard]] const std::vector<SlotId>& best_slots() const { return best_.slot_of_task; }
  [[nodiscard]] HopBytes best_hop_bytes() const { return best_score_.hop_bytes; }
  [[nodiscard]] const std::string& best_name() const { return best_.winner; }
  // With the dilation or the time objective: the candidate of least hop-bytes (the
  // earliest in the plan among equals).
  [[nodiscard]] const std::vector<SlotId>& least_hop_bytes_slots() const {
    return least_hop_bytes_.slots;
  }
  // With the time objective: the best candidate by longest edge, and by busiest link.
  [[nodiscard]] const std::vector<SlotId>& least_dilation_slots() const {
    return least_dilation_.slots;
  }
  [[nodiscard]] const std::vector<SlotId>& least_link_load_slots() const {
    return least_link_load_.slots;
  }
  [[nodiscard]] const std::string& first_error() const {
    static const std::string kNone = "none ran";
    for (const auto& [index, c] : listed_) {
      if (!c.error.empty()) return c.error;
    }
    return kNone;
  }
  // The kept results, best first: (candidate name, mapping); only those within
  // `factor` of the best hop-bytes.
  [[nodiscard]] std::vector<std::pair<std::string, std::vector<SlotId>>> TakeKept(double factor) {
    std::vector<std::pair<std::string, std::vector<SlotId>>> out;
    for (Kept& k : kept_) {
      if (!out.empty() && static_cast<double>(k.hop_bytes) >
                              factor * static_cast<double>(kept_.front().hop_bytes)) {
        break;
      }
      out.emplace_back(std::move(k.name), std::move(k.slots));
    }
    kept_.clear();
    return out;
  }
  // The best mapping, and every candidate in plan order.
  MapOutput Finish() && {
    std::stable_sort(listed_.begin(), listed_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [index, c] : listed_) best_.candidates.push_back(std::move(c));
    return std::move(best_);
  }

 private:
  struct Kept {
    HopBytes hop_bytes;
    int32_t index;
    std::string name;
    std::vector<SlotId> slots;
  };

  // Candidate a before b by `objective`, then hop-bytes, then plan order.
  static bool Better(Objective objective, const Candidate& a, int32_t a_index, const Candidate& b,
                     int32_t b_index) {
    switch (objective) {
      case Objective::kHopBytes:
        break;
      case Objective::kCongestion:
        if (a.max_link_load != b.max_link_load) return a.max_link_load < b.max_link_load;
        break;
      case Objective::kDilation:
        if (a.max_dilation != b.max_dilation) return a.max_dilation < b.max_dilation;
        break;
      case Objective::kTime:
        if (a.exchange_seconds != b.exchange_seconds) {
          return a.exchange_seconds < b.exchange_seconds;
        }
        break;
    }
    if (a.hop_bytes != b.hop_bytes) return a.hop_bytes < b.hop_bytes;
    return a_index < b_index;
  }
  // The best candidate by another objective than the solve's: where a refinement
  // for that objective starts.
  struct Leader {
    Candidate score;
    int32_t index = -1;
    std::vector<SlotId> slots;
    void Offer(Objective by, const Candidate& candidate, int32_t at,
               const std::vector<SlotId>& mapping) {
      if (index >= 0 && !Better(by, candidate, at, score, index)) return;
      score = candidate;
      index = at;
      slots = mapping;
    }
  };
  // Refinement works on hop-bytes: keep the `keep_` lowest distinct values (equal
  // hop-bytes are usually the same mapping), each from its lowest-index candidate.
  void KeepForRefinement(const Candidate& candidate, int32_t index, std::vector<SlotId> slots) {
    if (keep_ == 0) return;
    for (Kept& k : kept_) {
      if (k.hop_bytes != candidate.hop_bytes) continue;
      if (index < k.index)
        k = Kept{candidate.hop_bytes, index, candidate.algorithm, std::move(slots)};
      return;
    }
    auto at = std::find_if(kept_.begin(), kept_.end(),
                           [&](const Kept& k) { return candidate.hop_bytes < k.hop_bytes; });
    if (at == kept_.end() && static_cast<int32_t>(kept_.size()) >= keep_) return;
    kept_.insert(at, Kept{candidate.hop_bytes, index, candidate.algorithm, std::move(slots)});
    if (static_cast<int32_t>(kept_.size()) > keep_) kept_.pop_back();
  }
  void Report(const Candidate& candidate) const {
    if (input_.on_progress == nullptr || !*input_.on_progress) return;
    Progress progress;
    progress.elapsed_seconds = absl::ToDoubleSeconds(absl::Now() - start_);
    progress.candidate_finished = candidate.algorithm;
    progress.candidate_hop_bytes = candidate.hop_bytes;
    progress.best_algorithm = best_score_.algorithm;
    progress.best_hop_bytes = best_score_.hop_bytes;
    (*input_.on_progress)(progress);
  }

  const MapInput& input_;
  const Objective objective_;
  const int32_t keep_;
  const absl::Time start_;
  std::mutex mutex_;
  MapOutput best_;
  Candidate best_score_;
  int32_t best_index_ = -1;
  Leader least_hop_bytes_;
  Leader least_dilation_;
  Leader least_link_load_;
  std::vector<Kept> kept_;
  std::vector<std::pair<int32_t, Candidate>> listed_;
};

// The part of the budget the constructions may use.
constexpr double kConstructionShare = 0.7;

// The value of `name`'s (name, value) entry, or `absent`.
template <typename T>
T Lookup(const std::vector<std::pair<std::string, T>>& entries, const std::string& name, T absent) {
  for (const auto& [entry, value] : entries) {
    if (entry == name) return value;
  }
  return absent;
}

// Runs one construction and records its result (or why it has none); returns its
// hop-bytes when it produced a mapping.
std::optional<HopBytes> RunConstruction(const MapperRegistry& registry, const std::string& name,
                                        int32_t index, const MapInput& shared,
                                        CandidateBook& book) {
  const absl::Time start = absl::Now();
  absl::StatusOr<std::unique_ptr<Mapper>> mapper = registry.Create(name);
  absl::StatusOr<MapOutput> out =
      mapper.ok() ? (*mapper)->Map(shared) : absl::StatusOr<MapOutput>(mapper.status());
  if (out.ok()) {
    if (absl::Status s =
            ValidateMapping(shared.allocation, shared.graph.num_tasks(), out->slot_of_task);
        !s.ok()) {
      out = absl::InternalError(absl::StrCat(name, " returned an invalid mapping: ", s.message()));
    }
  }
  if (!out.ok()) {
    book.AddError(index, name, out.status().message(), start);
    return std::nullopt;
  }
  return book.Add(index, CandidateName(name, out->variant), std::move(out->slot_of_task), start,
                  std::move(out->stats));
}

// Iterated local search from `start` (unless `from_start` is false), then restarts
// from rec-bisect with other seeds while the budget lasts; each result goes to the
// book under the next index.
void IteratedSearch(const PortfolioPlan& plan, const MapInput& input, const MapInput& shared,
                    std::vector<SlotId> start_slots, const PositionGraph* near, CandidateBook& book,
                    int32_t& index, bool from_start = true) {
  const int64_t num_tasks = input.graph.num_tasks();
  const absl::Time start = absl::Now();
  // Rounds are bounded by a count of work (not the clock, so runs are
  // reproducible): about half of the time limit at 3e7 edges per second
  // (docs/tuning.md).
  const int64_t rounds =
      input.options.iteration_limit > 0 ? input.options.iteration_limit : plan.perturbations;
  const double work_budget = 0.5 * EffectiveTimeLimitSeconds(input.options, num_tasks) * 3e7;
  if (from_start) {
    std::vector<SlotId> improved =
        PerturbAndRefine(input.graph, input.allocation, std::move(start_slots), rounds, work_budget,
                         input.options.seed, input.stop, near);
    book.Add(index++, "perturb+refine", std::move(improved), start);
  }
  for (int32_t restart = 1;
       restart <= plan.restarts && num_tasks <= plan.restart_max_tasks && !input.stop.ShouldStop();
       ++restart) {
    const absl::Time restart_start = absl::Now();
    MapperOptions options = input.options;
    options.seed = RandomStream(input.options.seed, static_cast<uint64_t>(restart)).Next();
    const MapInput restart_input{shared.graph, shared.allocation, options, input.stop};
    absl::StatusOr<MapOutput> out = RecursiveBisectionMapper().Map(restart_input);
    if (!out.ok() || input.stop.ShouldStop()) break;
    Placement placement(input.graph, input.allocation, std::move(out->slot_of_task));
    RefinePlacement(placement, RefineOptions{}, input.stop, {}, near);
    std::vector<SlotId> searched =
        PerturbAndRefine(input.graph, input.allocation, std::move(placement).Release(), rounds,
                         work_budget, options.seed, input.stop, near);
    book.Add(index++, absl::StrCat("restart ", restart, ": rec-bisect+refine+perturb"),
             std::move(searched), restart_start, {{"seed", static_cast<double>(options.seed)}});
  }
}

}  // namespace

int64_t PortfolioMapper::AnnealMovesPerTask(const MapInput& input, int64_t num_tasks) const {
  const int64_t edges = input.graph.num_edges();
  // The congestion objective's refinement follows link loads, which annealing by
  // hop-bytes spreads; the dilation objective's starts from the lowest hop-bytes.
  if (input.options.objective == Objective::kCongestion || edges == 0 || plan_.anneal_share <= 0) {
    return 0;
  }
  // The caller's iteration cap is the moves per task (as for the anneal mapper).
  if (input.options.iteration_limit > 0) return input.options.iteration_limit;
  // A move scans the edges of the two tasks exchanged: 2 x the mean degree = 4 E / n
  // per move, so a chain's moves per task are share x budget x rate / (4 E).
  const double budget = EffectiveTimeLimitSeconds(input.options, num_tasks);
  const double nominal_rate =
      plan_.anneal_edge_rate / std::sqrt(static_cast<double>(std::max<int64_t>(num_tasks, 1)));
  auto moves_at = [&](double edges_per_second) {
    return plan_.anneal_share * budget * edges_per_second / (4.0 * static_cast<double>(edges));
  };
  // Whether it runs follows the nominal rate (what the machine can do): the floor
  // only lengthens the schedule of a run the deadline will cut warm. At 1M tasks the
  // floor planned 128 moves per task where 5.8M moves in all fitted in the budget,
  // and they found nothing (docs/tuning.md).
  if (moves_at(nominal_rate) < static_cast<double>(plan_.anneal_min_moves_per_task)) return 0;
  const double moves = moves_at(std::max(plan_.anneal_min_edge_rate, nominal_rate));
  return static_cast<int64_t>(std::min(moves, 1e12));
}

namespace {

// One run of the plan: the phases below share the candidate book, the analysed
// pattern, the lower bound and the next plan index. Each phase adds candidates
// and says whether the run goes on.
class PortfolioRun {
 public:
  enum class Next { kContinue, kDone };

  // `input.stop` governs every phase but the objective's last refinement
  // (RefineLinkLoads, RefineLongestEdges), which runs until `last_refine_stop`.
  PortfolioRun(const PortfolioPlan& plan, const MapperRegistry& registry, const MapInput& input,
               const StopCondition& last_refine_stop, int64_t anneal_moves_per_task)
      : plan_(plan),
        registry_(registry),
        input_(input),
        last_refine_stop_(last_refine_stop),
        anneal_moves_per_task_(anneal_moves_per_task),
        book_(input, plan.refine_best),
        shared_(input) {
    // One analysis for every candidate (the grid constructions need the pattern).
    if (input.pattern == nullptr) {
      absl::StatusOr<PatternReport> found = AnalyzePattern(input.graph);
      if (found.ok()) {
        pattern_ = *std::move(found);
        shared_.pattern = &pattern_;
      }
    }
    // Progress goes through the book (one report per candidate, with the best so far).
    shared_.on_progress = nullptr;
    // The lower bound first: a candidate that reaches it is optimal. A grid's
    // pattern gives it the grid-cut bound.
    std::optional<GridShape> grid;
    if (shared_.pattern != nullptr && shared_.pattern->is_grid()) {
      grid = GridShape{shared_.pattern->dims, shared_.pattern->periodic};
    }
    bound_ = ComputeLowerBound(input.graph, input.allocation, grid ? &*grid : nullptr);
  }

  // The caller's mapping (a runtime's current placement) competes like a
  // construction, so it is refined when it is among the best.
  absl::StatusOr<Next> OfferInitial();
  // Every construction at once.
  absl::StatusOr<Next> Construct();
  // The plan's constructions in the order they are started: the plan's, with
  // rec-bisect moved forward on a hierarchy.
  [[nodiscard]] std::vector<std::string> ConstructionOrder() const;
  // Pair exchanges from the best few results.
  absl::StatusOr<Next> RefineBest();
  // Large problems: iterated local search and restarts, annealing beside them.
  absl::StatusOr<Next> SearchLarge();
  // Small problems: GRASP with robust tabu search from the best.
  absl::StatusOr<Next> SearchSmall();
  // The congestion objective: exchanges that lower the busiest link, from the best.
  absl::StatusOr<Next> RefineLinkLoads();
  // The dilation objective: exchanges that shorten the longest edges, from the
  // least hop-bytes and from the best.
  absl::StatusOr<Next> RefineLongestEdges();
  // The time objective: both refinements above, side by side, from the least
  // hop-bytes and from the best by each one's own objective; the estimate picks.
  absl::StatusOr<Next> RefineForTime();
  // RefineCongestion (RefineDilation) from `from` over `max_work`, its result added
  // to the book at plan index `at` as `name`, with its figures.
  void AddCongestionRefined(int32_t at, const std::string& name, const std::vector<SlotId>& from,
                            int64_t max_work);
  void AddDilationRefined(int32_t at, const std::string& name, std::vector<SlotId> from,
                          int64_t max_work);

  MapOutput Finish() && {
    MapOutput out = std::move(book_).Finish();
    out.lower_bound = bound_;
    return out;
  }

 private:
  [[nodiscard]] bool AtLowerBound() const {
    return input_.options.objective == Objective::kHopBytes &&
           book_.best_hop_bytes() <= bound_.value;
  }
  // A count of work worth `share` of the budget at `per_second`, split into `parts`
  // (at least 1 each): the objectives' last refinements stop on it, not on the clock.
  [[nodiscard]] int64_t WorkWorth(double share, double per_second, int parts = 1) const {
    return static_cast<int64_t>(
        std::clamp(share * EffectiveTimeLimitSeconds(input_.options, input_.graph.num_tasks()) *
                       per_second / static_cast<double>(parts),
                   1.0, 9e18));
  }
  [[nodiscard]] const PositionGraph* Near() {
    if (!near_ && input_.allocation.num_slots() > RefineOptions{}.all_pairs_slot_limit) {
      near_ = PositionGraph::Build(input_.allocation);
    }
    return near_ ? &*near_ : nullptr;
  }

  const PortfolioPlan& plan_;
  const MapperRegistry& registry_;
  const MapInput& input_;
  const StopCondition& last_refine_stop_;
  const int64_t anneal_moves_per_task_;
  CandidateBook book_;
  PatternReport pattern_;
  MapInput shared_;
  LowerBound bound_;
  int32_t index_ = 0;  // the next candidate's place in the plan
  std::optional<PositionGraph> near_;
  // After RefineBest: the best mapping is one its refinement left unchanged at a
  // local optimum of pair exchanges (PortfolioPlan::skip_searches_at_exchange_optimum).
  bool best_is_exchange_optimum_ = false;
};

std::vector<std::string> PortfolioRun::ConstructionOrder() const {
  std::vector<std::string> order = plan_.constructions;
  // On a hierarchy (hierarchy machines, fat-trees) rec-bisect, which halves whole
  // groups there, goes right after the baselines: the idle thread takes the
  // constructions in order, and behind gge and mahd (both far worse there) it was
  // not started within a short budget (rgg 4096 onto 4:16:64 with the default 1 s:
  // 347.5M from gge; rec-bisect gives 210.1M, Scotch 252.1M).
  const auto rec_bisect = std::find(order.begin(), order.end(), "rec-bisect");
  const auto after = std::find(order.begin(), order.end(), "round-robin");
  if (rec_bisect != order.end() && after != order.end() && after < rec_bisect &&
      !HierarchyOfPositions(input_.allocation).children.empty()) {
    std::rotate(after + 1, rec_bisect, rec_bisect + 1);
  }
  return order;
}

absl::StatusOr<PortfolioRun::Next> PortfolioRun::OfferInitial() {
  if (input_.initial != nullptr) book_.Add(index_++, "initial", *input_.initial, absl::Now());
  return Next::kContinue;
}

absl::StatusOr<PortfolioRun::Next> PortfolioRun::Construct() {
  const int64_t num_tasks = input_.graph.num_tasks();
  // A construction that reaches the lower bound is optimal, and the constructions
  // after it in the plan are stopped: they cannot win (ties go to the earlier
  // candidate), so stopping them does not change the answer.
  const bool provable = input_.options.objective == Objective::kHopBytes;
  const int32_t first_construction = index_;
  const int32_t end_of_constructions =
      first_construction + static_cast<int32_t>(plan_.constructions.size());
  std::vector<std::atomic<bool>> superseded(plan_.constructions.size());
  std::atomic<int32_t> optimal_index{end_of_constructions};
  if (provable && !book_.empty() && book_.best_hop_bytes() <= bound_.value) {
    // The initial mapping is optimal: every construction is not needed.
    optimal_index = first_construction - 1;
    for (std::atomic<bool>& s : superseded) s.store(true, std::memory_order_relaxed);
  }
  auto check_optimal = [&](int32_t at, std::optional<HopBytes> hop_bytes) {
    if (!provable || !hop_bytes || *hop_bytes > bound_.value) return;
    int32_t known = optimal_index.load();
    while (at < known && !optimal_index.compare_exchange_weak(known, at)) {
    }
    for (int32_t j = at + 1; j < end_of_constructions; ++j) {
      superseded[j - first_construction].store(true, std::memory_order_relaxed);
    }
  };

  // All at once on the caller's TBB arena (each may run parallel loops of its
  // own). The first always runs, so a solve returns something even when the budget
  // is gone before it starts; the others are skipped once the deadline has passed.
  // Each is deterministic, and the book decides by (score, plan index), so the
  // result does not depend on which finishes first. They may use kConstructionShare
  // of the budget; the searches after them need the rest (docs/tuning.md).
  const absl::Time start = absl::Now();
  const StopCondition construction_stop =
      input_.stop.Until(start + (input_.stop.deadline() - start) * kConstructionShare);
  const double share_seconds = absl::ToDoubleSeconds(construction_stop.deadline() - start);
  tbb::task_group constructions;
  bool first = input_.initial == nullptr;
  auto run_construction = [&](const std::string& name, int32_t at, bool must_run) {
    const StopCondition own_stop = construction_stop.Or(&superseded[at - first_construction]);
    if (!must_run && own_stop.ShouldStop()) {
      book_.AddError(at, name, "not started: the time limit was reached", absl::Now());
      return;
    }
    const MapInput own{shared_.graph,           shared_.allocation, shared_.options, own_stop,
                       /*on_progress=*/nullptr, shared_.pattern,    shared_.initial};
    check_optimal(at, RunConstruction(registry_, name, at, own, book_));
  };
  // Lives until constructions.wait(): the tasks hold references to its names.
  const std::vector<std::string> order = ConstructionOrder();
  // On a grid, the fallbacks for irregular graphs wait for the others (their plan
  // index is kept, so the report and the ties do not change).
  const bool grid = shared_.pattern != nullptr && shared_.pattern->is_grid();
  std::vector<std::pair<int32_t, const std::string*>> deferred;
  for (const std::string& name : order) {
    const int32_t at = index_++;
    if (const int64_t limit = Lookup<int64_t>(plan_.task_limits, name, -1);
        limit >= 0 && num_tasks > limit) {
      book_.AddError(at, name, absl::StrCat("skipped: more than ", limit, " tasks"), absl::Now());
      continue;
    }
    if (const int64_t least = Lookup<int64_t>(plan_.task_minimums, name, -1); num_tasks < least) {
      book_.AddError(at, name, absl::StrCat("skipped: fewer than ", least, " tasks"), absl::Now());
      continue;
    }
    // The time a construction is expected to need, against the constructions' share
    // of the budget (not the time left: the decision does not depend on how fast the
    // others run).
    if (const double rate = Lookup(plan_.tasks_per_second, name, 0.0);
        rate > 0 && !first && static_cast<double>(num_tasks) / rate > share_seconds) {
      book_.AddError(at, name,
                     absl::StrCat("not run: it would need about ",
                                  std::llround(static_cast<double>(num_tasks) / rate), " s (at ",
                                  rate, " tasks/s), more than the constructions' ",
                                  std::llround(share_seconds), " s of the budget (docs/tuning.md)"),
                     absl::Now());
      continue;
    }
    if (grid && std::find(plan_.grid_fallbacks.begin(), plan_.grid_fallbacks.end(), name) !=
                    plan_.grid_fallbacks.end()) {
      deferred.emplace_back(at, &name);
      continue;
    }
    const bool must_run = first;
    first = false;
    constructions.run([&, at, must_run] { run_construction(name, at, must_run); });
  }
  constructions.wait();
  for (const auto& [at, name] : deferred) {
    const std::string& fallback = *name;
    if (!book_.empty() && static_cast<double>(book_.best_hop_bytes()) <=
                              plan_.grid_fallback_within * static_cast<double>(bound_.value)) {
      book_.AddError(
          at, fallback,
          absl::StrCat("not run: the graph is a grid and ", book_.best_name(), " is within ",
                       plan_.grid_fallback_within, "x the lower bound (docs/tuning.md)"),
          absl::Now());
    } else {
      run_construction(fallback, at, book_.empty());
    }
  }
  if (book_.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("no candidate produced a mapping; first error: ", book_.first_error()));
  }
  if (const int32_t optimal = optimal_index.load(); optimal < end_of_constructions) {
    book_.Supersede(optimal, end_of_constructions);
  }
  // A result at the lower bound is optimal: nothing left to search for.
  return AtLowerBound() ? Next::kDone : Next::kContinue;
}

absl::StatusOr<PortfolioRun::Next> PortfolioRun::RefineBest() {
  // Concurrently: they repair what each construction got wrong (fragmented
  // allocations, irregular graphs). A start far above the best seldom overtakes it
  // after refinement and costs the most (plan.refine_within).
  std::vector<std::pair<std::string, std::vector<SlotId>>> kept =
      book_.TakeKept(plan_.refine_within);
  RefineOptions refine_options;
  if (input_.graph.num_tasks() > plan_.refine_one_above_tasks) {
    // At scale: one refinement, active sets of the moved tasks and their neighbours
    // only, and no confirming pass over every task after them
    // (PortfolioPlan::refine_one_above_tasks).
    if (kept.size() > 1) kept.resize(1);
    refine_options.wake_near_nodes = false;
    refine_options.confirm_local_optimum = false;
  }
  const PositionGraph* near = kept.empty() ? nullptr : Near();
  tbb::task_group refines;
  // Per kept result: its hop-bytes after refinement, and whether the refinement
  // left it unchanged at a local optimum (-1: not run).
  std::vector<HopBytes> refined(kept.size(), -1);
  std::vector<char> unchanged(kept.size(), 0);
  // An element, not a structured binding: clang before 16 cannot capture bindings.
  for (size_t k = 0; k < kept.size(); ++k) {
    const int32_t at = index_++;
    refines.run([&, at, k] {
      if (input_.stop.ShouldStop()) return;
      const absl::Time start = absl::Now();
      Placement placement(input_.graph, input_.allocation, std::move(kept[k].second));
      const RefineStats stats = RefinePlacement(placement, refine_options, input_.stop, {}, near);
      unchanged[k] = stats.exchanges == 0 && stats.local_optimum;
      refined[k] = book_.Add(at, absl::StrCat("refine(", kept[k].first, ")"),
                             std::move(placement).Release(), start,
                             {{"passes", static_cast<double>(stats.passes)},
                              {"exchanges", static_cast<double>(stats.exchanges)},
                              {"stopped_early", stats.local_optimum ? 0.0 : 1.0}});
    });
  }
  refines.wait();
  for (size_t k = 0; k < kept.size(); ++k) {
    if (unchanged[k] && refined[k] == book_.best_hop_bytes()) best_is_exchange_optimum_ = true;
  }
  return Next::kContinue;
}

absl::StatusOr<PortfolioRun::Next> PortfolioRun::SearchLarge() {
  if (input_.allocation.num_slots() <= plan_.grasp_slot_limit || input_.stop.ShouldStop() ||
      input_.graph.num_edges() == 0) {
    return Next::kContinue;
  }
  if (plan_.skip_searches_at_exchange_optimum && best_is_exchange_optimum_ &&
      input_.options.objective == Objective::kHopBytes) {
    const char* why =
        "not run: the best mapping is a local optimum its refinement did not change, "
        "from which the searches find nothing better (docs/tuning.md)";
    if (anneal_moves_per_task_ > 0) book_.AddError(index_++, "anneal", why, absl::Now());
    if (plan_.perturbations > 0) book_.AddError(index_++, "perturb+refine", why, absl::Now());
    // rec-bisect draws its cuts at random: when its mapping is the best, the
    // restarts (the same construction with other seeds) can still land lower.
    if (plan_.perturbations > 0 && book_.best_name() == "rec-bisect") {
      IteratedSearch(plan_, input_, shared_, /*start_slots=*/{}, Near(), book_, index_,
                     /*from_start=*/false);
    }
    return Next::kContinue;
  }
  const PositionGraph* near = Near();
  const std::vector<SlotId> start_slots = book_.best_slots();
  // Beside the iterated search (on another core: it is mostly sequential),
  // simulated annealing from the same start.
  tbb::task_group beside;
  if (const int64_t moves_per_task = anneal_moves_per_task_; moves_per_task > 0) {
    const int32_t at = index_++;
    beside.run([&, at, moves_per_task] {
      const absl::Time start = absl::Now();
      AnnealOptions options = plan_.anneal;
      options.moves_per_task = moves_per_task;
      // Longer runs start hotter (PortfolioPlan::anneal).
      options.start_temperature *=
          std::clamp(std::sqrt(static_cast<double>(moves_per_task) /
                               static_cast<double>(plan_.anneal.moves_per_task)),
                     1.0, 10.0 / 3);
      AnnealStats stats;
      std::vector<SlotId> annealed = Anneal(input_.graph, input_.allocation, start_slots, options,
                                            input_.options.seed, input_.stop, near, &stats);
      // (The plan does not cool to the deadline, so a cut chain is stopped early.)
      std::vector<Statistic> figures = {{"moves_per_task", static_cast<double>(moves_per_task)}};
      for (Statistic& f : AnnealStatistics(stats)) figures.push_back(std::move(f));
      book_.Add(at, "anneal", std::move(annealed), start, std::move(figures));
    });
  }
  if (plan_.perturbations > 0) {
    IteratedSearch(plan_, input_, shared_, start_slots, near, book_, index_);
  }
  beside.wait();
  return Next::kContinue;
}

absl::StatusOr<PortfolioRun::Next> PortfolioRun::SearchSmall() {
  if (input_.allocation.num_slots() > plan_.grasp_slot_limit || input_.stop.ShouldStop() ||
      input_.graph.num_edges() == 0) {
    return Next::kContinue;
  }
  const absl::Time start = absl::Now();
  MapperOptions options = input_.options;
  if (options.iteration_limit == 0) {
    options.iteration_limit = DefaultGraspIterations(input_.allocation.num_slots());
  }
  std::vector<SlotId> initial = book_.best_slots();
  const MapInput grasp_input{shared_.graph,           shared_.allocation, options, shared_.stop,
                             /*on_progress=*/nullptr, shared_.pattern,    &initial};
  absl::StatusOr<MapOutput> out = GraspMapper().Map(grasp_input);
  if (out.ok()) {
    book_.Add(index_++, "grasp", std::move(out->slot_of_task), start, std::move(out->stats));
  } else {
    book_.AddError(index_++, "grasp", out.status().message(), start);
  }
  return Next::kContinue;
}

absl::StatusOr<PortfolioRun::Next> PortfolioRun::RefineLinkLoads() {
  if (input_.options.objective != Objective::kCongestion || plan_.congestion_share <= 0 ||
      last_refine_stop_.ShouldStop() || input_.graph.num_edges() == 0 ||
      input_.allocation.machine().num_links() == 0) {
    return Next::kContinue;
  }
  AddCongestionRefined(index_++, "congestion-refine", book_.best_slots(),
                       WorkWorth(plan_.congestion_share, plan_.congestion_links_per_second));
  return Next::kContinue;
}

void PortfolioRun::AddCongestionRefined(int32_t at, const std::string& name,
                                        const std::vector<SlotId>& from, int64_t max_work) {
  const absl::Time start = absl::Now();
  CongestionRefineOptions options;
  options.max_work = max_work;
  options.by_link_time = input_.options.objective == Objective::kTime;
  CongestionRefineStats stats;
  std::vector<SlotId> refined =
      RefineCongestion(input_.graph, input_.allocation, from, input_.options.routing, options,
                       last_refine_stop_, Near(), &stats);
  book_.Add(at, name, std::move(refined), start,
            {{"exchanges", static_cast<double>(stats.exchanges)},
             {"max_link_load_before", stats.start_max_load},
             {"max_link_load_after", stats.end_max_load},
             {"stopped_early", stats.local_optimum ? 0.0 : 1.0}});
}

void PortfolioRun::AddDilationRefined(int32_t at, const std::string& name, std::vector<SlotId> from,
                                      int64_t max_work) {
  const absl::Time start = absl::Now();
  DilationRefineOptions options;
  options.max_work = max_work;
  DilationRefineStats stats;
  std::vector<SlotId> refined = RefineDilation(input_.graph, input_.allocation, std::move(from),
                                               options, last_refine_stop_, Near(), &stats);
  book_.Add(at, name, std::move(refined), start,
            {{"shortening_exchanges", static_cast<double>(stats.shortening_exchanges)},
             {"recovering_exchanges", static_cast<double>(stats.recovering_exchanges)},
             {"max_dilation_before", static_cast<double>(stats.start_max_dilation)},
             {"max_dilation_after", static_cast<double>(stats.end_max_dilation)},
             {"stopped_early", stats.local_optimum ? 0.0 : 1.0}});
}

absl::StatusOr<PortfolioRun::Next> PortfolioRun::RefineLongestEdges() {
  if (input_.options.objective != Objective::kDilation || plan_.dilation_share <= 0 ||
      last_refine_stop_.ShouldStop() || input_.graph.num_edges() == 0) {
    return Next::kContinue;
  }
  // From the least hop-bytes, then from the objective's best when that is another
  // mapping, each with half the work.
  std::vector<std::vector<SlotId>> starts = {book_.least_hop_bytes_slots()};
  if (book_.best_slots() != starts.front()) starts.push_back(book_.best_slots());
  const int64_t work = WorkWorth(plan_.dilation_share, plan_.dilation_edges_per_second,
                                 static_cast<int>(starts.size()));
  for (size_t k = 0; k < starts.size(); ++k) {
    AddDilationRefined(index_++, k == 0 ? "dilation-refine" : "dilation-refine(from the best)",
                       std::move(starts[k]), work);
  }
  return Next::kContinue;
}

absl::StatusOr<PortfolioRun::Next> PortfolioRun::RefineForTime() {
  if (input_.options.objective != Objective::kTime || plan_.time_share <= 0 ||
      last_refine_stop_.ShouldStop() || input_.graph.num_edges() == 0) {
    return Next::kContinue;
  }
  // Small messages wait on their routes' latency, large ones on the busiest link:
  // one refinement for each (the two cores), each from the least hop-bytes and then
  // from the best by its own objective when that is another mapping (what
  // --objective congestion and dilation start from), with the share's work split
  // between the starts. The estimate decides between them and the rest.
  // Built here: the two tasks below call Near() concurrently, and then only read it.
  static_cast<void>(Near());
  const int32_t first = index_;
  index_ += 4;
  auto starts = [&](const std::vector<SlotId>& own_best) {
    std::vector<std::vector<SlotId>> out = {book_.least_hop_bytes_slots()};
    if (own_best != out.front()) out.push_back(own_best);
    return out;
  };
  tbb::task_group both;
  both.run([&] {
    const std::vector<std::vector<SlotId>> from = starts(book_.least_link_load_slots());
    const int64_t work = WorkWorth(plan_.time_share, plan_.congestion_links_per_second,
                                   static_cast<int>(from.size()));
    for (size_t k = 0; k < from.size(); ++k) {
      AddCongestionRefined(
          first + static_cast<int32_t>(k),
          k == 0 ? "congestion-refine" : "congestion-refine(from the least loaded)", from[k], work);
    }
  });
  both.run([&] {
    std::vector<std::vector<SlotId>> from = starts(book_.least_dilation_slots());
    const int64_t work =
        WorkWorth(plan_.time_share, plan_.dilation_edges_per_second, static_cast<int>(from.size()));
    for (size_t k = 0; k < from.size(); ++k) {
      AddDilationRefined(first + 2 + static_cast<int32_t>(k),
                         k == 0 ? "dilation-refine" : "dilation-refine(from the shortest)",
                         std::move(from[k]), work);
    }
  });
  both.wait();
  return Next::kContinue;
}

// The phases in the order they run; a phase that returns kDone ends the run.
constexpr absl::StatusOr<PortfolioRun::Next> (PortfolioRun::*kPhases[])() = {
    &PortfolioRun::OfferInitial,       &PortfolioRun::Construct,     &PortfolioRun::RefineBest,
    &PortfolioRun::SearchLarge,        &PortfolioRun::SearchSmall,   &PortfolioRun::RefineLinkLoads,
    &PortfolioRun::RefineLongestEdges, &PortfolioRun::RefineForTime,
};

}  // namespace

absl::StatusOr<MapOutput> PortfolioMapper::Map(const MapInput& input) const {
  // The lower bound it computes first never ends with more tasks than slots.
  if (absl::Status s = CheckFits(input.graph, input.allocation); !s.ok()) return s;
  if (absl::Status s = plan_.Validate(); !s.ok()) return s;
  // With the congestion, the dilation or the time objective its refinement, last, gets its
  // share of the time left: the phases before it stop that much earlier (GRASP and
  // the searches would otherwise use all of it, and it would never run).
  StopCondition before_last_refine = input.stop;
  const absl::Time deadline = input.stop.deadline();
  double last_share = 0;
  switch (input.options.objective) {
    case Objective::kHopBytes:
      break;
    case Objective::kCongestion:
      last_share = plan_.congestion_share;
      break;
    case Objective::kDilation:
      last_share = plan_.dilation_share;
      break;
    case Objective::kTime:
      last_share = plan_.time_share;
      break;
  }
  if (last_share > 0 && deadline != absl::InfiniteFuture()) {
    const absl::Time now = absl::Now();
    if (deadline > now) {
      before_last_refine = input.stop.Until(deadline - (deadline - now) * last_share);
    }
  }
  const MapInput searches_input{input.graph,        input.allocation,  input.options,
                                before_last_refine, input.on_progress, input.pattern,
                                input.initial};
  // The refinement's work is a count (congestion_share of the budget at a nominal
  // rate), so it runs even when the phases before it overran their stop, as on a
  // slow machine: only cancellation stops it early.
  const StopCondition last_refine_stop = input.stop.WithoutDeadline();
  PortfolioRun run(plan_, *registry_, searches_input, last_refine_stop,
                   AnnealMovesPerTask(input, input.graph.num_tasks()));
  for (auto phase : kPhases) {
    absl::StatusOr<PortfolioRun::Next> next = (run.*phase)();
    if (!next.ok()) return next.status();
    if (*next == PortfolioRun::Next::kDone) break;
  }
  return std::move(run).Finish();
}

}  // namespace hopmap
