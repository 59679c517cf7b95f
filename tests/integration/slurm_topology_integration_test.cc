// slurm-topology:FILE[:NAME] through hopmapd: the client sends the switch graph (tree,
// blocks, rings) with its host names, or the torus as its grid with the job's nodes
// as ids, and the daemon answers what the local run answers.
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/client/cli_test_util.h"
#include "tests/integration/daemon_process.h"
#include "tests/integration/daemon_test_util.h"

namespace hopmap::testing {
namespace {

using ::testing::HasSubstr;

const std::string kSpec = absl::StrCat("slurm-topology:", HOPMAP_DATA_DIR, "/slurm/topology.yaml");

TEST(SlurmTopologyIntegrationTest, EveryPluginAnswersAsLocally) {
  const std::string graph = TempPath("slurm_topology.edgelist");
  RunResult gen = RunHopmap("gen random-geometric --tasks 24 --seed 5 -o " + graph);
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({}, TempPath("slurm_topology.log"))) << daemon.error();
  const std::string server = " --server " + daemon.address();
  // A job of 12 hosts as Slurm would name them, out of order; and a torus whose
  // cells are not all filled, without a node list (its 12 hosts).
  const std::string job = " --nodes node[07-12],node[01-06]";
  for (const std::string& machine :
       {kSpec + ":fabric" + job, kSpec + ":racks:link-bandwidth=5e9" + job, kSpec + ":rings" + job,
        kSpec + ":torus:cores=2" + job, kSpec + ":torus-partial"}) {
    SCOPED_TRACE(machine);
    const std::string map = "map --machine " + machine + " --cores 2 --graph " + graph +
                            " --threads 2 --time-limit 120 --iterations 10";
    RunResult local = RunHopmap(map + " --local");
    RunResult remote = RunHopmap(map + server + " --quiet");
    ASSERT_EQ(local.exit_code, 0) << local.err;
    ASSERT_EQ(remote.exit_code, 0) << remote.err;
    const nlohmann::json answer = nlohmann::json::parse(local.out);
    EXPECT_EQ(WithoutTimes(nlohmann::json::parse(remote.out)), WithoutTimes(answer));
    EXPECT_EQ(answer["nodes"], 12);
    RunResult local_hosts = RunHopmap(map + " --local --format hostfile -q");
    RunResult remote_hosts = RunHopmap(map + server + " --format hostfile -q");
    ASSERT_EQ(remote_hosts.exit_code, 0) << remote_hosts.err;
    EXPECT_EQ(remote_hosts.out, local_hosts.out);
    EXPECT_THAT(remote_hosts.out, HasSubstr("node01\n"));
    // eval of that answer agrees too.
    const std::string answer_file = TempPath("slurm_topology_answer.json");
    WriteFile(answer_file, local.out);
    const std::string eval =
        "eval --machine " + machine + " --cores 2 --graph " + graph + " --mapping " + answer_file;
    RunResult local_eval = RunHopmap(eval + " --local");
    RunResult remote_eval = RunHopmap(eval + server);
    ASSERT_EQ(remote_eval.exit_code, 0) << remote_eval.err;
    EXPECT_EQ(nlohmann::json::parse(remote_eval.out)["hop_bytes"],
              nlohmann::json::parse(local_eval.out)["hop_bytes"]);
  }
}

TEST(SlurmTopologyIntegrationTest, ANodeInteriorCannotGoWithASwitchGraph) {
  const std::string graph = TempPath("slurm_topology_small.edgelist");
  ASSERT_EQ(RunHopmap("gen random-geometric --tasks 8 --seed 5 -o " + graph).exit_code, 0);
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({}, TempPath("slurm_topology_node.log"))) << daemon.error();
  RunResult r = RunHopmap("map --machine " + kSpec + ":racks:node=2x2 --graph " + graph +
                          " --server " + daemon.address());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("node= cannot travel to hopmapd with a switch graph"));
  // On a torus it travels in the grid's spec.
  r = RunHopmap("map --machine " + kSpec + ":torus:node=2x2 --graph " + graph + " --server " +
                daemon.address() + " --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace hopmap::testing
