// Pattern analysis (hopmap analyze) at a million tasks, timed (PatternTest.MillionTasks
// checks the same answers in the suite, without times). For each graph it prints what the
// analyzer found, its time, and that time as a ratio to generating the same graph in
// the same run (the generator writes every edge once: the ratio, not the absolute
// time, is the figure to compare across machines). Exits 1 if a kind is not the one
// the generator made, so a run also checks the answers.
//
// Usage: build/bench/pattern_scale
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/analysis/pattern.h"
#include "core/graph/generators.h"
#include "core/graph/task_graph.h"

namespace hopmap {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Case {
  GeneratorOptions graph;
  std::string expected_kind;
};

GeneratorOptions Options(std::string kind, std::vector<int32_t> dims, bool wrap,
                         int32_t tasks = 0) {
  GeneratorOptions o;
  o.kind = std::move(kind);
  o.dims = std::move(dims);
  o.wrap = wrap;
  o.tasks = tasks;
  return o;
}

int Run() {
  const std::vector<Case> cases = {
      {Options("stencil3d-7", {100, 100, 100}, true), "stencil3d-7"},
      {Options("stencil3d-27", {100, 100, 100}, true), "stencil3d-27"},
      {Options("stencil2d-5", {1000, 1000}, false), "stencil2d-5"},
      {Options("recursive-doubling", {}, false, 1 << 20), "recursive-doubling"},
      {Options("random-geometric", {}, false, 1000000), "none"},
  };
  int wrong = 0;
  std::printf("| graph | tasks | edges | found | analysis s | generation s | ratio |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const Case& c : cases) {
    const auto generate_start = std::chrono::steady_clock::now();
    absl::StatusOr<TaskGraph> g = GenerateGraph(c.graph);
    const double generate_s = SecondsSince(generate_start);
    if (!g.ok()) {
      std::fprintf(stderr, "pattern_scale: %s: %s\n", c.graph.kind.c_str(),
                   std::string(g.status().message()).c_str());
      return 1;
    }
    const auto analyze_start = std::chrono::steady_clock::now();
    absl::StatusOr<PatternReport> r = AnalyzePattern(*g, AnalyzerOptions{});
    const double analyze_s = SecondsSince(analyze_start);
    if (!r.ok()) {
      std::fprintf(stderr, "pattern_scale: %s: %s\n", c.graph.kind.c_str(),
                   std::string(r.status().message()).c_str());
      return 1;
    }
    std::printf("| %s | %d | %lld | %s | %.2f | %.2f | %.2f |\n", c.graph.kind.c_str(),
                g->num_tasks(), static_cast<long long>(g->num_edges()), r->kind.c_str(), analyze_s,
                generate_s, analyze_s / generate_s);
    if (r->kind != c.expected_kind) {
      std::fprintf(stderr, "pattern_scale: %s: found %s, expected %s\n", c.graph.kind.c_str(),
                   r->kind.c_str(), c.expected_kind.c_str());
      ++wrong;
    }
  }
  return wrong == 0 ? 0 : 1;
}

}  // namespace
}  // namespace hopmap

int main() { return hopmap::Run(); }
