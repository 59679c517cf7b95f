// The constructive general mappers (gge, rcm, rec-bisect, mahd, emahd) on 4096-task
// graphs onto a 16x16x16 torus: hop-bytes against in-order, and time to map.
// Usage: general_mappers [emahd_seconds=5] [threads=0 (all)] [large]
// "large": 262144-task graphs onto torus:64x64x64 instead (scaling check); any
// other third argument is a machine spec to use instead (e.g. fattree:16x16x16).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/graph/generators.h"
#include "core/io/machine_spec.h"
#include "core/mappers/mapper.h"
#include "core/mappers/portfolio/registry.h"
#include "core/metrics/hop_bytes.h"
#include "tbb/task_arena.h"

namespace hopmap {
namespace {

struct GraphCase {
  const char* label;
  GeneratorOptions options;
};

int Run(double emahd_seconds, int threads, bool large, const char* machine_spec) {
  std::vector<GraphCase> graphs(3);
  graphs[0] = {"stencil2d-5 64x64", {}};
  graphs[0].options.kind = "stencil2d-5";
  graphs[0].options.dims = {64, 64};
  graphs[1] = {"stencil3d-7 16x16x16", {}};
  graphs[1].options.kind = "stencil3d-7";
  graphs[1].options.dims = {16, 16, 16};
  graphs[2] = {"random-geometric 4096", {}};
  graphs[2].options.kind = "random-geometric";
  graphs[2].options.tasks = 4096;
  std::vector<const char*> machines = {"torus:16x16x16", "torus:8x8x16:cores=4"};
  if (large) {
    graphs[0].options.dims = {512, 512};
    graphs[1].options.dims = {64, 64, 64};
    graphs[2].options.tasks = 64 * 64 * 64;
    graphs[0].label = "stencil2d-5 512x512";
    graphs[1].label = "stencil3d-7 64x64x64";
    graphs[2].label = "random-geometric 262144";
    machines = {"torus:64x64x64"};
  } else if (machine_spec != nullptr) {
    machines = {machine_spec};
  }
  const char* const kMappers[] = {"in-order",   "random", "gge",  "rcm",
                                  "rec-bisect", "mahd",   "emahd"};
  tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
  std::printf(
      "| graph | machine | mapper | hop-bytes | vs in-order | hops/byte | map s | variant |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const char* spec : machines) {
    absl::StatusOr<std::shared_ptr<Machine>> machine = ParseMachineSpec(spec);
    if (!machine.ok()) return 1;
    absl::StatusOr<Allocation> allocation = Allocation::WholeMachine(*machine);
    if (!allocation.ok()) return 1;
    for (const GraphCase& gc : graphs) {
      absl::StatusOr<TaskGraph> graph = GenerateGraph(gc.options);
      if (!graph.ok()) return 1;
      HopBytes in_order = 0;
      for (const char* name : kMappers) {
        MapperOptions options;
        options.time_limit_seconds = std::string(name) == "emahd" ? emahd_seconds : 60;
        options.threads = threads;
        const StopCondition stop(absl::Now() + absl::Seconds(options.time_limit_seconds));
        auto mapper = BuiltinMappers().Create(name);
        if (!mapper.ok()) return 1;
        absl::StatusOr<MapOutput> out;
        const auto start = std::chrono::steady_clock::now();
        arena.execute([&] { out = (*mapper)->Map({*graph, *allocation, options, stop}); });
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!out.ok() ||
            !ValidateMapping(*allocation, graph->num_tasks(), out->slot_of_task).ok()) {
          std::printf("| %s | %s | %s | FAILED | | | | |\n", gc.label, spec, name);
          continue;
        }
        const HopBytes hb = ComputeHopBytes(*graph, *allocation, out->slot_of_task);
        if (std::string(name) == "in-order") in_order = hb;
        std::printf("| %s | %s | %s | %lld | %.3f | %.3f | %.4f | %s |\n", gc.label, spec, name,
                    static_cast<long long>(hb), static_cast<double>(hb) / in_order,
                    static_cast<double>(hb) / graph->total_bytes(), seconds, out->variant.c_str());
        std::fflush(stdout);
      }
    }
  }
  return 0;
}

}  // namespace
}  // namespace hopmap

int main(int argc, char** argv) {
  const double emahd_seconds = argc > 1 ? std::atof(argv[1]) : 5.0;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 0;
  const bool large = argc > 3 && std::string(argv[3]) == "large";
  return hopmap::Run(emahd_seconds, threads, large, argc > 3 && !large ? argv[3] : nullptr);
}
