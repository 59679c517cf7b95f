#include "core/simulate/network_model.h"

#include <memory>

#include "core/io/machine_spec.h"
#include "core/simulate/traffic.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_path.h"

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
  const BusiestLink busiest = FindBusiestLink(*model, LinkBytes(*model));
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
  EXPECT_EQ(FindBusiestLink(*model, LinkBytes(*model)).link, -1);
}

TEST(NetworkModelTest, AnExplicitHopMatrixHasNoNetworkToSimulate) {
  const std::string path = hopmap::testing::TempPath("hops.txt");
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

// A GPU cluster's links carry their own figures and classes; two GPUs of one host
// exchange over NVLink (the loopback runs at one GPU's NVLink bandwidth).
TEST(NetworkModelTest, GpuLinksHaveTheirFiguresAndBytesAddUpByClass) {
  // 4 hosts of 2 GPUs: domains of 2 hosts, leaf groups of 2 hosts (2 groups).
  const Allocation cluster = MustAllocate(
      "gpu:4:gpus=2:domain=2:leaf=2:nvlink-bandwidth=4e9:rail-bandwidth=1e9:rail-latency=2e-6:"
      "oversubscription=2");
  // Task t on slot t: tasks 0, 1 on host 0, 2, 3 on host 1, 4 on host 2.
  const std::vector<SlotId> slots = {0, 1, 2, 3, 4};
  const std::vector<std::vector<TaskFlow>> phases = {
      {{0, 1, 10}, {0, 2, 100}, {0, 4, 1000}}};  // in the host, the domain, across the spine
  absl::StatusOr<NetworkModel> model = BuildNetworkModel(cluster, slots, phases, 1);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->node_bandwidth, 4e9);
  EXPECT_THAT(model->link_classes, ElementsAre("nvlink", "rail", "spine"));
  EXPECT_EQ(model->node_link_class, "nvlink");
  ASSERT_EQ(model->links.size(), 6u);  // 2 NVLink, then rail up, spine up, spine down, rail down
  for (const SimLink& link : model->links) {
    if (link.link_class == "nvlink") {
      EXPECT_EQ(link.bandwidth, 2 * 4e9);
      EXPECT_EQ(link.latency, 1e-6);
    } else if (link.link_class == "rail") {
      EXPECT_EQ(link.bandwidth, 2 * 1e9);
      EXPECT_EQ(link.latency, 2e-6);
    } else {
      EXPECT_EQ(link.link_class, "spine");
      EXPECT_EQ(link.bandwidth, 2 * 2 * 1e9 / 2);  // 2 hosts of 2 GPUs, half up
    }
  }
  // nvlink: 10 inside host 0, 100 on each of its 2 links; rail: 1000 up and down;
  // spine: 1000 up and down.
  EXPECT_THAT(BytesByLinkClass(*model, LinkBytes(*model)),
              ElementsAre(std::pair<std::string, double>{"nvlink", 210},
                          std::pair<std::string, double>{"rail", 2000},
                          std::pair<std::string, double>{"spine", 2000}));
  const BusiestLink busiest = FindBusiestLink(*model, LinkBytes(*model));
  EXPECT_DOUBLE_EQ(busiest.busy_s, 1000 / 2e9);  // a spine link: 1000 B at 2 GB/s
}

TEST(NetworkModelTest, MachinesWithoutLinkClassesReportNone) {
  const Allocation line = MustAllocate("mesh:4:cores=2");
  absl::StatusOr<NetworkModel> model =
      BuildNetworkModel(line, std::vector<SlotId>{0, 1, 6}, {{{0, 2, 5}}}, 1);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_TRUE(model->link_classes.empty());
  EXPECT_EQ(model->node_bandwidth, kNodeBandwidth);
  EXPECT_TRUE(BytesByLinkClass(*model, LinkBytes(*model)).empty());
  // One host per domain: no NVLink links, but a host's inner bytes are NVLink's.
  const Allocation hosts = MustAllocate("gpu:2:gpus=2");
  model = BuildNetworkModel(hosts, std::vector<SlotId>{0, 1, 2}, {{{0, 1, 7}, {0, 2, 3}}}, 1);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_THAT(BytesByLinkClass(*model, LinkBytes(*model)),
              ElementsAre(std::pair<std::string, double>{"nvlink", 7},
                          std::pair<std::string, double>{"rail", 6}));
}

}  // namespace
}  // namespace hopmap
