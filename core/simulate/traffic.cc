#include "core/simulate/traffic.h"

#include <bit>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/simulate/training_traffic.h"

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

constexpr char kPatternNames[] =
    "graph, allgather:BYTES, alltoall:BYTES, ring-allreduce:BYTES, tree-allreduce:BYTES or "
    "training:SPEC";

// "training:SPEC": the job, with allreduce=ring|tree taken out first.
absl::StatusOr<CommunicationPattern> ParseTrainingPattern(absl::string_view text,
                                                          absl::string_view spec) {
  CommunicationPattern pattern;
  pattern.kind = PatternKind::kTraining;
  std::vector<absl::string_view> job_items;
  for (absl::string_view item : absl::StrSplit(spec, ',', absl::SkipEmpty())) {
    if (!absl::StartsWith(item, "allreduce=")) {
      job_items.push_back(item);
    } else if (item == "allreduce=tree") {
      pattern.allreduce = AllReduceAlgorithm::kTree;
    } else if (item != "allreduce=ring") {
      return absl::InvalidArgumentError(
          absl::StrCat("pattern '", text, "': allreduce: use ring or tree, got '", item, "'"));
    }
  }
  absl::StatusOr<TrainingJob> job = ParseTrainingJob(absl::StrJoin(job_items, ","));
  if (!job.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("pattern '", text, "': ", job.status().message()));
  }
  pattern.training = *std::move(job);
  return pattern;
}

absl::StatusOr<std::vector<std::vector<TaskFlow>>> TrainingPatternPhases(
    const CommunicationPattern& pattern, int64_t p) {
  const TrainingJob& job = pattern.training;
  if (job.num_gpus() != p) {
    return absl::InvalidArgumentError(absl::StrCat("pattern '", pattern.Name(),
                                                   "': the job has tp*cp*dp*pp = ", job.num_gpus(),
                                                   " ranks, the graph ", p, " tasks"));
  }
  // The all-to-alls dominate the flow count: refuse them before building them.
  if (job.experts > 0 && job.num_gpus() * (job.ep - 1) > kMaxFlowsPerIteration) {
    return absl::InvalidArgumentError(
        absl::StrCat("pattern '", pattern.Name(), "': the expert all-to-alls send ",
                     job.num_gpus() * (job.ep - 1), " messages; simulate takes at most ",
                     kMaxFlowsPerIteration));
  }
  return TrainingPhases(job, TrainingPhaseOptions{.allreduce = pattern.allreduce});
}

// Tasks 0..p-1 in order: the group a collective over every task runs in.
std::vector<TaskId> AllTasks(int64_t p) {
  std::vector<TaskId> tasks(static_cast<size_t>(p));
  for (int64_t t = 0; t < p; ++t) tasks[static_cast<size_t>(t)] = static_cast<TaskId>(t);
  return tasks;
}

// The phases of an all-reduce over every task, in task order.
std::vector<std::vector<TaskFlow>> AllTasksAllReduce(int64_t p, uint64_t payload,
                                                     AllReduceAlgorithm algorithm) {
  return AllReducePhases(AllTasks(p), payload, algorithm);
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
    case PatternKind::kRingAllreduce:
      return absl::StrCat("ring-allreduce:", block_bytes);
    case PatternKind::kTreeAllreduce:
      return absl::StrCat("tree-allreduce:", block_bytes);
    case PatternKind::kTraining: {
      std::string spec = TrainingJobSpec(training);
      if (allreduce == AllReduceAlgorithm::kTree) {
        absl::StrAppend(&spec, spec.empty() ? "" : ",", "allreduce=tree");
      }
      return absl::StrCat("training:", spec);
    }
  }
  return "graph";
}

absl::StatusOr<CommunicationPattern> ParsePattern(absl::string_view text) {
  if (text == "graph") return CommunicationPattern{};
  const size_t colon = text.find(':');
  const absl::string_view name = text.substr(0, colon);
  if (name == "training") {
    return ParseTrainingPattern(
        text, colon == absl::string_view::npos ? absl::string_view() : text.substr(colon + 1));
  }
  CommunicationPattern pattern;
  if (name == "allgather") {
    pattern.kind = PatternKind::kAllgather;
  } else if (name == "alltoall") {
    pattern.kind = PatternKind::kAlltoall;
  } else if (name == "ring-allreduce") {
    pattern.kind = PatternKind::kRingAllreduce;
  } else if (name == "tree-allreduce") {
    pattern.kind = PatternKind::kTreeAllreduce;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("pattern '", text, "': use ", kPatternNames));
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
        MergePhases(PairwiseAllToAllPhases(AllTasks(p), pattern.block_bytes), phases);
        break;
      }
      case PatternKind::kRingAllreduce:
      case PatternKind::kTreeAllreduce: {
        const AllReduceAlgorithm algorithm = pattern.kind == PatternKind::kTreeAllreduce
                                                 ? AllReduceAlgorithm::kTree
                                                 : AllReduceAlgorithm::kRing;
        if (p < 2) {
          return absl::InvalidArgumentError(
              absl::StrCat("pattern '", pattern.Name(), "': an all-reduce needs 2 tasks or more"));
        }
        for (auto& phase : AllTasksAllReduce(p, pattern.block_bytes, algorithm)) {
          phases.push_back(std::move(phase));
        }
        break;
      }
      case PatternKind::kTraining: {
        absl::StatusOr<std::vector<std::vector<TaskFlow>>> step = TrainingPatternPhases(pattern, p);
        if (!step.ok()) return step.status();
        for (auto& phase : *step) phases.push_back(std::move(phase));
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
