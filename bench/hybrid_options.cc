// Sweeps HybridOptions on one problem: hop-bytes and seconds per setting, next to
// in-order. Usage: hybrid_options KIND TASKS TORUS_DIMS CORES [THREADS]
//   e.g. hybrid_options random-geometric 4096 16x16x16 1
// (KIND stencil2d-5 takes a square grid of TASKS tasks.)
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
#include "core/mappers/hybrid.h"
#include "core/metrics/hop_bytes.h"
#include "core/topology/torus.h"
#include "tbb/task_arena.h"

int main(int argc, char** argv) {
  using namespace hopmap;
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s KIND TASKS TORUS_DIMS CORES [THREADS]\n", argv[0]);
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
  GeneratorOptions gen;
  gen.kind = kind;
  if (kind.rfind("stencil2d", 0) == 0) {
    const int32_t side = static_cast<int32_t>(std::lround(std::sqrt(tasks)));
    gen.dims = {side, side};
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
  std::printf("%6s %6s %6s %6s %6s %14s %8s  %s\n", "part", "q_it", "q_tabu", "l_it", "l_tabu",
              "hop_bytes", "seconds", "variant");
  struct Setting {
    int64_t part, q_it, q_tabu, l_it, l_tabu;
    bool grasp_leaves;
    int64_t all_pairs = 512;  // final refine: every slot a candidate up to this many
  };
  const Setting settings[] = {{256, 4, 10, 1, 0, false},
                              {256, 4, 10, 1, 2, true},
                              {256, 4, 10, 1, 2, true, 1 << 30},
                              {128, 4, 10, 1, 0, false},
                              {512, 4, 10, 1, 0, false}};
  tbb::task_arena arena(threads);
  for (const Setting& s : settings) {
    HybridOptions options;
    options.part_slots = s.part;
    options.quotient_grasp_iterations = s.q_it;
    options.quotient_tabu_iterations_per_slot = s.q_tabu;
    options.leaf_grasp_iterations = s.l_it;
    options.leaf_tabu_iterations_per_slot = s.l_tabu;
    options.grasp_leaves_max_slots = s.grasp_leaves ? allocation.num_slots() : 0;
    options.refine.all_pairs_slot_limit = s.all_pairs;
    MapperOptions mapper_options;
    mapper_options.time_limit_seconds = 600;
    const StopCondition stop(absl::Now() + absl::Seconds(600));
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
    std::printf("%6lld %6lld %6lld %6lld %6lld %14lld %8.2f  %s\n", static_cast<long long>(s.part),
                static_cast<long long>(s.q_it), static_cast<long long>(s.q_tabu),
                static_cast<long long>(s.l_it), static_cast<long long>(s.l_tabu),
                static_cast<long long>(ComputeHopBytes(*graph, allocation, out->slot_of_task)),
                seconds, out->variant.c_str());
    std::fflush(stdout);
  }
  return 0;
}
