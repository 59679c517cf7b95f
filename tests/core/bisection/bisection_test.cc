// The recursive bisection engine with weights and geometric cuts (the balanced
// problem's use of it; the rec-bisect mapper is tested in tests/core/mappers).
#include "core/bisection/bisection.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "core/metrics/hop_bytes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/mappers/search_test_util.h"

namespace hopmap {
namespace {

using ::hopmap::testing::Generate;
using ::hopmap::testing::WholeTorus;

// Geometric cuts: a 16x8x8 grid of equal weights onto a 4x2x2 torus (64 weight
// per node) gives every node a 4x4x4 box, the boxes laid out as the nodes are
// (neighbouring boxes on neighbouring nodes, so every cut edge is one hop), with
// or without the anchored cut competing; the same grid with one heavy corner
// still fills no node over its capacity.
TEST(BisectionTest, GridCutsGiveAlignedBoxes) {
  const TaskGraph g = Generate("stencil3d-7", {16, 8, 8});
  const Allocation a = WholeTorus({4, 2, 2}, 1);
  const std::vector<int32_t> grid = {16, 8, 8};
  const std::vector<int64_t> weights(g.num_tasks(), 1);
  const StopCondition stop(absl::InfiniteFuture());
  for (bool anchored : {false, true}) {
    RecursiveBisectionOptions options;
    options.anchored_cut = anchored;
    const std::vector<int32_t> position = BisectByWeight({.graph = g,
                                                          .allocation = a,
                                                          .seed = 1,
                                                          .weights = weights,
                                                          .node_capacity = 64,
                                                          .grid_dims = grid},
                                                         options, stop);
    std::vector<std::vector<int32_t>> low(16, {99, 99, 99}), high(16, {-1, -1, -1});
    for (TaskId t = 0; t < g.num_tasks(); ++t) {
      const int32_t c[3] = {t % 16, t / 16 % 8, t / 128};
      for (int d = 0; d < 3; ++d) {
        low[position[t]][d] = std::min(low[position[t]][d], c[d]);
        high[position[t]][d] = std::max(high[position[t]][d], c[d]);
      }
    }
    for (int q = 0; q < 16; ++q) {
      for (int d = 0; d < 3; ++d) EXPECT_EQ(high[q][d] - low[q][d], 3) << q << " " << d;
    }
    // Every edge is inside a node or one hop long.
    std::vector<SlotId> slots(position.begin(), position.end());
    HopBytes cut_bytes = 0;
    for (TaskId t = 0; t < g.num_tasks(); ++t) {
      g.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
        if (t < u && position[t] != position[u]) cut_bytes += w;
      });
    }
    EXPECT_EQ(ComputeHopBytes(g, a, slots), cut_bytes) << (anchored ? "anchored" : "plain");
  }
  // A grid of another size is ignored: the METIS cuts, as without one.
  const std::vector<int32_t> wrong = {16, 8, 4};
  EXPECT_EQ(BisectByWeight({.graph = g,
                            .allocation = a,
                            .seed = 1,
                            .weights = weights,
                            .node_capacity = 64,
                            .grid_dims = wrong},
                           {}, stop),
            BisectByWeight({.graph = g,
                            .allocation = a,
                            .seed = 1,
                            .weights = weights,
                            .node_capacity = 64,
                            .grid_dims = {}},
                           {}, stop));
  std::vector<int64_t> heavy = weights;
  for (TaskId t = 0; t < 64; ++t) heavy[t] = 4;
  const int64_t total = g.num_tasks() + 64 * 3;
  const int64_t capacity = total / 16 + total / 16 / 20;
  const std::vector<int32_t> position = BisectByWeight({.graph = g,
                                                        .allocation = a,
                                                        .seed = 1,
                                                        .weights = heavy,
                                                        .node_capacity = capacity,
                                                        .grid_dims = grid},
                                                       {}, stop);
  std::vector<int64_t> load(16, 0);
  for (TaskId t = 0; t < g.num_tasks(); ++t) load[position[t]] += heavy[t];
  for (int q = 0; q < 16; ++q) EXPECT_LE(load[q], capacity) << q;
}

// Sliding plane cuts (slide_grid_cuts): a 32x16 grid on a 2x2 torus, the left
// half heavy at the bottom rows and the right half at the top, so the two halves'
// row cuts at their weight targets land four rows apart (rows 6 and 10) and the
// edges between them in those rows take two hops. With the cuts slid, the second
// half lines its cut up with the first's: every cut edge is one hop, hop-bytes
// are lower, and no node goes over its capacity.
TEST(BisectionTest, SlidGridCutsLineUpWithTheirNeighbours) {
  const TaskGraph g = Generate("stencil2d-5", {32, 16});
  const Allocation a = WholeTorus({2, 2}, 1);
  const std::vector<int32_t> grid = {32, 16};
  std::vector<int64_t> weights(g.num_tasks(), 1);
  for (TaskId t = 0; t < g.num_tasks(); ++t) {
    const int32_t x = t % 32, y = t / 32;
    if ((x < 16 && y < 4) || (x >= 16 && y >= 12)) weights[t] = 2;
  }
  const int64_t capacity = 240;  // 1.5 x the average node (160)
  const StopCondition stop(absl::InfiniteFuture());
  auto hop_bytes_and_longest = [&](const std::vector<int32_t>& position) {
    HopBytes hop_bytes = 0;
    int32_t longest = 0;
    for (TaskId t = 0; t < g.num_tasks(); ++t) {
      g.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
        const int32_t hops = a.HopsBetweenPositions(position[t], position[u]);
        hop_bytes += w * hops;
        longest = std::max(longest, hops);
      });
    }
    return std::make_pair(hop_bytes / 2, longest);
  };
  RecursiveBisectionOptions options;
  options.anchored_cut = false;
  options.refine_passes = 0;  // the cuts as they are placed
  const std::vector<int32_t> plain = BisectByWeight({.graph = g,
                                                     .allocation = a,
                                                     .seed = 1,
                                                     .weights = weights,
                                                     .node_capacity = capacity,
                                                     .grid_dims = grid},
                                                    options, stop);
  options.slide_grid_cuts = true;
  const std::vector<int32_t> slid = BisectByWeight({.graph = g,
                                                    .allocation = a,
                                                    .seed = 1,
                                                    .weights = weights,
                                                    .node_capacity = capacity,
                                                    .grid_dims = grid},
                                                   options, stop);
  EXPECT_EQ(slid, BisectByWeight({.graph = g,
                                  .allocation = a,
                                  .seed = 1,
                                  .weights = weights,
                                  .node_capacity = capacity,
                                  .grid_dims = grid},
                                 options, stop));
  const auto [plain_cost, plain_longest] = hop_bytes_and_longest(plain);
  const auto [slid_cost, slid_longest] = hop_bytes_and_longest(slid);
  EXPECT_EQ(plain_longest, 2);
  EXPECT_EQ(slid_longest, 1);
  EXPECT_LT(slid_cost, plain_cost);
  for (const std::vector<int32_t>* position : {&plain, &slid}) {
    std::vector<int64_t> load(4, 0);
    for (TaskId t = 0; t < g.num_tasks(); ++t) load[(*position)[t]] += weights[t];
    for (int q = 0; q < 4; ++q) EXPECT_LE(load[q], capacity) << q;
  }
}

}  // namespace
}  // namespace hopmap
