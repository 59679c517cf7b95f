// Seed 000's tables, reproduced: `auto` on periodic 2D 5-point stencils onto Blue
// Gene/P tori (Table II: WRF, one process per node; Table I: 2D stencil, 4 ranks per
// node), and the 3D/2D stencils the issue names, with the lower bound beside them.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "core/graph/generators.h"
#include "core/metrics/hop_bytes.h"
#include "core/solve/report.h"
#include "core/solve/solve_mapping.h"
#include "core/topology/torus.h"

namespace hopmap {
namespace {

struct Row {
  std::vector<int32_t> torus;
  std::vector<int32_t> grid;
  int32_t cores;
  double paper_reduction;  // seed 000 Table II, % fewer hops per byte; < 0: none given
};

int Run(double time_limit) {
  const std::vector<Row> rows = {
      // Table II (WRF, SMP mode: 1 process per node).
      {{8, 4, 8}, {16, 16}, 1, 33.9},
      {{8, 8, 8}, {32, 16}, 1, 41.8},
      {{8, 8, 16}, {32, 32}, 1, 63.2},
      {{8, 16, 16}, {64, 32}, 1, 66.3},
      {{16, 16, 16}, {64, 64}, 1, 60.4},
      // Table I style (2D stencil in VN mode: 4 ranks per node).
      {{8, 4, 8}, {32, 32}, 4, -1},
      {{8, 8, 8}, {64, 32}, 4, -1},
      {{8, 8, 16}, {32, 128}, 4, -1},
      {{8, 16, 16}, {128, 64}, 4, -1},
      // The 3D case.
      {{16, 16, 16}, {16, 16, 16}, 1, -1},
  };
  std::printf(
      "| torus | cores | grid | default hops/byte | auto hops/byte | winner | gap | "
      "reduction %% | paper %% | seconds |\n|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Row& row : rows) {
    GeneratorOptions gen;
    gen.kind = row.grid.size() == 2 ? "stencil2d-5" : "stencil3d-7";
    gen.dims = row.grid;
    gen.wrap = true;
    absl::StatusOr<TaskGraph> graph = GenerateGraph(gen);
    auto machine = std::make_shared<TorusMachine>(
        *TorusMachine::Create(row.torus, std::vector<bool>(row.torus.size(), true)));
    machine->set_cores_per_node(row.cores);
    absl::StatusOr<Allocation> allocation = Allocation::WholeMachine(machine);
    if (!graph.ok() || !allocation.ok()) return 1;
    MapperOptions options;
    options.time_limit_seconds = time_limit;
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<MappingReport> report = SolveMapping(*graph, *allocation, "auto", options);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!report.ok()) {
      std::fprintf(stderr, "%s\n", std::string(report.status().message()).c_str());
      return 1;
    }
    const double total = static_cast<double>(report->total_bytes);
    const double base = static_cast<double>(report->baseline_hop_bytes) / total;
    std::printf(
        "| %s | %d | %s | %.3f | %.3f | %s | %s | %.1f | %s | %.2f |\n",
        absl::StrJoin(row.torus, "x").c_str(), row.cores, absl::StrJoin(row.grid, "x").c_str(),
        base, report->avg_hops_per_byte, report->algorithm.c_str(),
        report->gap ? std::to_string(*report->gap).substr(0, 5).c_str() : "n/a",
        100.0 * report->improvement,
        row.paper_reduction >= 0 ? std::to_string(row.paper_reduction).substr(0, 4).c_str() : "-",
        seconds);
  }
  return 0;
}

}  // namespace
}  // namespace hopmap

int main(int argc, char** argv) {
  double time_limit = 10;
  if (argc > 1) time_limit = std::atof(argv[1]);
  return hopmap::Run(time_limit > 0 ? time_limit : 10);
}
