// Mapping output formats: the files launchers and MPI libraries read to place
// ranks where hopmap mapped them.
#ifndef HOPMAP_CORE_IO_MAPPING_WRITERS_H_
#define HOPMAP_CORE_IO_MAPPING_WRITERS_H_

#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/topology/allocation.h"
#include "core/types.h"

namespace hopmap {

// Task i is MPI rank i throughout. "node" is the machine node of the task's slot,
// "core" its core within the node (slot % cores_per_node), HOST the machine's
// name for the node (Machine::NodeName).
enum class MappingFormat {
  // The JSON report; written by the report writer, not by FormatMapping.
  kJson,
  // Line i: the slot of task i.
  kPerm,
  // Open MPI rankfile (mpirun --rankfile FILE): line i "rank i=HOST slot=CORE",
  // CORE a logical core index within the node; with a node interior (node=)
  // "slot=P:C", package P and core C within it (NodeInterior::PackageOf).
  kRankfile,
  // Line i: "i HOST CORE", CORE the logical core within the node.
  kRankNodeCore,
  // Slurm's --cpu-bind=map_cpu: lists beside the hostfile: a '#' line, then per node
  // holding tasks (allocation order) "HOST map_cpu:C0,C1,...", the cores of its ranks
  // in rank order (srun's local task order). srun takes one list for every node: the
  // comment gives it when one fits all, and says so when none does.
  kMapCpu,
  // Slurm hostfile for `srun --distribution=arbitrary` with SLURM_HOSTFILE=FILE:
  // line i is the HOST of task i.
  kHostfile,
  // Cray MPICH_RANK_ORDER (MPICH_RANK_REORDER_METHOD=3): a '#' comment line, then
  // the ranks in placement order (node by node in allocation order, cores in
  // order), comma-separated, runs of consecutive ranks as "a-b", lines of at most
  // 80 characters. Cray fills each node's PEs with the next ranks of the list, so
  // every node that holds a task, except the last such one, must be full (hold
  // `cores` tasks); otherwise FailedPrecondition. Within a node only the set of
  // ranks is honoured (the launcher binds them to cores). The allocation order
  // must be the job's node order (as the launcher numbers its nodes).
  kMpichRankOrder,
  // MPICH's hydra machinefile (mpiexec -f FILE): a '#' line with the command to run
  // it, then "HOST:COUNT" for each run of consecutive ranks on one host (hydra gives
  // each line the next COUNT ranks). Hydra binds with one list for every line's
  // processes (-bind-to user:C0,C1,..., by the process's place in its line); the
  // comment gives that list when one fits every line, and says so when none does
  // (the hosts are then exact and the cores unbound). Host names must not hold ':'
  // or '#' (hydra's separators).
  kHydra,
  // Blue Gene mapfile (runjob --mapping FILE): line i is the machine coordinates
  // of task i's node (Machine::Coordinates, one per dim) then its core, separated
  // by spaces ("x y z t" on a 3-D torus). FailedPrecondition for machines without
  // coordinates.
  kBgMapfile,
  // CSV: header "task,slot,node,hostname,core", then one row per task (node = the
  // machine node id). Hostnames with ',', '"' or line breaks are quoted (RFC 4180).
  kCsv,
  // GPU launchers (core/io/gpu_launch_writers.h; the core of a slot is the local GPU
  // index). torchrun: per host in node-rank order a '#' line with its torchrun
  // command, then "HOST NODE_RANK CUDA_VISIBLE_DEVICES"; every host must hold one
  // block of nproc consecutive ranks (FailedPrecondition naming the first that does
  // not: map with keep_blocks).
  kTorchrun,
  // Slurm hostfile (SLURM_HOSTFILE, srun --distribution=arbitrary) after '#' lines
  // with the srun command and its --gpu-bind=map_gpu: list, or saying none fits.
  kSlurmGpu,
  // JSON {"pods": [{"index": i, "node": HOST, "gpus": [...]}]}, a Kubernetes pod per
  // host, pod index = torchrun node rank; torchrun's block rule.
  kK8sPods,
};

// "json", "perm", "rankfile", "rank-node-core", "hostfile", "map-cpu", "hydra",
// "mpich-rank-order", "bg-mapfile", "csv", "torchrun", "slurm-gpu", "k8s-pods";
// the error lists them.
absl::StatusOr<MappingFormat> ParseMappingFormat(absl::string_view name);
std::string MappingFormatName(MappingFormat format);

// Writes `slot_of_task` (validated first with ValidateMapping) in `format`. Every
// format but kJson (InvalidArgument). The text ends with a newline. Hostnames
// with whitespace or control characters cannot be written to a rankfile or a
// hostfile (InvalidArgument, naming the node); k8s-pods writes them as JSON
// strings. `many_per_slot` (objects of the balanced problem): slots may repeat, and only kPerm and
// kCsv are available (the others place one process per core: InvalidArgument saying so).
absl::StatusOr<std::string> FormatMapping(const Allocation& allocation,
                                          std::span<const SlotId> slot_of_task,
                                          MappingFormat format, bool many_per_slot = false);

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_MAPPING_WRITERS_H_
