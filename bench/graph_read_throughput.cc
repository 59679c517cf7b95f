// How long a large graph takes to become a TaskGraph, the first step of every request
// (issue 6: 1M-task maps). For a 3D 7-point stencil and a random geometric graph of
// --tasks tasks it prints, per text format: the text size, FormatGraph's time, and
// ParseGraph's time (text in memory, so the disk is not measured), then the time of
// TaskGraphToProto / TaskGraphFromProto and the serialized MapRequest graph's size
// (what a client sends to hopmapd; gRPC's default limit there is 256 MiB).
//
//   build/bench/graph_read_throughput [--tasks 1048576]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/graph/generators.h"
#include "core/io/graph_format.h"
#include "hopmap/v1/mapper.pb.h"
#include "proto/convert/convert.h"

namespace hopmap {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The side of a cube with about `tasks` cells: dims a x b x c, product = tasks when
// tasks is a power of two.
std::vector<int32_t> CubeDims(int64_t tasks) {
  int e = 0;
  while ((int64_t{1} << (e + 1)) <= tasks) ++e;
  const int a = e / 3;
  const int b = (e - a) / 2;
  const int c = e - a - b;
  return {1 << a, 1 << b, 1 << c};
}

int Run(int64_t tasks) {
  std::vector<std::pair<std::string, GeneratorOptions>> graphs;
  GeneratorOptions stencil;
  stencil.kind = "stencil3d-7";
  stencil.dims = CubeDims(tasks);
  stencil.wrap = true;
  graphs.emplace_back("stencil3d-7", stencil);
  GeneratorOptions rgg;
  rgg.kind = "random-geometric";
  rgg.tasks = static_cast<int32_t>(tasks);
  rgg.seed = 1;
  graphs.emplace_back("random-geometric", rgg);

  std::printf("| graph | tasks | edges | format | text MB | write s | parse s | parse MB/s |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  std::vector<std::string> proto_rows;
  for (const auto& [name, options] : graphs) {
    absl::StatusOr<TaskGraph> g = GenerateGraph(options);
    if (!g.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), std::string(g.status().message()).c_str());
      return 1;
    }
    for (GraphFormat format : {GraphFormat::kEdgeList, GraphFormat::kMetis, GraphFormat::kScotch,
                               GraphFormat::kMatrixMarket}) {
      auto start = std::chrono::steady_clock::now();
      const std::string text = FormatGraph(*g, format);
      const double write_s = SecondsSince(start);
      start = std::chrono::steady_clock::now();
      absl::StatusOr<TaskGraph> back = ParseGraph(text, format, name);
      const double parse_s = SecondsSince(start);
      if (!back.ok() || back->num_tasks() != g->num_tasks() ||
          back->num_edges() != g->num_edges()) {
        std::fprintf(stderr, "%s %s: the parsed graph differs\n", name.c_str(),
                     GraphFormatName(format).c_str());
        return 1;
      }
      const double mb = static_cast<double>(text.size()) / (1 << 20);
      std::printf("| %s | %d | %lld | %s | %.1f | %.2f | %.2f | %.0f |\n", name.c_str(),
                  g->num_tasks(), static_cast<long long>(g->num_edges()),
                  GraphFormatName(format).c_str(), mb, write_s, parse_s, mb / parse_s);
    }
    auto start = std::chrono::steady_clock::now();
    v1::TaskGraph proto;
    TaskGraphToProto(*g, &proto);
    const double to_s = SecondsSince(start);
    start = std::chrono::steady_clock::now();
    const std::string wire = proto.SerializeAsString();
    const double serialize_s = SecondsSince(start);
    start = std::chrono::steady_clock::now();
    absl::StatusOr<TaskGraph> from = TaskGraphFromProto(proto);
    const double from_s = SecondsSince(start);
    if (!from.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), std::string(from.status().message()).c_str());
      return 1;
    }
    char row[256];
    std::snprintf(row, sizeof(row), "| %s | %d | %.1f | %.2f | %.2f | %.2f |\n", name.c_str(),
                  g->num_tasks(), static_cast<double>(wire.size()) / (1 << 20), to_s, serialize_s,
                  from_s);
    proto_rows.push_back(row);
  }
  std::printf(
      "\n| graph | tasks | request graph MB (serialized) | TaskGraphToProto s | serialize s | "
      "TaskGraphFromProto s |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const std::string& row : proto_rows) std::fputs(row.c_str(), stdout);
  return 0;
}

}  // namespace
}  // namespace hopmap

int main(int argc, char** argv) {
  int64_t tasks = 1 << 20;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--tasks") == 0 && i + 1 < argc) {
      tasks = std::atoll(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--tasks N]\n", argv[0]);
      return 2;
    }
  }
  if (tasks < 8) {
    std::fprintf(stderr, "--tasks must be >= 8\n");
    return 2;
  }
  return hopmap::Run(tasks);
}
