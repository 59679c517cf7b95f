#include "core/simulate/training_traffic.h"

#include <cstdint>
#include <vector>

#include "core/simulate/collectives.h"
#include "core/simulate/traffic.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<int64_t> Parents(int64_t n, int64_t (*parent)(int64_t, int64_t)) {
  std::vector<int64_t> parents;
  for (int64_t r = 0; r < n; ++r) parents.push_back(parent(n, r));
  return parents;
}

TEST(CollectivesTest, NcclTreesByHand) {
  // 0 - 4 - {2, 6} - {1, 3}, {5, 7}, and its mirror rooted at 7.
  EXPECT_THAT(Parents(8, NcclTreeParent), ElementsAre(-1, 2, 4, 2, 0, 6, 4, 6));
  EXPECT_THAT(Parents(8, NcclSecondTreeParent), ElementsAre(1, 3, 1, 7, 5, 3, 5, -1));
  // Odd: the second tree is the first shifted by one rank, rooted at 1.
  EXPECT_THAT(Parents(5, NcclTreeParent), ElementsAre(-1, 2, 4, 2, 0));
  EXPECT_THAT(Parents(5, NcclSecondTreeParent), ElementsAre(1, -1, 3, 0, 3));
  EXPECT_THAT(Parents(2, NcclSecondTreeParent), ElementsAre(1, -1));
}

TEST(CollectivesTest, TreeAllReduceGoesUpThenDown) {
  const std::vector<TaskId> ranks = {10, 11, 12, 13, 14, 15, 16, 17};
  const auto phases = AllReducePhases(ranks, 1001, AllReduceAlgorithm::kTree);
  ASSERT_EQ(phases.size(), 6u);  // depth 3 up, 3 down
  // Phase 0: the leaves of both trees send up: the odd ranks in the first (501
  // bytes), the even ones in the second (500).
  ASSERT_EQ(phases[0].size(), 8u);
  EXPECT_EQ(phases[0][0].src, 11);
  EXPECT_EQ(phases[0][0].dst, 12);
  EXPECT_EQ(phases[0][0].bytes, 501u);
  EXPECT_EQ(phases[0][4].src, 10);
  EXPECT_EQ(phases[0][4].dst, 11);
  EXPECT_EQ(phases[0][4].bytes, 500u);
  // Phase 2: the roots' children send to the roots; phase 3 the roots send back.
  ASSERT_EQ(phases[2].size(), 2u);
  EXPECT_EQ(phases[2][0].src, 14);
  EXPECT_EQ(phases[2][0].dst, 10);
  ASSERT_EQ(phases[3].size(), 2u);
  EXPECT_EQ(phases[3][0].src, 10);
  EXPECT_EQ(phases[3][0].dst, 14);
  // Every rank but a root sends once up and receives once down in each tree.
  uint64_t total = 0;
  for (const auto& phase : phases) {
    for (const TaskFlow& f : phase) total += f.bytes;
  }
  EXPECT_EQ(total, 2u * 7 * 1001);
}

TEST(CollectivesTest, RingAllReduceIsOnePhaseToTheSuccessor) {
  const std::vector<TaskId> ranks = {3, 5, 7, 9};
  const auto phases = AllReducePhases(ranks, 1000, AllReduceAlgorithm::kRing);
  ASSERT_EQ(phases.size(), 1u);
  ASSERT_EQ(phases[0].size(), 4u);
  EXPECT_EQ(phases[0][3].src, 9);
  EXPECT_EQ(phases[0][3].dst, 3);
  EXPECT_EQ(phases[0][3].bytes, 1500u);  // 2(n-1)/n x 1000
  EXPECT_TRUE(AllReducePhases(std::vector<TaskId>{4}, 1000, AllReduceAlgorithm::kRing).empty());
}

TaskGraph NoEdges(TaskId n) { return *TaskGraphBuilder(n).Build(); }

TEST(TrafficTest, AllReducePatterns) {
  const TaskGraph graph = NoEdges(8);
  const CommunicationPattern patterns[] = {*ParsePattern("ring-allreduce:800"),
                                           *ParsePattern("tree-allreduce:800")};
  EXPECT_EQ(patterns[0].Name(), "ring-allreduce:800");
  EXPECT_EQ(patterns[1].Name(), "tree-allreduce:800");
  absl::StatusOr<std::vector<std::vector<TaskFlow>>> phases = PatternPhases(graph, patterns);
  ASSERT_TRUE(phases.ok()) << phases.status();
  ASSERT_EQ(phases->size(), 7u);  // 1 ring + 6 tree
  EXPECT_EQ((*phases)[0][7].dst, 0);
  EXPECT_EQ((*phases)[0][7].bytes, 1400u);
  EXPECT_THAT(ParsePattern("ring-allreduce:0").status().message(), HasSubstr("needs a block size"));
  const TaskGraph one = NoEdges(1);
  EXPECT_THAT(PatternPhases(one, {&patterns[0], 1}).status().message(),
              HasSubstr("an all-reduce needs 2 tasks or more"));
}

TEST(TrafficTest, TrainingPhasesInStepOrder) {
  absl::StatusOr<CommunicationPattern> ring = ParsePattern("training:tp=2,pp=2,dp=2,layers=2");
  ASSERT_TRUE(ring.ok()) << ring.status();
  EXPECT_EQ(ring->Name(), "training:tp=2,pp=2,dp=2,layers=2");
  const TaskGraph graph = NoEdges(8);
  absl::StatusOr<std::vector<std::vector<TaskFlow>>> phases = PatternPhases(graph, {&*ring, 1});
  ASSERT_TRUE(phases.ok()) << phases.status();
  ASSERT_EQ(phases->size(), 3u);  // TP ring, PP, DP ring
  EXPECT_EQ((*phases)[0].size(), 8u);
  EXPECT_EQ((*phases)[0][0].dst, 1);
  EXPECT_EQ((*phases)[1].size(), 8u);  // 4 pipelines, both ways
  EXPECT_EQ((*phases)[1][0].dst, 4);
  EXPECT_EQ((*phases)[2][0].dst, 2);

  absl::StatusOr<CommunicationPattern> tree =
      ParsePattern("training:tp=2,pp=2,dp=2,layers=2,allreduce=tree");
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_EQ(tree->Name(), "training:tp=2,pp=2,dp=2,layers=2,allreduce=tree");
  phases = PatternPhases(graph, {&*tree, 1});
  ASSERT_TRUE(phases.ok()) << phases.status();
  EXPECT_EQ(phases->size(), 5u);  // TP up, down; PP; DP up, down

  // CP ring, EP all-to-all over 4 (3 phases), DP ring over dp-cp.
  absl::StatusOr<CommunicationPattern> moe =
      ParsePattern("training:cp=2,dp=2,ep=4,experts=8,layers=2");
  ASSERT_TRUE(moe.ok()) << moe.status();
  const TaskGraph four = NoEdges(4);
  phases = PatternPhases(four, {&*moe, 1});
  ASSERT_TRUE(phases.ok()) << phases.status();
  ASSERT_EQ(phases->size(), 5u);
  EXPECT_EQ((*phases)[1][0].dst, 1);
  EXPECT_EQ((*phases)[3][0].dst, 3);
  EXPECT_EQ(ParsePattern("training")->Name(), "training:");
}

TEST(TrafficTest, TrainingPatternErrors) {
  EXPECT_THAT(ParsePattern("training:tp=2,allreduce=star").status().message(),
              HasSubstr("allreduce: use ring or tree, got 'allreduce=star'"));
  EXPECT_THAT(ParsePattern("training:pp=3").status().message(),
              HasSubstr("layers: 32 is not divisible by pp=3"));
  const CommunicationPattern job = *ParsePattern("training:tp=4");
  const TaskGraph graph = NoEdges(8);
  EXPECT_THAT(PatternPhases(graph, {&job, 1}).status().message(),
              HasSubstr("the job has tp*cp*dp*pp = 4 ranks, the graph 8 tasks"));
  const CommunicationPattern wide = *ParsePattern("training:dp=4096,ep=2048,experts=2048");
  const TaskGraph big = NoEdges(4096);
  EXPECT_THAT(PatternPhases(big, {&wide, 1}).status().message(),
              HasSubstr("the expert all-to-alls send 8384512 messages"));
}

TEST(TrafficTest, TrainingPhasesValidateTheJob) {
  TrainingJob job;
  job.pp = 5;
  EXPECT_THAT(TrainingPhases(job, {}).status().message(), HasSubstr("layers"));
}

}  // namespace
}  // namespace hopmap
