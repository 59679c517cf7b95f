#include "core/graph/training_job.h"

#include <functional>
#include <limits>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace hopmap {
namespace {

// Edge weights and flow sizes stay below this (a pair's weight sums a few of them).
constexpr long double kMaxStepBytes = static_cast<long double>(int64_t{1} << 60);

using u128 = unsigned __int128;

// The step's volumes (docs/gpu.md, "The job"), exact, before any ring factor.
struct StepVolumes {
  u128 tp_payload = 0;      // all-reduced over each TP group per step
  u128 cp_send = 0;         // each CP rank to its ring successor per step
  u128 ep_pair = 0;         // each EP rank to each other per step
  u128 pp_send = 0;         // each stage to the next per step (and back)
  u128 dp_layers = 0;       // dense gradient payload of a stage's layers
  u128 dp_embedding = 0;    // dense gradient payload of one embedding copy
  u128 expert_payload = 0;  // expert gradient payload per step
};

StepVolumes Volumes(const TrainingJob& job) {
  const u128 b = job.micro_batch_size, s = job.seq, h = job.hidden, m = job.micro_batches;
  const u128 dt = DtypeBytes(job.dtype), gd = DtypeBytes(job.grad_dtype);
  const u128 tp = job.tp, cp = job.cp, ep = job.ep;
  const u128 stage_layers = job.layers / job.pp;
  const u128 tokens = b * s;  // one micro-batch of one data-parallel replica
  StepVolumes v;
  // Shoeybi et al. 2019: two all-reduces of b*s*h forward, two backward, per layer;
  // a rank holds s/cp of the tokens.
  v.tp_payload = 4 * stage_layers * m * tokens * h * dt / cp;
  // Ring attention: cp-1 sends of K and V forward, of K,V and dK,dV backward; each
  // rank holds s/cp tokens and h/tp of the channels.
  v.cp_send = job.cp > 1 ? 3 * (cp - 1) * stage_layers * m * 2 * tokens * h * dt / (cp * tp) : 0;
  // GShard / Switch token dispatch: each rank's b*s/(cp*tp) tokens (sequence
  // parallel) go top-k times to experts spread evenly over ep ranks; dispatch and
  // combine forward, their gradients backward.
  if (job.experts > 0 && job.ep > 1) {
    v.ep_pair = 4 * stage_layers * m * tokens * job.moe_topk * h * dt / (cp * tp * ep);
  }
  // Narayanan et al. 2021 (scatter/gather): per micro-batch b*s*h/(tp*cp) forward.
  v.pp_send = m * tokens * h * dt / (cp * tp);
  const u128 dense_per_layer = job.experts > 0 ? 4 * h * h : 12 * h * h;
  v.dp_layers = stage_layers * dense_per_layer * gd / tp;
  v.dp_embedding = u128(job.vocab) * h * gd / tp;
  const u128 ffn = job.moe_ffn_hidden > 0 ? u128(job.moe_ffn_hidden) : 4 * h;
  if (job.experts > 0) v.expert_payload = stage_layers * (job.experts / ep) * 2 * h * ffn * gd / tp;
  return v;
}

// The same volumes in floating point, so that Validate refuses a job whose bytes
// would overflow before computing them exactly.
long double LargestVolume(const TrainingJob& job) {
  const long double b = job.micro_batch_size, s = job.seq, h = job.hidden, m = job.micro_batches;
  const long double l = job.layers, v = job.vocab, e = job.experts, topk = job.moe_topk;
  const long double ffn = job.moe_ffn_hidden > 0 ? job.moe_ffn_hidden : 4 * h;
  const long double largest_dtype = 4;
  const long double activations = 4 * 3 * 2 * l * m * b * s * h * largest_dtype * (job.cp + topk);
  const long double gradients = (l * 12 * h * h + 2 * v * h + l * e * 2 * h * ffn) * largest_dtype;
  return std::max(activations, gradients);
}

absl::Status AtLeast(absl::string_view field, int64_t value, int64_t least) {
  if (value >= least) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": must be at least ", least, ", got ", value));
}

absl::Status CheckSizes(const TrainingJob& j) {
  const std::pair<absl::string_view, int64_t> positive[] = {
      {"tp", j.tp},
      {"pp", j.pp},
      {"dp", j.dp},
      {"cp", j.cp},
      {"ep", j.ep},
      {"hidden", j.hidden},
      {"layers", j.layers},
      {"seq", j.seq},
      {"micro-batch-size", j.micro_batch_size},
      {"micro-batches", j.micro_batches}};
  for (const auto& [field, value] : positive) {
    if (absl::Status s = AtLeast(field, value, 1); !s.ok()) return s;
  }
  const std::pair<absl::string_view, int64_t> not_negative[] = {
      {"gpus", j.gpus},
      {"vocab", j.vocab},
      {"experts", j.experts},
      {"moe-ffn-hidden", j.moe_ffn_hidden}};
  for (const auto& [field, value] : not_negative) {
    if (absl::Status s = AtLeast(field, value, 0); !s.ok()) return s;
  }
  for (const auto& [field, dtype] :
       {std::pair<absl::string_view, const std::string&>{"dtype", j.dtype},
        {"grad-dtype", j.grad_dtype}}) {
    if (DtypeBytes(dtype) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": '", dtype, "' is not one of bf16, fp16, fp32, fp8"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckDivisible(absl::string_view field, int64_t value, absl::string_view by_name,
                            int64_t by) {
  if (value % by == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": ", value, " is not divisible by ", by_name, "=", by));
}

absl::Status CheckLayout(const TrainingJob& j) {
  const long double product = static_cast<long double>(j.tp) * j.cp * j.dp * j.pp;
  const std::string product_text =
      absl::StrCat("tp*cp*dp*pp = ", j.tp, "*", j.cp, "*", j.dp, "*", j.pp);
  if (product > kMaxTasks) {
    return absl::InvalidArgumentError(
        absl::StrCat("gpus: ", product_text, " is more than ", kMaxTasks, " ranks"));
  }
  if (j.gpus != 0 && j.num_gpus() != j.gpus) {
    return absl::InvalidArgumentError(
        absl::StrCat("gpus: ", product_text, " = ", j.num_gpus(), ", but gpus is ", j.gpus));
  }
  if (absl::Status s = CheckDivisible("layers", j.layers, "pp", j.pp); !s.ok()) return s;
  if (absl::Status s = CheckDivisible("hidden", j.hidden, "tp", j.tp); !s.ok()) return s;
  if (absl::Status s = CheckDivisible("seq", j.seq, "cp", j.cp); !s.ok()) return s;
  if (j.ep > 1 && j.experts == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("ep: ", j.ep, " needs a MoE model (experts is 0)"));
  }
  if (int64_t{j.cp} * j.dp % j.ep != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("ep: ", j.ep, " does not divide cp*dp = ", int64_t{j.cp} * j.dp,
                     " (the expert layers fold ep into the context and data-parallel ranks)"));
  }
  if (j.experts > 0) {
    if (absl::Status s = CheckDivisible("experts", j.experts, "ep", j.ep); !s.ok()) return s;
    if (j.moe_topk < 1 || j.moe_topk > j.experts) {
      return absl::InvalidArgumentError(
          absl::StrCat("moe-topk: ", j.moe_topk, " is not in 1..experts=", j.experts));
    }
  }
  return absl::OkStatus();
}

// One key of the spec: how to read its value into a job, and how to print it.
struct SpecKey {
  const char* name;
  std::function<bool(absl::string_view, TrainingJob&)> read;
  std::function<std::string(const TrainingJob&)> print;
};

template <typename T>
SpecKey IntKey(const char* name, T TrainingJob::*field) {
  return {name,
          [field](absl::string_view text, TrainingJob& job) {
            return absl::SimpleAtoi(text, &(job.*field));
          },
          [field](const TrainingJob& job) { return absl::StrCat(job.*field); }};
}

SpecKey TextKey(const char* name, std::string TrainingJob::*field) {
  return {name,
          [field](absl::string_view text, TrainingJob& job) {
            job.*field = std::string(text);
            return !text.empty();
          },
          [field](const TrainingJob& job) { return job.*field; }};
}

const std::vector<SpecKey>& SpecKeys() {
  static const auto* keys = new std::vector<SpecKey>{
      IntKey("tp", &TrainingJob::tp),
      IntKey("pp", &TrainingJob::pp),
      IntKey("dp", &TrainingJob::dp),
      IntKey("cp", &TrainingJob::cp),
      IntKey("ep", &TrainingJob::ep),
      IntKey("gpus", &TrainingJob::gpus),
      IntKey("hidden", &TrainingJob::hidden),
      IntKey("layers", &TrainingJob::layers),
      IntKey("seq", &TrainingJob::seq),
      IntKey("micro-batch-size", &TrainingJob::micro_batch_size),
      IntKey("micro-batches", &TrainingJob::micro_batches),
      IntKey("vocab", &TrainingJob::vocab),
      TextKey("dtype", &TrainingJob::dtype),
      TextKey("grad-dtype", &TrainingJob::grad_dtype),
      IntKey("experts", &TrainingJob::experts),
      IntKey("moe-topk", &TrainingJob::moe_topk),
      IntKey("moe-ffn-hidden", &TrainingJob::moe_ffn_hidden),
  };
  return *keys;
}

std::string KeyNames() {
  std::vector<std::string> names;
  for (const SpecKey& key : SpecKeys()) names.emplace_back(key.name);
  return absl::StrJoin(names, " ");
}

// Megatron-Core's generate_masked_orthogonal_rank_groups: `sizes` in rank order
// (first fastest); each group varies the dims `mask` marks and fixes the others.
// Groups come in ascending order of their first rank, members in index order.
std::vector<std::vector<TaskId>> MaskedRankGroups(const std::vector<int64_t>& sizes,
                                                  const std::vector<bool>& mask) {
  std::vector<int64_t> stride(sizes.size(), 1);
  for (size_t i = 1; i < sizes.size(); ++i) stride[i] = stride[i - 1] * sizes[i - 1];
  std::vector<size_t> in, out;
  int64_t group_size = 1, world = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    (mask[i] ? in : out).push_back(i);
    if (mask[i]) group_size *= sizes[i];
    world *= sizes[i];
  }
  // The rank offset of index `index` decomposed over `dims` (first fastest).
  auto offset = [&](int64_t index, const std::vector<size_t>& dims) {
    int64_t rank = 0;
    for (size_t dim : dims) {
      rank += (index % sizes[dim]) * stride[dim];
      index /= sizes[dim];
    }
    return rank;
  };
  std::vector<std::vector<TaskId>> groups(static_cast<size_t>(world / group_size));
  for (size_t g = 0; g < groups.size(); ++g) {
    const int64_t base = offset(static_cast<int64_t>(g), out);
    groups[g].reserve(static_cast<size_t>(group_size));
    for (int64_t k = 0; k < group_size; ++k) {
      groups[g].push_back(static_cast<TaskId>(base + offset(k, in)));
    }
  }
  return groups;
}

void AddGroups(std::vector<std::vector<TaskId>> groups, TrainingGroupKind kind,
               TrainingExchangeOp op, const std::function<u128(const std::vector<TaskId>&)>& bytes,
               std::vector<TrainingExchange>& out) {
  for (std::vector<TaskId>& ranks : groups) {
    const u128 b = bytes(ranks);
    if (ranks.size() < 2 || b == 0) continue;
    out.push_back({kind, op, std::move(ranks), static_cast<uint64_t>(b)});
  }
}

}  // namespace

int32_t DtypeBytes(absl::string_view dtype) {
  if (dtype == "bf16" || dtype == "fp16") return 2;
  if (dtype == "fp32") return 4;
  if (dtype == "fp8") return 1;
  return 0;
}

absl::Status TrainingJob::Validate() const {
  if (absl::Status s = CheckSizes(*this); !s.ok()) return s;
  if (absl::Status s = CheckLayout(*this); !s.ok()) return s;
  if (LargestVolume(*this) > kMaxStepBytes) {
    return absl::InvalidArgumentError(
        "the job's bytes per step overflow 2^60: lower micro-batches, seq, hidden or layers");
  }
  return absl::OkStatus();
}

absl::StatusOr<TrainingJob> ParseTrainingJob(absl::string_view spec) {
  TrainingJob job;
  std::set<std::string, std::less<>> seen;
  for (absl::string_view item : absl::StrSplit(spec, ',', absl::SkipEmpty())) {
    const size_t eq = item.find('=');
    const absl::string_view key = item.substr(0, eq);
    const SpecKey* found = nullptr;
    for (const SpecKey& k : SpecKeys()) {
      if (key == k.name) found = &k;
    }
    if (found == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", item, "': unknown key '", key, "'; the keys are ", KeyNames()));
    }
    if (!seen.insert(std::string(key)).second) {
      return absl::InvalidArgumentError(absl::StrCat(key, ": given twice"));
    }
    if (eq == absl::string_view::npos || !found->read(item.substr(eq + 1), job)) {
      return absl::InvalidArgumentError(
          absl::StrCat(key, ": expected ", key, "=VALUE, got '", item, "'"));
    }
  }
  if (absl::Status s = job.Validate(); !s.ok()) return s;
  return job;
}

std::string TrainingJobSpec(const TrainingJob& job) {
  const TrainingJob defaults;
  std::vector<std::string> items;
  for (const SpecKey& key : SpecKeys()) {
    const std::string value = key.print(job);
    if (value != key.print(defaults)) items.push_back(absl::StrCat(key.name, "=", value));
  }
  return absl::StrJoin(items, ",");
}

const char* TrainingGroupName(TrainingGroupKind kind) {
  switch (kind) {
    case TrainingGroupKind::kTensor:
      return "tp";
    case TrainingGroupKind::kContext:
      return "cp";
    case TrainingGroupKind::kExpert:
      return "ep";
    case TrainingGroupKind::kPipeline:
      return "pp";
    case TrainingGroupKind::kData:
      return "dp";
    case TrainingGroupKind::kExpertData:
      return "expert-dp";
  }
  return "";
}

uint64_t RingAllReduceBytesPerRank(uint64_t payload, int64_t n) {
  if (n < 2) return 0;
  return static_cast<uint64_t>(u128(payload) * 2 * static_cast<uint64_t>(n - 1) /
                               static_cast<uint64_t>(n));
}

std::vector<TrainingExchange> TrainingExchanges(const TrainingJob& job) {
  const StepVolumes v = Volumes(job);
  // Megatron-Core's two RankGenerators over order tp-cp-ep-dp-pp: the dense one
  // (ep 1) and the expert one (cp 1, expert tensor parallel = tp, edp = cp*dp/ep).
  const std::vector<int64_t> dense = {job.tp, job.cp, job.dp, job.pp};
  const int64_t edp = int64_t{job.cp} * job.dp / job.ep;
  const std::vector<int64_t> expert = {job.tp, job.ep, edp, job.pp};
  auto constant = [](u128 b) { return [b](const std::vector<TaskId>&) { return b; }; };
  using Kind = TrainingGroupKind;
  using Op = TrainingExchangeOp;
  std::vector<TrainingExchange> out;
  AddGroups(MaskedRankGroups(dense, {true, false, false, false}), Kind::kTensor, Op::kAllReduce,
            constant(v.tp_payload), out);
  AddGroups(MaskedRankGroups(dense, {false, true, false, false}), Kind::kContext, Op::kRingSend,
            constant(v.cp_send), out);
  AddGroups(MaskedRankGroups(expert, {false, true, false, false}), Kind::kExpert, Op::kAllToAll,
            constant(v.ep_pair), out);
  AddGroups(MaskedRankGroups(dense, {false, false, false, true}), Kind::kPipeline, Op::kPipeline,
            constant(v.pp_send), out);
  // The dense gradients are all-reduced over the dp-cp group (Megatron's data
  // parallel group with context parallel); the first stage holds the input
  // embedding, the last (when it is another) its tied copy as the output layer.
  const int64_t stage_stride = int64_t{job.tp} * job.cp * job.dp;
  AddGroups(
      MaskedRankGroups(dense, {false, true, true, false}), Kind::kData, Op::kAllReduce,
      [&](const std::vector<TaskId>& ranks) {
        const int64_t stage = ranks[0] / stage_stride;
        const int copies = (stage == 0 ? 1 : 0) + (stage == job.pp - 1 && job.pp > 1 ? 1 : 0);
        return v.dp_layers + copies * v.dp_embedding;
      },
      out);
  AddGroups(MaskedRankGroups(expert, {false, false, true, false}), Kind::kExpertData,
            Op::kAllReduce, constant(v.expert_payload), out);
  return out;
}

}  // namespace hopmap
