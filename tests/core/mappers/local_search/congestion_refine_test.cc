// RefineCongestion lowers the busiest link: never raises it, stops at a mapping no
// single exchange near a crossing task can improve, and repeats itself.
#include "core/mappers/local_search/congestion_refine.h"

#include <memory>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/metrics/link_loads.h"
#include "core/topology/gpu_cluster.h"
#include "core/topology/torus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/mappers/search_test_util.h"

namespace hopmap {
namespace {

using ::hopmap::testing::ExpectValidMapping;
using ::hopmap::testing::Generate;

const StopCondition kNoDeadline(absl::InfiniteFuture());

// 1,024 tasks of a random geometric graph on 256 nodes of an 8x8x8 torus in three
// pieces (4 cores each), from the in-order mapping and from rec-bisect's.
TEST(CongestionRefineTest, LowersTheBusiestLinkAndNeverRaisesIt) {
  const TaskGraph graph = Generate("random-geometric", {}, 1024);
  auto torus = std::make_shared<TorusMachine>(*TorusMachine::Create({8, 8, 8}, {true, true, true}));
  std::vector<NodeId> nodes;
  for (NodeId n = 88; n <= 118; ++n) nodes.push_back(n);
  for (NodeId n = 146; n <= 321; ++n) nodes.push_back(n);
  for (NodeId n = 389; n <= 437; ++n) nodes.push_back(n);
  const Allocation allocation = *Allocation::Create(torus, nodes, 4);
  ASSERT_EQ(allocation.num_slots(), 1024);
  std::vector<SlotId> in_order(1024);
  std::iota(in_order.begin(), in_order.end(), SlotId{0});
  // Adaptive routes spread over every minimal path: many more links a route, so a
  // cap of work (the portfolio sets one from the budget).
  CongestionRefineOptions options;
  options.max_work = 5'000'000;
  for (const Routing routing : {Routing::kDimensionOrder, Routing::kAdaptive}) {
    const double before = ComputeLinkLoads(graph, allocation, in_order, routing).max_load;
    CongestionRefineStats stats;
    const std::vector<SlotId> refined = RefineCongestion(graph, allocation, in_order, routing,
                                                         options, kNoDeadline, nullptr, &stats);
    ExpectValidMapping(allocation, graph, refined);
    const double after = ComputeLinkLoads(graph, allocation, refined, routing).max_load;
    EXPECT_EQ(stats.start_max_load, before);
    EXPECT_EQ(stats.end_max_load, after);
    // Dimension-order routing to its local optimum; adaptive routing as far as the
    // cap of work goes.
    EXPECT_LT(after, (routing == Routing::kDimensionOrder ? 0.8 : 0.95) * before)
        << "routing " << static_cast<int>(routing);
    EXPECT_GT(stats.exchanges, 0);
    // The same answer again (a count of work, no clock).
    EXPECT_EQ(RefineCongestion(graph, allocation, in_order, routing, options, kNoDeadline),
              refined);
  }
}

// The caps: no exchange allowed leaves the mapping as it was; a work cap stops it
// early (not at a local optimum); bad options are refused.
TEST(CongestionRefineTest, CapsAndOptions) {
  const TaskGraph graph = Generate("stencil2d-5", {16, 16});
  const Allocation allocation = ::hopmap::testing::WholeTorus({4, 4, 4}, 4);
  std::vector<SlotId> start(256);
  for (SlotId s = 0; s < 256; ++s) start[s] = (s * 37) % 256;  // scattered
  CongestionRefineOptions none;
  none.max_exchanges_per_task = 0;
  CongestionRefineStats stats;
  EXPECT_EQ(RefineCongestion(graph, allocation, start, Routing::kDimensionOrder, none, kNoDeadline,
                             nullptr, &stats),
            start);
  EXPECT_EQ(stats.exchanges, 0);
  CongestionRefineOptions little;
  little.max_work = 1000;
  RefineCongestion(graph, allocation, start, Routing::kDimensionOrder, little, kNoDeadline, nullptr,
                   &stats);
  EXPECT_FALSE(stats.local_optimum);
  EXPECT_LE(stats.end_max_load, stats.start_max_load);
  none.max_exchanges_per_task = -1;
  EXPECT_THAT(none.Validate().message(), ::testing::HasSubstr("max_exchanges_per_task"));
  little.max_work = 0;
  EXPECT_THAT(little.Validate().message(), ::testing::HasSubstr("max_work"));
}

// Six one-GPU hosts in NVLink domains of two (h0 h1 | h2 h3 | h4 h5) under one leaf:
// tasks 0 and 1 exchange 1,000 bytes over NVLink (450 GB/s), tasks 2 and 4, on h2 and
// h4, 200 bytes over their rails (50 GB/s). By bytes the NVLink pair is the busiest
// and no exchange can lower it; by the time the bytes take, the rails are, and
// moving task 4 beside task 2 (onto h3) empties them.
TEST(CongestionRefineTest, ByLinkTimeTakesTheSlowestLinkNotTheFullest) {
  GpuClusterSpec spec;
  spec.gpus_per_host = 1;
  for (int32_t h = 0; h < 6; ++h) {
    spec.host_names.push_back(absl::StrCat("h", h));
    spec.domain_of_host.push_back(h / 2);
    spec.leaf_of_host.push_back(0);
  }
  spec.fabric.nvlink_bandwidth = 450e9;
  spec.fabric.rail_bandwidth = 50e9;
  auto machine = std::make_shared<GpuClusterMachine>(*GpuClusterMachine::Create(spec));
  const Allocation allocation = *Allocation::WholeMachine(machine);
  TaskGraphBuilder builder(6);
  ASSERT_TRUE(builder.AddTraffic(0, 1, 1000).ok());
  ASSERT_TRUE(builder.AddTraffic(2, 4, 200).ok());
  const TaskGraph graph = *std::move(builder).Build();
  const std::vector<SlotId> in_order = {0, 1, 2, 3, 4, 5};

  CongestionRefineStats by_bytes;
  const std::vector<SlotId> same = RefineCongestion(
      graph, allocation, in_order, Routing::kDimensionOrder, {}, kNoDeadline, nullptr, &by_bytes);
  EXPECT_EQ(same, in_order);
  EXPECT_EQ(by_bytes.exchanges, 0);
  EXPECT_EQ(by_bytes.start_max_load, 500);  // each way of the NVLink pair

  CongestionRefineOptions options;
  options.by_link_time = true;
  CongestionRefineStats by_time;
  const std::vector<SlotId> moved =
      RefineCongestion(graph, allocation, in_order, Routing::kDimensionOrder, options, kNoDeadline,
                       nullptr, &by_time);
  ExpectValidMapping(allocation, graph, moved);
  EXPECT_EQ(by_time.start_max_load, 100);  // each way of the rails of h2 and h4
  EXPECT_GE(by_time.exchanges, 1);
  EXPECT_EQ(by_time.end_max_load, 500);  // the NVLink pair is now the slowest
  EXPECT_EQ(moved[2] / 2, moved[4] / 2) << "tasks 2 and 4 share a domain";
  const LinkLoads loads = ComputeLinkLoads(graph, allocation, moved, Routing::kDimensionOrder);
  for (int64_t link = 0; link < machine->num_links(); ++link) {
    if (machine->LinkClass(link) == "rail") {
      EXPECT_EQ(loads.bytes_on_link[link], 0) << link;
    }
  }
}

}  // namespace
}  // namespace hopmap
