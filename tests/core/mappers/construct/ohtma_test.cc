#include "core/mappers/construct/ohtma.h"

#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "core/graph/generators.h"
#include "core/mappers/portfolio/registry.h"
#include "core/metrics/hop_bytes.h"
#include "core/search/random_stream.h"
#include "core/topology/chipmesh.h"
#include "core/topology/fattree.h"
#include "core/topology/torus.h"
#include "gtest/gtest.h"
#include "tbb/task_arena.h"

namespace hopmap {
namespace {

std::shared_ptr<const Machine> Torus(std::vector<int32_t> dims, std::vector<bool> wrap) {
  return std::make_shared<TorusMachine>(*TorusMachine::Create(std::move(dims), std::move(wrap)));
}

TaskGraph Generate(const std::string& kind, std::vector<int32_t> dims, int32_t tasks,
                   uint64_t seed = 1) {
  GeneratorOptions gen;
  gen.kind = kind;
  gen.dims = std::move(dims);
  gen.tasks = tasks;
  gen.seed = seed;
  gen.wrap = kind.rfind("stencil", 0) == 0;
  absl::StatusOr<TaskGraph> graph = GenerateGraph(gen);
  EXPECT_TRUE(graph.ok()) << graph.status();
  return *std::move(graph);
}

// A graph with distinct, irregular weights (fewer ties than the generators give).
TaskGraph RandomWeighted(TaskId n, int edges, uint64_t seed) {
  TaskGraphBuilder builder(n);
  RandomStream random(seed, 0);
  for (int e = 0; e < edges; ++e) {
    const TaskId u = static_cast<TaskId>(random.Below(n));
    const TaskId v = static_cast<TaskId>(random.Below(n));
    EXPECT_TRUE(builder.AddTraffic(u, v, 1 + static_cast<Bytes>(random.Below(1000))).ok());
  }
  return *std::move(builder).Build();
}

absl::StatusOr<MapOutput> RunOhtma(const TaskGraph& graph, const Allocation& allocation,
                                   OhtmaOptions ohtma = {},
                                   const std::vector<SlotId>* initial = nullptr) {
  MapperOptions options;
  options.time_limit_seconds = 60;
  const StopCondition stop(absl::Now() + absl::Seconds(60));
  MapInput input{graph, allocation, options, stop};
  input.initial = initial;
  return OhtmaMapper(ohtma).Map(input);
}

struct Case {
  std::string name;
  std::shared_ptr<const Machine> machine;
  std::vector<NodeId> nodes;  // empty: the whole machine
  int32_t cores;
  TaskGraph graph;
};

std::vector<Case> SmallCases() {
  std::vector<Case> cases;
  auto fat_tree = std::make_shared<FatTreeMachine>(*FatTreeMachine::Create({4, 3, 4}));
  auto chips = std::make_shared<ChipMeshMachine>(*ChipMeshMachine::Create(3, 2, 4));
  cases.push_back({"stencil on a whole 4x4x2 torus",
                   Torus({4, 4, 2}, {true, true, true}),
                   {},
                   1,
                   Generate("stencil2d-5", {8, 4}, 0)});
  cases.push_back({"random geometric on a fragmented torus, 2 cores",
                   Torus({4, 3, 3}, {true, false, true}),
                   {0, 2, 3, 5, 8, 9, 13, 17, 20, 22, 23, 27, 30, 31, 34, 35},
                   2,
                   Generate("random-geometric", {}, 29, 5)});
  cases.push_back({"irregular weights on a fat tree, fewer tasks than slots",
                   fat_tree,
                   {},
                   1,
                   RandomWeighted(37, 90, 11)});
  cases.push_back({"fft2d on a fragmented fat tree, 3 cores",
                   fat_tree,
                   {1, 4, 5, 9, 12, 13, 14, 20, 26, 30, 33, 40, 41, 47},
                   3,
                   Generate("fft2d", {6, 5}, 0)});
  cases.push_back({"irregular weights on a Tianhe-3 chip mesh, 2 cores",
                   chips,
                   {},
                   2,
                   RandomWeighted(40, 120, 3)});
  // More tasks than the gain matrix's initialisation block (64 rows).
  cases.push_back({"150 tasks, irregular weights, on a fragmented torus with 3 cores",
                   Torus({6, 5, 4}, {true, true, false}),
                   [] {
                     std::vector<NodeId> nodes;
                     for (NodeId v = 0; v < 120; v += 2) nodes.push_back(v);
                     return nodes;
                   }(),
                   3, RandomWeighted(150, 500, 21)});
  cases.push_back({"ring on a mesh, fewer tasks",
                   Torus({5, 5}, {false, false}),
                   {},
                   1,
                   Generate("ring", {}, 17)});
  return cases;
}

Allocation MakeAllocation(const Case& c) {
  std::vector<NodeId> nodes = c.nodes;
  if (nodes.empty()) {
    nodes.resize(c.machine->num_nodes());
    std::iota(nodes.begin(), nodes.end(), 0);
  }
  absl::StatusOr<Allocation> allocation = Allocation::Create(c.machine, nodes, c.cores);
  EXPECT_TRUE(allocation.ok()) << allocation.status();
  return *std::move(allocation);
}

// Valid mappings on every kind of allocation; hop-bytes never above the greedy start.
TEST(OhtmaTest, ValidAndNeverWorseThanItsGreedyStart) {
  for (const Case& c : SmallCases()) {
    SCOPED_TRACE(c.name);
    const Allocation allocation = MakeAllocation(c);
    absl::StatusOr<std::vector<SlotId>> greedy = OhtmaGreedyPlacement(c.graph, allocation);
    ASSERT_TRUE(greedy.ok()) << greedy.status();
    ASSERT_TRUE(ValidateMapping(allocation, c.graph.num_tasks(), *greedy).ok());
    absl::StatusOr<MapOutput> out = RunOhtma(c.graph, allocation);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_TRUE(ValidateMapping(allocation, c.graph.num_tasks(), out->slot_of_task).ok());
    EXPECT_LE(ComputeHopBytes(c.graph, allocation, out->slot_of_task),
              ComputeHopBytes(c.graph, allocation, *greedy));
  }
}

// The incremental implementation reproduces the literal one exactly: the greedy
// placement and the final mapping, with one pass and with several.
TEST(OhtmaTest, IncrementalEqualsLiteral) {
  for (const Case& c : SmallCases()) {
    SCOPED_TRACE(c.name);
    const Allocation allocation = MakeAllocation(c);
    absl::StatusOr<std::vector<SlotId>> greedy_fast = OhtmaGreedyPlacement(c.graph, allocation);
    absl::StatusOr<std::vector<SlotId>> greedy_literal =
        OhtmaGreedyPlacement(c.graph, allocation, /*literal=*/true);
    ASSERT_TRUE(greedy_fast.ok() && greedy_literal.ok());
    EXPECT_EQ(*greedy_fast, *greedy_literal);
    for (int32_t passes : {1, 3}) {
      OhtmaOptions fast;
      fast.passes = passes;
      OhtmaOptions literal = fast;
      literal.literal = true;
      absl::StatusOr<MapOutput> a = RunOhtma(c.graph, allocation, fast);
      absl::StatusOr<MapOutput> b = RunOhtma(c.graph, allocation, literal);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(a->slot_of_task, b->slot_of_task) << "passes " << passes;
      EXPECT_EQ(a->variant, b->variant);
    }
  }
}

// Uniform weights on a torus make many pairs tie: the tie-breaks must agree too.
TEST(OhtmaTest, IncrementalEqualsLiteralWithManyTies) {
  const TaskGraph graph = Generate("stencil2d-5", {16, 8}, 0);
  auto torus = Torus({4, 4, 4}, {true, true, true});
  const Allocation allocation = *Allocation::Create(
      torus,
      [] {
        std::vector<NodeId> nodes(64);
        std::iota(nodes.begin(), nodes.end(), 0);
        return nodes;
      }(),
      2);
  std::vector<SlotId> in_order(graph.num_tasks());
  std::iota(in_order.begin(), in_order.end(), 0);
  std::vector<SlotId> shuffled = in_order;
  RandomStream random(9, 0);
  random.Shuffle(std::span<SlotId>(shuffled));
  const std::vector<const std::vector<SlotId>*> starts = {nullptr, &in_order, &shuffled};
  for (const std::vector<SlotId>* start : starts) {
    OhtmaOptions fast;
    fast.passes = 2;
    OhtmaOptions literal = fast;
    literal.literal = true;
    absl::StatusOr<MapOutput> a = RunOhtma(graph, allocation, fast, start);
    absl::StatusOr<MapOutput> b = RunOhtma(graph, allocation, literal, start);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->slot_of_task, b->slot_of_task);
    EXPECT_EQ(a->variant, b->variant);
  }
}

// From a random start the exchanges must improve, and do so identically in both
// implementations (random starts have many positive and negative gains, so the
// backtrack is exercised).
TEST(OhtmaTest, ImprovesARandomStartLikeTheLiteralVersion) {
  for (const Case& c : SmallCases()) {
    SCOPED_TRACE(c.name);
    const Allocation allocation = MakeAllocation(c);
    std::vector<SlotId> start(allocation.num_slots());
    std::iota(start.begin(), start.end(), 0);
    RandomStream random(42, 0);
    random.Shuffle(std::span<SlotId>(start));
    start.resize(c.graph.num_tasks());
    OhtmaOptions literal;
    literal.literal = true;
    absl::StatusOr<MapOutput> a = RunOhtma(c.graph, allocation, {}, &start);
    absl::StatusOr<MapOutput> b = RunOhtma(c.graph, allocation, literal, &start);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->slot_of_task, b->slot_of_task);
    ASSERT_TRUE(ValidateMapping(allocation, c.graph.num_tasks(), a->slot_of_task).ok());
    EXPECT_LT(ComputeHopBytes(c.graph, allocation, a->slot_of_task),
              ComputeHopBytes(c.graph, allocation, start));
  }
}

// The kept prefix is the best one: no prefix of the pass (replayed from the start
// with the exchanges the literal algorithm would make) is better. Checked through
// exchange_steps: running k steps can never beat the full pass's best prefix.
TEST(OhtmaTest, FullPassIsAtLeastAsGoodAsAnyShorterPass) {
  const Case c = std::move(SmallCases()[2]);
  const Allocation allocation = MakeAllocation(c);
  std::vector<SlotId> start(c.graph.num_tasks());
  std::iota(start.begin(), start.end(), 0);
  absl::StatusOr<MapOutput> full = RunOhtma(c.graph, allocation, {}, &start);
  ASSERT_TRUE(full.ok());
  const HopBytes full_hb = ComputeHopBytes(c.graph, allocation, full->slot_of_task);
  for (int64_t steps = 1; steps <= c.graph.num_tasks() / 2; ++steps) {
    OhtmaOptions shorter;
    shorter.exchange_steps = steps;
    absl::StatusOr<MapOutput> out = RunOhtma(c.graph, allocation, shorter, &start);
    ASSERT_TRUE(out.ok());
    EXPECT_GE(ComputeHopBytes(c.graph, allocation, out->slot_of_task), full_hb) << steps;
  }
}

TEST(OhtmaTest, DeterministicAcrossRunsAndThreadCounts) {
  const Case c = std::move(SmallCases()[5]);  // 150 tasks: several initialisation blocks
  const Allocation allocation = MakeAllocation(c);
  std::vector<std::vector<SlotId>> results;
  for (int threads : {1, 2, 1, 2}) {
    tbb::task_arena arena(threads);
    arena.execute([&] {
      absl::StatusOr<MapOutput> out = RunOhtma(c.graph, allocation);
      ASSERT_TRUE(out.ok());
      results.push_back(out->slot_of_task);
    });
  }
  for (size_t i = 1; i < results.size(); ++i) EXPECT_EQ(results[i], results[0]);
}

TEST(OhtmaTest, RejectsBadOptionsAndOversizeInputs) {
  const Case c = std::move(SmallCases()[0]);
  const Allocation allocation = MakeAllocation(c);
  OhtmaOptions bad;
  bad.passes = 0;
  EXPECT_FALSE(bad.Validate().ok());
  EXPECT_FALSE(RunOhtma(c.graph, allocation, bad).ok());
  bad = {};
  bad.exchange_steps = -1;
  EXPECT_FALSE(bad.Validate().ok());
  OhtmaOptions small;
  small.max_tasks = 8;
  EXPECT_EQ(RunOhtma(c.graph, allocation, small).status().code(),
            absl::StatusCode::kResourceExhausted);
  const TaskGraph too_many = Generate("ring", {}, 33);
  EXPECT_FALSE(RunOhtma(too_many, allocation).ok());
}

TEST(OhtmaTest, RegisteredAndStopsWithAValidMapping) {
  const MapperInfo* info = BuiltinMappers().Find("ohtma");
  ASSERT_NE(info, nullptr);
  const Case c = std::move(SmallCases()[0]);
  const Allocation allocation = MakeAllocation(c);
  MapperOptions options;
  const StopCondition stopped(absl::Now() - absl::Seconds(1));
  absl::StatusOr<MapOutput> out = info->create()->Map({c.graph, allocation, options, stopped});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(ValidateMapping(allocation, c.graph.num_tasks(), out->slot_of_task).ok());
}

}  // namespace
}  // namespace hopmap
