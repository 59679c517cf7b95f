// `hopmap simulate`'s request: what the in-order placement and the given mappings
// cost in time on a simulated network, not only in hop-bytes. The core builds one
// network model per placement (core/simulate) and hands each to the simulator the
// edge passes in (sim/: SimGrid in a worker process), so the core runs no
// simulator and starts no process.
#ifndef HOPMAP_CORE_SOLVE_SIMULATE_H_
#define HOPMAP_CORE_SOLVE_SIMULATE_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/graph/task_graph.h"
#include "core/simulate/network_model.h"
#include "core/simulate/traffic.h"
#include "core/solve/solve.h"
#include "core/topology/allocation.h"

namespace hopmap {

// Runs a model's iterations; returns the simulated time of all of them, seconds.
using NetworkSimulator = std::function<absl::StatusOr<double>(const NetworkModel&)>;

struct SimulatedMapping {
  std::string name;  // how the report names it (the file it came from)
  std::vector<SlotId> slot_of_task;
};

// The largest iteration count simulate takes: time grows with it and one
// iteration is the answer (each one repeats the same traffic).
inline constexpr int32_t kMaxSimulatedIterations = 1000;

struct SimulateRequest {
  const TaskGraph* graph = nullptr;        // required
  const Allocation* allocation = nullptr;  // required
  // Simulated after the in-order placement (task t on slot t), in this order.
  std::vector<SimulatedMapping> mappings;
  std::vector<CommunicationPattern> patterns;  // empty: the graph's edges
  int32_t iterations = 1;
  int threads = 0;  // simulations at once; 0: every hardware thread
};

struct SimulationResult {
  std::string mapping;
  double time_s = 0;        // one iteration's communication time
  double total_time_s = 0;  // all iterations
  double ratio_to_in_order = 1;
  HopBytes hop_bytes = 0;  // of the graph, for comparison with map and eval
  BusiestLink busiest_link;
  // busiest_link.busy_s / time_s: 1 when that one link's bytes set the time
  // (a bottleneck), small when latency or many spread-out links do.
  double busiest_link_share = 0;
  // Bytes per iteration on each link class ("nvlink", "rail", "spine" on a GPU
  // cluster), BytesByLinkClass's; empty when the machine's links are all alike.
  std::vector<std::pair<std::string, double>> link_class_bytes;
  // simulate --mpi of a program linked with hopmap's compute profile
  // (sim/smpi_compute, docs/apps.md): per rank, on average, the simulated seconds
  // spent inside MPI calls and charged as computation, and the calls past the
  // profile's end (0 when every rank made the calls the profile has); collective_s is
  // the part of mpi_time_s inside collective calls, whose traffic the recorded graph
  // leaves out. Unset otherwise.
  std::optional<double> mpi_time_s;
  std::optional<double> collective_s;
  std::optional<double> compute_s;
  std::optional<int64_t> unmatched_calls;
};

struct SimulationReport {
  std::string machine;  // its spec
  int32_t tasks = 0;
  int32_t hosts = 0;
  double link_bandwidth = 0;  // bytes/s, what the model used
  double link_latency = 0;    // seconds per link
  std::vector<std::string> patterns;
  int32_t iterations = 1;
  int64_t flows_per_iteration = 0;
  std::vector<SimulationResult> simulations;  // in-order first
};

// What is wrong with the request ("graph", "allocation", "mappings", "patterns",
// "iterations", "threads"), as CheckSolveRequest reports it.
std::optional<RequestError> CheckSimulateRequest(const SimulateRequest& request);

// The network models of the in-order placement and of each mapping, in report
// order, with their names. `all_pairs`: routes between every two hosts (for an MPI
// program whose messages are not known ahead).
struct SimulationCase {
  std::string mapping;
  std::vector<SlotId> slot_of_task;
  NetworkModel model;
};
absl::StatusOr<std::vector<SimulationCase>> BuildSimulationCases(const SimulateRequest& request,
                                                                 bool all_pairs = false);

// What a report says of the machine and the job (machine, tasks, hosts, link
// parameters, pattern names, iterations), results left to the runner.
SimulationReport NewSimulationReport(const SimulateRequest& request);
// Each result's ratio_to_in_order, against the first result (in-order).
void SetRatiosToInOrder(SimulationReport& report);

// Checks the request, builds the models and runs `simulator` on each, up to
// request.threads at once (each result goes to its own place: the report does not
// depend on which finishes first).
absl::StatusOr<SimulationReport> Simulate(const SimulateRequest& request,
                                          const NetworkSimulator& simulator);

}  // namespace hopmap

#endif  // HOPMAP_CORE_SOLVE_SIMULATE_H_
