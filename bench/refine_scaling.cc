// refine on large sparse graphs: a random start and a scheduler's in-order start,
// improved by pair exchanges with neighbour-only candidates within a time budget.
//
//   refine_scaling [seconds per case, default 30] [threads, default 2]
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "core/graph/generators.h"
#include "core/mappers/local_search/refine.h"
#include "core/mappers/mapper.h"
#include "core/mappers/portfolio/registry.h"
#include "core/metrics/hop_bytes.h"
#include "core/search/random_stream.h"
#include "core/topology/torus.h"
#include "tbb/task_arena.h"

namespace hopmap {
namespace {

int Run(double seconds, int threads) {
  struct Case {
    std::vector<int32_t> grid;
    std::vector<int32_t> torus;
    int32_t cores;
  };
  const std::vector<Case> cases = {
      {{64, 64, 64}, {16, 16, 16}, 64},    // 262,144 tasks, 4096 nodes x 64 cores
      {{100, 100, 100}, {50, 50, 50}, 8},  // 1,000,000 tasks, 125,000 nodes x 8 cores
  };
  std::printf("# %.0f s per run, %d threads\n", seconds, threads);
  std::printf(
      "| tasks | torus x cores | start | start hops/byte | refined hops/byte | passes |"
      " exchanges | local opt | seconds |\n|---|---|---|---|---|---|---|---|---|\n");
  tbb::task_arena arena(threads);
  for (const Case& c : cases) {
    GeneratorOptions gen;
    gen.kind = "stencil3d-7";
    gen.dims = c.grid;
    gen.wrap = true;
    const TaskGraph graph = *GenerateGraph(gen);
    auto machine =
        std::make_shared<TorusMachine>(*TorusMachine::Create(c.torus, {true, true, true}));
    std::vector<NodeId> nodes(machine->num_nodes());
    std::iota(nodes.begin(), nodes.end(), 0);
    const Allocation allocation = *Allocation::Create(machine, nodes, c.cores);
    for (const std::string start_kind : {"random", "in-order"}) {
      std::vector<SlotId> start(allocation.num_slots());
      std::iota(start.begin(), start.end(), 0);
      if (start_kind == "random") {
        RandomStream random(1, 0);
        random.Shuffle(std::span<SlotId>(start));
      }
      start.resize(graph.num_tasks());
      arena.execute([&] {
        Placement placement(graph, allocation, start);
        const double before = static_cast<double>(placement.hop_bytes()) / graph.total_bytes();
        RefineOptions options;
        const absl::Time t0 = absl::Now();
        const StopCondition stop(t0 + absl::Seconds(seconds));
        const RefineStats stats = RefinePlacement(placement, options, stop);
        const double elapsed = absl::ToDoubleSeconds(absl::Now() - t0);
        const HopBytes check = ComputeHopBytes(graph, allocation, placement.slot_of_task());
        std::printf(
            "| %d | %dx%dx%d x %d | %s | %.3f | %.3f%s | %d | %lld | %s | %.1f |\n",
            graph.num_tasks(), c.torus[0], c.torus[1], c.torus[2], c.cores, start_kind.c_str(),
            before, static_cast<double>(placement.hop_bytes()) / graph.total_bytes(),
            check == placement.hop_bytes() ? "" : " (MISMATCH)", stats.passes,
            static_cast<long long>(stats.exchanges), stats.local_optimum ? "yes" : "no", elapsed);
        std::fflush(stdout);
      });
    }
    // grasp's large-graph path (neighbour-only gains) on the same problem.
    arena.execute([&] {
      MapperOptions options;
      options.time_limit_seconds = seconds;
      const absl::Time t0 = absl::Now();
      const StopCondition stop(t0 + absl::Seconds(seconds));
      absl::StatusOr<MapOutput> out =
          (*BuiltinMappers().Create("grasp"))->Map({graph, allocation, options, stop});
      const double elapsed = absl::ToDoubleSeconds(absl::Now() - t0);
      if (!out.ok()) {
        std::printf("grasp: %s\n", std::string(out.status().message()).c_str());
        return;
      }
      const HopBytes hb = ComputeHopBytes(graph, allocation, out->slot_of_task);
      std::printf("| %d | %dx%dx%d x %d | grasp (%s) | | %.3f | | | | %.1f |\n", graph.num_tasks(),
                  c.torus[0], c.torus[1], c.torus[2], c.cores, out->variant.c_str(),
                  static_cast<double>(hb) / graph.total_bytes(), elapsed);
      std::fflush(stdout);
    });
  }
  return 0;
}

}  // namespace
}  // namespace hopmap

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 30;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  return hopmap::Run(seconds, threads);
}
