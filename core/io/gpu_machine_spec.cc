#include "core/io/gpu_machine_spec.h"

#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/io/kubernetes_nodes.h"
#include "core/io/machine_spec_values.h"
#include "core/io/slurm_gpu_cluster.h"
#include "core/topology/gpu_cluster.h"

namespace hopmap::io_internal {
namespace {

absl::Status ReadPositive(const MachineSpecParts& parts, const char* key, int32_t& value) {
  auto it = parts.options.find(key);
  if (it == parts.options.end()) return absl::OkStatus();
  absl::StatusOr<int32_t> v = ParsePositive(it->second, absl::StrCat(key, "="), parts.spec);
  if (!v.ok()) return v.status();
  value = *v;
  return absl::OkStatus();
}

absl::Status ReadNumber(const MachineSpecParts& parts, const char* key, double low, double high,
                        const char* unit, double& value) {
  auto it = parts.options.find(key);
  if (it == parts.options.end()) return absl::OkStatus();
  absl::StatusOr<double> v =
      ParseInRange(it->second, absl::StrCat(key, "="), low, high, unit, parts.spec);
  if (!v.ok()) return v.status();
  value = *v;
  return absl::OkStatus();
}

absl::Status ReadFabric(const MachineSpecParts& parts, GpuFabric& fabric) {
  for (auto [key, value] : {std::pair{"nvlink-bandwidth", &fabric.nvlink_bandwidth},
                            std::pair{"rail-bandwidth", &fabric.rail_bandwidth}}) {
    if (absl::Status s =
            ReadNumber(parts, key, kMinLinkBandwidth, kMaxLinkBandwidth, "bytes/s per GPU", *value);
        !s.ok()) {
      return s;
    }
  }
  for (auto [key, value] : {std::pair{"nvlink-latency", &fabric.nvlink_latency},
                            std::pair{"rail-latency", &fabric.rail_latency}}) {
    if (absl::Status s = ReadNumber(parts, key, 0, kMaxLinkLatency, "seconds per link", *value);
        !s.ok()) {
      return s;
    }
  }
  return ReadNumber(parts, "oversubscription", 1, 1e6, "leaf capacity over uplink capacity",
                    fabric.oversubscription);
}

// The host names: host000, host001, ... unless prefix=/width= say otherwise (then
// as every kind names its nodes: prefix nid, width 5 unless given).
NodeNames HostNamePattern(const SpecOptions& options) {
  if (!options.contains("prefix") && !options.contains("width")) {
    return NodeNames::Pattern(std::string(GpuClusterMachine::kHostPrefix),
                              GpuClusterMachine::kHostWidth);
  }
  int width = 5;
  if (auto it = options.find("width");
      it != options.end() && !absl::SimpleAtoi(it->second, &width)) {
    width = 5;  // ParseMachineSpec reports the bad width=
  }
  auto it = options.find("prefix");
  return NodeNames::Pattern(it == options.end() ? "nid" : it->second, width);
}

// The option `key`'s value into `value`, when given.
void ReadText(const MachineSpecParts& parts, const char* key, std::string& value) {
  if (auto it = parts.options.find(key); it != parts.options.end()) value = it->second;
}

// A cluster read from a file, with the link figures the spec gives.
absl::StatusOr<std::shared_ptr<Machine>> WithFabric(absl::StatusOr<GpuClusterSpec> cluster,
                                                    const MachineSpecParts& parts) {
  if (!cluster.ok()) return cluster.status();
  if (absl::Status s = ReadFabric(parts, cluster->fabric); !s.ok()) return s;
  return Share(GpuClusterMachine::Create(*std::move(cluster)), parts.spec);
}

}  // namespace

absl::StatusOr<std::shared_ptr<Machine>> ParseGpuSlurmCluster(const MachineSpecParts& parts) {
  SlurmGpuClusterOptions options;
  ReadText(parts, "tree", options.tree);
  ReadText(parts, "block", options.block);
  if (absl::Status s = ReadPositive(parts, "gpus", options.gpus_per_host); !s.ok()) return s;
  return WithFabric(ParseGpuSlurmSpec(parts.args, options), parts);
}

absl::StatusOr<std::shared_ptr<Machine>> ParseGpuK8sCluster(const MachineSpecParts& parts) {
  KubernetesNodesOptions options;
  ReadText(parts, "block-label", options.block_label);
  ReadText(parts, "sub-block-label", options.sub_block_label);
  ReadText(parts, "host-label", options.host_label);
  if (absl::Status s = ReadPositive(parts, "gpus", options.gpus_per_host); !s.ok()) return s;
  return WithFabric(ParseGpuK8sSpec(parts.args, options), parts);
}

absl::StatusOr<std::shared_ptr<Machine>> ParseGpuCluster(const MachineSpecParts& parts) {
  const std::string& spec = parts.spec;
  absl::StatusOr<int32_t> hosts = ParsePositive(parts.args, "the number of hosts", spec);
  if (!hosts.ok()) return hosts.status();
  if (*hosts > GpuClusterMachine::kMaxHosts) {
    return absl::InvalidArgumentError(absl::StrCat(
        "machine spec '", spec, "': ", *hosts, " hosts, at most ", GpuClusterMachine::kMaxHosts));
  }
  GpuClusterSpec cluster;
  int32_t domain = 1, leaf = GpuClusterMachine::kDefaultLeafHosts;
  for (auto [key, value] : {std::pair{"gpus", &cluster.gpus_per_host}, std::pair{"domain", &domain},
                            std::pair{"leaf", &leaf}}) {
    if (absl::Status s = ReadPositive(parts, key, *value); !s.ok()) return s;
  }
  if (leaf % domain != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("machine spec '", spec, "': domain=", domain, " does not divide leaf=", leaf,
                     " (an NVLink domain lies inside one leaf group)"));
  }
  if (absl::Status s = ReadFabric(parts, cluster.fabric); !s.ok()) return s;
  const NodeNames names = HostNamePattern(parts.options);
  for (int32_t h = 0; h < *hosts; ++h) {
    cluster.host_names.push_back(names.Name(h));
    cluster.leaf_of_host.push_back(h / leaf);
    if (domain > 1) cluster.domain_of_host.push_back(h / domain);
  }
  absl::StatusOr<GpuClusterMachine> machine = GpuClusterMachine::Create(std::move(cluster));
  if (machine.ok()) machine->set_node_names(names);
  return Share(std::move(machine), spec);
}

}  // namespace hopmap::io_internal
