// hopmapd's Simulate: the same answer through the daemon as in this process, and
// its errors named by the proto field.
#include <dirent.h>

#include <chrono>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/client/cli_test_util.h"
#include "tests/integration/daemon_test_util.h"
#include "tests/temp_path.h"

namespace hopmap::testing {
namespace {

using ::testing::HasSubstr;

TEST(SimulateIntegrationTest, TheDaemonPredictsWhatTheLocalRunPredicts) {
  const std::string dir = hopmap::testing::TempFolder();
  const std::string graph = dir + "/simulate_daemon.graph";
  const std::string answer = dir + "/simulate_daemon.json";
  ASSERT_EQ(RunHopmap("gen stencil3d-7 --dims 4x4x4 --wrap --bytes 4096 -o " + graph).exit_code, 0);
  ASSERT_EQ(
      RunHopmap("map --local --machine bgp-8x8x8 --nodes 0-15 --graph " + graph + " -o " + answer)
          .exit_code,
      0);
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({}, TempPath("simulate_daemon.log"))) << daemon.error();
  const std::string args = "simulate --machine bgp-8x8x8 --nodes 0-15 --graph " + graph +
                           " --mapping " + answer + " --pattern graph --pattern alltoall:512" +
                           " --iterations 2 --format json";
  RunResult local = RunHopmap(args + " --local");
  RunResult remote = RunHopmap(args + " --server " + daemon.address());
  ASSERT_EQ(local.exit_code, 0) << local.err;
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  nlohmann::json l = nlohmann::json::parse(local.out);
  nlohmann::json r = nlohmann::json::parse(remote.out);
  ASSERT_EQ(r["simulations"].size(), 2u);
  EXPECT_EQ(r["machine"], l["machine"]);
  EXPECT_EQ(r["hosts"], 16);
  EXPECT_EQ(r["patterns"], l["patterns"]);
  EXPECT_EQ(r["flows_per_iteration"], l["flows_per_iteration"]);
  for (size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r["simulations"][i]["mapping"], l["simulations"][i]["mapping"]);
    // Deterministic: the very same doubles.
    EXPECT_EQ(r["simulations"][i]["time_s"], l["simulations"][i]["time_s"]);
    EXPECT_EQ(r["simulations"][i]["busiest_link"], l["simulations"][i]["busiest_link"]);
    EXPECT_EQ(r["simulations"][i]["hop_bytes"], l["simulations"][i]["hop_bytes"]);
  }

  // Errors come back as one line naming the field.
  const std::string wrong = dir + "/simulate_daemon_wrong.perm";
  WriteFile(wrong, "0\n0\n");
  RunResult bad = RunHopmap("simulate --machine bgp-8x8x8 --nodes 0-15 --graph " + graph +
                            " --mapping " + wrong + " --server " + daemon.address());
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("mappings: " + wrong + ":"));
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  RunResult mpi = RunHopmap("simulate --machine bgp-8x8x8 --graph " + graph +
                            " --mpi /bin/true --server " + daemon.address());
  EXPECT_EQ(mpi.exit_code, 1);
  EXPECT_THAT(mpi.err, HasSubstr("use it with --local, not --server"));
}

TEST(SimulateIntegrationTest, TheDaemonSplitsBytesByLinkClassAsTheLocalRun) {
  const std::string graph = hopmap::testing::TempPath("simulate_daemon_gpu.graph");
  ASSERT_EQ(RunHopmap("gen stencil2d-5 --dims 8x8 --bytes 4096 -o " + graph).exit_code, 0);
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({}, TempPath("simulate_daemon_gpu.log"))) << daemon.error();
  const std::string args = "simulate --machine gb200-nvl72-pod --nodes tray[000-015] --graph " +
                           graph + " --format json";
  RunResult local = RunHopmap(args + " --local");
  RunResult remote = RunHopmap(args + " --server " + daemon.address());
  ASSERT_EQ(local.exit_code, 0) << local.err;
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  nlohmann::json l = nlohmann::json::parse(local.out);
  nlohmann::json r = nlohmann::json::parse(remote.out);
  ASSERT_TRUE(l["simulations"][0].contains("link_class_bytes"));
  EXPECT_EQ(r["simulations"][0]["link_class_bytes"], l["simulations"][0]["link_class_bytes"]);
  EXPECT_EQ(r["simulations"][0]["time_s"], l["simulations"][0]["time_s"]);
}

// The daemon's children now (every thread's /proc children list).
std::vector<std::string> ChildrenOf(pid_t pid) {
  std::vector<std::string> children;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = opendir(tasks.c_str());
  if (dir == nullptr) return children;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream in(tasks + "/" + e->d_name + "/children");
    std::string child;
    while (in >> child) children.push_back(child);
  }
  closedir(dir);
  return children;
}

TEST(SimulateIntegrationTest, AnExpiredCallKillsItsWorkers) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({}, TempPath("simulate_deadline.log"))) << daemon.error();
  std::unique_ptr<client::HopmapClient> client = ConnectTo(daemon);
  ASSERT_NE(client, nullptr);
  // A random placement of a 16x8x8 halo on its torus: every link shared, about half
  // a minute of SimGrid on this machine's cores.
  GeneratorOptions halo;
  halo.kind = "stencil3d-7";
  halo.dims = {16, 8, 8};
  halo.wrap = true;
  halo.bytes = 65536;
  const TaskGraph graph = *GenerateGraph(halo);
  v1::SimulateRequest request;
  request.mutable_machine()->set_spec("torus:16x8x8");
  TaskGraphToProto(graph, request.mutable_graph());
  std::vector<int32_t> shuffled(graph.num_tasks());
  std::iota(shuffled.begin(), shuffled.end(), 0);
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(5));
  v1::SimulatedMapping* mapping = request.add_mappings();
  mapping->set_name("shuffled");
  mapping->mutable_slot_of_task()->Assign(shuffled.begin(), shuffled.end());
  absl::StatusOr<SimulationReport> report = client->Simulate(request, /*deadline_seconds=*/2);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kDeadlineExceeded) << report.status();
  // Its workers go within a second or so of the deadline.
  std::vector<std::string> children = ChildrenOf(daemon.pid());
  for (int i = 0; i < 100 && !children.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    children = ChildrenOf(daemon.pid());
  }
  EXPECT_TRUE(children.empty()) << children.size() << " children left, the first " << children[0];
  // And the daemon still answers.
  v1::SimulateRequest small;
  small.mutable_machine()->set_spec("torus:4x4");
  TaskGraphToProto(Stencil({4, 4}), small.mutable_graph());
  absl::StatusOr<SimulationReport> ok = client->Simulate(small, 30);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->simulations.size(), 1u);
}

}  // namespace
}  // namespace hopmap::testing
