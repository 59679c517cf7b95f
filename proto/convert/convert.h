// Conversions between hopmap.v1 messages and core types. The server and the client
// use these and nothing else, so the wire format and the core meet in one place.
#ifndef HOPMAP_PROTO_CONVERT_CONVERT_H_
#define HOPMAP_PROTO_CONVERT_CONVERT_H_

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/analysis/graph_stats.h"
#include "core/analysis/pattern.h"
#include "core/balance/balance_problem.h"
#include "core/graph/task_graph.h"
#include "core/solve/report.h"
#include "core/solve/simulate.h"
#include "core/solve/solve.h"
#include "core/topology/gpu_cluster.h"
#include "core/topology/machine.h"
#include "hopmap/v1/machine.pb.h"
#include "hopmap/v1/mapper.pb.h"

namespace hopmap {

// Builds the machine model a Machine message describes (cores and node names
// included). Errors name the field: "machine.torus.dims[1]: ...".
absl::StatusOr<std::shared_ptr<Machine>> MachineFromProto(const v1::Machine& machine);

// A Machine message from Protobuf's JSON mapping (the config and state files);
// `source` names the file in errors. Unknown fields are errors.
absl::StatusOr<v1::Machine> MachineFromJson(const std::string& json, const std::string& source);
std::string MachineToJson(const v1::Machine& machine);

// A catalog name is 1..64 of [A-Za-z0-9._-], not starting with '.'.
absl::Status ValidateMachineName(const std::string& name);

// One line of ListMachines (and of `hopmap machines` without a daemon): a catalog
// entry's name, description and origin ("builtin", "config", "stored"), its model's
// spec, nodes and cores per node.
v1::MachineSummary MachineSummaryToProto(const std::string& name, const std::string& description,
                                         const std::string& origin, const Machine& model);

// A GPU cluster's hosts, NVLink domains, leaf groups and link figures, and back
// (gpu_convert.cc; MachineFromProto calls the second for Machine.gpu_cluster): every
// figure is sent, unset ones read as GpuFabric's defaults, gpus_per_host 0 as 8.
// GpuClusterMachine::Create checks the rest; errors name the field
// ("machine.gpu_cluster.leaf_of_host: ..."); the source must be a gpu kind's spec.
void GpuClusterToProto(const GpuClusterSpec& spec, v1::GpuCluster* out);
absl::StatusOr<std::shared_ptr<Machine>> GpuClusterFromProto(const v1::GpuCluster& cluster);

// The task graph of a request: CSR or an edge list (not both). Errors name the
// field ("graph.xadj[4] = ...", "graph.edge_v[7]: task 90 out of range").
absl::StatusOr<TaskGraph> TaskGraphFromProto(const v1::TaskGraph& graph);
void TaskGraphToProto(const TaskGraph& graph, v1::TaskGraph* out);

// The allocated nodes: node_ids, hostnames or a node selection string (at most
// one of them); none means every node of the machine (Machine::AllocatableNodes).
// Errors name the field.
absl::StatusOr<std::vector<NodeId>> AllocationNodesFromProto(const v1::AllocationSpec& spec,
                                                             const Machine& machine);

// The machine, the allocation and the graph of a Map, Evaluate or Simulate request
// as a client gives them (given_convert.cc): sent unchecked, so that hopmapd checks
// them and its errors name the caller's field.
//
// The machine: a catalog entry by name, or an inline Machine.
struct MachineRef {
  std::string name;  // sent as machine_name when `machine` is unset
  std::optional<v1::Machine> machine;
  // The daemon's copy does not know the machine's host names (a torus read from a
  // Slurm topology goes as its grid spec): the allocation must go as node ids.
  bool send_node_ids = false;
};
// A text without ':' names a catalog entry; any other is an inline spec.
MachineRef MachineRefFromText(const std::string& name_or_spec);
// A machine file's text, inline, by its spec's kind ("slurm": a Slurm
// topology.conf, "graph": a switch-graph file, "matrix": a hop matrix) with the cores
// per node its spec gave. InvalidArgument for another kind.
absl::StatusOr<MachineRef> MachineFileRef(absl::string_view kind, std::string text,
                                          int32_t cores_per_node);
// The machine a client read from a file itself, as a structured model, so that what
// its spec chose travels too (for the kinds that send models, MachineKind::
// sends_model): a GPU cluster (gpu-slurm:FILE, gpu-k8s:FILE) as gpu_cluster; a switch
// graph (a Slurm topology's tree, blocks or rings) as switch_graph, node for node
// and link for link, with its cores per node and link figures; a torus read from a
// file (TorusMachine::source, a Slurm torus3d) as its grid spec (cores=, node= and the
// link figures with it), its host names left to the client (send_node_ids). Null
// for the others: a generated machine, a hop matrix (the file kinds that do not send
// models send their file's text, MachineFileRef).
std::optional<MachineRef> ParsedMachineRef(const Machine& machine);
void MachineRefToProto(const MachineRef& machine, v1::MapRequest* out);
void MachineRefToProto(const MachineRef& machine, v1::EvaluateRequest* out);
void MachineRefToProto(const MachineRef& machine, v1::SimulateRequest* out);
// The allocation: node ids, or a node selection ("nid[00100-00299]", "0-99"), and the
// cores per node (0: the machine's); what is empty is not sent.
void AllocationSpecToProto(std::span<const NodeId> node_ids, const std::string& nodes,
                           int32_t cores_per_node, v1::AllocationSpec* out);
// A graph as the caller's CSR arrays (adjwgt empty: 1 byte per entry); the graph of
// a core TaskGraph is TaskGraphToProto's.
void CsrArraysToProto(std::span<const EdgeIndex> xadj, std::span<const TaskId> adjncy,
                      std::span<const Bytes> adjwgt, v1::TaskGraph* out);

void ReportToProto(const MappingReport& report, v1::MapReply* out);
// The inverse of ReportToProto (link loads: max, average and count only).
MappingReport ReportFromProto(const v1::MapReply& reply);

// The balanced problem's inputs (balance_convert.cc): unset options take the
// core's defaults (imbalance 0.05, no limits). Values are checked by
// CheckSolveRequest / CheckEvaluateRequest (field "balance").
BalanceRequest BalanceRequestFromProto(const v1::Balance& balance);
void BalanceRequestToProto(const BalanceRequest& request, v1::Balance* out);

// A Map request's solve (request_convert.cc): algorithm ("" is auto), objective,
// routing, seed (0 is 1), iteration limit, threads and time limit as sent (0: the
// caller's default; the service fills both in), the initial mapping and the
// balance. The caller sets the graph and the allocation. InvalidArgument names
// the field ("objective: unknown objective 'x' ...").
absl::StatusOr<SolveRequest> SolveRequestFromProto(const v1::MapRequest& request);
// The inverse (the graph, the machine and the allocation are the caller's).
void SolveRequestToProto(const SolveRequest& request, v1::MapRequest* out);
// An Evaluate request's: the given slots, routing, busiest links, the balance.
absl::StatusOr<EvaluateRequest> EvaluateRequestFromProto(const v1::EvaluateRequest& request);
// The inverse (the graph, the machine and the allocation are the caller's; the
// threads do not travel: the daemon chooses them).
void EvaluateRequestToProto(const EvaluateRequest& request, v1::EvaluateRequest* out);
// What MapStream sends while a solve runs (request_convert.cc).
void ProgressToProto(const Progress& progress, v1::Progress* out);
Progress ProgressFromProto(const v1::Progress& progress);
void BalanceReportToProto(const LoadBalanceReport& report, v1::BalanceReply* out);
LoadBalanceReport BalanceReportFromProto(const v1::BalanceReply& reply);

// A Simulate request's mappings (unnamed ones become "mapping N"), patterns
// (InvalidArgument "patterns[i]: ...") and iterations (0: 1); the caller sets the
// graph, the allocation and the threads (simulate_convert.cc).
absl::StatusOr<SimulateRequest> SimulateRequestFromProto(const v1::SimulateRequest& request);
// The inverse: patterns by name (CommunicationPattern::Name), iterations as given (the
// graph, the machine and the allocation are the caller's; the threads do not travel:
// the daemon chooses them).
void SimulateRequestToProto(const SimulateRequest& request, v1::SimulateRequest* out);
void SimulationReportToProto(const SimulationReport& report, v1::SimulateReply* out);
SimulationReport SimulationReportFromProto(const v1::SimulateReply& reply);

// Every built-in mapper, then every balancer, as ListAlgorithms answers (and as
// `hopmap algorithms` prints them without a daemon).
v1::ListAlgorithmsReply BuiltinAlgorithms();

// An Analyze request: the graph and the analyzer's options (keep_hubs is
// !ignore_hubs). A weight_threshold of 0 reads as the default, 0.2.
void AnalyzeRequestToProto(const TaskGraph& graph, const AnalyzerOptions& options,
                           v1::AnalyzeRequest* out);
// Its options, unchecked (AnalyzerOptions::Validate; field "weight_threshold"); the
// caller reads the graph (TaskGraphFromProto).
AnalyzerOptions AnalyzerOptionsFromProto(const v1::AnalyzeRequest& request);
void AnalysisToProto(const GraphStatistics& stats, const PatternReport& pattern,
                     v1::AnalyzeReply* out);
void AnalysisFromProto(const v1::AnalyzeReply& reply, GraphStatistics* stats,
                       PatternReport* pattern);

}  // namespace hopmap

#endif  // HOPMAP_PROTO_CONVERT_CONVERT_H_
