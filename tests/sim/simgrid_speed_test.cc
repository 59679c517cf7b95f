// What the worker does to simulate less (docs/simulate.md#speed): the redundant
// links it drops and the flows it merges change no time (against the worker's
// --reference run of the same model), and the default time step keeps times
// within a fraction of a percent. Every run is the real hopmap-simgrid process.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/graph/generators.h"
#include "core/io/machine_spec.h"
#include "core/simulate/traffic.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/model_codec.h"
#include "sim/model_reduction.h"
#include "sim/runner.h"
#include "sim/subprocess.h"

namespace hopmap::sim {
namespace {

using ::testing::HasSubstr;

// A model by hand: hosts h0..h(n-1), links of the given bandwidths (latency 1 us),
// routes as lists of link indices, one phase of flows.
NetworkModel HandModel(int hosts, const std::vector<double>& bandwidths,
                       const std::vector<SimRoute>& routes, const std::vector<SimFlow>& flows) {
  NetworkModel model;
  for (int h = 0; h < hosts; ++h) model.hosts.push_back(absl::StrCat("h", h));
  for (size_t l = 0; l < bandwidths.size(); ++l) {
    model.links.push_back({absl::StrCat("l", l), bandwidths[l], 1e-6, ""});
  }
  model.routes = routes;
  model.phases = {flows};
  return model;
}

TEST(RedundantLinksTest, ALinkIsRedundantWhenANoWiderOneCarriesAllItsRoutes) {
  // A line h0 -> h1 -> h2 -> h3 over links 0, 1, 2: link 1 carries every route
  // that 0 or 2 carries.
  const std::vector<SimRoute> routes = {{0, 3, {0, 1, 2}}, {1, 3, {1, 2}}, {0, 2, {0, 1}}};
  EXPECT_EQ(RedundantLinks(HandModel(4, {1e9, 1e9, 1e9}, routes, {})),
            (std::vector<bool>{true, false, true}));
  // Link 0 narrower than link 1: it may be the bottleneck, it stays.
  EXPECT_EQ(RedundantLinks(HandModel(4, {5e8, 1e9, 1e9}, routes, {})),
            (std::vector<bool>{false, false, true}));
  // Link 1 narrower: it decides for both others.
  EXPECT_EQ(RedundantLinks(HandModel(4, {1e9, 5e8, 2e9}, routes, {})),
            (std::vector<bool>{true, false, true}));
  // Link 1 wider than the others: nothing carries all of 1's routes, and 0 and 2
  // each have a route the other lacks.
  EXPECT_EQ(RedundantLinks(HandModel(4, {1e9, 2e9, 1e9}, routes, {})),
            (std::vector<bool>{false, false, false}));
}

TEST(RedundantLinksTest, OfLinksWithTheSameRoutesTheFirstStays) {
  // Two routes over the same three links: two of them go, one stays on each route.
  const std::vector<SimRoute> routes = {{0, 1, {2, 0, 1}}, {1, 0, {1, 2, 0}}};
  EXPECT_EQ(RedundantLinks(HandModel(2, {1e9, 1e9, 1e9}, routes, {})),
            (std::vector<bool>{false, true, true}));
  // A link no route crosses is left alone; a lone route keeps its one link.
  EXPECT_EQ(RedundantLinks(HandModel(2, {1e9, 1e9}, {{0, 1, {1}}}, {})),
            (std::vector<bool>{false, false}));
}

TEST(PhaseTimeLowerBoundsTest, TheSlowestFlowAloneOrTheBusiestLink) {
  const Lv08Factors lv08;
  // One flow of 1 MB over two links of 1 GB/s and 1 us.
  NetworkModel model = HandModel(3, {1e9, 1e9}, {{0, 2, {0, 1}}, {1, 2, {1}}}, {{0, 2, 1'000'000}});
  ASSERT_EQ(PhaseTimeLowerBounds(model, lv08).size(), 1u);
  EXPECT_DOUBLE_EQ(PhaseTimeLowerBounds(model, lv08)[0], 13.01 * 2e-6 + 1e6 / (0.97 * 1e9));
  // A second flow through link 1: 2 MB cross it.
  model.phases[0].push_back({1, 2, 1'000'000});
  EXPECT_DOUBLE_EQ(PhaseTimeLowerBounds(model, lv08)[0], 2e6 / (0.97 * 1e9));
  // Inside a node: the loopback alone, one flow at a time (10 GB/s, no latency).
  model.phases = {{{0, 0, 50'000'000}}, {}};
  EXPECT_EQ(PhaseTimeLowerBounds(model, lv08), (std::vector<double>{5e7 / (0.97 * 1e10), 0}));
  // Long links: TCP's window, gamma / (2 x latency), bounds the rate below the bandwidth.
  model.links[0].latency = model.links[1].latency = 1e-2;
  model.phases = {{{0, 2, 1'000'000}}};
  EXPECT_DOUBLE_EQ(PhaseTimeLowerBounds(model, lv08)[0],
                   13.01 * 2e-2 + 1e6 / (0.97 * (4194304 / (2 * 2e-2))));
}

// The worker re-solves the whole sharing (Full) when the links bind the time, only
// the changed part (Lazy) when each flow's own latency does.
TEST(PhaseTimeLowerBoundsTest, LinksBindWhenTheBusiestLinkOutlastsTheSlowestFlow) {
  const Lv08Factors lv08;
  // Ten flows of 1 KB over link 1 (1 GB/s, 1 us): 10 KB take 10.3 us on it, the
  // slowest flow alone 2 x 13.01 us of latency and 1 us of bytes.
  NetworkModel model = HandModel(3, {1e9, 1e9}, {{0, 2, {0, 1}}, {1, 2, {1}}}, {});
  model.phases = {std::vector<SimFlow>(10, SimFlow{1, 2, 1000})};
  const std::vector<PhaseBoundParts> parts = PhaseTimeBoundParts(model, lv08);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_DOUBLE_EQ(parts[0].slowest_flow, 13.01 * 1e-6 + 1e3 / (0.97 * 1e9));
  EXPECT_DOUBLE_EQ(parts[0].busiest_link, 1e4 / (0.97 * 1e9));
  EXPECT_FALSE(LinksBindTheTime(model, lv08));
  // The same flows of 64 KB: 640 KB on the link take 660 us, one flow 81 us.
  for (SimFlow& flow : model.phases[0]) flow.bytes = 65536;
  EXPECT_TRUE(LinksBindTheTime(model, lv08));
}

// The model of `graph` (its edges as one phase, or `pattern`) placed by
// `slot_of_task` on `spec`'s whole machine.
NetworkModel ModelOf(const std::string& spec, const TaskGraph& graph,
                     const std::vector<SlotId>& slot_of_task,
                     const std::string& pattern = "graph") {
  absl::StatusOr<std::shared_ptr<Machine>> machine = ParseMachineSpec(spec);
  EXPECT_TRUE(machine.ok()) << machine.status();
  absl::StatusOr<Allocation> allocation = Allocation::WholeMachine(*machine);
  EXPECT_TRUE(allocation.ok()) << allocation.status();
  absl::StatusOr<CommunicationPattern> parsed = ParsePattern(pattern);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  const CommunicationPattern patterns[] = {*parsed};
  absl::StatusOr<std::vector<std::vector<TaskFlow>>> phases = PatternPhases(graph, patterns);
  EXPECT_TRUE(phases.ok()) << phases.status();
  absl::StatusOr<NetworkModel> model = BuildNetworkModel(*allocation, slot_of_task, *phases, 1);
  EXPECT_TRUE(model.ok()) << model.status();
  return *std::move(model);
}

TaskGraph Generate(const std::string& kind, std::vector<int32_t> dims, int32_t tasks, Bytes bytes) {
  GeneratorOptions options;
  options.kind = kind;
  options.dims = std::move(dims);
  options.wrap = kind.starts_with("stencil");
  options.tasks = tasks;
  options.bytes = bytes;
  absl::StatusOr<TaskGraph> graph = GenerateGraph(options);
  EXPECT_TRUE(graph.ok()) << graph.status();
  return *std::move(graph);
}

std::vector<SlotId> InOrder(int32_t tasks) {
  std::vector<SlotId> slots(tasks);
  std::iota(slots.begin(), slots.end(), 0);
  return slots;
}

// `tasks` of the machine's `slots`, shuffled.
std::vector<SlotId> Scattered(int32_t tasks, int32_t slots, uint64_t seed) {
  std::vector<SlotId> all = InOrder(slots);
  std::shuffle(all.begin(), all.end(), std::mt19937_64(seed));
  all.resize(tasks);
  return all;
}

// The worker's time for `model` with `args`.
double WorkerTime(const NetworkModel& model, const std::vector<std::string>& args) {
  absl::StatusOr<std::string> worker = FindSimGridWorker();
  EXPECT_TRUE(worker.ok()) << worker.status();
  std::vector<std::string> argv = {*worker};
  argv.insert(argv.end(), args.begin(), args.end());
  absl::StatusOr<ProcessResult> run = RunProcess(argv, EncodeNetworkModel(model));
  EXPECT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->exit_code, 0) << run->err;
  absl::string_view out = absl::StripAsciiWhitespace(run->out);
  double seconds = -1;
  EXPECT_TRUE(absl::ConsumePrefix(&out, "time_s=") && absl::SimpleAtod(out, &seconds)) << run->out;
  return seconds;
}

// Pairs of hosts with two or more flows of one size in one phase: what merging acts on.
int AlikePairs(const NetworkModel& model) {
  int alike = 0;
  for (const std::vector<SimFlow>& phase : model.phases) {
    absl::flat_hash_map<int64_t, std::pair<uint64_t, int>> pairs;
    absl::flat_hash_map<int64_t, bool> mixed;
    for (const SimFlow& flow : phase) {
      if (flow.src_host == flow.dst_host) continue;
      auto& [bytes, count] = pairs[int64_t{flow.src_host} << 32 | flow.dst_host];
      if (count++ > 0 && bytes != flow.bytes)
        mixed[int64_t{flow.src_host} << 32 | flow.dst_host] = true;
      bytes = flow.bytes;
    }
    for (const auto& [key, value] : pairs) alike += value.second > 1 && !mixed.contains(key);
  }
  return alike;
}

int Count(const std::vector<bool>& flags) {
  return static_cast<int>(std::count(flags.begin(), flags.end(), true));
}

struct Case {
  std::string name;
  NetworkModel model;
};

// Models with redundant links and alike flows: contended placements, long links
// (TCP's window bound binds), links without latency, links of several classes, and
// several phases.
std::vector<Case> Cases() {
  const TaskGraph halo = Generate("stencil3d-7", {8, 4, 4}, 0, 1 << 20);
  const TaskGraph rgg = Generate("random-geometric", {}, 32, 1 << 18);
  const TaskGraph doubling = Generate("recursive-doubling", {}, 64, 1 << 16);
  std::vector<Case> cases;
  cases.push_back(
      {"halo in order, 4 per node", ModelOf("torus:4x4x4:cores=4", halo, InOrder(128))});
  cases.push_back({"halo scattered", ModelOf("torus:4x4x4:cores=4", halo, Scattered(128, 256, 3))});
  cases.push_back({"halo in order, 1 ms links",
                   ModelOf("torus:4x4x4:cores=4:link-latency=1e-3", halo, InOrder(128))});
  cases.push_back({"halo scattered, links without latency",
                   ModelOf("torus:4x4x4:cores=4:link-latency=0", halo, Scattered(128, 256, 5))});
  cases.push_back({"irregular graph on a GPU cluster",
                   ModelOf("gpu:8:gpus=4:leaf=4:nvlink-bandwidth=1e10:rail-bandwidth=1e9", rgg,
                           Scattered(32, 32, 7))});
  cases.push_back(
      {"allgather on a fat tree, 2 per node",
       ModelOf("fattree:4x4:cores=2", doubling, Scattered(64, 32, 9), "allgather:65536")});
  return cases;
}

TEST(SimGridSpeedTest, DroppingRedundantLinksAndMergingAlikeFlowsChangesNoTime) {
  int redundant = 0, alike = 0;
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    redundant += Count(RedundantLinks(c.model));
    alike += AlikePairs(c.model);
    const double reference = WorkerTime(c.model, {"--reference"});
    ASSERT_GT(reference, 0);
    // 1 ns steps as in the reference: only the links and flows differ.
    const double dropped =
        WorkerTime(c.model, {"--time-step-fraction=0", "--one-flow-per-message"});
    const double merged = WorkerTime(c.model, {"--time-step-fraction=0", "--all-links"});
    const double both = WorkerTime(c.model, {"--time-step-fraction=0"});
    EXPECT_NEAR(dropped / reference, 1.0, 1e-9) << dropped << " vs " << reference;
    EXPECT_NEAR(merged / reference, 1.0, 1e-9) << merged << " vs " << reference;
    EXPECT_NEAR(both / reference, 1.0, 1e-9) << both << " vs " << reference;
  }
  // The cases do exercise both.
  EXPECT_GT(redundant, 20);
  EXPECT_GT(alike, 20);
}

TEST(SimGridSpeedTest, TheDefaultTimeStepKeepsTimesWithinHalfAPercent) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    const double reference = WorkerTime(c.model, {"--reference"});
    const double fast = WorkerTime(c.model, {});
    EXPECT_NEAR(fast / reference, 1.0, 0.005) << fast << " vs " << reference;
  }
}

// The worker re-solves the whole sharing at each event (network/optim:Full) where the
// links bind the time, else only the part the event changed (Lazy, SimGrid's
// default). Both solve the same system.
TEST(SimGridSpeedTest, ReSolvingTheWholeSharingChangesNoTime) {
  const std::vector<Case> cases = Cases();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const double full = WorkerTime(c.model, {"--reference", "--cfg=network/optim:Full"});
    const double lazy = WorkerTime(c.model, {"--reference", "--cfg=network/optim:Lazy"});
    ASSERT_GT(lazy, 0);
    EXPECT_NEAR(full / lazy, 1.0, 1e-9) << full << " vs " << lazy;
  }
  // The setting does reach SimGrid: a value it does not know stops the worker.
  absl::StatusOr<std::string> worker = FindSimGridWorker();
  ASSERT_TRUE(worker.ok()) << worker.status();
  absl::StatusOr<ProcessResult> run =
      RunProcess({*worker, "--cfg=network/optim:Sometimes"}, EncodeNetworkModel(cases[0].model));
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_NE(run->exit_code, 0);
  EXPECT_THAT(run->err, HasSubstr("Sometimes")) << run->err;
}

}  // namespace
}  // namespace hopmap::sim
