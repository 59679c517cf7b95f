// GpuClusterMachine (issue 48): GPU hosts joined by NVLink inside NVLink domains and
// by a rail-optimized fabric (leaf groups under a spine layer), the network a
// training job runs on. docs/gpu.md.
#ifndef HOPMAP_CORE_TOPOLOGY_GPU_CLUSTER_H_
#define HOPMAP_CORE_TOPOLOGY_GPU_CLUSTER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace hopmap {

// The figures of each kind of link, one direction, per GPU.
struct GpuFabric {
  // NVLink: what one GPU sends per second to the NVLink switches of its domain
  // (NVLink 4, H100: 18 links x 25 GB/s = 450 GB/s each way).
  double nvlink_bandwidth = 450e9;  // bytes/s
  double nvlink_latency = 1e-6;     // seconds per link
  // The GPU's own NIC on its rail (400 Gb/s InfiniBand NDR / ConnectX-7).
  double rail_bandwidth = 50e9;  // bytes/s
  double rail_latency = 1e-6;    // seconds per link
  // Leaf-to-spine capacity below the hosts' rail capacity under a leaf group
  // (1: non-blocking, 2: half the capacity up, ...).
  double oversubscription = 1.0;
};

// What a GPU cluster is built from: a spec (gpu:HOSTS:...), a Slurm topology.yaml or a
// Kubernetes node list. Host h (machine node h) is host_names[h].
struct GpuClusterSpec {
  std::vector<std::string> host_names;
  int32_t gpus_per_host = 8;
  // The NVLink domain of each host (hosts of one domain reach each other over
  // NVLink switches, e.g. 18 hosts of 4 GPUs in a 72-GPU rack); empty: every host is
  // its own domain. Ids 0..D-1.
  std::vector<int32_t> domain_of_host;
  // The leaf group of each host: the hosts whose GPU i all sit on the same leaf
  // switch of rail i (a scalable unit). Ids 0..L-1. A domain lies inside one leaf group.
  std::vector<int32_t> leaf_of_host;
  // Names for listings and link names ("" entries: "domain3", "leaf2").
  std::vector<std::string> domain_names;
  std::vector<std::string> leaf_names;
  GpuFabric fabric;
  // The spec that reads it back ("gpu:64:...", "gpu-slurm:PATH", "gpu-k8s:PATH:...").
  std::string source;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_TOPOLOGY_GPU_CLUSTER_H_
