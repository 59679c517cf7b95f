#include "core/io/mapping_writers.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/topology/node_names.h"
#include "core/topology/torus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_path.h"

namespace hopmap {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<TorusMachine> Torus(std::vector<int32_t> dims, int32_t cores) {
  std::vector<bool> wrap(dims.size(), true);
  absl::StatusOr<TorusMachine> m = TorusMachine::Create(std::move(dims), std::move(wrap));
  EXPECT_TRUE(m.ok()) << m.status();
  auto machine = std::make_shared<TorusMachine>(*std::move(m));
  machine->set_cores_per_node(cores);
  return machine;
}

Allocation MustAllocate(std::shared_ptr<const Machine> machine, std::vector<NodeId> nodes,
                        int32_t cores) {
  absl::StatusOr<Allocation> a = Allocation::Create(std::move(machine), std::move(nodes), cores);
  EXPECT_TRUE(a.ok()) << a.status();
  return *std::move(a);
}

// A 2x2 torus, 2 cores, allocated out of order: positions 0..3 are nodes 2, 0, 3, 1
// (coordinates (0,1), (0,0), (1,1), (1,0)). Slots 0..7.
Allocation SmallAllocation() { return MustAllocate(Torus({2, 2}, 2), {2, 0, 3, 1}, 2); }

// task 0 -> slot 3 (position 1 = node 0, core 1), task 1 -> slot 0 (node 2, core 0),
// task 2 -> slot 5 (node 3, core 1), task 3 -> slot 1 (node 2, core 1),
// task 4 -> slot 2 (node 0, core 0). Slots 4, 6, 7 stay empty.
const std::vector<SlotId> kMapping = {3, 0, 5, 1, 2};

std::string MustFormat(const Allocation& a, const std::vector<SlotId>& mapping,
                       MappingFormat format) {
  absl::StatusOr<std::string> text = FormatMapping(a, mapping, format);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

TEST(MappingWritersTest, FormatNamesRoundTrip) {
  for (const char* name :
       {"json", "perm", "rankfile", "rank-node-core", "hostfile", "map-cpu", "hydra",
        "mpich-rank-order", "bg-mapfile", "csv", "torchrun", "slurm-gpu", "k8s-pods"}) {
    absl::StatusOr<MappingFormat> f = ParseMappingFormat(name);
    ASSERT_TRUE(f.ok()) << name;
    EXPECT_EQ(MappingFormatName(*f), name);
  }
  EXPECT_EQ(*ParseMappingFormat("mpich-rank-order"), MappingFormat::kMpichRankOrder);
  absl::StatusOr<MappingFormat> bad = ParseMappingFormat("xml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(),
            "unknown mapping format 'xml'; known: json, perm, rankfile, rank-node-core, "
            "hostfile, map-cpu, hydra, mpich-rank-order, bg-mapfile, csv, torchrun, slurm-gpu, "
            "k8s-pods");
}

TEST(MappingWritersTest, Perm) {
  EXPECT_EQ(MustFormat(SmallAllocation(), kMapping, MappingFormat::kPerm), "3\n0\n5\n1\n2\n");
}

TEST(MappingWritersTest, Rankfile) {
  EXPECT_EQ(MustFormat(SmallAllocation(), kMapping, MappingFormat::kRankfile),
            "rank 0=nid00000 slot=1\n"
            "rank 1=nid00002 slot=0\n"
            "rank 2=nid00003 slot=1\n"
            "rank 3=nid00002 slot=1\n"
            "rank 4=nid00000 slot=0\n");
}

TEST(MappingWritersTest, RankNodeCore) {
  EXPECT_EQ(MustFormat(SmallAllocation(), kMapping, MappingFormat::kRankNodeCore),
            "0 nid00000 1\n1 nid00002 0\n2 nid00003 1\n3 nid00002 1\n4 nid00000 0\n");
}

TEST(MappingWritersTest, MapCpuListsBesideTheHostfile) {
  // nid00002 holds ranks 1 (core 0) and 3 (core 1); nid00000 ranks 0 (core 1) and 4
  // (core 0): no one list fits both.
  EXPECT_EQ(MustFormat(SmallAllocation(), kMapping, MappingFormat::kMapCpu),
            "# hopmap map_cpu lists, 5 ranks (SLURM_HOSTFILE from --format hostfile, srun "
            "--distribution=arbitrary): no one list fits every node (srun takes one list for "
            "all of them)\n"
            "nid00002 map_cpu:0,1\nnid00000 map_cpu:1,0\nnid00003 map_cpu:1\n");
  EXPECT_EQ(MustFormat(SmallAllocation(), {1, 0, 3, 2}, MappingFormat::kMapCpu),
            "# hopmap map_cpu lists, 4 ranks (SLURM_HOSTFILE from --format hostfile, srun "
            "--distribution=arbitrary): srun --cpu-bind=map_cpu:1,0 fits every node\n"
            "nid00002 map_cpu:1,0\nnid00000 map_cpu:1,0\n");
}

TEST(MappingWritersTest, RankfileNamesPackageAndCoreInsideANode) {
  // Two packages of two cores (node=2x2): core 3 is package 1, core 1 in it.
  auto machine = Torus({2}, 4);
  absl::StatusOr<NodeInterior> interior = NodeInterior::Create({2, 2}, {1, 10});
  ASSERT_TRUE(interior.ok()) << interior.status();
  machine->set_node_interior(std::make_shared<const NodeInterior>(*std::move(interior)));
  EXPECT_EQ(MustFormat(MustAllocate(machine, {0, 1}, 4), {3, 0, 6}, MappingFormat::kRankfile),
            "rank 0=nid00000 slot=1:1\nrank 1=nid00000 slot=0:0\nrank 2=nid00001 slot=1:0\n");
}

// map_cpu binds to the OS's CPU numbers: with cpus=0,2,1,3 core 1 is CPU 2.
TEST(MappingWritersTest, MapCpuUsesTheOsCpuNumbers) {
  auto machine = Torus({2}, 4);
  absl::StatusOr<NodeInterior> interior = NodeInterior::Create({2, 2}, {1, 10});
  ASSERT_TRUE(interior.ok()) << interior.status();
  ASSERT_TRUE(interior->SetOsCpus({0, 2, 1, 3}).ok());
  machine->set_node_interior(std::make_shared<const NodeInterior>(*std::move(interior)));
  EXPECT_EQ(MustFormat(MustAllocate(machine, {0, 1}, 4), {1, 0, 5, 4}, MappingFormat::kMapCpu),
            "# hopmap map_cpu lists, 4 ranks (SLURM_HOSTFILE from --format hostfile, srun "
            "--distribution=arbitrary): srun --cpu-bind=map_cpu:2,0 fits every node\n"
            "nid00000 map_cpu:2,0\nnid00001 map_cpu:2,0\n");
}

TEST(MappingWritersTest, Hostfile) {
  EXPECT_EQ(MustFormat(SmallAllocation(), kMapping, MappingFormat::kHostfile),
            "nid00000\nnid00002\nnid00003\nnid00002\nnid00000\n");
}

TEST(MappingWritersTest, HydraMachinefile) {
  // Ranks 0-4 on nid00000, nid00002, nid00003, nid00002, nid00000: a line each (hydra
  // gives each line the next ranks). Cores 1, 0, 1, 1, 0 by line: no one list binds
  // every line's first process.
  EXPECT_EQ(MustFormat(SmallAllocation(), kMapping, MappingFormat::kHydra),
            "# hopmap machinefile for MPICH's hydra, 5 ranks: mpiexec -f FILE -n 5 PROGRAM "
            "(no -bind-to user: list fits every line: hydra binds each line's processes with "
            "one list; the hosts are exact, the cores unbound)\n"
            "nid00000:1\nnid00002:1\nnid00003:1\nnid00002:1\nnid00000:1\n");
  // Consecutive ranks on one host share a line; cores 1, 0 on both lines: one list.
  EXPECT_EQ(MustFormat(SmallAllocation(), {1, 0, 3, 2}, MappingFormat::kHydra),
            "# hopmap machinefile for MPICH's hydra, 4 ranks: mpiexec -f FILE "
            "-bind-to user:1,0 -n 4 PROGRAM\n"
            "nid00002:2\nnid00000:2\n");
}

TEST(MappingWritersTest, HydraRefusesItsSeparatorsInHostNames) {
  auto machine = Torus({2}, 1);
  absl::StatusOr<NodeNames> names = NodeNames::List({"a:1", "b"});
  ASSERT_TRUE(names.ok()) << names.status();
  machine->set_node_names(*std::move(names));
  absl::StatusOr<std::string> text = FormatMapping(
      MustAllocate(machine, {0, 1}, 1), std::vector<SlotId>{0, 1}, MappingFormat::kHydra);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(
      text.status().message(),
      "hydra: node 0 of torus:2:cores=1 is named 'a:1', which holds ':' (a separator in hydra's "
      "machinefile)");
}

TEST(MappingWritersTest, MpichRankOrder) {
  // Placement order: slot 0 task 1, slot 1 task 3, slot 2 task 4, slot 3 task 0,
  // slot 5 task 2 (the last used node is partly empty: fine).
  EXPECT_EQ(MustFormat(SmallAllocation(), kMapping, MappingFormat::kMpichRankOrder),
            "# hopmap rank order for MPICH_RANK_REORDER_METHOD=3: 5 ranks, 2 PEs per node\n"
            "1,3-4,0,2\n");
  EXPECT_EQ(MustFormat(SmallAllocation(), {0, 1, 2}, MappingFormat::kMpichRankOrder),
            "# hopmap rank order for MPICH_RANK_REORDER_METHOD=3: 3 ranks, 2 PEs per node\n"
            "0-2\n");
}

TEST(MappingWritersTest, MpichRankOrderRefusesHoles) {
  // Position 0 holds one task of two, position 2 holds one: Cray would put task 1
  // on position 0's second core.
  absl::StatusOr<std::string> text =
      FormatMapping(SmallAllocation(), std::vector<SlotId>{0, 4}, MappingFormat::kMpichRankOrder);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(text.status().message(),
              HasSubstr("node nid00002 (allocation position 0) holds 1 tasks on 2 cores, but a "
                        "later node (nid00003, position 2) holds tasks"));
  // An empty node before a used one is a hole too.
  text =
      FormatMapping(SmallAllocation(), std::vector<SlotId>{4, 5}, MappingFormat::kMpichRankOrder);
  ASSERT_FALSE(text.ok());
  EXPECT_THAT(text.status().message(), HasSubstr("position 0) holds 0 tasks"));
}

TEST(MappingWritersTest, MpichRankOrderWrapsLongLists) {
  Allocation a = MustAllocate(Torus({2, 2}, 25), {0, 1, 2, 3}, 25);
  std::vector<SlotId> reversed(100);
  for (int t = 0; t < 100; ++t) reversed[t] = 99 - t;
  std::string text = MustFormat(a, reversed, MappingFormat::kMpichRankOrder);
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[0][0], '#');
  EXPECT_EQ(lines.back(), "");  // ends with a newline
  std::vector<int> ranks;
  for (size_t i = 1; i + 1 < lines.size(); ++i) {
    EXPECT_LE(lines[i].size(), 80u) << lines[i];
    if (i + 2 < lines.size()) {
      EXPECT_GE(lines[i].size(), 77u) << lines[i];  // filled up before wrapping
    }
    EXPECT_NE(lines[i].back(), ',');
    for (absl::string_view tok : absl::StrSplit(lines[i], ',')) {
      ranks.push_back(std::stoi(std::string(tok)));
    }
  }
  std::vector<int> want(100);
  for (int i = 0; i < 100; ++i) want[i] = 99 - i;
  EXPECT_EQ(ranks, want);
  // In order, everything is one range.
  std::vector<SlotId> in_order(100);
  std::iota(in_order.begin(), in_order.end(), 0);
  EXPECT_THAT(MustFormat(a, in_order, MappingFormat::kMpichRankOrder), HasSubstr("\n0-99\n"));
}

TEST(MappingWritersTest, BgMapfile) {
  EXPECT_EQ(MustFormat(SmallAllocation(), kMapping, MappingFormat::kBgMapfile),
            "0 0 1\n0 1 0\n1 1 1\n0 1 1\n0 0 0\n");
  // A 3-D torus gives "x y z t": node 6 of 2x2x2 is (0,1,1).
  Allocation a = MustAllocate(Torus({2, 2, 2}, 4), {6, 1}, 4);
  EXPECT_EQ(MustFormat(a, {3, 4}, MappingFormat::kBgMapfile), "0 1 1 3\n1 0 0 0\n");
}

// A machine without coordinates (like an explicit distance matrix).
class FlatMachine final : public Machine {
 public:
  std::string_view kind() const override { return "matrix"; }
  std::string Spec() const override { return "matrix:2"; }
  NodeId num_nodes() const override { return 2; }
  int32_t Hops(NodeId a, NodeId b) const override { return a == b ? 0 : 1; }
  int32_t max_hops() const override { return 1; }
  int32_t min_hops() const override { return 1; }
  int64_t num_links() const override { return 0; }
  void ForEachRouteLink(NodeId, NodeId, Routing, LinkVisitor) const override {}
  std::string LinkName(int64_t) const override { return ""; }
};

TEST(MappingWritersTest, BgMapfileNeedsCoordinates) {
  Allocation a = MustAllocate(std::make_shared<FlatMachine>(), {0, 1}, 1);
  absl::StatusOr<std::string> text =
      FormatMapping(a, std::vector<SlotId>{1, 0}, MappingFormat::kBgMapfile);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(text.status().message(), HasSubstr("bg-mapfile: machine matrix:2 has no node"));
  // The other formats work without coordinates.
  EXPECT_EQ(MustFormat(a, {1, 0}, MappingFormat::kHostfile), "nid00001\nnid00000\n");
}

TEST(MappingWritersTest, Csv) {
  EXPECT_EQ(MustFormat(SmallAllocation(), kMapping, MappingFormat::kCsv),
            "task,slot,node,hostname,core\n"
            "0,3,0,nid00000,1\n"
            "1,0,2,nid00002,0\n"
            "2,5,3,nid00003,1\n"
            "3,1,2,nid00002,1\n"
            "4,2,0,nid00000,0\n");
}

TEST(MappingWritersTest, OddHostnames) {
  auto machine = Torus({2}, 1);
  absl::StatusOr<NodeNames> names = NodeNames::List({"rack 1", "a,\"b\""});
  ASSERT_TRUE(names.ok());
  machine->set_node_names(*names);
  Allocation a = MustAllocate(machine, {0, 1}, 1);
  EXPECT_EQ(MustFormat(a, {1, 0}, MappingFormat::kCsv),
            "task,slot,node,hostname,core\n"
            "0,1,1,\"a,\"\"b\"\"\",0\n"
            "1,0,0,rack 1,0\n");
  for (MappingFormat f : {MappingFormat::kRankfile, MappingFormat::kHostfile}) {
    absl::StatusOr<std::string> text = FormatMapping(a, std::vector<SlotId>{1, 0}, f);
    ASSERT_FALSE(text.ok());
    EXPECT_EQ(text.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(text.status().message(), HasSubstr("node 0 of torus:2:cores=1 is named 'rack 1'"));
  }
}

TEST(MappingWritersTest, ErrorCases) {
  Allocation a = SmallAllocation();
  absl::StatusOr<std::string> json = FormatMapping(a, kMapping, MappingFormat::kJson);
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(json.status().message(), HasSubstr("json"));
  absl::StatusOr<std::string> twice =
      FormatMapping(a, std::vector<SlotId>{2, 2}, MappingFormat::kPerm);
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.status().message(), HasSubstr("tasks 0 and 1 are both on slot 2"));
  absl::StatusOr<std::string> outside =
      FormatMapping(a, std::vector<SlotId>{0, 8}, MappingFormat::kRankfile);
  ASSERT_FALSE(outside.ok());
  EXPECT_THAT(outside.status().message(), HasSubstr("task 1 is on slot 8"));
  EXPECT_EQ(MustFormat(a, {}, MappingFormat::kPerm), "");
}

// --- The real consumer: Open MPI's mpirun reads the rankfile. ---

std::string FindOnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/", program);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

struct RunResult {
  int exit_code = -1;
  std::string output;
};

RunResult RunCommand(const std::string& command) {
  RunResult result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t got;
  while ((got = fread(buffer, 1, sizeof(buffer), pipe)) > 0) result.output.append(buffer, got);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

TEST(MappingWritersTest, RankfileRunsUnderMpirun) {
  const std::string mpirun = FindOnPath("mpirun");
  // A missing mpirun or a single core fails: a skip would prove nothing on a fresh
  // machine (deploy/install-deps.sh installs openmpi-bin).
  ASSERT_FALSE(mpirun.empty()) << "mpirun not on PATH (bash deploy/install-deps.sh installs it)";
  ASSERT_GE(sysconf(_SC_NPROCESSORS_ONLN), 2) << "needs 2 cores to bind 2 ranks";
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof(host) - 1), 0);

  auto machine = Torus({1}, 2);
  absl::StatusOr<NodeNames> names = NodeNames::List({host});
  ASSERT_TRUE(names.ok());
  machine->set_node_names(*names);
  Allocation a = MustAllocate(machine, {0}, 2);
  const std::string text = MustFormat(a, {1, 0}, MappingFormat::kRankfile);
  EXPECT_EQ(text, absl::StrCat("rank 0=", host, " slot=1\nrank 1=", host, " slot=0\n"));

  const std::string dir = hopmap::testing::TempFolder();
  const std::string good = dir + "/hopmap_rankfile_good.txt";
  const std::string bad = dir + "/hopmap_rankfile_bad.txt";
  WriteFile(good, text);
  // Core 7 does not exist on a 2-core node: mpirun must refuse.
  WriteFile(bad, absl::StrCat("rank 0=", host, " slot=7\nrank 1=", host, " slot=0\n"));
  const std::string timeout = FindOnPath("timeout").empty() ? "" : "timeout 120 ";
  auto command = [&](const std::string& file) {
    return absl::StrCat(timeout, "'", mpirun, "' --allow-run-as-root --rankfile '", file,
                        "' -np 2 --report-bindings true");
  };
  RunResult ok = RunCommand(command(good));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  // "[vm:123] MCW rank 0 bound to socket 0[core 1[hwt 0]]: [./B]"
  if (ok.output.find("MCW rank 0 bound") != std::string::npos) {
    EXPECT_THAT(ok.output, ::testing::ContainsRegex("MCW rank 0 bound to [^\n]*core 1\\["))
        << ok.output;
    EXPECT_THAT(ok.output, ::testing::ContainsRegex("MCW rank 1 bound to [^\n]*core 0\\["))
        << ok.output;
  }
  RunResult broken = RunCommand(command(bad));
  EXPECT_NE(broken.exit_code, 0) << broken.output;
  std::remove(good.c_str());
  std::remove(bad.c_str());
}

}  // namespace
}  // namespace hopmap
