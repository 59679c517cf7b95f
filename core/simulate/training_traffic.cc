#include "core/simulate/training_traffic.h"

#include <utility>

namespace hopmap {
namespace {

// The phases of one group's exchange, before merging with its kind's other groups.
std::vector<std::vector<TaskFlow>> ExchangePhases(const TrainingExchange& x,
                                                  const TrainingPhaseOptions& options) {
  const size_t n = x.ranks.size();
  std::vector<std::vector<TaskFlow>> phases;
  switch (x.op) {
    case TrainingExchangeOp::kAllReduce:
      return AllReducePhases(x.ranks, x.bytes, options.allreduce);
    case TrainingExchangeOp::kRingSend:
      phases.push_back(RingPhase(x.ranks, x.bytes));
      return phases;
    case TrainingExchangeOp::kAllToAll:
      return PairwiseAllToAllPhases(x.ranks, x.bytes);
    case TrainingExchangeOp::kPipeline:
      phases.resize(1);
      for (size_t i = 0; i + 1 < n; ++i) {
        phases[0].push_back({x.ranks[i], x.ranks[i + 1], x.bytes});
        phases[0].push_back({x.ranks[i + 1], x.ranks[i], x.bytes});
      }
      return phases;
  }
  return phases;
}

// The block of phases a kind runs in: the expert gradients go with the dense ones.
TrainingGroupKind PhaseBlock(TrainingGroupKind kind) {
  return kind == TrainingGroupKind::kExpertData ? TrainingGroupKind::kData : kind;
}

}  // namespace

absl::StatusOr<std::vector<std::vector<TaskFlow>>> TrainingPhases(
    const TrainingJob& job, const TrainingPhaseOptions& options) {
  if (absl::Status s = job.Validate(); !s.ok()) return s;
  std::vector<std::vector<TaskFlow>> phases;
  std::vector<std::vector<TaskFlow>> block;
  TrainingGroupKind block_kind = TrainingGroupKind::kTensor;
  // Exchanges come grouped by kind in step order (TrainingExchanges).
  for (const TrainingExchange& x : TrainingExchanges(job)) {
    if (PhaseBlock(x.kind) != block_kind) {
      for (auto& phase : block) phases.push_back(std::move(phase));
      block.clear();
      block_kind = PhaseBlock(x.kind);
    }
    MergePhases(ExchangePhases(x, options), block);
  }
  for (auto& phase : block) phases.push_back(std::move(phase));
  return phases;
}

}  // namespace hopmap
