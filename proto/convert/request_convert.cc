// Map and Evaluate requests as the core's SolveRequest and EvaluateRequest, and
// MapStream's progress as the core's Progress.
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/convert/convert.h"

namespace hopmap {
namespace {

absl::Status FieldError(absl::string_view field, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", message));
}

}  // namespace

absl::StatusOr<SolveRequest> SolveRequestFromProto(const v1::MapRequest& request) {
  SolveRequest out;
  if (!request.algorithm().empty()) out.algorithm = request.algorithm();
  MapperOptions& options = out.options;
  if (!request.objective().empty()) {
    absl::StatusOr<Objective> objective = ParseObjective(request.objective());
    if (!objective.ok()) return FieldError("objective", objective.status().message());
    options.objective = *objective;
  }
  if (!request.routing().empty()) {
    absl::StatusOr<Routing> routing = ParseRouting(request.routing());
    if (!routing.ok()) return FieldError("routing", routing.status().message());
    options.routing = *routing;
  }
  options.seed = request.seed() == 0 ? 1 : request.seed();
  options.iteration_limit = request.iteration_limit();
  if (request.threads() < 0) {
    return FieldError(
        "threads", absl::StrCat("must be >= 0 (0: the server's choice), got ", request.threads()));
  }
  options.threads = request.threads();
  const double time_limit = request.time_limit_seconds();
  if (!std::isfinite(time_limit) || time_limit < 0) {
    return FieldError("time_limit_seconds",
                      absl::StrCat("must be a finite number of seconds >= 0 (0: the server's "
                                   "default), got ",
                                   time_limit));
  }
  options.time_limit_seconds = time_limit;
  out.initial.assign(request.initial_slot_of_task().begin(), request.initial_slot_of_task().end());
  if (request.has_balance()) out.balance = BalanceRequestFromProto(request.balance());
  out.keep_blocks = request.keep_blocks() == 0 ? 1 : request.keep_blocks();
  return out;
}

void SolveRequestToProto(const SolveRequest& request, v1::MapRequest* out) {
  const MapperOptions& options = request.options;
  out->set_algorithm(request.algorithm);
  out->set_objective(ObjectiveName(options.objective));
  out->set_routing(RoutingName(options.routing));
  out->set_time_limit_seconds(options.time_limit_seconds);
  out->set_seed(options.seed);
  out->set_iteration_limit(options.iteration_limit);
  out->set_threads(options.threads);
  out->mutable_initial_slot_of_task()->Assign(request.initial.begin(), request.initial.end());
  if (request.balance.has_value()) BalanceRequestToProto(*request.balance, out->mutable_balance());
  out->set_keep_blocks(request.keep_blocks);
}

absl::StatusOr<EvaluateRequest> EvaluateRequestFromProto(const v1::EvaluateRequest& request) {
  EvaluateRequest out;
  if (!request.routing().empty()) {
    absl::StatusOr<Routing> routing = ParseRouting(request.routing());
    if (!routing.ok()) return FieldError("routing", routing.status().message());
    out.routing = *routing;
  }
  out.slot_of_task.assign(request.slot_of_task().begin(), request.slot_of_task().end());
  out.busiest_links = request.busiest_links();
  if (request.has_balance()) out.balance = BalanceRequestFromProto(request.balance());
  return out;
}

void EvaluateRequestToProto(const EvaluateRequest& request, v1::EvaluateRequest* out) {
  out->set_routing(RoutingName(request.routing));
  out->mutable_slot_of_task()->Assign(request.slot_of_task.begin(), request.slot_of_task.end());
  out->set_busiest_links(request.busiest_links);
  if (request.balance.has_value()) BalanceRequestToProto(*request.balance, out->mutable_balance());
}

void ProgressToProto(const Progress& progress, v1::Progress* out) {
  out->set_elapsed_seconds(progress.elapsed_seconds);
  out->set_best_hop_bytes(progress.best_hop_bytes);
  out->set_best_algorithm(progress.best_algorithm);
  out->set_candidate_finished(progress.candidate_finished);
  out->set_candidate_hop_bytes(progress.candidate_hop_bytes);
}

Progress ProgressFromProto(const v1::Progress& progress) {
  Progress out;
  out.elapsed_seconds = progress.elapsed_seconds();
  out.best_hop_bytes = progress.best_hop_bytes();
  out.best_algorithm = progress.best_algorithm();
  out.candidate_finished = progress.candidate_finished();
  out.candidate_hop_bytes = progress.candidate_hop_bytes();
  return out;
}

}  // namespace hopmap
