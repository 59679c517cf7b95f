#include "core/graph/training_job.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/graph/generators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::vector<TaskId>> GroupsOf(const TrainingJob& job, TrainingGroupKind kind) {
  std::vector<std::vector<TaskId>> groups;
  for (const TrainingExchange& x : TrainingExchanges(job)) {
    if (x.kind == kind) groups.push_back(x.ranks);
  }
  return groups;
}

std::map<std::pair<TaskId, TaskId>, Bytes> Edges(const TaskGraph& graph) {
  std::map<std::pair<TaskId, TaskId>, Bytes> edges;
  for (TaskId u = 0; u < graph.num_tasks(); ++u) {
    graph.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
      if (u < v) edges[{u, v}] = w;
    });
  }
  return edges;
}

using Groups = std::vector<std::vector<TaskId>>;

// Megatron-Core's docstring example and its tp-cp-ep-dp-pp order, by hand.
TEST(TrainingJobTest, RankGroupsFollowMegatronOrder) {
  const TrainingJob job = *ParseTrainingJob("tp=2,pp=2,dp=2,layers=2");
  EXPECT_EQ(GroupsOf(job, TrainingGroupKind::kTensor), (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(GroupsOf(job, TrainingGroupKind::kData), (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
  EXPECT_EQ(GroupsOf(job, TrainingGroupKind::kPipeline), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_TRUE(GroupsOf(job, TrainingGroupKind::kContext).empty());
  EXPECT_TRUE(GroupsOf(job, TrainingGroupKind::kExpert).empty());
}

TEST(TrainingJobTest, ContextGroupsAndDataGroupsWithContext) {
  // 16 ranks: rank = t + 2*(c + 2*(d + 2*p)).
  const TrainingJob job = *ParseTrainingJob("tp=2,cp=2,dp=2,pp=2,layers=2");
  EXPECT_EQ(GroupsOf(job, TrainingGroupKind::kContext),
            (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}}));
  // The dense gradients go over the dp-cp group.
  EXPECT_EQ(GroupsOf(job, TrainingGroupKind::kData),
            (Groups{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}}));
  EXPECT_EQ(GroupsOf(job, TrainingGroupKind::kPipeline)[0], (std::vector<TaskId>{0, 8}));
  EXPECT_EQ(job.Rank(1, 1, 1, 1), 15);
}

TEST(TrainingJobTest, ExpertGroupsFoldIntoContextAndData) {
  // edp = cp*dp/ep = 2: rank = t + 2*(e + 2*(f + 2*p)).
  const TrainingJob job = *ParseTrainingJob("tp=2,cp=2,dp=2,pp=2,ep=2,experts=4,layers=2");
  EXPECT_EQ(GroupsOf(job, TrainingGroupKind::kExpert),
            (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}}));
  EXPECT_EQ(GroupsOf(job, TrainingGroupKind::kExpertData),
            (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}}));
  const TrainingJob wide = *ParseTrainingJob("dp=4,ep=4,experts=8");
  EXPECT_EQ(GroupsOf(wide, TrainingGroupKind::kExpert), (Groups{{0, 1, 2, 3}}));
  EXPECT_TRUE(GroupsOf(wide, TrainingGroupKind::kExpertData).empty());
}

TEST(TrainingJobTest, BytesFollowTheFormulas) {
  // b=2, s=1024, h=512, m=3, bf16, fp32 gradients, 4 layers over pp=2, vocab 1000.
  const TrainingJob job = *ParseTrainingJob(
      "tp=2,pp=2,dp=2,hidden=512,layers=4,seq=1024,micro-batch-size=2,micro-batches=3,"
      "vocab=1000");
  const uint64_t b = 2, s = 1024, h = 512, m = 3, ls = 2;
  std::map<TrainingGroupKind, std::vector<uint64_t>> bytes;
  for (const TrainingExchange& x : TrainingExchanges(job)) bytes[x.kind].push_back(x.bytes);
  const uint64_t tp_payload = 4 * ls * m * b * s * h * 2;
  EXPECT_THAT(bytes[TrainingGroupKind::kTensor],
              ElementsAre(tp_payload, tp_payload, tp_payload, tp_payload));
  const uint64_t pp_send = m * b * s * h * 2 / 2;
  EXPECT_THAT(bytes[TrainingGroupKind::kPipeline], ElementsAre(pp_send, pp_send, pp_send, pp_send));
  // Stage 0 holds the embedding, stage 1 its tied copy: both add V*h.
  const uint64_t dp_payload = (ls * 12 * h * h + 1000 * h) * 4 / 2;
  EXPECT_THAT(bytes[TrainingGroupKind::kData],
              ElementsAre(dp_payload, dp_payload, dp_payload, dp_payload));

  const std::map<std::pair<TaskId, TaskId>, Bytes> edges = Edges(*TrainingGraph(job));
  // n = 2 rings: each rank sends 2(n-1)/n x payload = payload to the other.
  EXPECT_EQ(edges.at({0, 1}), static_cast<Bytes>(2 * tp_payload));
  EXPECT_EQ(edges.at({0, 2}), static_cast<Bytes>(2 * dp_payload));
  EXPECT_EQ(edges.at({0, 4}), static_cast<Bytes>(2 * pp_send));
  EXPECT_EQ(edges.size(), 12u);
}

TEST(TrainingJobTest, ContextAndExpertBytes) {
  const TrainingJob job = *ParseTrainingJob(
      "cp=2,dp=2,ep=4,experts=8,moe-topk=2,hidden=256,layers=2,seq=512,moe-ffn-hidden=1024");
  const uint64_t s = 512, h = 256, l = 2;
  std::map<TrainingGroupKind, std::vector<uint64_t>> bytes;
  for (const TrainingExchange& x : TrainingExchanges(job)) bytes[x.kind].push_back(x.bytes);
  // Ring attention: 3(cp-1) sends of K and V (2 x s/cp x h) per layer.
  EXPECT_THAT(bytes[TrainingGroupKind::kContext],
              ElementsAre(3 * l * 2 * s * h * 2 / 2, 3 * l * 2 * s * h * 2 / 2));
  // 4 all-to-alls per layer of s/cp tokens x topk, a quarter to each rank.
  EXPECT_THAT(bytes[TrainingGroupKind::kExpert], ElementsAre(4 * l * s * 2 * h * 2 / (2 * 4)));
  // Dense gradients: attention only (4h^2 per layer) over the dp-cp group.
  EXPECT_THAT(bytes[TrainingGroupKind::kData], ElementsAre(l * 4 * h * h * 4));
  const std::map<std::pair<TaskId, TaskId>, Bytes> edges = Edges(*TrainingGraph(job));
  // 0-1: the CP ring (both ways for n = 2), the all-to-all, and the DP ring of 4
  // (0 -> 1 carries 2*3/4 of the payload).
  const uint64_t cp = 3 * l * 2 * s * h * 2 / 2, a2a = 4 * l * s * 2 * h * 2 / 8;
  const uint64_t ring = 2 * 3 * (l * 4 * h * h * 4) / 4;
  EXPECT_EQ(edges.at({0, 1}), static_cast<Bytes>(2 * cp + 2 * a2a + ring));
  EXPECT_EQ(edges.at({0, 2}), static_cast<Bytes>(2 * a2a));
  EXPECT_EQ(edges.at({0, 3}), static_cast<Bytes>(2 * a2a + ring));
  EXPECT_EQ(RingAllReduceBytesPerRank(100, 4), 150u);
  EXPECT_EQ(RingAllReduceBytesPerRank(100, 1), 0u);
}

TEST(TrainingJobTest, SpecRoundTrips) {
  const std::string spec = "tp=8,pp=4,dp=4,hidden=8192,layers=80,micro-batches=8,dtype=fp8";
  absl::StatusOr<TrainingJob> job = ParseTrainingJob(spec);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->num_gpus(), 128);
  EXPECT_EQ(TrainingJobSpec(*job), spec);
  EXPECT_EQ(TrainingJobSpec(TrainingJob{}), "");
  EXPECT_EQ(DtypeBytes("bf16"), 2);
  EXPECT_EQ(DtypeBytes("fp16"), 2);
  EXPECT_EQ(DtypeBytes("fp32"), 4);
  EXPECT_EQ(DtypeBytes("fp8"), 1);
  EXPECT_EQ(DtypeBytes("int8"), 0);
}

TEST(TrainingJobTest, EveryErrorNamesItsField) {
  const std::pair<const char*, const char*> cases[] = {
      {"tp=2,dp=2,gpus=8", "gpus: tp*cp*dp*pp = 2*1*2*1 = 4, but gpus is 8"},
      {"pp=4,layers=30", "layers: 30 is not divisible by pp=4"},
      {"tp=3,hidden=1000", "hidden: 1000 is not divisible by tp=3"},
      {"cp=3,seq=1000", "seq: 1000 is not divisible by cp=3"},
      {"ep=2,dp=2", "ep: 2 needs a MoE model (experts is 0)"},
      {"ep=3,dp=4,experts=6", "ep: 3 does not divide cp*dp = 4"},
      {"ep=4,dp=4,experts=6", "experts: 6 is not divisible by ep=4"},
      {"experts=2,moe-topk=3", "moe-topk: 3 is not in 1..experts=2"},
      {"tp=0", "tp: must be at least 1, got 0"},
      {"micro-batches=0", "micro-batches: must be at least 1, got 0"},
      {"vocab=-1", "vocab: must be at least 0, got -1"},
      {"dtype=int8", "dtype: 'int8' is not one of bf16, fp16, fp32, fp8"},
      {"grad-dtype=fp64", "grad-dtype: 'fp64' is not one of"},
      {"tp=2,tp=4", "tp: given twice"},
      {"tp=two", "tp: expected tp=VALUE, got 'tp=two'"},
      {"tp", "tp: expected tp=VALUE"},
      {"heads=8", "unknown key 'heads'; the keys are tp pp dp"},
      {"dp=65536,tp=65536", "is more than"},
      {"hidden=1000000000,seq=1000000000,micro-batches=1000000", "overflow"},
  };
  for (const auto& [spec, message] : cases) {
    absl::StatusOr<TrainingJob> job = ParseTrainingJob(spec);
    ASSERT_FALSE(job.ok()) << spec;
    EXPECT_THAT(job.status().message(), HasSubstr(message)) << spec;
  }
}

TEST(TrainingJobTest, GeneratorKindTraining) {
  GeneratorOptions options;
  options.kind = "training";
  options.job = "tp=2,pp=2,dp=2,layers=2";
  absl::StatusOr<TaskGraph> graph = GenerateGraph(options);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->num_tasks(), 8);
  options.tasks = 16;
  EXPECT_THAT(GenerateGraph(options).status().message(),
              HasSubstr("tasks: 16, but the job's tp*cp*dp*pp = 2*1*2*2 = 8"));
  options.tasks = 0;
  options.job = "tp=2,layers=3,pp=2";
  EXPECT_THAT(GenerateGraph(options).status().message(),
              HasSubstr("job: layers: 3 is not divisible by pp=2"));
  options.kind = "ring";
  options.tasks = 4;
  EXPECT_THAT(GenerateGraph(options).status().message(), HasSubstr("job: only training"));
}

}  // namespace
}  // namespace hopmap
