#include "core/mappers/portfolio.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/mappers/grasp.h"
#include "core/mappers/iterated_refine.h"
#include "core/mappers/placement.h"
#include "core/mappers/random_stream.h"
#include "core/mappers/refine.h"
#include "core/metrics/hop_bytes.h"
#include "core/metrics/link_loads.h"
#include "core/metrics/lower_bound.h"

namespace hopmap {

std::string CandidateName(const std::string& mapper, const std::string& variant) {
  return variant.empty() ? mapper : absl::StrCat(mapper, "(", variant, ")");
}

absl::Status PortfolioPlan::Validate() const {
  if (constructions.empty()) {
    return absl::InvalidArgumentError("portfolio plan: no constructions");
  }
  if (refine_best < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("portfolio plan: refine_best must be >= 0, got ", refine_best));
  }
  if (grasp_slot_limit < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("portfolio plan: grasp_slot_limit must be >= 0, got ", grasp_slot_limit));
  }
  return absl::OkStatus();
}

PortfolioPlan DefaultPortfolioPlan() {
  PortfolioPlan plan;
  // Cheap baselines first (a solve always has them), then the grid constructions
  // (they refuse unless the analyzer finds a near-neighbour grid), then the general
  // constructions of issue 4.
  plan.constructions = {"in-order",   "axis-order", "round-robin", "fold", "stack", "cart-greedy",
                        "hilbert",    "mxov-al",    "affn",        "step", "pairs", "gge",
                        "rec-bisect", "mahd",       "ohtma",       "exact"};
  // ohtma's exchange pass is O(n^2 deg) (bench/mapper_timing); exact proves n <= 12
  // in well under a second (bench/qaplib_exact) and may take minutes beyond.
  plan.task_limits = {{"ohtma", 2048}, {"exact", 12}};
  return plan;
}

int64_t DefaultGraspIterations(int64_t slots) {
  const int64_t cube = std::max<int64_t>(slots, 1) * slots * slots;
  return std::clamp<int64_t>(100'000'000 / cube, 1, 64);
}

namespace {

// Keeps the best result and the few best distinct ones to refine.
class CandidateBook {
 public:
  CandidateBook(const MapInput& input, int32_t keep)
      : input_(input),
        congestion_(input.options.objective == Objective::kCongestion),
        keep_(keep),
        start_(absl::Now()) {}

  // Scores `slots` and records it as candidate `name`; keeps it if it is among the
  // best. `started` is when the candidate began.
  void Add(const std::string& name, std::vector<SlotId> slots, absl::Time started) {
    Candidate candidate;
    candidate.algorithm = name;
    candidate.hop_bytes = ComputeHopBytes(input_.graph, input_.allocation, slots);
    if (congestion_) {
      candidate.max_link_load =
          ComputeLinkLoads(input_.graph, input_.allocation, slots, input_.options.routing).max_load;
    }
    candidate.seconds = absl::ToDoubleSeconds(absl::Now() - started);
    if (best_.slot_of_task.empty() || Better(candidate, best_score_)) {
      best_.slot_of_task = slots;
      best_.winner = candidate.algorithm;
      best_score_ = candidate;
    }
    KeepForRefinement(candidate, std::move(slots));
    Report(candidate);
    best_.candidates.push_back(std::move(candidate));
  }
  void AddError(const std::string& name, absl::string_view error, absl::Time started) {
    Candidate candidate;
    candidate.algorithm = name;
    candidate.error = std::string(error);
    candidate.seconds = absl::ToDoubleSeconds(absl::Now() - started);
    best_.candidates.push_back(std::move(candidate));
  }

  [[nodiscard]] bool empty() const { return best_.slot_of_task.empty(); }
  [[nodiscard]] const std::vector<SlotId>& best_slots() const { return best_.slot_of_task; }
  [[nodiscard]] HopBytes best_hop_bytes() const { return best_score_.hop_bytes; }
  // The kept results, best first: (candidate name, mapping).
  [[nodiscard]] std::vector<std::pair<std::string, std::vector<SlotId>>> TakeKept() {
    std::vector<std::pair<std::string, std::vector<SlotId>>> out;
    for (Kept& k : kept_) out.emplace_back(std::move(k.name), std::move(k.slots));
    kept_.clear();
    return out;
  }
  MapOutput Finish() && { return std::move(best_); }

 private:
  struct Kept {
    HopBytes hop_bytes;
    std::string name;
    std::vector<SlotId> slots;
  };

  bool Better(const Candidate& a, const Candidate& b) const {
    if (congestion_ && a.max_link_load != b.max_link_load) {
      return a.max_link_load < b.max_link_load;
    }
    return a.hop_bytes < b.hop_bytes;
  }
  // Refinement works on hop-bytes: keep the `keep_` lowest, distinct values only
  // (equal hop-bytes are usually the same mapping), earlier candidates first.
  void KeepForRefinement(const Candidate& candidate, std::vector<SlotId> slots) {
    if (keep_ == 0) return;
    for (const Kept& k : kept_) {
      if (k.hop_bytes == candidate.hop_bytes) return;
    }
    auto at = std::find_if(kept_.begin(), kept_.end(),
                           [&](const Kept& k) { return candidate.hop_bytes < k.hop_bytes; });
    if (at == kept_.end() && static_cast<int32_t>(kept_.size()) >= keep_) return;
    kept_.insert(at, Kept{candidate.hop_bytes, candidate.algorithm, std::move(slots)});
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
  const bool congestion_;
  const int32_t keep_;
  const absl::Time start_;
  MapOutput best_;
  Candidate best_score_;
  std::vector<Kept> kept_;
};

int64_t TaskLimit(const PortfolioPlan& plan, const std::string& name) {
  for (const auto& [limited, max_tasks] : plan.task_limits) {
    if (limited == name) return max_tasks;
  }
  return -1;
}

}  // namespace

absl::StatusOr<MapOutput> PortfolioMapper::Map(const MapInput& input) const {
  if (absl::Status s = plan_.Validate(); !s.ok()) return s;
  CandidateBook book(input, plan_.refine_best);
  // One analysis for every candidate (the grid constructions need the pattern).
  PatternReport pattern;
  MapInput shared = input;
  if (input.pattern == nullptr) {
    absl::StatusOr<PatternReport> found = AnalyzePattern(input.graph);
    if (found.ok()) {
      pattern = *std::move(found);
      shared.pattern = &pattern;
    }
  }
  const int64_t num_tasks = input.graph.num_tasks();
  // The caller's mapping (a runtime's current placement) competes like a
  // construction, so it is refined when it is among the best.
  if (input.initial != nullptr) book.Add("initial", *input.initial, absl::Now());
  for (const std::string& name : plan_.constructions) {
    // The first candidate always runs, so a solve returns something even when the
    // budget is gone before it starts.
    if (!book.empty() && input.stop.ShouldStop()) break;
    const absl::Time start = absl::Now();
    if (const int64_t limit = TaskLimit(plan_, name); limit >= 0 && num_tasks > limit) {
      book.AddError(name, absl::StrCat("skipped: more than ", limit, " tasks"), start);
      continue;
    }
    absl::StatusOr<std::unique_ptr<Mapper>> mapper = registry_->Create(name);
    absl::StatusOr<MapOutput> out =
        mapper.ok() ? (*mapper)->Map(shared) : absl::StatusOr<MapOutput>(mapper.status());
    if (out.ok()) {
      if (absl::Status s = ValidateMapping(input.allocation, num_tasks, out->slot_of_task);
          !s.ok()) {
        out =
            absl::InternalError(absl::StrCat(name, " returned an invalid mapping: ", s.message()));
      }
    }
    if (!out.ok()) {
      book.AddError(name, out.status().message(), start);
      continue;
    }
    book.Add(CandidateName(name, out->variant), std::move(out->slot_of_task), start);
  }
  if (book.empty()) {
    MapOutput failed = std::move(book).Finish();
    return absl::FailedPreconditionError(
        absl::StrCat("no candidate produced a mapping; first error: ",
                     failed.candidates.empty() ? "none ran" : failed.candidates.front().error));
  }

  const LowerBound bound = ComputeLowerBound(input.graph, input.allocation, shared.pattern);
  auto finish = [&book, &bound] {
    MapOutput out = std::move(book).Finish();
    out.lower_bound = bound;
    return out;
  };
  // A construction at the lower bound is optimal: nothing left to search for.
  if (input.options.objective == Objective::kHopBytes && book.best_hop_bytes() <= bound.value) {
    return finish();
  }

  // Pair exchanges from the best few constructions: they repair what each
  // construction got wrong (fragmented allocations, irregular graphs).
  for (auto& [name, slots] : book.TakeKept()) {
    if (input.stop.ShouldStop()) break;
    const absl::Time start = absl::Now();
    Placement placement(input.graph, input.allocation, std::move(slots));
    RefinePlacement(placement, RefineOptions{}, input.stop);
    book.Add(absl::StrCat("refine(", name, ")"), std::move(placement).Release(), start);
  }

  // Larger problems: iterated local search from the best so far.
  if (input.allocation.num_slots() > plan_.grasp_slot_limit && plan_.perturbations > 0 &&
      !input.stop.ShouldStop() && input.graph.num_edges() > 0) {
    const absl::Time start = absl::Now();
    // Rounds are bounded by a count of work (not the clock, so runs are
    // reproducible): about half of the time limit at the ~3e7 edges scanned per second
    // measured on the development machine.
    const int64_t rounds =
        input.options.iteration_limit > 0 ? input.options.iteration_limit : plan_.perturbations;
    const double work_budget = 0.5 * input.options.time_limit_seconds * 3e7;
    std::vector<SlotId> improved =
        PerturbAndRefine(input.graph, input.allocation, book.best_slots(), rounds, work_budget,
                         input.options.seed, input.stop);
    book.Add("perturb+refine", std::move(improved), start);
  }

  // Small problems: GRASP with robust tabu search from the best so far.
  if (input.allocation.num_slots() <= plan_.grasp_slot_limit && !input.stop.ShouldStop() &&
      input.graph.num_edges() > 0) {
    const absl::Time start = absl::Now();
    MapperOptions options = input.options;
    if (options.iteration_limit == 0) {
      options.iteration_limit = DefaultGraspIterations(input.allocation.num_slots());
    }
    std::vector<SlotId> initial = book.best_slots();
    const MapInput grasp_input{shared.graph,
                               shared.allocation,
                               options,
                               shared.stop,
                               /*on_progress=*/nullptr,
                               shared.pattern,
                               &initial};
    absl::StatusOr<MapOutput> out = GraspMapper().Map(grasp_input);
    if (out.ok()) {
      book.Add("grasp", std::move(out->slot_of_task), start);
    } else {
      book.AddError("grasp", out.status().message(), start);
    }
  }
  return finish();
}

}  // namespace hopmap
