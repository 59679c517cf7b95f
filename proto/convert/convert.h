// Conversions between hopmap.v1 messages and core types. The server and the client
// use these and nothing else, so the wire format and the core meet in one place.
#ifndef HOPMAP_PROTO_CONVERT_CONVERT_H_
#define HOPMAP_PROTO_CONVERT_CONVERT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/analysis/graph_stats.h"
#include "core/analysis/pattern.h"
#include "core/balance/balance_problem.h"
#include "core/graph/task_graph.h"
#include "core/mappers/solve.h"
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

// The task graph of a request: CSR or an edge list (not both). Errors name the
// field ("graph.xadj[4] = ...", "graph.edge_v[7]: task 90 out of range").
absl::StatusOr<TaskGraph> TaskGraphFromProto(const v1::TaskGraph& graph);
void TaskGraphToProto(const TaskGraph& graph, v1::TaskGraph* out);

// The allocated nodes: node_ids, hostnames or a node selection string (at most
// one of them); none means every node of the machine. Errors name the field.
absl::StatusOr<std::vector<NodeId>> AllocationNodesFromProto(const v1::AllocationSpec& spec,
                                                             const Machine& machine);

void ReportToProto(const MappingReport& report, v1::MapReply* out);
// The inverse of ReportToProto (link loads: max, average and count only).
MappingReport ReportFromProto(const v1::MapReply& reply);

// The balanced problem's options (balance_convert.cc): unset fields take the
// core's defaults (imbalance 0.05, no limits). Values are checked by
// ValidateBalanceInput, whose messages the service prefixes with "balance.".
BalanceOptions BalanceOptionsFromProto(const v1::Balance& balance);
// The spans of `balance` over `graph` and `allocation` (the message must outlive it).
BalanceInput BalanceInputFromProto(const v1::Balance& balance, const TaskGraph& graph,
                                   const Allocation& allocation);
void BalanceReportToProto(const LoadBalanceReport& report, v1::BalanceReply* out);
LoadBalanceReport BalanceReportFromProto(const v1::BalanceReply& reply);

// Every built-in mapper, then every balancer, as ListAlgorithms answers (and as
// `hopmap algorithms` prints them without a daemon).
v1::ListAlgorithmsReply BuiltinAlgorithms();

void AnalysisToProto(const GraphStatistics& stats, const PatternReport& pattern,
                     v1::AnalyzeReply* out);
void AnalysisFromProto(const v1::AnalyzeReply& reply, GraphStatistics* stats,
                       PatternReport* pattern);

}  // namespace hopmap

#endif  // HOPMAP_PROTO_CONVERT_CONVERT_H_
