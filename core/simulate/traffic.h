// What a simulated iteration sends: the task graph's edges, and the collectives
// the seeds measured, as phases of task-to-task flows.
#ifndef HOPMAP_CORE_SIMULATE_TRAFFIC_H_
#define HOPMAP_CORE_SIMULATE_TRAFFIC_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/graph/task_graph.h"
#include "core/graph/training_job.h"
#include "core/simulate/collectives.h"
#include "core/simulate/network_model.h"

namespace hopmap {

enum class PatternKind {
  // One phase: every edge's w bytes, half each way (as link loads count them).
  kGraph,
  // MPI_Allgather by recursive doubling (seed 001): log2(p) phases; in phase k task
  // r exchanges 2^k blocks with task r XOR 2^k. p must be a power of two.
  kAllgather,
  // MPI_Alltoall by pairwise exchange: p - 1 phases; in phase k task r sends one
  // block to task (r + k) mod p.
  kAlltoall,
  // NCCL's ring all-reduce of block_bytes per task: one phase, task r sends
  // 2(p-1)/p x block_bytes to r+1 mod p (AllReducePhases, collectives.h).
  kRingAllreduce,
  // NCCL's double binary tree all-reduce: 2 x depth phases (AllReducePhases).
  kTreeAllreduce,
  // One step of `training` (TrainingPhases, training_traffic.h); p must be its GPU count.
  kTraining,
};

struct CommunicationPattern {
  PatternKind kind = PatternKind::kGraph;
  uint64_t block_bytes = 0;  // a collective's block (each task's contribution)
  TrainingJob training;      // kTraining
  AllReduceAlgorithm allreduce = AllReduceAlgorithm::kRing;  // kTraining
  // "graph", "allgather:1024", "alltoall:65536", "training:tp=2,dp=4": what
  // ParsePattern reads.
  [[nodiscard]] std::string Name() const;
};

// "graph", "allgather:BYTES", "alltoall:BYTES", "ring-allreduce:BYTES",
// "tree-allreduce:BYTES" (BYTES a positive integer) or "training:SPEC" (a
// ParseTrainingJob spec, plus allreduce=ring|tree).
absl::StatusOr<CommunicationPattern> ParsePattern(absl::string_view text);

// Collectives above this many flows per iteration are refused: the simulator holds
// every flow of a phase at once, and past it a run takes minutes.
inline constexpr int64_t kMaxFlowsPerIteration = 4'000'000;

// The phases of `patterns` in order (empty: the graph alone) over the graph's tasks.
// InvalidArgument names the pattern that cannot apply (allgather on a task count
// that is not a power of two, a collective above kMaxFlowsPerIteration, a training
// job whose GPU count is not the task count).
absl::StatusOr<std::vector<std::vector<TaskFlow>>> PatternPhases(
    const TaskGraph& graph, std::span<const CommunicationPattern> patterns);

}  // namespace hopmap

#endif  // HOPMAP_CORE_SIMULATE_TRAFFIC_H_
