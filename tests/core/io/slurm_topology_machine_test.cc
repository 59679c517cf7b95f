// slurm-topology:FILE[:NAME]: the machines of Slurm's tree, block, ring and torus3d
// topologies, from topology.yaml text here and the samples in data/slurm.
#include "core/io/slurm_topology_machine.h"

#include <algorithm>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/io/machine_files.h"
#include "core/io/machine_spec.h"
#include "core/io/slurm_topology_conf.h"
#include "core/metrics/hop_bytes.h"
#include "core/metrics/link_loads.h"
#include "core/topology/allocation.h"
#include "core/topology/node_selection.h"
#include "core/topology/torus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_path.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kSample = std::string(HOPMAP_DATA_DIR) + "/slurm/topology.yaml";
const std::string kBlockConf = std::string(HOPMAP_DATA_DIR) + "/slurm/block_topology.conf";

std::string WriteTemp(const std::string& name, const std::string& content) {
  const std::string path = hopmap::testing::TempPath("slurm_topology_machine_test_" + name);
  std::ofstream out(path, std::ios::trunc);
  out << content;
  return path;
}

// The machine of topology `name` of the YAML `text` (the spec names "t.yaml").
absl::StatusOr<SlurmTopologyMachine> FromYaml(const std::string& text,
                                              const std::string& name = "") {
  absl::StatusOr<SlurmTopologyFile> file = ParseSlurmTopologyYaml(text, "t.yaml");
  if (!file.ok()) return file.status();
  return BuildSlurmTopologyMachine(*file, name, "t.yaml");
}

std::string ErrorOf(const absl::StatusOr<SlurmTopologyMachine>& built) {
  EXPECT_FALSE(built.ok());
  return built.ok() ? "" : std::string(built.status().message());
}

NodeId Id(const Machine& m, const std::string& name) {
  std::optional<NodeId> id = m.node_names().Find(name, m.num_nodes());
  EXPECT_TRUE(id.has_value()) << name;
  return id.value_or(-1);
}

int32_t Hops(const Machine& m, const std::string& a, const std::string& b) {
  return m.Hops(Id(m, a), Id(m, b));
}

std::shared_ptr<Machine> MustParse(const std::string& spec) {
  absl::StatusOr<std::shared_ptr<Machine>> m = ParseMachineSpec(spec);
  EXPECT_TRUE(m.ok()) << spec << ": " << m.status();
  return m.ok() ? *m : nullptr;
}

TEST(SlurmTopologyMachineTest, TellsConfFromYamlByTheFirstLine) {
  EXPECT_TRUE(IsSlurmTopologyConf("# comment\n\n  SwitchName=s0 Nodes=a1\n"));
  EXPECT_TRUE(IsSlurmTopologyConf("BlockSizes=4,8\n"));
  EXPECT_TRUE(IsSlurmTopologyConf("ringname=r0 nodes=a[1-4]"));
  EXPECT_FALSE(IsSlurmTopologyConf("# SwitchName=s0\n---\n- topology: t\n"));
  EXPECT_FALSE(IsSlurmTopologyConf("- topology: t\n  flat: true\n"));
  EXPECT_FALSE(IsSlurmTopologyConf("[{topology: t, flat: true}]"));
  EXPECT_FALSE(IsSlurmTopologyConf(""));
}

// The tree is what slurm:FILE reads from the same switches in a topology.conf:
// the same names, hops and links.
TEST(SlurmTopologyMachineTest, TreeIsTheSwitchGraphOfSlurmConf) {
  absl::StatusOr<SlurmTopologyMachine> yaml = ReadSlurmTopologyMachine(kSample + ":fabric");
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  absl::StatusOr<SwitchGraphMachine> conf = ParseSlurmTopology(
      "SwitchName=spine Switches=leaf[1-4]\nSwitchName=leaf1 Nodes=node[01-04]\n"
      "SwitchName=leaf2 Nodes=node[05-08]\nSwitchName=leaf3 Nodes=node[09-12]\n"
      "SwitchName=leaf4 Nodes=node[13-16]\n",
      "t.conf");
  ASSERT_TRUE(conf.ok()) << conf.status();
  const Machine& m = *yaml->machine;
  EXPECT_EQ(m.kind(), "graph");
  EXPECT_EQ(m.Spec(), "slurm-topology:" + kSample + ":fabric");
  ASSERT_EQ(m.num_nodes(), conf->num_nodes());
  ASSERT_EQ(m.num_links(), conf->num_links());
  for (NodeId a = 0; a < m.num_nodes(); ++a) {
    EXPECT_EQ(m.NodeName(a), conf->NodeName(a));
    for (NodeId b = 0; b < m.num_nodes(); ++b) EXPECT_EQ(m.Hops(a, b), conf->Hops(a, b));
  }
  for (int64_t link = 0; link < m.num_links(); ++link) {
    EXPECT_EQ(m.LinkName(link), conf->LinkName(link));
  }
  EXPECT_EQ(Hops(m, "node01", "node04"), 2);
  EXPECT_EQ(Hops(m, "node01", "node16"), 4);
  const SlurmTopologySummary& s = yaml->summary;
  EXPECT_EQ(s.format, "topology.yaml");
  EXPECT_EQ(s.topology, "fabric");
  EXPECT_EQ(s.plugin, SlurmTopologyKind::kTree);
  EXPECT_TRUE(s.cluster_default);
  EXPECT_EQ(s.network, "5 switches");
  EXPECT_EQ(s.hosts, 16);
  EXPECT_EQ(s.host_names, "node[01-16]");
  ASSERT_EQ(s.parts.size(), 5u);
  EXPECT_EQ(s.parts[0].detail, "children leaf[1-4]");
  EXPECT_EQ(s.parts[1].nodes, "node[01-04]");
}

// Without NAME: the first cluster_default, else the first topology (Slurm sorts the
// default ones first); a NAME must be in the file, and a topology.conf takes none.
TEST(SlurmTopologyMachineTest, ChoosesTheTopologyAsSlurmDoes) {
  const std::string two =
      "- topology: first\n  tree:\n    switches:\n      - switch: s\n        nodes: a[1-2]\n"
      "- topology: second\n  block:\n    blocks:\n      - block: b\n        nodes: a[1-2]\n";
  absl::StatusOr<SlurmTopologyMachine> chosen = FromYaml(two);
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ(chosen->summary.topology, "first");
  EXPECT_EQ(chosen->machine->Spec(), "slurm-topology:t.yaml:first");
  chosen = FromYaml(two + "  cluster_default: true\n");
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ(chosen->summary.topology, "second");
  EXPECT_TRUE(chosen->summary.cluster_default);
  chosen = FromYaml(two + "  cluster_default: true\n", "first");
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_FALSE(chosen->summary.cluster_default);

  EXPECT_EQ(ErrorOf(FromYaml(two, "third")),
            "t.yaml: no topology 'third' (the file has: first (tree), second (block))");
  absl::StatusOr<SlurmTopologyMachine> conf = ReadSlurmTopologyMachine(kBlockConf + ":racks");
  ASSERT_FALSE(conf.ok());
  EXPECT_EQ(conf.status().message(),
            kBlockConf +
                ": ':racks' names a topology of a topology.yaml, but this is a topology.conf, "
                "whose one topology Slurm calls 'default' (the file has: default (block)): leave "
                "out ':racks'");
  EXPECT_EQ(ReadSlurmTopologyMachine("/nonexistent/topology.yaml").status().code(),
            absl::StatusCode::kNotFound);
}

// block_sizes 2, 4 over 4 blocks of 2: Slurm's levels are 1 and 2 blocks, so pairs
// of blocks are aggregated and a top switch joins the two pairs.
TEST(SlurmTopologyMachineTest, BlocksAreSwitchesPerBlockAndLevel) {
  absl::StatusOr<SlurmTopologyMachine> built = FromYaml(R"(- topology: nvl
  block:
    block_sizes: [2, 4]
    blocks:
      - block: b1
        nodes: n[1-2]
      - block: b2
        nodes: n[3-4]
      - block: b3
        nodes: n[5-6]
      - block: b4
        nodes: n[7-8]
)");
  ASSERT_TRUE(built.ok()) << built.status();
  const auto& m = dynamic_cast<const SwitchGraphMachine&>(*built->machine);
  std::vector<std::string> switches;
  for (int32_t s = 0; s < m.num_switches(); ++s) switches.push_back(m.switch_name(s));
  EXPECT_THAT(switches, ElementsAre("b1", "b2", "b3", "b4", "b[1-2]", "b[3-4]", "top"));
  EXPECT_EQ(Hops(m, "n1", "n2"), 2);  // one block
  EXPECT_EQ(Hops(m, "n1", "n3"), 4);  // one aggregated block of 2
  EXPECT_EQ(Hops(m, "n1", "n8"), 6);  // through the top
  EXPECT_FALSE(m.has_virtual_root());
  EXPECT_EQ(built->summary.network,
            "4 base blocks of 2 nodes; levels of 1, 2 blocks (2, 4 nodes); 2 aggregated blocks, "
            "a top switch above them");
  EXPECT_EQ(built->summary.parts[4].what, "aggregate");
  EXPECT_EQ(built->summary.parts[4].detail, "level 1: 2 of 2 blocks");
  EXPECT_EQ(built->summary.parts[4].nodes, "n[1-4]");
  EXPECT_EQ(built->summary.parts[6].detail, "joins b[1-2], b[3-4]");

  // The topology.conf of the sample is its 'racks' blocks: the same machine.
  absl::StatusOr<SlurmTopologyMachine> yaml = ReadSlurmTopologyMachine(kSample + ":racks");
  absl::StatusOr<SlurmTopologyMachine> conf = ReadSlurmTopologyMachine(kBlockConf);
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  ASSERT_TRUE(conf.ok()) << conf.status();
  EXPECT_EQ(conf->machine->Spec(), "slurm-topology:" + kBlockConf);
  EXPECT_EQ(conf->summary.format, "topology.conf");
  EXPECT_EQ(conf->summary.topology, "default");
  ASSERT_EQ(yaml->machine->num_nodes(), conf->machine->num_nodes());
  ASSERT_EQ(yaml->machine->num_links(), conf->machine->num_links());
  for (NodeId a = 0; a < yaml->machine->num_nodes(); ++a) {
    for (NodeId b = 0; b < yaml->machine->num_nodes(); ++b) {
      EXPECT_EQ(yaml->machine->Hops(a, b), conf->machine->Hops(a, b));
    }
  }
}

// Without block_sizes Slurm plans levels of 1, 2, 4, 8 and 16 blocks up to the first
// that holds them all; a last short run joins at the level where it is not alone.
TEST(SlurmTopologyMachineTest, DefaultBlockLevelsAndShortLastRuns) {
  std::string text = "- topology: b\n  block:\n    blocks:\n";
  for (int b = 1; b <= 5; ++b) {
    absl::StrAppend(&text, "      - block: b", b, "\n        nodes: n", b, "[1-2]\n");
  }
  absl::StatusOr<SlurmTopologyMachine> built = FromYaml(text);
  ASSERT_TRUE(built.ok()) << built.status();
  const auto& m = dynamic_cast<const SwitchGraphMachine&>(*built->machine);
  std::vector<std::string> switches;
  for (int32_t s = 0; s < m.num_switches(); ++s) switches.push_back(m.switch_name(s));
  EXPECT_THAT(switches,
              ElementsAre("b1", "b2", "b3", "b4", "b5", "b[1-2]", "b[3-4]", "b[1-4]", "b[1-5]"));
  EXPECT_EQ(Hops(m, "n11", "n21"), 4);
  EXPECT_EQ(Hops(m, "n11", "n31"), 6);
  EXPECT_EQ(Hops(m, "n11", "n51"), 6);  // b1, b[1-2], b[1-4], b[1-5], b5
  EXPECT_EQ(Hops(m, "n51", "n52"), 2);
}

TEST(SlurmTopologyMachineTest, BadBlocksNameLineAndField) {
  const std::string head = "- topology: b\n  block:\n";
  const std::string blocks =
      "    blocks:\n      - block: b1\n        nodes: n[1-4]\n      - block: b2\n"
      "        nodes: n[4-7]\n";
  EXPECT_EQ(ErrorOf(FromYaml(head + "    block_sizes: [4, 12]\n" + blocks)),
            "t.yaml:3: topology 'b': block_sizes: 12 is not the base block size 4 times a "
            "power of two");
  EXPECT_EQ(ErrorOf(FromYaml(head + blocks)),
            "t.yaml:7: topology 'b': block 'b2': host 'n4' is also in block 'b1'");
  EXPECT_EQ(ErrorOf(FromYaml(head + "    block_sizes: [1, 65536]\n" + blocks)),
            "t.yaml:3: topology 'b': block_sizes: 65536 is 2^16 base blocks; Slurm's levels end "
            "at 2^15");
  absl::StatusOr<SlurmTopologyFile> conf =
      ParseSlurmTopologyConf("BlockName=b1 Nodes=n[1-4]\nBlockName=b2\n", "b.conf");
  EXPECT_EQ(conf.status().message(), "b.conf:2: block 'b2' has no Nodes=");
}

// Each ring a cycle of switches, one per position; the two rings meet at their
// position 0 through a top switch.
TEST(SlurmTopologyMachineTest, RingsAreCyclesJoinedAtTheirFirstPosition) {
  absl::StatusOr<SlurmTopologyMachine> built = FromYaml(R"(- topology: r
  ring:
    rings:
      - ring: r0
        nodes: a[1-6]
      - ring: r1
        nodes: b[1-2]
      - ring: r2
        nodes: c1
)");
  ASSERT_TRUE(built.ok()) << built.status();
  const auto& m = dynamic_cast<const SwitchGraphMachine&>(*built->machine);
  EXPECT_EQ(m.num_switches(), 6 + 2 + 1 + 1);
  EXPECT_EQ(m.switch_name(0), "r0:0");
  EXPECT_EQ(m.switch_name(9), "top");
  EXPECT_EQ(Hops(m, "a1", "a2"), 3);
  EXPECT_EQ(Hops(m, "a1", "a6"), 3);  // the ring wraps
  EXPECT_EQ(Hops(m, "a1", "a4"), 5);  // half way round
  EXPECT_EQ(Hops(m, "b1", "b2"), 3);  // two positions: one link
  EXPECT_EQ(Hops(m, "a1", "b1"), 4);  // r0:0, top, r1:0
  EXPECT_EQ(Hops(m, "a3", "b2"), 7);  // 2 round r0, 2 through the top, 1 round r1
  EXPECT_EQ(Hops(m, "a1", "c1"), 4);
  // 6 + 1 ring links, 9 node links, 3 to the top; both ways.
  EXPECT_EQ(m.num_links(), 2 * (7 + 9 + 3));
  EXPECT_EQ(built->summary.parts.back().detail, "joins r0:0, r1:0, r2:0");

  EXPECT_EQ(ErrorOf(FromYaml("- topology: r\n  ring:\n    rings:\n      - ring: r0\n"
                             "        nodes: a[1-2]\n      - ring: r1\n        nodes: a[2-3]\n")),
            "t.yaml:7: topology 'r': ring 'r1': host 'a2' is also at position 1 of ring 'r0'");
}

// The torus of torus3d: node id x + X*(y + Y*z) as Slurm numbers cells, each host at
// its coordinates, cells without a host vacant.
TEST(SlurmTopologyMachineTest, TorusPlacesHostsAtTheirCells) {
  std::shared_ptr<Machine> m = MustParse("slurm-topology:" + kSample + ":torus-partial:cores=2");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind(), "torus");
  EXPECT_EQ(m->Spec(), "slurm-topology:" + kSample + ":torus-partial:cores=2");
  EXPECT_EQ(m->dims(), (std::vector<int32_t>{4, 2, 2}));
  EXPECT_EQ(m->num_nodes(), 16);
  EXPECT_EQ(m->num_vacant(), 4);
  const auto& torus = dynamic_cast<const TorusMachine&>(*m);
  EXPECT_EQ(m->NodeName(torus.NodeAt(std::vector<int32_t>{3, 1, 0})), "node08");
  EXPECT_EQ(m->NodeName(torus.NodeAt(std::vector<int32_t>{1, 1, 1})), "node12");
  const NodeId vacant = torus.NodeAt(std::vector<int32_t>{2, 0, 1});
  EXPECT_TRUE(m->IsVacant(vacant));
  EXPECT_EQ(m->NodeName(vacant), "pod2:2:0:1");
  const std::vector<NodeId> all = m->AllocatableNodes();
  EXPECT_EQ(all.size(), 12u);
  EXPECT_EQ(std::count(all.begin(), all.end(), vacant), 0);
  absl::StatusOr<Allocation> whole = Allocation::WholeMachine(m);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(whole->num_nodes(), 12);
  EXPECT_EQ(whole->cores_per_node(), 2);
  absl::StatusOr<std::vector<NodeId>> picked = ParseNodeSelection("node[01,12],pod2:2:0:1", *m);
  ASSERT_TRUE(picked.ok()) << picked.status();
  absl::StatusOr<Allocation> with_vacant = Allocation::Create(m, *picked, 1);
  ASSERT_FALSE(with_vacant.ok());
  EXPECT_THAT(with_vacant.status().message(),
              HasSubstr("node 10 (pod2:2:0:1) is a cell without a host"));
  // Hops are the torus's, whatever the names: (0,0,0) and (3,1,1) are 1+1+1 apart.
  EXPECT_EQ(Hops(*m, "node01", "node08"), 2);
  EXPECT_EQ(Hops(*m, "node01", "node12"), 3);
}

// A job's hop-bytes and link loads on a Slurm torus equal those on torus:XxYxZ for
// the same coordinates: the same graph and mapping give the same numbers.
TEST(SlurmTopologyMachineTest, TorusHopBytesAreThoseOfTheGeneratedTorus) {
  // Hosts named out of x-major order, through two regions.
  absl::StatusOr<SlurmTopologyMachine> built = FromYaml(R"(- topology: t
  torus3d:
    toruses:
      - name: pod
        dims: {x: 4, y: 3, z: 2}
        regions:
          - anchor: {x: 0, y: 0, z: 1}
            dims: {x: 4, y: 3, z: 1}
            nodes: up[01-12]
          - anchor: {x: 0, y: 0, z: 0}
            dims: {x: 4, y: 3, z: 1}
            nodes: down[12-23]
)");
  ASSERT_TRUE(built.ok()) << built.status();
  std::shared_ptr<Machine> slurm = built->machine;
  std::shared_ptr<Machine> plain = MustParse("torus:4x3x2");
  ASSERT_NE(plain, nullptr);
  const auto& plain_torus = dynamic_cast<const TorusMachine&>(*plain);
  // A job of 10 hosts named by a Slurm hostlist, and the same cells on torus:4x3x2.
  absl::StatusOr<std::vector<NodeId>> hosts =
      ParseNodeSelection("up[03-07],down[20-22],up12,down12", *slurm);
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  std::vector<NodeId> same_cells;
  for (NodeId v : *hosts) {
    std::vector<int32_t> c(3);
    slurm->Coordinates(v, c);
    same_cells.push_back(plain_torus.NodeAt(c));
  }
  const int32_t cores = 2;
  absl::StatusOr<Allocation> on_slurm = Allocation::Create(slurm, *hosts, cores);
  absl::StatusOr<Allocation> on_plain = Allocation::Create(plain, same_cells, cores);
  ASSERT_TRUE(on_slurm.ok()) << on_slurm.status();
  ASSERT_TRUE(on_plain.ok()) << on_plain.status();
  // A random graph of 20 tasks and a random mapping onto the 20 slots.
  std::mt19937 random(45);
  TaskGraphBuilder builder(20);
  for (int e = 0; e < 60; ++e) {
    ASSERT_TRUE(builder.AddTraffic(random() % 20, random() % 20, 1 + random() % 1000).ok());
  }
  absl::StatusOr<TaskGraph> graph = std::move(builder).Build();
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::vector<SlotId> mapping(20);
  for (SlotId s = 0; s < 20; ++s) mapping[s] = s;
  std::shuffle(mapping.begin(), mapping.end(), random);
  const HopBytes hop_bytes = ComputeHopBytes(*graph, *on_slurm, mapping);
  EXPECT_GT(hop_bytes, 0);
  EXPECT_EQ(hop_bytes, ComputeHopBytes(*graph, *on_plain, mapping));
  EXPECT_EQ(ComputeMaxDilation(*graph, *on_slurm, mapping),
            ComputeMaxDilation(*graph, *on_plain, mapping));
  for (Routing routing : {Routing::kDimensionOrder, Routing::kAdaptive}) {
    const LinkLoads a = ComputeLinkLoads(*graph, *on_slurm, mapping, routing);
    const LinkLoads b = ComputeLinkLoads(*graph, *on_plain, mapping, routing);
    EXPECT_EQ(a.bytes_on_link, b.bytes_on_link);
  }
}

TEST(SlurmTopologyMachineTest, BadToriNameLineAndField) {
  const std::string head = "- topology: t\n  torus3d:\n    toruses:\n";
  EXPECT_EQ(ErrorOf(FromYaml(head + "      - name: p1\n        dims: {x: 2, y: 1, z: 1}\n"
                                    "        nodes: a[1-2]\n"
                                    "      - name: p2\n        dims: {x: 2, y: 1, z: 1}\n"
                                    "        nodes: b[1-2]\n")),
            "t.yaml:7: topology 't': torus3d: 2 toruses (p1, p2): a machine is one torus; give "
            "each torus its own topology and choose it with :NAME");
  EXPECT_EQ(ErrorOf(FromYaml(head + "      - name: p\n        dims: {x: 2, y: 2, z: 1}\n"
                                    "        nodes: a[1-3],a1\n")),
            "t.yaml:4: topology 't': torus 'p': host 'a1' is at (0,0,0) and at (1,1,0)");
  // A node outside the dims: the reader's errors.
  absl::StatusOr<SlurmTopologyFile> outside = ParseSlurmTopologyYaml(
      head +
          "      - name: p\n        dims: {x: 2, y: 2, z: 1}\n        regions:\n"
          "          - anchor: {x: 1, y: 0, z: 0}\n            dims: {x: 2, y: 1, z: 1}\n"
          "            nodes: a[1-2]\n",
      "t.yaml");
  EXPECT_EQ(outside.status().message(),
            "t.yaml:7: topology 't': torus 'p': region does not fit in 2x2x1");
  absl::StatusOr<SlurmTopologyFile> short_list = ParseSlurmTopologyYaml(
      head + "      - name: p\n        dims: {x: 2, y: 2, z: 1}\n        nodes: a[1-3]\n",
      "t.yaml");
  EXPECT_THAT(short_list.status().message(),
              HasSubstr("t.yaml:4: topology 't': torus 'p': 3 nodes for 4 cells (one per cell"));
}

TEST(SlurmTopologyMachineTest, FlatIsRefused) {
  absl::StatusOr<SlurmTopologyMachine> built = ReadSlurmTopologyMachine(kSample + ":anywhere");
  ASSERT_FALSE(built.ok());
  EXPECT_THAT(built.status().message(),
              HasSubstr(kSample + ":62: topology 'anywhere': flat: no network to map onto"));
  EXPECT_THAT(built.status().message(), HasSubstr("fabric (tree, cluster default), racks (block)"));
}

// The spec: shared options as on every kind, a NAME after the last ':', errors
// with the spec in front.
TEST(SlurmTopologyMachineTest, SpecsTakeTheSharedOptions) {
  std::shared_ptr<Machine> m =
      MustParse("slurm-topology:" + kSample + ":rings:cores=4:link-bandwidth=1e9");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->cores_per_node(), 4);
  EXPECT_EQ(m->Spec(), "slurm-topology:" + kSample + ":rings:link-bandwidth=1e+09");
  m = MustParse("slurm-topology:" + kSample + ":node=2x4");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->cores_per_node(), 8);
  EXPECT_THAT(m->Spec(), StartsWith("slurm-topology:" + kSample + ":fabric:node=2x4"));
  absl::StatusOr<std::shared_ptr<Machine>> bad =
      ParseMachineSpec("slurm-topology:" + kSample + ":prefix=n");
  EXPECT_THAT(bad.status().message(), HasSubstr("(its file names the nodes)"));
  bad = ParseMachineSpec("slurm-topology:" + kSample + ":nope");
  EXPECT_THAT(bad.status().message(),
              HasSubstr("machine spec 'slurm-topology:" + kSample + ":nope': " + kSample +
                        ": no topology 'nope' (the file has: fabric (tree, cluster default), "));
  // A file whose name holds ':' is read whole.
  const std::string colon = WriteTemp("a:b.conf", "RingName=r Nodes=x[1-3]\n");
  m = MustParse("slurm-topology:" + colon);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->num_nodes(), 3);
  absl::StatusOr<std::optional<SlurmTopologySummary>> summary =
      DescribeSlurmTopologySpec("slurm-topology:" + colon + ":cores=2");
  ASSERT_TRUE(summary.ok()) << summary.status();
  ASSERT_TRUE(summary->has_value());
  EXPECT_EQ((*summary)->plugin, SlurmTopologyKind::kRing);
  EXPECT_EQ((*summary)->host_names, "x[1-3]");
  summary = DescribeSlurmTopologySpec("torus:4x4");
  ASSERT_TRUE(summary.ok());
  EXPECT_FALSE(summary->has_value());
}

// topology.conf's block and ring lines, and what it refuses.
TEST(SlurmTopologyConfTest, ReadsBlocksRingsAndRefusesMixing) {
  absl::StatusOr<SlurmTopologyFile> file = ParseSlurmTopologyConf(
      "blockname=b1 nodes=n[1-4]\nBlockName=b2 \\\n  Nodes=n[5-8]\nBlockSizes=4,8\n", "b.conf");
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ(file->topologies.size(), 1u);
  const SlurmTopology& t = file->topologies[0];
  EXPECT_TRUE(file->conf);
  EXPECT_EQ(t.name, "default");
  EXPECT_EQ(t.kind, SlurmTopologyKind::kBlock);
  EXPECT_THAT(t.block_sizes, ElementsAre(4, 8));
  EXPECT_EQ(t.block_sizes_line, 4);
  ASSERT_EQ(t.blocks.size(), 2u);
  EXPECT_EQ(t.blocks[1].line, 2);
  EXPECT_EQ(t.blocks[1].nodes.size(), 4u);
  file = ParseSlurmTopologyConf("RingName=r0 Nodes=a[1-3]\nRingName=r1 Nodes=b[1-2]\n", "r.conf");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->topologies[0].kind, SlurmTopologyKind::kRing);
  EXPECT_EQ(file->topologies[0].rings.size(), 2u);

  struct Bad {
    std::string text, error;
  };
  const Bad cases[] = {
      {"SwitchName=s0 Nodes=a1\nBlockName=b1 Nodes=a2\n",
       "x.conf:2: BlockName= in a topology.conf of SwitchName= lines (the tree plugin's): one "
       "plugin per file"},
      {"BlockName=b1 Nodes=a1\nBlockSizes=2\nBlockSizes=4\n",
       "x.conf:3: BlockSizes= is already given on line 2"},
      {"BlockSizes=4,x\n", "x.conf:1: BlockSizes '4,x' is not a list of positive integers (4,16)"},
      {"BlockSizes=4\n", "x.conf: BlockSizes= but no BlockName= lines"},
      {"BlockName=b1 Nodes=a1 Switches=s\n",
       "x.conf:1: unknown key 'Switches' (expected BlockName, Nodes or BlockSizes)"},
      {"BlockName=b1 Nodes=a1\nBlockName=b1 Nodes=a2\n",
       "x.conf:2: block 'b1' is already defined on line 1"},
      {"RingName=r0 Nodes=a[1-17]\n", "x.conf:1: ring 'r0': 17 nodes, Slurm's limit is 16"},
      {"RingName=r0 Nodes=a1\nNodes=a2\n", "x.conf:2: the line has no RingName="},
  };
  for (const Bad& c : cases) {
    absl::StatusOr<SlurmTopologyFile> bad = ParseSlurmTopologyConf(c.text, "x.conf");
    ASSERT_FALSE(bad.ok()) << c.text;
    EXPECT_EQ(bad.status().message(), c.error) << c.text;
  }
  // slurm:FILE reads the tree plugin's only.
  absl::StatusOr<SwitchGraphMachine> blocks = ReadSlurmTopology(kBlockConf);
  ASSERT_FALSE(blocks.ok());
  EXPECT_THAT(blocks.status().message(),
              HasSubstr(kBlockConf + ":3: a block topology.conf: slurm: reads the tree plugin's "
                                     "(SwitchName= lines); read this one with slurm-topology:"));
}

}  // namespace
}  // namespace hopmap
