// Machines with levels inside their nodes (node=) through hopmapd: the daemon gives
// the same mapping and the same node and full costs as a local run.
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/client/cli_test_util.h"
#include "tests/integration/daemon_test_util.h"
#include "tests/temp_path.h"

namespace hopmap::testing {
namespace {

TEST(NodeLevelsIntegrationTest, TheDaemonReportsTheCostsInsideTheNodes) {
  const std::string graph = hopmap::testing::TempPath("node_levels_daemon.graph");
  ASSERT_EQ(RunHopmap("gen stencil3d-7 --dims 8x8x4 --wrap --bytes 1024 -o " + graph).exit_code, 0);
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({}, TempPath("node_levels_daemon.log"))) << daemon.error();
  const std::string args = "map --machine torus:2x2:node=4x4x4:node-distances=1,5,20 --graph " +
                           graph + " --seed 1 --iterations 200";
  RunResult local = RunHopmap(args + " --local -q");
  RunResult remote = RunHopmap(args + " --server " + daemon.address() + " -q");
  ASSERT_EQ(local.exit_code, 0) << local.err;
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  nlohmann::json l = nlohmann::json::parse(local.out);
  nlohmann::json r = nlohmann::json::parse(remote.out);
  EXPECT_EQ(r["slot_of_task"], l["slot_of_task"]);
  ASSERT_TRUE(r["node_cost"].is_object()) << remote.out;
  EXPECT_EQ(r["node_cost"], l["node_cost"]);
  const int64_t hop_cost = r["node_cost"]["hop_cost"];
  EXPECT_EQ(hop_cost, 200);
  EXPECT_EQ(r["node_cost"]["full_cost"].get<int64_t>(),
            hop_cost * r["hop_bytes"].get<int64_t>() + r["node_cost"]["node_cost"].get<int64_t>());
  EXPECT_LT(r["node_cost"]["full_cost"].get<int64_t>(),
            r["node_cost"]["baseline_full_cost"].get<int64_t>());
}

}  // namespace
}  // namespace hopmap::testing
