// The phases one training step of a TrainingJob sends (core/graph/training_job.h),
// for `hopmap simulate --pattern training:SPEC`. docs/gpu.md, "The job".
#ifndef HOPMAP_CORE_SIMULATE_TRAINING_TRAFFIC_H_
#define HOPMAP_CORE_SIMULATE_TRAINING_TRAFFIC_H_

#include <vector>

#include "absl/status/statusor.h"
#include "core/graph/training_job.h"
#include "core/simulate/collectives.h"
#include "core/simulate/network_model.h"

namespace hopmap {

struct TrainingPhaseOptions {
  // The algorithm of the TP and DP all-reduces (NCCL_ALGO=Ring or Tree).
  AllReduceAlgorithm allreduce = AllReduceAlgorithm::kRing;
};

// A step's traffic, each group kind's whole step at once, in the order TP, CP, EP,
// PP, DP (dense and expert gradients together); every group of a kind runs in the
// same phases. Per kind: an all-reduce as AllReducePhases gives it; the CP ring one
// phase (each rank to its successor); the EP all-to-all n-1 pairwise phases (phase k:
// member i to member i+k mod n); PP one phase (activations forward and gradients
// back at once). Overlap of communication with computation or of one kind with
// another is not modelled. Validates `job`.
absl::StatusOr<std::vector<std::vector<TaskFlow>>> TrainingPhases(
    const TrainingJob& job, const TrainingPhaseOptions& options);

}  // namespace hopmap

#endif  // HOPMAP_CORE_SIMULATE_TRAINING_TRAFFIC_H_
