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

namespace hopmap {
namespace {

using ::testing::HasSubstr;

std::string WriteTemp(const std::string& name, const std::string& content) {
  const std::string path = ::testing::TempDir() + "/machine_kinds_test_" + name;
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
      {"slurm", "slurm:" + std::string(HOPMAP_DATA_DIR) +
                    "/machines/slurm_topology_conf/nstda_tara_topology.conf"},
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
    // What its machines report is a row too, which says the same of them.
    const MachineKind* of_machines = FindMachineKind(kind.machine_kind);
    ASSERT_NE(of_machines, nullptr) << kind.name;
    EXPECT_EQ(of_machines->reads_file, kind.reads_file) << kind.name;
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
            "hierarchy:A1xA2:distances=D1,D2, slurm:FILE, graph:FILE, matrix:FILE");
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
    if (kind.has_links) {
      EXPECT_NE(MustParse(sample + ":link-latency=1e-6"), nullptr);
    } else {
      EXPECT_THAT(SpecError(sample + ":link-latency=1e-6"),
                  HasSubstr("link-bandwidth=/link-latency= do not apply to " + kind.name));
    }
    if (kind.one_slot_per_node) {
      EXPECT_THAT(SpecError(sample + ":node=2x2"),
                  HasSubstr("node= does not apply to " + kind.name));
      EXPECT_THAT(SpecError(sample + ":cores=2"),
                  HasSubstr("cores= does not apply to " + kind.name));
    } else {
      std::shared_ptr<Machine> m = MustParse(sample + ":node=2x2");
      ASSERT_NE(m, nullptr);
      EXPECT_EQ(m->cores_per_node(), 4);
    }
  }
}

}  // namespace
}  // namespace hopmap
