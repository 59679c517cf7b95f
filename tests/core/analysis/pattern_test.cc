#include "core/analysis/pattern.h"

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/graph/generators.h"
#include "core/graph/task_graph.h"
#include "core/io/graph_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TaskGraph Gen(const std::string& kind, std::vector<int32_t> dims, bool wrap = false,
              int32_t tasks = 0) {
  GeneratorOptions o;
  o.kind = kind;
  o.dims = std::move(dims);
  o.wrap = wrap;
  o.tasks = tasks;
  absl::StatusOr<TaskGraph> g = GenerateGraph(o);
  EXPECT_TRUE(g.ok()) << g.status();
  return *std::move(g);
}

PatternReport Analyze(const TaskGraph& g, const AnalyzerOptions& o = {}) {
  absl::StatusOr<PatternReport> r = AnalyzePattern(g, o);
  EXPECT_TRUE(r.ok()) << r.status();
  return *std::move(r);
}

void ExpectFull(const PatternReport& r) {
  EXPECT_DOUBLE_EQ(r.explained_share, 1.0);
  EXPECT_EQ(r.edges_left_out, 0);
  EXPECT_EQ(r.bytes_left_out, 0);
  EXPECT_THAT(r.hubs, IsEmpty());
}

struct GridCase {
  std::string kind;
  std::vector<int32_t> dims;
  bool wrap;
};

class GridTest : public ::testing::TestWithParam<GridCase> {};

TEST_P(GridTest, RecognisedWithDims) {
  const GridCase& c = GetParam();
  TaskGraph g = Gen(c.kind, c.dims, c.wrap);
  PatternReport r = Analyze(g);
  EXPECT_EQ(r.kind, c.kind);
  EXPECT_EQ(r.dims, c.dims);
  EXPECT_EQ(r.wrap, c.wrap);
  EXPECT_EQ(r.periodic, std::vector<bool>(c.dims.size(), c.wrap));
  EXPECT_EQ(r.rank_order, "row-major");
  EXPECT_TRUE(r.is_grid());
  ExpectFull(r);
}

INSTANTIATE_TEST_SUITE_P(Generators, GridTest,
                         ::testing::Values(GridCase{"stencil2d-5", {8, 6}, false},
                                           GridCase{"stencil2d-5", {8, 6}, true},
                                           GridCase{"stencil2d-5", {32, 16}, false},
                                           GridCase{"stencil2d-5", {5, 40}, true},
                                           GridCase{"stencil2d-9", {7, 5}, false},
                                           GridCase{"stencil2d-9", {8, 8}, true},
                                           GridCase{"stencil3d-7", {4, 5, 6}, false},
                                           GridCase{"stencil3d-7", {4, 4, 4}, true},
                                           GridCase{"stencil3d-7", {16, 8, 8}, true},
                                           GridCase{"stencil3d-27", {4, 5, 3}, false},
                                           GridCase{"stencil3d-27", {5, 4, 6}, true}));

// Stencil dims of 2 and 1 cannot always be told apart from other shapes; a dim of 2
// among larger ones is still found.
TEST(PatternTest, StencilWithADimOfTwo) {
  PatternReport r = Analyze(Gen("stencil3d-7", {6, 2, 5}, false));
  EXPECT_EQ(r.kind, "stencil3d-7");
  EXPECT_THAT(r.dims, ElementsAre(6, 2, 5));
  ExpectFull(r);
}

// A 4D 9-point stencil (+-1 in each of 4 dims), built by hand: the generators have no 4D.
TEST(PatternTest, Stencil4d) {
  const int d[4] = {3, 4, 3, 5};
  const int n = d[0] * d[1] * d[2] * d[3];
  TaskGraphBuilder b(n);
  for (int t = 0; t < n; ++t) {
    int stride = 1;
    for (int i = 0; i < 4; ++i) {
      const int c = (t / stride) % d[i];
      if (c + 1 < d[i]) {
        ASSERT_TRUE(b.AddTraffic(t, t + stride, 100).ok());
      }
      stride *= d[i];
    }
  }
  PatternReport r = Analyze(*std::move(b).Build());
  EXPECT_EQ(r.kind, "stencil4d-9");
  EXPECT_THAT(r.dims, ElementsAre(3, 4, 3, 5));
  EXPECT_FALSE(r.wrap);
  ExpectFull(r);
}

TEST(PatternTest, Ring) {
  PatternReport r = Analyze(Gen("ring", {}, false, 37));
  EXPECT_EQ(r.kind, "ring");
  EXPECT_THAT(r.dims, ElementsAre(37));
  EXPECT_TRUE(r.wrap);
  ExpectFull(r);
}

TEST(PatternTest, OpenChainIsARingWithoutWrap) {
  TaskGraphBuilder b(10);
  for (int i = 0; i + 1 < 10; ++i) ASSERT_TRUE(b.AddTraffic(i, i + 1, 50).ok());
  PatternReport r = Analyze(*std::move(b).Build());
  EXPECT_EQ(r.kind, "ring");
  EXPECT_FALSE(r.wrap);
  ExpectFull(r);
}

TEST(PatternTest, Fft2d) {
  for (auto dims : std::vector<std::vector<int32_t>>{{8, 8}, {4, 16}, {16, 4}, {2, 8}, {6, 5}}) {
    PatternReport r = Analyze(Gen("fft2d", dims));
    EXPECT_EQ(r.kind, "fft2d") << dims[0] << "x" << dims[1];
    EXPECT_EQ(r.dims, dims);
    ExpectFull(r);
  }
}

TEST(PatternTest, RecursiveDoubling) {
  for (int32_t n : {16, 64, 1024, 100}) {
    PatternReport r = Analyze(Gen("recursive-doubling", {}, false, n));
    EXPECT_EQ(r.kind, "recursive-doubling") << n;
    EXPECT_THAT(r.dims, ElementsAre(n));
    ExpectFull(r);
  }
}

TEST(PatternTest, BinomialTree) {
  // Rank 0 has degree log2(n), far above the median of 1: a hub candidate whose edges
  // all fit, so it is not listed as a hub.
  for (int32_t n : {16, 1 << 16, 1000}) {
    PatternReport r = Analyze(Gen("binomial-tree", {}, false, n));
    EXPECT_EQ(r.kind, "binomial-tree") << n;
    EXPECT_THAT(r.dims, ElementsAre(n));
    ExpectFull(r);
  }
}

// A 2D 5-point stencil (16x12, no wrap, edges of 2048 bytes) with rank 0 sending 8
// bytes to everyone (a reduction recorded as point-to-point) and 5 light noise edges.
TEST(PatternTest, StencilWithHubAndNoise) {
  const int X = 16, Y = 12, n = X * Y;
  TaskGraphBuilder b(n);
  for (int y = 0; y < Y; ++y) {
    for (int x = 0; x < X; ++x) {
      const int t = x + X * y;
      if (x + 1 < X) {
        ASSERT_TRUE(b.AddTraffic(t, t + 1, 2048).ok());
      }
      if (y + 1 < Y) {
        ASSERT_TRUE(b.AddTraffic(t, t + X, 2048).ok());
      }
    }
  }
  for (int t = 1; t < n; ++t) ASSERT_TRUE(b.AddTraffic(0, t, 8).ok());
  // Noise: pairs that are not grid neighbours, 100 bytes (< 20% of the mean).
  const int noise[5][2] = {{5, 77}, {20, 150}, {33, 34 + X}, {100, 190}, {61, 62 + 2 * X}};
  for (const auto& e : noise) ASSERT_TRUE(b.AddTraffic(e[0], e[1], 100).ok());
  TaskGraph g = *std::move(b).Build();
  PatternReport r = Analyze(g);
  EXPECT_EQ(r.kind, "stencil2d-5");
  EXPECT_THAT(r.dims, ElementsAre(16, 12));
  EXPECT_FALSE(r.wrap);
  EXPECT_THAT(r.hubs, ElementsAre(0));
  // Rank 0's edges to 1 and 16 are grid edges (2048 + 8 bytes); the other n-3 hub
  // edges and the 5 noise edges are left out.
  EXPECT_EQ(r.edges_left_out, (n - 3) + 5);
  EXPECT_EQ(r.bytes_left_out, 8 * (n - 3) + 5 * 100);
  const Bytes grid = 2048 * ((X - 1) * Y + X * (Y - 1)) + 2 * 8;
  EXPECT_DOUBLE_EQ(r.explained_share, static_cast<double>(grid) / g.total_bytes());

  // Without hub handling the hub's 8-byte edges are below the threshold but do not fit
  // ... they are simply left out too; a heavy hub, though, blocks the grid.
  AnalyzerOptions no_hubs;
  no_hubs.ignore_hubs = false;
  PatternReport r2 = Analyze(g, no_hubs);
  EXPECT_EQ(r2.kind, "stencil2d-5");
  EXPECT_THAT(r2.hubs, IsEmpty());
}

TEST(PatternTest, HeavyHubNeedsHubHandling) {
  TaskGraph base = Gen("stencil2d-5", {10, 10}, true);
  TaskGraphBuilder b(100);
  for (TaskId u = 0; u < 100; ++u) {
    base.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
      if (u < v) {
        ASSERT_TRUE(b.AddTraffic(u, v, w).ok());
      }
    });
  }
  for (int t = 1; t < 100; ++t) ASSERT_TRUE(b.AddTraffic(0, t, 4096).ok());
  TaskGraph g = *std::move(b).Build();
  PatternReport r = Analyze(g);
  EXPECT_EQ(r.kind, "stencil2d-5");
  EXPECT_THAT(r.dims, ElementsAre(10, 10));
  EXPECT_TRUE(r.wrap);
  EXPECT_THAT(r.hubs, ElementsAre(0));
  EXPECT_EQ(r.edges_left_out, 99 - 4);
  AnalyzerOptions no_hubs;
  no_hubs.ignore_hubs = false;
  EXPECT_EQ(Analyze(g, no_hubs).kind, "none");
}

// The same 12x20 grid recorded with y fastest (task = y + 20*x): the strides read
// from the data give dims {20, 12}, fastest first.
TEST(PatternTest, TransposedGrid) {
  const int X = 12, Y = 20;
  TaskGraphBuilder b(X * Y);
  auto id = [&](int x, int y) { return y + Y * x; };
  for (int x = 0; x < X; ++x) {
    for (int y = 0; y < Y; ++y) {
      if (x + 1 < X) {
        ASSERT_TRUE(b.AddTraffic(id(x, y), id(x + 1, y), 64).ok());
      }
      if (y + 1 < Y) {
        ASSERT_TRUE(b.AddTraffic(id(x, y), id(x, y + 1), 64).ok());
      }
    }
  }
  PatternReport r = Analyze(*std::move(b).Build());
  EXPECT_EQ(r.kind, "stencil2d-5");
  EXPECT_THAT(r.dims, ElementsAre(Y, X));
  EXPECT_EQ(r.rank_order, "row-major");
  ExpectFull(r);
}

TEST(PatternTest, PeriodicInOneDimOnly) {
  const int X = 6, Y = 5;
  TaskGraphBuilder b(X * Y);
  for (int y = 0; y < Y; ++y) {
    for (int x = 0; x < X; ++x) {
      ASSERT_TRUE(b.AddTraffic(x + X * y, (x + 1) % X + X * y, 10).ok());
      if (y + 1 < Y) {
        ASSERT_TRUE(b.AddTraffic(x + X * y, x + X * (y + 1), 10).ok());
      }
    }
  }
  PatternReport r = Analyze(*std::move(b).Build());
  EXPECT_EQ(r.kind, "stencil2d-5");
  EXPECT_THAT(r.dims, ElementsAre(6, 5));
  EXPECT_FALSE(r.wrap);
  EXPECT_THAT(r.periodic, ElementsAre(true, false));
  ExpectFull(r);
}

// A missing face edge (not a boundary) breaks the grid hypothesis.
TEST(PatternTest, MissingInteriorEdgeIsNotAGrid) {
  TaskGraph base = Gen("stencil2d-5", {8, 8}, false);
  TaskGraphBuilder b(64);
  for (TaskId u = 0; u < 64; ++u) {
    base.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
      if (u < v && !(u == 27 && v == 28)) {
        ASSERT_TRUE(b.AddTraffic(u, v, w).ok());
      }
    });
  }
  EXPECT_EQ(Analyze(*std::move(b).Build()).kind, "none");
}

TEST(PatternTest, RandomGeometricIsNone) {
  GeneratorOptions o;
  o.kind = "random-geometric";
  o.tasks = 500;
  TaskGraph g = *GenerateGraph(o);
  PatternReport r = Analyze(g);
  EXPECT_EQ(r.kind, "none");
  EXPECT_THAT(r.dims, IsEmpty());
  EXPECT_EQ(r.edges_left_out, g.num_edges());
  EXPECT_EQ(r.bytes_left_out, g.total_bytes());
  EXPECT_EQ(r.explained_share, 0.0);
}

TEST(PatternTest, LargeStencil) {
  PatternReport r = Analyze(Gen("stencil3d-27", {64, 32, 48}, true));
  EXPECT_EQ(r.kind, "stencil3d-27");
  EXPECT_THAT(r.dims, ElementsAre(64, 32, 48));
  EXPECT_TRUE(r.wrap);
  ExpectFull(r);
}

// A million tasks: what the analyzer finds at that size (about 5 s on two cores; the
// times are measured by build/bench/pattern_scale, bench/README.md, "Pattern analysis
// at a million tasks", never asserted here).
TEST(PatternTest, MillionTasks) {
  EXPECT_EQ(Analyze(Gen("stencil3d-7", {100, 100, 100}, true)).kind, "stencil3d-7");
  EXPECT_EQ(Analyze(Gen("stencil3d-27", {100, 100, 100}, true)).kind, "stencil3d-27");
  EXPECT_EQ(Analyze(Gen("stencil2d-5", {1000, 1000}, false)).kind, "stencil2d-5");
  EXPECT_EQ(Analyze(Gen("recursive-doubling", {}, false, 1 << 20)).kind, "recursive-doubling");
  GeneratorOptions o;
  o.kind = "random-geometric";
  o.tasks = 1000000;
  EXPECT_EQ(Analyze(*GenerateGraph(o)).kind, "none");
}

TEST(PatternTest, TinyAndEmptyGraphs) {
  TaskGraphBuilder b(1);
  PatternReport r = Analyze(*std::move(b).Build());
  EXPECT_EQ(r.kind, "none");
  TaskGraphBuilder b5(5);
  EXPECT_EQ(Analyze(*std::move(b5).Build()).kind, "none");
}

TEST(PatternTest, BadThreshold) {
  AnalyzerOptions o;
  o.weight_threshold = 1.5;
  absl::StatusOr<PatternReport> r = AnalyzePattern(Gen("ring", {}, false, 8), o);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("weight threshold"));
}

// The real graphs: what the analyzer finds is pinned here and printed as the table of
// docs/patterns.md (run: analysis_test --gtest_filter='*RealGraphs*').
TEST(PatternTest, RealGraphs) {
  const std::filesystem::path dir = std::filesystem::path(HOPMAP_DATA_DIR) / "commgraphs";
  ASSERT_TRUE(std::filesystem::exists(dir)) << "no " << dir;
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".edgelist") ||
        (name.starts_with("maplib_") && name.ends_with("_size.csv"))) {
      files.push_back(name);
    }
  }
  std::sort(files.begin(), files.end());
  std::string table =
      "| graph | n | edges | kind | dims | wrap | explained share | edges left out | hubs |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  std::vector<std::string> got;
  for (const std::string& name : files) {
    absl::StatusOr<TaskGraph> g = ReadGraph((dir / name).string());
    ASSERT_TRUE(g.ok()) << g.status();
    PatternReport r = Analyze(*g);
    char share[32];
    std::snprintf(share, sizeof(share), "%.3f", r.explained_share);
    std::vector<std::string> hubs;
    for (TaskId h : r.hubs) hubs.push_back(absl::StrCat(h));
    if (hubs.size() > 4) hubs = {absl::StrCat(r.hubs.size(), " ranks")};
    absl::StrAppend(&table, "| ", name, " | ", g->num_tasks(), " | ", g->num_edges(), " | ", r.kind,
                    " | ", absl::StrJoin(r.dims, "x"), " | ",
                    r.is_grid() || r.kind == "ring" ? (r.wrap ? "yes" : "no") : "", " | ", share,
                    " | ", r.edges_left_out, " | ", absl::StrJoin(hubs, ","), " |\n");
    got.push_back(absl::StrCat(name, ": ", r.kind, " ", absl::StrJoin(r.dims, "x")));
  }
  std::printf("%s", table.c_str());
  EXPECT_THAT(got, ::testing::UnorderedElementsAreArray(std::vector<std::string>{
                       "cnca_amg2013_1000.edgelist: none ",
                       "cnca_amg2013_64.edgelist: none ",
                       "cnca_cloverleaf_1152.edgelist: stencil2d-5 32x36",
                       "cnca_cloverleaf_64.edgelist: stencil2d-5 8x8",
                       "cnca_lulesh_1000.edgelist: stencil3d-7 10x10x10",
                       "cnca_lulesh_64.edgelist: stencil3d-7 4x4x4",
                       "cnca_miniamr_1000.edgelist: none ",
                       "cnca_miniamr_64.edgelist: none ",
                       "cnca_minife_1024.edgelist: none ",
                       "cnca_minife_64.edgelist: none ",
                       "cnca_minimd_1024.edgelist: stencil3d-7 16x8x8",
                       "cnca_minimd_64.edgelist: stencil3d-7 4x4x4",
                       "cnca_npb_bt_C_1024.edgelist: stencil2d-9 32x32",
                       "cnca_npb_bt_C_64.edgelist: stencil2d-9 8x8",
                       "cnca_npb_cg_C_1024.edgelist: none ",
                       "cnca_npb_cg_C_64.edgelist: none ",
                       "cnca_npb_is_C_1024.edgelist: ring 1024",
                       "cnca_npb_is_C_64.edgelist: ring 64",
                       "cnca_npb_lu_C_1024.edgelist: stencil2d-5 32x32",
                       "cnca_npb_lu_C_64.edgelist: stencil2d-5 8x8",
                       "cnca_npb_mg_C_1024.edgelist: stencil3d-7 8x8x16",
                       "cnca_npb_mg_C_64.edgelist: stencil3d-7 4x4x4",
                       "maplib_amg_64ranks_p2p_size.csv: stencil3d-27 4x4x4",
                       "maplib_btmz_64ranks_p2p_size.csv: none ",
                       "maplib_cg_64ranks_p2p_size.csv: none ",
                       "maplib_lulesh_64ranks_p2p_size.csv: stencil3d-7 4x4x4",
                   }));
}

}  // namespace
}  // namespace hopmap
