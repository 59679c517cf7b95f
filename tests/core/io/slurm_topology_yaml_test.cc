#include "core/io/slurm_topology_yaml.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const std::string kSample = std::string(HOPMAP_DATA_DIR) + "/gpu/topology.yaml";

TEST(SlurmTopologyYamlTest, ReadsTheSample) {
  absl::StatusOr<SlurmTopologyFile> file = ReadSlurmTopologyYaml(kSample);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->source, kSample);
  ASSERT_EQ(file->topologies.size(), 3u);

  const SlurmTopology& tree = file->topologies[0];
  EXPECT_EQ(tree.name, "fabric");
  EXPECT_EQ(tree.kind, SlurmTopologyKind::kTree);
  EXPECT_TRUE(tree.cluster_default);
  EXPECT_EQ(tree.line, 5);
  ASSERT_EQ(tree.switches.size(), 3u);
  EXPECT_EQ(tree.switches[0].name, "spine");
  EXPECT_THAT(tree.switches[0].children, ElementsAre("leaf1", "leaf2"));
  EXPECT_THAT(tree.switches[0].nodes, IsEmpty());
  EXPECT_EQ(tree.switches[1].name, "leaf1");
  EXPECT_THAT(tree.switches[1].nodes, ElementsAre("gpu001", "gpu002", "gpu003", "gpu004"));
  EXPECT_EQ(tree.switches[1].line, 11);
  EXPECT_EQ(tree.switches[1].nodes_line, 12);

  const SlurmTopology& block = file->topologies[1];
  EXPECT_EQ(block.kind, SlurmTopologyKind::kBlock);
  EXPECT_FALSE(block.cluster_default);
  EXPECT_THAT(block.block_sizes, ElementsAre(2, 4));
  ASSERT_EQ(block.blocks.size(), 4u);
  EXPECT_EQ(block.blocks[3].name, "nvl4");
  EXPECT_THAT(block.blocks[3].nodes, ElementsAre("gpu007", "gpu008"));

  EXPECT_EQ(file->topologies[2].kind, SlurmTopologyKind::kFlat);
  EXPECT_EQ(file->ClusterDefault(), &file->topologies[0]);
  EXPECT_EQ(file->Find("nvlink"), &file->topologies[1]);
  EXPECT_EQ(file->Find("none"), nullptr);
  EXPECT_THAT(file->OfKind(SlurmTopologyKind::kBlock), ElementsAre(&file->topologies[1]));
}

// Slurm 26.05's ring and torus3d, as topology.yaml(5) of that release shows them.
TEST(SlurmTopologyYamlTest, ReadsRingsToriAndFlatOptions) {
  const std::string text = R"(- topology: r
  ring:
    rings:
      - ring: ring0
        nodes: n[05-08],n[01-04]
- topology: t
  torus3d:
    toruses:
      - name: pod1
        dims: {x: 4, y: 2, z: 1}
        nodes: n[01-08]
        placements:
          - dims: {x: 2, y: 2, z: 1}
            anchor_spacing: {x: 2, y: 1, z: 1}
      - name: pod2
        dims: {x: 2, y: 2, z: 2}
        regions:
          - anchor: {x: 0, y: 0, z: 1}
            dims: {x: 2, y: 2, z: 1}
            nodes: m[1-4]
- topology: f
  flat:
    alpha_step_rank: true
)";
  absl::StatusOr<SlurmTopologyFile> file = ParseSlurmTopologyYaml(text, "t.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ(file->topologies.size(), 3u);
  const SlurmTopology& ring = file->topologies[0];
  EXPECT_EQ(ring.kind, SlurmTopologyKind::kRing);
  ASSERT_EQ(ring.rings.size(), 1u);
  EXPECT_THAT(ring.rings[0].nodes,
              ElementsAre("n05", "n06", "n07", "n08", "n01", "n02", "n03", "n04"));
  const SlurmTopology& torus = file->topologies[1];
  EXPECT_EQ(torus.kind, SlurmTopologyKind::kTorus3d);
  ASSERT_EQ(torus.toruses.size(), 2u);
  EXPECT_EQ(torus.toruses[0].dims.x, 4);
  EXPECT_EQ(torus.toruses[0].nodes.size(), 8u);
  ASSERT_EQ(torus.toruses[0].placements.size(), 1u);
  EXPECT_EQ(torus.toruses[0].placements[0].dims.y, 2);
  EXPECT_FALSE(torus.toruses[0].placements[0].anchor_seed.has_value());
  ASSERT_TRUE(torus.toruses[0].placements[0].anchor_spacing.has_value());
  EXPECT_EQ(torus.toruses[0].placements[0].anchor_spacing->x, 2);
  ASSERT_EQ(torus.toruses[1].regions.size(), 1u);
  EXPECT_EQ(torus.toruses[1].regions[0].anchor.z, 1);
  EXPECT_THAT(torus.toruses[1].regions[0].nodes, ElementsAre("m1", "m2", "m3", "m4"));
  EXPECT_EQ(file->topologies[2].kind, SlurmTopologyKind::kFlat);
  EXPECT_TRUE(file->topologies[2].alpha_step_rank);
  EXPECT_EQ(file->ClusterDefault(), nullptr);
}

TEST(SlurmTopologyYamlTest, MissingFileIsNotFound) {
  absl::StatusOr<SlurmTopologyFile> file = ReadSlurmTopologyYaml("/nonexistent/topology.yaml");
  EXPECT_EQ(file.status().code(), absl::StatusCode::kNotFound);
}

struct BadYaml {
  const char* what;
  std::string text;
  std::string error;  // the whole error but the source's name
};

// Every refusal, each with the line it names.
TEST(SlurmTopologyYamlTest, RefusesBadFilesNamingLineAndField) {
  const std::string tree = "- topology: t\n  tree:\n    switches:\n";
  const BadYaml cases[] = {
      {"bad YAML", "- topology: [a\n", ":2: bad YAML"},
      {"not a list", "topology: t\n", ": expected a YAML list of topologies"},
      {"empty", "", ": expected a YAML list of topologies"},
      {"no name", "- tree:\n    switches: []\n", ":1: topology: missing"},
      {"no kind", "- topology: t\n",
       ":1: topology 't': needs exactly one of tree, block, flat, "
       "ring, torus3d; got 0"},
      {"two kinds", "- topology: t\n  flat: true\n  block:\n    blocks: []\n",
       ":1: topology 't': needs exactly one of tree, block, flat, ring, torus3d; got 2"},
      {"unknown key", "- topology: t\n  flat: true\n  clusterdefault: true\n",
       ":3: topology 't': unknown key 'clusterdefault' in a topology"},
      {"twice", "- topology: t\n  flat: true\n- topology: t\n  flat: true\n",
       ":3: topology 't' twice"},
      {"bad default", "- topology: t\n  cluster_default: maybe\n  flat: true\n",
       ":2: topology 't': cluster_default: expected true or false"},
      {"no switches", "- topology: t\n  tree:\n    switches: []\n",
       ":3: topology 't': tree: switches: no switch"},
      {"switch unnamed", tree + "      - nodes: a1\n", ":4: topology 't': switch: missing"},
      {"switch empty", tree + "      - switch: s\n",
       ":4: topology 't': switch 's': needs children or nodes"},
      {"switch twice",
       tree + "      - switch: s\n        nodes: a1\n      - switch: s\n        "
              "nodes: a2\n",
       ":6: topology 't': switch 's' twice"},
      {"unknown child",
       tree + "      - switch: top\n        children: s[1-2]\n      - switch: s1\n"
              "        nodes: a1\n",
       ":4: topology 't': switch 'top': child switch 's2' is not defined in this tree"},
      {"bad hostlist", tree + "      - switch: s\n        nodes: a[3-1]\n",
       ":5: topology 't': nodes: bad hostlist 'a[3-1]'"},
      {"nodes a list", tree + "      - switch: s\n        nodes: [a1, a2]\n",
       ":5: topology 't': nodes: expected a non-empty string"},
      {"unknown switch key", tree + "      - switch: s\n        link_speed: 100\n",
       ":5: topology 't': unknown key 'link_speed' in a switch"},
      {"bad block size",
       "- topology: b\n  block:\n    block_sizes: [2, x]\n    blocks:\n      - "
       "block: b1\n        nodes: a1\n",
       ":3: topology 'b': block_sizes: expected an integer >= 1, got 'x'"},
      {"block no nodes", "- topology: b\n  block:\n    blocks:\n      - block: b1\n",
       ":4: topology 'b': block 'b1': no nodes"},
      {"no blocks", "- topology: b\n  block:\n    block_sizes: [2]\n",
       ":3: topology 'b': blocks: none given"},
      {"ring too long",
       "- topology: r\n  ring:\n    rings:\n      - ring: r0\n        nodes: "
       "a[1-17]\n",
       ":4: topology 'r': ring 'r0': 17 nodes, Slurm's limit is 16"},
      {"torus both",
       "- topology: t\n  torus3d:\n    toruses:\n      - name: p\n        dims: {x: "
       "1, y: 1, z: 1}\n",
       ":4: topology 't': torus 'p': give nodes or regions (one)"},
      {"torus zero dim",
       "- topology: t\n  torus3d:\n    toruses:\n      - name: p\n        dims: "
       "{x: 0, y: 1, z: 1}\n        nodes: a1\n",
       ":5: topology 't': dims.x: expected an integer >= 1, got '0'"},
      {"torus missing dim",
       "- topology: t\n  torus3d:\n    toruses:\n      - name: p\n        "
       "dims: {x: 1, y: 1}\n        nodes: a1\n",
       ":5: topology 't': dims.z: missing"},
      {"torus overfull",
       "- topology: t\n  torus3d:\n    toruses:\n      - name: p\n        dims: "
       "{x: 1, y: 1, z: 1}\n        nodes: a[1-2]\n",
       ":4: topology 't': torus 'p': 2 nodes for 1 cells"},
      {"region outside",
       "- topology: t\n  torus3d:\n    toruses:\n      - name: p\n        dims: "
       "{x: 2, y: 1, z: 1}\n        regions:\n          - anchor: {x: 1, y: 0, "
       "z: 0}\n            dims: {x: 2, y: 1, z: 1}\n            nodes: a1\n",
       ":7: topology 't': torus 'p': region does not fit in 2x1x1"},
      {"region short",
       "- topology: t\n  torus3d:\n    toruses:\n      - name: p\n        dims: {x: "
       "2, y: 1, z: 1}\n        regions:\n          - anchor: {x: 0, y: 0, "
       "z: 0}\n            dims: {x: 2, y: 1, z: 1}\n            nodes: a1\n",
       ":7: topology 't': torus 'p': a region of 2 cells needs 2 nodes (one per cell), got 1"},
      {"regions overlap",
       "- topology: t\n  torus3d:\n    toruses:\n      - name: p\n        dims: {x: 2, y: 2, "
       "z: 1}\n        regions:\n          - anchor: {x: 0, y: 0, z: 0}\n            dims: "
       "{x: 2, y: 1, z: 1}\n            nodes: a[1-2]\n          - anchor: {x: 1, y: 0, z: "
       "0}\n            dims: {x: 1, y: 2, z: 1}\n            nodes: b[1-2]\n",
       ":10: topology 't': torus 'p': region overlaps the region of line 7 at (1,0,0)"},
      {"too many names",
       "- topology: r\n  ring:\n    rings:\n      - ring: r0\n        nodes: a[0-300000]\n",
       ":5: topology 'r': nodes: bad hostlist 'a[0-300000]': "},
      {"flat junk", "- topology: t\n  flat: sometimes\n",
       ":2: topology 't': flat: expected true, false or a mapping of options"},
  };
  for (const BadYaml& c : cases) {
    absl::StatusOr<SlurmTopologyFile> file = ParseSlurmTopologyYaml(c.text, "bad.yaml");
    ASSERT_FALSE(file.ok()) << c.what;
    EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument) << c.what;
    EXPECT_THAT(std::string(file.status().message()), HasSubstr("bad.yaml" + c.error)) << c.what;
  }
}

}  // namespace
}  // namespace hopmap
