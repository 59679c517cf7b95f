// rec-bisect then refine on random-geometric graphs of 65,536 to 1,048,576 tasks
// (issue 6's hot spots): seconds and hops per byte of the construction, of refine
// with the active set (the default) and, optionally, of refine searching every task
// on every pass (RefineOptions::active_set = false, the old behaviour).
//
//   bisect_refine_scaling [max tasks, default 1048576] [threads, default 2]
//                         [seconds per run, default 100] [full passes too: 0/1, default 1]
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "core/graph/generators.h"
#include "core/io/machine_spec.h"
#include "core/mappers/local_search/refine.h"
#include "core/mappers/mapper.h"
#include "core/mappers/portfolio/registry.h"
#include "core/metrics/hop_bytes.h"
#include "tbb/task_arena.h"

namespace hopmap {
namespace {

int Run(int64_t max_tasks, int threads, double seconds, bool with_full) {
  struct Case {
    int32_t tasks;
    std::string machine;
  };
  const std::vector<Case> cases = {
      {65536, "torus:64x32x32:cores=1"},   {65536, "torus:32x32x16:cores=4"},
      {262144, "torus:64x64x64:cores=1"},  {262144, "torus:64x64x16:cores=4"},
      {1048576, "torus:64x64x64:cores=4"},
  };
  std::printf("# random-geometric (seed 1), %d threads, %.0f s limit per run\n", threads, seconds);
  std::printf(
      "| tasks | machine | rec-bisect s | rec-bisect hops/byte | refine s | refine hops/byte |"
      " passes | exchanges | local opt | work (edges) | full-pass refine s | hops/byte |"
      " passes | local opt |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  tbb::task_arena arena(threads);
  for (const Case& c : cases) {
    if (c.tasks > max_tasks) continue;
    GeneratorOptions gen;
    gen.kind = "random-geometric";
    gen.tasks = c.tasks;
    const TaskGraph graph = *GenerateGraph(gen);
    absl::StatusOr<std::shared_ptr<Machine>> machine = ParseMachineSpec(c.machine);
    if (!machine.ok()) {
      std::printf("%s: %s\n", c.machine.c_str(), std::string(machine.status().message()).c_str());
      return 1;
    }
    const Allocation allocation = *Allocation::WholeMachine(*machine);
    const double bytes = static_cast<double>(graph.total_bytes());
    arena.execute([&] {
      MapperOptions options;
      options.threads = threads;
      options.time_limit_seconds = seconds;
      absl::Time t0 = absl::Now();
      StopCondition stop(t0 + absl::Seconds(seconds));
      absl::StatusOr<MapOutput> out =
          (*BuiltinMappers().Create("rec-bisect"))->Map({graph, allocation, options, stop});
      const double bisect_seconds = absl::ToDoubleSeconds(absl::Now() - t0);
      if (!out.ok()) {
        std::printf("rec-bisect: %s\n", std::string(out.status().message()).c_str());
        return;
      }
      const HopBytes bisect_hb = ComputeHopBytes(graph, allocation, out->slot_of_task);
      std::printf("| %d | %s | %.1f | %.4f |", c.tasks, c.machine.c_str(), bisect_seconds,
                  bisect_hb / bytes);
      std::fflush(stdout);
      for (bool active : {true, false}) {
        if (!active && !with_full) {
          std::printf(" | | | | |");
          break;
        }
        Placement placement(graph, allocation, out->slot_of_task);
        RefineOptions refine;
        refine.active_set = active;
        t0 = absl::Now();
        stop = StopCondition(t0 + absl::Seconds(seconds));
        const RefineStats stats = RefinePlacement(placement, refine, stop);
        const double refine_seconds = absl::ToDoubleSeconds(absl::Now() - t0);
        const bool exact =
            ComputeHopBytes(graph, allocation, placement.slot_of_task()) == placement.hop_bytes();
        if (active) {
          std::printf(" %.1f | %.4f%s | %d (%d) | %lld | %s | %.3g |", refine_seconds,
                      placement.hop_bytes() / bytes, exact ? "" : " (MISMATCH)", stats.passes,
                      stats.full_passes, static_cast<long long>(stats.exchanges),
                      stats.local_optimum ? "yes" : "no", static_cast<double>(stats.work));
        } else {
          std::printf(" %.1f | %.4f%s | %d | %s | %.3g |", refine_seconds,
                      placement.hop_bytes() / bytes, exact ? "" : " (MISMATCH)", stats.passes,
                      stats.local_optimum ? "yes" : "no", static_cast<double>(stats.work));
        }
        std::fflush(stdout);
      }
      std::printf("\n");
    });
  }
  return 0;
}

}  // namespace
}  // namespace hopmap

int main(int argc, char** argv) {
  const int64_t max_tasks = argc > 1 ? std::atoll(argv[1]) : 1048576;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const double seconds = argc > 3 ? std::atof(argv[3]) : 100;
  const bool with_full = argc > 4 ? std::atoi(argv[4]) != 0 : true;
  return hopmap::Run(max_tasks, threads, seconds, with_full);
}
