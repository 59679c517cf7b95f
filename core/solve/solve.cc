#include "core/solve/solve.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/balance/balancers.h"
#include "core/mappers/portfolio/registry.h"
#include "core/solve/keep_blocks.h"
#include "core/solve/measure.h"
#include "core/solve/solve_balanced.h"

namespace hopmap {
namespace {

std::optional<RequestError> Problem(std::string field, absl::Status status) {
  return RequestError{std::move(field), std::move(status)};
}

std::optional<RequestError> CheckProblem(const TaskGraph* graph, const Allocation* allocation) {
  if (graph == nullptr) return Problem("graph", absl::InvalidArgumentError("no task graph"));
  if (allocation == nullptr) {
    return Problem("allocation", absl::InvalidArgumentError("no allocation"));
  }
  return CheckGraphHasTasks(*graph);
}

std::optional<RequestError> CheckBalance(const TaskGraph& graph, const Allocation& allocation,
                                         const BalanceRequest& balance) {
  if (absl::Status s = ValidateBalanceInput(balance.Input(graph, allocation), balance.options);
      !s.ok()) {
    return Problem("balance", s);
  }
  return std::nullopt;
}

}  // namespace

void BalanceRequest::set_fixed(std::span<const uint8_t> flags) {
  num_fixed = flags.size();
  fixed = std::make_unique<bool[]>(num_fixed);
  for (size_t t = 0; t < num_fixed; ++t) fixed[t] = flags[t] != 0;
}

BalanceInput BalanceRequest::Input(const TaskGraph& graph, const Allocation& allocation) const {
  BalanceInput input{graph, allocation, loads, current_slot, state_bytes};
  input.fixed = std::span<const bool>(fixed.get(), num_fixed);
  input.background_load = background_load;
  return input;
}

std::optional<RequestError> CheckGraphHasTasks(const TaskGraph& graph) {
  if (graph.num_tasks() > 0) return std::nullopt;
  return Problem("graph", absl::InvalidArgumentError("the graph is empty: no tasks"));
}

std::optional<RequestError> CheckSolveOptions(const SolveRequest& request) {
  if (absl::Status s = request.options.Validate(); !s.ok()) return Problem("options", s);
  if (auto bad = CheckKeepBlocksOption(request)) return bad;
  if (request.balance.has_value()) {
    if (absl::StatusOr<std::unique_ptr<Balancer>> b = CreateBalancer(request.algorithm); !b.ok()) {
      return Problem("algorithm", b.status());
    }
    if (!request.initial.empty()) {
      return Problem("initial", absl::InvalidArgumentError(
                                    "must be empty with balance (the current placement is "
                                    "balance.current_slot)"));
    }
    return std::nullopt;
  }
  if (BuiltinMappers().Find(request.algorithm) == nullptr) {
    return Problem("algorithm", BuiltinMappers().Create(request.algorithm).status());
  }
  return std::nullopt;
}

std::optional<RequestError> CheckSolveInputs(const SolveRequest& request) {
  if (auto bad = CheckProblem(request.graph, request.allocation)) return bad;
  if (request.balance.has_value()) {
    return CheckBalance(*request.graph, *request.allocation, *request.balance);
  }
  // One task per slot: the allocation must have a slot for each (no one field).
  if (absl::Status s = CheckFits(*request.graph, *request.allocation); !s.ok()) {
    return Problem("", s);
  }
  return CheckKeepBlocksInputs(request);
}

std::optional<RequestError> CheckSolveRequest(const SolveRequest& request) {
  if (auto bad = CheckSolveOptions(request)) return bad;
  return CheckSolveInputs(request);
}

std::optional<RequestError> CheckEvaluateRequest(const EvaluateRequest& request) {
  if (auto bad = CheckProblem(request.graph, request.allocation)) return bad;
  if (request.busiest_links < 0) {
    return Problem("busiest_links", absl::InvalidArgumentError(
                                        absl::StrCat("must be >= 0, got ", request.busiest_links)));
  }
  if (std::ssize(request.slot_of_task) != request.graph->num_tasks()) {
    return Problem("slot_of_task",
                   absl::InvalidArgumentError(absl::StrCat("has ", request.slot_of_task.size(),
                                                           " entries but the graph has ",
                                                           request.graph->num_tasks(), " tasks")));
  }
  if (request.balance.has_value()) {
    return CheckBalance(*request.graph, *request.allocation, *request.balance);
  }
  return std::nullopt;
}

double DefaultSolveTimeLimitSeconds(const SolveRequest& request) {
  return request.balance.has_value()
             ? DefaultBalanceTimeLimitSeconds(request.allocation->num_slots(),
                                              request.graph->num_tasks())
             : DefaultTimeLimitSeconds(request.graph->num_tasks());
}

absl::StatusOr<MappingReport> Solve(const SolveRequest& request, const SolveControl& control) {
  if (std::optional<RequestError> bad = CheckSolveRequest(request)) return bad->status;
  return SolveCheckedRequest(request, control);
}

absl::StatusOr<MappingReport> SolveCheckedRequest(const SolveRequest& request,
                                                  const SolveControl& control) {
  if (request.balance.has_value()) {
    return SolveBalancedMapping(request.balance->Input(*request.graph, *request.allocation),
                                request.algorithm, request.options, request.balance->options,
                                control);
  }
  if (request.keep_blocks > 1) return SolveKeepingBlocks(request, control);
  SolveControl with_initial = control;
  with_initial.initial = request.initial.empty() ? nullptr : &request.initial;
  return SolveMapping(*request.graph, *request.allocation, request.algorithm, request.options,
                      BuiltinMappers(), with_initial);
}

absl::StatusOr<MappingReport> Evaluate(const EvaluateRequest& request) {
  if (std::optional<RequestError> bad = CheckEvaluateRequest(request)) return bad->status;
  absl::StatusOr<MappingReport> report =
      request.balance.has_value()
          ? EvaluateBalancedMapping(request.balance->Input(*request.graph, *request.allocation),
                                    request.slot_of_task, request.balance->options, request.routing,
                                    request.threads)
          : EvaluateMapping(*request.graph, *request.allocation, request.slot_of_task,
                            request.routing, request.threads);
  if (!report.ok()) return report.status();
  AddBusiestLinks(*request.allocation, request.busiest_links, *report);
  return report;
}

}  // namespace hopmap
