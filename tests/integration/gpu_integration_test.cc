// A GPU cluster read from a file (gpu-k8s:, gpu-slurm:) through hopmapd: the client
// sends the cluster its spec options chose (Machine.gpu_cluster), and the daemon
// answers what the local run answers.
#include <string>

#include "absl/strings/str_cat.h"
#include "client/lib/hopmap_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proto/convert/convert.h"
#include "tests/client/cli_test_util.h"
#include "tests/integration/daemon_process.h"
#include "tests/integration/daemon_test_util.h"

namespace hopmap::testing {
namespace {

using ::testing::HasSubstr;

// 8 hosts of 4 GPUs in two blocks (leaf groups); the sub-blocks as NVLink domains;
// half the leaves' capacity up to the spine.
const std::string kK8sCluster =
    absl::StrCat("gpu-k8s:", HOPMAP_DATA_DIR,
                 "/gpu/kubectl_nodes.json:sub-block-label=cloud.google.com/gce-topology-subblock");
constexpr char kOversubscribed[] = ":oversubscription=2";
constexpr char kJob[] = "tp=4,pp=2,dp=4";

TEST(GpuIntegrationTest, AFileReadClusterAnswersAsLocally) {
  const std::string graph = TempPath("gpu_training.graph");
  RunResult gen = RunHopmap(absl::StrCat("gen training --job ", kJob, " -o ", graph));
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({}, TempPath("gpu.log"))) << daemon.error();
  const std::string machine = kK8sCluster + kOversubscribed;
  const std::string server = " --server " + daemon.address();

  // map: the same answer (capped searches: both end on the same work), and the same
  // torchrun file (hosts of whole blocks of 4 ranks, as torchrun numbers them).
  const std::string map = "map --machine " + machine + " --graph " + graph +
                          " --threads 2 --time-limit 120 --iterations 10";
  RunResult local = RunHopmap(map + " --local");
  RunResult remote = RunHopmap(map + server + " --quiet");
  ASSERT_EQ(local.exit_code, 0) << local.err;
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  EXPECT_EQ(WithoutTimes(nlohmann::json::parse(local.out)),
            WithoutTimes(nlohmann::json::parse(remote.out)));
  RunResult local_tr = RunHopmap(map + " --keep-blocks 4 --local --format torchrun -q");
  RunResult remote_tr = RunHopmap(map + " --keep-blocks 4" + server + " --format torchrun -q");
  ASSERT_EQ(local_tr.exit_code, 0) << local_tr.err;
  EXPECT_EQ(local_tr.out, remote_tr.out);

  // simulate: the very same JSON (deterministic), the training step's phases included.
  const std::string simulate = absl::StrCat(
      " --graph ", graph, " --pattern graph --pattern training:", kJob, " --format json");
  local = RunHopmap("simulate --machine " + machine + simulate + " --local");
  remote = RunHopmap("simulate --machine " + machine + simulate + server);
  ASSERT_EQ(local.exit_code, 0) << local.err;
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  EXPECT_EQ(nlohmann::json::parse(remote.out), nlohmann::json::parse(local.out));
  // The options reached the daemon: without oversubscription= the spine is faster.
  RunResult full = RunHopmap("simulate --machine " + kK8sCluster + simulate + server);
  ASSERT_EQ(full.exit_code, 0) << full.err;
  EXPECT_NE(nlohmann::json::parse(full.out)["simulations"][0]["time_s"],
            nlohmann::json::parse(remote.out)["simulations"][0]["time_s"]);
}

TEST(GpuIntegrationTest, ABadClusterFieldIsNamed) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({}, TempPath("gpu_bad.log"))) << daemon.error();
  std::unique_ptr<client::HopmapClient> client = ConnectTo(daemon);
  ASSERT_NE(client, nullptr);
  v1::MapRequest request = Request("", Stencil({4, 4}));
  v1::GpuCluster* cluster = request.mutable_machine()->mutable_gpu_cluster();
  for (const char* host : {"h0", "h1", "h2", "h3"}) cluster->add_host_names(host);
  cluster->set_gpus_per_host(4);
  for (int leaf : {0, 0, 1, 1}) cluster->add_leaf_of_host(leaf);
  ASSERT_TRUE(client->Map(request).ok());
  cluster->add_leaf_of_host(1);
  absl::StatusOr<MappingReport> refused = client->Map(request);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("machine.gpu_cluster.leaf_of_host: leaf_of_host has 5 entries for 4 "
                        "hosts"));
}

}  // namespace
}  // namespace hopmap::testing
