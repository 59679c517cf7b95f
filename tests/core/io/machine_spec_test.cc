#include "core/io/machine_spec.h"

#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/topology/catalog.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_path.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kTara =
    std::string(HOPMAP_DATA_DIR) + "/machines/slurm_topology_conf/nstda_tara_topology.conf";

// Writes `content` to a fresh file under the test temp dir and returns its path.
std::string WriteTemp(const std::string& name, const std::string& content) {
  const std::string path = hopmap::testing::TempPath("machine_spec_test_" + name);
  std::ofstream out(path, std::ios::trunc);
  out << content;
  return path;
}

std::shared_ptr<Machine> MustParse(const std::string& spec) {
  absl::StatusOr<std::shared_ptr<Machine>> m = ParseMachineSpec(spec);
  EXPECT_TRUE(m.ok()) << spec << ": " << m.status();
  return m.ok() ? *m : nullptr;
}

// The error message of a spec that must fail with `code`.
std::string SpecError(const std::string& spec,
                      absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
  absl::StatusOr<std::shared_ptr<Machine>> m = ParseMachineSpec(spec);
  EXPECT_FALSE(m.ok()) << spec << " parsed as " << (m.ok() ? (*m)->Spec() : "");
  if (m.ok()) return "";
  EXPECT_EQ(m.status().code(), code) << spec << ": " << m.status();
  return std::string(m.status().message());
}

constexpr const char* kKinds =
    "torus:AxBxC, mesh:AxB, fattree:AxB, chipmesh:XxY, dragonfly:G,A,P, "
    "hierarchy:A1xA2:distances=D1,D2, gpu:HOSTS:gpus=G, gpu-slurm:FILE, gpu-k8s:FILE, "
    "slurm:FILE, slurm-topology:FILE[:NAME], graph:FILE, matrix:FILE, or a catalog name";

// ---------------------------------------------------------------- catalog

TEST(CatalogTest, EntriesInOrder) {
  const std::vector<CatalogEntry>& catalog = BuiltinCatalog();
  std::vector<std::string> names, specs;
  for (const CatalogEntry& e : catalog) {
    names.push_back(e.name);
    specs.push_back(e.spec);
    EXPECT_FALSE(e.description.empty()) << e.name;
  }
  EXPECT_THAT(names, ElementsAre("bgp-8x8x8", "kraken", "tianhe3-proto", "fattree-64x64",
                                 "dragonfly-xc", "dgx-h100-superpod", "gb200-nvl72-pod"));
  EXPECT_THAT(specs,
              ElementsAre("torus:8x8x8:cores=4:link-bandwidth=425e6:link-latency=100e-9",
                          "torus:25x16x24:cores=12:link-bandwidth=4.8e9:link-latency=100e-9",
                          "chipmesh:4x4:nodes=96:link-bandwidth=1.75e9:link-latency=100e-9",
                          "fattree:64x64:cores=16:link-bandwidth=12.5e9:link-latency=90e-9",
                          "dragonfly:15,96,4:cores=24:link-bandwidth=5.25e9:link-latency=100e-9",
                          "gpu:128:gpus=8:leaf=32:nvlink-bandwidth=450e9:rail-bandwidth=50e9:"
                          "prefix=dgx:width=3",
                          "gpu:144:gpus=4:domain=18:leaf=144:nvlink-bandwidth=900e9:"
                          "rail-bandwidth=50e9:prefix=tray:width=3"));
}

TEST(CatalogTest, Find) {
  const CatalogEntry* kraken = FindCatalogEntry("kraken");
  ASSERT_NE(kraken, nullptr);
  EXPECT_EQ(kraken->name, "kraken");
  EXPECT_EQ(kraken->spec, "torus:25x16x24:cores=12:link-bandwidth=4.8e9:link-latency=100e-9");
  EXPECT_EQ(FindCatalogEntry("Kraken"), nullptr);  // names are case-sensitive
  EXPECT_EQ(FindCatalogEntry("krak"), nullptr);
  EXPECT_EQ(FindCatalogEntry(""), nullptr);
  // The pointer is into the one catalog.
  EXPECT_EQ(FindCatalogEntry("dragonfly-xc"), &BuiltinCatalog()[4]);
}

struct CatalogExpectation {
  std::string name;
  std::string kind;
  NodeId nodes;
  int32_t cores;
  std::string spec;  // Spec() of the parsed machine
  int32_t max_hops;
};

TEST(CatalogTest, EveryEntryParsesWithItsDocumentedSize) {
  const std::vector<CatalogExpectation> expected = {
      {"bgp-8x8x8", "torus", 512, 4,
       "torus:8x8x8:cores=4:link-bandwidth=4.25e+08:link-latency=1e-07", 12},
      {"kraken", "torus", 9600, 12,
       "torus:25x16x24:cores=12:link-bandwidth=4.8e+09:link-latency=1e-07", 32},
      {"tianhe3-proto", "chipmesh", 1536, 1,
       "chipmesh:4x4:cores=1:link-bandwidth=1.75e+09:link-latency=1e-07", 6},
      {"fattree-64x64", "fattree", 4096, 16,
       "fattree:64x64:cores=16:link-bandwidth=1.25e+10:link-latency=9e-08", 4},
      {"dragonfly-xc", "dragonfly", 5760, 24,
       "dragonfly:15,96,4:cores=24:link-bandwidth=5.25e+09:link-latency=1e-07", 5},
      // Hops weighted: an NVLink link 1, a fabric link F = NVLink / rail bandwidth.
      {"dgx-h100-superpod", "gpu", 128, 8, "gpu:128:gpus=8:prefix=dgx:width=3", 36},
      {"gb200-nvl72-pod", "gpu", 144, 4,
       "gpu:144:gpus=4:domain=18:leaf=144:nvlink-bandwidth=9e+11:prefix=tray:width=3", 36},
  };
  ASSERT_EQ(BuiltinCatalog().size(), expected.size());
  for (const CatalogExpectation& e : expected) {
    SCOPED_TRACE(e.name);
    std::shared_ptr<Machine> m = MustParse(e.name);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->kind(), e.kind);
    EXPECT_EQ(m->num_nodes(), e.nodes);
    EXPECT_EQ(m->cores_per_node(), e.cores);
    EXPECT_EQ(m->Spec(), e.spec);
    EXPECT_EQ(m->max_hops(), e.max_hops);
    // The entry's own spec string gives the same machine.
    std::shared_ptr<Machine> direct = MustParse(FindCatalogEntry(e.name)->spec);
    ASSERT_NE(direct, nullptr);
    EXPECT_EQ(direct->Spec(), e.spec);
    // A trailing ':' with nothing after it is the plain entry.
    std::shared_ptr<Machine> colon = MustParse(e.name + ":");
    ASSERT_NE(colon, nullptr);
    EXPECT_EQ(colon->Spec(), e.spec);
  }
}

TEST(CatalogTest, NameWithOverrides) {
  std::shared_ptr<Machine> m = MustParse("kraken:cores=4");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->num_nodes(), 9600);
  EXPECT_EQ(m->cores_per_node(), 4);
  EXPECT_EQ(m->Spec(), "torus:25x16x24:cores=4:link-bandwidth=4.8e+09:link-latency=1e-07");

  // wrap= on a catalog torus: x and y wrap, z does not.
  m = MustParse("bgp-8x8x8:wrap=110");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->Spec(), "torus:8x8x8:wrap=110:cores=4:link-bandwidth=4.25e+08:link-latency=1e-07");
  EXPECT_EQ(m->Hops(0, 7), 1);       // x: 0 -> 7 wraps
  EXPECT_EQ(m->Hops(0, 7 * 64), 7);  // z: 0 -> 7 does not
  EXPECT_EQ(m->Hops(0, 7 * 8), 1);   // y wraps

  m = MustParse("tianhe3-proto:cores=2:nodes=8");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->num_nodes(), 4 * 4 * 8);
  EXPECT_EQ(m->cores_per_node(), 2);
  EXPECT_EQ(m->Spec(), "chipmesh:4x4:nodes=8:cores=2:link-bandwidth=1.75e+09:link-latency=1e-07");

  m = MustParse("fattree-64x64:prefix=fat:width=4");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->NodeName(4095), "fat4095");
  EXPECT_EQ(m->cores_per_node(), 16);

  // An option that does not apply to the entry's kind is still rejected.
  EXPECT_EQ(
      SpecError("tianhe3-proto:wrap=11"),
      "machine spec 'chipmesh:4x4:nodes=96:link-bandwidth=1.75e9:link-latency=100e-9:wrap=11': "
      "option wrap= does not apply to "
      "chipmesh");
}

// ---------------------------------------------------------------- generated kinds

TEST(MachineSpecTest, TorusAndMesh) {
  std::shared_ptr<Machine> m = MustParse("torus:4x3x2");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind(), "torus");
  EXPECT_EQ(m->num_nodes(), 24);
  EXPECT_EQ(m->cores_per_node(), 1);
  EXPECT_THAT(m->dims(), ElementsAre(4, 3, 2));
  EXPECT_EQ(m->Hops(0, 3), 1);               // (0,0,0)-(3,0,0) wraps
  EXPECT_EQ(m->Hops(0, 3 + 4 * 2 + 12), 3);  // (3,2,1): 1 + 1 + 1
  EXPECT_EQ(m->Spec(), "torus:4x3x2:cores=1");

  m = MustParse("mesh:4x4:cores=8");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind(), "mesh");
  EXPECT_EQ(m->num_nodes(), 16);
  EXPECT_EQ(m->cores_per_node(), 8);
  EXPECT_EQ(m->Hops(0, 3), 3);
  EXPECT_EQ(m->Hops(0, 15), 6);
  EXPECT_EQ(m->Spec(), "mesh:4x4:cores=8");

  m = MustParse("torus:4x4:wrap=10");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind(), "torus");
  EXPECT_EQ(m->Hops(0, 3), 1);   // x wraps
  EXPECT_EQ(m->Hops(0, 12), 3);  // y = 0 -> 3 does not
  EXPECT_EQ(m->Spec(), "torus:4x4:wrap=10:cores=1");

  m = MustParse("mesh:4x4:wrap=01");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->Hops(0, 3), 3);
  EXPECT_EQ(m->Hops(0, 12), 1);
  EXPECT_EQ(m->Spec(), "torus:4x4:wrap=01:cores=1");

  // wrap= all zeros on a torus is a mesh, all ones on a mesh is a torus.
  m = MustParse("torus:4x4:wrap=00");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind(), "mesh");
  EXPECT_EQ(m->Spec(), "mesh:4x4:cores=1");
  m = MustParse("mesh:5x2:wrap=11");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind(), "torus");
  EXPECT_EQ(m->Spec(), "torus:5x2:cores=1");

  // Later options win.
  m = MustParse("torus:8:cores=2:cores=3");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->cores_per_node(), 3);
  EXPECT_EQ(m->max_hops(), 4);
}

TEST(MachineSpecTest, FatTree) {
  std::shared_ptr<Machine> m = MustParse("fattree:4x4:cores=2");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind(), "fattree");
  EXPECT_EQ(m->num_nodes(), 16);
  EXPECT_EQ(m->cores_per_node(), 2);
  EXPECT_EQ(m->Hops(0, 3), 2);  // one leaf switch
  EXPECT_EQ(m->Hops(0, 4), 4);  // through the root
  EXPECT_EQ(m->Spec(), "fattree:4x4:cores=2");

  m = MustParse("fattree:2x3x4");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->num_nodes(), 24);
  EXPECT_EQ(m->max_hops(), 6);
  EXPECT_EQ(m->Hops(0, 4), 4);   // node 4 = digits (0,1,0)
  EXPECT_EQ(m->Hops(0, 12), 6);  // node 12 = digits (1,0,0)
}

TEST(MachineSpecTest, ChipMesh) {
  std::shared_ptr<Machine> m = MustParse("chipmesh:2x3:nodes=4");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind(), "chipmesh");
  EXPECT_EQ(m->num_nodes(), 24);
  EXPECT_THAT(m->dims(), ElementsAre(2, 3, 4));
  EXPECT_EQ(m->Hops(0, 1), 1);   // same chip, same side
  EXPECT_EQ(m->Hops(0, 2), 2);   // same chip, other side
  EXPECT_EQ(m->Hops(0, 4), 3);   // chip 1 = (1,0): same row, same side
  EXPECT_EQ(m->Hops(0, 14), 6);  // chip 3 = (1,1), other side
  EXPECT_EQ(m->Spec(), "chipmesh:2x3:nodes=4:cores=1");

  m = MustParse("chipmesh:2x3:nodes=4:hops=10,20,30,40,50,60:cores=2");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->Hops(0, 1), 10);
  EXPECT_EQ(m->Hops(0, 2), 20);
  EXPECT_EQ(m->Hops(0, 8), 30);   // chip 2 = (0,1): same column
  EXPECT_EQ(m->Hops(0, 10), 40);  // chip 2, other side
  EXPECT_EQ(m->Hops(0, 12), 50);  // chip 3 = (1,1)
  EXPECT_EQ(m->Hops(0, 14), 60);
  EXPECT_EQ(m->cores_per_node(), 2);
  EXPECT_EQ(m->Spec(), "chipmesh:2x3:nodes=4:hops=10,20,30,40,50,60:cores=2");

  // Defaults: 96 nodes per chip, table 1..6.
  m = MustParse("chipmesh:1x2");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->num_nodes(), 192);
  EXPECT_EQ(m->Hops(0, 191), 4);  // other chip in the row, other side
  EXPECT_EQ(m->Spec(), "chipmesh:1x2:cores=1");
}

TEST(MachineSpecTest, Dragonfly) {
  std::shared_ptr<Machine> m = MustParse("dragonfly:3,2,2:cores=2");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind(), "dragonfly");
  EXPECT_EQ(m->num_nodes(), 12);
  EXPECT_THAT(m->dims(), ElementsAre(3, 2, 2));
  EXPECT_EQ(m->cores_per_node(), 2);
  EXPECT_EQ(m->Hops(0, 1), 2);  // same router
  EXPECT_EQ(m->Hops(0, 2), 3);  // same group, other router
  EXPECT_EQ(m->Spec(), "dragonfly:3,2,2:cores=2");
}

TEST(MachineSpecTest, NodeNamesPrefixAndWidth) {
  std::shared_ptr<Machine> m = MustParse("torus:4x4");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->NodeName(12), "nid00012");
  EXPECT_EQ(m->node_names().Find("nid00012", m->num_nodes()), 12);

  m = MustParse("torus:4x4:prefix=cn:width=3");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->NodeName(7), "cn007");
  EXPECT_EQ(m->NodeName(15), "cn015");
  EXPECT_EQ(m->node_names().Find("cn007", 16), 7);
  EXPECT_EQ(m->node_names().Find("cn7", 16), 7);
  EXPECT_EQ(m->node_names().Find("nid00007", 16), std::nullopt);
  EXPECT_EQ(m->node_names().Find("cn016", 16), std::nullopt);

  // prefix= alone keeps 5 digits; width= alone keeps "nid".
  m = MustParse("mesh:20:prefix=node-");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->NodeName(19), "node-00019");
  m = MustParse("fattree:2x8:width=2");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->NodeName(3), "nid03");
  m = MustParse("dragonfly:2,2,3:prefix=x:width=0");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->NodeName(11), "x11");
  EXPECT_EQ(m->node_names().Find("x11", m->num_nodes()), 11);
  m = MustParse("chipmesh:1x1:nodes=2:prefix=th");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->NodeName(1), "th00001");

  EXPECT_EQ(SpecError("torus:4:width=13"),
            "machine spec 'torus:4:width=13': width= must be "
            "0..12, got '13'");
  EXPECT_EQ(SpecError("torus:4:width=-1"),
            "machine spec 'torus:4:width=-1': width= must be "
            "0..12, got '-1'");
}

TEST(MachineSpecTest, LinkParametersAreReadAndChecked) {
  std::shared_ptr<Machine> m =
      MustParse("torus:4x4:cores=2:link-bandwidth=425e6:link-latency=1e-7");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->link_bandwidth(), 425e6);
  EXPECT_EQ(m->link_latency(), 1e-7);
  EXPECT_EQ(m->Spec(), "torus:4x4:cores=2:link-bandwidth=4.25e+08:link-latency=1e-07");
  std::shared_ptr<Machine> plain = MustParse("torus:4x4");
  ASSERT_NE(plain, nullptr);
  EXPECT_FALSE(plain->link_bandwidth().has_value());
  EXPECT_FALSE(plain->link_latency().has_value());
  // A catalog entry's figures, and an override of one of them.
  std::shared_ptr<Machine> bgp = MustParse("bgp-8x8x8:link-bandwidth=1e9");
  ASSERT_NE(bgp, nullptr);
  EXPECT_EQ(bgp->link_bandwidth(), 1e9);
  EXPECT_EQ(bgp->link_latency(), 100e-9);
  EXPECT_EQ(SpecError("torus:4:link-bandwidth=fast"),
            "machine spec 'torus:4:link-bandwidth=fast': link-bandwidth= must be a number from "
            "1000 to 1e+14 (bytes/s), got 'fast'");
  EXPECT_EQ(SpecError("torus:4:link-bandwidth=0"),
            "machine spec 'torus:4:link-bandwidth=0': link-bandwidth= must be a number from "
            "1000 to 1e+14 (bytes/s), got '0'");
  EXPECT_EQ(SpecError("torus:4:link-latency=-1e-6"),
            "machine spec 'torus:4:link-latency=-1e-6': link-latency= must be a number from 0 "
            "to 1 (seconds), got '-1e-6'");
  EXPECT_EQ(SpecError("torus:4:link-latency=nan"),
            "machine spec 'torus:4:link-latency=nan': link-latency= must be a number from 0 "
            "to 1 (seconds), got 'nan'");
}

TEST(MachineSpecTest, SpecRoundTripForGeneratedKinds) {
  const std::vector<std::string> specs = {
      "torus:8x8x8:cores=4",
      "torus:25x16x24:cores=12",
      "mesh:4x4",
      "torus:4x4x2:wrap=101:cores=3",
      "mesh:7:wrap=1",
      "torus:3x5:wrap=00",
      "fattree:64x64:cores=16",
      "fattree:2x3x4",
      "chipmesh:4x4:nodes=96",
      "chipmesh:2x3:nodes=4:hops=2,2,3,3,4,4:cores=5",
      "chipmesh:3x2:hops=1,1,1,1,1,1",
      "dragonfly:15,96,4:cores=24",
      "dragonfly:3,2,2",
      "kraken:cores=4",
      "bgp-8x8x8:wrap=011",
      "torus:4x4:link-bandwidth=2e9",
      "fattree:4x4:link-latency=0:link-bandwidth=1e3",
      "dragonfly:3,2,2:link-bandwidth=1.5e10:link-latency=2.5e-07",
  };
  for (const std::string& spec : specs) {
    SCOPED_TRACE(spec);
    std::shared_ptr<Machine> m = MustParse(spec);
    ASSERT_NE(m, nullptr);
    std::shared_ptr<Machine> again = MustParse(m->Spec());
    ASSERT_NE(again, nullptr);
    EXPECT_EQ(again->Spec(), m->Spec());
    EXPECT_EQ(again->kind(), m->kind());
    EXPECT_EQ(again->num_nodes(), m->num_nodes());
    EXPECT_EQ(again->cores_per_node(), m->cores_per_node());
    EXPECT_EQ(again->max_hops(), m->max_hops());
    const NodeId last = m->num_nodes() - 1;
    for (NodeId b : {NodeId{1}, last / 3, last / 2, last}) {
      EXPECT_EQ(again->Hops(0, b), m->Hops(0, b)) << b;
    }
  }
}

// ---------------------------------------------------------------- files

TEST(MachineSpecTest, SlurmRealFile) {
  std::shared_ptr<Machine> m = MustParse("slurm:" + kTara);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind(), "graph");
  EXPECT_EQ(m->num_nodes(), 10);
  EXPECT_EQ(m->cores_per_node(), 1);
  EXPECT_EQ(m->NodeName(0), "tara-c-001");
  EXPECT_EQ(m->NodeName(4), "tara-c-005");
  EXPECT_EQ(m->Hops(0, 3), 2);             // both on s0
  EXPECT_EQ(m->Hops(0, 4), 4);             // s0 - s4 - s1
  EXPECT_EQ(m->Spec(), "slurm:" + kTara);  // reads back as a Slurm file

  m = MustParse("slurm:" + kTara + ":cores=4");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->cores_per_node(), 4);
  EXPECT_EQ(m->num_nodes(), 10);
}

// File kinds: Spec() names the file and reads back as the same network.
TEST(MachineSpecTest, SpecRoundTripForFileKinds) {
  const std::string graph =
      WriteTemp("roundtrip.graph",
                "switch top s[0-1]\n"
                "node a b c\n"
                "link top s0\nlink top s1\nlink a s0\nlink b s0\nlink c s1\n");
  const std::string matrix = WriteTemp("roundtrip.matrix", "0 1 2\n1 0 1\n2 1 0\n");
  for (const std::string& spec : {"slurm:" + kTara, "graph:" + graph, "matrix:" + matrix}) {
    SCOPED_TRACE(spec);
    std::shared_ptr<Machine> m = MustParse(spec);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->Spec(), spec);
    std::shared_ptr<Machine> again = MustParse(m->Spec());
    ASSERT_NE(again, nullptr);
    EXPECT_EQ(again->Spec(), spec);
    EXPECT_EQ(again->kind(), m->kind());
    ASSERT_EQ(again->num_nodes(), m->num_nodes());
    for (NodeId b = 0; b < m->num_nodes(); ++b) {
      EXPECT_EQ(again->Hops(0, b), m->Hops(0, b)) << b;
      EXPECT_EQ(again->NodeName(b), m->NodeName(b)) << b;
    }
  }
}

TEST(MachineSpecTest, SlurmTempFile) {
  const std::string path = WriteTemp("small.conf",
                                     "# two leaves\n"
                                     "SwitchName=l0 Nodes=h[1-2]\n"
                                     "SwitchName=l1 Nodes=h[3-4]\n"
                                     "SwitchName=top Switches=l[0-1]\n");
  std::shared_ptr<Machine> m = MustParse("slurm:" + path + ":cores=2");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->num_nodes(), 4);
  EXPECT_EQ(m->cores_per_node(), 2);
  EXPECT_EQ(m->NodeName(2), "h3");
  EXPECT_EQ(m->Hops(0, 1), 2);
  EXPECT_EQ(m->Hops(1, 2), 4);
}

TEST(MachineSpecTest, GraphFile) {
  const std::string path = WriteTemp("small.graph",
                                     "# one root, two leaves\n"
                                     "switch top s[0-1]\n"
                                     "node a b c\n"
                                     "link top s0\n"
                                     "link top s1\n"
                                     "link a s0\n"
                                     "link b s0\n"
                                     "link c s1\n");
  std::shared_ptr<Machine> m = MustParse("graph:" + path);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind(), "graph");
  EXPECT_EQ(m->num_nodes(), 3);
  EXPECT_EQ(m->NodeName(2), "c");
  EXPECT_EQ(m->Hops(0, 1), 2);
  EXPECT_EQ(m->Hops(0, 2), 4);
  EXPECT_EQ(m->Spec(), "graph:" + path);
  m = MustParse("graph:" + path + ":cores=6");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->cores_per_node(), 6);
}

TEST(MachineSpecTest, MatrixFile) {
  const std::string path = WriteTemp("small.matrix",
                                     "names: h1 h2 h3\n"
                                     "0 1 2\n"
                                     "1 0 1\n"
                                     "2 1 0\n");
  std::shared_ptr<Machine> m = MustParse("matrix:" + path + ":cores=2");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind(), "matrix");
  EXPECT_EQ(m->num_nodes(), 3);
  EXPECT_EQ(m->cores_per_node(), 2);
  EXPECT_EQ(m->NodeName(1), "h2");
  EXPECT_EQ(m->Hops(0, 2), 2);
  EXPECT_EQ(m->num_links(), 0);
  EXPECT_EQ(m->Spec(), "matrix:" + path);

  // A ':' in the file name belongs to the name; only known options are peeled off.
  const std::string colon_path = WriteTemp("a:b.matrix", "0 7\n7 0\n");
  m = MustParse("matrix:" + colon_path + ":cores=3");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->Hops(0, 1), 7);
  EXPECT_EQ(m->cores_per_node(), 3);
  EXPECT_EQ(m->Spec(), "matrix:" + colon_path);
}

// ---------------------------------------------------------------- errors

TEST(MachineSpecErrorTest, UnknownMachineListsTheCatalog) {
  EXPECT_EQ(
      SpecError("nosuch", absl::StatusCode::kNotFound),
      std::string("unknown machine 'nosuch' (catalog: bgp-8x8x8, kraken, tianhe3-proto, "
                  "fattree-64x64, dragonfly-xc, dgx-h100-superpod, gb200-nvl72-pod; or a spec: ") +
          kKinds + ")");
}

TEST(MachineSpecErrorTest, UnknownKind) {
  EXPECT_EQ(SpecError("ring:8"),
            std::string("machine spec 'ring:8': unknown kind 'ring' (use ") + kKinds + ")");
}

TEST(MachineSpecErrorTest, EmptyAndNothingAfterKind) {
  EXPECT_EQ(SpecError(""), std::string("empty machine spec (use ") + kKinds + ")");
  EXPECT_EQ(SpecError("torus:"), "machine spec 'torus:': nothing after 'torus:'");
  EXPECT_EQ(SpecError("torus:cores=2"), "machine spec 'torus:cores=2': nothing after 'torus:'");
}

TEST(MachineSpecErrorTest, BadDimensions) {
  EXPECT_EQ(SpecError("torus:4x0"),
            "machine spec 'torus:4x0': a dimension must be a positive integer, got '0'");
  EXPECT_EQ(SpecError("torus:4xa"),
            "machine spec 'torus:4xa': a dimension must be a positive integer, got 'a'");
  EXPECT_EQ(SpecError("mesh:4x"),
            "machine spec 'mesh:4x': a dimension must be a positive integer, got ''");
  EXPECT_EQ(SpecError("fattree:4x-2"),
            "machine spec 'fattree:4x-2': an arity must be a positive integer, got '-2'");
  EXPECT_EQ(SpecError("chipmesh:4"), "machine spec 'chipmesh:4': chipmesh needs XxY chips");
  EXPECT_EQ(SpecError("chipmesh:2x0"),
            "machine spec 'chipmesh:2x0': a chip-grid side must be a positive integer, got '0'");
  EXPECT_EQ(SpecError("dragonfly:3,2"),
            "machine spec 'dragonfly:3,2': dragonfly needs G,A,P (groups, routers per group, "
            "nodes per router)");
  EXPECT_EQ(SpecError("dragonfly:3,x,2"),
            "machine spec 'dragonfly:3,x,2': a dragonfly size must be a positive integer, got "
            "'x'");
  // The model's own check, prefixed with the spec.
  EXPECT_THAT(SpecError("chipmesh:2x2:nodes=3"),
              HasSubstr("machine spec 'chipmesh:2x2:nodes=3': "));
  EXPECT_THAT(SpecError("torus:65536x65536"), HasSubstr("machine spec 'torus:65536x65536': "));
}

TEST(MachineSpecErrorTest, WrapOfWrongLength) {
  EXPECT_EQ(SpecError("torus:4x4:wrap=1"),
            "machine spec 'torus:4x4:wrap=1': wrap= needs one 0 or 1 per dimension (2), got '1'");
  EXPECT_EQ(SpecError("mesh:4x4x4:wrap=1101"),
            "machine spec 'mesh:4x4x4:wrap=1101': wrap= needs one 0 or 1 per dimension (3), got "
            "'1101'");
  EXPECT_EQ(SpecError("torus:4x4:wrap=12"),
            "machine spec 'torus:4x4:wrap=12': wrap= needs one 0 or 1 per dimension (2), got '12'");
}

TEST(MachineSpecErrorTest, OptionsThatDoNotApply) {
  EXPECT_EQ(SpecError("fattree:4x4:wrap=11"),
            "machine spec 'fattree:4x4:wrap=11': option wrap= does not apply to fattree");
  EXPECT_EQ(SpecError("torus:4x4:hops=1,2,3,4,5,6"),
            "machine spec 'torus:4x4:hops=1,2,3,4,5,6': option hops= does not apply to torus");
  EXPECT_EQ(SpecError("dragonfly:2,2,2:nodes=4"),
            "machine spec 'dragonfly:2,2,2:nodes=4': option nodes= does not apply to dragonfly");
  EXPECT_EQ(SpecError("slurm:" + kTara + ":wrap=1"),
            "machine spec 'slurm:" + kTara + ":wrap=1': option wrap= does not apply to slurm");
  const std::string matrix = WriteTemp("opt.matrix", "0 1\n1 0\n");
  EXPECT_EQ(SpecError("matrix:" + matrix + ":prefix=x"),
            "machine spec 'matrix:" + matrix +
                ":prefix=x': prefix=/width= do not apply to matrix (its file names the nodes)");
}

TEST(MachineSpecErrorTest, HopsWithFiveValues) {
  EXPECT_EQ(SpecError("chipmesh:2x2:hops=1,2,3,4,5"),
            "machine spec 'chipmesh:2x2:hops=1,2,3,4,5': hops= needs 6 values (same chip "
            "same/other side, same row or column same/other side, elsewhere same/other side), "
            "got 5");
  EXPECT_EQ(SpecError("chipmesh:2x2:hops=1,2,3,0,5,6"),
            "machine spec 'chipmesh:2x2:hops=1,2,3,0,5,6': hops= must be a positive integer, "
            "got '0'");
}

TEST(MachineSpecErrorTest, BadOptionValues) {
  EXPECT_EQ(SpecError("torus:4:cores=0"),
            "machine spec 'torus:4:cores=0': cores= must be a positive integer, got '0'");
  EXPECT_EQ(SpecError("torus:4:cores="),
            "machine spec 'torus:4:cores=': cores= must be a positive integer, got ''");
  EXPECT_EQ(SpecError("chipmesh:2x2:nodes=many"),
            "machine spec 'chipmesh:2x2:nodes=many': nodes= must be a positive integer, got "
            "'many'");
}

TEST(MachineSpecErrorTest, UnknownOption) {
  EXPECT_EQ(SpecError("torus:4x4:foo=1"),
            "machine spec 'torus:4x4:foo=1': unknown option 'foo=1' (options: cores=, wrap=, "
            "nodes=, hops=, prefix=, width=, link-bandwidth=, link-latency=, distances=, "
            "node=, node-distances=, hop-cost=, packages=, cpus=, gpus=, domain=, leaf=, "
            "nvlink-bandwidth=, nvlink-latency=, rail-bandwidth=, rail-latency=, "
            "oversubscription=, tree=, block=, block-label=, "
            "sub-block-label=, host-label=)");
  // An unknown option before known ones: the known ones are peeled off first.
  EXPECT_EQ(SpecError("torus:4x4:foo=1:cores=2"),
            "machine spec 'torus:4x4:foo=1:cores=2': unknown option 'foo=1' (options: cores=, "
            "wrap=, nodes=, hops=, prefix=, width=, link-bandwidth=, link-latency=, distances=, "
            "node=, node-distances=, hop-cost=, packages=, cpus=, gpus=, domain=, leaf=, "
            "nvlink-bandwidth=, nvlink-latency=, rail-bandwidth=, rail-latency=, "
            "oversubscription=, tree=, block=, block-label=, "
            "sub-block-label=, host-label=)");
}

// The error should name only the bad segment, wherever it is. Today, when an
// unknown option follows a known one, the message names everything after the
// dimensions ('cores=2:foo=1', and 'cores=4:4x4' for a catalog name).
TEST(MachineSpecErrorTest, UnknownOptionAfterAKnownOneNamesOnlyTheBadSegment) {
  EXPECT_EQ(SpecError("torus:4x4:cores=2:foo=1"),
            "machine spec 'torus:4x4:cores=2:foo=1': unknown option 'foo=1' (options: cores=, "
            "wrap=, nodes=, hops=, prefix=, width=, link-bandwidth=, link-latency=, distances=, "
            "node=, node-distances=, hop-cost=, packages=, cpus=, gpus=, domain=, leaf=, "
            "nvlink-bandwidth=, nvlink-latency=, rail-bandwidth=, rail-latency=, "
            "oversubscription=, tree=, block=, block-label=, "
            "sub-block-label=, host-label=)");
  EXPECT_THAT(SpecError("bgp-8x8x8:4x4"), HasSubstr("unknown option '4x4'"));
}

TEST(MachineSpecErrorTest, MissingFiles) {
  const std::string missing = hopmap::testing::TempPath("machine_spec_test_no_such.conf");
  // A missing file stays NotFound; the spec is added to its message.
  std::string error = SpecError("slurm:" + missing, absl::StatusCode::kNotFound);
  EXPECT_THAT(error, HasSubstr("machine spec 'slurm:" + missing + "': "));
  EXPECT_THAT(error, HasSubstr(missing + ": cannot open"));
  EXPECT_THAT(SpecError("graph:" + missing, absl::StatusCode::kNotFound),
              HasSubstr(missing + ": cannot open"));
  EXPECT_THAT(SpecError("matrix:" + missing, absl::StatusCode::kNotFound),
              HasSubstr(missing + ": cannot open"));
  // A bad file's own error comes through with its line.
  const std::string bad = WriteTemp("bad.matrix", "0 1\n1 x\n");
  EXPECT_THAT(SpecError("matrix:" + bad), HasSubstr(bad + ":2: "));
}

// ---------------------------------------------------------------- node selections

TEST(ReadNodeSelectionTest, Inline) {
  std::shared_ptr<Machine> m = MustParse("torus:8x8");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<std::vector<NodeId>> nodes =
      ReadNodeSelection("12, 3-5,nid[00040-00041,00007]", *m);
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  EXPECT_THAT(*nodes, ElementsAre(12, 3, 4, 5, 40, 41, 7));
  EXPECT_EQ(ReadNodeSelection("64", *m).status().message(),
            "node 64 is outside machine torus:8x8:cores=1 (nodes 0..63)");
}

TEST(ReadNodeSelectionTest, FileWithCommentsAndBlankLines) {
  std::shared_ptr<Machine> m = MustParse("torus:8x8:prefix=cn:width=3");
  ASSERT_NE(m, nullptr);
  const std::string path = WriteTemp("nodes.txt",
                                     "# the job's nodes\n"
                                     "\n"
                                     "12\n"
                                     "  4-6   # a range\n"
                                     "cn[001,003]\n"
                                     "\t \n"
                                     "40, 41,cn063\n"
                                     "# the end\n");
  absl::StatusOr<std::vector<NodeId>> nodes = ReadNodeSelection("@" + path, *m);
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  EXPECT_THAT(*nodes, ElementsAre(12, 4, 5, 6, 1, 3, 40, 41, 63));

  // Without a trailing newline, and with a name for a slurm machine.
  std::shared_ptr<Machine> tara = MustParse("slurm:" + kTara);
  ASSERT_NE(tara, nullptr);
  const std::string hosts = WriteTemp("hosts.txt", "tara-m-[001-002]\ntara-c-001");
  nodes = ReadNodeSelection("@" + hosts, *tara);
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  EXPECT_THAT(*nodes, ElementsAre(6, 7, 0));
}

TEST(ReadNodeSelectionTest, BadLineNamesFileAndLine) {
  std::shared_ptr<Machine> m = MustParse("torus:8x8");
  ASSERT_NE(m, nullptr);
  std::string path = WriteTemp("bad_id.txt", "1\n# c\n\n99\n");
  absl::StatusOr<std::vector<NodeId>> nodes = ReadNodeSelection("@" + path, *m);
  ASSERT_FALSE(nodes.ok());
  EXPECT_EQ(nodes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(nodes.status().message(),
            path + ":4: node 99 is outside machine torus:8x8:cores=1 (nodes 0..63)");

  path = WriteTemp("bad_host.txt", "1\n  nid00002 # ok\nnode7\n");
  EXPECT_EQ(ReadNodeSelection("@" + path, *m).status().message(),
            path + ":3: host 'node7' is not a node of torus:8x8:cores=1");

  path = WriteTemp("reversed.txt", "5-3\n");
  EXPECT_EQ(ReadNodeSelection("@" + path, *m).status().message(),
            path + ":1: node selection: reversed range 5-3 (5 > 3)");
}

TEST(ReadNodeSelectionTest, EmptyFile) {
  std::shared_ptr<Machine> m = MustParse("torus:8x8");
  ASSERT_NE(m, nullptr);
  for (const std::string& content : {std::string(""), std::string("# only a comment\n\n  \n")}) {
    const std::string path = WriteTemp("empty.txt", content);
    absl::StatusOr<std::vector<NodeId>> nodes = ReadNodeSelection("@" + path, *m);
    ASSERT_FALSE(nodes.ok());
    EXPECT_EQ(nodes.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(nodes.status().message(), path + ": no nodes listed");
  }
}

TEST(ReadNodeSelectionTest, MissingFile) {
  std::shared_ptr<Machine> m = MustParse("torus:8x8");
  ASSERT_NE(m, nullptr);
  const std::string path = hopmap::testing::TempPath("machine_spec_test_no_such_nodes.txt");
  absl::StatusOr<std::vector<NodeId>> nodes = ReadNodeSelection("@" + path, *m);
  ASSERT_FALSE(nodes.ok());
  EXPECT_EQ(nodes.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(nodes.status().message(), path + ": cannot open node list");
}

TEST(MachineSpecTest, HierarchySpecsAndTheirErrors) {
  absl::StatusOr<std::shared_ptr<Machine>> m =
      ParseMachineSpec("hierarchy:4x16x16:distances=1,10,100:link-bandwidth=1e10");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->kind(), "hierarchy");
  EXPECT_EQ((*m)->num_nodes(), 1024);
  EXPECT_EQ((*m)->cores_per_node(), 1);
  EXPECT_EQ((*m)->Spec(), "hierarchy:4x16x16:distances=1,10,100:link-bandwidth=1e+10");
  absl::StatusOr<std::shared_ptr<Machine>> again = ParseMachineSpec((*m)->Spec());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->Spec(), (*m)->Spec());
  auto error = [](const std::string& spec) {
    absl::StatusOr<std::shared_ptr<Machine>> bad = ParseMachineSpec(spec);
    EXPECT_FALSE(bad.ok()) << spec;
    return bad.ok() ? std::string() : std::string(bad.status().message());
  };
  EXPECT_THAT(error("hierarchy:4x16"), HasSubstr("hierarchy needs distances=D1,...,Dl"));
  EXPECT_THAT(error("hierarchy:4x16:distances=1"),
              HasSubstr("2 levels (4x16) need as many distances, got 1"));
  EXPECT_THAT(error("hierarchy:4x16:distances=10,1"),
              HasSubstr("distance 2 (1) is less than the level below it (10)"));
  EXPECT_THAT(error("hierarchy:4x16:distances=1,x"), HasSubstr("a distance must be a positive"));
  EXPECT_THAT(error("hierarchy:4x0:distances=1,2"), HasSubstr("an arity must be a positive"));
  EXPECT_THAT(error("hierarchy:4x4:distances=1,2:cores=4"),
              HasSubstr("cores= does not apply to hierarchy"));
  EXPECT_THAT(error("torus:4x4:distances=1,2"),
              HasSubstr("option distances= does not apply to torus"));
}

}  // namespace
}  // namespace hopmap

namespace hopmap {
namespace {

// ------------------------------------------------------------- inside the node

TEST(MachineSpecNodeTest, NodeLevelsOnAnyKindAndTheSpecReadsBack) {
  std::shared_ptr<Machine> m = MustParse("torus:4x4:node=2x4x8:node-distances=1,5,20");
  ASSERT_NE(m, nullptr);
  ASSERT_NE(m->node_interior(), nullptr);
  EXPECT_EQ(m->cores_per_node(), 64);  // node= sets the cores
  EXPECT_EQ(m->node_interior()->hop_cost(), 200);
  EXPECT_EQ(m->Spec(), "torus:4x4:cores=64:node=2x4x8:node-distances=1,5,20:hop-cost=200");
  EXPECT_EQ(MustParse(m->Spec())->Spec(), m->Spec());
  // Default distances 1, 10, 100, ...; cores= may repeat the PEs; other kinds too.
  m = MustParse("fattree:4x4:cores=8:node=2x4:hop-cost=50");
  EXPECT_EQ(m->Spec(), "fattree:4x4:cores=8:node=2x4:node-distances=1,10:hop-cost=50");
  m = MustParse("dragonfly:2,2,2:node=4x2:packages=1");
  EXPECT_EQ(m->node_interior()->num_packages(), 1);
  EXPECT_EQ(MustParse(m->Spec())->node_interior()->num_packages(), 1);
}

TEST(MachineSpecNodeTest, NodeLevelErrorsSayWhatIsWrong) {
  EXPECT_EQ(SpecError("torus:4x4:cores=48:node=2x4x8"),
            "machine spec 'torus:4x4:cores=48:node=2x4x8': cores=48 but node=2x4x8 has 64 PEs "
            "(leave cores= out: node= sets it)");
  EXPECT_EQ(SpecError("torus:4x4:node-distances=1,2"),
            "machine spec 'torus:4x4:node-distances=1,2': node-distances= needs node= (the "
            "levels inside a node)");
  EXPECT_THAT(SpecError("hierarchy:4x4:distances=1,10:node=2x2"),
              HasSubstr("node= does not apply to hierarchy"));
  EXPECT_EQ(SpecError("torus:4:node=2x3:node-distances=1"),
            "machine spec 'torus:4:node=2x3:node-distances=1': node=2x3 has 2 levels but "
            "node-distances= gives 1 (one per level, the lowest first)");
  EXPECT_THAT(SpecError("torus:4:node=2x3:packages=4"), HasSubstr("packages=4 does not divide"));
  EXPECT_THAT(SpecError("torus:4:node=2xq"), HasSubstr("a node level must be a positive integer"));
  EXPECT_THAT(SpecError("torus:4:node=hwloc:/nonexistent/x.xml", absl::StatusCode::kNotFound),
              HasSubstr("/nonexistent/x.xml: cannot open"));
}

// cpus=: the OS's number of each PE's CPU; the spec carries it back, in runs.
TEST(MachineSpecNodeTest, CpusGiveTheOsNumbersAndReadBack) {
  std::shared_ptr<Machine> m = MustParse("torus:2:node=2x4:cpus=0-3,8,10,12,14");
  ASSERT_NE(m, nullptr);
  const NodeInterior& n = *m->node_interior();
  EXPECT_EQ(n.OsCpuOf(2), 2);
  EXPECT_EQ(n.OsCpuOf(5), 10);
  EXPECT_EQ(m->Spec(),
            "torus:2:cores=8:node=2x4:node-distances=1,10:hop-cost=100:cpus=0-3,8,10,12,14");
  EXPECT_EQ(MustParse(m->Spec())->node_interior()->os_cpus(), n.os_cpus());
  // The PE ids themselves are the default and are not written.
  EXPECT_EQ(MustParse("torus:2:node=2x2:cpus=0-3")->Spec(),
            "torus:2:cores=4:node=2x2:node-distances=1,10:hop-cost=100");
}

TEST(MachineSpecNodeTest, CpuErrorsSayWhatIsWrong) {
  EXPECT_EQ(SpecError("torus:2:node=2x2:cpus=0,1,1,2"),
            "machine spec 'torus:2:node=2x2:cpus=0,1,1,2': cpus=: CPU 1 is given twice");
  EXPECT_EQ(SpecError("torus:2:node=2x2:cpus=0-2"),
            "machine spec 'torus:2:node=2x2:cpus=0-2': cpus= lists 3 CPUs for the node's 4 PEs "
            "(one per PE, in PE order)");
  EXPECT_THAT(SpecError("torus:2:node=2x2:cpus=0,x,2,3"),
              HasSubstr("cpus=: 'x' is not a CPU number or a range A-B"));
  EXPECT_THAT(SpecError("torus:2:node=2x2:cpus=3-1"), HasSubstr("'3-1' is not a CPU number"));
  EXPECT_THAT(SpecError("torus:2:cpus=0,1"), HasSubstr("cpus= needs node="));
  EXPECT_THAT(SpecError("torus:2:node=hwloc:/nonexistent/x.xml:cpus=0,1"),
              HasSubstr("cpus= does not apply to node=hwloc:"));
}

}  // namespace
}  // namespace hopmap
