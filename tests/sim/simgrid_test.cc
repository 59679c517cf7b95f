// The SimGrid worker on hopmap's network models: the physics a user relies on
// (bytes / bandwidth, sharing a link, contention on a torus), determinism, and the
// errors. Every test runs the real hopmap-simgrid process.
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>
#include <thread>

#include "core/graph/generators.h"
#include "core/io/machine_spec.h"
#include "core/metrics/exchange_time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/model_codec.h"
#include "sim/runner.h"
#include "sim/subprocess.h"

namespace hopmap::sim {
namespace {

using ::testing::HasSubstr;

// SimGrid's default network model (LV08): a flow gets 0.97 of the bandwidth and
// its route's latency counts 13.01 times (docs/simulate.md).
constexpr double kBandwidthFactor = 0.97;
constexpr double kLatencyFactor = 13.01;

Allocation MustAllocate(const std::string& spec) {
  absl::StatusOr<std::shared_ptr<Machine>> machine = ParseMachineSpec(spec);
  EXPECT_TRUE(machine.ok()) << machine.status();
  absl::StatusOr<Allocation> allocation = Allocation::WholeMachine(*machine);
  EXPECT_TRUE(allocation.ok()) << allocation.status();
  return *std::move(allocation);
}

TaskGraph MustBuild(TaskId tasks, const std::vector<std::tuple<TaskId, TaskId, Bytes>>& edges) {
  TaskGraphBuilder builder(tasks);
  for (const auto& [u, v, w] : edges) EXPECT_TRUE(builder.AddTraffic(u, v, w).ok());
  absl::StatusOr<TaskGraph> graph = std::move(builder).Build();
  EXPECT_TRUE(graph.ok()) << graph.status();
  return *std::move(graph);
}

NetworkSimulator Worker() {
  absl::StatusOr<std::string> worker = FindSimGridWorker();
  EXPECT_TRUE(worker.ok()) << worker.status();
  return SimGridSimulator(worker.ok() ? *worker : "/nonexistent");
}

// One iteration's time of `slot_of_task` (the in-order placement when empty).
double SimulatedTime(const TaskGraph& graph, const Allocation& allocation,
                     std::vector<SlotId> slot_of_task = {}) {
  SimulateRequest request;
  request.graph = &graph;
  request.allocation = &allocation;
  if (!slot_of_task.empty()) request.mappings.push_back({"mapping", std::move(slot_of_task)});
  absl::StatusOr<SimulationReport> report = Simulate(request, Worker());
  EXPECT_TRUE(report.ok()) << report.status();
  if (!report.ok()) return -1;
  return report->simulations.back().time_s;
}

TEST(SimGridTest, OneLargeMessageTakesBytesOverBandwidthWhateverTheHops) {
  // A line of 8 nodes: tasks 0 and 1 on nodes 0 and 1 (1 hop), then on 0 and 7.
  const Allocation line = MustAllocate("mesh:8:link-bandwidth=1e9:link-latency=1e-6");
  const TaskGraph graph = MustBuild(2, {{0, 1, 2'000'000'000}});  // 1 GB each way
  const double expected_transfer = 1e9 / (1e9 * kBandwidthFactor);
  const double near = SimulatedTime(graph, line, {0, 1});
  const double far = SimulatedTime(graph, line, {0, 7});
  EXPECT_NEAR(near, expected_transfer + kLatencyFactor * 1 * 1e-6, 1e-6);
  EXPECT_NEAR(far, expected_transfer + kLatencyFactor * 7 * 1e-6, 1e-6);
  // The hop count changes the time by latency only: under 0.01% here.
  EXPECT_LT((far - near) / near, 1e-4);
}

TEST(SimGridTest, TwoFlowsThroughOneLinkTakeTwiceAsLongAsOnDisjointRoutes) {
  const Allocation line = MustAllocate("mesh:4:link-bandwidth=1e9:link-latency=1e-6");
  // Tasks 0..3 on nodes 0..3. Shared: 0-2 and 1-3 both cross the link 1-2 (each
  // direction). Disjoint: 0-1 and 2-3.
  const TaskGraph shared = MustBuild(4, {{0, 2, 1'000'000'000}, {1, 3, 1'000'000'000}});
  const TaskGraph disjoint = MustBuild(4, {{0, 1, 1'000'000'000}, {2, 3, 1'000'000'000}});
  const double shared_time = SimulatedTime(shared, line);
  const double disjoint_time = SimulatedTime(disjoint, line);
  ASSERT_GT(disjoint_time, 0);
  EXPECT_NEAR(shared_time / disjoint_time, 2.0, 0.02);
}

TEST(SimGridTest, MessagesInsideANodeUseItsLoopbackNotTheNetwork) {
  // Two tasks on one node of a slow network: they exchange at the node's speed.
  const Allocation pair = MustAllocate("mesh:2:cores=2:link-bandwidth=1e6");
  const TaskGraph graph = MustBuild(2, {{0, 1, 2'000'000}});
  const double same_node = SimulatedTime(graph, pair, {0, 1});
  const double across = SimulatedTime(graph, pair, {0, 2});
  EXPECT_NEAR(across, 1e6 / (1e6 * kBandwidthFactor), 1e-3);
  EXPECT_LT(same_node, across / 100);
}

TEST(SimGridTest, TwoGpusOfOneHostExchangeAtNvlinkSpeed) {
  // 2 hosts of 2 GPUs; NVLink 1 GB/s per GPU, a rail 0.1 GB/s per GPU (a host's
  // bundle of 2 rails: 0.2 GB/s).
  const Allocation cluster = MustAllocate(
      "gpu:2:gpus=2:nvlink-bandwidth=1e9:rail-bandwidth=1e8:nvlink-latency=1e-6:"
      "rail-latency=1e-6");
  const TaskGraph graph = MustBuild(2, {{0, 1, 200'000'000}});  // 100 MB each way
  const double same_host = SimulatedTime(graph, cluster, {0, 1});
  const double across = SimulatedTime(graph, cluster, {0, 2});
  // Each direction has its own loopback / rail links: one 100 MB flow each.
  EXPECT_NEAR(same_host, 1e8 / (1e9 * kBandwidthFactor), 1e-3);
  EXPECT_NEAR(across, 1e8 / (2e8 * kBandwidthFactor) + kLatencyFactor * 2 * 1e-6, 1e-3);
}

TEST(SimGridTest, FewerHopBytesOnAContendedTorusIsPredictedFaster) {
  const Allocation torus = MustAllocate("torus:4x4x4:link-bandwidth=1e9:link-latency=1e-7");
  GeneratorOptions stencil;
  stencil.kind = "stencil3d-7";
  stencil.dims = {4, 4, 4};
  stencil.wrap = true;
  stencil.bytes = 1 << 20;
  absl::StatusOr<TaskGraph> graph = GenerateGraph(stencil);
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::vector<SlotId> shuffled(64);
  std::iota(shuffled.begin(), shuffled.end(), 0);
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(7));

  SimulateRequest request;
  request.graph = &*graph;
  request.allocation = &torus;
  request.mappings.push_back({"shuffled", shuffled});
  request.iterations = 3;
  absl::StatusOr<SimulationReport> report = Simulate(request, Worker());
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->simulations.size(), 2u);
  const SimulationResult& in_order = report->simulations[0];
  const SimulationResult& random = report->simulations[1];
  EXPECT_EQ(in_order.mapping, "in-order");
  EXPECT_LT(in_order.hop_bytes, random.hop_bytes);
  // In order every message crosses one link of its own: 1 MiB at 0.97 GB/s.
  EXPECT_NEAR(in_order.time_s, (1 << 20) / (1e9 * kBandwidthFactor), 2e-5);
  EXPECT_GT(random.ratio_to_in_order, 1.5);
  EXPECT_DOUBLE_EQ(random.total_time_s, random.time_s * 3);
  // The shuffled placement's busiest link carries several messages at once and sets
  // most of the time.
  EXPECT_GT(random.busiest_link.bytes, in_order.busiest_link.bytes);
  EXPECT_GT(random.busiest_link_share, 0.5);
  EXPECT_LE(random.busiest_link_share, 1.0 / kBandwidthFactor + 1e-9);
}

// The time objective ranks placements by an estimate of what this simulator gives
// (core/metrics/exchange_time.h): exact where one route or one link decides, and
// on a contended torus close to it and in the same order.
TEST(SimGridTest, TheTimeObjectivesEstimateFollowsTheSimulator) {
  auto estimate = [](const TaskGraph& graph, const Allocation& allocation,
                     const std::vector<SlotId>& slots) {
    std::optional<ExchangeTimeEstimate> e =
        EstimateExchangeTime(graph, allocation, slots, Routing::kDimensionOrder);
    EXPECT_TRUE(e.has_value());
    return e.value_or(ExchangeTimeEstimate{}).seconds;
  };
  const Allocation line = MustAllocate("mesh:8:link-bandwidth=1e9:link-latency=1e-6");
  const TaskGraph one = MustBuild(2, {{0, 1, 2'000'000}});
  EXPECT_NEAR(estimate(one, line, {0, 7}), SimulatedTime(one, line, {0, 7}), 1e-7);
  const TaskGraph shared = MustBuild(8, {{0, 2, 2'000'000}, {1, 3, 2'000'000}});
  const std::vector<SlotId> in_line = {0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_NEAR(estimate(shared, line, in_line) / SimulatedTime(shared, line, in_line), 1.0, 0.02);

  const Allocation torus = MustAllocate("torus:4x4x4:link-bandwidth=1e9:link-latency=1e-7");
  GeneratorOptions stencil;
  stencil.kind = "stencil3d-7";
  stencil.dims = {4, 4, 4};
  stencil.wrap = true;
  for (const Bytes bytes : {Bytes{1024}, Bytes{1} << 20}) {
    SCOPED_TRACE(bytes);
    stencil.bytes = bytes;
    const TaskGraph graph = *GenerateGraph(stencil);
    std::vector<SlotId> in_order(64);
    std::iota(in_order.begin(), in_order.end(), 0);
    std::vector<SlotId> shuffled = in_order;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(7));
    const double in_order_estimate = estimate(graph, torus, in_order);
    const double shuffled_estimate = estimate(graph, torus, shuffled);
    const double in_order_time = SimulatedTime(graph, torus, in_order);
    const double shuffled_time = SimulatedTime(graph, torus, shuffled);
    EXPECT_NEAR(in_order_estimate / in_order_time, 1.0, 0.02);
    EXPECT_NEAR(shuffled_estimate / shuffled_time, 1.0, 0.25);
    EXPECT_LT(in_order_estimate, shuffled_estimate);
    EXPECT_LT(in_order_time, shuffled_time);
  }
}

TEST(SimGridTest, TheSameRequestGivesTheSameTimesEveryRun) {
  const Allocation fattree = MustAllocate("fattree:4x4:cores=2");
  GeneratorOptions ring;
  ring.kind = "recursive-doubling";
  ring.tasks = 32;
  ring.bytes = 12345;
  absl::StatusOr<TaskGraph> graph = GenerateGraph(ring);
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::vector<SlotId> reversed(32);
  for (int t = 0; t < 32; ++t) reversed[t] = 31 - t;
  SimulateRequest request;
  request.graph = &*graph;
  request.allocation = &fattree;
  request.mappings.push_back({"reversed", reversed});
  request.patterns = {CommunicationPattern{}, *ParsePattern("allgather:1024")};
  request.threads = 2;
  absl::StatusOr<SimulationReport> first = Simulate(request, Worker());
  absl::StatusOr<SimulationReport> second = Simulate(request, Worker());
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_EQ(first->simulations.size(), second->simulations.size());
  for (size_t i = 0; i < first->simulations.size(); ++i) {
    EXPECT_EQ(first->simulations[i].total_time_s, second->simulations[i].total_time_s);
    EXPECT_GT(first->simulations[i].time_s, 0);
  }
}

TEST(SimGridTest, AMachineWithoutLinksOrAWrongMappingIsRefused) {
  const Allocation torus = MustAllocate("torus:2x2");
  const TaskGraph graph = MustBuild(4, {{0, 1, 10}});
  SimulateRequest request;
  request.graph = &graph;
  request.allocation = &torus;
  request.mappings.push_back({"short.perm", {0, 1}});
  absl::StatusOr<SimulationReport> report = Simulate(request, Worker());
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(), HasSubstr("short.perm"));
  request.mappings = {{"twice.perm", {0, 0, 1, 2}}};
  report = Simulate(request, Worker());
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(), HasSubstr("twice.perm"));
  request.mappings.clear();
  request.iterations = 0;
  std::optional<RequestError> bad = CheckSimulateRequest(request);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->field, "iterations");
  // A graph of zero tasks: nothing to simulate.
  const TaskGraph empty = MustBuild(0, {});
  request.graph = &empty;
  request.iterations = 1;
  bad = CheckSimulateRequest(request);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->field, "graph");
  EXPECT_EQ(bad->status.message(), "the graph is empty: no tasks");
}

TEST(SimGridTest, TheWorkerRefusesABrokenModelWithOneLine) {
  absl::StatusOr<std::string> worker = FindSimGridWorker();
  ASSERT_TRUE(worker.ok()) << worker.status();
  absl::StatusOr<double> time = SimGridSimulator(*worker)(NetworkModel{});
  ASSERT_FALSE(time.ok());
  EXPECT_THAT(time.status().message(), HasSubstr("standard input: no hosts"));
  absl::StatusOr<ProcessResult> garbage = RunProcess({*worker}, "not a model");
  ASSERT_TRUE(garbage.ok());
  EXPECT_EQ(garbage->exit_code, 2);
  EXPECT_THAT(garbage->err, HasSubstr("hopmap-simgrid: standard input:"));
  // A flow between hosts without a route is caught before SimGrid sees it.
  NetworkModel model;
  model.hosts = {"a", "b"};
  model.phases = {{{0, 1, 100}}};
  absl::StatusOr<NetworkModel> decoded = DecodeNetworkModel(EncodeNetworkModel(model), "test");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().message(), "test: no route for a flow from a to b");
}

}  // namespace
}  // namespace hopmap::sim

namespace hopmap::sim {
namespace {

TEST(SubprocessTest, ACancelledRunKillsTheProgram) {
  std::atomic<bool> cancelled{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancelled = true;
  });
  // sleep would take a minute; the flag ends it.
  absl::StatusOr<ProcessResult> run = RunProcess({"/bin/sleep", "60"}, "", {}, &cancelled);
  canceller.join();
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(run.status().message(), HasSubstr("/bin/sleep stopped"));
}

TEST(SubprocessTest, InputOutputErrorsAndTheEnvironment) {
  absl::StatusOr<ProcessResult> run =
      RunProcess({"/bin/sh", "-c", "cat; echo \"$HOPMAP_TEST_VALUE\" >&2; exit 3"},
                 std::string(200000, 'x'), {"HOPMAP_TEST_VALUE=seen"});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->exit_code, 3);
  EXPECT_EQ(run->out.size(), 200000u);
  EXPECT_EQ(run->err, "seen\n");
  absl::StatusOr<ProcessResult> missing = RunProcess({"/nonexistent/program"}, "");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("cannot run /nonexistent/program"));
}

}  // namespace
}  // namespace hopmap::sim
