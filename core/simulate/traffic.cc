#include "core/simulate/traffic.h"

#include <bit>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace hopmap {
namespace {

std::vector<TaskFlow> GraphPhase(const TaskGraph& graph) {
  std::vector<TaskFlow> flows;
  flows.reserve(graph.adjncy().size());
  for (TaskId u = 0; u < graph.num_tasks(); ++u) {
    graph.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
      if (w <= 0) return;
      // Each undirected edge is stored at both ends: the lower end sends the
      // larger half, so the two directions add up to w.
      const uint64_t half = static_cast<uint64_t>(w) / 2;
      const uint64_t bytes = u < v ? static_cast<uint64_t>(w) - half : half;
      if (bytes > 0) flows.push_back({u, v, bytes});
    });
  }
  return flows;
}

}  // namespace

std::string CommunicationPattern::Name() const {
  switch (kind) {
    case PatternKind::kGraph:
      return "graph";
    case PatternKind::kAllgather:
      return absl::StrCat("allgather:", block_bytes);
    case PatternKind::kAlltoall:
      return absl::StrCat("alltoall:", block_bytes);
  }
  return "graph";
}

absl::StatusOr<CommunicationPattern> ParsePattern(absl::string_view text) {
  if (text == "graph") return CommunicationPattern{};
  const size_t colon = text.find(':');
  const absl::string_view name = text.substr(0, colon);
  CommunicationPattern pattern;
  if (name == "allgather") {
    pattern.kind = PatternKind::kAllgather;
  } else if (name == "alltoall") {
    pattern.kind = PatternKind::kAlltoall;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("pattern '", text, "': use graph, allgather:BYTES or alltoall:BYTES"));
  }
  uint64_t bytes = 0;
  if (colon == absl::string_view::npos || !absl::SimpleAtoi(text.substr(colon + 1), &bytes) ||
      bytes == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("pattern '", text, "': ", name,
                     " needs a block size, a positive number of bytes (", name, ":1024)"));
  }
  pattern.block_bytes = bytes;
  return pattern;
}

absl::StatusOr<std::vector<std::vector<TaskFlow>>> PatternPhases(
    const TaskGraph& graph, std::span<const CommunicationPattern> patterns) {
  const CommunicationPattern graph_only[] = {CommunicationPattern{}};
  if (patterns.empty()) patterns = graph_only;
  const int64_t p = graph.num_tasks();
  std::vector<std::vector<TaskFlow>> phases;
  for (const CommunicationPattern& pattern : patterns) {
    switch (pattern.kind) {
      case PatternKind::kGraph:
        phases.push_back(GraphPhase(graph));
        break;
      case PatternKind::kAllgather: {
        if (p < 2 || !std::has_single_bit(static_cast<uint64_t>(p))) {
          return absl::InvalidArgumentError(absl::StrCat(
              "pattern '", pattern.Name(),
              "': recursive doubling needs a power-of-two number of tasks (at least 2), got ", p));
        }
        for (int64_t distance = 1; distance < p; distance *= 2) {
          std::vector<TaskFlow>& flows = phases.emplace_back();
          flows.reserve(p);
          for (int64_t r = 0; r < p; ++r) {
            flows.push_back({static_cast<TaskId>(r), static_cast<TaskId>(r ^ distance),
                             pattern.block_bytes * static_cast<uint64_t>(distance)});
          }
        }
        break;
      }
      case PatternKind::kAlltoall: {
        if (p < 2 || p * (p - 1) > kMaxFlowsPerIteration) {
          return absl::InvalidArgumentError(absl::StrCat(
              "pattern '", pattern.Name(), "': pairwise exchange over ", p, " tasks sends ",
              p * (p - 1), " messages; simulate takes 2 to ", kMaxFlowsPerIteration));
        }
        for (int64_t k = 1; k < p; ++k) {
          std::vector<TaskFlow>& flows = phases.emplace_back();
          flows.reserve(p);
          for (int64_t r = 0; r < p; ++r) {
            flows.push_back(
                {static_cast<TaskId>(r), static_cast<TaskId>((r + k) % p), pattern.block_bytes});
          }
        }
        break;
      }
    }
  }
  int64_t total = 0;
  for (const std::vector<TaskFlow>& phase : phases) total += static_cast<int64_t>(phase.size());
  if (total > kMaxFlowsPerIteration) {
    return absl::InvalidArgumentError(absl::StrCat("an iteration of these patterns sends ", total,
                                                   " messages; simulate takes at most ",
                                                   kMaxFlowsPerIteration));
  }
  return phases;
}

}  // namespace hopmap
