// The vendored applications end to end at 8 ranks: recorded with Open MPI through
// libhopmap_mpi, their compute measured once under SMPI, mapped four ways, and run
// under `hopmap simulate --mpi` per placement; a second run gives the same times.
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace {

using ::testing::HasSubstr;

struct Result {
  int exit_code = -1;
  std::string output;  // standard output and error
};

Result RunCommand(const std::string& command) {
  Result result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class AppsTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "/apps_test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    work_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(work_); }

  // run_app.py on a 4x4x4 torus, the 8 ranks on nodes in three pieces, recorded
  // with MPICH (run_app's default) or Open MPI.
  Result RunApp(const std::string& app, const std::string& output, const std::string& mpi = "mpich",
                const std::string& more = "") const {
    return RunCommand(
        absl::StrCat("python3 " HOPMAP_SOURCE_DIR "/deploy/apps/run_app.py ", app,
                     " 8 --size small --machine torus:4x4x4 --nodes 0-2,17-19,42-43", " --work ",
                     work_, " --hopmap " HOPMAP_CLI " --mpi ", mpi, " --mpi-lib ",
                     mpi == "mpich" ? HOPMAP_MPICH_LIB : HOPMAP_MPI_LIB, " -o ", output, more));
  }

  std::string work_;
};

TEST(AppsBuildTest, EveryApplicationIsBuiltWithEachToolchain) {
  const Result found = RunCommand("bash " HOPMAP_SOURCE_DIR "/deploy/apps/build-apps.sh --find");
  ASSERT_EQ(found.exit_code, 0) << "the applications are not built (deploy/test.sh builds "
                                   "them: bash deploy/apps/build-apps.sh): "
                                << found.output;
  std::string prefix = found.output;
  while (!prefix.empty() && prefix.back() == '\n') prefix.pop_back();
  prefix = prefix.substr(prefix.rfind('\n') + 1);
  for (const char* app : {"lulesh", "hpcg", "minighost"}) {
    for (const char* toolchain : {"mpi", "mpich", "smpi"}) {
      const std::string dir = absl::StrCat(prefix, "/", app, "/", toolchain);
      ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
      int programs = 0;
      for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        programs += entry.is_regular_file() &&
                    (entry.status().permissions() & std::filesystem::perms::owner_exec) !=
                        std::filesystem::perms::none;
      }
      EXPECT_EQ(programs, 1) << dir;
    }
  }
}

TEST_P(AppsTest, RecordMapAndRunGiveTheSameTimesTwice) {
  const std::string app = GetParam();
  const Result first = RunApp(app, work_ + "/first.json");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  // The recorded graph has the job's 8 ranks.
  const std::string graph = ReadFile(work_ + "/" + app + "-8-small/graph.edgelist");
  EXPECT_THAT(graph, HasSubstr("# tasks: 8\n"));
  const nlohmann::json rows = nlohmann::json::parse(ReadFile(work_ + "/first.json"))["runs"];
  ASSERT_EQ(rows.size(), 4u) << rows.dump();
  const char* placements[] = {"in-order", "slurm", "scotch", "hopmap"};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(rows[i]["placement"], placements[i]);
    EXPECT_EQ(rows[i]["ranks"], 8);
    EXPECT_GT(rows[i]["run_time_s"].get<double>(), 0);
    EXPECT_GT(rows[i]["mpi_time_s"].get<double>(), 0);
    EXPECT_GT(rows[i]["compute_s"].get<double>(), 0);
    EXPECT_LT(rows[i]["mpi_time_s"].get<double>(), rows[i]["run_time_s"].get<double>());
  }
  // hopmap's placement is never worse than in-order's in hop-bytes.
  EXPECT_LE(rows[3]["hop_bytes"].get<int64_t>(), rows[0]["hop_bytes"].get<int64_t>());

  // The second run reuses the recording and the profile: the same doubles.
  const Result second = RunApp(app, work_ + "/second.json");
  ASSERT_EQ(second.exit_code, 0) << second.output;
  const nlohmann::json again = nlohmann::json::parse(ReadFile(work_ + "/second.json"))["runs"];
  ASSERT_EQ(again.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(again[i]["run_time_s"], rows[i]["run_time_s"]) << placements[i];
    EXPECT_EQ(again[i]["mpi_time_s"], rows[i]["mpi_time_s"]) << placements[i];
    EXPECT_EQ(again[i]["hop_bytes"], rows[i]["hop_bytes"]) << placements[i];
  }
}

INSTANTIATE_TEST_SUITE_P(Vendored, AppsTest, ::testing::Values("lulesh", "hpcg", "minighost"));

// The Open MPI build records the same job: the same ranks and the same messages.
TEST_F(AppsTest, OpenMpiRecordsTheSameGraphAsMpich) {
  const Result mpich = RunApp("lulesh", work_ + "/mpich.json", "mpich", " --placements in-order");
  ASSERT_EQ(mpich.exit_code, 0) << mpich.output;
  const std::string graph_path = work_ + "/lulesh-8-small/graph.edgelist";
  const std::string by_mpich = ReadFile(graph_path);
  std::filesystem::remove_all(work_ + "/lulesh-8-small");
  const Result openmpi =
      RunApp("lulesh", work_ + "/openmpi.json", "openmpi", " --placements in-order");
  ASSERT_EQ(openmpi.exit_code, 0) << openmpi.output;
  EXPECT_THAT(openmpi.output, HasSubstr("recording with Open MPI"));
  EXPECT_THAT(by_mpich, HasSubstr("# tasks: 8\n"));
  // The messages, not the header (which names the date and the program).
  auto messages = [](const std::string& text) {
    std::string kept;
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      if (!absl::StartsWith(line, "#")) absl::StrAppend(&kept, line, "\n");
    }
    return kept;
  };
  EXPECT_GT(messages(by_mpich).size(), 8u);
  EXPECT_EQ(messages(ReadFile(graph_path)), messages(by_mpich));
}

// The other objectives' placements run when asked for by name, after in-order; an
// unknown name is refused before anything runs.
TEST_F(AppsTest, OtherObjectivesRunOnRequest) {
  const Result run = RunApp("lulesh", work_ + "/objectives.json", "mpich",
                            " --placements hopmap-dilation,hopmap-congestion,hopmap-time");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json rows = nlohmann::json::parse(ReadFile(work_ + "/objectives.json"))["runs"];
  ASSERT_EQ(rows.size(), 4u) << rows.dump();
  const char* placements[] = {"in-order", "hopmap-congestion", "hopmap-dilation", "hopmap-time"};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(rows[i]["placement"], placements[i]);
    EXPECT_GT(rows[i]["run_time_s"].get<double>(), 0);
  }
  const Result unknown =
      RunApp("lulesh", work_ + "/unknown.json", "mpich", " --placements hopmap-speed");
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_THAT(unknown.output, HasSubstr("unknown placement 'hopmap-speed'"));
  EXPECT_THAT(unknown.output, HasSubstr("hopmap-dilation"));
}

TEST(AppsErrorsTest, AWrongRankCountNamesTheApplicationAndTheStep) {
  const Result lulesh = RunCommand("python3 " HOPMAP_SOURCE_DIR
                                   "/deploy/apps/run_app.py lulesh 10 --size small --machine "
                                   "torus:4x4x4 --hopmap " HOPMAP_CLI " --mpi-lib " HOPMAP_MPI_LIB);
  EXPECT_NE(lulesh.exit_code, 0);
  EXPECT_THAT(lulesh.output, HasSubstr("run_app: lulesh (arguments)"));
  const Result nodes =
      RunCommand("python3 " HOPMAP_SOURCE_DIR
                 "/deploy/apps/run_app.py hpcg 8 --size small --machine torus:4x4x4 "
                 "--nodes 0-3 --hopmap " HOPMAP_CLI " --mpi-lib " HOPMAP_MPI_LIB);
  EXPECT_NE(nodes.exit_code, 0);
  EXPECT_THAT(nodes.output, HasSubstr("run_app: hpcg (setup): --nodes must list 8 distinct nodes"));
}

}  // namespace
