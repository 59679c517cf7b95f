// slurm-topology:FILE[:NAME] through the command line: `hopmap machines` describes
// the topology, `hopmap map` places a job given by Slurm host names on its tree,
// blocks or torus and writes those names back.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/client/cli_test_util.h"
#include "tests/temp_path.h"

namespace hopmap {
namespace {

using ::hopmap::testing::RunHopmap;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const std::string kTopology = std::string(HOPMAP_DATA_DIR) + "/slurm/topology.yaml";
const std::string kSpec = "slurm-topology:" + kTopology;
const std::string kTmp = hopmap::testing::TempFolder();

void ExpectOneLineError(const std::string& args, const std::string& message) {
  auto r = RunHopmap(args);
  EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.err;
  EXPECT_THAT(r.err, HasSubstr(message)) << args;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(SlurmTopologyCliTest, MachinesDescribesTheTopology) {
  auto tree = RunHopmap("machines " + kSpec);
  ASSERT_EQ(tree.exit_code, 0) << tree.err;
  EXPECT_THAT(tree.out, HasSubstr("spec         " + kSpec + ":fabric\n"));
  EXPECT_THAT(tree.out, HasSubstr("kind         graph\n"));
  EXPECT_THAT(tree.out, HasSubstr("topology     fabric (tree plugin) of topology.yaml " +
                                  kTopology + ", the file's default\n"));
  EXPECT_THAT(tree.out, HasSubstr("network      5 switches\n"));
  EXPECT_THAT(tree.out, HasSubstr("switch       spine  children leaf[1-4]\n"));
  EXPECT_THAT(tree.out, HasSubstr("switch       leaf2  node[05-08]\n"));
  EXPECT_THAT(tree.out, HasSubstr("hosts        16: node[01-16]\n"));

  auto blocks = RunHopmap("machines " + kSpec + ":racks:cores=8 --format json");
  ASSERT_EQ(blocks.exit_code, 0) << blocks.err;
  nlohmann::json j = nlohmann::json::parse(blocks.out);
  EXPECT_EQ(j["kind"], "graph");
  EXPECT_EQ(j["nodes"], 16);
  EXPECT_EQ(j["cores_per_node"], 8);
  EXPECT_EQ(j["diameter_hops"], 6);
  const nlohmann::json& s = j["slurm_topology"];
  EXPECT_EQ(s["topology"], "racks");
  EXPECT_EQ(s["plugin"], "block");
  EXPECT_EQ(s["format"], "topology.yaml");
  EXPECT_EQ(s["cluster_default"], false);
  EXPECT_EQ(s["hosts"], 16);
  EXPECT_EQ(s["host_names"], "node[01-16]");
  ASSERT_EQ(s["parts"].size(), 7u);  // 4 racks, 2 pairs of racks, the top
  EXPECT_EQ(s["parts"][4]["name"], "rack[1-2]");
  EXPECT_EQ(s["parts"][4]["nodes"], "node[01-08]");
  EXPECT_EQ(s["parts"][6]["what"], "top");

  auto torus = RunHopmap("machines " + kSpec + ":torus-partial --format json");
  ASSERT_EQ(torus.exit_code, 0) << torus.err;
  j = nlohmann::json::parse(torus.out);
  EXPECT_EQ(j["kind"], "torus");
  EXPECT_EQ(j["dims"], nlohmann::json::array({4, 2, 2}));
  EXPECT_EQ(j["nodes"], 16);
  EXPECT_EQ(j["first_node"], "node01");
  EXPECT_EQ(j["slurm_topology"]["hosts"], 12);
  EXPECT_EQ(j["slurm_topology"]["vacant_cells"], 4);
  EXPECT_EQ(j["slurm_topology"]["network"], "4x2x2 torus = 16 cells, 12 with a host, 4 vacant");
  auto text = RunHopmap("machines " + kSpec + ":torus-partial");
  EXPECT_THAT(text.out, HasSubstr("vacant       4 cells without a host (not allocated)\n"));
  EXPECT_THAT(text.out, HasSubstr("region       anchor (0,0,1), 2x2x1  node[09-12]\n"));
}

// A job named by a Slurm hostlist, on the tree, the blocks and the torus: the
// hostfile holds the job's hosts, each once per core.
TEST(SlurmTopologyCliTest, MapsAJobGivenBySlurmHostNames) {
  const std::string graph = kTmp + "/slurm_topology_rgg.edgelist";
  ASSERT_EQ(RunHopmap("gen random-geometric --tasks 16 --seed 4 -o " + graph).exit_code, 0);
  for (const char* name : {"fabric", "racks", "rings", "torus"}) {
    const std::string args = "map --local --machine " + kSpec + ":" + name +
                             " --nodes node[03-06],node[11-14] --cores 2 --graph " + graph +
                             " --seed 1 --iterations 5";
    auto json = RunHopmap(args);
    ASSERT_EQ(json.exit_code, 0) << name << "\n" << json.err;
    nlohmann::json j = nlohmann::json::parse(json.out);
    EXPECT_THAT(j["machine"].get<std::string>(), StartsWith(kSpec + ":" + name));
    EXPECT_EQ(j["nodes"], 8);
    EXPECT_LE(j["hop_bytes"].get<int64_t>(), j["baseline_hop_bytes"].get<int64_t>());
    auto hostfile = RunHopmap(args + " --format hostfile -q");
    ASSERT_EQ(hostfile.exit_code, 0) << name << "\n" << hostfile.err;
    std::vector<std::string> hosts = absl::StrSplit(hostfile.out, '\n', absl::SkipEmpty());
    ASSERT_EQ(hosts.size(), 16u) << name;
    std::map<std::string, int> per_host;
    for (const std::string& h : hosts) ++per_host[h];
    EXPECT_EQ(per_host.size(), 8u) << name;
    for (const auto& [host, count] : per_host) {
      EXPECT_THAT(host, StartsWith("node")) << name;
      EXPECT_EQ(count, 2) << name << " " << host;
      const int number = std::stoi(host.substr(4));
      EXPECT_TRUE((number >= 3 && number <= 6) || (number >= 11 && number <= 14)) << host;
    }
  }
  // Without --nodes, a torus's cells without a host are left out: 12 hosts, not 16.
  const std::string whole = kTmp + "/slurm_topology_rgg24.edgelist";
  ASSERT_EQ(RunHopmap("gen random-geometric --tasks 24 --seed 4 -o " + whole).exit_code, 0);
  auto r = RunHopmap("map --local --machine " + kSpec + ":torus-partial:cores=2 --graph " + whole +
                     " --format hostfile -q --iterations 5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("pod2")));
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 24);
}

TEST(SlurmTopologyCliTest, BadTopologiesAreOneLine) {
  const std::string graph = kTmp + "/slurm_topology_bad.edgelist";
  ASSERT_EQ(RunHopmap("gen random-geometric --tasks 4 --seed 4 -o " + graph).exit_code, 0);
  ExpectOneLineError("machines " + kSpec + ":anywhere",
                     kTopology + ":62: topology 'anywhere': flat: no network to map onto");
  ExpectOneLineError("machines " + kSpec + ":nope", kTopology +
                                                        ": no topology 'nope' (the file "
                                                        "has: fabric (tree, cluster "
                                                        "default), racks (block), ");
  ExpectOneLineError("map --local --machine " + kSpec +
                         ":torus-partial --nodes node01,pod2:2:0:1 " + "--graph " + graph,
                     "(pod2:2:0:1) is a cell without a host");
  ExpectOneLineError(
      "map --local --machine " + kSpec + ":racks --nodes node[16-17] --graph " + graph,
      "--nodes: host 'node17' is not a node of " + kSpec + ":racks");
}

TEST(SlurmTopologyCliTest, HelpListsTheKind) {
  auto r = RunHopmap("map --help");
  EXPECT_THAT(r.out, HasSubstr("slurm-topology:FILE[:NAME]"));
}

}  // namespace
}  // namespace hopmap
