// hopmap simulate end to end: the real binary, its SimGrid worker and smpirun.
#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/client/cli_test_util.h"
#include "tests/temp_path.h"

namespace hopmap {
namespace {

using ::hopmap::testing::FileSize;
using ::hopmap::testing::ReadFile;
using ::hopmap::testing::RunHopmap;
using ::hopmap::testing::WriteFile;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kTmp = hopmap::testing::TempFolder();

class SimulateCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // A periodic 8x8 halo exchange of 64 KiB and an answer for a 4x4x4 torus.
    ASSERT_EQ(RunHopmap("gen stencil2d-5 --dims 8x8 --wrap --bytes 65536 -o " + Graph()).exit_code,
              0);
    auto mapped = RunHopmap("map --local --machine torus:4x4x4 --graph " + Graph() + " -o " +
                            Answer() + " --seed 3");
    ASSERT_EQ(mapped.exit_code, 0) << mapped.err;
  }
  static std::string Graph() { return kTmp + "/simulate_halo.graph"; }
  static std::string Answer() { return kTmp + "/simulate_halo.json"; }
};

void ExpectOneLineError(const std::string& args, const std::string& message) {
  auto r = RunHopmap(args);
  EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.out;
  EXPECT_THAT(r.err, HasSubstr(message)) << args;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.out, "") << args;
}

TEST_F(SimulateCliTest, JsonListsInOrderFirstThenTheMappingsAsGiven) {
  // The answer twice, once as its perm: same placement, same time.
  const std::string perm = kTmp + "/simulate_halo.perm";
  nlohmann::json answer = nlohmann::json::parse(ReadFile(Answer()));
  std::string lines;
  for (const auto& slot : answer["slot_of_task"]) lines += std::to_string(slot.get<int>()) + "\n";
  WriteFile(perm, lines);
  auto r =
      RunHopmap("simulate --local --machine torus:4x4x4:link-bandwidth=1e9 --graph " + Graph() +
                " --mapping " + Answer() + " --mapping " + perm + " --iterations 4 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["machine"], "torus:4x4x4:cores=1:link-bandwidth=1e+09");
  EXPECT_EQ(j["link_bandwidth"], 1e9);
  EXPECT_EQ(j["link_latency"], 100e-9);
  EXPECT_EQ(j["iterations"], 4);
  EXPECT_EQ(j["flows_per_iteration"], 256);  // 64 tasks x 4 neighbours
  ASSERT_EQ(j["simulations"].size(), 3u);
  EXPECT_EQ(j["simulations"][0]["mapping"], "in-order");
  EXPECT_EQ(j["simulations"][1]["mapping"], Answer());
  EXPECT_EQ(j["simulations"][2]["mapping"], perm);
  const double in_order = j["simulations"][0]["time_s"];
  const double mapped = j["simulations"][1]["time_s"];
  EXPECT_GT(in_order, 0);
  EXPECT_LT(mapped, in_order);
  EXPECT_EQ(j["simulations"][2]["time_s"], mapped);
  EXPECT_DOUBLE_EQ(j["simulations"][1]["total_time_s"].get<double>(), 4 * mapped);
  EXPECT_DOUBLE_EQ(j["simulations"][1]["ratio_to_in_order"].get<double>(), mapped / in_order);
  EXPECT_EQ(j["simulations"][1]["hop_bytes"], answer["hop_bytes"]);
  const nlohmann::json& busiest = j["simulations"][0]["busiest_link"];
  EXPECT_GT(busiest["bytes"].get<double>(), 0);
  EXPECT_GT(busiest["share"].get<double>(), 0);
  EXPECT_LE(busiest["share"].get<double>(), 1.05);
}

// On a GPU cluster each placement's bytes are split by link class: a byte between
// two GPUs of one host counts once on NVLink, one between hosts of a leaf group
// once on each of the two rail bundles it crosses.
TEST_F(SimulateCliTest, AGpuClusterReportsBytesByLinkClass) {
  const std::string args =
      "simulate --local --machine dgx-h100-superpod --nodes dgx[000-007] "
      "--graph " +
      Graph();
  auto r = RunHopmap(args + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& by_class = j["simulations"][0]["link_class_bytes"];
  ASSERT_EQ(by_class.size(), 3u) << by_class;
  const double total = 64 * 4 * 65536.0;  // 8x8 periodic halo, 4 neighbours each
  EXPECT_GT(by_class["nvlink"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(by_class["nvlink"].get<double>() + by_class["rail"].get<double>() / 2, total);
  EXPECT_EQ(by_class["spine"].get<double>(), 0);  // one leaf group
  auto text = RunHopmap(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("bytes/iter by link class"));
  EXPECT_THAT(text.out, HasSubstr("nvlink "));
  // Machines whose links are all alike have none.
  auto torus =
      RunHopmap("simulate --local --machine torus:4x4x4 --graph " + Graph() + " --format json");
  ASSERT_EQ(torus.exit_code, 0) << torus.err;
  EXPECT_FALSE(nlohmann::json::parse(torus.out)["simulations"][0].contains("link_class_bytes"));
}

TEST_F(SimulateCliTest, TextAndBarsOfTheSameRun) {
  const std::string svg = kTmp + "/simulate_bars.svg";
  std::remove(svg.c_str());
  auto r = RunHopmap("simulate --local --machine torus:4x4x4 --graph " + Graph() + " --mapping " +
                     Answer() + " --pattern graph --pattern allgather:1024 --draw " + svg);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("traffic    graph + allgather:1024"));
  EXPECT_THAT(r.out, HasSubstr("\nin-order "));
  EXPECT_THAT(r.out, HasSubstr(Answer()));
  EXPECT_GT(FileSize(svg), 1000);
  const std::string picture = ReadFile(svg);
  EXPECT_THAT(picture, StartsWith("<?xml"));
  EXPECT_THAT(picture, HasSubstr("<svg"));
}

// The mapping column is as wide as its longest entry: with a long path, the
// numbers of every row still end where their headers do.
TEST_F(SimulateCliTest, TextTableFitsALongMappingPath) {
  const std::string dir = kTmp + "/simulate_answers_of_the_periodic_halo_exchange_on_4x4x4";
  mkdir(dir.c_str(), 0755);
  const std::string long_path = dir + "/answer_of_map_with_seed_3_and_the_default_budget.json";
  WriteFile(long_path, ReadFile(Answer()));
  auto r = RunHopmap("simulate --local --machine torus:4x4x4 --graph " + Graph() + " --mapping " +
                     long_path + " --mapping " + Answer());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = absl::StrSplit(r.out, '\n', absl::SkipEmpty());
  const auto header = std::find_if(
      lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("mapping ", 0) == 0; });
  ASSERT_NE(header, lines.end()) << r.out;
  ASSERT_EQ(lines.end() - header, 4) << r.out;  // the header, in-order and two mappings
  EXPECT_THAT(header[2], StartsWith(long_path + "  "));
  for (const char* column : {"time_s/iter", "vs in-order", "hop_bytes"}) {
    const size_t end = header->find(column) + std::string(column).size();
    for (int row = 1; row <= 3; ++row) {
      const std::string& line = header[row];
      ASSERT_GT(line.size(), end) << line;
      EXPECT_TRUE(absl::ascii_isdigit(line[end - 1])) << column << " of: " << line;
      EXPECT_EQ(line[end], ' ') << column << " of: " << line;
    }
  }
  const size_t busiest = header->find("busiest link");
  for (int row = 1; row <= 3; ++row) {
    EXPECT_EQ(header[row].substr(busiest - 2, 2), "  ") << header[row];
    EXPECT_NE(header[row][busiest], ' ') << header[row];
  }
}

TEST_F(SimulateCliTest, AnMpiProgramRunsUnderSmpiPerPlacement) {
  auto r = RunHopmap("simulate --local --machine torus:4x4x4 --graph " + Graph() + " --mapping " +
                     Answer() + " --format json --mpi " + HOPMAP_HALO2D +
                     " --mpi-arg 8 --mpi-arg 8 --mpi-arg 65536 --mpi-arg 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["simulations"].size(), 2u);
  EXPECT_EQ(j["simulations"][0]["mapping"], "in-order");
  EXPECT_GT(j["simulations"][0]["time_s"].get<double>(), 0);
  EXPECT_LT(j["simulations"][1]["time_s"].get<double>(),
            j["simulations"][0]["time_s"].get<double>());
  EXPECT_EQ(j["patterns"], nlohmann::json({"halo2d", "8", "8", "65536", "2"}));
}

TEST_F(SimulateCliTest, SmpiSettingsReachSmpirun) {
  const std::string run = "simulate --local --machine torus:4x4x4 --graph " + Graph() +
                          " --format json --mpi " + HOPMAP_HALO2D +
                          " --mpi-arg 8 --mpi-arg 8 --mpi-arg 65536 --mpi-arg 2";
  auto plain = RunHopmap(run);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  // SMPI's bandwidth factor at 0.1 for every message size: each transfer is slower.
  auto slow = RunHopmap(run + " --smpi-cfg smpi/bw-factor:0:0.1");
  ASSERT_EQ(slow.exit_code, 0) << slow.err;
  const double plain_s = nlohmann::json::parse(plain.out)["simulations"][0]["time_s"];
  const double slow_s = nlohmann::json::parse(slow.out)["simulations"][0]["time_s"];
  EXPECT_GT(slow_s, plain_s * 2);
  ExpectOneLineError(run + " --smpi-cfg smpi/coll-selector", "--smpi-cfg: expected KEY:VALUE");
  ExpectOneLineError(run + " --smpi-cfg smpi/no-such-setting:1", "no-such-setting");
  ExpectOneLineError("simulate --local --machine torus:4x4x4 --graph " + Graph() +
                         " --smpi-cfg smpi/coll-selector:ompi",
                     "--smpi-cfg goes with --mpi PROGRAM");
}

TEST_F(SimulateCliTest, BadInputGetsOneLine) {
  const std::string base = "simulate --local --graph " + Graph() + " ";
  const std::string short_perm = kTmp + "/simulate_short.perm";
  WriteFile(short_perm, "0\n1\n");
  ExpectOneLineError(base + "--machine torus:4x4x4 --mapping " + short_perm,
                     "--mapping: " + short_perm + ":");
  ExpectOneLineError(base + "--machine torus:4x4x4 --mapping " + kTmp + "/no-such.perm",
                     "no-such.perm");
  const std::string matrix = kTmp + "/simulate_hops.txt";
  std::string rows;
  for (int i = 0; i < 64; ++i) {
    for (int j = 0; j < 64; ++j) {
      rows.push_back(i == j ? '0' : '1');
      rows.push_back(j == 63 ? '\n' : ' ');
    }
  }
  WriteFile(matrix, rows);
  ExpectOneLineError(base + "--machine matrix:" + matrix,
                     "has no links (an explicit hop matrix): there is no network to simulate");
  ExpectOneLineError(base + "--machine torus:4x4x4:link-bandwidth=0",
                     "link-bandwidth= must be a number from 1000 to 1e+14 (bytes/s), got '0'");
  ExpectOneLineError(base + "--machine torus:4x4x4:link-latency=5",
                     "link-latency= must be a number from 0 to 1 (seconds), got '5'");
  ExpectOneLineError(base + "--machine torus:4x4x4 --pattern bcast:8",
                     "--pattern: pattern 'bcast:8': use graph, allgather:BYTES, alltoall:BYTES, "
                     "ring-allreduce:BYTES, tree-allreduce:BYTES or training:SPEC");
  ExpectOneLineError(base + "--machine torus:4x4x4 --iterations 0",
                     "--iterations: must be 1 to 1000, got 0");
  ExpectOneLineError(base + "--machine torus:4x4x4 --format xml", "--format: unknown format 'xml'");
  ExpectOneLineError(base + "--machine torus:4x4x4 --mpi " + kTmp + "/none",
                     "none: not an executable program");
}

TEST_F(SimulateCliTest, HelpSaysWhatItDoes) {
  auto r = RunHopmap("simulate --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("SimGrid"));
  EXPECT_THAT(r.out, HasSubstr("--mapping"));
  EXPECT_THAT(r.out, HasSubstr("--pattern"));
  EXPECT_THAT(r.out, HasSubstr("--mpi"));
}

}  // namespace
}  // namespace hopmap
