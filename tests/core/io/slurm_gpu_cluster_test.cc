#include "core/io/slurm_gpu_cluster.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const std::string kSample = std::string(HOPMAP_DATA_DIR) + "/gpu/topology.yaml";

SlurmGpuClusterOptions Options(const std::string& tree, const std::string& block = "",
                               int32_t gpus_per_host = 8) {
  SlurmGpuClusterOptions options;
  options.tree = tree;
  options.block = block;
  options.gpus_per_host = gpus_per_host;
  return options;
}

absl::StatusOr<GpuClusterSpec> FromText(const std::string& text,
                                        const SlurmGpuClusterOptions& options = {}) {
  absl::StatusOr<SlurmTopologyFile> file = ParseSlurmTopologyYaml(text, "t.yaml");
  if (!file.ok()) return file.status();
  return GpuClusterFromSlurmTopology(*file, options);
}

TEST(SlurmGpuClusterTest, LeafSwitchesAreLeafGroupsAndBlocksAreDomains) {
  absl::StatusOr<GpuClusterSpec> spec = ParseGpuSlurmSpec(kSample, Options("", "", 4));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->host_names, ElementsAre("gpu001", "gpu002", "gpu003", "gpu004", "gpu005",
                                            "gpu006", "gpu007", "gpu008"));
  EXPECT_EQ(spec->gpus_per_host, 4);
  EXPECT_THAT(spec->leaf_of_host, ElementsAre(0, 0, 0, 0, 1, 1, 1, 1));
  EXPECT_THAT(spec->leaf_names, ElementsAre("leaf1", "leaf2"));
  EXPECT_THAT(spec->domain_of_host, ElementsAre(0, 0, 1, 1, 2, 2, 3, 3));
  EXPECT_THAT(spec->domain_names, ElementsAre("nvl1", "nvl2", "nvl3", "nvl4"));
  EXPECT_EQ(spec->source, "gpu-slurm:" + kSample + ":gpus=4");
}

TEST(SlurmGpuClusterTest, DomainsAreNumberedByTheirFirstHost) {
  // Blocks listed in another order than the tree's hosts; one host in no block.
  absl::StatusOr<GpuClusterSpec> spec = FromText(R"(- topology: t
  tree:
    switches:
      - switch: l1
        nodes: a[1-5]
- topology: b
  block:
    blocks:
      - block: second
        nodes: a[3-4]
      - block: first
        nodes: a[1-2]
)");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->domain_of_host, ElementsAre(0, 0, 1, 1, 2));
  EXPECT_THAT(spec->domain_names, ElementsAre("first", "second", "a5"));
  EXPECT_EQ(spec->gpus_per_host, 8);
  EXPECT_EQ(spec->source, "gpu-slurm:t.yaml");
}

TEST(SlurmGpuClusterTest, TreeAloneMakesEveryHostItsOwnDomain) {
  absl::StatusOr<GpuClusterSpec> tree_only = FromText(R"(- topology: t
  tree:
    switches:
      - switch: l1
        nodes: a[1-2]
      - switch: l2
        nodes: b1
)");
  ASSERT_TRUE(tree_only.ok()) << tree_only.status();
  EXPECT_THAT(tree_only->leaf_of_host, ElementsAre(0, 0, 1));
  EXPECT_THAT(tree_only->domain_of_host, IsEmpty());
}

TEST(SlurmGpuClusterTest, BlocksAloneAreLeafGroupsToo) {
  absl::StatusOr<GpuClusterSpec> spec = FromText(R"(- topology: b
  block:
    blocks:
      - block: r1
        nodes: a[1-2]
      - block: r2
        nodes: a[3-4]
)");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->leaf_of_host, ElementsAre(0, 0, 1, 1));
  EXPECT_THAT(spec->leaf_names, ElementsAre("r1", "r2"));
  EXPECT_THAT(spec->domain_of_host, ElementsAre(0, 0, 1, 1));
  EXPECT_THAT(spec->domain_names, ElementsAre("r1", "r2"));
}

TEST(SlurmGpuClusterTest, OptionsPickTheTopologies) {
  const std::string two_trees = R"(- topology: t1
  tree:
    switches:
      - switch: l1
        nodes: a[1-2]
- topology: t2
  tree:
    switches:
      - switch: x
        nodes: a[1-2]
      - switch: y
        nodes: a[3-4]
- topology: f
  flat: true
)";
  absl::StatusOr<GpuClusterSpec> spec = FromText(two_trees, Options("t2"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->leaf_names, ElementsAre("x", "y"));
  EXPECT_EQ(spec->source, "gpu-slurm:t.yaml:tree=t2");

  EXPECT_THAT(FromText(two_trees).status().message(),
              HasSubstr("t.yaml: several tree topologies (t1, t2): choose one with tree=NAME"));
  EXPECT_THAT(FromText(two_trees, Options("nope")).status().message(),
              HasSubstr("t.yaml: tree=nope: no such topology (the file has t1, t2, f)"));
  EXPECT_THAT(FromText(two_trees, Options("t1", "f")).status().message(),
              HasSubstr("t.yaml:13: block=f: topology 'f' is a flat topology, not a block"));
  EXPECT_THAT(FromText("- topology: f\n  flat: true\n").status().message(),
              HasSubstr("t.yaml: no tree and no block topology"));
  EXPECT_THAT(FromText(two_trees, Options("t1", "", 0)).status().message(),
              HasSubstr("gpus=0: GPUs per host must be at least 1"));
}

TEST(SlurmGpuClusterTest, RefusesHostsThatBelongTwice) {
  const std::string tree = R"(- topology: t
  tree:
    switches:
      - switch: l1
        nodes: a[1-4]
      - switch: l2
        nodes: a[5-8]
)";
  struct Bad {
    std::string text;
    std::string error;
  };
  const Bad cases[] = {
      {R"(- topology: t
  tree:
    switches:
      - switch: l1
        nodes: a[1-4]
      - switch: l2
        nodes: a[4-5]
)",
       "t.yaml:7: topology 't': host 'a4' is under two leaf switches ('l1' and 'l2')"},
      {tree + R"(- topology: b
  block:
    blocks:
      - block: b1
        nodes: a[1-2]
      - block: b2
        nodes: a[2-3]
)",
       "t.yaml:14: topology 'b': block 'b2': host 'a2' is also in block 'b1'"},
      {tree + R"(- topology: b
  block:
    blocks:
      - block: b1
        nodes: a[4-5]
)",
       "t.yaml:12: topology 'b': block 'b1': spans two leaf groups: host 'a4' under 'l1', host "
       "'a5' under 'l2'"},
      {tree + R"(- topology: b
  block:
    blocks:
      - block: b1
        nodes: a[8-9]
)",
       "t.yaml:12: topology 'b': block 'b1': host 'a9' is under no leaf switch of the tree"},
  };
  for (const Bad& c : cases) {
    absl::StatusOr<GpuClusterSpec> spec = FromText(c.text);
    ASSERT_FALSE(spec.ok()) << c.error;
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(spec.status().message(), HasSubstr(c.error));
  }
}

}  // namespace
}  // namespace hopmap
