// The launchers of GPU jobs (issue 48): torchrun, Slurm's --gpu-bind and a
// Kubernetes pod per host. A GPU host is a machine node, its GPUs the node's
// slots: the core of a task's slot is its local GPU index. Called by FormatMapping
// (core/io/mapping_writers.h) with a validated one-task-per-slot mapping and the
// host name of every allocation position.
#ifndef HOPMAP_CORE_IO_GPU_LAUNCH_WRITERS_H_
#define HOPMAP_CORE_IO_GPU_LAUNCH_WRITERS_H_

#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/topology/allocation.h"
#include "core/types.h"

namespace hopmap {

// torchrun numbers ranks node_rank x nproc_per_node + local_rank: every host that
// holds ranks must hold one block of nproc consecutive ranks (nproc = how many the
// host of rank 0 holds) starting at a multiple of nproc. Per host in node-rank
// order: a '#' line with its torchrun command, then "HOST NODE_RANK GPUS", GPUS
// the CUDA_VISIBLE_DEVICES list (the GPU of local rank 0, 1, ...). Otherwise
// FailedPrecondition naming the first host that breaks the rule.
absl::StatusOr<std::string> TorchrunPlacement(const Allocation& allocation,
                                              std::span<const SlotId> slot_of_task,
                                              const std::vector<std::string>& names);

// A Slurm hostfile (SLURM_HOSTFILE, srun --distribution=arbitrary: line i is the
// host of rank i) after '#' lines (Slurm's hostfile reader skips them) with the
// srun command and its --gpu-bind=map_gpu: list when one fits every node (srun
// takes one list, by local task index), or saying none does and each node's list.
std::string SlurmGpuHostfile(const Allocation& allocation, std::span<const SlotId> slot_of_task,
                             const std::vector<std::string>& names);

// JSON {"pods": [{"index": i, "node": HOST, "gpus": [..]}]}: pod i (a Kubernetes
// indexed Job's or JobSet's completion index, = torchrun's node rank) runs on HOST
// with ranks i x nproc .. on the GPUs listed by local rank. The rule and the error
// are TorchrunPlacement's.
absl::StatusOr<std::string> KubernetesPods(const Allocation& allocation,
                                           std::span<const SlotId> slot_of_task,
                                           const std::vector<std::string>& names);

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_GPU_LAUNCH_WRITERS_H_
