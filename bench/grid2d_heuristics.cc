// Seed 000 Fig. 6 as a table: average hops per byte of the 2D grid -> 2D mesh
// heuristics (MXOVLP, MXOV+AL, EXCO, COCE, AFFN, STEP) over a range of aspect ratios,
// with PAIRS (pairwise exchanges from the best heuristic) as the reference and the
// lower bound (1.000 for a 5-point stencil). Then the time each heuristic takes on a
// 1M-task grid. Usage: grid2d_heuristics [--no-large]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "core/graph/generators.h"
#include "core/mappers/grid/grid2d.h"
#include "core/metrics/hop_bytes.h"
#include "core/metrics/lower_bound.h"
#include "core/topology/torus.h"

namespace hopmap {
namespace {

struct Shape {
  int32_t ox, oy, px, py;
};

Allocation MeshAllocation(int32_t px, int32_t py) {
  auto m = std::make_shared<TorusMachine>(*TorusMachine::Create({px, py}, {false, false}));
  std::vector<NodeId> nodes(m->num_nodes());
  std::iota(nodes.begin(), nodes.end(), 0);
  return *Allocation::Create(std::move(m), std::move(nodes), 1);
}

TaskGraph Stencil(int32_t ox, int32_t oy) {
  GeneratorOptions o;
  o.kind = "stencil2d-5";
  o.dims = {ox, oy};
  o.bytes = 1;
  return *GenerateGraph(o);
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

int Main(int argc, char** argv) {
  const bool large = !(argc > 1 && std::strcmp(argv[1], "--no-large") == 0);
  std::vector<Grid2dKind> kinds = Grid2dHeuristics();
  kinds.push_back(Grid2dKind::kPairs);
  const std::vector<Shape> shapes = {
      {6, 5, 10, 3},     {9, 8, 6, 12},       {8, 8, 16, 4},      {16, 16, 64, 4},
      {32, 32, 64, 16},  {64, 16, 32, 32},    {60, 20, 40, 30},   {27, 44, 36, 33},
      {36, 36, 81, 16},  {45, 40, 30, 60},    {100, 40, 125, 32}, {64, 64, 128, 32},
      {128, 32, 64, 64}, {100, 100, 200, 50}, {16, 256, 64, 64},  {50, 50, 52, 52}};
  std::printf(
      "Average hops per byte, 2D 5-point stencil (no wrap) onto a 2D mesh, one task "
      "per node.\nPAIRS = pairwise exchanges from the best heuristic (the reference); "
      "LB = lower bound.\n\n");
  std::printf("%-20s", "object -> mesh");
  for (Grid2dKind k : kinds) std::printf(" %8s", Grid2dKindName(k).c_str());
  std::printf(" %6s  %-8s %s\n", "LB", "best", "pairs s");
  MapperOptions options;
  for (const Shape& s : shapes) {
    const TaskGraph g = Stencil(s.ox, s.oy);
    const Allocation a = MeshAllocation(s.px, s.py);
    PatternReport p;
    p.kind = "stencil2d-5";
    p.dims = {s.ox, s.oy};
    StopCondition stop(absl::Now() + absl::Seconds(60));
    MapInput input{g, a, options, stop, nullptr, &p};
    char label[64];
    std::snprintf(label, sizeof label, "%dx%d -> %dx%d", s.ox, s.oy, s.px, s.py);
    std::printf("%-20s", label);
    double best = 0;
    std::string best_name;
    double pairs_seconds = 0;
    for (Grid2dKind k : kinds) {
      const auto start = std::chrono::steady_clock::now();
      absl::StatusOr<MapOutput> out = Grid2dMapper(k).Map(input);
      if (k == Grid2dKind::kPairs) pairs_seconds = Seconds(start);
      if (!out.ok()) {
        std::printf(" %8s", "error");
        continue;
      }
      const double hpb =
          static_cast<double>(ComputeHopBytes(g, a, out->slot_of_task)) / g.total_bytes();
      std::printf(" %8.3f", hpb);
      if (k != Grid2dKind::kPairs && (best_name.empty() || hpb < best)) {
        best = hpb;
        best_name = Grid2dKindName(k);
      }
    }
    std::printf(" %6.3f  %-8s %.3f\n",
                static_cast<double>(ComputeLowerBound(g, a, nullptr).value) / g.total_bytes(),
                best_name.c_str(), pairs_seconds);
  }
  if (!large) return 0;
  // Scale: 1M tasks, 1000x1000 onto 2000x500 (alignment, stretch and shrink).
  std::printf("\nTime on 1000x1000 -> 2000x500 (1M tasks), mapping only, and avg hops/byte:\n");
  const Shape big{1000, 1000, 2000, 500};
  const TaskGraph g = Stencil(big.ox, big.oy);
  const Allocation a = MeshAllocation(big.px, big.py);
  PatternReport p;
  p.kind = "stencil2d-5";
  p.dims = {big.ox, big.oy};
  StopCondition stop(absl::Now() + absl::Seconds(120));
  MapInput input{g, a, options, stop, nullptr, &p};
  for (Grid2dKind k : kinds) {
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<MapOutput> out = Grid2dMapper(k).Map(input);
    const double seconds = Seconds(start);
    if (!out.ok()) {
      std::printf("  %-8s error: %s\n", Grid2dKindName(k).c_str(),
                  std::string(out.status().message()).c_str());
      continue;
    }
    std::printf("  %-8s %7.3f s  %.3f\n", Grid2dKindName(k).c_str(), seconds,
                static_cast<double>(ComputeHopBytes(g, a, out->slot_of_task)) / g.total_bytes());
  }
  return 0;
}

}  // namespace
}  // namespace hopmap

int main(int argc, char** argv) { return hopmap::Main(argc, argv); }
