// What a site scripts around: listings in JSON (locally and through a real hopmapd),
// errors that stay on one line whatever bytes a file held, and hopmapd's JSON log.
#include <algorithm>
#include <csignal>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/client/cli_test_util.h"
#include "tests/integration/daemon_test_util.h"

namespace hopmap::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

nlohmann::json ParseOrFail(const RunResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  return j;
}

const nlohmann::json* Named(const nlohmann::json& list, const std::string& name) {
  for (const nlohmann::json& entry : list) {
    if (entry.value("name", "") == name) return &entry;
  }
  return nullptr;
}

TEST(ListingsTest, MachinesAndAlgorithmsInJsonLocallyAndThroughTheDaemon) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({}, TempPath("listings.log"))) << daemon.error();
  const std::string server = " --server " + daemon.address();

  for (const std::string& where : {std::string(" --local"), server}) {
    SCOPED_TRACE(where);
    nlohmann::json machines = ParseOrFail(RunHopmap("machines --format json" + where));
    ASSERT_TRUE(machines["machines"].is_array());
    const nlohmann::json* bgp = Named(machines["machines"], "bgp-8x8x8");
    ASSERT_NE(bgp, nullptr);
    EXPECT_EQ((*bgp)["spec"], "torus:8x8x8:cores=4:link-bandwidth=4.25e+08:link-latency=1e-07");
    EXPECT_EQ((*bgp)["nodes"], 512);
    EXPECT_EQ((*bgp)["cores_per_node"], 4);
    EXPECT_EQ((*bgp)["origin"], "builtin");

    nlohmann::json one = ParseOrFail(RunHopmap("machines bgp-8x8x8 --format json" + where));
    EXPECT_EQ(one["kind"], "torus");
    EXPECT_EQ(one["nodes"], 512);
    EXPECT_EQ(one["dims"], nlohmann::json({8, 8, 8}));
    EXPECT_EQ(one["diameter_hops"], 12);

    nlohmann::json algorithms = ParseOrFail(RunHopmap("algorithms --format json" + where));
    const nlohmann::json& list = algorithms["algorithms"];
    ASSERT_TRUE(list.is_array());
    const std::vector<std::pair<std::string, std::string>> expected = {{"auto", "any-graph"},
                                                                       {"fold", "grid"},
                                                                       {"mxovlp", "grid2d-on-mesh"},
                                                                       {"partition", "balance"}};
    for (const auto& [name, applies_to] : expected) {
      const nlohmann::json* a = Named(list, name);
      ASSERT_NE(a, nullptr) << name;
      EXPECT_EQ((*a)["applies_to"], applies_to) << name;
      EXPECT_EQ((*a)["kind"], applies_to == "balance" ? "balancer" : "mapper") << name;
      EXPECT_FALSE((*a)["description"].get<std::string>().empty()) << name;
    }
  }
  // The daemon knows exactly what this hopmap knows (the same build).
  EXPECT_EQ(RunHopmap("algorithms --format json --local").out,
            RunHopmap("algorithms --format json" + server).out);
  EXPECT_EQ(RunHopmap("algorithms --local").out, RunHopmap("algorithms" + server).out);

  // The machines the same way: listing (order, columns) and one machine, text and JSON.
  for (const std::string& command :
       {std::string("machines"), std::string("machines --format json"),
        std::string("machines bgp-8x8x8"), std::string("machines bgp-8x8x8 --format json"),
        std::string("machines torus:4x4:cores=2 --format json")}) {
    SCOPED_TRACE(command);
    const RunResult local = RunHopmap(command + " --local");
    EXPECT_EQ(local.exit_code, 0) << local.err;
    EXPECT_EQ(local.out, RunHopmap(command + server).out);
  }
  EXPECT_THAT(RunHopmap("machines bgp-8x8x8 --local").out,
              HasSubstr("description  Blue Gene/P 512-node partition"));

  RunResult bad = RunHopmap("machines --format yaml --local");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("--format: unknown format 'yaml' (known: text, json)"));
  EXPECT_EQ(daemon.Signal(SIGTERM), 0);
}

// A damaged file's control byte is shown as \x0b, not written raw: the error stays
// one line, locally and when the daemon's message carries it.
// A threshold of 0 keeps every edge through the daemon too (it once read 0 as unset
// and analysed with the default 0.2): a stencil with light extra edges is no
// stencil once they count.
TEST(ListingsTest, AnalyzeWithThresholdZeroAnswersAlikeLocallyAndThroughTheDaemon) {
  std::string edges = "# tasks: 64\n";
  for (int t = 0; t < 64; ++t) {
    if (t % 8 != 7) edges += std::to_string(t) + " " + std::to_string(t + 1) + " 2048\n";
    if (t < 56) edges += std::to_string(t) + " " + std::to_string(t + 8) + " 2048\n";
  }
  for (int t = 0; t <= 20; ++t)
    edges += std::to_string(t) + " " + std::to_string(63 - t) + " 100\n";
  const std::string graph = TempPath("noisy-stencil.edgelist");
  WriteFile(graph, edges);
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({}, TempPath("analyze.log"))) << daemon.error();
  for (const std::string threshold : {"0", "0.2"}) {
    SCOPED_TRACE(threshold);
    const std::string command =
        "analyze --graph " + graph + " --threshold " + threshold + " --format json";
    const RunResult local = RunHopmap(command + " --local");
    EXPECT_EQ(local.out, RunHopmap(command + " --server " + daemon.address()).out);
    EXPECT_EQ(ParseOrFail(local)["pattern"],
              threshold == std::string("0") ? "none" : "stencil2d-5");
  }
}

TEST(ErrorsTest, ControlCharactersInAQuotedTokenAreEscaped) {
  const std::string graph = TempPath("damaged.edgelist");
  WriteFile(graph,
            "0 1 5\n1 2\x0b"
            "3 7\n");
  RunResult local = RunHopmap("map --local --machine torus:2x2 --graph " + graph);
  EXPECT_EQ(local.exit_code, 1);
  EXPECT_THAT(local.err, HasSubstr("\\x0b"));
  EXPECT_THAT(local.err, Not(HasSubstr("\x0b")));
  EXPECT_EQ(std::count(local.err.begin(), local.err.end(), '\n'), 1) << local.err;

  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({}, TempPath("escape.log"))) << daemon.error();
  // A machine name with a control byte reaches the daemon and comes back in its
  // message (NOT_FOUND); the client prints it escaped on one line.
  // (The shell is sh: printf makes the byte.)
  RunResult remote = RunHopmap("machines \"$(printf 'no\\013such')\" --server " + daemon.address());
  EXPECT_EQ(remote.exit_code, 1);
  EXPECT_THAT(remote.err, HasSubstr("no\\x0bsuch"));
  EXPECT_THAT(remote.err, Not(HasSubstr("\x0b")));
  EXPECT_EQ(std::count(remote.err.begin(), remote.err.end(), '\n'), 1) << remote.err;
  EXPECT_EQ(daemon.Signal(SIGTERM), 0);
  std::ifstream log(TempPath("escape.log"));
  std::stringstream text;
  text << log.rdbuf();
  EXPECT_THAT(text.str(), Not(HasSubstr("\x0b")));
}

TEST(DaemonLogTest, JsonLogHasOneObjectPerRequest) {
  const std::string log_path = TempPath("json.log");
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start({"--log-format", "json"}, log_path)) << daemon.error();
  auto client = ConnectTo(daemon);
  ASSERT_NE(client, nullptr);
  absl::StatusOr<MappingReport> ok = client->Map(Request("bgp-8x8x8", Stencil({8, 8}), "gge"));
  ASSERT_TRUE(ok.ok()) << ok.status();
  absl::StatusOr<MappingReport> missing = client->Map(Request("no-such", Stencil({8, 8})));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(daemon.Signal(SIGTERM), 0);

  std::ifstream log(log_path);
  std::string line;
  std::vector<nlohmann::json> requests;
  while (std::getline(log, line)) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_discarded() && j.contains("method")) requests.push_back(j);
  }
  ASSERT_EQ(requests.size(), 2u);
  const nlohmann::json& first = requests[0];
  EXPECT_EQ(first["method"], "Map");
  EXPECT_EQ(first["status"], "OK");
  EXPECT_EQ(first["machine"], "bgp-8x8x8");
  EXPECT_EQ(first["tasks"], 64);
  EXPECT_EQ(first["algorithm"], "gge");
  EXPECT_EQ(first["hop_bytes"], ok->hop_bytes);
  EXPECT_DOUBLE_EQ(first["improvement"].get<double>(), ok->improvement);
  EXPECT_TRUE(first["seconds"].is_number());
  EXPECT_THAT(first["peer"].get<std::string>(), HasSubstr("127.0.0.1"));
  EXPECT_THAT(first["time"].get<std::string>(),
              ::testing::MatchesRegex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z"));
  EXPECT_FALSE(first.contains("error"));
  const nlohmann::json& second = requests[1];
  EXPECT_EQ(second["status"], "NOT_FOUND");
  EXPECT_TRUE(second["hop_bytes"].is_null());
  EXPECT_THAT(second["error"].get<std::string>(), HasSubstr("no-such"));
}

}  // namespace
}  // namespace hopmap::testing
