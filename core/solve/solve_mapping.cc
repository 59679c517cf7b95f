#include "core/solve/solve_mapping.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "core/mappers/inside_nodes.h"
#include "core/mappers/portfolio/portfolio.h"
#include "core/metrics/hop_bytes.h"
#include "core/solve/measure.h"
#include "tbb/task_arena.h"

namespace hopmap {
namespace {

int ArenaThreads(int threads) { return threads > 0 ? threads : tbb::task_arena::automatic; }

// What EvaluateMapping checks first (CheckEvaluateRequest leaves the fit to it).
absl::Status CheckProblem(const TaskGraph& graph, const Allocation& allocation) {
  if (absl::Status s = CheckFits(graph, allocation); !s.ok()) return s;
  return CheckHopBytesFit(graph, allocation);
}

}  // namespace

absl::StatusOr<MappingReport> SolveMapping(const TaskGraph& graph, const Allocation& allocation,
                                           absl::string_view algorithm,
                                           const MapperOptions& options,
                                           const MapperRegistry& registry,
                                           const SolveControl& control) {
  if (absl::Status s = CheckHopBytesFit(graph, allocation); !s.ok()) return s;
  if ((options.objective == Objective::kCongestion || options.objective == Objective::kTime) &&
      allocation.machine().num_links() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "objective ", ObjectiveName(options.objective), " needs a machine with links; ",
        allocation.machine().Spec(), " has only distances"));
  }
  absl::StatusOr<std::unique_ptr<Mapper>> mapper = registry.Create(algorithm);
  if (!mapper.ok()) return mapper.status();
  if (control.initial != nullptr) {
    if (absl::Status s = ValidateMapping(allocation, graph.num_tasks(), *control.initial);
        !s.ok()) {
      // ValidateMapping's messages start "mapping: ...".
      return absl::InvalidArgumentError(absl::StrCat("initial ", s.message()));
    }
  }

  tbb::task_arena arena(ArenaThreads(options.threads));
  absl::StatusOr<MappingReport> result;
  arena.execute([&] {
    const absl::Time start = absl::Now();
    MapperOptions sized = options;
    sized.time_limit_seconds = EffectiveTimeLimitSeconds(options, graph.num_tasks());
    const StopCondition stop(start + absl::Seconds(sized.time_limit_seconds), control.cancelled);
    absl::StatusOr<MapOutput> out =
        (*mapper)->Map({graph, allocation, sized, stop, &control.on_progress,
                        /*pattern=*/nullptr, control.initial});
    const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
    if (!out.ok()) {
      result = out.status();
      return;
    }
    if (absl::Status s = ValidateMapping(allocation, graph.num_tasks(), out->slot_of_task);
        !s.ok()) {
      result = absl::InternalError(absl::StrCat("algorithm ", std::string(algorithm),
                                                " returned an invalid mapping: ", s.message()));
      return;
    }
    MappingReport report;
    // The mapper chose the nodes; with a node interior the cores inside them follow.
    report.slot_of_task = allocation.machine().node_interior() != nullptr
                              ? PlaceInsideNodes(graph, allocation, out->slot_of_task)
                              : std::move(out->slot_of_task);
    MeasureMapping(graph, allocation, options.routing, report, out->lower_bound);
    report.solve_seconds = seconds;
    report.time_limit_seconds = sized.time_limit_seconds;
    if (out->candidates.empty()) {
      report.algorithm = CandidateName(std::string(algorithm), out->variant);
      Candidate only{report.algorithm, report.hop_bytes, report.link_loads.max_load, seconds, "",
                     out->stats};
      report.candidates.push_back(std::move(only));
      report.stats = std::move(out->stats);
    } else {
      report.algorithm = out->winner;
      report.candidates = std::move(out->candidates);
      for (const Candidate& c : report.candidates) {
        if (c.algorithm == report.algorithm && c.error.empty()) report.stats = c.stats;
      }
    }
    result = std::move(report);
  });
  return result;
}

absl::StatusOr<MappingReport> EvaluateMapping(const TaskGraph& graph, const Allocation& allocation,
                                              std::vector<SlotId> slot_of_task, Routing routing,
                                              int threads) {
  if (absl::Status s = CheckProblem(graph, allocation); !s.ok()) return s;
  if (absl::Status s = ValidateMapping(allocation, graph.num_tasks(), slot_of_task); !s.ok()) {
    return s;
  }
  tbb::task_arena arena(ArenaThreads(threads));
  MappingReport report;
  report.algorithm = "given";
  report.slot_of_task = std::move(slot_of_task);
  arena.execute([&] { MeasureMapping(graph, allocation, routing, report, std::nullopt); });
  return report;
}

}  // namespace hopmap
