// hopmap inside Slurm 26.05 (built from third_party/slurm by
// deploy/slurm/build-slurm.sh): munged, slurmctld and eight slurmd on loopback
// (tests/slurm/slurm_cluster.sh), with a topology.yaml that holds a tree, a block
// and a torus3d topology over the same nodes, one partition for each. Batch jobs are
// submitted as users do (sbatch; ranks launched with deploy/slurm/hopmap-srun), and
// each rank reports where it runs. Checks Slurm 26's own ranking of a job's nodes,
// and that a mapped job's ranks run where hopmap said under every topology.
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/client/cli_test_util.h"
#include "tests/integration/daemon_process.h"
#include "tests/slurm/slurm_test_util.h"

namespace hopmap {
namespace {

namespace fs = std::filesystem;
using ::hopmap::testing::DaemonProcess;
using ::hopmap::testing::FreePort;
using ::hopmap::testing::JobOutput;
using ::hopmap::testing::Output;
using ::hopmap::testing::ParseJobOutput;
using ::hopmap::testing::ReadFile;
using ::hopmap::testing::Shell;
using ::hopmap::testing::WaitForJob;
using ::hopmap::testing::WriteFile;
using ::testing::HasSubstr;

// n1..n8 as Slurm sees them three ways. The torus is 4x2x1 with x varying fastest
// over n[1-8], so n1..n4 are y=0 and n5..n8 are y=1.
constexpr char kTopologyYaml[] = R"(---
- topology: tree
  cluster_default: true
  tree:
    switches:
      - switch: top
        children: s[1-2]
      - switch: s1
        nodes: n[1-4]
      - switch: s2
        nodes: n[5-8]
- topology: block
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
- topology: torus
  torus3d:
    toruses:
      - name: t1
        dims: {x: 4, y: 2, z: 1}
        nodes: n[1-8]
)";

constexpr char kPartitions[] =
    "PartitionName=tree Nodes=ALL Default=YES Topology=tree MaxTime=INFINITE State=UP\n"
    "PartitionName=block Nodes=ALL Topology=block MaxTime=INFINITE State=UP\n"
    "PartitionName=torus Nodes=ALL Topology=torus MaxTime=INFINITE State=UP\n";

class Slurm26Test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(::testing::TempDir() + "/hopmap_slurm26_" + std::to_string(getpid()));
    fs::remove_all(*dir_);
    fs::create_directories(*dir_ + "/hostfiles");
    fs::create_directories(*dir_ + "/jobs");
    prefix_ = new std::string(std::string(absl::StripAsciiWhitespace(
        Output("bash " HOPMAP_SOURCE_DIR "/deploy/slurm/build-slurm.sh --find 2>&1"))));
    ASSERT_TRUE(fs::exists(*prefix_ + "/sbin/slurmctld"))
        << "Slurm 26.05 is not built here (bash deploy/slurm/build-slurm.sh builds it; "
           "bash deploy/test.sh does before the tests): "
        << *prefix_;
    env_ = new std::string(
        absl::StrCat("SLURM_CONF=", *dir_, "/slurm.conf PATH=", *prefix_, "/bin:$PATH "));
    WriteFile(*dir_ + "/topology.yaml", kTopologyYaml);
    // What each rank prints: its node, and the CPUs it may run on.
    WriteFile(*dir_ + "/where.sh",
              "#!/bin/sh\necho \"$SLURMD_NODENAME "
              "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)\"\n");
    fs::permissions(*dir_ + "/where.sh",
                    fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
    WriteFile(*dir_ + "/partitions.conf", kPartitions);
    daemon_ = new DaemonProcess();
    ASSERT_TRUE(daemon_->Start({}, *dir_ + "/hopmapd.log")) << daemon_->error();
    // slurmctld runs prologs with a bare environment: the wrapper names the settings.
    for (const char* script : {"prolog", "epilog"}) {
      WriteFile(*dir_ + "/" + script,
                absl::StrCat("#!/bin/sh\nHOPMAP_PROLOG_CONF=", *dir_,
                             "/prolog.conf exec " HOPMAP_SOURCE_DIR "/deploy/slurm/hopmap-", script,
                             "\n"));
      fs::permissions(*dir_ + "/" + script, fs::perms::owner_all);
    }
    // The machine names no topology: the prolog takes the job's partition's.
    WriteFile(
        *dir_ + "/prolog.conf",
        absl::StrCat(
            "HOPMAP_SERVER=", daemon_->address(), "\nHOPMAP_MACHINE=slurm-topology:", *dir_,
            "/topology.yaml\nHOPMAP_SCONTROL=", *prefix_, "/bin/scontrol\nSLURM_CONF=", *dir_,
            "/slurm.conf\nHOPMAP_DEADLINE=5\nHOPMAP_HOSTFILE_DIR=", *dir_,
            "/hostfiles\nHOPMAP_BIN=" HOPMAP_CLI "\nHOPMAP_LOG_FILE=", *dir_, "/prolog.log\n"));
    std::string start =
        absl::StrCat("HOPMAP_SLURM_PREFIX=", *prefix_,
                     " bash " HOPMAP_SOURCE_DIR "/tests/slurm/slurm_cluster.sh start ", *dir_, " ",
                     FreePort(), " ", FreePort());
    for (int node = 0; node < 8; ++node) absl::StrAppend(&start, " ", FreePort());
    absl::StrAppend(&start, " ", *dir_, "/prolog ", *dir_, "/epilog");
    ASSERT_EQ(Shell(start), 0) << "the Slurm 26.05 cluster did not start: " << start;
    started_ = true;
  }

  static void TearDownTestSuite() {
    if (dir_ != nullptr && prefix_ != nullptr) {
      Shell(absl::StrCat("HOPMAP_SLURM_PREFIX=", *prefix_,
                         " bash " HOPMAP_SOURCE_DIR "/tests/slurm/slurm_cluster.sh stop ", *dir_));
    }
    delete daemon_;
    daemon_ = nullptr;
    // Kept for a look when something failed.
    if (dir_ != nullptr && ::testing::UnitTest::GetInstance()->current_test_suite()->Passed()) {
      std::error_code ec;
      fs::remove_all(*dir_, ec);
    }
  }

  void SetUp() override { ASSERT_TRUE(started_) << "no Slurm cluster (see the first failure)"; }

  // Submits a batch job with sbatch `options` and waits for it. The job prints its
  // hostfile and runs one rank per task with hopmap-srun (plain srun when the prolog
  // wrote no hostfile); each rank prints its node. `before_srun`: shell lines run
  // just before.
  static JobOutput RunJob(const std::string& name, const std::string& options,
                          const std::string& before_srun = "") {
    const std::string out = *dir_ + "/jobs/" + name + ".out";
    const std::string script = *dir_ + "/jobs/" + name + ".sh";
    WriteFile(script, absl::StrCat("#!/bin/bash\nhf=", *dir_,
                                   "/hostfiles/job-$SLURM_JOB_ID.hostfile\n"
                                   "echo \"job $SLURM_JOB_ID\"\n"
                                   "[ -f \"$hf\" ] && sed 's/^/hostfile: /' \"$hf\"\n"
                                   "c=${hf%.hostfile}.cores\n[ -f \"$c\" ] && cp \"$c\" ",
                                   *dir_, "/jobs/cores-$SLURM_JOB_ID\n", before_srun,
                                   "HOPMAP_HOSTFILE_DIR=", *dir_,
                                   "/hostfiles " HOPMAP_SOURCE_DIR "/deploy/slurm/hopmap-srun -l ",
                                   *dir_, "/where.sh\n"));
    const std::string command = absl::StrCat(*env_, "sbatch --parsable -o ", out, " -D ", *dir_,
                                             "/jobs ", options, " ", script, " 2>&1");
    JobOutput job;
    const std::string submitted = Output(command);
    EXPECT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(submitted), &job.job_id))
        << command << ": " << submitted;
    if (job.job_id < 0) return job;
    EXPECT_TRUE(WaitForJob(*env_, job.job_id)) << "job " << job.job_id << " did not end in 120 s";
    ParseJobOutput(ReadFile(out), job);
    EXPECT_EQ(job.printed_job_id, job.job_id) << job.text;
    return job;
  }

  static std::string PrologLog() { return ReadFile(*dir_ + "/prolog.log"); }

  // Each rank's node (the first word of what it printed).
  static std::map<int, std::string> Nodes(const JobOutput& job) {
    std::map<int, std::string> nodes;
    for (const auto& [rank, printed] : job.node_of_rank) {
      nodes[rank] = std::string(absl::StripAsciiWhitespace(printed.substr(0, printed.find(' '))));
    }
    return nodes;
  }

  // Each rank's CPUs as Linux lists them (the second word).
  static std::map<int, std::string> Cpus(const JobOutput& job) {
    std::map<int, std::string> cpus;
    for (const auto& [rank, printed] : job.node_of_rank) {
      const size_t space = printed.find(' ');
      cpus[rank] = space == std::string::npos
                       ? ""
                       : std::string(absl::StripAsciiWhitespace(printed.substr(space + 1)));
    }
    return cpus;
  }

  // Rank r on nodes[r / 2]: Slurm's block layout of 2 tasks per node, in `nodes` order.
  static std::map<int, std::string> TwoPerNode(const std::vector<std::string>& nodes) {
    std::map<int, std::string> layout;
    for (size_t i = 0; i < nodes.size(); ++i) {
      layout[2 * i] = nodes[i];
      layout[2 * i + 1] = nodes[i];
    }
    return layout;
  }

  static std::string* dir_;
  static std::string* prefix_;
  static std::string* env_;
  static DaemonProcess* daemon_;
  static bool started_;
};

std::string* Slurm26Test::dir_ = nullptr;
std::string* Slurm26Test::prefix_ = nullptr;
std::string* Slurm26Test::env_ = nullptr;
DaemonProcess* Slurm26Test::daemon_ = nullptr;
bool Slurm26Test::started_ = false;

// Rank i talks to rank i+4 (heavily): Slurm's block layout puts every pair on
// different nodes.
void WritePairsGraph(const std::string& path) {
  WriteFile(path, "# tasks: 8\n0 4 1000000\n1 5 1000000\n2 6 1000000\n3 7 1000000\n0 1 10\n");
}

TEST_F(Slurm26Test, TheClusterIsSlurm26WithThreeTopologies) {
  EXPECT_THAT(Output(*env_ + "sinfo --version"), HasSubstr("slurm 26.05"));
  EXPECT_THAT(Output(*env_ + "scontrol show partition -o torus"), HasSubstr("Topology=torus"));
  EXPECT_THAT(Output(*env_ + "scontrol show partition -o block"), HasSubstr("Topology=block"));
}

// Slurm 26's torus3d ranking: nodes in the Morton (Z-order) order of their
// coordinates relative to the smallest wrap-aware box around the allocation, tasks
// filled in block order. On the whole 4x2 torus (x bits 2, y bits 1: code x0 y0 x1)
// that is n1 n2 n5 n6 n3 n4 n7 n8.
TEST_F(Slurm26Test, Slurm26RanksATorusJobsNodesByTheirMortonCode) {
  const JobOutput whole = RunJob("torus-whole", "-p torus -N8 -n16");
  EXPECT_TRUE(whole.hostfile.empty()) << whole.text;
  EXPECT_EQ(Nodes(whole), TwoPerNode({"n1", "n2", "n5", "n6", "n3", "n4", "n7", "n8"}))
      << whole.text;
  // n3 (2,0), n4 (3,0), n5 (0,1), n7 (2,1). The x coordinates {0,2,3} could wrap
  // (2,3,0), but Slurm keeps the linear box [0,3] when 2 * (3 - 0) < 4 + 3
  // (_min_wrap_span's shortcut), so x counts from 0: codes n5 2, n3 4, n4 5, n7 6.
  const JobOutput fragment = RunJob("torus-fragment", "-p torus -w n[3-5,7] -N4 -n8");
  EXPECT_EQ(Nodes(fragment), TwoPerNode({"n5", "n3", "n4", "n7"})) << fragment.text;
  // The model of this ranking bench/apps.sh uses (deploy/apps/slurm_order.py) gives
  // the real Slurm's orders (node ids: n1 is 0).
  const std::string model = "python3 " HOPMAP_SOURCE_DIR "/deploy/apps/slurm_order.py torus 4x2x1 ";
  EXPECT_EQ(Output(model + "0-7"), "0\n1\n4\n5\n2\n3\n6\n7\n");
  EXPECT_EQ(Output(model + "2-4,6"), "4\n2\n3\n6\n");
  // The tree ranks by name within the job.
  const JobOutput tree = RunJob("tree-fragment", "-p tree -w n[3-5,7] -N4 -n8");
  EXPECT_EQ(Nodes(tree), TwoPerNode({"n3", "n4", "n5", "n7"})) << tree.text;
}

// A job that asks (--comment=hopmap:GRAPH) runs its ranks where hopmap said, on every
// topology: the prolog maps onto the partition's topology, hopmap-srun applies it.
TEST_F(Slurm26Test, AMappedJobRunsWhereHopmapSaidUnderEachTopology) {
  WritePairsGraph(*dir_ + "/jobs/pairs.edgelist");
  // Partial leaf switches on the tree and a fragment of the torus; on the block
  // topology a 4-node job must fit one aggregated block of 4 (block_sizes [2, 4]),
  // so it gets two whole base blocks.
  for (const auto& [partition, allocation] : std::vector<std::pair<std::string, std::string>>{
           {"tree", "n[2-3,6-7]"}, {"block", "n[5-8]"}, {"torus", "n[2-3,6-7]"}}) {
    SCOPED_TRACE(partition);
    const JobOutput job =
        RunJob("mapped-" + partition, "-p " + partition + " -w " + allocation +
                                          " -N4 -n8 --comment=hopmap:pairs.edgelist");
    ASSERT_EQ(job.hostfile.size(), 8u) << job.text << PrologLog();
    ASSERT_EQ(job.node_of_rank.size(), 8u) << job.text;
    const std::map<int, std::string> nodes = Nodes(job);
    const std::map<int, std::string> cpus = Cpus(job);
    const std::vector<std::string> cores = absl::StrSplit(
        ReadFile(absl::StrCat(*dir_, "/jobs/", "cores-", job.job_id)), '\n', absl::SkipEmpty());
    ASSERT_EQ(cores.size(), 8u) << job.text;
    for (int rank = 0; rank < 8; ++rank) {
      EXPECT_EQ(nodes.at(rank), job.hostfile[rank]) << "rank " << rank;
      // Bound to the one CPU hopmap chose (core k is CPU k: no task plugin here, so a
      // task may use every CPU of the host, 0 to N-1).
      EXPECT_EQ(cpus.at(rank), cores[rank]) << "rank " << rank << ": " << job.text;
    }
    // Each heavy pair on one node, on two different cores.
    for (int rank = 0; rank < 4; ++rank) {
      EXPECT_EQ(nodes.at(rank), nodes.at(rank + 4)) << "pair " << rank;
      EXPECT_NE(cores[rank], cores[rank + 4]) << "pair " << rank;
    }
    const std::string log = PrologLog();
    EXPECT_THAT(log,
                HasSubstr(absl::StrCat("hopmap-prolog: job ", job.job_id, ": mapped 8 ranks onto ",
                                       allocation, ": 8 tasks on 8 slots")));
    // The prolog mapped onto the partition's topology.
    EXPECT_THAT(log,
                HasSubstr(absl::StrCat("-> ", *dir_, "/hostfiles/job-", job.job_id,
                                       ".hostfile (machine slurm-topology:", *dir_,
                                       "/topology.yaml:", partition, ", objective hop-bytes)")));
  }
}

// An interactive allocation (salloc) asks the same way, and hopmap-srun inside it
// places the ranks: the prolog runs for every job, not only batch jobs.
TEST_F(Slurm26Test, AnSallocJobIsMappedToo) {
  WritePairsGraph(*dir_ + "/jobs/pairs.edgelist");
  const std::string text = Output(
      absl::StrCat("cd ", *dir_, "/jobs && ", *env_,
                   "salloc -p torus -w n[2-3,6-7] -N4 -n8 --comment=hopmap:pairs.edgelist "
                   "bash -c 'echo \"job $SLURM_JOB_ID\"; sed \"s/^/hostfile: /\" ",
                   *dir_, "/hostfiles/job-$SLURM_JOB_ID.hostfile; HOPMAP_HOSTFILE_DIR=", *dir_,
                   "/hostfiles " HOPMAP_SOURCE_DIR "/deploy/slurm/hopmap-srun -l ", *dir_,
                   "/where.sh' 2>/dev/null"));
  JobOutput job;
  ParseJobOutput(text, job);
  ASSERT_EQ(job.hostfile.size(), 8u) << text << PrologLog();
  const std::map<int, std::string> nodes = Nodes(job);
  ASSERT_EQ(nodes.size(), 8u) << text;
  for (int rank = 0; rank < 8; ++rank) {
    EXPECT_EQ(nodes.at(rank), job.hostfile[rank]) << "rank " << rank;
  }
  EXPECT_THAT(PrologLog(), HasSubstr(absl::StrCat("hopmap-prolog: job ", job.printed_job_id,
                                                  ": mapped 8 ranks onto n[2-3,6-7]")));
}

// When Slurm refuses the placement (here: a hostfile that names a node outside the
// job), the job still runs, in Slurm's layout, and hopmap-srun says why in one line.
TEST_F(Slurm26Test, ARefusedPlacementRunsInSlurmsLayoutAndSaysWhy) {
  WritePairsGraph(*dir_ + "/jobs/pairs.edgelist");
  const JobOutput job =
      RunJob("refused", "-p torus -w n[2-3,6-7] -N4 -n8 --comment=hopmap:pairs.edgelist",
             "sed -i 's/.*/n8/' \"$hf\"\n");
  ASSERT_EQ(job.hostfile.size(), 8u) << job.text << PrologLog();
  // n2 (1,0), n3 (2,0), n6 (1,1), n7 (2,1): x counts from 1, codes n2 0, n3 1, n6 2,
  // n7 3.
  EXPECT_EQ(Nodes(job), TwoPerNode({"n2", "n3", "n6", "n7"})) << job.text;
  EXPECT_THAT(job.text, HasSubstr(absl::StrCat("hopmap-srun: job ", job.job_id,
                                               ": hopmap's placement not applied: Unable to "
                                               "create step for job ",
                                               job.job_id, ": ")));
  EXPECT_THAT(job.text, HasSubstr("; srun's default placement"));
}

}  // namespace
}  // namespace hopmap
