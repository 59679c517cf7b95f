// simulate --mpi's runner: the project's halo2d under the real smpirun on the
// platform library, per placement.
#include "sim/smpi_runner.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <numeric>
#include <string>

#include "core/graph/generators.h"
#include "core/io/machine_spec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_path.h"

namespace hopmap::sim {
namespace {

using ::testing::HasSubstr;

int EntriesIn(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return -1;
  int n = 0;
  while (dirent* e = readdir(d))
    n += std::string(e->d_name) != "." && std::string(e->d_name) != "..";
  closedir(d);
  return n;
}

class SmpiRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::shared_ptr<Machine>> machine =
        ParseMachineSpec("torus:4x4x4:link-bandwidth=1e9:link-latency=1e-7");
    ASSERT_TRUE(machine.ok()) << machine.status();
    absl::StatusOr<Allocation> allocation = Allocation::WholeMachine(*machine);
    ASSERT_TRUE(allocation.ok());
    allocation_ = std::make_unique<Allocation>(*std::move(allocation));
    GeneratorOptions halo;
    halo.kind = "stencil2d-5";
    halo.dims = {8, 8};
    halo.wrap = true;
    halo.bytes = 1 << 20;
    absl::StatusOr<TaskGraph> graph = GenerateGraph(halo);
    ASSERT_TRUE(graph.ok());
    graph_ = std::make_unique<TaskGraph>(*std::move(graph));
    // The 8x8 grid folded onto the 4x4x4 torus: each ring of 8 goes there and
    // back along a ring of 4, the halves on different z planes, so every grid
    // neighbour is at most one hop away.
    folded_.resize(64);
    for (int t = 0; t < 64; ++t) {
      const int x = t % 8, y = t / 8;
      const int nx = x < 4 ? x : 7 - x;
      const int ny = y < 4 ? y : 7 - y;
      const int nz = (x < 4 ? 0 : 1) + (y < 4 ? 0 : 2);
      folded_[t] = nx + 4 * (ny + 4 * nz);
    }
    // A fresh folder as TMPDIR, so the test sees what the runner leaves behind.
    const char* old = std::getenv("TMPDIR");
    old_tmpdir_ = old != nullptr ? old : "";
    std::string pattern = hopmap::testing::TempPath("smpi_runner.XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    tmp_ = pattern;
    setenv("TMPDIR", tmp_.c_str(), 1);
  }

  void TearDown() override {
    if (old_tmpdir_.empty()) {
      unsetenv("TMPDIR");
    } else {
      setenv("TMPDIR", old_tmpdir_.c_str(), 1);
    }
    rmdir(tmp_.c_str());
  }

  SimulateRequest Request() const {
    SimulateRequest request;
    request.graph = graph_.get();
    request.allocation = allocation_.get();
    request.mappings.push_back({"folded", folded_});
    return request;
  }

  std::unique_ptr<Allocation> allocation_;
  std::unique_ptr<TaskGraph> graph_;
  std::vector<SlotId> folded_;
  std::string tmp_;
  std::string old_tmpdir_;
};

TEST_F(SmpiRunnerTest, Halo2dRunsPerPlacementAndTheBetterPlacementIsFaster) {
  const MpiProgram halo{HOPMAP_HALO2D, {"8", "8", "1048576", "3"}, {}};
  absl::StatusOr<SimulationReport> report = SimulateMpiProgram(Request(), halo);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->simulations.size(), 2u);
  const SimulationResult& in_order = report->simulations[0];
  const SimulationResult& folded = report->simulations[1];
  EXPECT_EQ(in_order.mapping, "in-order");
  EXPECT_EQ(folded.mapping, "folded");
  EXPECT_LT(folded.hop_bytes, in_order.hop_bytes);
  // Three exchanges of 1 MiB at most: at 1 GB/s at least 3 ms, and contention in
  // order (rows of 8 on rings of 4) makes that slower.
  EXPECT_GT(folded.time_s, 3 * (1 << 20) / 1e9);
  EXPECT_LT(folded.time_s, in_order.time_s);
  EXPECT_NEAR(folded.ratio_to_in_order, folded.time_s / in_order.time_s, 1e-12);
  // The same on a second run; nothing left in the temporary folder.
  absl::StatusOr<SimulationReport> again = SimulateMpiProgram(Request(), halo);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->simulations[1].time_s, folded.time_s);
  EXPECT_EQ(EntriesIn(tmp_), 0);
}

TEST_F(SmpiRunnerTest, AFailingProgramGivesItsOwnError) {
  const MpiProgram wrong{HOPMAP_HALO2D, {"3", "3", "10", "1"}, {}};  // 9 ranks, not 64
  absl::StatusOr<SimulationReport> report = SimulateMpiProgram(Request(), wrong);
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(), HasSubstr("smpirun"));
  EXPECT_THAT(report.status().message(), HasSubstr("(in-order) failed"));
  EXPECT_THAT(report.status().message(), HasSubstr("PX x PY must be the 64 ranks"));
  EXPECT_EQ(EntriesIn(tmp_), 0);
  const MpiProgram missing{tmp_ + "/no-such-program", {}, {}};
  report = SimulateMpiProgram(Request(), missing);
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(), HasSubstr("no-such-program: not an executable program"));
}

// The compute profile (sim/smpi_compute): a run that measures the ranks' compute
// bursts writes one profile per rank; runs that replay it charge exactly those
// bursts, so they give the same time every run, the measuring run's time in order,
// and more than the program's communication alone.
class ComputeProfileTest : public SmpiRunnerTest {
 protected:
  void TearDown() override {
    unsetenv("HOPMAP_SMPI_COMPUTE");
    if (!profile_.empty()) std::filesystem::remove_all(profile_);
    SmpiRunnerTest::TearDown();
  }
  absl::StatusOr<SimulationReport> Run(const std::string& mode) {
    SimulateRequest request = Request();
    if (mode == "measure") request.mappings.clear();  // in-order only
    if (mode.empty()) {
      unsetenv("HOPMAP_SMPI_COMPUTE");
    } else {
      setenv("HOPMAP_SMPI_COMPUTE", (mode + ":" + profile_).c_str(), 1);
    }
    return SimulateMpiProgram(request,
                              {HOPMAP_HALO2D_PROFILED, {"8", "8", "65536", "4", "200000"}, {}});
  }
  std::string profile_ = hopmap::testing::TempPath("compute_profile");
};

TEST_F(ComputeProfileTest, ReplayedComputationIsTheMeasuredOneEveryRun) {
  std::filesystem::remove_all(profile_);
  std::filesystem::create_directories(profile_);
  absl::StatusOr<SimulationReport> measured = Run("measure");
  ASSERT_TRUE(measured.ok()) << measured.status();
  for (int rank = 0; rank < 64; ++rank) {
    EXPECT_TRUE(std::filesystem::exists(profile_ + "/rank-" + std::to_string(rank) + ".bursts"))
        << rank;
  }
  const SimulationResult& in_order = measured->simulations[0];
  ASSERT_TRUE(in_order.mpi_time_s.has_value());
  ASSERT_TRUE(in_order.compute_s.has_value());
  EXPECT_GT(*in_order.compute_s, 0);
  EXPECT_GT(*in_order.mpi_time_s, 0);
  // A rank's computing and waiting inside MPI fill its run.
  EXPECT_LE(*in_order.compute_s + *in_order.mpi_time_s, in_order.time_s * (1 + 1e-9));
  // halo2d's two barriers are its collectives: part of its MPI time, not all of it.
  ASSERT_TRUE(in_order.collective_s.has_value());
  EXPECT_GT(*in_order.collective_s, 0);
  EXPECT_LT(*in_order.collective_s, *in_order.mpi_time_s);

  absl::StatusOr<SimulationReport> replayed = Run("replay");
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  absl::StatusOr<SimulationReport> again = Run("replay");
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(replayed->simulations.size(), 2u);
  EXPECT_EQ(replayed->simulations[0].time_s, in_order.time_s);
  EXPECT_EQ(replayed->simulations[0].compute_s, in_order.compute_s);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(again->simulations[i].time_s, replayed->simulations[i].time_s) << i;
    EXPECT_EQ(again->simulations[i].mpi_time_s, replayed->simulations[i].mpi_time_s) << i;
    EXPECT_EQ(again->simulations[i].collective_s, replayed->simulations[i].collective_s) << i;
    EXPECT_EQ(replayed->simulations[i].unmatched_calls, 0) << i;
  }
  // Both placements compute the same; the folded one waits less in MPI.
  EXPECT_EQ(replayed->simulations[1].compute_s, replayed->simulations[0].compute_s);
  EXPECT_LT(*replayed->simulations[1].mpi_time_s, *replayed->simulations[0].mpi_time_s);

  absl::StatusOr<SimulationReport> communication_only = Run("");
  ASSERT_TRUE(communication_only.ok()) << communication_only.status();
  EXPECT_FALSE(communication_only->simulations[0].mpi_time_s.has_value());
  EXPECT_GT(in_order.time_s, communication_only->simulations[0].time_s + *in_order.compute_s / 2);
}

// halo2d's ranks compute 1 to 4 units an iteration (rank % 4): replayed as measured,
// every exchange waits for the slowest. The median of each code region charges
// every rank the same, as a program whose ranks do the same work would have it, so
// the ranks wait less; the runs are as repeatable as the measured replay.
TEST_F(ComputeProfileTest, TheMedianOfEachRegionChargesEveryRankTheSame) {
  std::filesystem::remove_all(profile_);
  std::filesystem::create_directories(profile_);
  absl::StatusOr<SimulationReport> measured = Run("measure");
  ASSERT_TRUE(measured.ok()) << measured.status();
  EXPECT_TRUE(std::filesystem::exists(profile_ + "/sites.median"));
  EXPECT_TRUE(std::filesystem::exists(profile_ + "/rank-63.sites"));
  absl::StatusOr<SimulationReport> replayed = Run("replay");
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  absl::StatusOr<SimulationReport> median = Run("replay-median");
  ASSERT_TRUE(median.ok()) << median.status();
  absl::StatusOr<SimulationReport> again = Run("replay-median");
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(median->simulations.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(again->simulations[i].time_s, median->simulations[i].time_s) << i;
    EXPECT_EQ(again->simulations[i].compute_s, median->simulations[i].compute_s) << i;
    EXPECT_EQ(median->simulations[i].unmatched_calls, 0) << i;
    // The slowest rank computed 4 units where the median rank computes 2 to 3: with
    // no one to wait for, the ranks spend less time in MPI and the run is shorter.
    EXPECT_LT(*median->simulations[i].mpi_time_s, *replayed->simulations[i].mpi_time_s / 2) << i;
    EXPECT_LT(median->simulations[i].time_s, replayed->simulations[i].time_s) << i;
  }
  EXPECT_EQ(median->simulations[1].compute_s, median->simulations[0].compute_s);

  // A profile whose sites are gone (measured before they were recorded) names the file.
  std::filesystem::remove(profile_ + "/rank-5.sites");
  absl::StatusOr<SimulationReport> broken = Run("replay-median");
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(broken.status().message(), HasSubstr("rank-5.sites"));
}

TEST_F(ComputeProfileTest, AMissingProfileNamesTheFile) {
  std::filesystem::remove_all(profile_);
  absl::StatusOr<SimulationReport> report = Run("replay");
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(), HasSubstr("(in-order) failed"));
  EXPECT_THAT(report.status().message(), HasSubstr("rank-"));
  EXPECT_THAT(report.status().message(), HasSubstr("make the profile with measure:DIR first"));
  setenv("HOPMAP_SMPI_COMPUTE", "sideways:/tmp", 1);
  report = SimulateMpiProgram(Request(), {HOPMAP_HALO2D_PROFILED, {"8", "8", "65536", "1"}, {}});
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(),
              HasSubstr("expected measure:DIR, replay:DIR or replay-median:DIR"));
  // Measuring two placements at once would write one profile twice.
  setenv("HOPMAP_SMPI_COMPUTE", ("measure:" + profile_).c_str(), 1);
  report = SimulateMpiProgram(Request(), {HOPMAP_HALO2D_PROFILED, {"8", "8", "65536", "1"}, {}});
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(), HasSubstr("give no --mapping"));
}

}  // namespace
}  // namespace hopmap::sim
