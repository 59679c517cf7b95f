#include "core/graph/generators.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <numbers>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr Bytes kB = 100;

GeneratorOptions Grid(std::string kind, std::vector<int32_t> dims, bool wrap = false) {
  GeneratorOptions o;
  o.kind = std::move(kind);
  o.dims = std::move(dims);
  o.wrap = wrap;
  o.bytes = kB;
  return o;
}

GeneratorOptions Tasks(std::string kind, int32_t tasks) {
  GeneratorOptions o;
  o.kind = std::move(kind);
  o.tasks = tasks;
  o.bytes = kB;
  return o;
}

TaskGraph MustGenerate(const GeneratorOptions& o) {
  absl::StatusOr<TaskGraph> g = GenerateGraph(o);
  EXPECT_TRUE(g.ok()) << g.status();
  if (!g.ok()) return TaskGraph();
  return *std::move(g);
}

// Weight of edge u-v, 0 if absent.
Bytes Weight(const TaskGraph& g, TaskId u, TaskId v) {
  Bytes w = 0;
  g.ForEachNeighbor(u, [&](TaskId x, Bytes b) {
    if (x == v) w = b;
  });
  return w;
}

std::vector<TaskId> Neighbours(const TaskGraph& g, TaskId u) {
  std::vector<TaskId> out;
  g.ForEachNeighbor(u, [&](TaskId x, Bytes) { out.push_back(x); });
  return out;
}

std::vector<int64_t> Degrees(const TaskGraph& g) {
  std::vector<int64_t> d;
  for (TaskId u = 0; u < g.num_tasks(); ++u) d.push_back(g.degree(u));
  return d;
}

TEST(GeneratorsTest, Stencil2d5NoWrap) {
  TaskGraph g = MustGenerate(Grid("stencil2d-5", {4, 3}));
  EXPECT_EQ(g.num_tasks(), 12);
  EXPECT_EQ(g.num_edges(), 17);  // 3 rows x 3 + 4 columns x 2
  EXPECT_THAT(g.adjwgt(), Each(2 * kB));
  EXPECT_EQ(g.total_bytes(), 17 * 2 * kB);
  EXPECT_EQ(g.self_bytes(), 0);
  EXPECT_THAT(Neighbours(g, 0), ElementsAre(1, 4));
  EXPECT_THAT(Neighbours(g, 5), ElementsAre(1, 4, 6, 9));  // (1,1)
  EXPECT_THAT(Neighbours(g, 11), ElementsAre(7, 10));
}

TEST(GeneratorsTest, Stencil2d5Wrap) {
  TaskGraph g = MustGenerate(Grid("stencil2d-5", {4, 3}, true));
  EXPECT_EQ(g.num_edges(), 24);
  EXPECT_THAT(Degrees(g), Each(4));
  EXPECT_THAT(g.adjwgt(), Each(2 * kB));
  EXPECT_THAT(Neighbours(g, 0), ElementsAre(1, 3, 4, 8));
}

TEST(GeneratorsTest, WrapOnSizeTwoAddsUpAndSizeOneIsSelfTraffic) {
  // 2 x 3 torus: along x, +1 and -1 are the same task: 4b on those 3 edges.
  TaskGraph g = MustGenerate(Grid("stencil2d-5", {2, 3}, true));
  EXPECT_EQ(g.num_edges(), 3 + 6);
  EXPECT_EQ(Weight(g, 0, 1), 4 * kB);
  EXPECT_EQ(Weight(g, 2, 3), 4 * kB);
  EXPECT_EQ(Weight(g, 0, 2), 2 * kB);
  EXPECT_EQ(Weight(g, 0, 4), 2 * kB);
  // Every task sends 4 messages of b.
  EXPECT_EQ(g.total_bytes(), 6 * 4 * kB);

  // 4 x 1 torus: the y neighbours are the task itself.
  TaskGraph h = MustGenerate(Grid("stencil2d-5", {4, 1}, true));
  EXPECT_EQ(h.num_edges(), 4);
  EXPECT_THAT(h.adjwgt(), Each(2 * kB));
  EXPECT_EQ(h.self_bytes(), 4 * 2 * kB);
  EXPECT_EQ(h.total_bytes() + h.self_bytes(), 4 * 4 * kB);
}

TEST(GeneratorsTest, Stencil2d9) {
  TaskGraph g = MustGenerate(Grid("stencil2d-9", {3, 3}));
  EXPECT_EQ(g.num_edges(), 6 + 6 + 8);
  EXPECT_EQ(g.degree(4), 8);
  EXPECT_EQ(g.degree(0), 3);
  EXPECT_THAT(Neighbours(g, 0), ElementsAre(1, 3, 4));
  TaskGraph w = MustGenerate(Grid("stencil2d-9", {4, 4}, true));
  EXPECT_EQ(w.num_edges(), 16 * 4);
  EXPECT_THAT(Degrees(w), Each(8));
}

TEST(GeneratorsTest, Stencil2d9OnTwoByTwoTorus) {
  // Every offset lands on one of the 3 other tasks: 0-1 and 0-2 get 2 offsets each
  // way (4b), the diagonal 0-3 gets 4 (8b). 4 tasks x 8 messages of b in total.
  TaskGraph g = MustGenerate(Grid("stencil2d-9", {2, 2}, true));
  EXPECT_EQ(g.num_edges(), 6);
  EXPECT_EQ(Weight(g, 0, 1), 4 * kB);
  EXPECT_EQ(Weight(g, 0, 2), 4 * kB);
  EXPECT_EQ(Weight(g, 0, 3), 8 * kB);
  EXPECT_EQ(Weight(g, 1, 2), 8 * kB);
  EXPECT_EQ(g.total_bytes(), 4 * 8 * kB);
}

TEST(GeneratorsTest, Stencil3d7) {
  TaskGraph g = MustGenerate(Grid("stencil3d-7", {2, 2, 2}));
  EXPECT_EQ(g.num_edges(), 12);
  EXPECT_THAT(Neighbours(g, 0), ElementsAre(1, 2, 4));
  TaskGraph w = MustGenerate(Grid("stencil3d-7", {3, 3, 3}, true));
  EXPECT_EQ(w.num_edges(), 81);
  EXPECT_THAT(Degrees(w), Each(6));
  EXPECT_THAT(Neighbours(w, 0), ElementsAre(1, 2, 3, 6, 9, 18));
  // 2 x 3 x 4 mesh: 1*3*4 + 2*2*4 + 2*3*3 edges.
  EXPECT_EQ(MustGenerate(Grid("stencil3d-7", {2, 3, 4})).num_edges(), 12 + 16 + 18);
}

TEST(GeneratorsTest, Stencil3d27) {
  TaskGraph w = MustGenerate(Grid("stencil3d-27", {3, 3, 3}, true));
  EXPECT_EQ(w.num_edges(), 27 * 13);
  EXPECT_THAT(Degrees(w), Each(26));
  EXPECT_THAT(w.adjwgt(), Each(2 * kB));
  // Without wrap: (3+2+2)^3 - 27 ordered pairs at Chebyshev distance 1.
  TaskGraph g = MustGenerate(Grid("stencil3d-27", {3, 3, 3}));
  EXPECT_EQ(g.num_edges(), (343 - 27) / 2);
  EXPECT_EQ(g.degree(13), 26);
  EXPECT_EQ(g.degree(0), 7);
  EXPECT_EQ(g.degree(1), 11);  // an edge centre
  EXPECT_EQ(g.degree(4), 17);  // a face centre
}

TEST(GeneratorsTest, Ring) {
  TaskGraph g = MustGenerate(Tasks("ring", 5));
  EXPECT_EQ(g.num_edges(), 5);
  EXPECT_THAT(g.adjwgt(), Each(2 * kB));
  EXPECT_THAT(Neighbours(g, 0), ElementsAre(1, 4));
  TaskGraph two = MustGenerate(Tasks("ring", 2));
  EXPECT_EQ(two.num_edges(), 1);
  EXPECT_EQ(Weight(two, 0, 1), 4 * kB);
  TaskGraph one = MustGenerate(Tasks("ring", 1));
  EXPECT_EQ(one.num_edges(), 0);
  EXPECT_EQ(one.self_bytes(), 2 * kB);
}

TEST(GeneratorsTest, RecursiveDoubling) {
  TaskGraph g = MustGenerate(Tasks("recursive-doubling", 8));
  EXPECT_EQ(g.num_edges(), 12);
  EXPECT_THAT(Degrees(g), Each(3));
  EXPECT_THAT(g.adjwgt(), Each(2 * kB));
  EXPECT_THAT(Neighbours(g, 0), ElementsAre(1, 2, 4));
  EXPECT_THAT(Neighbours(g, 5), ElementsAre(1, 4, 7));
  // n = 6: round 0: 0-1 2-3 4-5; round 1: 0-2 1-3; round 2: 0-4 1-5.
  TaskGraph h = MustGenerate(Tasks("recursive-doubling", 6));
  EXPECT_EQ(h.num_edges(), 7);
  EXPECT_THAT(Neighbours(h, 4), ElementsAre(0, 5));
  EXPECT_THAT(Neighbours(h, 1), ElementsAre(0, 3, 5));
}

TEST(GeneratorsTest, BinomialTree) {
  TaskGraph g = MustGenerate(Tasks("binomial-tree", 8));
  EXPECT_EQ(g.num_edges(), 7);
  EXPECT_THAT(g.adjwgt(), Each(kB));
  EXPECT_THAT(Neighbours(g, 0), ElementsAre(1, 2, 4));
  EXPECT_THAT(Neighbours(g, 1), ElementsAre(0, 3, 5));
  EXPECT_THAT(Neighbours(g, 3), ElementsAre(1, 7));
  TaskGraph h = MustGenerate(Tasks("binomial-tree", 5));
  EXPECT_EQ(h.num_edges(), 4);
  EXPECT_THAT(Neighbours(h, 0), ElementsAre(1, 2, 4));
  EXPECT_THAT(Neighbours(h, 3), ElementsAre(1));
}

TEST(GeneratorsTest, Bruck) {
  // n = 5: round 0 i->i-1 (1 block), round 1 i->i-2 (2 blocks), round 2 i->i-4 =
  // i+1 (min(4, 1) = 1 block): K5, every pair 2b; each task receives 4 blocks.
  TaskGraph g = MustGenerate(Tasks("bruck", 5));
  EXPECT_EQ(g.num_edges(), 10);
  EXPECT_THAT(g.adjwgt(), Each(2 * kB));
  EXPECT_EQ(g.total_bytes(), 5 * 4 * kB);
  // n = 4: round 0 i->i-1 (b); round 1 i->i-2 (2 blocks), both ways for 0-2, 1-3.
  TaskGraph h = MustGenerate(Tasks("bruck", 4));
  EXPECT_EQ(h.num_edges(), 6);
  EXPECT_EQ(Weight(h, 0, 1), kB);
  EXPECT_EQ(Weight(h, 3, 0), kB);
  EXPECT_EQ(Weight(h, 0, 2), 4 * kB);
  EXPECT_EQ(Weight(h, 1, 3), 4 * kB);
  EXPECT_EQ(h.total_bytes(), 4 * 3 * kB);
  // n = 8: rounds of 1, 2, 4 blocks at distances 1, 2, 4 (4 both ways).
  TaskGraph e = MustGenerate(Tasks("bruck", 8));
  EXPECT_EQ(e.num_edges(), 8 + 8 + 4);
  EXPECT_EQ(Weight(e, 0, 7), kB);
  EXPECT_EQ(Weight(e, 0, 6), 2 * kB);
  EXPECT_EQ(Weight(e, 0, 4), 8 * kB);
  EXPECT_EQ(e.total_bytes(), 8 * 7 * kB);
}

TEST(GeneratorsTest, Fft2d) {
  TaskGraph g = MustGenerate(Grid("fft2d", {3, 2}));
  EXPECT_EQ(g.num_tasks(), 6);
  EXPECT_EQ(g.num_edges(), 2 * 3 + 3 * 1);
  EXPECT_THAT(g.adjwgt(), Each(2 * kB));
  EXPECT_THAT(Neighbours(g, 0), ElementsAre(1, 2, 3));  // same c: 1, 2; same r: 3
  EXPECT_THAT(Neighbours(g, 4), ElementsAre(1, 3, 5));
  TaskGraph sq = MustGenerate(Grid("fft2d", {4, 4}));
  EXPECT_EQ(sq.num_edges(), 4 * 6 + 4 * 6);
  EXPECT_THAT(Degrees(sq), Each(6));
}

TEST(GeneratorsTest, RandomUnitSquarePointsArePinned) {
  // The first raw output of std::mt19937_64 with seed 5489 is 14514284786278117030
  // (C++ standard); >> 11 = 7087053118299861.
  auto p = RandomUnitSquarePoints(2, 5489);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].first, 7087053118299861.0 * 0x1.0p-53);
  EXPECT_NEAR(p[0].first, 0.7868209548678019, 1e-16);
  for (const auto& [x, y] : RandomUnitSquarePoints(1000, 7)) {
    EXPECT_GE(x, 0.0);
    EXPECT_LT(x, 1.0);
    EXPECT_GE(y, 0.0);
    EXPECT_LT(y, 1.0);
  }
}

TEST(GeneratorsTest, RandomGeometricMatchesBruteForce) {
  GeneratorOptions o = Tasks("random-geometric", 700);
  o.radius = 0.07;
  o.seed = 42;
  TaskGraph g = MustGenerate(o);
  auto pts = RandomUnitSquarePoints(700, 42);
  std::set<std::pair<TaskId, TaskId>> want;
  for (TaskId i = 0; i < 700; ++i) {
    for (TaskId j = i + 1; j < 700; ++j) {
      const double dx = pts[i].first - pts[j].first, dy = pts[i].second - pts[j].second;
      if (dx * dx + dy * dy < 0.07 * 0.07) want.insert({i, j});
    }
  }
  std::set<std::pair<TaskId, TaskId>> got;
  for (TaskId u = 0; u < g.num_tasks(); ++u) {
    g.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
      EXPECT_EQ(w, kB);
      if (u < v) got.insert({u, v});
    });
  }
  EXPECT_GT(want.size(), 500u);
  EXPECT_EQ(got, want);
}

TEST(GeneratorsTest, RandomGeometricDeterministicAndSeeded) {
  GeneratorOptions o = Tasks("random-geometric", 5000);
  TaskGraph a = MustGenerate(o);
  TaskGraph b = MustGenerate(o);
  EXPECT_EQ(a.xadj(), b.xadj());
  EXPECT_EQ(a.adjncy(), b.adjncy());
  o.seed = 2;
  TaskGraph c = MustGenerate(o);
  EXPECT_NE(a.adjncy(), c.adjncy());
  // Default radius: mean degree about 8 (a little less near the border).
  const double mean = 2.0 * static_cast<double>(a.num_edges()) / a.num_tasks();
  EXPECT_GT(mean, 7.3);
  EXPECT_LT(mean, 8.3);
  EXPECT_NEAR(DefaultGeometricRadius(5000), std::sqrt(8.0 / (std::numbers::pi * 4999)), 1e-15);
  // A radius beyond the diagonal joins every pair.
  GeneratorOptions all = Tasks("random-geometric", 30);
  all.radius = 1.5;
  EXPECT_EQ(MustGenerate(all).num_edges(), 30 * 29 / 2);
  EXPECT_EQ(MustGenerate(Tasks("random-geometric", 1)).num_edges(), 0);
}

TEST(GeneratorsTest, MillionTaskStencilIsFast) {
  const auto start = std::chrono::steady_clock::now();
  TaskGraph g = MustGenerate(Grid("stencil3d-7", {100, 100, 100}));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(g.num_tasks(), 1000000);
  EXPECT_EQ(g.num_edges(), 3 * 100 * 100 * 99);
  EXPECT_EQ(g.degree(0), 3);
  EXPECT_EQ(g.degree(1 + 100 * (1 + 100 * 1)), 6);
  EXPECT_EQ(g.total_bytes(), 3 * 100 * 100 * 99 * 2 * kB);
  EXPECT_EQ(g.max_degree(), 6);
  EXPECT_LT(seconds, 30.0);  // ~1 s in Release; generous for Debug and shared cores
}

TEST(GeneratorsTest, KindsTableCoversEveryKind) {
  std::vector<std::string> names;
  for (const GeneratorKind& k : GeneratorKinds()) {
    names.push_back(k.name);
    EXPECT_GT(std::string(k.help).size(), 10u) << k.name;
  }
  EXPECT_THAT(names, ElementsAre("stencil2d-5", "stencil2d-9", "stencil3d-7", "stencil3d-27",
                                 "ring", "recursive-doubling", "binomial-tree", "bruck", "fft2d",
                                 "random-geometric", "training"));
}

// The error GenerateGraph gives; Validate() must give the same one.
std::string Error(const GeneratorOptions& o) {
  absl::StatusOr<TaskGraph> g = GenerateGraph(o);
  EXPECT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(o.Validate().message(), g.status().message());
  return std::string(g.status().message());
}

TEST(GeneratorsTest, ValidateNamesTheField) {
  EXPECT_EQ(Error(Grid("stencil2d-5", {2, 2, 2})), "dims: stencil2d-5 needs 2 dims, got 3");
  EXPECT_EQ(Error(Grid("stencil3d-27", {2, 2})), "dims: stencil3d-27 needs 3 dims, got 2");
  EXPECT_EQ(Error(Grid("stencil2d-5", {4, 0})), "dims[1]: must be >= 1, got 0");
  EXPECT_THAT(Error(Grid("hexagon", {4})),
              HasSubstr("kind: unknown generator 'hexagon'; known: stencil2d-5, stencil2d-9"));
  EXPECT_THAT(Error(Grid("stencil3d-7", {2000, 2000, 2000})),
              HasSubstr("dims: 2000 x 2000 x 2000 is more tasks than hopmap supports"));
  GeneratorOptions bytes = Tasks("ring", 4);
  bytes.bytes = 0;
  EXPECT_EQ(Error(bytes), "bytes: must be positive, got 0");
  EXPECT_EQ(Error(Tasks("ring", 0)), "tasks: ring needs tasks >= 1, got 0");
  EXPECT_EQ(Error(Tasks("bruck", -3)), "tasks: bruck needs tasks >= 1, got -3");
  GeneratorOptions dims = Tasks("ring", 4);
  dims.dims = {2, 2};
  EXPECT_EQ(Error(dims), "dims: ring takes its size from tasks, not dims (got 2x2)");
  GeneratorOptions wrap = Tasks("ring", 4);
  wrap.wrap = true;
  EXPECT_THAT(Error(wrap), HasSubstr("wrap: only the stencils"));
  GeneratorOptions radius = Tasks("ring", 4);
  radius.radius = 0.5;
  EXPECT_THAT(Error(radius), HasSubstr("radius: only random-geometric"));
  GeneratorOptions negative = Tasks("random-geometric", 4);
  negative.radius = -1;
  EXPECT_EQ(Error(negative), "radius: must be a finite number >= 0, got -1");
  negative.radius = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(Error(negative), HasSubstr("radius: must be a finite number"));
  GeneratorOptions mismatch = Grid("stencil2d-5", {4, 3});
  mismatch.tasks = 10;
  EXPECT_THAT(Error(mismatch), HasSubstr("tasks: stencil2d-5 takes its size from dims"));
  mismatch.tasks = 12;
  EXPECT_TRUE(mismatch.Validate().ok());
}

TEST(GeneratorsTest, RefusesTooManyEdgesAndOverflow) {
  EXPECT_THAT(Error(Grid("fft2d", {100000, 2})),
              HasSubstr("fft2d: 200000 tasks would make about 10000000000 edges"));
  GeneratorOptions dense = Tasks("random-geometric", 100000);
  dense.radius = 2;
  EXPECT_THAT(Error(dense), HasSubstr("more than the generator limit of 1073741824"));
  GeneratorOptions big = Grid("stencil2d-5", {4, 4});
  big.bytes = std::numeric_limits<Bytes>::max() / 2 + 1;
  EXPECT_THAT(Error(big), HasSubstr("2 x bytes, which overflows"));
  GeneratorOptions bruck = Tasks("bruck", 1000);
  bruck.bytes = std::numeric_limits<Bytes>::max() / 100;
  EXPECT_THAT(Error(bruck), HasSubstr("blocks (bruck, 1000 tasks) overflows 64 bits"));
  // Each record fits but the merged weight does not (ring of 2: 4 x bytes).
  GeneratorOptions ring = Tasks("ring", 2);
  ring.bytes = Bytes{1} << 61;
  absl::StatusOr<TaskGraph> g = GenerateGraph(ring);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("ring: weight of edge 0-1 overflows 64 bits"));
}

}  // namespace
}  // namespace hopmap
