// TrainingGraph: the training job's exchanges as a task graph (training_job.h).
#include "core/graph/training_job.h"

namespace hopmap {
namespace {

// The records one exchange adds: what each rank sends whom in a step.
absl::Status AddExchange(const TrainingExchange& x, TaskGraphBuilder& builder) {
  const int64_t n = static_cast<int64_t>(x.ranks.size());
  auto add = [&](int64_t from, int64_t to, uint64_t bytes) {
    return builder.AddTraffic(x.ranks[from], x.ranks[to], static_cast<Bytes>(bytes));
  };
  switch (x.op) {
    case TrainingExchangeOp::kAllReduce:
    case TrainingExchangeOp::kRingSend: {
      const uint64_t bytes =
          x.op == TrainingExchangeOp::kAllReduce ? RingAllReduceBytesPerRank(x.bytes, n) : x.bytes;
      for (int64_t i = 0; i < n; ++i) {
        if (absl::Status s = add(i, (i + 1) % n, bytes); !s.ok()) return s;
      }
      return absl::OkStatus();
    }
    case TrainingExchangeOp::kAllToAll:
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = i + 1; j < n; ++j) {
          if (absl::Status s = add(i, j, 2 * x.bytes); !s.ok()) return s;
        }
      }
      return absl::OkStatus();
    case TrainingExchangeOp::kPipeline:
      for (int64_t i = 0; i + 1 < n; ++i) {
        if (absl::Status s = add(i, i + 1, 2 * x.bytes); !s.ok()) return s;
      }
      return absl::OkStatus();
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TaskGraph> TrainingGraph(const TrainingJob& job) {
  if (absl::Status s = job.Validate(); !s.ok()) return s;
  TaskGraphBuilder builder(static_cast<TaskId>(job.num_gpus()));
  for (const TrainingExchange& exchange : TrainingExchanges(job)) {
    if (absl::Status s = AddExchange(exchange, builder); !s.ok()) return s;
  }
  return std::move(builder).Build();
}

}  // namespace hopmap
