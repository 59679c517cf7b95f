// What map, eval and machines share when they run through hopmapd (--server):
// connecting, and turning the problem flags into the request's machine, allocation
// and graph.
#ifndef HOPMAP_CLIENT_REMOTE_H_
#define HOPMAP_CLIENT_REMOTE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/cli_common.h"
#include "client/lib/hopmap_client.h"
#include "core/graph/task_graph.h"
#include "core/topology/allocation.h"
#include "proto/convert/convert.h"

namespace hopmap::cli {

// Connects to remote.server (resolved: ResolveMode or ApplyRemoteEnvironment).
absl::StatusOr<std::unique_ptr<client::HopmapClient>> ConnectRemote(const RemoteFlags& remote);

// The machine, allocation and graph of a request, from the problem flags, sent as
// given through proto/convert (MachineRef, AllocationSpecToProto, TaskGraphToProto):
//  - a file kind (slurm:FILE, graph:FILE, matrix:FILE, gpu-slurm:FILE,
//    gpu-k8s:FILE, slurm-topology:FILE) is parsed here (its errors and warnings as
//    with --local); the kinds that send models (MachineKind::sends_model) as that
//    model (ParsedMachineRef: a GPU cluster, a Slurm topology's switch graph or
//    torus), the others' text in slurm_topology_conf / switch_graph_file /
//    distance_matrix_file, with its cores per node;
//  - another spec (with a ':') is sent as Machine{spec};
//  - a name is sent as machine_name (the daemon's catalog);
//  - --nodes goes in allocation.nodes (@FILE: its lines without comments and blank
//    lines, joined with ','), or, when the daemon's copy of the machine lacks the
//    host names (MachineRef::send_node_ids), resolved here into allocation.node_ids
//    (without --nodes: the machine's allocatable nodes); --cores in
//    allocation.cores_per_node;
//  - the graph file is read here and sent as CSR.
struct RemoteProblem {
  MachineRef machine;
  std::shared_ptr<Machine> local_machine;  // the file kinds: parsed here
  std::string nodes;                       // the node selection; empty: every node
  std::vector<NodeId> node_ids;            // or the nodes as ids (send_node_ids)
  int32_t cores_per_node = 0;              // 0: the machine's
  TaskGraph graph;

  // The machine, allocation and graph of a MapRequest, EvaluateRequest or
  // SimulateRequest (the three share those fields).
  template <typename Request>
  void FillRequest(Request& request) const {
    MachineRefToProto(machine, &request);
    AllocationSpecToProto(node_ids, nodes, cores_per_node, request.mutable_allocation());
    TaskGraphToProto(graph, request.mutable_graph());
  }
  // The daemon names a machine it built from file text by that text's field; the
  // report says what --local says (the file's path) instead.
  void FixReport(MappingReport& report) const;
};
absl::StatusOr<RemoteProblem> BuildRemoteProblem(const ProblemFlags& flags);

// The allocation of the flags built here (for the mapping formats, which need the
// machine's node names and coordinates): the file kinds' machine as parsed, a spec
// or a built-in name parsed here, a name only the daemon knows fetched with
// GetMachine.
absl::StatusOr<Allocation> RemoteAllocation(const ProblemFlags& flags, const RemoteProblem& problem,
                                            client::HopmapClient& client);

// A daemon's error as one line (gRPC messages may hold line breaks).
absl::Status OneLine(const absl::Status& status);

}  // namespace hopmap::cli

#endif  // HOPMAP_CLIENT_REMOTE_H_
