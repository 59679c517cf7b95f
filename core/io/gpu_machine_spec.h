// Internal to core/io: the gpu machine kind's parser (gpu:HOSTS:gpus=G:domain=D:...),
// for its row in machine_kinds.cc. Not a public API.
#ifndef HOPMAP_CORE_IO_GPU_MACHINE_SPEC_H_
#define HOPMAP_CORE_IO_GPU_MACHINE_SPEC_H_

#include <memory>

#include "absl/status/statusor.h"
#include "core/io/machine_kinds.h"
#include "core/topology/machine.h"

namespace hopmap::io_internal {

// gpu:HOSTS with gpus=, domain=, leaf=, nvlink-bandwidth=, nvlink-latency=,
// rail-bandwidth=, rail-latency=, oversubscription= (docs/formats.md); hosts in
// runs of D per NVLink domain and L per leaf group. (cores=, node=, link-bandwidth=
// and link-latency= are refused by ParseMachineSpec, from the row.)
absl::StatusOr<std::shared_ptr<Machine>> ParseGpuCluster(const MachineSpecParts& parts);

// gpu-slurm:FILE with tree=, block=, gpus= (a Slurm topology.yaml:
// core/io/slurm_gpu_cluster.h) and gpu-k8s:FILE with block-label=, sub-block-label=,
// host-label=, gpus= (kubectl's node list: core/io/kubernetes_nodes.h); both take the
// gpu kind's link figures (nvlink-bandwidth=, ..., oversubscription=).
absl::StatusOr<std::shared_ptr<Machine>> ParseGpuSlurmCluster(const MachineSpecParts& parts);
absl::StatusOr<std::shared_ptr<Machine>> ParseGpuK8sCluster(const MachineSpecParts& parts);

}  // namespace hopmap::io_internal

#endif  // HOPMAP_CORE_IO_GPU_MACHINE_SPEC_H_
