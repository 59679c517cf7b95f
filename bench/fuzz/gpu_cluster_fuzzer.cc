// libFuzzer target: a GPU cluster's file reader (HOPMAP_FUZZ_GPU_READER, set by CMake:
// slurm for Slurm's topology.yaml, k8s for kubectl's node list) on arbitrary text,
// then the machine built from what it read; an accepted cluster must answer hops
// between its first and last hosts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "bench/fuzz/machine_checks.h"
#include "core/io/kubernetes_nodes.h"
#include "core/io/slurm_gpu_cluster.h"
#include "core/io/slurm_topology_yaml.h"
#include "core/topology/gpu_cluster.h"

namespace {

absl::StatusOr<hopmap::GpuClusterSpec> Read(const std::string& text) {
#if HOPMAP_FUZZ_GPU_READER_SLURM
  absl::StatusOr<hopmap::SlurmTopologyFile> file =
      hopmap::ParseSlurmTopologyYaml(text, "fuzz.yaml");
  if (!file.ok()) return file.status();
  return hopmap::GpuClusterFromSlurmTopology(*file, hopmap::SlurmGpuClusterOptions{});
#else
  hopmap::KubernetesNodesOptions options;
  options.sub_block_label = "cloud.google.com/gce-topology-subblock";
  return hopmap::GpuClusterFromKubernetesNodes(text, "fuzz.json", options);
#endif
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<hopmap::GpuClusterSpec> spec = Read(text);
  if (!spec.ok()) {
    if (spec.status().message().find("fuzz.") == std::string::npos) std::abort();
    return 0;
  }
  absl::StatusOr<hopmap::GpuClusterMachine> machine =
      hopmap::GpuClusterMachine::Create(*std::move(spec));
  if (!machine.ok()) return 0;  // e.g. more GPUs per host than a host may have
  hopmap::CheckAcceptedMachine(*machine);
  return 0;
}
