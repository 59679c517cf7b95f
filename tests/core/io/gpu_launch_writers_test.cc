// The GPU launchers' formats (torchrun, slurm-gpu, k8s-pods) through FormatMapping.
#include "core/io/gpu_launch_writers.h"

#include <memory>
#include <string>
#include <vector>

#include "core/io/mapping_writers.h"
#include "core/topology/torus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace hopmap {
namespace {

using ::testing::HasSubstr;

// A 2x2 torus of hosts with 2 GPUs each, allocated out of order: positions 0..3 are
// nodes 2, 0, 3, 1 (named nid00002, nid00000, nid00003, nid00001). Slots 0..7.
Allocation TwoGpuHosts() {
  auto machine = std::make_shared<TorusMachine>(*TorusMachine::Create({2, 2}, {true, true}));
  machine->set_cores_per_node(2);
  return *Allocation::Create(machine, {2, 0, 3, 1}, 2);
}

// Ranks 0, 1 on nid00000 (GPUs 1, 0), ranks 2, 3 on nid00003 (GPUs 0, 1).
const std::vector<SlotId> kBlocks = {3, 2, 4, 5};

std::string MustFormat(const std::vector<SlotId>& mapping, MappingFormat format) {
  absl::StatusOr<std::string> text = FormatMapping(TwoGpuHosts(), mapping, format);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

TEST(GpuLaunchWritersTest, TorchrunGivesEachHostItsNodeRankAndGpus) {
  EXPECT_EQ(MustFormat(kBlocks, MappingFormat::kTorchrun),
            "# hopmap torchrun placement: 4 ranks on 2 hosts, 2 per host; lines: HOST "
            "NODE_RANK CUDA_VISIBLE_DEVICES\n"
            "# on nid00000: CUDA_VISIBLE_DEVICES=1,0 torchrun --nnodes=2 --nproc_per_node=2 "
            "--node_rank=0 --master_addr=nid00000 --master_port=29500 TRAINING_SCRIPT\n"
            "nid00000 0 1,0\n"
            "# on nid00003: CUDA_VISIBLE_DEVICES=0,1 torchrun --nnodes=2 --nproc_per_node=2 "
            "--node_rank=1 --master_addr=nid00000 --master_port=29500 TRAINING_SCRIPT\n"
            "nid00003 1 0,1\n");
  // Node ranks follow the ranks, not the allocation order.
  EXPECT_THAT(MustFormat({4, 5, 3, 2}, MappingFormat::kTorchrun),
              HasSubstr("nid00003 0 0,1\n# on nid00000: CUDA_VISIBLE_DEVICES=1,0 torchrun "
                        "--nnodes=2 --nproc_per_node=2 --node_rank=1 --master_addr=nid00003"));
}

TEST(GpuLaunchWritersTest, TorchrunAndPodsRefuseHostsWithoutOneBlockOfRanks) {
  struct Case {
    std::vector<SlotId> mapping;
    const char* message;
  };
  for (const Case& c : {
           // Rank 0's host holds ranks 0 and 2.
           Case{{3, 4, 2, 5},
                "host nid00000 (allocation position 1) holds ranks 0,2, not one block of 2 "
                "consecutive ranks"},
           // nid00003 holds one rank where rank 0's host holds two.
           Case{{3, 2, 4}, "host nid00003 (allocation position 2) holds ranks 2, not one block"},
           // Rank 0 alone on its host, then a host of two.
           Case{{0, 2, 3}, "holds ranks 1,2, not one block of 1"},
       }) {
    for (MappingFormat format : {MappingFormat::kTorchrun, MappingFormat::kK8sPods}) {
      absl::StatusOr<std::string> text = FormatMapping(TwoGpuHosts(), c.mapping, format);
      ASSERT_FALSE(text.ok()) << MappingFormatName(format) << " " << c.message;
      EXPECT_EQ(text.status().code(), absl::StatusCode::kFailedPrecondition);
      EXPECT_THAT(text.status().message(), HasSubstr(c.message));
      EXPECT_THAT(text.status().message(), HasSubstr(MappingFormatName(format) + ": host"));
      EXPECT_THAT(text.status().message(), HasSubstr("map with --keep-blocks"));
    }
  }
}

TEST(GpuLaunchWritersTest, SlurmGpuHostfileWithOneMapGpuList) {
  EXPECT_EQ(MustFormat({2, 3, 4, 5}, MappingFormat::kSlurmGpu),
            "# hopmap Slurm GPU placement, 4 ranks: SLURM_HOSTFILE=THIS_FILE srun "
            "--distribution=arbitrary --ntasks=4 --gpu-bind=map_gpu:0,1 PROGRAM\n"
            "nid00000\nnid00000\nnid00003\nnid00003\n");
  // Slurm's hostfile need not keep blocks: ranks interleave over hosts.
  EXPECT_EQ(MustFormat({3, 5, 2, 4}, MappingFormat::kSlurmGpu),
            "# hopmap Slurm GPU placement, 4 ranks: SLURM_HOSTFILE=THIS_FILE srun "
            "--distribution=arbitrary --ntasks=4 --gpu-bind=map_gpu:1,0 PROGRAM\n"
            "nid00000\nnid00003\nnid00000\nnid00003\n");
}

TEST(GpuLaunchWritersTest, SlurmGpuSaysWhenNoListFitsEveryNode) {
  EXPECT_EQ(MustFormat(kBlocks, MappingFormat::kSlurmGpu),
            "# hopmap Slurm GPU placement, 4 ranks: SLURM_HOSTFILE=THIS_FILE srun "
            "--distribution=arbitrary --ntasks=4 PROGRAM (no one --gpu-bind=map_gpu: list fits "
            "every node: srun takes one list for all of them; each node's, by local task "
            "index:)\n"
            "# nid00000 map_gpu:1,0\n"
            "# nid00003 map_gpu:0,1\n"
            "nid00000\nnid00000\nnid00003\nnid00003\n");
}

TEST(GpuLaunchWritersTest, KubernetesPodsByNodeRank) {
  const nlohmann::json pods =
      nlohmann::json::parse(MustFormat({4, 5, 3, 2}, MappingFormat::kK8sPods));
  EXPECT_EQ(pods, nlohmann::json::parse(R"({"pods": [
      {"index": 0, "node": "nid00003", "gpus": [0, 1]},
      {"index": 1, "node": "nid00000", "gpus": [1, 0]}]})"));
}

}  // namespace
}  // namespace hopmap
