#include "core/mappers/portfolio.h"

#include "absl/strings/str_cat.h"
#include "core/metrics/hop_bytes.h"
#include "core/metrics/link_loads.h"

namespace hopmap {

std::string CandidateName(const std::string& mapper, const std::string& variant) {
  return variant.empty() ? mapper : absl::StrCat(mapper, "(", variant, ")");
}

absl::StatusOr<MapOutput> PortfolioMapper::Map(const MapInput& input) const {
  const bool congestion = input.options.objective == Objective::kCongestion;
  MapOutput best;
  Candidate best_score;
  const absl::Time portfolio_start = absl::Now();
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
  for (const std::string& name : candidates_) {
    // The first candidate always runs, so a solve returns something even when the
    // budget is gone before it starts.
    if (!best.slot_of_task.empty() && input.stop.ShouldStop()) break;
    const absl::Time start = absl::Now();
    Candidate candidate;
    candidate.algorithm = name;
    absl::StatusOr<std::unique_ptr<Mapper>> mapper = registry_->Create(name);
    absl::StatusOr<MapOutput> out =
        mapper.ok() ? (*mapper)->Map(shared) : absl::StatusOr<MapOutput>(mapper.status());
    if (out.ok()) {
      if (absl::Status s =
              ValidateMapping(input.allocation, input.graph.num_tasks(), out->slot_of_task);
          !s.ok()) {
        out =
            absl::InternalError(absl::StrCat(name, " returned an invalid mapping: ", s.message()));
      }
    }
    if (!out.ok()) {
      candidate.error = std::string(out.status().message());
      candidate.seconds = absl::ToDoubleSeconds(absl::Now() - start);
      best.candidates.push_back(std::move(candidate));
      continue;
    }
    candidate.algorithm = CandidateName(name, out->variant);
    candidate.hop_bytes = ComputeHopBytes(input.graph, input.allocation, out->slot_of_task);
    if (congestion) {
      candidate.max_link_load =
          ComputeLinkLoads(input.graph, input.allocation, out->slot_of_task, input.options.routing)
              .max_load;
    }
    candidate.seconds = absl::ToDoubleSeconds(absl::Now() - start);
    const bool better = best.slot_of_task.empty() ||
                        (congestion ? (candidate.max_link_load < best_score.max_link_load ||
                                       (candidate.max_link_load == best_score.max_link_load &&
                                        candidate.hop_bytes < best_score.hop_bytes))
                                    : candidate.hop_bytes < best_score.hop_bytes);
    if (better) {
      best.slot_of_task = std::move(out->slot_of_task);
      best.winner = candidate.algorithm;
      best_score = candidate;
    }
    if (input.on_progress != nullptr && *input.on_progress) {
      Progress progress;
      progress.elapsed_seconds = absl::ToDoubleSeconds(absl::Now() - portfolio_start);
      progress.candidate_finished = candidate.algorithm;
      progress.candidate_hop_bytes = candidate.hop_bytes;
      progress.best_algorithm = best_score.algorithm;
      progress.best_hop_bytes = best_score.hop_bytes;
      (*input.on_progress)(progress);
    }
    best.candidates.push_back(std::move(candidate));
  }
  if (best.slot_of_task.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("no candidate produced a mapping; first error: ",
                     best.candidates.empty() ? "none ran" : best.candidates.front().error));
  }
  return best;
}

}  // namespace hopmap
