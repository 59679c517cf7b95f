// Hop-bytes evaluation throughput on a 1M-task graph, and peak memory.
//
// Reports edges per second of ComputeHopBytes against a baseline measured in the
// same run on the same CSR arrays: a pass that only sums the edge weights (the
// memory traffic any evaluator must pay). The ratio, not the absolute time, is
// the figure to compare across machines.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "core/graph/generators.h"
#include "core/metrics/hop_bytes.h"
#include "core/search/random_stream.h"
#include "core/topology/torus.h"
#include "tbb/blocked_range.h"
#include "tbb/global_control.h"
#include "tbb/info.h"
#include "tbb/parallel_reduce.h"

namespace hopmap {
namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// The baseline: read every adjacency entry once, as the evaluator does, but
// without looking up positions or hops.
Bytes SumWeights(const TaskGraph& g) {
  const auto& xadj = g.xadj();
  const auto& adjncy = g.adjncy();
  const auto& adjwgt = g.adjwgt();
  return tbb::parallel_reduce(
      tbb::blocked_range<TaskId>(0, g.num_tasks(), 1024), Bytes{0},
      [&](const tbb::blocked_range<TaskId>& r, Bytes sum) {
        for (TaskId u = r.begin(); u < r.end(); ++u) {
          for (EdgeIndex e = xadj[u]; e < xadj[u + 1]; ++e) {
            if (adjncy[e] > u) sum += adjwgt[e];
          }
        }
        return sum;
      },
      [](Bytes a, Bytes b) { return a + b; });
}

// Median time of `reps` runs of f.
template <typename F>
double MedianSeconds(int reps, F&& f) {
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(Seconds(start));
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int Run(int threads, int reps) {
  tbb::global_control control(tbb::global_control::max_allowed_parallelism, threads);
  // 100^3 = 1,000,000 tasks of a 7-point stencil. The 25^3 torus has too many
  // nodes for a dense hop matrix, so hops come from the torus's coordinates.
  GeneratorOptions gen;
  gen.kind = "stencil3d-7";
  gen.dims = {100, 100, 100};
  gen.wrap = true;
  gen.bytes = 4096;
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<TaskGraph> graph = GenerateGraph(gen);
  if (!graph.ok()) {
    std::fprintf(stderr, "generate: %s\n", std::string(graph.status().message()).c_str());
    return 1;
  }
  const double build_seconds = Seconds(start);
  auto machine = std::make_shared<TorusMachine>(
      *TorusMachine::Create({25, 25, 25}, {true, true, true}));  // 15625 nodes
  machine->set_cores_per_node(64);                               // 1,000,000 slots
  absl::StatusOr<Allocation> allocation = Allocation::WholeMachine(machine);
  if (!allocation.ok()) return 1;

  std::vector<SlotId> in_order(graph->num_tasks());
  std::iota(in_order.begin(), in_order.end(), 0);
  // A scattered mapping too: random slots defeat the caches the in-order one enjoys.
  std::vector<SlotId> scattered = in_order;
  RandomStream(/*seed=*/1, /*work_item=*/0).Shuffle(std::span<SlotId>(scattered));
  const double edges = static_cast<double>(graph->num_edges());
  HopBytes sink = 0;
  const double base = MedianSeconds(reps, [&] { sink += SumWeights(*graph); });
  const double hb_in_order =
      MedianSeconds(reps, [&] { sink += ComputeHopBytes(*graph, *allocation, in_order); });
  const double hb_scattered =
      MedianSeconds(reps, [&] { sink += ComputeHopBytes(*graph, *allocation, scattered); });
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);

  std::printf("graph: stencil3d-7 100x100x100 wrap, %d tasks, %lld edges (built in %.2f s)\n",
              graph->num_tasks(), static_cast<long long>(graph->num_edges()), build_seconds);
  std::printf("machine: %s, %d threads, median of %d runs\n", machine->Spec().c_str(), threads,
              reps);
  std::printf("| pass | seconds | edges/s | time vs baseline |\n|---|---|---|---|\n");
  std::printf("| baseline: sum weights | %.4f | %.3g | 1.00 |\n", base, edges / base);
  std::printf("| hop-bytes, in-order mapping | %.4f | %.3g | %.2f |\n", hb_in_order,
              edges / hb_in_order, hb_in_order / base);
  std::printf("| hop-bytes, scattered mapping | %.4f | %.3g | %.2f |\n", hb_scattered,
              edges / hb_scattered, hb_scattered / base);
  std::printf("peak RSS: %.1f MiB\n", usage.ru_maxrss / 1024.0);
  std::printf("(checksum %lld)\n", static_cast<long long>(sink % 1000));
  return 0;
}

}  // namespace
}  // namespace hopmap

int main(int argc, char** argv) {
  int threads = 0, reps = 5;
  if (argc > 1 && (!absl::SimpleAtoi(argv[1], &threads) || threads < 0)) {
    std::fprintf(stderr, "usage: hop_bytes_throughput [THREADS (0 = all)] [REPS]\n");
    return 1;
  }
  if (argc > 2 && (!absl::SimpleAtoi(argv[2], &reps) || reps < 1)) {
    std::fprintf(stderr, "usage: hop_bytes_throughput [THREADS (0 = all)] [REPS]\n");
    return 1;
  }
  if (threads == 0) threads = static_cast<int>(tbb::info::default_concurrency());
  return hopmap::Run(threads, reps);
}
