// The hierarchy machine kind through the command line: map (one task per PE and
// balanced), eval, simulate and draw all take it.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/client/cli_test_util.h"
#include "tests/temp_path.h"

namespace hopmap {
namespace {

using ::hopmap::testing::FileSize;
using ::hopmap::testing::RunHopmap;
using ::testing::HasSubstr;

const std::string kTmp = hopmap::testing::TempFolder();
const std::string kMachine = "hierarchy:4x4x4:distances=1,10,100";

TEST(HierarchyCliTest, MapEvalSimulateAndDrawTakeAHierarchy) {
  const std::string graph = kTmp + "/hierarchy_rgg.edgelist";
  ASSERT_EQ(RunHopmap("gen random-geometric --tasks 64 --seed 2 -o " + graph).exit_code, 0);
  const std::string problem = " --local --machine " + kMachine + " --graph " + graph;
  const std::string answer = kTmp + "/hierarchy_answer.json";
  auto mapped = RunHopmap("map" + problem + " --seed 1 -q -o " + answer);
  ASSERT_EQ(mapped.exit_code, 0) << mapped.err;
  auto eval = RunHopmap("eval" + problem + " --mapping " + answer);
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  nlohmann::json e = nlohmann::json::parse(eval.out);
  EXPECT_EQ(e["machine"], kMachine);
  EXPECT_LT(e["hop_bytes"].get<int64_t>(), e["baseline_hop_bytes"].get<int64_t>());
  // Hops on a hierarchy are its distances.
  EXPECT_THAT(e["max_dilation"].get<int>(), ::testing::AnyOf(1, 10, 100));
  EXPECT_GE(e["hop_bytes"].get<int64_t>(), e["lower_bound"].get<int64_t>());
  auto simulated = RunHopmap("simulate" + problem + " --mapping " + answer + " --format json");
  ASSERT_EQ(simulated.exit_code, 0) << simulated.err;
  EXPECT_EQ(nlohmann::json::parse(simulated.out)["simulations"].size(), 2u);
  const std::string picture = kTmp + "/hierarchy.svg";
  ASSERT_EQ(RunHopmap("draw" + problem + " --mapping " + answer + " -o " + picture).exit_code, 0);
  EXPECT_GT(FileSize(picture), 1000);
}

TEST(HierarchyCliTest, TheBalancedProblemOfTheLiterature) {
  // 512 objects onto 64 PEs within 3% of the average (8): the benchmark form, whose
  // cap is the field's ceil(1.03 x 8) = 9 objects.
  const std::string graph = kTmp + "/hierarchy_rgg512.edgelist";
  ASSERT_EQ(RunHopmap("gen random-geometric --tasks 512 --seed 3 -o " + graph).exit_code, 0);
  auto r = RunHopmap("map --local --machine " + kMachine + " --graph " + graph +
                     " --balance --imbalance 0.03 --seed 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["balance"]["balanced"], true);
  EXPECT_EQ(j["balance"]["requested_cap"].get<double>(), 9.0);
  EXPECT_LE(j["balance"]["max_load"].get<double>(), 9.0);
  EXPECT_LT(j["hop_bytes"].get<int64_t>(), j["baseline_hop_bytes"].get<int64_t>());
}

TEST(HierarchyCliTest, ABadHierarchyIsOneLine) {
  auto r = RunHopmap("machines hierarchy:4x4:distances=5,1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("distance 2 (1) is less than the level below it (5)"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace hopmap
