#include "core/simulate/network_model.h"

#include <memory>

#include "core/io/machine_spec.h"
#include "core/simulate/traffic.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Allocation MustAllocate(const std::string& spec) {
  absl::StatusOr<std::shared_ptr<Machine>> machine = ParseMachineSpec(spec);
  EXPECT_TRUE(machine.ok()) << machine.status();
  absl::StatusOr<Allocation> allocation = Allocation::WholeMachine(*machine);
  EXPECT_TRUE(allocation.ok()) << allocation.status();
  return *std::move(allocation);
}

TEST(NetworkModelTest, RoutesFollowTheMachineAndLinksCarryItsParameters) {
  const Allocation line = MustAllocate("mesh:4:cores=2:link-bandwidth=2e9:link-latency=5e-7");
  // Tasks 0 and 1 share node 0; task 2 is on node 3.
  const std::vector<SlotId> slots = {0, 1, 6};
  const std::vector<std::vector<TaskFlow>> phases = {{{0, 1, 10}, {0, 2, 100}, {2, 0, 100}}};
  absl::StatusOr<NetworkModel> model = BuildNetworkModel(line, slots, phases, 4);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->hosts.size(), 4u);
  EXPECT_EQ(model->iterations, 4);
  ASSERT_EQ(model->routes.size(), 2u);  // 0->3 and 3->0; 0->0 is the loopback
  EXPECT_EQ(model->routes[0].src_host, 0);
  EXPECT_EQ(model->routes[0].dst_host, 3);
  EXPECT_EQ(model->routes[0].links.size(), 3u);
  EXPECT_EQ(model->routes[1].links.size(), 3u);
  ASSERT_EQ(model->links.size(), 6u);  // three links each way
  for (const SimLink& link : model->links) {
    EXPECT_EQ(link.bandwidth, 2e9);
    EXPECT_EQ(link.latency, 5e-7);
  }
  ASSERT_EQ(model->phases.size(), 1u);
  EXPECT_EQ(model->phases[0][0].src_host, 0);
  EXPECT_EQ(model->phases[0][0].dst_host, 0);
  EXPECT_EQ(FlowsPerIteration(*model), 3);
  const BusiestLink busiest = FindBusiestLink(*model);
  EXPECT_EQ(busiest.bytes, 100);
  EXPECT_DOUBLE_EQ(busiest.busy_s, 100 / 2e9);
  EXPECT_EQ(busiest.name, model->links[busiest.link].name);
}

TEST(NetworkModelTest, DefaultsApplyWithoutLinkOptionsAndAllPairsRoutesEveryPair) {
  const Allocation torus = MustAllocate("torus:3x3");
  absl::StatusOr<NetworkModel> model = BuildNetworkModel(torus, {}, {}, 1, /*all_pairs=*/true);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->routes.size(), 9u * 8u);
  ASSERT_FALSE(model->links.empty());
  EXPECT_EQ(model->links[0].bandwidth, kDefaultLinkBandwidth);
  EXPECT_EQ(model->links[0].latency, kDefaultLinkLatency);
  EXPECT_EQ(FindBusiestLink(*model).link, -1);
}

TEST(NetworkModelTest, AnExplicitHopMatrixHasNoNetworkToSimulate) {
  const std::string path = ::testing::TempDir() + "/hops.txt";
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("0 1\n1 0\n", f);
  std::fclose(f);
  const Allocation matrix = MustAllocate("matrix:" + path);
  const std::vector<SlotId> slots = {0, 1};
  absl::StatusOr<NetworkModel> model = BuildNetworkModel(matrix, slots, {{{0, 1, 5}}}, 1);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(model.status().message(), HasSubstr("has no links"));
}

TEST(TrafficTest, PatternsParseAndRefuseWhatTheyCannotDo) {
  absl::StatusOr<CommunicationPattern> allgather = ParsePattern("allgather:1024");
  ASSERT_TRUE(allgather.ok());
  EXPECT_EQ(allgather->kind, PatternKind::kAllgather);
  EXPECT_EQ(allgather->block_bytes, 1024u);
  EXPECT_EQ(allgather->Name(), "allgather:1024");
  EXPECT_EQ(ParsePattern("graph")->Name(), "graph");
  EXPECT_EQ(ParsePattern("alltoall:0").status().message(),
            "pattern 'alltoall:0': alltoall needs a block size, a positive number of bytes "
            "(alltoall:1024)");
  EXPECT_EQ(ParsePattern("bcast:4").status().message(),
            "pattern 'bcast:4': use graph, allgather:BYTES, alltoall:BYTES, ring-allreduce:BYTES, "
            "tree-allreduce:BYTES or training:SPEC");

  TaskGraphBuilder builder(6);
  ASSERT_TRUE(builder.AddTraffic(0, 1, 7).ok());
  absl::StatusOr<TaskGraph> graph = std::move(builder).Build();
  ASSERT_TRUE(graph.ok());
  const CommunicationPattern rd[] = {*allgather};
  EXPECT_THAT(PatternPhases(*graph, rd).status().message(),
              HasSubstr("needs a power-of-two number of tasks (at least 2), got 6"));
  // The graph's edge: 4 bytes one way and 3 the other (7 in all).
  absl::StatusOr<std::vector<std::vector<TaskFlow>>> phases = PatternPhases(*graph, {});
  ASSERT_TRUE(phases.ok());
  ASSERT_EQ(phases->size(), 1u);
  ASSERT_EQ((*phases)[0].size(), 2u);
  EXPECT_EQ((*phases)[0][0].bytes + (*phases)[0][1].bytes, 7u);
  const CommunicationPattern a2a[] = {*ParsePattern("alltoall:10")};
  phases = PatternPhases(*graph, a2a);
  ASSERT_TRUE(phases.ok());
  EXPECT_EQ(phases->size(), 5u);  // p - 1 rounds
  std::vector<TaskId> partners;
  for (const auto& phase : *phases) partners.push_back(phase[0].dst);
  EXPECT_THAT(partners, ElementsAre(1, 2, 3, 4, 5));
}

TEST(TrafficTest, RecursiveDoublingDoublesTheBlocksEachRound) {
  TaskGraphBuilder builder(8);
  absl::StatusOr<TaskGraph> graph = std::move(builder).Build();
  ASSERT_TRUE(graph.ok());
  const CommunicationPattern rd[] = {*ParsePattern("allgather:100")};
  absl::StatusOr<std::vector<std::vector<TaskFlow>>> phases = PatternPhases(*graph, rd);
  ASSERT_TRUE(phases.ok());
  ASSERT_EQ(phases->size(), 3u);
  for (int k = 0; k < 3; ++k) {
    ASSERT_EQ((*phases)[k].size(), 8u);
    EXPECT_EQ((*phases)[k][5].src, 5);
    EXPECT_EQ((*phases)[k][5].dst, 5 ^ (1 << k));
    EXPECT_EQ((*phases)[k][5].bytes, 100u << k);
  }
}

}  // namespace
}  // namespace hopmap
