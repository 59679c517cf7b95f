// A data-parallel / tensor / pipeline / context / expert parallel training job
// (issue 48): its layout, where Megatron-LM puts each rank, and the bytes each of
// its groups exchanges in one training step. docs/gpu.md, "The job".
#ifndef HOPMAP_CORE_GRAPH_TRAINING_JOB_H_
#define HOPMAP_CORE_GRAPH_TRAINING_JOB_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/graph/task_graph.h"
#include "core/types.h"

namespace hopmap {

// Rank i of the job is task i. Ranks follow Megatron-Core's default order
// "tp-cp-ep-dp-pp" (tp fastest, pp slowest): rank = t + tp*(c + cp*(d + dp*p)).
// The expert layers see the same ranks as t + tp*(e + ep*(f + edp*p)) with
// e + ep*f = c + cp*d and edp = cp*dp/ep: ep folds into the context and data
// ranks (Megatron-Core's expert RankGenerator, expert tensor parallel = tp).
struct TrainingJob {
  // Parallel sizes.
  int32_t tp = 1;  // tensor
  int32_t pp = 1;  // pipeline stages
  int32_t dp = 1;  // data
  int32_t cp = 1;  // context (sequence split for attention)
  int32_t ep = 1;  // expert (MoE layers only; folds into cp*dp)
  // The GPU count the layout must fill; 0: whatever tp*cp*dp*pp is.
  int64_t gpus = 0;
  // Model and batch.
  int64_t hidden = 4096;
  int32_t layers = 32;
  int64_t seq = 4096;
  int64_t micro_batch_size = 1;
  int64_t micro_batches = 1;        // gradient accumulation steps per training step
  int64_t vocab = 0;                // 0: embeddings left out of the gradients
  std::string dtype = "bf16";       // activations: bf16, fp16, fp32, fp8
  std::string grad_dtype = "fp32";  // the gradient all-reduce
  // MoE: every layer's MLP is `experts` experts of FFN size moe_ffn_hidden (0: 4 x
  // hidden), each token going to moe_topk of them. experts 0: a dense model.
  int32_t experts = 0;
  int32_t moe_topk = 2;
  int64_t moe_ffn_hidden = 0;

  // One line naming the field and the values, e.g. "gpus: tp*cp*dp*pp = 2*1*2*2 = 8,
  // but gpus is 16", "layers: 30 is not divisible by pp=4".
  absl::Status Validate() const;

  [[nodiscard]] int64_t num_gpus() const { return int64_t{tp} * cp * dp * pp; }
  [[nodiscard]] TaskId Rank(int32_t t, int32_t c, int32_t d, int32_t p) const {
    return static_cast<TaskId>(t + int64_t{tp} * (c + int64_t{cp} * (d + int64_t{dp} * p)));
  }
};

// Bytes of one element of a dtype name (bf16 2, fp16 2, fp32 4, fp8 1); 0 if unknown.
int32_t DtypeBytes(absl::string_view dtype);

// Reads "tp=8,pp=4,dp=4,hidden=8192,layers=80,seq=4096,micro-batches=8,dtype=bf16":
// keys tp pp dp cp ep gpus hidden layers seq micro-batch-size micro-batches vocab dtype
// grad-dtype experts moe-topk moe-ffn-hidden, each at most once, the others at their
// defaults; then Validate(). The error names the key.
absl::StatusOr<TrainingJob> ParseTrainingJob(absl::string_view spec);
// The spec ParseTrainingJob reads back: every key that differs from the default.
std::string TrainingJobSpec(const TrainingJob& job);

// The groups of one step's communication, in the order a step runs them.
enum class TrainingGroupKind {
  kTensor,      // tp ranks: all-reduces of activations
  kContext,     // cp ranks: ring exchange of K and V
  kExpert,      // ep ranks: all-to-all of routed tokens
  kPipeline,    // pp ranks: activations forward, gradients back
  kData,        // dp*cp ranks: all-reduce of the dense gradients
  kExpertData,  // cp*dp/ep ranks: all-reduce of the expert gradients
};
const char* TrainingGroupName(TrainingGroupKind kind);

// What one group sends in one step. `ranks` in ring (and pipeline stage) order.
//  kAllReduce: `bytes` is the payload all-reduced over the step (count x size);
//  kRingSend: each rank sends `bytes` to its ring successor (ranks[i+1 mod n]);
//  kAllToAll: each rank sends `bytes` to each other rank;
//  kPipeline: ranks[i] sends `bytes` to ranks[i+1] (activations) and ranks[i+1]
//    sends `bytes` back (gradients).
enum class TrainingExchangeOp { kAllReduce, kRingSend, kAllToAll, kPipeline };
struct TrainingExchange {
  TrainingGroupKind kind;
  TrainingExchangeOp op;
  std::vector<TaskId> ranks;
  uint64_t bytes = 0;
};

// Every group of size 2 or more whose step sends something, by kind in the enum's
// order, groups in ascending order of their first rank. `job` must be valid.
std::vector<TrainingExchange> TrainingExchanges(const TrainingJob& job);

// One task per rank; an edge's weight is the bytes the pair exchanges in a step,
// both directions summed: an all-reduce as NCCL's ring sends it (each rank
// 2(n-1)/n x the payload to its successor), all-to-all pairwise. Validates `job`.
absl::StatusOr<TaskGraph> TrainingGraph(const TrainingJob& job);

// The bytes NCCL's ring all-reduce of `payload` over n ranks sends from each rank to
// its successor: 2(n-1)/n x payload (rounded down).
uint64_t RingAllReduceBytesPerRank(uint64_t payload, int64_t n);

}  // namespace hopmap

#endif  // HOPMAP_CORE_GRAPH_TRAINING_JOB_H_
