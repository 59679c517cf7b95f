// The request layer: one transport-free request for `hopmap map` / `hopmap eval`,
// whoever asks (the CLI's --local path, hopmapd's Map and Evaluate, benchmarks).
// Edges convert their input into a SolveRequest or an EvaluateRequest and call
// Solve or Evaluate; the choice between the mapping problem (one task per slot,
// core/mappers) and the balanced problem (many objects per slot, core/balance),
// the budget's default and the request's validation live here once.
#ifndef HOPMAP_CORE_SOLVE_SOLVE_H_
#define HOPMAP_CORE_SOLVE_SOLVE_H_

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/balance/balance_problem.h"
#include "core/graph/task_graph.h"
#include "core/mappers/mapper.h"
#include "core/solve/report.h"
#include "core/solve/solve_mapping.h"
#include "core/topology/allocation.h"

namespace hopmap {

// The balanced problem's inputs (BalanceInput's spans, owned): loads, the current
// placement and what migrating costs. Empty vectors mean what BalanceInput says.
struct BalanceRequest {
  std::vector<double> loads;
  std::vector<SlotId> current_slot;
  std::vector<Bytes> state_bytes;
  std::vector<double> background_load;
  // bool, not vector<bool>, so that BalanceInput can see it as a span.
  std::unique_ptr<bool[]> fixed;
  size_t num_fixed = 0;
  BalanceOptions options;

  void set_fixed(std::span<const uint8_t> flags);
  [[nodiscard]] BalanceInput Input(const TaskGraph& graph, const Allocation& allocation) const;
};

struct SolveRequest {
  const TaskGraph* graph = nullptr;        // required
  const Allocation* allocation = nullptr;  // required
  // A mapper (BuiltinMappers) or, with `balance`, a balancer (BuiltinBalancers).
  std::string algorithm = "auto";
  // Seed, threads, objective, routing, iteration limit; time_limit_seconds 0:
  // DefaultSolveTimeLimitSeconds.
  MapperOptions options;
  // A mapping to start from (the mapping problem only; empty: none).
  std::vector<SlotId> initial;
  // Tasks K*i .. K*i+K-1 stay together on one node, on consecutive cores in task
  // order (core/solve/keep_blocks.h), as launchers that give each node a block of
  // consecutive ranks need (torchrun, Kubernetes pods). K divides the cores per node
  // and the task count; 1: no constraint. The mapping problem only.
  int32_t keep_blocks = 1;
  // Set: the balanced problem (many objects per slot); the current placement is
  // balance->current_slot.
  std::optional<BalanceRequest> balance;
};

struct EvaluateRequest {
  const TaskGraph* graph = nullptr;        // required
  const Allocation* allocation = nullptr;  // required
  std::vector<SlotId> slot_of_task;        // the placement to measure
  Routing routing = Routing::kDimensionOrder;
  int threads = 0;                        // 0: every hardware thread
  int busiest_links = 0;                  // how many of the most loaded links the report names
  std::optional<BalanceRequest> balance;  // set: measured as the balanced problem
};

// What is wrong with a request, and the request field it concerns ("algorithm",
// "initial", "balance", "slot_of_task", "options", "keep_blocks"; "" when no one field is: more
// tasks than slots), so that each edge can name the field its own way (hopmapd's
// proto field, the CLI's flag).
struct RequestError {
  std::string field;
  absl::Status status;
};
// A request's graph has at least one task: else field "graph", InvalidArgument "the
// graph is empty: no tasks" (the graph readers' words, core/io/graph_format.h).
// Part of CheckSolveRequest, CheckEvaluateRequest and CheckSimulateRequest.
std::optional<RequestError> CheckGraphHasTasks(const TaskGraph& graph);
// The rules of a solve request, in one place: SolveMapping and SolveBalancedMapping
// take the options (and the mapping problem a slot per task) as checked.
// CheckSolveOptions: what needs no graph (the options, the algorithm, no initial
// mapping with balance), so an edge can refuse a request before it builds one.
// CheckSolveInputs: what needs the graph and the allocation (both given, a task at
// least, then the balance inputs, or as many slots as tasks).
// CheckSolveRequest: CheckSolveOptions, then CheckSolveInputs.
std::optional<RequestError> CheckSolveOptions(const SolveRequest& request);
std::optional<RequestError> CheckSolveInputs(const SolveRequest& request);
std::optional<RequestError> CheckSolveRequest(const SolveRequest& request);
std::optional<RequestError> CheckEvaluateRequest(const EvaluateRequest& request);

// The budget of a solve whose caller gave none: DefaultTimeLimitSeconds(tasks) for
// the mapping problem, DefaultBalanceTimeLimitSeconds(slots, objects) for the
// balanced one.
double DefaultSolveTimeLimitSeconds(const SolveRequest& request);

// Checks the request (CheckSolveRequest's status), then SolveCheckedRequest.
absl::StatusOr<MappingReport> Solve(const SolveRequest& request, const SolveControl& control = {});

// Maps or balances inside a task_arena of options.threads threads within the time
// limit, and measures the answer. `control`: cancellation and progress (its
// `initial` is ignored: the request's is used). Precondition: CheckSolveOptions and
// CheckSolveInputs accepted the request (its options changed since only to valid
// values). For an edge that checks in those two steps itself, to refuse a request
// before it builds the graph and to name the refused field (hopmapd's Map, the CLI's
// --local): no rule then runs twice.
absl::StatusOr<MappingReport> SolveCheckedRequest(const SolveRequest& request,
                                                  const SolveControl& control = {});

// Measures a given placement (one task per slot, or with `balance` many objects
// per slot), with request.busiest_links named.
absl::StatusOr<MappingReport> Evaluate(const EvaluateRequest& request);

}  // namespace hopmap

#endif  // HOPMAP_CORE_SOLVE_SOLVE_H_
