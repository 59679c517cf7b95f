// The regular-grid mappers on a million tasks: time to map and the result.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "core/analysis/pattern.h"
#include "core/graph/generators.h"
#include "core/mappers/mapper.h"
#include "core/mappers/portfolio/registry.h"
#include "core/metrics/hop_bytes.h"
#include "core/topology/torus.h"

namespace hopmap {
namespace {

struct Case {
  std::vector<int32_t> grid;
  std::vector<int32_t> torus;
  std::vector<std::string> mappers;
};

int Run() {
  const std::vector<Case> cases = {
      {{1000, 1000}, {100, 100, 100}, {"fold", "stack", "hilbert", "cart-greedy"}},
      {{1000, 1000}, {2000, 500}, {"mxovlp", "mxov-al", "affn", "step", "pairs"}},
      {{100, 100, 100}, {100, 100, 100}, {"fold", "hilbert", "cart-greedy"}},
  };
  std::printf(
      "| grid | torus | mapper | analyse s | map s | hops/byte |\n|---|---|---|---|---|---|\n");
  for (const Case& c : cases) {
    GeneratorOptions gen;
    gen.kind = c.grid.size() == 2 ? "stencil2d-5" : "stencil3d-7";
    gen.dims = c.grid;
    gen.wrap = true;
    absl::StatusOr<TaskGraph> graph = GenerateGraph(gen);
    auto machine = std::make_shared<TorusMachine>(
        *TorusMachine::Create(c.torus, std::vector<bool>(c.torus.size(), true)));
    absl::StatusOr<Allocation> allocation = Allocation::WholeMachine(machine);
    if (!graph.ok() || !allocation.ok()) return 1;
    auto start = std::chrono::steady_clock::now();
    absl::StatusOr<PatternReport> pattern = AnalyzePattern(*graph);
    const double analyse =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!pattern.ok()) return 1;
    for (const std::string& name : c.mappers) {
      MapperOptions options;
      options.time_limit_seconds = 60;
      const StopCondition stop(absl::Now() + absl::Seconds(60));
      auto mapper = BuiltinMappers().Create(name);
      if (!mapper.ok()) return 1;
      start = std::chrono::steady_clock::now();
      absl::StatusOr<MapOutput> out =
          (*mapper)->Map({*graph, *allocation, options, stop, nullptr, &*pattern});
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!out.ok()) {
        std::printf("| %s | %s | %s | %.2f | - | %s |\n", absl::StrJoin(c.grid, "x").c_str(),
                    absl::StrJoin(c.torus, "x").c_str(), name.c_str(), analyse,
                    std::string(out.status().message()).c_str());
        continue;
      }
      const HopBytes hb = ComputeHopBytes(*graph, *allocation, out->slot_of_task);
      std::printf("| %s | %s | %s | %.2f | %.2f | %.3f |\n", absl::StrJoin(c.grid, "x").c_str(),
                  absl::StrJoin(c.torus, "x").c_str(), name.c_str(), analyse, seconds,
                  static_cast<double>(hb) / static_cast<double>(graph->total_bytes()));
    }
  }
  return 0;
}

}  // namespace
}  // namespace hopmap

int main() { return hopmap::Run(); }
