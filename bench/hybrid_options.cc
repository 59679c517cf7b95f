// Sweeps HybridOptions on one problem: hop-bytes and seconds per setting, next to
// in-order. Usage: hybrid_options KIND TASKS TORUS_DIMS CORES [THREADS [SECONDS]]
//   e.g. hybrid_options random-geometric 4096 16x16x16 1
// (KIND stencil2d-* takes a square grid of TASKS tasks, stencil3d-* a cube.)
// SECONDS: the time limit of each run (default 600).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "core/graph/generators.h"
#include "core/mappers/local_search/hybrid.h"
#include "core/metrics/hop_bytes.h"
#include "core/topology/torus.h"
#include "tbb/task_arena.h"

int main(int argc, char** argv) {
  using namespace hopmap;
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s KIND TASKS TORUS_DIMS CORES [THREADS [SECONDS]]\n", argv[0]);
    return 2;
  }
  const std::string kind = argv[1];
  const int32_t tasks = std::atoi(argv[2]);
  std::vector<int32_t> dims;
  for (absl::string_view d : absl::StrSplit(argv[3], 'x')) {
    int32_t v = 0;
    if (!absl::SimpleAtoi(d, &v)) return 2;
    dims.push_back(v);
  }
  const int32_t cores = std::atoi(argv[4]);
  const int threads = argc > 5 ? std::atoi(argv[5]) : 2;
  const double seconds_limit = argc > 6 ? std::atof(argv[6]) : 600;
  GeneratorOptions gen;
  gen.kind = kind;
  if (kind.rfind("stencil2d", 0) == 0) {
    const int32_t side = static_cast<int32_t>(std::lround(std::sqrt(tasks)));
    gen.dims = {side, side};
  } else if (kind.rfind("stencil3d", 0) == 0) {
    const int32_t side = static_cast<int32_t>(std::lround(std::cbrt(tasks)));
    gen.dims = {side, side, side};
  } else {
    gen.tasks = tasks;
  }
  absl::StatusOr<TaskGraph> graph = GenerateGraph(gen);
  if (!graph.ok()) {
    std::fprintf(stderr, "%s\n", std::string(graph.status().message()).c_str());
    return 1;
  }
  auto torus = std::make_shared<TorusMachine>(
      *TorusMachine::Create(dims, std::vector<bool>(dims.size(), true)));
  std::vector<NodeId> nodes(torus->num_nodes());
  std::iota(nodes.begin(), nodes.end(), 0);
  const Allocation allocation = *Allocation::Create(torus, std::move(nodes), cores);
  std::vector<SlotId> in_order(graph->num_tasks());
  std::iota(in_order.begin(), in_order.end(), 0);
  std::printf("%s %d tasks on torus %s x %d cores, %d threads; in-order %lld\n", kind.c_str(),
              graph->num_tasks(), argv[3], cores, threads,
              static_cast<long long>(ComputeHopBytes(*graph, allocation, in_order)));
  std::printf("%-28s %14s %8s  %s\n", "setting", "hop_bytes", "seconds", "variant");
  struct Setting {
    const char* name;
    bool group_cores_first = HybridOptions().group_cores_first;
    bool refine_boundary_only = HybridOptions().refine_boundary_only;
    int64_t refine_work_per_task = HybridOptions().refine_work_per_task;
    int32_t max_parts_per_level = HybridOptions().max_parts_per_level;
  };
  const Setting settings[] = {
      {.name = "defaults"},
      {.name = "node grouping toggled", .group_cores_first = !HybridOptions().group_cores_first},
      {.name = "final refine: every task", .refine_boundary_only = false},
      {.name = "final refine: no work cap", .refine_work_per_task = 0},
      {.name = "256 parts per level", .max_parts_per_level = 256}};
  tbb::task_arena arena(threads);
  for (const Setting& s : settings) {
    // Grouping only acts on several cores per node.
    if (cores == 1 && s.group_cores_first != HybridOptions().group_cores_first) continue;
    HybridOptions options;
    options.group_cores_first = s.group_cores_first;
    options.refine_boundary_only = s.refine_boundary_only;
    options.refine_work_per_task = s.refine_work_per_task;
    options.max_parts_per_level = s.max_parts_per_level;
    MapperOptions mapper_options;
    mapper_options.time_limit_seconds = seconds_limit;
    mapper_options.threads = threads;
    const StopCondition stop(absl::Now() + absl::Seconds(seconds_limit));
    const absl::Time start = absl::Now();
    absl::StatusOr<MapOutput> out;
    arena.execute([&] {
      out = HybridMapper(options).Map(MapInput{*graph, allocation, mapper_options, stop});
    });
    const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
    if (!out.ok()) {
      std::printf("error: %s\n", std::string(out.status().message()).c_str());
      continue;
    }
    std::printf("%-28s %14lld %8.2f  %s\n", s.name,
                static_cast<long long>(ComputeHopBytes(*graph, allocation, out->slot_of_task)),
                seconds, out->variant.c_str());
    std::fflush(stdout);
  }
  return 0;
}
