#include "core/io/hwloc_node.h"

#include <hwloc.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/io/machine_spec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::HasSubstr;

std::string Temp(const std::string& name) {
  return absl::StrCat(::testing::TempDir(), "/hwloc_node_", getpid(), "_", name);
}

// Writes hwloc's XML of a synthetic topology (hwloc's own description language, as
// `lstopo --input "..." --of xml` does) to a file; `latency`, when set, adds a NUMA
// latency matrix of local 10 and remote `latency`; `keep_pus`, when set, restricts
// the topology to that many PUs first (an uneven machine).
std::string WriteTopology(const std::string& name, const std::string& synthetic, int latency = 0,
                          int keep_pus = 0) {
  hwloc_topology_t topology = nullptr;
  EXPECT_EQ(hwloc_topology_init(&topology), 0);
  EXPECT_EQ(hwloc_topology_set_synthetic(topology, synthetic.c_str()), 0) << synthetic;
  EXPECT_EQ(hwloc_topology_load(topology), 0);
  if (keep_pus > 0) {
    hwloc_bitmap_t keep = hwloc_bitmap_alloc();
    hwloc_bitmap_set_range(keep, 0, keep_pus - 1);
    EXPECT_EQ(hwloc_topology_restrict(topology, keep, 0), 0);
    hwloc_bitmap_free(keep);
  }
  if (latency > 0) {
    const int n = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE);
    std::vector<hwloc_obj_t> objs;
    std::vector<hwloc_uint64_t> values;
    for (int i = 0; i < n; ++i)
      objs.push_back(hwloc_get_obj_by_type(topology, HWLOC_OBJ_NUMANODE, i));
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) values.push_back(i == j ? 10 : latency);
    }
    hwloc_distances_add_handle_t handle = hwloc_distances_add_create(
        topology, "latency", HWLOC_DISTANCES_KIND_FROM_USER | HWLOC_DISTANCES_KIND_MEANS_LATENCY,
        0);
    EXPECT_NE(handle, nullptr);
    EXPECT_EQ(hwloc_distances_add_values(topology, handle, n, objs.data(), values.data(), 0), 0);
    EXPECT_EQ(hwloc_distances_add_commit(topology, handle, 0), 0);
  }
  const std::string path = Temp(name);
  EXPECT_EQ(hwloc_topology_export_xml(topology, path.c_str(), 0), 0);
  hwloc_topology_destroy(topology);
  return path;
}

TEST(HwlocNodeTest, ReadsPackagesNumaNodesAndL3GroupsOfCores) {
  const std::string path = WriteTopology("two_packages.xml", "pack:2 numa:2 l3:2 core:4 pu:2");
  absl::StatusOr<NodeInterior> n = ReadHwlocNodeInterior(path, std::nullopt, 0);
  ASSERT_TRUE(n.ok()) << n.status();
  // Cores are the PEs (a core's 2 PUs are one): 4 per L3, 2 L3 per NUMA node, 2 NUMA
  // nodes per package, 2 packages.
  EXPECT_EQ(n->num_pes(), 32);
  EXPECT_EQ(n->arities(), (std::vector<int32_t>{4, 2, 2, 2}));
  EXPECT_EQ(n->names(), (std::vector<std::string>{"l3", "numa", "package", "node"}));
  EXPECT_EQ(n->distances(), (std::vector<int32_t>{kHwlocL3Distance, kHwlocNumaDistance,
                                                  kHwlocPackageDistance, kHwlocNodeDistance}));
  EXPECT_EQ(n->num_packages(), 2);
  EXPECT_EQ(n->PackageOf(17), 1);
  EXPECT_EQ(n->source(), path);
  std::remove(path.c_str());
}

// The OS numbers the CPUs its own way (here the packages' cores alternately, as on
// many two-socket machines): each PE keeps its first PU's number.
TEST(HwlocNodeTest, KeepsTheOsNumberOfEachCore) {
  const std::string path = WriteTopology("interleaved.xml", "pack:2 core:2 pu:1(indexes=0,2,1,3)");
  absl::StatusOr<NodeInterior> n = ReadHwlocNodeInterior(path, std::nullopt, 0);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(n->os_cpus(), (std::vector<int32_t>{0, 2, 1, 3}));
  EXPECT_EQ(n->OsCpuOf(1), 2);
  std::remove(path.c_str());
  // Two hardware threads per core: a core's number is its first thread's.
  const std::string smt = WriteTopology("smt.xml", "pack:2 core:2 pu:2");
  absl::StatusOr<NodeInterior> s = ReadHwlocNodeInterior(smt, std::nullopt, 0);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->os_cpus(), (std::vector<int32_t>{0, 2, 4, 6}));
  std::remove(smt.c_str());
  // One thread per core, numbered in order: no list kept (the PE ids are the numbers).
  const std::string plain = WriteTopology("plain.xml", "pack:2 core:2 pu:1");
  absl::StatusOr<NodeInterior> p = ReadHwlocNodeInterior(plain, std::nullopt, 0);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->os_cpus().empty());
  EXPECT_EQ(p->OsCpuOf(3), 3);
  std::remove(plain.c_str());
}

TEST(HwlocNodeTest, ALatencyMatrixSetsTheLevelsAboveNuma) {
  // Every remote NUMA node at 21 (local 10): 2.1 x the NUMA level's distance.
  const std::string path = WriteTopology("latency.xml", "pack:2 numa:2 core:4 pu:1", 21);
  absl::StatusOr<NodeInterior> n = ReadHwlocNodeInterior(path, std::nullopt, 0);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(n->names(), (std::vector<std::string>{"numa", "package", "node"}));
  EXPECT_EQ(n->distances(), (std::vector<int32_t>{2, 4, 4}));
  // Given distances win.
  n = ReadHwlocNodeInterior(path, std::vector<int32_t>{1, 3, 9}, 50);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(n->distances(), (std::vector<int32_t>{1, 3, 9}));
  EXPECT_EQ(n->hop_cost(), 50);
  EXPECT_THAT(ReadHwlocNodeInterior(path, std::vector<int32_t>{1, 3}, 0).status().message(),
              HasSubstr("node-distances= gives 2 distances for 3 levels: numa (4), package (2), "
                        "node (2)"));
  std::remove(path.c_str());
}

TEST(HwlocNodeTest, OnePackageIsTheNodeAndOneNumaPerPackageIsOneLevel) {
  const std::string path = WriteTopology("one.xml", "pack:1 l3:2 core:4 pu:1");
  absl::StatusOr<NodeInterior> n = ReadHwlocNodeInterior(path, std::nullopt, 0);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(n->arities(), (std::vector<int32_t>{4, 2}));
  EXPECT_EQ(n->names(), (std::vector<std::string>{"l3", "node"}));
  EXPECT_EQ(n->num_packages(), 1);
  std::remove(path.c_str());
  const std::string numa = WriteTopology("numa.xml", "pack:2 numa:1 core:4 pu:1");
  n = ReadHwlocNodeInterior(numa, std::nullopt, 0);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(n->names(), (std::vector<std::string>{"numa+package", "node"}));
  EXPECT_EQ(n->distances(), (std::vector<int32_t>{kHwlocNumaDistance, kHwlocNodeDistance}));
  EXPECT_EQ(n->num_packages(), 2);
  std::remove(numa.c_str());
}

TEST(HwlocNodeTest, BadFilesAreNamedWithWhatIsWrong) {
  EXPECT_EQ(ReadHwlocNodeInterior("/nonexistent/t.xml", std::nullopt, 0).status().code(),
            absl::StatusCode::kNotFound);
  const std::string bad = Temp("bad.xml");
  std::ofstream(bad) << "<topology><object type=\"Machine\"\n";
  absl::Status status = ReadHwlocNodeInterior(bad, std::nullopt, 0).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr(bad + ": not an hwloc XML topology"));
  std::remove(bad.c_str());
  // 12 PUs kept of 16: one package of 8 cores, one of 4.
  const std::string uneven = WriteTopology("uneven.xml", "pack:2 core:8 pu:1", 0, 12);
  status = ReadHwlocNodeInterior(uneven, std::nullopt, 0).status();
  EXPECT_EQ(status.message(), uneven +
                                  ": its package groups hold different numbers of cores (8 "
                                  "and 4): node levels must be uniform");
  std::remove(uneven.c_str());
}

}  // namespace
}  // namespace hopmap

namespace hopmap {
namespace {

TEST(HwlocNodeTest, NodeHwlocInAMachineSpec) {
  const std::string path = WriteTopology("spec.xml", "pack:2 core:4 pu:2");
  // The file name runs to the next option.
  absl::StatusOr<std::shared_ptr<Machine>> m =
      ParseMachineSpec("torus:2x2:node=hwloc:" + path + ":hop-cost=30");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->cores_per_node(), 8);
  EXPECT_EQ((*m)->node_interior()->hop_cost(), 30);
  EXPECT_EQ((*m)->node_interior()->source(), path);
  // The spec gives the levels themselves (a daemon elsewhere has no such file), and
  // the cores' OS numbers (each core's first of its 2 hardware threads).
  EXPECT_EQ((*m)->Spec(),
            "torus:2x2:cores=8:node=4x2:node-distances=5,10:hop-cost=30:cpus=0,2,4,6,8,10,12,14");
  absl::StatusOr<std::shared_ptr<Machine>> again = ParseMachineSpec((*m)->Spec());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)->Spec(), (*m)->Spec());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace hopmap
