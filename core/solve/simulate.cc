#include "core/solve/simulate.h"

#include <numeric>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/metrics/hop_bytes.h"
#include "tbb/parallel_for.h"
#include "tbb/task_arena.h"

namespace hopmap {
namespace {

std::optional<RequestError> Problem(std::string field, absl::Status status) {
  return RequestError{std::move(field), std::move(status)};
}

}  // namespace

std::optional<RequestError> CheckSimulateRequest(const SimulateRequest& request) {
  if (request.graph == nullptr)
    return Problem("graph", absl::InvalidArgumentError("no task graph"));
  if (request.allocation == nullptr) {
    return Problem("allocation", absl::InvalidArgumentError("no allocation"));
  }
  if (auto bad = CheckGraphHasTasks(*request.graph)) return bad;
  if (request.iterations < 1 || request.iterations > kMaxSimulatedIterations) {
    return Problem("iterations",
                   absl::InvalidArgumentError(absl::StrCat("must be 1 to ", kMaxSimulatedIterations,
                                                           ", got ", request.iterations)));
  }
  if (request.threads < 0) {
    return Problem("threads",
                   absl::InvalidArgumentError(absl::StrCat("must be >= 0, got ", request.threads)));
  }
  const Allocation& allocation = *request.allocation;
  if (allocation.machine().num_links() == 0) {
    return Problem(
        "allocation",
        absl::FailedPreconditionError(absl::StrCat(
            "machine '", allocation.machine().Spec(),
            "' has no links (an explicit hop matrix): there is no network to simulate")));
  }
  const int64_t tasks = request.graph->num_tasks();
  if (tasks > allocation.num_slots()) {
    return Problem("", absl::InvalidArgumentError(
                           absl::StrCat("the graph has ", tasks, " tasks but the allocation only ",
                                        allocation.num_slots(), " slots (one task per slot)")));
  }
  if (absl::Status s = CheckHopBytesFit(*request.graph, allocation); !s.ok()) {
    return Problem("graph", s);
  }
  for (const SimulatedMapping& mapping : request.mappings) {
    if (absl::Status s = ValidateMapping(allocation, tasks, mapping.slot_of_task); !s.ok()) {
      return Problem("mappings",
                     absl::Status(s.code(), absl::StrCat(mapping.name, ": ", s.message())));
    }
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<SimulationCase>> BuildSimulationCases(const SimulateRequest& request,
                                                                 bool all_pairs) {
  if (std::optional<RequestError> bad = CheckSimulateRequest(request)) return bad->status;
  absl::StatusOr<std::vector<std::vector<TaskFlow>>> phases =
      PatternPhases(*request.graph, request.patterns);
  if (!phases.ok()) return phases.status();
  std::vector<SimulationCase> cases;
  cases.reserve(request.mappings.size() + 1);
  std::vector<SlotId> in_order(request.graph->num_tasks());
  std::iota(in_order.begin(), in_order.end(), SlotId{0});
  cases.push_back({"in-order", std::move(in_order), {}});
  for (const SimulatedMapping& mapping : request.mappings) {
    cases.push_back({mapping.name, mapping.slot_of_task, {}});
  }
  for (SimulationCase& c : cases) {
    absl::StatusOr<NetworkModel> model = BuildNetworkModel(*request.allocation, c.slot_of_task,
                                                           *phases, request.iterations, all_pairs);
    if (!model.ok()) return model.status();
    c.model = *std::move(model);
  }
  return cases;
}

SimulationReport NewSimulationReport(const SimulateRequest& request) {
  const Allocation& allocation = *request.allocation;
  const Machine& machine = allocation.machine();
  SimulationReport report;
  report.machine = machine.Spec();
  report.tasks = request.graph->num_tasks();
  report.hosts = allocation.num_nodes();
  report.link_bandwidth = machine.link_bandwidth().value_or(kDefaultLinkBandwidth);
  report.link_latency = machine.link_latency().value_or(kDefaultLinkLatency);
  for (const CommunicationPattern& p : request.patterns) report.patterns.push_back(p.Name());
  if (report.patterns.empty()) report.patterns.push_back(CommunicationPattern{}.Name());
  report.iterations = request.iterations;
  return report;
}

void SetRatiosToInOrder(SimulationReport& report) {
  if (report.simulations.empty()) return;
  const double in_order = report.simulations[0].time_s;
  for (SimulationResult& r : report.simulations) {
    r.ratio_to_in_order = in_order > 0 ? r.time_s / in_order : 1;
  }
}

absl::StatusOr<SimulationReport> Simulate(const SimulateRequest& request,
                                          const NetworkSimulator& simulator) {
  absl::StatusOr<std::vector<SimulationCase>> cases = BuildSimulationCases(request);
  if (!cases.ok()) return cases.status();
  const int n = static_cast<int>(cases->size());
  std::vector<absl::StatusOr<double>> totals(n, absl::UnknownError("not simulated"));
  const int threads =
      request.threads > 0 ? request.threads : static_cast<int>(std::thread::hardware_concurrency());
  tbb::task_arena arena(std::max(1, std::min(threads, n)));
  arena.execute(
      [&] { tbb::parallel_for(0, n, [&](int i) { totals[i] = simulator((*cases)[i].model); }); });

  const Allocation& allocation = *request.allocation;
  SimulationReport report = NewSimulationReport(request);
  report.flows_per_iteration = FlowsPerIteration((*cases)[0].model);
  for (int i = 0; i < n; ++i) {
    const SimulationCase& c = (*cases)[i];
    if (!totals[i].ok()) {
      return absl::Status(totals[i].status().code(), absl::StrCat("simulating ", c.mapping, ": ",
                                                                  totals[i].status().message()));
    }
    SimulationResult& r = report.simulations.emplace_back();
    r.mapping = c.mapping;
    r.total_time_s = *totals[i];
    r.time_s = r.total_time_s / request.iterations;
    r.hop_bytes = ComputeHopBytes(*request.graph, allocation, c.slot_of_task);
    const std::vector<double> link_bytes = LinkBytes(c.model);
    r.busiest_link = FindBusiestLink(c.model, link_bytes);
    r.busiest_link_share = r.time_s > 0 ? r.busiest_link.busy_s / r.time_s : 0;
    r.link_class_bytes = BytesByLinkClass(c.model, link_bytes);
  }
  SetRatiosToInOrder(report);
  return report;
}

}  // namespace hopmap
