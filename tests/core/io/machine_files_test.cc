#include "core/io/machine_files.h"

#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_path.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kSlurmDir = std::string(HOPMAP_DATA_DIR) + "/machines/slurm_topology_conf/";

// Writes `content` to a fresh file under the test temp dir and returns its path.
std::string WriteTemp(const std::string& name, const std::string& content) {
  const std::string path = hopmap::testing::TempPath("machine_files_test_" + name);
  std::ofstream out(path, std::ios::trunc);
  out << content;
  return path;
}

NodeId Id(const Machine& m, const std::string& name) {
  std::optional<NodeId> id = m.node_names().Find(name, m.num_nodes());
  EXPECT_TRUE(id.has_value()) << name;
  return id.value_or(kInvalidNode);
}

std::vector<std::string> SwitchNames(const SwitchGraphMachine& m, NodeId node) {
  std::vector<std::string> names;
  for (int32_t s : m.SwitchesOfNode(node)) names.push_back(m.switch_name(s));
  return names;
}

// Every route: one path as long as Hops, adaptive shares adding up to Hops (1 per
// step), and each adaptive step's shares adding up to 1.
void CheckRoutes(const SwitchGraphMachine& m) {
  for (NodeId a = 0; a < m.num_nodes(); ++a) {
    for (NodeId b = 0; b < m.num_nodes(); ++b) {
      int links = 0;
      m.ForEachRouteLink(a, b, Routing::kDimensionOrder, [&](int64_t link, double share) {
        EXPECT_EQ(share, 1.0);
        EXPECT_GE(link, 0);
        EXPECT_LT(link, m.num_links());
        ++links;
      });
      ASSERT_EQ(links, m.Hops(a, b)) << a << " " << b;
      double total = 0;
      m.ForEachRouteLink(a, b, Routing::kAdaptive, [&](int64_t, double share) {
        EXPECT_GT(share, 0.0);
        EXPECT_LE(share, 1.0);
        total += share;
      });
      ASSERT_NEAR(total, m.Hops(a, b), 1e-9) << a << " " << b;
    }
  }
}

std::string ErrorOf(const absl::Status& status) {
  EXPECT_FALSE(status.ok());
  return std::string(status.message());
}

TEST(SlurmTopologyTest, Tara) {
  const std::string path = kSlurmDir + "nstda_tara_topology.conf";
  absl::StatusOr<SwitchGraphMachine> m = ReadSlurmTopology(path);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->Spec(), "slurm:" + path);  // reads back as a Slurm file
  EXPECT_EQ(m->num_nodes(), 10);
  EXPECT_EQ(m->num_switches(), 5);
  EXPECT_TRUE(m->warnings().empty());
  EXPECT_EQ(m->NodeName(0), "tara-c-001");
  EXPECT_EQ(m->NodeName(6), "tara-m-001");
  EXPECT_EQ(m->NodeName(9), "tara-dgx1-002");
  EXPECT_EQ(m->Hops(Id(*m, "tara-c-001"), Id(*m, "tara-c-002")), 2);
  EXPECT_EQ(m->Hops(Id(*m, "tara-c-001"), Id(*m, "tara-m-001")), 4);
  EXPECT_EQ(m->Hops(Id(*m, "tara-c-005"), Id(*m, "tara-dgx1-001")), 4);
  EXPECT_EQ(m->min_hops(), 2);
  EXPECT_EQ(m->max_hops(), 4);
  // 10 node links + 4 switch links, two directions each.
  EXPECT_EQ(m->num_links(), 28);
  std::vector<std::string> route;
  m->ForEachRouteLink(Id(*m, "tara-c-001"), Id(*m, "tara-m-002"), Routing::kDimensionOrder,
                      [&](int64_t link, double) { route.push_back(m->LinkName(link)); });
  EXPECT_THAT(route, ElementsAre("tara-c-001->s0", "s0->s4", "s4->s2", "s2->tara-m-002"));
  CheckRoutes(*m);
}

TEST(SlurmTopologyTest, CirceQuirks) {
  absl::StatusOr<SwitchGraphMachine> m =
      ReadSlurmTopology(kSlurmDir + "nvidia_circe_superpod_topology.conf");
  ASSERT_TRUE(m.ok()) << m.status();
  // circe-n001..080 without 059, with 019 and 020 named n019 and n020.
  EXPECT_EQ(m->num_nodes(), 79);
  EXPECT_EQ(Id(*m, "n019"), 16);
  EXPECT_EQ(Id(*m, "n020"), 17);
  EXPECT_FALSE(m->node_names().Find("circe-n019", 79).has_value());
  EXPECT_FALSE(m->node_names().Find("circe-n059", 79).has_value());
  // No top switch: a virtual root joins the five leaves.
  ASSERT_TRUE(m->has_virtual_root());
  EXPECT_EQ(m->num_switches(), 6);
  EXPECT_EQ(m->switch_name(5), "hopmap-root");
  ASSERT_EQ(m->warnings().size(), 1u);
  EXPECT_THAT(m->warnings()[0], HasSubstr("added a virtual root switch 'hopmap-root' above "
                                          "s0, s1, s2, s3, s4"));
  // Node 051 is under s2 and s4; hops go through the closer one.
  const NodeId n051 = Id(*m, "circe-n051");
  EXPECT_THAT(SwitchNames(*m, n051), ElementsAre("s2", "s4"));
  EXPECT_EQ(m->Hops(n051, Id(*m, "circe-n041")), 2);                  // via s2
  EXPECT_EQ(m->Hops(n051, Id(*m, "circe-n037")), 2);                  // via s4
  EXPECT_EQ(m->Hops(n051, Id(*m, "circe-n001")), 4);                  // via s2 or s4, then the root
  EXPECT_EQ(m->Hops(Id(*m, "circe-n041"), Id(*m, "circe-n037")), 4);  // s2-root-s4
  EXPECT_EQ(m->Hops(Id(*m, "circe-n001"), Id(*m, "n020")), 2);
  EXPECT_EQ(m->Hops(Id(*m, "circe-n001"), Id(*m, "circe-n017")), 4);
  EXPECT_EQ(m->min_hops(), 2);
  EXPECT_EQ(m->max_hops(), 4);
  std::vector<std::string> route;
  m->ForEachRouteLink(n051, Id(*m, "circe-n037"), Routing::kDimensionOrder,
                      [&](int64_t link, double) { route.push_back(m->LinkName(link)); });
  EXPECT_THAT(route, ElementsAre("circe-n051->s4", "s4->circe-n037"));
  // To a node on s0 both of 051's switches are 2 away: adaptive splits evenly.
  std::map<std::string, double> shares;
  m->ForEachRouteLink(n051, Id(*m, "circe-n001"), Routing::kAdaptive,
                      [&](int64_t link, double share) { shares[m->LinkName(link)] += share; });
  EXPECT_EQ(shares.size(), 6u);
  EXPECT_DOUBLE_EQ(shares["circe-n051->s2"], 0.5);
  EXPECT_DOUBLE_EQ(shares["circe-n051->s4"], 0.5);
  EXPECT_DOUBLE_EQ(shares["s2->hopmap-root"], 0.5);
  EXPECT_DOUBLE_EQ(shares["s4->hopmap-root"], 0.5);
  EXPECT_DOUBLE_EQ(shares["hopmap-root->s0"], 1.0);
  EXPECT_DOUBLE_EQ(shares["s0->circe-n001"], 1.0);
  CheckRoutes(*m);
}

TEST(SlurmTopologyTest, SyntaxContinuationsCaseAndOrder) {
  const std::string path = WriteTemp("syntax.conf",
                                     "# a comment line\n"
                                     "\n"
                                     "switchname=a NODES=x[2-3] linkspeed=100  # trailing\r\n"
                                     "SwitchName=b \\\n"
                                     "   Nodes=x[1-2]\n"
                                     "SwitchName=top Switches=a,b\n");
  absl::StatusOr<SwitchGraphMachine> m = ReadSlurmTopology(path);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->num_nodes(), 3);
  EXPECT_EQ(m->NodeName(0), "x2");  // order of first appearance
  EXPECT_EQ(m->NodeName(1), "x3");
  EXPECT_EQ(m->NodeName(2), "x1");
  EXPECT_THAT(SwitchNames(*m, 0), ElementsAre("a", "b"));
  EXPECT_EQ(m->Hops(1, 2), 4);
  EXPECT_EQ(m->Hops(0, 1), 2);
  EXPECT_EQ(m->Hops(0, 2), 2);
  EXPECT_TRUE(m->warnings().empty());
}

// Found by fuzz_slurm_topology: 160 bytes whose hostlist expanded to 3 million
// nodes took seconds to build; then two multiplied ranges naming 1,010,025 nodes
// took 1.5 s and 557 MB to reject. A file names at most 2^18 nodes and switches.
TEST(SlurmTopologyTest, AFewBytesCannotNameMillionsOfNodes) {
  absl::StatusOr<SwitchGraphMachine> big = ParseSlurmTopology(
      "SwitchName=s0 Nodes=n[0-999]\nSwitchName=s1 Nodes=m[0-300000]\n", "big.conf");
  ASSERT_FALSE(big.ok());
  EXPECT_THAT(std::string(big.status().message()), HasSubstr("big.conf:2: Nodes=: "));
  EXPECT_THAT(std::string(big.status().message()),
              HasSubstr("at most 262144 nodes and switches in all"));
  absl::StatusOr<SwitchGraphMachine> product =
      ParseSlurmTopology("SwitchName=s0 Nodes=x-[00-1004]-[00-1004]\n", "product.conf");
  ASSERT_FALSE(product.ok());
  EXPECT_THAT(std::string(product.status().message()), HasSubstr("product.conf:1: Nodes=: "));
  absl::StatusOr<SwitchGraphMachine> graph =
      ParseSwitchGraphFile("switch s\nnode n[0-2000000]\nlink s n0\n", "big.graph");
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(std::string(graph.status().message()), HasSubstr("big.graph:2: "));
  // Just under the budget still reads.
  EXPECT_TRUE(ParseSlurmTopology("SwitchName=s0 Nodes=n[0-99999]\n", "ok.conf").ok());
}

TEST(SlurmTopologyTest, Errors) {
  std::string path = WriteTemp("unknown_key.conf",
                               "SwitchName=s0 Nodes=a[1-2]\n"
                               "# comment\n"
                               "SwitchName=s1 Nodes=b1 Speed=10\n");
  EXPECT_EQ(ErrorOf(ReadSlurmTopology(path).status()),
            path + ":3: unknown key 'Speed' (expected SwitchName, Switches, Nodes or LinkSpeed)");

  path = WriteTemp("undefined.conf",
                   "SwitchName=s0 Nodes=a[1-2]\n"
                   "SwitchName=s1 Nodes=b1\n"
                   "SwitchName=top \\\n"
                   "  Switches=s[0-2]\n");
  EXPECT_EQ(ErrorOf(ReadSlurmTopology(path).status()),
            path + ":3: switch 's2' in Switches= of 'top' is never defined by a SwitchName line");

  path = WriteTemp("twice.conf", "SwitchName=s0 Nodes=a1\n\nSwitchName=s0 Nodes=a2\n");
  EXPECT_EQ(ErrorOf(ReadSlurmTopology(path).status()),
            path + ":3: switch 's0' is already defined on line 1");

  path = WriteTemp("noname.conf", "SwitchName=s0 Nodes=a1\nNodes=a2\n");
  EXPECT_EQ(ErrorOf(ReadSlurmTopology(path).status()), path + ":2: the line has no SwitchName=");

  path = WriteTemp("nokv.conf", "SwitchName=s0 a1\n");
  EXPECT_EQ(ErrorOf(ReadSlurmTopology(path).status()), path + ":1: 'a1' is not KEY=VALUE");

  path = WriteTemp("badlist.conf", "SwitchName=s0 Nodes=a1\nSwitchName=s1 Nodes=a[3-1]\n");
  EXPECT_THAT(ErrorOf(ReadSlurmTopology(path).status()),
              HasSubstr(path + ":2: Nodes=: hostlist 'a[3-1]': reversed range"));

  path = WriteTemp("speed.conf", "SwitchName=s0 Nodes=a1 LinkSpeed=fast\n");
  EXPECT_THAT(ErrorOf(ReadSlurmTopology(path).status()),
              HasSubstr(path + ":1: LinkSpeed 'fast' is not a non-negative integer"));

  path = WriteTemp("nonodes.conf", "SwitchName=s0\n");
  EXPECT_EQ(ErrorOf(ReadSlurmTopology(path).status()), path + ": no Nodes= under any switch");

  path = WriteTemp("empty.conf", "# nothing\n");
  EXPECT_EQ(ErrorOf(ReadSlurmTopology(path).status()), path + ": no SwitchName lines");

  path = WriteTemp("clash.conf", "SwitchName=s0 Nodes=s1\nSwitchName=s1 Switches=s0\n");
  EXPECT_THAT(ErrorOf(ReadSlurmTopology(path).status()),
              HasSubstr(path + ": switch graph: name 's1' is given to node 0 and switch 1"));

  absl::Status missing = ReadSlurmTopology("/nonexistent/topology.conf").status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.message(), HasSubstr("/nonexistent/topology.conf: cannot open"));
}

TEST(SwitchGraphFileTest, Reads) {
  const std::string path = WriteTemp("good.graph",
                                     "# a diamond with two hosts on each end\n"
                                     "switch s[0-3]\n"
                                     "node a[1-2] B\n"
                                     "LINK s0 s2   # comment\n"
                                     "link s0 s1\n"
                                     "link s1 s3\n"
                                     "link s2 s3\n"
                                     "link a1 s0\n"
                                     "link s0 a2\n"
                                     "link B s3\n"
                                     "node late\n"
                                     "link late s1\n");
  absl::StatusOr<SwitchGraphMachine> m = ReadSwitchGraphFile(path);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->Spec(), "graph:" + path);
  EXPECT_EQ(m->num_nodes(), 4);
  EXPECT_EQ(m->NodeName(2), "B");
  EXPECT_EQ(m->NodeName(3), "late");
  EXPECT_EQ(m->Hops(0, 1), 2);
  EXPECT_EQ(m->Hops(0, 2), 4);
  EXPECT_EQ(m->Hops(3, 2), 3);
  EXPECT_EQ(m->Hops(3, 0), 3);
  EXPECT_EQ(m->min_hops(), 2);
  EXPECT_EQ(m->max_hops(), 4);
  std::map<std::string, double> shares;
  m->ForEachRouteLink(0, 2, Routing::kAdaptive,
                      [&](int64_t link, double share) { shares[m->LinkName(link)] += share; });
  EXPECT_DOUBLE_EQ(shares["s0->s1"], 0.5);
  EXPECT_DOUBLE_EQ(shares["s0->s2"], 0.5);
  EXPECT_DOUBLE_EQ(shares["s1->s3"], 0.5);
  EXPECT_DOUBLE_EQ(shares["s2->s3"], 0.5);
  EXPECT_DOUBLE_EQ(shares["a1->s0"], 1.0);
  EXPECT_DOUBLE_EQ(shares["s3->B"], 1.0);
  CheckRoutes(*m);
}

TEST(SwitchGraphFileTest, Errors) {
  std::string path =
      WriteTemp("nodenode.graph", "switch s0\nnode a b\nlink a s0\n\nlink a b\nlink b s0\n");
  EXPECT_EQ(ErrorOf(ReadSwitchGraphFile(path).status()),
            path + ":5: link 'a' 'b' joins two compute nodes; connect nodes through a switch");

  path =
      WriteTemp("noswitch.graph", "switch s0\nnode a\n# c\nnode b[1-2]\nlink a s0\nlink b1 s0\n");
  EXPECT_EQ(ErrorOf(ReadSwitchGraphFile(path).status()),
            path + ":4: node 'b2' is attached to no switch (no link joins it to a switch)");

  path = WriteTemp("keyword.graph", "switch s0\nhost a\n");
  EXPECT_EQ(ErrorOf(ReadSwitchGraphFile(path).status()),
            path + ":2: unknown keyword 'host' (expected node, switch or link)");

  path = WriteTemp("undeclared.graph", "switch s0\nnode a\nlink a s0\nlink s0 s9\n");
  EXPECT_EQ(ErrorOf(ReadSwitchGraphFile(path).status()),
            path + ":4: 's9' is not declared by a node or switch line");

  path = WriteTemp("twice.graph", "switch s[0-1]\nnode a\nswitch s1\n");
  EXPECT_EQ(ErrorOf(ReadSwitchGraphFile(path).status()),
            path + ":3: 's1' is already declared (as a switch) on line 1");

  path = WriteTemp("arity.graph", "switch s0\nnode a\nlink a\n");
  EXPECT_EQ(ErrorOf(ReadSwitchGraphFile(path).status()),
            path + ":3: 'link' needs two names (link A B), got 1");

  path = WriteTemp("self.graph", "switch s0\nnode a\nlink a s0\nlink s0 s0\n");
  EXPECT_EQ(ErrorOf(ReadSwitchGraphFile(path).status()), path + ":4: link joins 's0' to itself");

  path = WriteTemp("nonodes.graph", "switch s0\n");
  EXPECT_EQ(ErrorOf(ReadSwitchGraphFile(path).status()),
            path + ": no 'node' lines: the machine has no nodes");

  path = WriteTemp("badlist.graph", "switch s0\nnode a[1-\n");
  EXPECT_THAT(ErrorOf(ReadSwitchGraphFile(path).status()), HasSubstr(path + ":2: hostlist"));
}

TEST(DistanceMatrixFileTest, Reads) {
  const std::string path = WriteTemp("good.matrix",
                                     "# hops between three hosts\n"
                                     "names: h1, h2 h3\n"
                                     "0, 1, 4\n"
                                     "\n"
                                     "1 0 2   # row 2\n"
                                     "4,2,0\n");
  absl::StatusOr<DistanceMatrixMachine> m = ReadDistanceMatrixFile(path);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->Spec(), "matrix:" + path);
  EXPECT_EQ(m->num_nodes(), 3);
  EXPECT_EQ(m->NodeName(2), "h3");
  EXPECT_EQ(m->Hops(0, 2), 4);
  EXPECT_EQ(m->Hops(2, 1), 2);
  EXPECT_EQ(m->min_hops(), 1);
  EXPECT_EQ(m->max_hops(), 4);

  absl::StatusOr<DistanceMatrixMachine> plain =
      ReadDistanceMatrixFile(WriteTemp("plain.matrix", "0 3\n3 0"));
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->NodeName(1), "nid00001");
  EXPECT_EQ(plain->Hops(0, 1), 3);
}

TEST(DistanceMatrixFileTest, Errors) {
  std::string path = WriteTemp("ragged.matrix", "0 1 2\n1 0 1\n# c\n2 1\n");
  EXPECT_EQ(ErrorOf(ReadDistanceMatrixFile(path).status()),
            path + ":4: row 3 has 2 entries but row 1 has 3");

  path = WriteTemp("asym.matrix",
                   "0 1 1 1\n"
                   "1 0 2 1\n"
                   "\n"
                   "1 4 0 1\n"
                   "1 1 1 0\n");
  EXPECT_EQ(ErrorOf(ReadDistanceMatrixFile(path).status()),
            path + ":2: hops[1][2] = 2 but hops[2][1] = 4");

  path = WriteTemp("diag.matrix", "0 1\n1 5\n");
  EXPECT_EQ(ErrorOf(ReadDistanceMatrixFile(path).status()),
            path + ":2: hops[1][1] = 5 but a node is 0 hops from itself");

  path = WriteTemp("negative.matrix", "# x\n0 -1\n-1 0\n");
  EXPECT_EQ(ErrorOf(ReadDistanceMatrixFile(path).status()),
            path + ":2: hops[0][1] = -1 is negative");

  path = WriteTemp("short.matrix", "0 1 1\n1 0 1\n");
  EXPECT_EQ(ErrorOf(ReadDistanceMatrixFile(path).status()),
            path + ":2: the matrix has 2 rows of 3 entries; it must be square");

  path = WriteTemp("long.matrix", "0 1\n1 0\n1 1\n");
  EXPECT_EQ(ErrorOf(ReadDistanceMatrixFile(path).status()),
            path + ":3: row 3 is one row too many: a matrix with 2 columns must have 2 rows");

  path = WriteTemp("word.matrix", "0 1\n1 x0\n");
  EXPECT_EQ(ErrorOf(ReadDistanceMatrixFile(path).status()),
            path + ":2: entry 2 'x0' is not an integer");

  path = WriteTemp("float.matrix", "0 1.5\n1.5 0\n");
  EXPECT_EQ(ErrorOf(ReadDistanceMatrixFile(path).status()),
            path + ":1: entry 2 '1.5' is not an integer");

  path = WriteTemp("huge.matrix", "0 99999999999999999999\n1 0\n");
  EXPECT_THAT(ErrorOf(ReadDistanceMatrixFile(path).status()),
              HasSubstr(path + ":1: entry 2 '99999999999999999999' is out of range"));

  path = WriteTemp("names.matrix", "# c\nnames: a b c\n0 1\n1 0\n");
  EXPECT_EQ(ErrorOf(ReadDistanceMatrixFile(path).status()),
            path + ":2: 'names:' gives 3 names but the matrix has 2 rows");

  path = WriteTemp("dupnames.matrix", "names: a a\n0 1\n1 0\n");
  EXPECT_THAT(ErrorOf(ReadDistanceMatrixFile(path).status()),
              HasSubstr(path + ":1: distance matrix: node name 'a'"));

  path = WriteTemp("empty.matrix", "# nothing\n\n");
  EXPECT_EQ(ErrorOf(ReadDistanceMatrixFile(path).status()), path + ": no matrix rows");
}

}  // namespace
}  // namespace hopmap
