// The table of machine kinds agrees with the machines its parsers make and with what
// ParseMachineSpec does with each row's answers.
#include "core/io/machine_kinds.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/io/machine_spec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_path.h"

namespace hopmap {
namespace {

using ::testing::HasSubstr;

std::string WriteTemp(const std::string& name, const std::string& content) {
  const std::string path = hopmap::testing::TempPath("machine_kinds_test_" + name);
  std::ofstream out(path, std::ios::trunc);
  out << content;
  return path;
}

// One spec of every kind, by the row's name: a new row without one fails below.
const std::map<std::string, std::string>& SampleSpecs() {
  static const auto* samples = new std::map<std::string, std::string>{
      {"torus", "torus:4x3x2"},
      {"mesh", "mesh:4x3"},
      {"fattree", "fattree:4x4"},
      {"chipmesh", "chipmesh:2x2:nodes=4"},
      {"dragonfly", "dragonfly:3,2,2"},
      {"hierarchy", "hierarchy:4x2:distances=1,10"},
      {"gpu", "gpu:6:gpus=4:domain=2:leaf=4"},
      {"gpu-slurm", "gpu-slurm:" + std::string(HOPMAP_DATA_DIR) + "/gpu/topology.yaml:gpus=4"},
      {"gpu-k8s", "gpu-k8s:" + std::string(HOPMAP_DATA_DIR) +
                      "/gpu/kubectl_nodes.json:sub-block-label=cloud.google.com/"
                      "gce-topology-subblock:rail-bandwidth=25e9"},
      {"slurm", "slurm:" + std::string(HOPMAP_DATA_DIR) +
                    "/machines/slurm_topology_conf/nstda_tara_topology.conf"},
      {"slurm-topology",
       "slurm-topology:" + std::string(HOPMAP_DATA_DIR) + "/slurm/topology.yaml:racks"},
      {"graph",
       "graph:" + WriteTemp("small.graph",
                            "switch top s[0-1]\nnode a b c\n"
                            "link top s0\nlink top s1\nlink a s0\nlink b s0\nlink c s1\n")},
      {"matrix", "matrix:" + WriteTemp("small.matrix", "0 1 2\n1 0 1\n2 1 0\n")},
  };
  return *samples;
}

std::shared_ptr<Machine> MustParse(const std::string& spec) {
  absl::StatusOr<std::shared_ptr<Machine>> m = ParseMachineSpec(spec);
  EXPECT_TRUE(m.ok()) << spec << ": " << m.status();
  return m.ok() ? *m : nullptr;
}

std::string SpecError(const std::string& spec) {
  absl::StatusOr<std::shared_ptr<Machine>> m = ParseMachineSpec(spec);
  EXPECT_FALSE(m.ok()) << spec << " parsed as " << (m.ok() ? (*m)->Spec() : "");
  return m.ok() ? "" : std::string(m.status().message());
}

TEST(MachineKindsTest, NamesAreDistinctAndFound) {
  std::set<std::string> names;
  for (const MachineKind& kind : BuiltinMachineKinds()) {
    EXPECT_TRUE(names.insert(kind.name).second) << kind.name;
    EXPECT_EQ(FindMachineKind(kind.name), &kind);
    EXPECT_NE(kind.parse, nullptr) << kind.name;
    EXPECT_TRUE(absl::StartsWith(kind.usage, kind.name + ":")) << kind.usage;
    // What its machines report is a row too, which says the same of them (but for
    // reads_file, which is the spec's: a GPU cluster is given by sizes or by a file).
    const MachineKind* of_machines = FindMachineKind(kind.machine_kind);
    ASSERT_NE(of_machines, nullptr) << kind.name;
    if (kind.machine_kind != "gpu") {
      EXPECT_EQ(of_machines->reads_file, kind.reads_file) << kind.name;
    }
    EXPECT_EQ(of_machines->has_links, kind.has_links) << kind.name;
    EXPECT_EQ(of_machines->one_slot_per_node, kind.one_slot_per_node) << kind.name;
  }
  EXPECT_EQ(FindMachineKind("kraken"), nullptr);  // a catalog name, not a kind
  EXPECT_EQ(FindMachineKind(""), nullptr);
}

// The list errors give, in the table's order.
TEST(MachineKindsTest, UsagesAreListedInOrder) {
  EXPECT_EQ(MachineKindUsages(),
            "torus:AxBxC, mesh:AxB, fattree:AxB, chipmesh:XxY, dragonfly:G,A,P, "
            "hierarchy:A1xA2:distances=D1,D2, gpu:HOSTS:gpus=G, gpu-slurm:FILE, gpu-k8s:FILE, "
            "slurm:FILE, slurm-topology:FILE[:NAME], graph:FILE, matrix:FILE");
  EXPECT_THAT(SpecError("ring:8"), HasSubstr("unknown kind 'ring' (use " + MachineKindUsages() +
                                             ", or a catalog name)"));
}

TEST(MachineKindsTest, EveryKindParsesItsOwnSpecBack) {
  for (const MachineKind& kind : BuiltinMachineKinds()) {
    SCOPED_TRACE(kind.name);
    ASSERT_TRUE(SampleSpecs().contains(kind.name)) << "add a sample spec of the new kind";
    std::shared_ptr<Machine> m = MustParse(SampleSpecs().at(kind.name));
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->kind(), kind.machine_kind);
    EXPECT_EQ(MachineKindOf(*m), FindMachineKind(kind.machine_kind));
    EXPECT_TRUE(absl::StartsWith(m->Spec(), kind.name + ":")) << m->Spec();
    EXPECT_EQ(m->num_links() > 0, kind.has_links);
    std::shared_ptr<Machine> again = MustParse(m->Spec());
    ASSERT_NE(again, nullptr);
    EXPECT_EQ(again->Spec(), m->Spec());
    ASSERT_EQ(again->num_nodes(), m->num_nodes());
    for (NodeId b = 0; b < m->num_nodes(); ++b) EXPECT_EQ(again->Hops(0, b), m->Hops(0, b)) << b;
  }
}

// Each kind's own options are refused by every other kind.
TEST(MachineKindsTest, OwnOptionsAreRefusedByTheOtherKinds) {
  for (const MachineKind& owner : BuiltinMachineKinds()) {
    for (const std::string& option : owner.own_options) {
      for (const MachineKind& kind : BuiltinMachineKinds()) {
        if (std::find(kind.own_options.begin(), kind.own_options.end(), option) !=
            kind.own_options.end()) {
          continue;
        }
        const std::string spec = absl::StrCat(SampleSpecs().at(kind.name), ":", option, "=1");
        EXPECT_THAT(SpecError(spec), HasSubstr(absl::StrCat("': option ", option,
                                                            "= does not apply to ", kind.name)));
      }
    }
  }
}

// Several stray options: the first of wrap=, distances=, nodes=, hops= is named.
TEST(MachineKindsTest, StrayOptionsAreNamedInAFixedOrder) {
  EXPECT_THAT(SpecError("fattree:4x4:hops=1:nodes=2:distances=1"),
              HasSubstr("option distances= does not apply to fattree"));
  EXPECT_THAT(SpecError("dragonfly:3,2,2:distances=1:wrap=1"),
              HasSubstr("option wrap= does not apply to dragonfly"));
  EXPECT_THAT(SpecError("torus:4x4:hops=1:nodes=2"),
              HasSubstr("option nodes= does not apply to torus"));
}

// What the shared options ask of a row: reads_file, has_links, one_slot_per_node.
TEST(MachineKindsTest, SharedOptionsFollowTheRow) {
  for (const MachineKind& kind : BuiltinMachineKinds()) {
    SCOPED_TRACE(kind.name);
    const std::string& sample = SampleSpecs().at(kind.name);
    if (kind.reads_file) {
      EXPECT_THAT(SpecError(sample + ":prefix=n"), HasSubstr("(its file names the nodes)"));
    } else {
      EXPECT_NE(MustParse(sample + ":prefix=n"), nullptr);
    }
    auto refused = [&](const std::string& key) {
      for (const auto& [option, instead] : kind.refused_shared_options) {
        if (option == key) return true;
      }
      return false;
    };
    for (const auto& [option, instead] : kind.refused_shared_options) {
      EXPECT_THAT(
          SpecError(absl::StrCat(sample, ":", option, "=2")),
          HasSubstr(absl::StrCat(option, "= does not apply to ", kind.name, " (", instead, ")")));
    }
    if (kind.has_links && !refused("link-latency")) {
      EXPECT_NE(MustParse(sample + ":link-latency=1e-6"), nullptr);
    } else if (!kind.has_links) {
      EXPECT_THAT(SpecError(sample + ":link-latency=1e-6"),
                  HasSubstr("link-bandwidth=/link-latency= do not apply to " + kind.name));
    }
    if (kind.one_slot_per_node) {
      EXPECT_THAT(SpecError(sample + ":node=2x2"),
                  HasSubstr("node= does not apply to " + kind.name));
      EXPECT_THAT(SpecError(sample + ":cores=2"),
                  HasSubstr("cores= does not apply to " + kind.name));
    } else if (!refused("node")) {
      std::shared_ptr<Machine> m = MustParse(sample + ":node=2x2");
      ASSERT_NE(m, nullptr);
      EXPECT_EQ(m->cores_per_node(), 4);
    }
  }
}

// gpu:HOSTS: runs of domain= and leaf= hosts, the fabric's figures per GPU, and the
// host names of prefix=/width=.
TEST(MachineKindsTest, GpuSpecsReadBack) {
  std::shared_ptr<Machine> m =
      MustParse("gpu:20:gpus=8:domain=2:leaf=8:rail-bandwidth=25e9:oversubscription=2");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind(), "gpu");
  EXPECT_EQ(m->cores_per_node(), 8);
  EXPECT_EQ(m->NodeName(17), "host017");
  EXPECT_EQ(m->Hops(0, 1), 2);
  EXPECT_EQ(m->Hops(0, 2), 36);  // F = 450 / 25 = 18
  EXPECT_EQ(m->Hops(0, 19), 72);
  EXPECT_EQ(m->Spec(), "gpu:20:gpus=8:domain=2:leaf=8:rail-bandwidth=2.5e+10:oversubscription=2");
  m = MustParse("gpu:4:prefix=dgx:width=2:nvlink-latency=2e-6");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->NodeName(3), "dgx03");
  EXPECT_EQ(m->cores_per_node(), 8);
  EXPECT_EQ(m->LinkName(0), "dgx00 -> leaf0 rails");
  EXPECT_EQ(m->Spec(), "gpu:4:gpus=8:nvlink-latency=2e-06:prefix=dgx:width=2");
  EXPECT_EQ(MustParse(m->Spec())->Spec(), m->Spec());
}

TEST(MachineKindsTest, BadGpuSpecsSayWhichOption) {
  EXPECT_THAT(SpecError("gpu:0"), HasSubstr("the number of hosts must be a positive integer"));
  EXPECT_THAT(SpecError("gpu:4:gpus=0"), HasSubstr("gpus= must be a positive integer, got '0'"));
  EXPECT_THAT(SpecError("gpu:4:gpus=65"), HasSubstr("gpus_per_host (gpus=) must be from 1 to 64"));
  EXPECT_THAT(SpecError("gpu:8:domain=3:leaf=4"),
              HasSubstr("domain=3 does not divide leaf=4 (an NVLink domain lies inside one leaf"));
  EXPECT_THAT(SpecError("gpu:8:rail-bandwidth=5"),
              HasSubstr("rail-bandwidth= must be a number from 1000 to 1e+14"));
  EXPECT_THAT(SpecError("gpu:8:nvlink-latency=0"),
              HasSubstr("nvlink_latency (nvlink-latency=) must be above 0"));
  EXPECT_THAT(SpecError("gpu:8:oversubscription=0.5"),
              HasSubstr("oversubscription= must be a number from 1 to"));
  EXPECT_THAT(
      SpecError("gpu:8:cores=8"),
      HasSubstr("cores= does not apply to gpu (the slots of a host are its GPUs: use gpus=)"));
  EXPECT_THAT(SpecError("gpu:8:link-bandwidth=1e9"),
              HasSubstr("use nvlink-bandwidth= and rail-bandwidth="));
  EXPECT_THAT(SpecError("gpu:2000000"), HasSubstr("2000000 hosts, at most 1000000"));
}

}  // namespace
}  // namespace hopmap
