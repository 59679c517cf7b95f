#include "core/io/gpu_launch_writers.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace hopmap {
namespace {

// The hosts of a torchrun job in node-rank order: host r holds ranks r x nproc ..
// r x nproc + nproc - 1, and runs them on `gpus` (by local rank).
struct HostBlock {
  int32_t position = 0;
  std::vector<int32_t> gpus;
};

absl::StatusOr<std::vector<HostBlock>> HostBlocks(absl::string_view format,
                                                  const Allocation& allocation,
                                                  std::span<const SlotId> slot_of_task,
                                                  const std::vector<std::string>& names) {
  std::vector<std::vector<TaskId>> ranks_of(allocation.num_nodes());
  for (size_t t = 0; t < slot_of_task.size(); ++t) {
    ranks_of[allocation.PositionOfSlot(slot_of_task[t])].push_back(static_cast<TaskId>(t));
  }
  const int32_t first = allocation.PositionOfSlot(slot_of_task[0]);
  const size_t nproc = ranks_of[first].size();
  std::vector<HostBlock> blocks(slot_of_task.size() / nproc);
  // Ranks in order, so the first host that breaks the rule is the one of the
  // lowest rank out of place.
  for (size_t t = 0; t < slot_of_task.size(); t += nproc) {
    const int32_t position = allocation.PositionOfSlot(slot_of_task[t]);
    const std::vector<TaskId>& ranks = ranks_of[position];
    const bool block = ranks.size() == nproc && static_cast<size_t>(ranks.front()) == t &&
                       static_cast<size_t>(ranks.back()) == t + nproc - 1;
    if (!block) {
      return absl::FailedPreconditionError(absl::StrCat(
          format, ": host ", names[position], " (allocation position ", position, ") holds ranks ",
          absl::StrJoin(ranks, ","), ", not one block of ", nproc,
          " consecutive ranks (as many as the host of rank 0 holds, from a multiple of ", nproc,
          "): torchrun numbers ranks node_rank x nproc_per_node + local_rank; map with "
          "--keep-blocks ",
          nproc));
    }
    HostBlock& host = blocks[t / nproc];
    host.position = position;
    for (TaskId r : ranks) host.gpus.push_back(allocation.CoreOfSlot(slot_of_task[r]));
  }
  return blocks;
}

}  // namespace

absl::StatusOr<std::string> TorchrunPlacement(const Allocation& allocation,
                                              std::span<const SlotId> slot_of_task,
                                              const std::vector<std::string>& names) {
  absl::StatusOr<std::vector<HostBlock>> hosts =
      HostBlocks("torchrun", allocation, slot_of_task, names);
  if (!hosts.ok()) return hosts.status();
  const size_t nproc = hosts->front().gpus.size();
  const std::string& master = names[hosts->front().position];
  std::string out = absl::StrCat("# hopmap torchrun placement: ", slot_of_task.size(), " ranks on ",
                                 hosts->size(), " hosts, ", nproc,
                                 " per host; lines: HOST NODE_RANK CUDA_VISIBLE_DEVICES\n");
  for (size_t r = 0; r < hosts->size(); ++r) {
    const std::string& host = names[(*hosts)[r].position];
    const std::string gpus = absl::StrJoin((*hosts)[r].gpus, ",");
    absl::StrAppend(&out, "# on ", host, ": CUDA_VISIBLE_DEVICES=", gpus,
                    " torchrun --nnodes=", hosts->size(), " --nproc_per_node=", nproc,
                    " --node_rank=", r, " --master_addr=", master,
                    " --master_port=29500 TRAINING_SCRIPT\n");
    absl::StrAppend(&out, host, " ", r, " ", gpus, "\n");
  }
  return out;
}

std::string SlurmGpuHostfile(const Allocation& allocation, std::span<const SlotId> slot_of_task,
                             const std::vector<std::string>& names) {
  std::vector<std::vector<int32_t>> gpus_of(allocation.num_nodes());
  for (SlotId slot : slot_of_task) {
    gpus_of[allocation.PositionOfSlot(slot)].push_back(allocation.CoreOfSlot(slot));
  }
  // Ranks in order: each list is in srun's local task order.
  std::vector<int32_t> shared;
  bool fits = true;
  for (const std::vector<int32_t>& gpus : gpus_of) {
    for (size_t i = 0; i < gpus.size() && fits; ++i) {
      if (i == shared.size()) shared.push_back(gpus[i]);
      fits = shared[i] == gpus[i];
    }
  }
  std::string out = absl::StrCat("# hopmap Slurm GPU placement, ", slot_of_task.size(),
                                 " ranks: SLURM_HOSTFILE=THIS_FILE srun --distribution=arbitrary "
                                 "--ntasks=",
                                 slot_of_task.size());
  if (fits) {
    absl::StrAppend(&out, " --gpu-bind=map_gpu:", absl::StrJoin(shared, ","), " PROGRAM\n");
  } else {
    absl::StrAppend(&out,
                    " PROGRAM (no one --gpu-bind=map_gpu: list fits every node: srun takes one "
                    "list for all of them; each node's, by local task index:)\n");
    for (int32_t p = 0; p < allocation.num_nodes(); ++p) {
      if (gpus_of[p].empty()) continue;
      absl::StrAppend(&out, "# ", names[p], " map_gpu:", absl::StrJoin(gpus_of[p], ","), "\n");
    }
  }
  for (SlotId slot : slot_of_task) {
    absl::StrAppend(&out, names[allocation.PositionOfSlot(slot)], "\n");
  }
  return out;
}

absl::StatusOr<std::string> KubernetesPods(const Allocation& allocation,
                                           std::span<const SlotId> slot_of_task,
                                           const std::vector<std::string>& names) {
  absl::StatusOr<std::vector<HostBlock>> hosts =
      HostBlocks("k8s-pods", allocation, slot_of_task, names);
  if (!hosts.ok()) return hosts.status();
  nlohmann::ordered_json pods = nlohmann::ordered_json::array();
  for (size_t i = 0; i < hosts->size(); ++i) {
    nlohmann::ordered_json pod;
    pod["index"] = i;
    pod["node"] = names[(*hosts)[i].position];
    pod["gpus"] = (*hosts)[i].gpus;
    pods.push_back(std::move(pod));
  }
  nlohmann::ordered_json out;
  out["pods"] = std::move(pods);
  return out.dump(2) + "\n";
}

}  // namespace hopmap
