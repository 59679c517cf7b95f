// hopmap inside a real Slurm: munged, slurmctld and four slurmd on loopback
// (tests/slurm/slurm_cluster.sh), deploy/slurm/hopmap-prolog as PrologSlurmctld,
// a real hopmapd, and batch jobs that launch their ranks with
// deploy/slurm/hopmap-srun. Checks where each rank ran (SLURM_PROCID -> node).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <tuple>
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
using ::testing::Not;

class SlurmTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(::testing::TempDir() + "/hopmap_slurm_" + std::to_string(getpid()));
    fs::remove_all(*dir_);
    fs::create_directories(*dir_ + "/hostfiles");
    fs::create_directories(*dir_ + "/jobs");
    // Two leaf switches under one top switch: n1,n2 | n3,n4.
    WriteFile(*dir_ + "/topology.conf",
              "SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n[3-4]\n"
              "SwitchName=top Switches=s[1-2]\n");
    daemon_ = new DaemonProcess();
    ASSERT_TRUE(daemon_->Start({}, *dir_ + "/hopmapd.log")) << daemon_->error();
    // slurmctld runs prologs with a bare environment: the wrapper names the settings.
    WriteFile(*dir_ + "/prolog", "#!/bin/sh\nHOPMAP_PROLOG_CONF=" + *dir_ +
                                     "/prolog.conf exec " HOPMAP_SOURCE_DIR
                                     "/deploy/slurm/hopmap-prolog\n");
    WriteFile(*dir_ + "/epilog", "#!/bin/sh\nHOPMAP_PROLOG_CONF=" + *dir_ +
                                     "/prolog.conf exec " HOPMAP_SOURCE_DIR
                                     "/deploy/slurm/hopmap-epilog\n");
    fs::permissions(*dir_ + "/prolog", fs::perms::owner_all);
    fs::permissions(*dir_ + "/epilog", fs::perms::owner_all);
    UseServer(daemon_->address());
    const std::string start =
        absl::StrCat("bash " HOPMAP_SOURCE_DIR "/tests/slurm/slurm_cluster.sh start ", *dir_, " ",
                     FreePort(), " ", FreePort(), " ", FreePort(), " ", FreePort(), " ", FreePort(),
                     " ", FreePort(), " ", *dir_, "/prolog ", *dir_, "/epilog");
    ASSERT_EQ(Shell(start), 0) << "the Slurm cluster did not start: " << start;
    started_ = true;
  }

  static void TearDownTestSuite() {
    if (dir_ != nullptr) {
      Shell("bash " HOPMAP_SOURCE_DIR "/tests/slurm/slurm_cluster.sh stop " + *dir_);
    }
    delete daemon_;
    daemon_ = nullptr;
    // Kept for a look when something failed.
    if (dir_ != nullptr && ::testing::UnitTest::GetInstance()->current_test_suite()->Passed()) {
      std::error_code ec;
      fs::remove_all(*dir_, ec);
    }
  }

  void SetUp() override {
    ASSERT_TRUE(started_) << "no Slurm cluster (see the first test's failure)";
    UseServer(daemon_->address());
  }

  // The prolog's settings; read by every prolog run. `extra`: more KEY=VALUE lines.
  static void UseServer(const std::string& address, const std::string& extra = "",
                        const std::string& topology = "topology.conf") {
    WriteFile(*dir_ + "/prolog.conf",
              absl::StrCat("HOPMAP_SERVER=", address, "\nHOPMAP_MACHINE=slurm:", *dir_, "/",
                           topology, "\nHOPMAP_DEADLINE=5\nHOPMAP_HOSTFILE_DIR=", *dir_,
                           "/hostfiles\nHOPMAP_BIN=" HOPMAP_CLI "\nHOPMAP_LOG_FILE=", *dir_,
                           "/prolog.log\n", extra));
  }

  // Submits a batch job of 8 ranks on the 4 nodes and waits for it. The job prints
  // its hostfile and runs its ranks with hopmap-srun.
  static JobOutput RunJob(const std::string& name, const std::string& comment) {
    const std::string out = *dir_ + "/jobs/" + name + ".out";
    const std::string script = *dir_ + "/jobs/" + name + ".sh";
    WriteFile(script,
              "#!/bin/bash\n"
              "hf=" +
                  *dir_ +
                  "/hostfiles/job-$SLURM_JOB_ID.hostfile\n"
                  "echo \"job $SLURM_JOB_ID\"\n"
                  "[ -f \"$hf\" ] && sed 's/^/hostfile: /' \"$hf\"\n"
                  "HOPMAP_HOSTFILE_DIR=" +
                  *dir_ +
                  "/hostfiles " HOPMAP_SOURCE_DIR
                  "/deploy/slurm/hopmap-srun -l printenv SLURMD_NODENAME\n");
    const std::string env = absl::StrCat("SLURM_CONF=", *dir_, "/slurm.conf ");
    std::string command =
        absl::StrCat(env, "sbatch --parsable -N4 -n8 -o ", out, " -D ", *dir_, "/jobs");
    if (!comment.empty()) absl::StrAppend(&command, " --comment=", comment);
    absl::StrAppend(&command, " ", script);
    JobOutput job;
    const std::string submitted = Output(command);
    EXPECT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(submitted), &job.job_id))
        << command << ": " << submitted;
    EXPECT_TRUE(WaitForJob(env, job.job_id)) << "job " << job.job_id << " did not end within 120 s";
    ParseJobOutput(ReadFile(out), job);
    EXPECT_EQ(job.printed_job_id, job.job_id) << job.text;
    return job;
  }

  static std::string PrologLog() { return ReadFile(*dir_ + "/prolog.log"); }

  // Slurm's own block layout of 8 ranks on n1..n4 with 2 CPUs each.
  static std::map<int, std::string> BlockLayout() {
    return {{0, "n1"}, {1, "n1"}, {2, "n2"}, {3, "n2"}, {4, "n3"}, {5, "n3"}, {6, "n4"}, {7, "n4"}};
  }

  static std::string* dir_;
  static DaemonProcess* daemon_;
  static bool started_;
};

std::string* SlurmTest::dir_ = nullptr;
DaemonProcess* SlurmTest::daemon_ = nullptr;
bool SlurmTest::started_ = false;

// Rank i talks to rank i+4 (heavily): Slurm's block layout puts every pair on
// different nodes, half of them across the top switch.
std::string WritePairsGraph(const std::string& path) {
  WriteFile(path, "# tasks: 8\n0 4 1000000\n1 5 1000000\n2 6 1000000\n3 7 1000000\n0 1 10\n");
  return path;
}

TEST_F(SlurmTest, AJobWithAGraphRunsItsRanksWhereHopmapdSaid) {
  WritePairsGraph(*dir_ + "/jobs/pairs.edgelist");
  const JobOutput job = RunJob("mapped", "hopmap:pairs.edgelist");  // relative to -D
  ASSERT_EQ(job.hostfile.size(), 8u) << job.text << PrologLog();
  ASSERT_EQ(job.node_of_rank.size(), 8u) << job.text;
  for (int rank = 0; rank < 8; ++rank) {
    EXPECT_EQ(job.node_of_rank.at(rank), job.hostfile[rank]) << "rank " << rank;
  }
  // The mapping keeps each heavy pair on one node (zero hop-bytes for them).
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(job.node_of_rank.at(rank), job.node_of_rank.at(rank + 4)) << "pair " << rank;
  }
  EXPECT_NE(job.node_of_rank, BlockLayout());
  EXPECT_THAT(PrologLog(),
              HasSubstr(absl::StrCat("hopmap-prolog: job ", job.job_id,
                                     ": mapped 8 ranks onto n[1-4]: 8 tasks on 8 slots")));
  // EpilogSlurmctld removed the hostfile when the job ended.
  EXPECT_FALSE(fs::exists(absl::StrCat(*dir_, "/hostfiles/job-", job.job_id, ".hostfile")));
}

// What to minimise comes after the graph in the comment; the log line names it, and
// a word the prolog does not know leaves the job unmapped with the reason.
TEST_F(SlurmTest, TheCommentChoosesTheObjective) {
  WritePairsGraph(*dir_ + "/jobs/pairs.edgelist");
  const JobOutput job = RunJob("dilation", "'hopmap:pairs.edgelist objective=dilation'");
  ASSERT_EQ(job.hostfile.size(), 8u) << job.text << PrologLog();
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(job.node_of_rank.at(rank), job.node_of_rank.at(rank + 4)) << "pair " << rank;
  }
  EXPECT_THAT(PrologLog(), HasSubstr(absl::StrCat("job-", job.job_id, ".hostfile (machine slurm:",
                                                  *dir_, "/topology.conf, objective dilation)")));
  const std::tuple<std::string, std::string, std::string> refused[] = {
      {"unknown-option", "'hopmap:pairs.edgelist fast=yes'",
       "--comment: unknown option 'fast=yes' after the graph (known: objective=NAME)"},
      {"unknown-objective", "'hopmap:pairs.edgelist objective=speed'",
       "unknown objective 'speed' (known: hop-bytes, congestion, dilation, time)"}};
  for (const auto& [name, comment, why] : refused) {
    const JobOutput unmapped = RunJob(name, comment);
    EXPECT_EQ(unmapped.node_of_rank, BlockLayout()) << unmapped.text;
    EXPECT_THAT(PrologLog(),
                HasSubstr(absl::StrCat("job ", unmapped.job_id, ": not mapped: ", why)));
  }
}

TEST_F(SlurmTest, AJobThatDidNotAskRunsUnchanged) {
  const JobOutput job = RunJob("plain", "");
  EXPECT_TRUE(job.hostfile.empty()) << job.text;
  EXPECT_EQ(job.node_of_rank, BlockLayout()) << job.text;
  EXPECT_THAT(PrologLog(), Not(HasSubstr(absl::StrCat("job ", job.job_id, ":"))));
  // Another comment is not a request either.
  const JobOutput other = RunJob("other-comment", "nightly-run");
  EXPECT_EQ(other.node_of_rank, BlockLayout()) << other.text;
}

TEST_F(SlurmTest, TheDaemonStoppedTheJobStillRunsAndTheLogSaysWhy) {
  DaemonProcess gone;
  ASSERT_TRUE(gone.Start({}, *dir_ + "/gone.log")) << gone.error();
  const std::string address = gone.address();
  ASSERT_EQ(gone.Signal(SIGTERM), 0);
  UseServer(address);
  WritePairsGraph(*dir_ + "/jobs/pairs.edgelist");
  const JobOutput job = RunJob("daemon-down", "hopmap:pairs.edgelist");
  EXPECT_TRUE(job.hostfile.empty()) << job.text;
  EXPECT_EQ(job.node_of_rank, BlockLayout()) << job.text;
  EXPECT_THAT(PrologLog(),
              HasSubstr(absl::StrCat("hopmap-prolog: job ", job.job_id,
                                     ": not mapped: cannot reach hopmapd at ", address)));
  EXPECT_THAT(PrologLog(), HasSubstr("Connection refused; Slurm's default placement"));
}

TEST_F(SlurmTest, AMalformedGraphTheJobStillRunsAndTheLogSaysWhy) {
  WriteFile(*dir_ + "/jobs/bad.edgelist", "# tasks: 8\n0 4 1000000\n1 five 10\n");
  const JobOutput job = RunJob("malformed", "hopmap:bad.edgelist");
  EXPECT_TRUE(job.hostfile.empty()) << job.text;
  EXPECT_EQ(job.node_of_rank, BlockLayout()) << job.text;
  const std::string log = PrologLog();
  EXPECT_THAT(log, HasSubstr(absl::StrCat("hopmap-prolog: job ", job.job_id, ": not mapped: ")));
  EXPECT_THAT(log, HasSubstr(*dir_ + "/jobs/bad.edgelist:3"));
}

TEST_F(SlurmTest, OtherRefusalsFallBackWithTheirReason) {
  // A missing graph; more ranks than slots; a graph the job's user does not own.
  const JobOutput missing = RunJob("missing", "hopmap:nope.edgelist");
  EXPECT_EQ(missing.node_of_rank, BlockLayout()) << missing.text;
  EXPECT_THAT(PrologLog(), HasSubstr(absl::StrCat("job ", missing.job_id, ": not mapped: graph ",
                                                  *dir_, "/jobs/nope.edgelist: no such file")));

  WriteFile(*dir_ + "/jobs/big.edgelist", "# tasks: 16\n0 15 100\n");
  const JobOutput big = RunJob("too-many-ranks", "hopmap:big.edgelist");
  EXPECT_EQ(big.node_of_rank, BlockLayout()) << big.text;
  EXPECT_THAT(PrologLog(), HasSubstr(absl::StrCat("job ", big.job_id, ": not mapped: ")));
  EXPECT_THAT(PrologLog(), HasSubstr("16 tasks"));

  const std::string foreign = WritePairsGraph(*dir_ + "/jobs/foreign.edgelist");
  ASSERT_EQ(chown(foreign.c_str(), 1, 1), 0);
  const JobOutput not_owned = RunJob("not-owned", "hopmap:foreign.edgelist");
  EXPECT_EQ(not_owned.node_of_rank, BlockLayout()) << not_owned.text;
  EXPECT_THAT(PrologLog(),
              HasSubstr(absl::StrCat("job ", not_owned.job_id, ": not mapped: graph ", foreign,
                                     ": owned by uid 1, not by the job's user")));
}

TEST_F(SlurmTest, SlowRefusingAndWrongTokenDaemonsFallBackWithinTheDeadline) {
  WritePairsGraph(*dir_ + "/jobs/pairs.edgelist");
  // A daemon that wants a token the prolog does not have.
  DaemonProcess guarded;
  ASSERT_TRUE(guarded.Start({"--token", "s3cret"}, *dir_ + "/guarded.log")) << guarded.error();
  UseServer(guarded.address(), "HOPMAP_TOKEN=wrong\n");
  const JobOutput wrong_token = RunJob("wrong-token", "hopmap:pairs.edgelist");
  EXPECT_EQ(wrong_token.node_of_rank, BlockLayout()) << wrong_token.text;
  EXPECT_THAT(PrologLog(),
              HasSubstr(absl::StrCat("job ", wrong_token.job_id, ": not mapped: wrong token")));

  // A model that does not know node n4.
  WriteFile(*dir_ + "/small-topology.conf", "SwitchName=s1 Nodes=n[1-3]\n");
  UseServer(daemon_->address(), "", "small-topology.conf");
  const JobOutput unknown = RunJob("unknown-node", "hopmap:pairs.edgelist");
  EXPECT_EQ(unknown.node_of_rank, BlockLayout()) << unknown.text;
  EXPECT_THAT(PrologLog(), HasSubstr(absl::StrCat("job ", unknown.job_id, ": not mapped: ")));
  EXPECT_THAT(PrologLog(), HasSubstr("n4"));

  // A busy daemon: its one slot is held by a 10-minute solve and nobody may queue
  // (RESOURCE_EXHAUSTED); then a queue, so the call waits past HOPMAP_DEADLINE=1.
  for (const bool queue : {false, true}) {
    SCOPED_TRACE(queue ? "queued past the deadline" : "refused");
    DaemonProcess busy;
    ASSERT_TRUE(busy.Start(
        {"--max-concurrent", "1", "--max-queued", queue ? "4" : "0", "--max-time-limit", "600"},
        *dir_ + "/busy.log"))
        << busy.error();
    const std::string ring = *dir_ + "/jobs/ring.edgelist";
    ASSERT_EQ(Shell(std::string(HOPMAP_CLI) + " gen ring --tasks 6561 -o " + ring), 0);
    const std::string hold = absl::StrCat(
        HOPMAP_CLI, " map --server ", busy.address(),
        " --machine torus:3x3x3x3x3x3x3x3 --algorithm axis-order --time-limit 600 -q --graph ",
        ring, " -o /dev/null >/dev/null 2>&1 & echo $!");
    // Wait until the holder has the slot: a probe is then refused ("server busy")
    // or, with a queue, still waiting after half a second (timeout kills it: 124).
    // A probe may win the slot first and get the holder refused: start it again.
    std::string holder;
    bool held = false;
    std::string probe;
    for (int i = 0; i < 100 && !held; ++i) {
      // Alive and not a zombie (the holder is orphaned; its reaper may be slow).
      if (holder.empty() || Shell("ps -o stat= -p " + holder + " | grep -qv Z") != 0) {
        holder = std::string(absl::StripAsciiWhitespace(Output(hold)));
        usleep(300'000);
      }
      probe = Output(absl::StrCat("timeout 0.5 ", HOPMAP_CLI, " map --server ", busy.address(),
                                  " --machine bgp-8x8x8 --time-limit 0.05 -q -o /dev/null --graph ",
                                  *dir_, "/jobs/pairs.edgelist 2>&1; echo rc=$?"));
      held = queue ? probe.find("rc=124") != std::string::npos
                   : probe.find("server busy") != std::string::npos;
      if (!held) usleep(100'000);
    }
    ASSERT_TRUE(held) << "the 10-minute solve never took the slot; last probe: " << probe
                      << "holder: " << holder;
    UseServer(busy.address(), queue ? "HOPMAP_DEADLINE=1\n" : "");
    const JobOutput job = RunJob(queue ? "slow" : "refused", "hopmap:pairs.edgelist");
    Shell("kill " + holder);
    EXPECT_EQ(job.node_of_rank, BlockLayout()) << job.text;
    EXPECT_THAT(PrologLog(), HasSubstr(absl::StrCat(
                                 "job ", job.job_id, ": not mapped: ",
                                 queue ? "no answer within HOPMAP_DEADLINE=1s" : "server busy")));
  }
}

}  // namespace
}  // namespace hopmap
