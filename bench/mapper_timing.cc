// Mapping time of every registered mapper as the job grows: n = 256, 512, 1024 and
// 4096 tasks on a torus with n slots, for graphs like seed 004's experiments (the 2D
// process meshes of LU, Sweep3D and Snap; CG's row and column exchanges) and a
// random geometric graph. Also the literal OHTMA (seed 004 Algorithm 1 with the
// paper's cost per step) where it finishes, to compare with the incremental one.
//
// Usage: mapper_timing [TIME_LIMIT_S=10] [LITERAL_MAX_TASKS=512] [LITERAL_TIME_LIMIT_S=300]
//                      [ONLY]
// ONLY: run only the mappers whose name contains this text (e.g. "ohtma").
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "core/graph/generators.h"
#include "core/mappers/construct/ohtma.h"
#include "core/mappers/mapper.h"
#include "core/mappers/portfolio/registry.h"
#include "core/metrics/hop_bytes.h"
#include "core/topology/torus.h"

namespace hopmap {
namespace {

struct Size {
  int32_t tasks;
  std::vector<int32_t> grid;   // the 2D process mesh, first dim fastest
  std::vector<int32_t> torus;  // n nodes, one core each
};

struct GraphCase {
  const char* label;
  const char* kind;
};

struct Timed {
  absl::StatusOr<MapOutput> out;
  double seconds = 0;
};

Timed TimeMapper(const Mapper& mapper, const TaskGraph& graph, const Allocation& allocation,
                 double limit) {
  MapperOptions options;
  options.time_limit_seconds = limit;
  const StopCondition stop(absl::Now() + absl::Seconds(limit));
  const auto start = std::chrono::steady_clock::now();
  Timed timed{mapper.Map({graph, allocation, options, stop}), 0};
  timed.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return timed;
}

void PrintRow(const char* graph_label, const Size& size, const std::string& name,
              const Timed& timed, const TaskGraph& graph, const Allocation& allocation,
              HopBytes in_order, double limit, const std::string& note) {
  if (!timed.out.ok()) {
    std::string message(timed.out.status().message());
    if (message.size() > 60) message = message.substr(0, 57) + "...";
    std::printf("| %s | %d | %s | %s | %.3f | - | - | %s |\n", graph_label, size.tasks,
                absl::StrJoin(size.torus, "x").c_str(), name.c_str(), timed.seconds,
                message.c_str());
    return;
  }
  const HopBytes hb = ComputeHopBytes(graph, allocation, timed.out->slot_of_task);
  std::string full_note = note;
  if (timed.seconds >= limit)
    full_note += full_note.empty() ? "hit time limit" : ", hit time limit";
  std::printf("| %s | %d | %s | %s | %.3f | %lld | %.3f | %s |\n", graph_label, size.tasks,
              absl::StrJoin(size.torus, "x").c_str(), name.c_str(), timed.seconds,
              static_cast<long long>(hb), static_cast<double>(hb) / static_cast<double>(in_order),
              full_note.c_str());
  std::fflush(stdout);
}

int Run(double limit, int32_t literal_max_tasks, double literal_limit, const std::string& only) {
  const std::vector<Size> sizes = {
      {256, {16, 16}, {8, 8, 4}},
      {512, {32, 16}, {8, 8, 8}},
      {1024, {32, 32}, {16, 8, 8}},
      {4096, {64, 64}, {16, 16, 16}},
  };
  const std::vector<GraphCase> graphs = {
      {"stencil2d-5 (LU/Sweep3D/Snap mesh)", "stencil2d-5"},
      {"fft2d (CG-like row+column)", "fft2d"},
      {"random-geometric", "random-geometric"},
  };
  std::printf("time limit per run %.1f s; literal ohtma up to %d tasks (limit %.0f s)\n\n", limit,
              literal_max_tasks, literal_limit);
  std::printf(
      "| graph | n | torus | mapper | seconds | hop-bytes | HB / in-order | note |\n"
      "|---|---|---|---|---|---|---|---|\n");
  for (const GraphCase& g : graphs) {
    for (const Size& size : sizes) {
      GeneratorOptions gen;
      gen.kind = g.kind;
      if (std::string(g.kind) == "random-geometric") {
        gen.tasks = size.tasks;
      } else {
        gen.dims = size.grid;
        gen.wrap = std::string(g.kind) == "stencil2d-5";
      }
      absl::StatusOr<TaskGraph> graph = GenerateGraph(gen);
      absl::StatusOr<TorusMachine> torus =
          TorusMachine::Create(size.torus, std::vector<bool>(size.torus.size(), true));
      if (!graph.ok() || !torus.ok()) {
        std::fprintf(stderr, "setup failed\n");
        return 1;
      }
      absl::StatusOr<Allocation> allocation =
          Allocation::WholeMachine(std::make_shared<TorusMachine>(*std::move(torus)));
      if (!allocation.ok()) return 1;
      std::vector<SlotId> identity(graph->num_tasks());
      for (TaskId t = 0; t < graph->num_tasks(); ++t) identity[t] = t;
      const HopBytes in_order = ComputeHopBytes(*graph, *allocation, identity);

      std::vector<SlotId> ohtma_mapping;
      for (const MapperInfo& info : BuiltinMappers().mappers()) {
        if (info.name.find(only) == std::string::npos) continue;
        const std::unique_ptr<Mapper> mapper = info.create();
        const Timed timed = TimeMapper(*mapper, *graph, *allocation, limit);
        if (info.name == "ohtma" && timed.out.ok()) ohtma_mapping = timed.out->slot_of_task;
        PrintRow(g.label, size, info.name, timed, *graph, *allocation, in_order, limit,
                 timed.out.ok() ? timed.out->variant : "");
      }
      if (std::string("ohtma").find(only) != std::string::npos) {
        // Not the paper's setting: exchange passes repeated while one keeps an exchange.
        OhtmaOptions repeated;
        repeated.passes = 1000;
        const Timed timed = TimeMapper(OhtmaMapper(repeated), *graph, *allocation, limit);
        PrintRow(g.label, size, "ohtma (passes until no gain)", timed, *graph, *allocation,
                 in_order, limit, timed.out.ok() ? timed.out->variant : "");
      }
      if (size.tasks <= literal_max_tasks && std::string("ohtma").find(only) != std::string::npos) {
        OhtmaOptions literal_options;
        literal_options.literal = true;
        const OhtmaMapper literal(literal_options);
        const Timed timed = TimeMapper(literal, *graph, *allocation, literal_limit);
        std::string note = timed.out.ok() ? timed.out->variant : "";
        if (timed.out.ok() && !ohtma_mapping.empty()) {
          note += timed.out->slot_of_task == ohtma_mapping ? "; same mapping as ohtma"
                                                           : "; DIFFERS from ohtma";
        }
        PrintRow(g.label, size, "ohtma (literal)", timed, *graph, *allocation, in_order,
                 literal_limit, note);
      }
    }
  }
  return 0;
}

}  // namespace
}  // namespace hopmap

int main(int argc, char** argv) {
  const double limit = argc > 1 ? std::atof(argv[1]) : 10.0;
  const int literal_max = argc > 2 ? std::atoi(argv[2]) : 512;
  const double literal_limit = argc > 3 ? std::atof(argv[3]) : 300.0;
  if (!(limit > 0) || !(literal_limit > 0)) {
    std::fprintf(stderr,
                 "usage: mapper_timing [TIME_LIMIT_S=10] [LITERAL_MAX_TASKS=512] "
                 "[LITERAL_TIME_LIMIT_S=300] [ONLY]\n");
    return 2;
  }
  return hopmap::Run(limit, literal_max, literal_limit, argc > 4 ? argv[4] : "");
}
