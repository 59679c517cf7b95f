// The constructive general mappers: gge, rcm, rec-bisect, mahd, emahd.
#include <algorithm>
#include <atomic>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "core/graph/generators.h"
#include "core/graph/task_graph.h"
#include "core/mappers/construct/mahd.h"
#include "core/mappers/construct/rec_bisect.h"
#include "core/mappers/mapper.h"
#include "core/mappers/portfolio/registry.h"
#include "core/metrics/hop_bytes.h"
#include "core/search/position_graph.h"
#include "core/search/random_stream.h"
#include "core/topology/fattree.h"
#include "core/topology/torus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tbb/task_arena.h"

namespace hopmap {
namespace {

const char* const kMappers[] = {"gge", "rcm", "rec-bisect", "mahd", "emahd"};

std::shared_ptr<const Machine> Torus(std::vector<int32_t> dims, int32_t cores = 1) {
  std::vector<bool> wrap(dims.size(), true);
  auto m = std::make_shared<TorusMachine>(*TorusMachine::Create(std::move(dims), std::move(wrap)));
  m->set_cores_per_node(cores);
  return m;
}

std::shared_ptr<const Machine> FatTree(std::vector<int32_t> arities, int32_t cores = 1) {
  auto m = std::make_shared<FatTreeMachine>(*FatTreeMachine::Create(std::move(arities)));
  m->set_cores_per_node(cores);
  return m;
}

TaskGraph Generate(const std::string& kind, std::vector<int32_t> dims, int32_t tasks = 0) {
  GeneratorOptions o;
  o.kind = kind;
  o.dims = std::move(dims);
  o.tasks = tasks;
  auto g = GenerateGraph(o);
  EXPECT_TRUE(g.ok()) << g.status();
  return *std::move(g);
}

// Two 4x4 stencils, a ring of 5 and 3 tasks with no edges: several components.
TaskGraph Disconnected() {
  TaskGraphBuilder b(16 + 16 + 5 + 3);
  for (int offset : {0, 16}) {
    for (int y = 0; y < 4; ++y) {
      for (int x = 0; x < 4; ++x) {
        if (x + 1 < 4) {
          EXPECT_TRUE(b.AddTraffic(offset + x + 4 * y, offset + x + 1 + 4 * y, 7).ok());
        }
        if (y + 1 < 4) {
          EXPECT_TRUE(b.AddTraffic(offset + x + 4 * y, offset + x + 4 * y + 4, 9).ok());
        }
      }
    }
  }
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(b.AddTraffic(32 + i, 32 + (i + 1) % 5, 100).ok());
  return *std::move(b).Build();
}

absl::StatusOr<MapOutput> RunMapper(const std::string& name, const TaskGraph& graph,
                                    const Allocation& allocation, uint64_t seed = 1) {
  MapperOptions options;
  options.seed = seed;
  options.time_limit_seconds = 30;
  const StopCondition stop(absl::Now() + absl::Seconds(30));
  MapInput input{graph, allocation, options, stop};
  auto mapper = BuiltinMappers().Create(name);
  if (!mapper.ok()) return mapper.status();
  return (*mapper)->Map(input);
}

HopBytes ValidHopBytes(const std::string& name, const TaskGraph& graph,
                       const Allocation& allocation) {
  auto out = RunMapper(name, graph, allocation);
  EXPECT_TRUE(out.ok()) << name << ": " << out.status();
  if (!out.ok()) return -1;
  const absl::Status valid = ValidateMapping(allocation, graph.num_tasks(), out->slot_of_task);
  EXPECT_TRUE(valid.ok()) << name << ": " << valid;
  if (!valid.ok()) return -1;
  return ComputeHopBytes(graph, allocation, out->slot_of_task);
}

struct Case {
  std::string label;
  std::shared_ptr<const TaskGraph> graph;
  std::shared_ptr<const Allocation> allocation;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  auto add = [&cases](std::string label, TaskGraph graph, Allocation allocation) {
    cases.push_back({std::move(label), std::make_shared<const TaskGraph>(std::move(graph)),
                     std::make_shared<const Allocation>(std::move(allocation))});
  };
  add("stencil onto whole torus", Generate("stencil2d-5", {16, 16}),
      *Allocation::WholeMachine(Torus({8, 8, 4})));
  add("3D stencil, 4 cores", Generate("stencil3d-7", {8, 4, 4}),
      *Allocation::WholeMachine(Torus({4, 4, 2}, 4)));
  add("fat tree, 2 cores", Generate("random-geometric", {}, 100),
      *Allocation::WholeMachine(FatTree({4, 4, 4}, 2)));
  // A fragmented allocation: every third node of a 6x6x6 torus, shuffled.
  std::vector<NodeId> nodes;
  for (NodeId v = 0; v < 216; v += 3) nodes.push_back(v);
  RandomStream random(5, 0);
  random.Shuffle(std::span<NodeId>(nodes));
  add("fragmented torus, 2 cores", Generate("stencil2d-9", {12, 12}),
      *Allocation::Create(Torus({6, 6, 6}), nodes, 2));
  add("fewer tasks than slots", Generate("random-geometric", {}, 50),
      *Allocation::WholeMachine(Torus({4, 4, 4}, 2)));
  add("disconnected graph, 3 cores", Disconnected(),
      *Allocation::Create(Torus({4, 4, 4}, 3),
                          {1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 41, 45, 49, 53}, 3));
  add("single task", Generate("ring", {}, 1), *Allocation::WholeMachine(Torus({2, 2})));
  add("exactly full, fat tree 1 core", Generate("recursive-doubling", {}, 64),
      *Allocation::WholeMachine(FatTree({8, 8})));
  return cases;
}

TEST(ConstructiveMappersTest, ValidOnEveryKindOfInput) {
  for (const Case& c : Cases()) {
    for (const char* name : kMappers) {
      SCOPED_TRACE(c.label + " / " + name);
      EXPECT_GE(ValidHopBytes(name, *c.graph, *c.allocation), 0);
    }
  }
}

TEST(ConstructiveMappersTest, RefusesTooManyTasks) {
  TaskGraph g = Generate("ring", {}, 10);
  Allocation a = *Allocation::WholeMachine(Torus({3, 3}));
  for (const char* name : kMappers) EXPECT_FALSE(RunMapper(name, g, a).ok()) << name;
}

TEST(ConstructiveMappersTest, StencilMuchBetterThanRandom) {
  TaskGraph g = Generate("stencil2d-5", {16, 16});
  Allocation a = *Allocation::WholeMachine(Torus({8, 8, 4}));
  const HopBytes random = ValidHopBytes("random", g, a);
  // Random slots on an 8x8x4 torus are ~4.9 hops apart per byte here; these
  // embeddings keep neighbours within 2 (measured: 1.4 to 1.9).
  for (const char* name : {"gge", "rec-bisect", "mahd", "emahd"}) {
    const HopBytes hb = ValidHopBytes(name, g, a);
    EXPECT_LT(hb * 5, random * 2) << name << " " << hb << " vs random " << random;
    EXPECT_LT(hb, static_cast<HopBytes>(g.total_bytes()) * 2) << name;
  }
}

// RCM lines up bandwidth-reduced orders: a path (ids shuffled) onto a line of
// nodes (a mesh) lands in path order, one hop per edge, the optimum.
TEST(ConstructiveMappersTest, RcmPathOntoLineIsOptimal) {
  constexpr int kTasks = 32;
  std::vector<TaskId> ids(kTasks);
  std::iota(ids.begin(), ids.end(), 0);
  RandomStream random(3, 0);
  random.Shuffle(std::span<TaskId>(ids));
  TaskGraphBuilder b(kTasks);
  for (int i = 0; i + 1 < kTasks; ++i) ASSERT_TRUE(b.AddTraffic(ids[i], ids[i + 1], 5).ok());
  TaskGraph g = *std::move(b).Build();
  auto mesh = std::make_shared<TorusMachine>(*TorusMachine::Create({kTasks}, {false}));
  Allocation a = *Allocation::WholeMachine(mesh);
  EXPECT_EQ(ValidHopBytes("rcm", g, a), g.total_bytes());
  for (const char* name : {"gge", "rec-bisect", "mahd", "emahd"}) {
    EXPECT_LE(ValidHopBytes(name, g, a), 2 * g.total_bytes()) << name;
  }
}

// Cliques of `cores` tasks fit one node each: 0 hop-bytes is reachable, and
// every mapper that fills a node's cores first finds it.
TEST(ConstructiveMappersTest, FillsNodesWithCliques) {
  constexpr int kCores = 4;
  TaskGraphBuilder b(8 * kCores);
  for (int c = 0; c < 8; ++c) {
    for (int i = 0; i < kCores; ++i) {
      for (int j = i + 1; j < kCores; ++j)
        ASSERT_TRUE(b.AddTraffic(c * kCores + i, c * kCores + j, 10).ok());
    }
  }
  TaskGraph g = *std::move(b).Build();
  Allocation a = *Allocation::WholeMachine(Torus({4, 4}, kCores));
  for (const char* name : kMappers) EXPECT_EQ(ValidHopBytes(name, g, a), 0) << name;
}

TEST(ConstructiveMappersTest, SameSeedSameThreadsSameMapping) {
  tbb::task_arena arena(2);
  for (const Case& c : Cases()) {
    for (const char* name : kMappers) {
      std::vector<SlotId> first, second;
      arena.execute([&] {
        first = RunMapper(name, *c.graph, *c.allocation, 7)->slot_of_task;
        second = RunMapper(name, *c.graph, *c.allocation, 7)->slot_of_task;
      });
      EXPECT_EQ(first, second) << c.label << " / " << name;
    }
  }
}

TEST(RecursiveBisectionTest, OptionsValidateAndOneCutStillValid) {
  RecursiveBisectionOptions options;
  EXPECT_TRUE(options.Validate().ok());
  options.metis_cuts = 0;
  EXPECT_FALSE(options.Validate().ok());
  options.metis_cuts = 1;
  options.refine_passes = 0;
  EXPECT_TRUE(options.Validate().ok());
  const RecursiveBisectionMapper plain(options);
  for (const Case& c : Cases()) {
    MapperOptions mapper_options;
    const StopCondition stop(absl::Now() + absl::Seconds(30));
    auto out = plain.Map({*c.graph, *c.allocation, mapper_options, stop});
    ASSERT_TRUE(out.ok()) << c.label << ": " << out.status();
    EXPECT_TRUE(ValidateMapping(*c.allocation, c.graph->num_tasks(), out->slot_of_task).ok())
        << c.label;
  }
}

// Copies of one 3x3x3 stencil joined by a 1-byte edge, fewer tasks than slots: the
// halves get tasks in proportion to their slots, so the cut falls between the
// copies (filling the first half to the brim would cut one of them).
TaskGraph StencilCopies(int copies) {
  TaskGraphBuilder b(27 * copies);
  for (int c = 0; c < copies; ++c) {
    const int o = 27 * c;
    for (int z = 0; z < 3; ++z) {
      for (int y = 0; y < 3; ++y) {
        for (int x = 0; x < 3; ++x) {
          const int t = o + x + 3 * y + 9 * z;
          if (x + 1 < 3) {
            EXPECT_TRUE(b.AddTraffic(t, t + 1, 1000).ok());
          }
          if (y + 1 < 3) {
            EXPECT_TRUE(b.AddTraffic(t, t + 3, 1000).ok());
          }
          if (z + 1 < 3) {
            EXPECT_TRUE(b.AddTraffic(t, t + 9, 1000).ok());
          }
        }
      }
    }
    if (c + 1 < copies) {
      EXPECT_TRUE(b.AddTraffic(o + 26, o + 27, 1).ok());
    }
  }
  return *std::move(b).Build();
}

// rec-bisect with `options` and a 30 s budget.
absl::StatusOr<MapOutput> RunRecBisect(const RecursiveBisectionOptions& options,
                                       const TaskGraph& graph, const Allocation& allocation) {
  const MapperOptions mapper_options;
  const StopCondition stop(absl::Now() + absl::Seconds(30));
  return RecursiveBisectionMapper(options).Map({graph, allocation, mapper_options, stop});
}

TEST(RecursiveBisectionTest, CopiesOfAJobGetHalvesOfTheirOwn) {
  const TaskGraph g = StencilCopies(2);  // 54 tasks on 64 slots
  const Allocation a = *Allocation::WholeMachine(Torus({4, 4, 4}));
  // The plain cut alone (no refinement, no anchored cut) and the default.
  for (bool plain : {true, false}) {
    RecursiveBisectionOptions options;
    if (plain) {
      options.anchored_cut = false;
      options.refine_passes = 0;
    }
    auto out = RunRecBisect(options, g, a);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_TRUE(ValidateMapping(a, g.num_tasks(), out->slot_of_task).ok());
    // Some dimension separates the copies: all of one copy below 2, the other above.
    bool separated = false;
    for (int d = 0; d < 3; ++d) {
      int low[2] = {0, 0};
      for (TaskId t = 0; t < g.num_tasks(); ++t) {
        const int node = static_cast<int>(out->slot_of_task[t]);
        const int coordinate = d == 0 ? node % 4 : d == 1 ? node / 4 % 4 : node / 16;
        low[t / 27] += coordinate < 2;
      }
      separated = separated || (low[0] == 27 && low[1] == 0) || (low[0] == 0 && low[1] == 27);
    }
    EXPECT_TRUE(separated) << (plain ? "plain cut" : "default options");
  }
}

// The anchored cut sees where the set's outside neighbours went; on a random
// geometric graph onto a torus it pays off (measured: 4096 tasks on 16x16x16,
// 35.26M -> 34.77M hop-bytes before any refinement), and the result stays valid
// and repeatable.
TEST(RecursiveBisectionTest, AnchoredCutLowersHopBytes) {
  const TaskGraph g = Generate("random-geometric", {}, 4096);
  const Allocation a = *Allocation::WholeMachine(Torus({16, 16, 16}));
  RecursiveBisectionOptions options;
  HopBytes cost[2];
  for (bool anchored : {false, true}) {
    options.anchored_cut = anchored;
    auto out = RunRecBisect(options, g, a);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_TRUE(ValidateMapping(a, g.num_tasks(), out->slot_of_task).ok());
    auto again = RunRecBisect(options, g, a);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(out->slot_of_task, again->slot_of_task);
    cost[anchored] = ComputeHopBytes(g, a, out->slot_of_task);
  }
  EXPECT_LT(cost[1], cost[0]);
}

// The sets of a level are cut in parallel: the mapping must not depend on the
// thread count (large enough for many sets per level and several METIS cuts), and
// must be no worse than a plain in-order placement.
TEST(RecursiveBisectionTest, SameMappingOnOneAndTwoThreads) {
  const TaskGraph g = Generate("random-geometric", {}, 6000);
  std::vector<NodeId> nodes;
  for (NodeId v = 0; v < 4096; v += 2) nodes.push_back(v);  // fragmented, 2048 nodes
  const Allocation a = *Allocation::Create(Torus({16, 16, 16}), nodes, 3, /*dense_limit=*/0);
  std::vector<std::vector<SlotId>> results;
  for (int threads : {1, 2, 1, 2}) {
    tbb::task_arena arena(threads);
    arena.execute([&] { results.push_back(RunMapper("rec-bisect", g, a, 7)->slot_of_task); });
    ASSERT_TRUE(ValidateMapping(a, g.num_tasks(), results.back()).ok());
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
  EXPECT_EQ(results[0], results[3]);
  std::vector<SlotId> in_order(g.num_tasks());
  std::iota(in_order.begin(), in_order.end(), 0);
  EXPECT_LT(ComputeHopBytes(g, a, results[0]), ComputeHopBytes(g, a, in_order));
}

// Cancelled while cutting (after a few milliseconds, so at some level): the sets
// not yet split are laid out in order and the mapping is valid.
TEST(RecursiveBisectionTest, CancelledMidwayGivesAValidMapping) {
  const TaskGraph g = Generate("random-geometric", {}, 40000);
  const Allocation a = *Allocation::WholeMachine(Torus({16, 16, 16}, 10));
  const RecursiveBisectionMapper mapper;
  MapperOptions options;
  for (int delay_ms : {0, 5, 40}) {
    std::atomic<bool> cancelled = delay_ms == 0;
    const StopCondition stop(absl::InfiniteFuture(), &cancelled);
    std::thread canceller([&] {
      absl::SleepFor(absl::Milliseconds(delay_ms));
      cancelled = true;
    });
    auto out = mapper.Map({g, a, options, stop});
    canceller.join();
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(ValidateMapping(a, g.num_tasks(), out->slot_of_task).ok()) << delay_ms << " ms";
    if (delay_ms == 0) {
      EXPECT_EQ(FindStatistic(out->stats, "stopped_early"), 1);
    }
  }
}

TEST(RecursiveBisectionTest, ExpiredTimeLimitStillGivesAValidMapping) {
  const RecursiveBisectionMapper mapper;
  MapperOptions options;
  const StopCondition expired(absl::Now() - absl::Seconds(1));
  for (const Case& c : Cases()) {
    auto out = mapper.Map({*c.graph, *c.allocation, options, expired});
    ASSERT_TRUE(out.ok()) << c.label << ": " << out.status();
    EXPECT_TRUE(ValidateMapping(*c.allocation, c.graph->num_tasks(), out->slot_of_task).ok())
        << c.label;
    if (c.allocation->num_nodes() > 1) {
      EXPECT_EQ(FindStatistic(out->stats, "stopped_early"), 1) << c.label;
    }
  }
  // emahd still runs its first start.
  const std::vector<Case> cases = Cases();
  const Case& c = cases.front();
  MapInput input{*c.graph, *c.allocation, options, expired};
  auto emahd = BuiltinMappers().Create("emahd");
  auto out = (*emahd)->Map(input);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(ValidateMapping(*c.allocation, c.graph->num_tasks(), out->slot_of_task).ok());
  EXPECT_EQ(FindStatistic(out->stats, "starts_completed"), 1);
  EXPECT_EQ(FindStatistic(out->stats, "starts"), 256);
}

TEST(MahdTest, RunKeepsExactHopBytesAndEmahdIsNoWorse) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.label);
    const MahdContext context(*c.graph, *c.allocation);
    HopBytes best = -1;
    for (int32_t start : {0, c.allocation->num_nodes() - 1}) {
      const MahdRun run = RunMahd(context, context.by_centrality[start]);
      ASSERT_TRUE(ValidateMapping(*c.allocation, c.graph->num_tasks(), run.slot_of_task).ok());
      EXPECT_EQ(run.hop_bytes, ComputeHopBytes(*c.graph, *c.allocation, run.slot_of_task));
      if (start == 0) best = run.hop_bytes;
    }
    // emahd tries start 0 (mahd's) among the others and keeps the best.
    EXPECT_EQ(ValidHopBytes("mahd", *c.graph, *c.allocation), best);
    EXPECT_LE(ValidHopBytes("emahd", *c.graph, *c.allocation), best);
  }
}

TEST(PositionGraphTest, TorusNeighboursAndCentrality) {
  Allocation whole = *Allocation::WholeMachine(Torus({4, 4}));
  const PositionGraph g = PositionGraph::Build(whole);
  for (int32_t p = 0; p < 16; ++p) EXPECT_EQ(g.neighbors(p).size(), 4u) << p;
  // On a whole torus every node is equally central: 16 nodes, sum of hops 32.
  for (int64_t s : SumOfHopsToAll(whole)) EXPECT_EQ(s, 32);
  // A line of 5 nodes in a ring of 8: the middle one is most central; the ends
  // (positions 0 and 4) have only one allocated neighbour at 1 hop.
  Allocation line = *Allocation::Create(Torus({8}), {0, 1, 2, 3, 4}, 1);
  const std::vector<int64_t> sums = SumOfHopsToAll(line);
  for (int32_t p = 0; p < 5; ++p) {
    int64_t brute = 0;
    for (int32_t q = 0; q < 5; ++q) brute += line.HopsBetweenPositions(p, q);
    EXPECT_EQ(sums[p], brute);
  }
  EXPECT_EQ(PositionsByCentrality(line).front(), 2);
  EXPECT_EQ(PositionGraph::Build(line).neighbors(0).size(), 1u);
  // A fat tree has no coordinates-based neighbours: the nearest nodes (same
  // leaf) and a few at the next distances, cyclically after the node itself.
  Allocation tree = *Allocation::WholeMachine(FatTree({2, 3}));
  const PositionGraph t = PositionGraph::Build(tree);
  auto list = [](const PositionGraph& g, int32_t p) {
    return std::vector<int32_t>(g.neighbors(p).begin(), g.neighbors(p).end());
  };
  EXPECT_EQ(list(t, 0), (std::vector<int32_t>{1, 2, 3, 4, 5}));
  Allocation tree16 = *Allocation::WholeMachine(FatTree({4, 4}));
  EXPECT_EQ(list(PositionGraph::Build(tree16), 5), (std::vector<int32_t>{6, 7, 4, 8, 9, 10, 11}));
}

// The search reaches a lone free node across a full machine, whichever way it
// gets there: breadth-first over nodes (near), over blocks (far, past
// kMaxFineVisits), or the scan of free nodes (another component).
TEST(FreeSlotSearchTest, FindsTheOnlyFreeNode) {
  Allocation whole = *Allocation::WholeMachine(Torus({16, 16, 16}, 2));
  const PositionGraph graph = PositionGraph::Build(whole);
  const std::vector<int32_t> order = PositionsByCentrality(whole);
  for (int32_t lone : {1, 16 * 16 + 16 + 1, 8 + 16 * 8 + 256 * 8}) {
    FreeSlotSearch search(whole, graph);
    for (int32_t p = 0; p < whole.num_nodes(); ++p) {
      if (p == lone) continue;
      search.Take(p);
      search.Take(p);
    }
    const PlacementSource source{0, 1, 0};
    EXPECT_EQ(search.FindBest({&source, 1}, order), lone);
    EXPECT_EQ(search.Take(lone), 2 * lone);
    EXPECT_EQ(search.FindBest({&source, 1}, order), lone);
  }
  // Two far apart pairs of nodes on a ring: each pair is its own component.
  Allocation split = *Allocation::Create(Torus({64}), {0, 1, 32, 33}, 1);
  const PositionGraph split_graph = PositionGraph::Build(split);
  FreeSlotSearch search(split, split_graph);
  search.Take(0);
  search.Take(1);
  const PlacementSource source{1, 1, 0};
  // Position 2 (node 32) is 31 hops from node 1, position 3 (node 33) 32.
  EXPECT_EQ(search.FindBest({&source, 1}, order), 2);
}

// A neighbour's node with a free core costs 0 hops: it wins over any other.
TEST(FreeSlotSearchTest, PrefersTheNeighboursNodeWhileItHasCores) {
  Allocation a = *Allocation::WholeMachine(Torus({4, 4}, 3));
  const PositionGraph graph = PositionGraph::Build(a);
  FreeSlotSearch search(a, graph);
  const std::vector<PlacementSource> sources = {{5, 10, 0}, {6, 1, 0}};
  EXPECT_EQ(search.FindBest(sources, {}), 5);
  search.Take(5);
  search.Take(5);
  search.Take(5);
  EXPECT_EQ(search.FindBest(sources, {}), 6);  // 1 hop from the heavy source
  EXPECT_FALSE(search.HasFree(5));
}

TEST(ReverseCuthillMcKeeTest, PermutationThatFollowsAPath) {
  // A path 3-0-4-1-2 (ids shuffled): RCM walks it end to end.
  TaskGraphBuilder b(5);
  ASSERT_TRUE(b.AddTraffic(3, 0, 1).ok());
  ASSERT_TRUE(b.AddTraffic(0, 4, 1).ok());
  ASSERT_TRUE(b.AddTraffic(4, 1, 1).ok());
  ASSERT_TRUE(b.AddTraffic(1, 2, 1).ok());
  TaskGraph g = *std::move(b).Build();
  const std::vector<int32_t> order = ReverseCuthillMcKee(g.xadj(), g.adjncy());
  const std::vector<int32_t> forward = {3, 0, 4, 1, 2};
  std::vector<int32_t> backward(forward.rbegin(), forward.rend());
  EXPECT_TRUE(order == forward || order == backward);
  // Disconnected and isolated vertices: still a permutation.
  TaskGraph d = Disconnected();
  std::vector<int32_t> perm = ReverseCuthillMcKee(d.xadj(), d.adjncy());
  std::sort(perm.begin(), perm.end());
  std::vector<int32_t> ids(d.num_tasks());
  std::iota(ids.begin(), ids.end(), 0);
  EXPECT_EQ(perm, ids);
}

// An iteration limit L: the L most central starts, whatever the clock and the
// thread count.
TEST(MahdTest, EmahdIterationLimitCountsStarts) {
  const TaskGraph graph = Generate("stencil3d-7", {8, 8, 8});
  const Allocation allocation = *Allocation::WholeMachine(Torus({8, 8, 8}));
  MapperOptions options;
  options.iteration_limit = 5;
  const StopCondition stop(absl::Now() + absl::Seconds(600));
  std::vector<std::vector<SlotId>> answers;
  for (int threads : {1, 2}) {
    tbb::task_arena arena(threads);
    arena.execute([&] {
      auto out = (*BuiltinMappers().Create("emahd"))->Map({graph, allocation, options, stop});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ(FindStatistic(out->stats, "starts"), 5);
      EXPECT_EQ(FindStatistic(out->stats, "starts_completed"), 5);
      answers.push_back(out->slot_of_task);
    });
  }
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0], answers[1]);
}

}  // namespace
}  // namespace hopmap
