// hopmap map --draw and hopmap draw through a real hopmapd, on a machine that only
// the daemon's catalog knows (the CLI fetches it to draw).
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "client/lib/hopmap_client.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/client/cli_test_util.h"
#include "tests/integration/daemon_process.h"
#include "tests/temp_path.h"

namespace hopmap {
namespace {

using ::hopmap::testing::DaemonProcess;
using ::hopmap::testing::FileSize;
using ::hopmap::testing::RunHopmap;
using ::testing::HasSubstr;

TEST(DrawDaemonTest, DrawsOnAMachineOnlyTheDaemonKnows) {
  const std::string dir = hopmap::testing::TempFolder();
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({"--state-dir", dir + "/state", "--admin-token", "secret"},
                           dir + "/hopmapd.log"))
      << daemon.error();
  v1::Machine machine;
  machine.set_name("lab-torus");
  machine.set_cores_per_node(2);
  for (int d : {4, 4, 4}) machine.mutable_torus()->add_dims(d);
  client::ConnectOptions options;
  options.address = daemon.address();
  options.token = "secret";
  options.connect_timeout_seconds = 30;
  absl::StatusOr<std::unique_ptr<client::HopmapClient>> admin =
      client::HopmapClient::Connect(options);
  ASSERT_TRUE(admin.ok()) << admin.status();
  ASSERT_TRUE((*admin)->PutMachine(machine).ok());

  const std::string graph = dir + "/halo.mtx";
  ASSERT_EQ(RunHopmap("gen stencil2d-5 --dims 16x8 -o " + graph).exit_code, 0);
  const std::string server =
      " --server " + daemon.address() + " --machine lab-torus --graph " + graph;
  const std::string perm = dir + "/answer.perm";
  const std::string answer_png = dir + "/answer.png";
  const auto map = RunHopmap("map" + server + " -q --format perm -o " + perm + " --draw " +
                             answer_png + " --draw-what links");
  ASSERT_EQ(map.exit_code, 0) << map.err;
  EXPECT_GT(FileSize(answer_png), 1000);
  const std::string svg = dir + "/compare.svg";
  const auto draw = RunHopmap("draw" + server + " --mapping " + perm + " --what compare -o " + svg);
  ASSERT_EQ(draw.exit_code, 0) << draw.err;
  EXPECT_GT(FileSize(svg), 1000);
  // Here the name means nothing: the error says so in one line.
  const auto local = RunHopmap("draw --local --machine lab-torus --graph " + graph + " --mapping " +
                               perm + " -o " + dir + "/x.svg");
  EXPECT_EQ(local.exit_code, 1);
  EXPECT_THAT(local.err, HasSubstr("lab-torus"));
  EXPECT_EQ(FileSize(dir + "/x.svg"), -1);
}

}  // namespace
}  // namespace hopmap
