// SolveRequest::keep_blocks: tasks K*i .. K*i+K-1 on one node, on consecutive cores.
#include "core/solve/keep_blocks.h"

#include <string>
#include <vector>

#include "core/graph/training_job.h"
#include "core/io/machine_spec.h"
#include "core/metrics/hop_bytes.h"
#include "core/solve/solve.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/mappers/search_test_util.h"

namespace hopmap {
namespace {

using ::hopmap::testing::Generate;
using ::hopmap::testing::WholeTorus;
using ::testing::HasSubstr;

SolveRequest Request(const TaskGraph& graph, const Allocation& allocation, int32_t keep_blocks,
                     std::string algorithm = "auto") {
  SolveRequest request;
  request.graph = &graph;
  request.allocation = &allocation;
  request.algorithm = std::move(algorithm);
  request.keep_blocks = keep_blocks;
  request.options.seed = 5;
  request.options.threads = 1;
  request.options.iteration_limit = 8;
  request.options.time_limit_seconds = 30;
  return request;
}

// Block b's tasks on consecutive cores of one node, from a core that is a multiple of K.
void ExpectBlocksKept(const Allocation& allocation, const std::vector<SlotId>& slot_of_task,
                      int32_t block) {
  for (size_t t = 0; t < slot_of_task.size(); t += block) {
    EXPECT_EQ(allocation.CoreOfSlot(slot_of_task[t]) % block, 0) << "task " << t;
    for (int32_t j = 1; j < block; ++j) {
      EXPECT_EQ(slot_of_task[t + j], slot_of_task[t] + j) << "task " << t + j;
    }
  }
}

TEST(KeepBlocksTest, EveryBlockStaysOnOneNodeWithTheExpandedHopBytes) {
  // A 16x8 stencil (128 tasks) on 4x4 nodes of 8 cores: blocks of 2 and of 4.
  const TaskGraph graph = Generate("stencil2d-5", {16, 8});
  const Allocation allocation = WholeTorus({4, 4}, 8);
  for (int32_t block : {2, 4, 8}) {
    for (const char* algorithm : {"auto", "random", "gge"}) {
      SCOPED_TRACE(::testing::Message() << "K=" << block << " " << algorithm);
      absl::StatusOr<MappingReport> report = Solve(Request(graph, allocation, block, algorithm));
      ASSERT_TRUE(report.ok()) << report.status();
      ASSERT_EQ(report->slot_of_task.size(), 128u);
      EXPECT_TRUE(ValidateMapping(allocation, 128, report->slot_of_task).ok());
      ExpectBlocksKept(allocation, report->slot_of_task, block);
      // The report measures the expanded mapping on the request's graph.
      EXPECT_EQ(report->tasks, 128);
      EXPECT_EQ(report->slots, 128);
      EXPECT_EQ(report->hop_bytes, ComputeHopBytes(graph, allocation, report->slot_of_task));
      absl::StatusOr<MappingReport> measured =
          EvaluateMapping(graph, allocation, report->slot_of_task, Routing::kDimensionOrder, 1);
      ASSERT_TRUE(measured.ok()) << measured.status();
      EXPECT_EQ(report->hop_bytes, measured->hop_bytes);
      EXPECT_EQ(report->baseline_hop_bytes, measured->baseline_hop_bytes);
      EXPECT_EQ(report->lower_bound.value, measured->lower_bound.value);
      // The winner's score is the quotient's, equal to the expanded hop-bytes.
      for (const Candidate& c : report->candidates) {
        if (c.algorithm == report->algorithm) {
          EXPECT_EQ(c.hop_bytes, report->hop_bytes);
        }
      }
    }
  }
}

// A mixture-of-experts step on 8 whole NVL72-style racks (18 hosts of 4 GPUs, NVLink
// across the rack, one leaf group): the hosts in order are what sorting them by
// topology gives, and already the least hop-bytes. The time objective finds that the
// rack order leaves some hosts' rails with far more bytes than others' and spreads
// them: bench/gpu_training.sh's moe-ep4 row on whole-8racks@gb200, where SimGrid
// gives 0.573x the sorted order's step time (docs/gpu.md).
TEST(KeepBlocksTest, TheTimeObjectiveSpreadsATrainingJobsRailBytes) {
  absl::StatusOr<std::shared_ptr<Machine>> machine = ParseMachineSpec(
      "gpu:144:gpus=4:domain=18:leaf=144:nvlink-bandwidth=900e9:rail-bandwidth=50e9");
  ASSERT_TRUE(machine.ok()) << machine.status();
  absl::StatusOr<Allocation> allocation = Allocation::WholeMachine(*machine);
  ASSERT_TRUE(allocation.ok()) << allocation.status();
  absl::StatusOr<TrainingJob> job = ParseTrainingJob(
      "tp=4,pp=4,dp=36,ep=4,hidden=4096,layers=32,seq=4096,micro-batches=8,experts=8,"
      "moe-topk=2,dtype=bf16");
  ASSERT_TRUE(job.ok()) << job.status();
  absl::StatusOr<TaskGraph> graph = TrainingGraph(*job);
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::vector<double> seconds;
  for (Objective objective : {Objective::kHopBytes, Objective::kTime}) {
    SolveRequest request = Request(*graph, *allocation, 4);
    request.options.objective = objective;
    absl::StatusOr<MappingReport> report = Solve(request);
    ASSERT_TRUE(report.ok()) << report.status();
    ExpectBlocksKept(*allocation, report->slot_of_task, 4);
    ASSERT_TRUE(report->exchange_seconds.has_value());
    ASSERT_TRUE(report->baseline_exchange_seconds.has_value());
    seconds.push_back(*report->exchange_seconds / *report->baseline_exchange_seconds);
  }
  // Hop-bytes keeps the rack order; the time objective's estimate is at most 0.7x it
  // (0.595x when written).
  EXPECT_DOUBLE_EQ(seconds[0], 1.0);
  EXPECT_LT(seconds[1], 0.7);
}

TEST(KeepBlocksTest, OneIsTheUnconstrainedSolve) {
  const TaskGraph graph = Generate("stencil2d-5", {8, 8});
  const Allocation allocation = WholeTorus({4, 4}, 4);
  absl::StatusOr<MappingReport> plain = Solve(Request(graph, allocation, 1, "gge"));
  SolveRequest unset = Request(graph, allocation, 1, "gge");
  absl::StatusOr<MappingReport> direct =
      SolveMapping(graph, allocation, "gge", unset.options, BuiltinMappers());
  ASSERT_TRUE(plain.ok() && direct.ok());
  EXPECT_EQ(plain->slot_of_task, direct->slot_of_task);
}

TEST(KeepBlocksTest, AnInitialMappingIsContractedOrRefusedWhenItSplitsABlock) {
  const TaskGraph graph = Generate("ring", {}, /*tasks=*/16);
  const Allocation allocation = WholeTorus({4}, 4);
  // Blocks of 2 reversed on the slots, each block's tasks in order.
  SolveRequest request = Request(graph, allocation, 2, "refine");
  for (SlotId b = 0; b < 8; ++b) {
    request.initial.push_back(2 * (7 - b));
    request.initial.push_back(2 * (7 - b) + 1);
  }
  absl::StatusOr<MappingReport> report = Solve(request);
  ASSERT_TRUE(report.ok()) << report.status();
  ExpectBlocksKept(allocation, report->slot_of_task, 2);
  EXPECT_LE(report->hop_bytes, ComputeHopBytes(graph, allocation, request.initial));

  std::swap(request.initial[2], request.initial[3]);  // block 1 out of task order
  std::optional<RequestError> bad = CheckSolveRequest(request);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->field, "initial");
  EXPECT_THAT(bad->status.message(), HasSubstr("task 2 is on slot 13, which splits its block"));
}

TEST(KeepBlocksTest, RefusesWhatCannotBeKept) {
  const TaskGraph graph = Generate("stencil2d-5", {6, 4});  // 24 tasks
  const Allocation allocation = WholeTorus({4, 2}, 4);      // 32 slots, 4 per node
  struct Case {
    int32_t keep_blocks;
    const char* message;
  };
  for (const Case& c : {Case{0, "must be >= 1, got 0"}, Case{-2, "must be >= 1, got -2"},
                        Case{3, "blocks of 3 tasks must divide the 4 slots per node"},
                        Case{16, "blocks of 16 tasks must divide the 4 slots per node"}}) {
    std::optional<RequestError> bad = CheckSolveRequest(Request(graph, allocation, c.keep_blocks));
    ASSERT_TRUE(bad.has_value()) << c.keep_blocks;
    EXPECT_EQ(bad->field, "keep_blocks");
    EXPECT_THAT(bad->status.message(), HasSubstr(c.message));
  }
  const TaskGraph odd = Generate("ring", {}, /*tasks=*/6);
  std::optional<RequestError> bad = CheckSolveRequest(Request(odd, allocation, 4));
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->field, "keep_blocks");
  EXPECT_THAT(bad->status.message(), HasSubstr("blocks of 4 tasks must divide the 6 tasks"));
  EXPECT_FALSE(Solve(Request(odd, allocation, 4)).ok());

  SolveRequest balanced = Request(graph, allocation, 2, "partition");
  balanced.balance.emplace();
  bad = CheckSolveOptions(balanced);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->field, "keep_blocks");
  EXPECT_THAT(bad->status.message(), HasSubstr("must be 1 with balance"));
}

}  // namespace
}  // namespace hopmap
