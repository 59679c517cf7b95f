// hopmap map/eval with load balancing (issue 17): real files in, the report out.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "nlohmann/json.hpp"
#include "tests/client/cli_test_util.h"
#include "tests/temp_path.h"

namespace hopmap {
namespace {

using ::hopmap::testing::ReadFile;
using ::hopmap::testing::RunHopmap;
using ::hopmap::testing::WriteFile;
using ::testing::HasSubstr;

const std::string kTmp = hopmap::testing::TempFolder();

// lulesh's 64 ranks, each overloaded 4x on ranks 0..7.
std::string LoadsFile() {
  std::string text = "# lulesh loads\n";
  for (int t = 0; t < 64; ++t) absl::StrAppend(&text, t < 8 ? "4\n" : "1\n");
  const std::string path = kTmp + "/balance_loads.txt";
  WriteFile(path, text);
  return path;
}

const std::string kProblem = "--local --machine torus:2x2x2:cores=2 --graph " +
                             std::string(HOPMAP_DATA_DIR) + "/commgraphs/cnca_lulesh_64.edgelist";

TEST(BalanceCliTest, MapsObjectsManyPerSlotWithinTheCap) {
  const std::string loads = LoadsFile();
  const auto r = RunHopmap("map " + kProblem + " --loads " + loads + " --imbalance 0.1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("balance"));
  const auto& b = j["balance"];
  EXPECT_TRUE(b["balanced"].get<bool>()) << b["note"];
  EXPECT_DOUBLE_EQ(b["total_load"].get<double>(), 8 * 4 + 56);
  EXPECT_DOUBLE_EQ(b["avg_load"].get<double>(), 88.0 / 16);
  // Whole loads: the cap is ceil(1.1 x 5.5) = 7.
  EXPECT_DOUBLE_EQ(b["requested_cap"].get<double>(), 7.0);
  EXPECT_LE(b["max_load"].get<double>(), 7.0);
  EXPECT_EQ(b["load_of_slot"].size(), 16u);
  EXPECT_EQ(j["slot_of_task"].size(), 64u);
  EXPECT_EQ(j["lower_bound_method"], "degree-loads");
  EXPECT_LE(j["lower_bound"].get<int64_t>(), j["hop_bytes"].get<int64_t>());
  EXPECT_FALSE(b["has_current"].get<bool>());
  EXPECT_EQ(j["algorithm"].get<std::string>().rfind("auto(", 0), 0u) << j["algorithm"];
  // The balancer's figures: auto ran partition alone (no current placement).
  ASSERT_EQ(j["candidates"].size(), 1u);
  EXPECT_EQ(j["candidates"][0]["stats"], j["stats"]);
  std::vector<std::string> names;
  for (const auto& [name, value] : j["stats"].items()) names.push_back(name);
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("starts", "passes", "moves", "swaps", "levels",
                                                     "greedy_fallback", "stopped_early"));
  EXPECT_GE(j["stats"]["passes"].get<int64_t>(), 1) << j["stats"];
  EXPECT_EQ(j["stats"]["stopped_early"], 0) << j["stats"];
}

TEST(BalanceCliTest, RemapsFromTheCurrentPlacementAndEvalAgrees) {
  const std::string loads = LoadsFile();
  const std::string current = kTmp + "/balance_current.perm";
  // A communication-blind start, written as a perm file.
  const auto greedy = RunHopmap("map " + kProblem + " --loads " + loads +
                                " --algorithm greedy-lb --format perm -q -o " + current);
  ASSERT_EQ(greedy.exit_code, 0) << greedy.err;
  const auto r = RunHopmap("map " + kProblem + " --loads " + loads + " --initial " + current +
                           " --max-migrations 10 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& b = j["balance"];
  EXPECT_TRUE(b["has_current"].get<bool>());
  EXPECT_LE(b["migrated_objects"].get<int64_t>(), 10);
  EXPECT_EQ(b["moves"].size(), b["migrated_objects"].get<size_t>());
  EXPECT_LE(j["hop_bytes"].get<int64_t>(), j["baseline_hop_bytes"].get<int64_t>());
  // With a migration limit auto runs migrate alone; its figures are the report's.
  ASSERT_EQ(j["candidates"].size(), 1u);
  EXPECT_EQ(j["candidates"][0]["algorithm"], "migrate");
  EXPECT_EQ(j["candidates"][0]["stats"], j["stats"]);
  EXPECT_EQ(j["stats"]["remaps"], 6) << j["stats"];
  EXPECT_TRUE(j["stats"].contains("moves")) << j["stats"];
  // eval of the answer, against the same current placement, says the same.
  const std::string answer = kTmp + "/balance_answer.json";
  WriteFile(answer, r.out);
  const auto e = RunHopmap("eval " + kProblem + " --loads " + loads + " --initial " + current +
                           " --mapping " + answer);
  ASSERT_EQ(e.exit_code, 0) << e.err;
  const auto ej = nlohmann::json::parse(e.out);
  EXPECT_EQ(ej["hop_bytes"], j["hop_bytes"]);
  EXPECT_EQ(ej["balance"]["migrated_objects"], b["migrated_objects"]);
  EXPECT_EQ(ej["balance"]["max_load"], b["max_load"]);
  // Perm and csv carry many objects per slot; the summary goes to stderr.
  const auto perm = RunHopmap("map " + kProblem + " --loads " + loads + " --format perm");
  ASSERT_EQ(perm.exit_code, 0) << perm.err;
  EXPECT_EQ(std::vector<std::string>(absl::StrSplit(perm.out, '\n', absl::SkipEmpty())).size(),
            64u);
  EXPECT_THAT(perm.err, HasSubstr("64 objects on 16 slots"));
  EXPECT_THAT(perm.err, HasSubstr("max/avg load"));
}

// A runtime's non-migratable objects (--fixed) and other work on the cores
// (--background): the fixed objects stay, the background counts in the loads.
TEST(BalanceCliTest, FixedObjectsStayAndBackgroundCounts) {
  const std::string loads = LoadsFile();
  const std::string current = kTmp + "/balance_fixed_current.perm";
  const auto greedy = RunHopmap("map " + kProblem + " --loads " + loads +
                                " --algorithm greedy-lb --format perm -q -o " + current);
  ASSERT_EQ(greedy.exit_code, 0) << greedy.err;
  std::string fixed_text = "# the heavy objects stay\n";
  for (int t = 0; t < 64; ++t) absl::StrAppend(&fixed_text, t < 8 ? "1\n" : "0\n");
  const std::string fixed = kTmp + "/balance_fixed.txt";
  WriteFile(fixed, fixed_text);
  std::string background_text;
  for (int s = 0; s < 16; ++s) absl::StrAppend(&background_text, s == 15 ? "3\n" : "0\n");
  const std::string background = kTmp + "/balance_background.txt";
  WriteFile(background, background_text);
  const auto r =
      RunHopmap("map " + kProblem + " --loads " + loads + " --initial " + current + " --fixed " +
                fixed + " --background " + background + " --imbalance 0.2 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::vector<std::string> start = absl::StrSplit(ReadFile(current), '\n', absl::SkipEmpty());
  for (int t = 0; t < 8; ++t) {
    EXPECT_EQ(j["slot_of_task"][t].get<int>(), std::stoi(start[t])) << "object " << t;
  }
  const auto& b = j["balance"];
  EXPECT_DOUBLE_EQ(b["total_load"].get<double>(), 88 + 3);
  EXPECT_GE(b["load_of_slot"][15].get<double>(), 3);
  EXPECT_TRUE(b["balanced"].get<bool>()) << b["note"];
  // Mistakes name the file and line, or the missing flag.
  const std::string bad = kTmp + "/balance_bad_background.txt";
  WriteFile(bad, "0\n0\nbusy\n");
  const auto bad_background =
      RunHopmap("map " + kProblem + " --loads " + loads + " --background " + bad);
  EXPECT_NE(bad_background.exit_code, 0);
  EXPECT_THAT(bad_background.err, HasSubstr("balance_bad_background.txt:3: expected the "
                                            "background load of slot 2"));
  const auto short_background =
      RunHopmap("map " + kProblem + " --loads " + loads + " --background " + fixed);
  EXPECT_NE(short_background.exit_code, 0);
  EXPECT_THAT(short_background.err, HasSubstr("background load: 64 entries for 16 slots"));
  const auto no_initial = RunHopmap("map " + kProblem + " --loads " + loads + " --fixed " + fixed);
  EXPECT_NE(no_initial.exit_code, 0);
  EXPECT_THAT(no_initial.err, HasSubstr("--fixed keeps objects on their current slots"));
}

TEST(BalanceCliTest, UserErrorsNameTheProblem) {
  const std::string loads = LoadsFile();
  const std::string bad = kTmp + "/balance_bad_loads.txt";
  WriteFile(bad, "1\n1\n-3\n");
  const std::string short_loads = kTmp + "/balance_short_loads.txt";
  WriteFile(short_loads, "1\n1\n0\n");
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"--loads " + bad, "balance_bad_loads.txt:3: expected the load of object 2"},
      {"--loads " + loads + " --format rankfile", "--format rankfile places one process per core"},
      {"--loads " + loads + " --algorithm grasp", "unknown load-balancing algorithm 'grasp'"},
      {"--loads " + loads + " --max-migrations 3", "needs the current placement"},
      {"--balance --imbalance -1", "--imbalance"},
      {"--loads /nonexistent/loads.txt", "/nonexistent/loads.txt: cannot open the loads file"},
      {"--loads " + short_loads,
       "balance_short_loads.txt: 3 loads for 64 objects (the graph's tasks): one per object"},
      {"--loads " + loads + " --initial " + short_loads,
       "balance_short_loads.txt: 3 current slots for 64 objects"},
      {"--loads " + loads + " --initial " + loads + " --max-migrations -1",
       "--max-migrations: '-1' is not an integer from 0 to 9223372036854775807"},
      {"--loads " + loads + " --initial " + loads + " --max-migrations abc",
       "--max-migrations: 'abc' is not an integer"},
      {"--loads " + loads + " --initial " + loads + " --migration-cost -2",
       "--migration-cost: '-2' is not a number >= 0"},
  };
  for (const Case& c : cases) {
    const auto r = RunHopmap("map " + kProblem + " " + c.args);
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_THAT(r.err, HasSubstr(c.message)) << c.args;
    EXPECT_EQ(r.out, "") << c.args;
  }
  // The balancers are listed with the mappers.
  const auto list = RunHopmap("algorithms");
  EXPECT_THAT(list.out, HasSubstr("greedy-lb"));
}

}  // namespace
}  // namespace hopmap
