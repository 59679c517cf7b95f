#include "core/topology/gpu_cluster.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// `hosts` hosts h0..: domains of `domain` consecutive hosts (1: none), leaf groups
// of `leaf`.
GpuClusterSpec RunsSpec(int32_t hosts, int32_t domain, int32_t leaf, int32_t gpus = 4) {
  GpuClusterSpec spec;
  spec.gpus_per_host = gpus;
  for (int32_t h = 0; h < hosts; ++h) {
    spec.host_names.push_back(absl::StrCat("h", h));
    spec.leaf_of_host.push_back(h / leaf);
    if (domain > 1) spec.domain_of_host.push_back(h / domain);
  }
  return spec;
}

// The links of a route with their shares, by name.
std::vector<std::string> RouteNames(const GpuClusterMachine& m, NodeId a, NodeId b,
                                    Routing routing = Routing::kDimensionOrder) {
  std::vector<std::string> names;
  m.ForEachRouteLink(a, b, routing, [&](int64_t link, double share) {
    EXPECT_EQ(share, 1.0);
    EXPECT_GE(link, 0);
    EXPECT_LT(link, m.num_links());
    names.push_back(m.LinkName(link));
  });
  return names;
}

// 12 hosts: NVLink domains of 2, leaf groups of 4 (3 groups). F = 450/50 = 9.
TEST(GpuClusterTest, HopsFollowDomainsAndLeafGroups) {
  absl::StatusOr<GpuClusterMachine> m = GpuClusterMachine::Create(RunsSpec(12, 2, 4));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->kind(), "gpu");
  EXPECT_EQ(m->num_nodes(), 12);
  EXPECT_EQ(m->cores_per_node(), 4);
  EXPECT_EQ(m->fabric_hop_cost(), 9);
  EXPECT_EQ(m->Hops(3, 3), 0);
  EXPECT_EQ(m->Hops(0, 1), 2);   // one domain
  EXPECT_EQ(m->Hops(0, 2), 18);  // one leaf group
  EXPECT_EQ(m->Hops(0, 4), 36);  // across the spine
  EXPECT_EQ(m->Hops(4, 0), 36);
  EXPECT_EQ(m->min_hops(), 2);
  EXPECT_EQ(m->max_hops(), 36);
  EXPECT_EQ(m->DomainOf(5), 2);
  EXPECT_EQ(m->LeafOf(5), 1);
  EXPECT_EQ(m->NodeName(7), "h7");
  EXPECT_THAT(m->dims(), ElementsAre(3, 2, 2));
  EXPECT_THAT(m->dim_names(), ElementsAre("L", "D", "H"));
  std::vector<int32_t> c(3);
  m->Coordinates(7, c);  // leaf 1, its second domain, second host
  EXPECT_THAT(c, ElementsAre(1, 1, 1));
}

TEST(GpuClusterTest, MinAndMaxHopsAreThePairClassesThatOccur) {
  // No NVLink domains: the closest pair shares a leaf group.
  absl::StatusOr<GpuClusterMachine> m = GpuClusterMachine::Create(RunsSpec(8, 1, 4));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->min_hops(), 18);
  EXPECT_EQ(m->max_hops(), 36);
  // One leaf group that is one domain: every pair is 2 apart.
  m = GpuClusterMachine::Create(RunsSpec(4, 4, 4));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->min_hops(), 2);
  EXPECT_EQ(m->max_hops(), 2);
  // F rounds nvlink/rail and is at least 1.
  GpuClusterSpec spec = RunsSpec(4, 1, 2);
  spec.fabric.rail_bandwidth = 1e12;
  m = GpuClusterMachine::Create(spec);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->fabric_hop_cost(), 1);
  EXPECT_EQ(m->max_hops(), 4);
}

TEST(GpuClusterTest, BallSizesAreExact) {
  for (const GpuClusterSpec& spec : {RunsSpec(12, 2, 4), RunsSpec(10, 1, 4), RunsSpec(6, 3, 6)}) {
    absl::StatusOr<GpuClusterMachine> m = GpuClusterMachine::Create(spec);
    ASSERT_TRUE(m.ok());
    const std::vector<int64_t> balls = m->BallSizeUpperBounds();
    ASSERT_EQ(balls.size(), static_cast<size_t>(m->max_hops() + 1));
    for (int32_t h = 0; h <= m->max_hops(); ++h) {
      int64_t most = 0;
      for (NodeId a = 0; a < m->num_nodes(); ++a) {
        int64_t count = 0;
        for (NodeId b = 0; b < m->num_nodes(); ++b) count += m->Hops(a, b) <= h;
        most = std::max(most, count);
      }
      EXPECT_EQ(balls[h], most) << h;
    }
  }
}

TEST(GpuClusterTest, RoutesClimbOnlyAsHighAsTheyMust) {
  GpuClusterSpec spec = RunsSpec(12, 2, 4);
  spec.leaf_names = {"su0", "", "su2"};
  spec.domain_names = {"", "nvl1", "", "", "", ""};
  absl::StatusOr<GpuClusterMachine> m = GpuClusterMachine::Create(spec);
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(RouteNames(*m, 5, 5).empty());
  EXPECT_THAT(RouteNames(*m, 2, 3), ElementsAre("h2 -> nvl1 nvlink", "nvl1 nvlink -> h3"));
  EXPECT_THAT(RouteNames(*m, 0, 3), ElementsAre("h0 -> su0 rails", "su0 rails -> h3"));
  EXPECT_THAT(RouteNames(*m, 0, 9),
              ElementsAre("h0 -> su0 rails", "su0 -> spine", "spine -> su2", "su2 rails -> h9"));
  EXPECT_THAT(
      RouteNames(*m, 9, 4, Routing::kAdaptive),
      ElementsAre("h9 -> su2 rails", "su2 -> spine", "spine -> leaf1", "leaf1 rails -> h4"));
}

TEST(GpuClusterTest, LinksHaveTheirClassesAndFigures) {
  GpuClusterSpec spec = RunsSpec(12, 2, 4, 8);
  spec.fabric.oversubscription = 2;
  spec.fabric.nvlink_latency = 2e-6;
  spec.fabric.rail_latency = 3e-6;
  absl::StatusOr<GpuClusterMachine> m = GpuClusterMachine::Create(spec);
  ASSERT_TRUE(m.ok());
  // 12 hosts x 2 rail directions, 3 groups x 2 spine directions, 12 x 2 NVLink.
  ASSERT_EQ(m->num_links(), 24 + 6 + 24);
  std::map<std::string, int> count;
  std::set<std::string> names;
  for (int64_t l = 0; l < m->num_links(); ++l) {
    ++count[m->LinkClass(l)];
    EXPECT_TRUE(names.insert(m->LinkName(l)).second) << m->LinkName(l);
    const std::string cls = m->LinkClass(l);
    const double bandwidth = *m->LinkBandwidthOf(l);
    if (cls == "nvlink") {
      EXPECT_DOUBLE_EQ(bandwidth, 8 * 450e9);
      EXPECT_DOUBLE_EQ(*m->LinkLatencyOf(l), 2e-6);
    } else if (cls == "rail") {
      EXPECT_DOUBLE_EQ(bandwidth, 8 * 50e9);
      EXPECT_DOUBLE_EQ(*m->LinkLatencyOf(l), 3e-6);
    } else {
      EXPECT_EQ(cls, "spine");
      EXPECT_DOUBLE_EQ(bandwidth, 4 * 8 * 50e9 / 2);  // 4 hosts per group, half up
      EXPECT_DOUBLE_EQ(*m->LinkLatencyOf(l), 3e-6);
    }
  }
  EXPECT_EQ(count["nvlink"], 24);
  EXPECT_EQ(count["rail"], 24);
  EXPECT_EQ(count["spine"], 6);
  EXPECT_DOUBLE_EQ(*m->NodeBandwidth(), 450e9);
  // One leaf group and no domains: only rails.
  m = GpuClusterMachine::Create(RunsSpec(3, 1, 4));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->num_links(), 6);
}

TEST(GpuClusterTest, SpecReadsBackOrIsTheSource) {
  absl::StatusOr<GpuClusterMachine> m = GpuClusterMachine::Create(RunsSpec(12, 2, 4, 8));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->Spec(), "gpu:12:gpus=8:domain=2:leaf=4");
  GpuClusterSpec spec = RunsSpec(40, 1, 40);
  spec.fabric.rail_bandwidth = 25e9;
  spec.fabric.oversubscription = 1.5;
  m = GpuClusterMachine::Create(spec);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->Spec(), "gpu:40:gpus=4:leaf=40:rail-bandwidth=2.5e+10:oversubscription=1.5");
  spec = RunsSpec(2, 1, 2);
  spec.source = "gpu-slurm:topology.yaml";
  m = GpuClusterMachine::Create(spec);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->Spec(), "gpu-slurm:topology.yaml");
}

// Each bad spec and a piece of the error it must give.
TEST(GpuClusterTest, BadSpecsNameTheirField) {
  std::vector<std::pair<GpuClusterSpec, std::string>> cases;
  auto add = [&](auto change, std::string error) {
    GpuClusterSpec spec = RunsSpec(8, 2, 4);
    change(spec);
    cases.emplace_back(std::move(spec), std::move(error));
  };
  add([](GpuClusterSpec& s) { s = GpuClusterSpec{}; }, "host_names: needs at least one host");
  add([](GpuClusterSpec& s) { s.host_names[3] = ""; }, "host_names[3] is empty");
  add([](GpuClusterSpec& s) { s.host_names[3] = "h1"; }, "host_names[3] 'h1' is repeated");
  add([](GpuClusterSpec& s) { s.gpus_per_host = 0; }, "gpus_per_host (gpus=) must be from 1 to 64");
  add([](GpuClusterSpec& s) { s.gpus_per_host = 65; }, "got 65");
  add([](GpuClusterSpec& s) { s.leaf_of_host.pop_back(); }, "leaf_of_host has 7 entries for 8");
  add([](GpuClusterSpec& s) { s.domain_of_host.pop_back(); }, "domain_of_host has 7 entries");
  add([](GpuClusterSpec& s) { s.leaf_of_host[0] = -1; }, "leaf_of_host[0] is -1");
  add([](GpuClusterSpec& s) { s.leaf_of_host = {0, 0, 0, 0, 2, 2, 2, 2}; },
      "leaf_of_host skips id 1");
  add([](GpuClusterSpec& s) { s.domain_of_host = {0, 0, 1, 1, 2, 2, 3, 5}; },
      "domain_of_host skips id 4");
  add([](GpuClusterSpec& s) { s.domain_of_host = {0, 0, 1, 2, 2, 3, 3, 3}; },
      "domain 2 spans leaf groups 0 and 1");
  add([](GpuClusterSpec& s) { s.leaf_names = {"a"}; }, "leaf_names has 1 names for 2 ids");
  add([](GpuClusterSpec& s) { s.domain_names = {"a", "b"}; }, "domain_names has 2 names for 4");
  add([](GpuClusterSpec& s) { s.fabric.nvlink_bandwidth = 10; },
      "nvlink_bandwidth (nvlink-bandwidth=) must be from 1000");
  add([](GpuClusterSpec& s) { s.fabric.rail_bandwidth = 1e15; },
      "rail_bandwidth (rail-bandwidth=) must be");
  add([](GpuClusterSpec& s) { s.fabric.nvlink_latency = 0; },
      "nvlink_latency (nvlink-latency=) must be above 0");
  add([](GpuClusterSpec& s) { s.fabric.rail_latency = 2; }, "rail_latency (rail-latency=)");
  add([](GpuClusterSpec& s) { s.fabric.oversubscription = 0.5; },
      "oversubscription (oversubscription=) must be at least 1");
  for (auto& [spec, error] : cases) {
    absl::StatusOr<GpuClusterMachine> m = GpuClusterMachine::Create(spec);
    ASSERT_FALSE(m.ok()) << error;
    EXPECT_THAT(m.status().message(), HasSubstr(error));
    EXPECT_THAT(m.status().message(), HasSubstr("gpu cluster: "));
  }
}

}  // namespace
}  // namespace hopmap
