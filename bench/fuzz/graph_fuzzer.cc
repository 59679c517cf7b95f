// libFuzzer target: one graph reader (HOPMAP_FUZZ_GRAPH_FORMAT, set by CMake) on
// arbitrary text. Any input must give a graph or an error, never a crash, a leak,
// a hang or an allocation beyond the fuzzer's RSS limit.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/io/graph_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<hopmap::TaskGraph> graph =
      hopmap::ParseGraph(text, hopmap::GraphFormat::HOPMAP_FUZZ_GRAPH_FORMAT, "fuzz");
  if (!graph.ok()) {
    // Every error names its source.
    if (graph.status().message().find("fuzz") == std::string::npos) std::abort();
    return 0;
  }
  // A graph the reader accepted keeps its invariants: CSR in range, symmetric sizes.
  const hopmap::TaskGraph& g = *graph;
  if (g.xadj().empty() || g.xadj().front() != 0 ||
      g.xadj().back() != static_cast<int64_t>(g.adjncy().size())) {
    std::abort();
  }
  for (int64_t t : g.adjncy()) {
    if (t < 0 || t >= g.num_tasks()) std::abort();
  }
  return 0;
}
