// RefineDilation shortens the longest edge: never lengthens it, keeps hop-bytes
// exact, undoes a defect of a good mapping, and repeats itself.
#include "core/mappers/local_search/dilation_refine.h"

#include <memory>
#include <numeric>
#include <vector>

#include "absl/time/clock.h"
#include "core/metrics/hop_bytes.h"
#include "core/topology/torus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/mappers/search_test_util.h"

namespace hopmap {
namespace {

using ::hopmap::testing::ExpectValidMapping;
using ::hopmap::testing::Generate;

const StopCondition kNoDeadline(absl::InfiniteFuture());

// 640 tasks of a random geometric graph on 160 nodes of an 8x8x8 torus in five
// pieces (4 cores each), from the in-order mapping: the longest edge falls, the
// reported figures are the mapping's, and the same call gives the same answer.
TEST(DilationRefineTest, ShortensTheLongestEdgeOnAFragmentedTorus) {
  const TaskGraph graph = Generate("random-geometric", {}, 640);
  const Allocation allocation = testing::FragmentedTorus8();
  ASSERT_EQ(allocation.num_slots(), 640);
  std::vector<SlotId> in_order(640);
  std::iota(in_order.begin(), in_order.end(), SlotId{0});
  DilationRefineStats stats;
  const std::vector<SlotId> refined =
      RefineDilation(graph, allocation, in_order, {}, kNoDeadline, nullptr, &stats);
  ExpectValidMapping(allocation, graph, refined);
  EXPECT_EQ(stats.start_max_dilation, ComputeMaxDilation(graph, allocation, in_order));
  EXPECT_EQ(stats.end_max_dilation, ComputeMaxDilation(graph, allocation, refined));
  EXPECT_EQ(stats.start_hop_bytes, ComputeHopBytes(graph, allocation, in_order));
  EXPECT_EQ(stats.end_hop_bytes, ComputeHopBytes(graph, allocation, refined));
  EXPECT_LE(stats.end_max_dilation, stats.start_max_dilation - 3)
      << stats.start_max_dilation << " -> " << stats.end_max_dilation;
  EXPECT_GT(stats.shortening_exchanges, 0);
  EXPECT_TRUE(stats.local_optimum);
  EXPECT_EQ(RefineDilation(graph, allocation, in_order, {}, kNoDeadline), refined);
  // From its own answer nothing is left to shorten, and hop-bytes do not rise.
  DilationRefineStats again;
  RefineDilation(graph, allocation, refined, {}, kNoDeadline, nullptr, &again);
  EXPECT_EQ(again.shortening_exchanges, 0);
  EXPECT_EQ(again.end_max_dilation, stats.end_max_dilation);
  EXPECT_LE(again.end_hop_bytes, stats.end_hop_bytes);
}

// A ring of 16 tasks on a ring of 16 nodes in order, two of its tasks then
// exchanged: edges of up to 8 hops, which the search takes back to one hop each.
// (From a random scattering pair exchanges stop short of that: moving a task next
// to its neighbour puts its partner far from its own.)
TEST(DilationRefineTest, TwoExchangedTasksOfARingGoBack) {
  const TaskGraph graph = Generate("ring", {}, 16);
  const Allocation allocation = ::hopmap::testing::WholeTorus({16}, 1);
  std::vector<SlotId> in_order(16);
  std::iota(in_order.begin(), in_order.end(), SlotId{0});
  const HopBytes least = ComputeHopBytes(graph, allocation, in_order);
  for (const auto& [a, b] : {std::pair{0, 8}, {3, 9}, {5, 15}}) {
    std::vector<SlotId> start = in_order;
    std::swap(start[a], start[b]);
    DilationRefineStats stats;
    const std::vector<SlotId> refined =
        RefineDilation(graph, allocation, start, {}, kNoDeadline, nullptr, &stats);
    ExpectValidMapping(allocation, graph, refined);
    EXPECT_GE(stats.start_max_dilation, 5) << a << " " << b;
    EXPECT_EQ(stats.end_max_dilation, 1) << a << " " << b;
    EXPECT_EQ(stats.end_hop_bytes, least) << a << " " << b;
  }
}

// Slots may outnumber tasks: a task moves to an empty slot. A cap of work stops the
// search early (not at a local optimum) with the longest edge no longer than it
// was; bad options are refused.
TEST(DilationRefineTest, EmptySlotsCapsAndOptions) {
  const TaskGraph graph = Generate("stencil2d-5", {8, 8});
  const Allocation allocation = ::hopmap::testing::WholeTorus({4, 4, 4}, 2);
  std::vector<SlotId> start(64);
  for (SlotId s = 0; s < 64; ++s) start[s] = (s * 37) % 128;  // scattered, half empty
  DilationRefineStats stats;
  const std::vector<SlotId> refined =
      RefineDilation(graph, allocation, start, {}, kNoDeadline, nullptr, &stats);
  ExpectValidMapping(allocation, graph, refined);
  EXPECT_LT(stats.end_max_dilation, stats.start_max_dilation);
  DilationRefineOptions little;
  little.max_work = 100;
  RefineDilation(graph, allocation, start, little, kNoDeadline, nullptr, &stats);
  EXPECT_FALSE(stats.local_optimum);
  EXPECT_LE(stats.end_max_dilation, stats.start_max_dilation);
  little.max_work = 0;
  EXPECT_THAT(little.Validate().message(), ::testing::HasSubstr("max_work"));
}

}  // namespace
}  // namespace hopmap
