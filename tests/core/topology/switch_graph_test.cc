#include "core/topology/switch_graph.h"

#include <map>
#include <memory>

#include "absl/strings/str_cat.h"
#include "core/topology/allocation.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

SwitchGraphMachine Build(SwitchGraphSpec spec) {
  absl::StatusOr<SwitchGraphMachine> m = SwitchGraphMachine::Create(std::move(spec));
  EXPECT_TRUE(m.ok()) << m.status();
  return *std::move(m);
}

std::string CreateError(SwitchGraphSpec spec) {
  absl::StatusOr<SwitchGraphMachine> m = SwitchGraphMachine::Create(std::move(spec));
  EXPECT_FALSE(m.ok());
  return m.ok() ? "" : std::string(m.status().message());
}

// Link name -> summed share along a route.
std::map<std::string, double> Route(const SwitchGraphMachine& m, NodeId a, NodeId b,
                                    Routing routing) {
  std::map<std::string, double> shares;
  m.ForEachRouteLink(a, b, routing, [&](int64_t link, double share) {
    EXPECT_GE(link, 0);
    EXPECT_LT(link, m.num_links());
    shares[m.LinkName(link)] += share;
  });
  return shares;
}

std::vector<std::string> RouteLinks(const SwitchGraphMachine& m, NodeId a, NodeId b) {
  std::vector<std::string> links;
  m.ForEachRouteLink(a, b, Routing::kDimensionOrder, [&](int64_t link, double share) {
    EXPECT_EQ(share, 1.0);
    links.push_back(m.LinkName(link));
  });
  return links;
}

// Two leaf switches under a top switch, two nodes on each leaf.
SwitchGraphSpec TwoLevelTree() {
  SwitchGraphSpec spec;
  spec.node_names = {"a0", "a1", "b0", "b1"};
  spec.switch_names = {"top", "la", "lb"};
  spec.links = {{"top", "la"}, {"top", "lb"}, {"la", "a0"},
                {"la", "a1"},  {"b0", "lb"},  {"lb", "b1"}};
  return spec;
}

// A (node 0) on s0, B (node 1) on s3, and two equal paths s0-s1-s3 and s0-s2-s3.
SwitchGraphSpec Diamond() {
  SwitchGraphSpec spec;
  spec.node_names = {"A", "B"};
  spec.switch_names = {"s0", "s1", "s2", "s3"};
  spec.links = {{"s0", "s2"}, {"s0", "s1"}, {"s1", "s3"}, {"s2", "s3"}, {"A", "s0"}, {"s3", "B"}};
  return spec;
}

TEST(SwitchGraphTest, TreeHopsAndLinks) {
  const SwitchGraphMachine m = Build(TwoLevelTree());
  EXPECT_EQ(m.kind(), "graph");
  EXPECT_EQ(m.Spec(), "graph");
  EXPECT_EQ(m.num_nodes(), 4);
  EXPECT_EQ(m.num_switches(), 3);
  EXPECT_TRUE(m.dims().empty());
  EXPECT_TRUE(m.warnings().empty());
  EXPECT_FALSE(m.has_virtual_root());
  EXPECT_EQ(m.Hops(0, 0), 0);
  EXPECT_EQ(m.Hops(0, 1), 2);
  EXPECT_EQ(m.Hops(0, 2), 4);
  EXPECT_EQ(m.Hops(3, 1), 4);
  EXPECT_EQ(m.Hops(2, 3), 2);
  EXPECT_EQ(m.min_hops(), 2);
  EXPECT_EQ(m.max_hops(), 4);
  EXPECT_EQ(m.SwitchHops(1, 2), 2);
  EXPECT_EQ(m.SwitchHops(0, 2), 1);
  EXPECT_EQ(m.NodeName(2), "b0");
  EXPECT_EQ(m.node_names().Find("b1", 4), 3);
  EXPECT_EQ(m.num_links(), 12);
  EXPECT_EQ(m.LinkName(0), "top->la");
  EXPECT_EQ(m.LinkName(1), "la->top");
  EXPECT_EQ(m.LinkName(8), "b0->lb");
  EXPECT_EQ(m.LinkName(11), "b1->lb");
  EXPECT_EQ(m.LinkName(12), "");
  EXPECT_EQ(m.LinkName(-1), "");
  EXPECT_THAT(RouteLinks(m, 0, 3), ElementsAre("a0->la", "la->top", "top->lb", "lb->b1"));
  EXPECT_THAT(RouteLinks(m, 2, 0), ElementsAre("b0->lb", "lb->top", "top->la", "la->a0"));
  EXPECT_THAT(RouteLinks(m, 0, 1), ElementsAre("a0->la", "la->a1"));
  EXPECT_TRUE(RouteLinks(m, 1, 1).empty());
  // Exact balls: 1 node within 0 or 1 hop, 2 within 2 or 3, all 4 within 4.
  EXPECT_THAT(m.BallSizeUpperBounds(), ElementsAre(1, 1, 2, 2, 4));
}

TEST(SwitchGraphTest, DiamondRoutes) {
  const SwitchGraphMachine m = Build(Diamond());
  EXPECT_EQ(m.Hops(0, 1), 4);
  EXPECT_EQ(m.min_hops(), 4);
  EXPECT_EQ(m.max_hops(), 4);
  // Dimension order: the smaller switch id first (s1, although s0-s2 is listed first).
  EXPECT_THAT(RouteLinks(m, 0, 1), ElementsAre("A->s0", "s0->s1", "s1->s3", "s3->B"));
  EXPECT_THAT(RouteLinks(m, 1, 0), ElementsAre("B->s3", "s3->s1", "s1->s0", "s0->A"));
  EXPECT_THAT(Route(m, 0, 1, Routing::kAdaptive),
              UnorderedElementsAre(Pair("A->s0", 1.0), Pair("s0->s1", 0.5), Pair("s0->s2", 0.5),
                                   Pair("s1->s3", 0.5), Pair("s2->s3", 0.5), Pair("s3->B", 1.0)));
}

TEST(SwitchGraphTest, AdaptiveSharesFollowPathCounts) {
  // Three shortest paths s0-s1-s3-s5, s0-s1-s4-s5, s0-s2-s4-s5.
  SwitchGraphSpec spec;
  spec.node_names = {"x", "y"};
  spec.switch_names = {"s0", "s1", "s2", "s3", "s4", "s5"};
  spec.links = {{"s0", "s1"}, {"s0", "s2"}, {"s1", "s3"}, {"s1", "s4"}, {"s2", "s4"},
                {"s3", "s5"}, {"s4", "s5"}, {"x", "s0"},  {"y", "s5"}};
  const SwitchGraphMachine m = Build(spec);
  EXPECT_EQ(m.Hops(0, 1), 5);
  const auto shares = Route(m, 0, 1, Routing::kAdaptive);
  ASSERT_EQ(shares.size(), 9u);
  EXPECT_THAT(shares.at("s0->s1"), DoubleNear(2.0 / 3, 1e-12));
  EXPECT_THAT(shares.at("s0->s2"), DoubleNear(1.0 / 3, 1e-12));
  EXPECT_THAT(shares.at("s1->s3"), DoubleNear(1.0 / 3, 1e-12));
  EXPECT_THAT(shares.at("s1->s4"), DoubleNear(1.0 / 3, 1e-12));
  EXPECT_THAT(shares.at("s2->s4"), DoubleNear(1.0 / 3, 1e-12));
  EXPECT_THAT(shares.at("s3->s5"), DoubleNear(1.0 / 3, 1e-12));
  EXPECT_THAT(shares.at("s4->s5"), DoubleNear(2.0 / 3, 1e-12));
  EXPECT_THAT(shares.at("x->s0"), DoubleNear(1.0, 1e-12));
  EXPECT_THAT(shares.at("s5->y"), DoubleNear(1.0, 1e-12));
  double total = 0;
  for (const auto& [name, share] : shares) total += share;
  EXPECT_THAT(total, DoubleNear(m.Hops(0, 1), 1e-9));
}

TEST(SwitchGraphTest, NodeOnTwoSwitches) {
  SwitchGraphSpec spec = Diamond();
  spec.node_names.push_back("X");
  spec.links.emplace_back("X", "s2");
  spec.links.emplace_back("s1", "X");
  const SwitchGraphMachine m = Build(spec);
  EXPECT_THAT(m.SwitchesOfNode(2), ElementsAre(2, 1));
  EXPECT_EQ(m.Hops(2, 1), 3);  // X-s1-s3-B or X-s2-s3-B
  EXPECT_EQ(m.Hops(0, 2), 3);
  EXPECT_EQ(m.min_hops(), 3);
  EXPECT_EQ(m.max_hops(), 4);
  // Dimension order takes X's first attachment with the smallest distance: s2.
  EXPECT_THAT(RouteLinks(m, 2, 1), ElementsAre("X->s2", "s2->s3", "s3->B"));
  EXPECT_THAT(Route(m, 2, 1, Routing::kAdaptive),
              UnorderedElementsAre(Pair("X->s2", 0.5), Pair("X->s1", 0.5), Pair("s2->s3", 0.5),
                                   Pair("s1->s3", 0.5), Pair("s3->B", 1.0)));
  EXPECT_EQ(m.LinkName(15), "X->s1");
}

TEST(SwitchGraphTest, DisconnectedGetsVirtualRoot) {
  SwitchGraphSpec spec;
  spec.node_names = {"u0", "v0", "w0"};
  spec.switch_names = {"u", "t", "v", "w"};
  // t is u's parent; v and w stand alone.
  spec.links = {{"t", "u"}, {"u", "u0"}, {"v", "v0"}, {"w", "w0"}};
  spec.source = "graph:/some/file.graph";
  const SwitchGraphMachine m = Build(spec);
  EXPECT_EQ(m.Spec(), "graph:/some/file.graph");
  ASSERT_TRUE(m.has_virtual_root());
  EXPECT_EQ(m.num_switches(), 5);
  EXPECT_EQ(m.switch_name(4), "hopmap-root");
  ASSERT_EQ(m.warnings().size(), 1u);
  EXPECT_EQ(m.warnings()[0],
            "the switches form 3 groups that are not connected; added a virtual root switch "
            "'hopmap-root' above t, v, w");
  EXPECT_EQ(m.Hops(0, 1), 5);  // u0-u-t-root-v-v0
  EXPECT_EQ(m.Hops(1, 2), 4);  // v0-v-root-w-w0
  EXPECT_EQ(m.min_hops(), 4);
  EXPECT_EQ(m.max_hops(), 5);
  EXPECT_THAT(RouteLinks(m, 0, 2),
              ElementsAre("u0->u", "u->t", "t->hopmap-root", "hopmap-root->w", "w->w0"));
  EXPECT_EQ(m.num_links(), 14);
}

// ToSpec rebuilds the machine link for link, a virtual root as an ordinary switch.
TEST(SwitchGraphTest, ToSpecRebuildsTheSameMachine) {
  SwitchGraphSpec spec;
  spec.node_names = {"u0", "v0", "w0"};
  spec.switch_names = {"u", "t", "v", "w"};
  spec.links = {{"t", "u"}, {"u", "u0"}, {"v", "v0"}, {"w", "w0"}, {"u0", "u"}};
  spec.source = "graph:/some/file.graph";
  const SwitchGraphMachine m = Build(spec);
  const SwitchGraphSpec again = m.ToSpec();
  EXPECT_EQ(again.source, "graph:/some/file.graph");
  EXPECT_THAT(again.switch_names, ElementsAre("u", "t", "v", "w", "hopmap-root"));
  const SwitchGraphMachine rebuilt = Build(again);
  EXPECT_FALSE(rebuilt.has_virtual_root());
  EXPECT_TRUE(rebuilt.warnings().empty());
  ASSERT_EQ(rebuilt.num_links(), m.num_links());
  for (int64_t link = 0; link < m.num_links(); ++link) {
    EXPECT_EQ(rebuilt.LinkName(link), m.LinkName(link));
  }
  for (NodeId a = 0; a < 3; ++a) {
    EXPECT_EQ(rebuilt.NodeName(a), m.NodeName(a));
    for (NodeId b = 0; b < 3; ++b) EXPECT_EQ(rebuilt.Hops(a, b), m.Hops(a, b));
  }
}

TEST(SwitchGraphTest, VirtualRootNameAvoidsClash) {
  SwitchGraphSpec spec;
  spec.node_names = {"a", "b"};
  spec.switch_names = {"hopmap-root", "s"};
  spec.links = {{"hopmap-root", "a"}, {"s", "b"}};
  const SwitchGraphMachine m = Build(spec);
  EXPECT_EQ(m.switch_name(2), "hopmap-root-2");
  EXPECT_EQ(m.Hops(0, 1), 4);
}

TEST(SwitchGraphTest, DuplicateLinksKeptOnce) {
  SwitchGraphSpec spec = TwoLevelTree();
  spec.links.emplace_back("a0", "la");
  const SwitchGraphMachine m = Build(spec);
  EXPECT_EQ(m.num_links(), 12);
  EXPECT_THAT(m.SwitchesOfNode(0), ElementsAre(1));
  ASSERT_EQ(m.warnings().size(), 1u);
  EXPECT_THAT(m.warnings()[0], HasSubstr("1 duplicate link(s) kept once (the first: 'a0' - 'la')"));
}

TEST(SwitchGraphTest, SingleNode) {
  SwitchGraphSpec spec;
  spec.node_names = {"only"};
  spec.switch_names = {"s"};
  spec.links = {{"s", "only"}};
  const SwitchGraphMachine m = Build(spec);
  EXPECT_EQ(m.min_hops(), 0);
  EXPECT_EQ(m.max_hops(), 0);
  EXPECT_EQ(m.Hops(0, 0), 0);
}

TEST(SwitchGraphTest, CopiesShareDataAndWorkWithAllocation) {
  auto m = std::make_shared<const SwitchGraphMachine>(Build(TwoLevelTree()));
  SwitchGraphMachine copy = *m;
  copy.set_source("graph:elsewhere");
  EXPECT_EQ(copy.Spec(), "graph:elsewhere");
  EXPECT_EQ(m->Spec(), "graph");
  EXPECT_EQ(copy.Hops(0, 2), 4);
  absl::StatusOr<Allocation> alloc = Allocation::Create(m, {3, 0, 1}, 2);
  ASSERT_TRUE(alloc.ok()) << alloc.status();
  EXPECT_EQ(alloc->HopsBetweenPositions(0, 1), 4);
  EXPECT_EQ(alloc->HopsBetweenPositions(1, 2), 2);
}

TEST(SwitchGraphTest, Errors) {
  SwitchGraphSpec spec = TwoLevelTree();
  spec.links.emplace_back("a0", "b1");
  EXPECT_EQ(CreateError(spec),
            "switch graph: link 6 ('a0' - 'b1') joins two compute nodes; connect nodes through a "
            "switch");

  spec = TwoLevelTree();
  spec.node_names.push_back("lonely");
  EXPECT_EQ(CreateError(spec), "switch graph: node 'lonely' (id 4) is attached to no switch");

  spec = TwoLevelTree();
  spec.links.emplace_back("la", "ghost");
  EXPECT_THAT(CreateError(spec), HasSubstr("'ghost' is not a declared node or switch"));

  spec = TwoLevelTree();
  spec.links.emplace_back("la", "la");
  EXPECT_THAT(CreateError(spec), HasSubstr("joins 'la' to itself"));

  spec = TwoLevelTree();
  spec.switch_names.push_back("a1");
  EXPECT_THAT(CreateError(spec), HasSubstr("name 'a1' is given to node 1 and switch 3"));

  spec = TwoLevelTree();
  spec.node_names[2] = "";
  EXPECT_THAT(CreateError(spec), HasSubstr("node 2 has an empty name"));

  EXPECT_THAT(CreateError(SwitchGraphSpec{}), HasSubstr("no compute nodes"));

  spec = TwoLevelTree();
  for (int i = 0; i < SwitchGraphMachine::kMaxSwitches; ++i) {
    spec.switch_names.push_back(absl::StrCat("x", i));
  }
  EXPECT_THAT(CreateError(spec), HasSubstr("8195 switches is more than the 8192"));
}

}  // namespace
}  // namespace hopmap
