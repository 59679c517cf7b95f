// The estimate of an exchange's time the time objective ranks by: hand-computed
// cases of LV08's figures (latency x 13.01, bytes over 0.97 x bandwidth).
#include "core/metrics/exchange_time.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/metrics/link_loads.h"
#include "core/search/random_stream.h"
#include "core/topology/distance_matrix.h"
#include "core/topology/torus.h"
#include "gtest/gtest.h"
#include "tests/core/metrics/metrics_test_util.h"

namespace hopmap {
namespace {

using testing::MakeGraph;

// A line of `nodes` (a mesh), links of 1 GB/s and 1 us.
std::shared_ptr<Machine> MakeLine(int32_t nodes, int32_t cores = 1) {
  auto line = std::make_shared<TorusMachine>(*TorusMachine::Create({nodes}, {false}));
  line->set_link_bandwidth(1e9);
  line->set_link_latency(1e-6);
  line->set_cores_per_node(cores);
  return line;
}

ExchangeTimeEstimate MustEstimate(const TaskGraph& graph, const Allocation& allocation,
                                  std::vector<SlotId> slots) {
  std::optional<ExchangeTimeEstimate> e =
      EstimateExchangeTime(graph, allocation, slots, Routing::kDimensionOrder);
  EXPECT_TRUE(e.has_value());
  return e.value_or(ExchangeTimeEstimate{});
}

TEST(ExchangeTimeTest, OneMessageTakesItsRoutesLatencyThenItsBytes) {
  const Allocation line = *Allocation::WholeMachine(MakeLine(8));
  const TaskGraph graph = MakeGraph(2, {{0, 1, 2'000'000}});  // 1 MB each way
  const ExchangeTimeEstimate far = MustEstimate(graph, line, {0, 7});
  EXPECT_DOUBLE_EQ(far.latency_seconds, 13.01 * 7 * 1e-6);
  EXPECT_DOUBLE_EQ(far.link_seconds, 1e6 / (0.97 * 1e9));
  EXPECT_DOUBLE_EQ(far.seconds, far.latency_seconds + far.link_seconds);
  // Its first link (each direction's) is done as late as the message: the tie goes
  // to a link.
  EXPECT_GE(far.link, 0);
  EXPECT_LT(MustEstimate(graph, line, {0, 1}).seconds, far.seconds);
}

TEST(ExchangeTimeTest, ALinkIsDoneWhenItsFirstMessageStartsPlusAllItsBytes) {
  const Allocation line = *Allocation::WholeMachine(MakeLine(4));
  const TaskGraph graph = MakeGraph(4, {{0, 2, 2'000'000}, {1, 3, 4'000'000}, {2, 3, 8'000'000}});
  const ExchangeTimeEstimate e = MustEstimate(graph, line, {0, 1, 2, 3});
  // Link 2->3 carries 2 MB (1->3, 2 hops) and 4 MB (2->3, 1 hop), the busiest with
  // 3->2: it starts when 2->3 has waited its one link's latency.
  EXPECT_DOUBLE_EQ(e.latency_seconds, 13.01 * 1e-6);
  EXPECT_DOUBLE_EQ(e.link_seconds, 6e6 / (0.97 * 1e9));
  EXPECT_GE(e.link, 0);
  EXPECT_EQ(e.src, -1);
  // A small message that starts early leaves a link to a long one: the long one
  // decides, with its own latency and bytes (link 1->2's 1.001 MB from 13 us end
  // sooner; link 0->1, which carries it alone, as late: ties go to the link).
  const TaskGraph lone = MakeGraph(4, {{0, 3, 2'000'000}, {1, 2, 2'000}});
  const ExchangeTimeEstimate far = MustEstimate(lone, line, {0, 1, 2, 3});
  EXPECT_DOUBLE_EQ(far.latency_seconds, 13.01 * 3 * 1e-6);
  EXPECT_DOUBLE_EQ(far.seconds, 13.01 * 3 * 1e-6 + 1e6 / (0.97 * 1e9));
}

TEST(ExchangeTimeTest, MessagesInsideANodeUseTheLoopbackAlone) {
  const Allocation pair = *Allocation::WholeMachine(MakeLine(2, /*cores=*/2));
  const TaskGraph graph = MakeGraph(2, {{0, 1, 2'000'000}});
  const ExchangeTimeEstimate same_node = MustEstimate(graph, pair, {0, 1});
  EXPECT_DOUBLE_EQ(same_node.seconds, 1e6 / (0.97 * kNodeBandwidth));
  EXPECT_EQ(same_node.latency_seconds, 0);
  EXPECT_GT(MustEstimate(graph, pair, {0, 2}).seconds, same_node.seconds);
}

TEST(ExchangeTimeTest, NoTrafficOrNoLinks) {
  const Allocation line = *Allocation::WholeMachine(MakeLine(2));
  const ExchangeTimeEstimate idle = MustEstimate(MakeGraph(2, {}), line, {0, 1});
  EXPECT_EQ(idle.seconds, 0);
  EXPECT_EQ(idle.src, -1);
  auto matrix =
      std::make_shared<DistanceMatrixMachine>(*DistanceMatrixMachine::Create(2, {0, 1, 1, 0}));
  const Allocation hops_only = *Allocation::WholeMachine(matrix);
  const SlotId slots[] = {0, 1};
  EXPECT_FALSE(
      EstimateExchangeTime(MakeGraph(2, {{0, 1, 10}}), hops_only, slots, Routing::kDimensionOrder)
          .has_value());
}

// Given no loads, the estimate sums them on its own walk over the routes: the same
// answer as with ComputeLinkLoads', under both routings, with messages inside
// nodes, odd sizes and 1-byte edges (one way only); and it returns them when asked.
TEST(ExchangeTimeTest, TheLoadsItSumsAreComputeLinkLoads) {
  auto torus =
      std::make_shared<TorusMachine>(*TorusMachine::Create({4, 4, 3}, {true, true, false}));
  torus->set_cores_per_node(2);
  const Allocation allocation = *Allocation::WholeMachine(torus);
  std::vector<std::array<int64_t, 3>> edges;
  RandomStream random(7, 0);
  for (TaskId u = 0; u < 96; ++u) {
    for (int k = 0; k < 3; ++k) {
      const auto v = static_cast<TaskId>(random.Below(96));
      if (v != u) {
        edges.push_back({u, v, k == 0 ? 1 : 1 + static_cast<int64_t>(random.Below(100'000))});
      }
    }
  }
  const TaskGraph graph = MakeGraph(96, edges);
  std::vector<SlotId> slots(96);
  for (SlotId s = 0; s < 96; ++s) slots[s] = (s * 37) % 96;
  for (Routing routing : {Routing::kDimensionOrder, Routing::kAdaptive}) {
    const LinkLoads loads = ComputeLinkLoads(graph, allocation, slots, routing);
    const std::optional<ExchangeTimeEstimate> given =
        EstimateExchangeTime(graph, allocation, slots, routing, &loads);
    const std::optional<ExchangeTimeEstimate> summed =
        EstimateExchangeTime(graph, allocation, slots, routing);
    ASSERT_TRUE(given.has_value() && summed.has_value());
    EXPECT_EQ(summed->seconds, given->seconds);
    EXPECT_EQ(summed->link, given->link);
    EXPECT_EQ(summed->src, given->src);
    EXPECT_EQ(summed->dst, given->dst);
    EXPECT_GT(summed->link, -1);  // a link decides here, so the loads matter
    // What a report calls: the same estimate, and the loads it summed are
    // ComputeLinkLoads' to the unit.
    LinkLoads returned;
    const std::optional<ExchangeTimeEstimate> both =
        EstimateExchangeTimeAndLoads(graph, allocation, slots, routing, returned);
    ASSERT_TRUE(both.has_value());
    EXPECT_EQ(both->seconds, given->seconds);
    EXPECT_EQ(both->link, given->link);
    EXPECT_TRUE(returned.available());
    EXPECT_EQ(returned.bytes_on_link, loads.bytes_on_link);
    EXPECT_EQ(returned.max_load, loads.max_load);
    EXPECT_EQ(returned.average_load, loads.average_load);
    EXPECT_EQ(returned.links_used, loads.links_used);
  }
}

}  // namespace
}  // namespace hopmap
