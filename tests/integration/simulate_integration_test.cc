// hopmapd's Simulate: the same answer through the daemon as in this process, and
// its errors named by the proto field.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/client/cli_test_util.h"
#include "tests/integration/daemon_test_util.h"

namespace hopmap::testing {
namespace {

using ::testing::HasSubstr;

TEST(SimulateIntegrationTest, TheDaemonPredictsWhatTheLocalRunPredicts) {
  const std::string dir = ::testing::TempDir();
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

}  // namespace
}  // namespace hopmap::testing
