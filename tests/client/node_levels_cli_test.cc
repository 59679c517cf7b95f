// Levels inside the node (node=) through the command line: the report's costs, the
// machine listing, the binding formats, and a bad level as one line.
#include <algorithm>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/client/cli_test_util.h"
#include "tests/temp_path.h"

namespace hopmap {
namespace {

using ::hopmap::testing::RunHopmap;
using ::testing::HasSubstr;

const std::string kTmp = hopmap::testing::TempFolder();
const std::string kMachine = "torus:2x2:node=2x4x2:node-distances=1,5,20";

TEST(NodeLevelsCliTest, MapAndEvalGiveTheNodeAndFullCosts) {
  const std::string graph = kTmp + "/node_levels.edgelist";
  ASSERT_EQ(RunHopmap("gen stencil2d-5 --dims 8x8 --wrap -o " + graph).exit_code, 0);
  const std::string problem = " --local --machine " + kMachine + " --graph " + graph;
  const std::string answer = kTmp + "/node_levels.perm";
  // The summary on stderr (written with every format but json) has a line for them.
  auto mapped = RunHopmap("map" + problem + " --seed 1 --format perm -o " + answer);
  ASSERT_EQ(mapped.exit_code, 0) << mapped.err;
  EXPECT_THAT(mapped.err, HasSubstr("hopmap: inside the nodes: node cost "));
  auto eval = RunHopmap("eval" + problem + " --mapping " + answer);
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  nlohmann::json e = nlohmann::json::parse(eval.out);
  EXPECT_EQ(e["cores_per_node"], 16);
  const nlohmann::json& n = e["node_cost"];
  ASSERT_TRUE(n.is_object()) << eval.out;
  EXPECT_EQ(n["hop_cost"], 200);
  EXPECT_EQ(n["full_cost"].get<int64_t>(),
            200 * e["hop_bytes"].get<int64_t>() + n["node_cost"].get<int64_t>());
  EXPECT_LT(n["full_cost"].get<int64_t>(), n["baseline_full_cost"].get<int64_t>());
  auto text = RunHopmap("eval" + problem + " --mapping " + answer + " --format text");
  EXPECT_THAT(text.out, HasSubstr("hop_cost           200\nnode_cost          "));
  // Without node levels the field is null.
  auto plain = RunHopmap("eval --local --machine torus:2x2:cores=16 --graph " + graph +
                         " --mapping " + answer);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_TRUE(nlohmann::json::parse(plain.out)["node_cost"].is_null());
  // The binding formats.
  auto lines = RunHopmap("map" + problem + " --seed 1 -q --format rank-node-core");
  ASSERT_EQ(lines.exit_code, 0) << lines.err;
  EXPECT_EQ(std::count(lines.out.begin(), lines.out.end(), '\n'), 64);
  auto rankfile = RunHopmap("map" + problem + " --seed 1 -q --format rankfile");
  EXPECT_THAT(rankfile.out, ::testing::ContainsRegex("rank 0=nid0000[0-3] slot=[01]:[0-7]\n"));
}

TEST(NodeLevelsCliTest, MachinesListsTheLevels) {
  auto r = RunHopmap("machines " + kMachine);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("inside node  16 PEs in 2 packages\n"));
  EXPECT_THAT(r.out, HasSubstr("  level 3    level3   x2     distance 20\n"));
  EXPECT_THAT(r.out, HasSubstr("os cpus      0-15 (map-cpu binds to these)\n"));
  EXPECT_THAT(r.out, HasSubstr("hop cost     200 per network hop\n"));
  auto j = RunHopmap("machines " + kMachine + " --format json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_EQ(nlohmann::json::parse(j.out)["node_interior"]["levels"].size(), 3u);
  EXPECT_EQ(nlohmann::json::parse(j.out)["node_interior"]["os_cpus"][15], 15);
  // cpus= numbers them otherwise: the listing and map-cpu follow.
  auto odd = RunHopmap("machines torus:2:node=2x2:cpus=0,2,1,3");
  ASSERT_EQ(odd.exit_code, 0) << odd.err;
  EXPECT_THAT(odd.out, HasSubstr("os cpus      0,2,1,3 (map-cpu binds to these)\n"));
}

TEST(NodeLevelsCliTest, ABadLevelIsOneLine) {
  auto r = RunHopmap("machines torus:2x2:cores=8:node=2x4x2");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("cores=8 but node=2x4x2 has 16 PEs"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  r = RunHopmap("machines torus:2x2:node=hwloc:/nonexistent/node.xml");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/node.xml: cannot open"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace hopmap
