#include "core/metrics/hop_histogram.h"

#include <memory>
#include <numeric>

#include "core/graph/generators.h"
#include "core/metrics/hop_bytes.h"
#include "core/topology/torus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

std::shared_ptr<const Machine> Ring(int32_t n) {
  return std::make_shared<TorusMachine>(*TorusMachine::Create({n}, {true}));
}

TEST(BytesByHopsTest, HandComputed) {
  // A path 0-1-2-3 with weights 10, 20, 30; tasks 0,1,2,3 on nodes 0,2,1,3 of a
  // 4-ring, two cores each would not matter: one core here.
  TaskGraphBuilder b(4);
  ASSERT_TRUE(b.AddTraffic(0, 1, 10).ok());
  ASSERT_TRUE(b.AddTraffic(1, 2, 20).ok());
  ASSERT_TRUE(b.AddTraffic(2, 3, 30).ok());
  ASSERT_TRUE(b.AddTraffic(3, 3, 7).ok());  // self traffic: not in the histogram
  const TaskGraph g = *std::move(b).Build();
  const Allocation alloc = *Allocation::WholeMachine(Ring(4));
  const SlotId far[] = {0, 2, 1, 3};
  // 0-1: nodes 0,2 = 2 hops; 1-2: nodes 2,1 = 1 hop; 2-3: nodes 1,3 = 2 hops.
  EXPECT_THAT(BytesByHops(g, alloc, far), ::testing::ElementsAre(0, 20, 40));
  const Allocation two_cores = *Allocation::Create(Ring(4), {0, 2}, 2);
  const SlotId paired[] = {0, 1, 2, 3};  // {0,1} on node 0, {2,3} on node 2
  EXPECT_THAT(BytesByHops(g, two_cores, paired), ::testing::ElementsAre(40, 0, 20));
}

TEST(BytesByHopsTest, SumsToTotalBytesAndHopBytes) {
  GeneratorOptions options;
  options.kind = "random-geometric";
  options.tasks = 4096;
  const TaskGraph g = *GenerateGraph(options);
  const Allocation alloc = *Allocation::WholeMachine(
      std::make_shared<TorusMachine>(*TorusMachine::Create({16, 16, 16}, {true, true, true})));
  std::vector<SlotId> in_order(4096);
  std::iota(in_order.begin(), in_order.end(), 0);
  const std::vector<Bytes> bins = BytesByHops(g, alloc, in_order);
  ASSERT_EQ(bins.size(), 25u);  // diameter 8 + 8 + 8
  Bytes bytes = 0;
  HopBytes hop_bytes = 0;
  for (size_t h = 0; h < bins.size(); ++h) {
    bytes += bins[h];
    hop_bytes += static_cast<HopBytes>(h) * bins[h];
  }
  EXPECT_EQ(bytes, g.total_bytes());
  EXPECT_EQ(hop_bytes, ComputeHopBytes(g, alloc, in_order));
}

}  // namespace
}  // namespace hopmap
