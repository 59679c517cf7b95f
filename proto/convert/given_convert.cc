// The machine, allocation and graph a client sends as given: the C API passes its
// caller's arrays and the CLI its flags' text, and hopmapd checks them; and the
// models of the machines the CLI read from files (ParsedMachineRef).
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/topology/gpu_cluster.h"
#include "core/topology/switch_graph.h"
#include "core/topology/torus.h"
#include "proto/convert/convert.h"

namespace hopmap {
namespace {

// The three requests share the machine_ref oneof.
template <typename Request>
void SetMachineRef(const MachineRef& machine, Request* out) {
  if (machine.machine.has_value()) {
    *out->mutable_machine() = *machine.machine;
  } else {
    out->set_machine_name(machine.name);
  }
}

}  // namespace

MachineRef MachineRefFromText(const std::string& name_or_spec) {
  MachineRef ref;
  if (name_or_spec.find(':') == std::string::npos) {
    ref.name = name_or_spec;
  } else {
    ref.machine.emplace().set_spec(name_or_spec);
  }
  return ref;
}

absl::StatusOr<MachineRef> MachineFileRef(absl::string_view kind, std::string text,
                                          int32_t cores_per_node) {
  MachineRef ref;
  v1::Machine& machine = ref.machine.emplace();
  if (kind == "slurm") {
    machine.set_slurm_topology_conf(std::move(text));
  } else if (kind == "graph") {
    machine.set_switch_graph_file(std::move(text));
  } else if (kind == "matrix") {
    machine.set_distance_matrix_file(std::move(text));
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("machine file kind '", kind, "': use slurm, graph or matrix"));
  }
  machine.set_cores_per_node(cores_per_node);
  return ref;
}

std::optional<MachineRef> ParsedMachineRef(const Machine& machine) {
  MachineRef ref;
  if (const auto* cluster = dynamic_cast<const GpuClusterMachine*>(&machine)) {
    GpuClusterToProto(cluster->spec(), ref.machine.emplace().mutable_gpu_cluster());
    return ref;
  }
  if (const auto* torus = dynamic_cast<const TorusMachine*>(&machine)) {
    if (torus->source().empty()) return std::nullopt;  // a generated torus: its spec says all
    // The grid spec carries cores=, node= and the link figures; the host names stay here.
    ref.machine.emplace().set_spec(torus->GridSpec());
    ref.send_node_ids = true;
    return ref;
  }
  const auto* graph = dynamic_cast<const SwitchGraphMachine*>(&machine);
  if (graph == nullptr) return std::nullopt;
  v1::Machine& m = ref.machine.emplace();
  const SwitchGraphSpec spec = graph->ToSpec();
  v1::SwitchGraph* out = m.mutable_switch_graph();
  out->mutable_node_names()->Assign(spec.node_names.begin(), spec.node_names.end());
  out->mutable_switch_names()->Assign(spec.switch_names.begin(), spec.switch_names.end());
  for (const auto& [a, b] : spec.links) {
    v1::SwitchGraph::Link* link = out->add_links();
    link->set_a(a);
    link->set_b(b);
  }
  m.set_cores_per_node(machine.cores_per_node());
  if (machine.link_bandwidth()) m.set_link_bandwidth(*machine.link_bandwidth());
  if (machine.link_latency()) m.set_link_latency(*machine.link_latency());
  return ref;
}

void MachineRefToProto(const MachineRef& machine, v1::MapRequest* out) {
  SetMachineRef(machine, out);
}
void MachineRefToProto(const MachineRef& machine, v1::EvaluateRequest* out) {
  SetMachineRef(machine, out);
}
void MachineRefToProto(const MachineRef& machine, v1::SimulateRequest* out) {
  SetMachineRef(machine, out);
}

void AllocationSpecToProto(std::span<const NodeId> node_ids, const std::string& nodes,
                           int32_t cores_per_node, v1::AllocationSpec* out) {
  out->Clear();
  out->mutable_node_ids()->Assign(node_ids.begin(), node_ids.end());
  out->set_nodes(nodes);
  out->set_cores_per_node(cores_per_node);
}

void CsrArraysToProto(std::span<const EdgeIndex> xadj, std::span<const TaskId> adjncy,
                      std::span<const Bytes> adjwgt, v1::TaskGraph* out) {
  out->Clear();
  out->mutable_xadj()->Assign(xadj.begin(), xadj.end());
  out->mutable_adjncy()->Assign(adjncy.begin(), adjncy.end());
  if (adjwgt.empty()) {
    out->mutable_adjwgt()->Resize(static_cast<int>(adjncy.size()), 1);
  } else {
    out->mutable_adjwgt()->Assign(adjwgt.begin(), adjwgt.end());
  }
}

}  // namespace hopmap
