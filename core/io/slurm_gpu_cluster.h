// A GPU cluster (GpuClusterSpec, core/topology/gpu_cluster.h) as Slurm sees it in
// topology.yaml: the tree topology's leaf switches are the leaf groups (the hosts
// under one leaf of a rail-optimized fabric), the block topology's blocks are the
// NVLink domains (Slurm's block plugin is how NVLink racks such as NVL72 are
// scheduled). docs/gpu.md, "Reading the cluster from Slurm or Kubernetes".
#ifndef HOPMAP_CORE_IO_SLURM_GPU_CLUSTER_H_
#define HOPMAP_CORE_IO_SLURM_GPU_CLUSTER_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/io/slurm_topology_yaml.h"
#include "core/topology/gpu_cluster.h"

namespace hopmap {

struct SlurmGpuClusterOptions {
  // The tree topology whose leaf switches are the leaf groups (`tree=NAME`); empty:
  // the file's one tree topology, if it has exactly one (none: see block).
  std::string tree;
  // The block topology whose blocks are the NVLink domains (`block=NAME`); empty:
  // the file's one block topology, if it has exactly one (none: every host is its
  // own domain).
  std::string block;
  // GPUs per host (`gpus=`): topology.yaml does not say.
  int32_t gpus_per_host = 8;

  // gpus_per_host >= 1.
  [[nodiscard]] absl::Status Validate() const;
};

// The spec of `file` under `options`. Hosts are numbered in the order they first
// appear in the tree's switches (in the blocks' order without a tree); leaf groups
// and domains in the order of their first host. Leaf groups: the tree's switches
// with `nodes:`, named by the switch. Domains: the blocks, named by the block; a host
// of the tree in no block is its own domain (named after the host); without a block
// topology domain_of_host is empty (every host its own domain). With blocks but no
// tree, each block is its own leaf group too. Errors ("PATH:LINE: ..." at the entry
// to blame): no tree and no block topology; tree=/block= naming no topology or one
// of another kind; several trees or blocks and no choice; a host under two leaf
// switches or in two blocks; a block spanning two leaf groups; a host in a block but
// under no leaf switch. `fabric` is left at its defaults; `source` is
// "gpu-slurm:PATH" with the options that differ from the defaults.
absl::StatusOr<GpuClusterSpec> GpuClusterFromSlurmTopology(const SlurmTopologyFile& file,
                                                           const SlurmGpuClusterOptions& options);

// What the machine kind gpu-slurm:FILE[:tree=NAME][:block=NAME][:gpus=G] calls: the
// options checked, the file read (ReadSlurmTopologyYaml), the spec built.
absl::StatusOr<GpuClusterSpec> ParseGpuSlurmSpec(const std::string& path,
                                                 const SlurmGpuClusterOptions& options);

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_SLURM_GPU_CLUSTER_H_
