// A GPU cluster on the wire (issue 48): the hosts, domains, leaf groups and link
// figures a client read from a Slurm topology.yaml or a Kubernetes node list, so that
// the daemon builds the very machine the client's spec options chose.
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/io/machine_kinds.h"
#include "core/topology/gpu_cluster.h"
#include "proto/convert/convert.h"

namespace hopmap {
namespace {

constexpr absl::string_view kField = "machine.gpu_cluster";

// GpuClusterMachine::Create's error ("gpu cluster: leaf_of_host has 3 entries ...")
// as the field it concerns: "machine.gpu_cluster.leaf_of_host: leaf_of_host has ...",
// "machine.gpu_cluster.host_names: needs at least one host".
absl::Status FieldErrorOf(const absl::Status& status) {
  absl::string_view message = status.message();
  absl::ConsumePrefix(&message, "gpu cluster: ");
  size_t end = 0;
  while (end < message.size() && (absl::ascii_islower(message[end]) || message[end] == '_')) {
    ++end;
  }
  const absl::string_view word = message.substr(0, end);
  std::string field(kField);
  for (absl::string_view known :
       {"host_names", "gpus_per_host", "domain_of_host", "leaf_of_host", "domain_names",
        "leaf_names", "nvlink_bandwidth", "nvlink_latency", "rail_bandwidth", "rail_latency",
        "oversubscription"}) {
    if (word != known) continue;
    absl::StrAppend(&field, ".", known);
    // "host_names: needs at least one host": the field once.
    if (message.substr(end, 2) == ": ") message.remove_prefix(end + 2);
  }
  // "domain 3 spans leaf groups 0 and 1 ...": the domains disagree with the leaves.
  if (word == "domain") absl::StrAppend(&field, ".domain_of_host");
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", message));
}

// The source is what reports print as the machine: a spec of a kind that makes GPU
// clusters (gpu:, gpu-slurm:, gpu-k8s:), or empty.
absl::Status CheckSource(const std::string& source) {
  if (source.empty()) return absl::OkStatus();
  const size_t colon = source.find(':');
  const MachineKind* kind = colon == std::string::npos
                                ? nullptr
                                : FindMachineKind(std::string_view(source).substr(0, colon));
  if (kind == nullptr || kind->machine_kind != "gpu" ||
      source.find_first_of("\r\n") != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(kField, ".source: '", source,
                     "' is not a GPU cluster's spec (gpu:, gpu-slurm: or gpu-k8s:, one line)"));
  }
  return absl::OkStatus();
}

}  // namespace

void GpuClusterToProto(const GpuClusterSpec& spec, v1::GpuCluster* out) {
  out->Clear();
  out->mutable_host_names()->Assign(spec.host_names.begin(), spec.host_names.end());
  out->set_gpus_per_host(spec.gpus_per_host);
  out->mutable_domain_of_host()->Assign(spec.domain_of_host.begin(), spec.domain_of_host.end());
  out->mutable_leaf_of_host()->Assign(spec.leaf_of_host.begin(), spec.leaf_of_host.end());
  out->mutable_domain_names()->Assign(spec.domain_names.begin(), spec.domain_names.end());
  out->mutable_leaf_names()->Assign(spec.leaf_names.begin(), spec.leaf_names.end());
  // Every figure, defaults too: the daemon's defaults may be another version's.
  out->set_nvlink_bandwidth(spec.fabric.nvlink_bandwidth);
  out->set_nvlink_latency(spec.fabric.nvlink_latency);
  out->set_rail_bandwidth(spec.fabric.rail_bandwidth);
  out->set_rail_latency(spec.fabric.rail_latency);
  out->set_oversubscription(spec.fabric.oversubscription);
  out->set_source(spec.source);
}

absl::StatusOr<std::shared_ptr<Machine>> GpuClusterFromProto(const v1::GpuCluster& cluster) {
  GpuClusterSpec spec;
  spec.host_names.assign(cluster.host_names().begin(), cluster.host_names().end());
  if (cluster.gpus_per_host() != 0) spec.gpus_per_host = cluster.gpus_per_host();
  spec.domain_of_host.assign(cluster.domain_of_host().begin(), cluster.domain_of_host().end());
  spec.leaf_of_host.assign(cluster.leaf_of_host().begin(), cluster.leaf_of_host().end());
  spec.domain_names.assign(cluster.domain_names().begin(), cluster.domain_names().end());
  spec.leaf_names.assign(cluster.leaf_names().begin(), cluster.leaf_names().end());
  GpuFabric& fabric = spec.fabric;
  if (cluster.has_nvlink_bandwidth()) fabric.nvlink_bandwidth = cluster.nvlink_bandwidth();
  if (cluster.has_nvlink_latency()) fabric.nvlink_latency = cluster.nvlink_latency();
  if (cluster.has_rail_bandwidth()) fabric.rail_bandwidth = cluster.rail_bandwidth();
  if (cluster.has_rail_latency()) fabric.rail_latency = cluster.rail_latency();
  if (cluster.has_oversubscription()) fabric.oversubscription = cluster.oversubscription();
  if (absl::Status s = CheckSource(cluster.source()); !s.ok()) return s;
  spec.source = cluster.source();
  absl::StatusOr<GpuClusterMachine> machine = GpuClusterMachine::Create(std::move(spec));
  if (!machine.ok()) return FieldErrorOf(machine.status());
  return std::make_shared<GpuClusterMachine>(*std::move(machine));
}

}  // namespace hopmap
