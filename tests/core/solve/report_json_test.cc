
#include "core/solve/report_json.h"

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/graph/task_graph.h"
#include "core/io/mapping_files.h"
#include "core/solve/measure.h"
#include "core/solve/report.h"
#include "core/solve/solve_mapping.h"
#include "core/topology/allocation.h"
#include "core/topology/distance_matrix.h"
#include "core/topology/torus.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/temp_path.h"

namespace hopmap {
namespace {

// The CLI's way: busiest links added to the report, then the JSON.
nlohmann::ordered_json ToJson(MappingReport report, const Allocation& allocation,
                              int busiest_links = 0) {
  AddBusiestLinks(allocation, busiest_links, report);
  return ReportToJson(report);
}

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Json = nlohmann::ordered_json;

// A ring of 4 nodes (torus:4): hops 0-1, 1-2, 2-3, 3-0 are 1; 0-2 and 1-3 are 2.
std::shared_ptr<const Machine> Ring4() {
  absl::StatusOr<TorusMachine> m = TorusMachine::Create({4}, {true});
  EXPECT_TRUE(m.ok()) << m.status();
  return std::make_shared<TorusMachine>(*std::move(m));
}

// Nodes 2, 0, 3 in that order, 2 cores: slots 0,1 -> node 2; 2,3 -> node 0;
// 4,5 -> node 3. So a slot's node is not its position.
Allocation RingAllocation() {
  absl::StatusOr<Allocation> a = Allocation::Create(Ring4(), {2, 0, 3}, 2);
  EXPECT_TRUE(a.ok()) << a.status();
  return *std::move(a);
}

// 4 tasks: w(0,1) = 10, w(1,2) = 4, w(2,3) = 6, w(0,3) = 2 (22 bytes), and 5
// bytes task 3 sent to itself.
TaskGraph SmallGraph() {
  TaskGraphBuilder b(4);
  EXPECT_TRUE(b.AddTraffic(0, 1, 10).ok());
  EXPECT_TRUE(b.AddTraffic(2, 1, 4).ok());
  EXPECT_TRUE(b.AddTraffic(2, 3, 6).ok());
  EXPECT_TRUE(b.AddTraffic(0, 3, 2).ok());
  EXPECT_TRUE(b.AddTraffic(3, 3, 5).ok());
  absl::StatusOr<TaskGraph> g = std::move(b).Build();
  EXPECT_TRUE(g.ok()) << g.status();
  return *std::move(g);
}

MapperOptions OneThread() {
  MapperOptions options;
  options.threads = 1;
  options.time_limit_seconds = 30;
  return options;
}

// Lower bound of SmallGraph on RingAllocation (degree bound): the allocation's
// balls are {1, 3, 3} (node 3 sees both others at 1 hop), so with 2 cores one
// neighbour fits at 0 hops and 5 within 1. Per task, heaviest first:
// t0 {10 -> 0, 2 -> 1} = 2, t1 {10, 4} = 4, t2 {6, 4} = 4, t3 {6, 2} = 2; (12 + 1) / 2 = 6.
constexpr int64_t kRingLowerBound = 6;
// In-order (slots 0..3): nodes 2, 2, 0, 0; w(1,2) = 4 and w(0,3) = 2 go 2 hops.
constexpr int64_t kRingBaseline = 12;

TEST(ReportToJsonTest, SolveInOrderHasEveryContractField) {
  const TaskGraph graph = SmallGraph();
  const Allocation allocation = RingAllocation();
  absl::StatusOr<MappingReport> report = SolveMapping(graph, allocation, "in-order", OneThread());
  ASSERT_TRUE(report.ok()) << report.status();
  const Json j = ToJson(*report, allocation);

  for (const char* key : {"tasks",
                          "slots",
                          "machine",
                          "nodes",
                          "cores_per_node",
                          "algorithm",
                          "hop_bytes",
                          "total_bytes",
                          "self_bytes",
                          "avg_hops_per_byte",
                          "lower_bound",
                          "lower_bound_method",
                          "gap",
                          "baseline_hop_bytes",
                          "improvement",
                          "max_dilation",
                          "routing",
                          "max_link_load",
                          "avg_link_load",
                          "links_used",
                          "exchange_seconds",
                          "baseline_exchange_seconds",
                          "solve_seconds",
                          "candidates",
                          "slot_of_task",
                          "node_of_task",
                          "core_of_task"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_FALSE(j.contains("busiest_links"));

  EXPECT_EQ(j["tasks"], 4);
  EXPECT_EQ(j["slots"], 6);
  EXPECT_EQ(j["machine"], "torus:4:cores=1");
  EXPECT_EQ(j["nodes"], 3);
  EXPECT_EQ(j["cores_per_node"], 2);
  EXPECT_EQ(j["algorithm"], "in-order");
  EXPECT_EQ(j["slot_of_task"], Json::parse("[0, 1, 2, 3]"));
  EXPECT_EQ(j["node_of_task"], Json::parse("[2, 2, 0, 0]"));
  EXPECT_EQ(j["core_of_task"], Json::parse("[0, 1, 0, 1]"));
  EXPECT_EQ(j["hop_bytes"], kRingBaseline);
  EXPECT_EQ(j["total_bytes"], 22);
  EXPECT_EQ(j["self_bytes"], 5);
  EXPECT_THAT(j["avg_hops_per_byte"].get<double>(), DoubleNear(12.0 / 22.0, 1e-12));
  EXPECT_EQ(j["lower_bound"], kRingLowerBound);
  EXPECT_EQ(j["lower_bound_method"], "degree");
  EXPECT_THAT(j["gap"].get<double>(), DoubleNear(2.0, 1e-12));
  EXPECT_EQ(j["baseline_hop_bytes"], kRingBaseline);
  EXPECT_EQ(j["improvement"].get<double>(), 0.0);
  EXPECT_EQ(j["max_dilation"], 2);
  EXPECT_EQ(j["routing"], "dimension-order");
  // w(1,2) = 4 and w(0,3) = 2 between nodes 2 and 0, exactly half way round: both
  // directions go the positive way, 2->3->0 and 0->1->2, 2 + 1 bytes on each of 4 links.
  EXPECT_EQ(j["max_link_load"].get<double>(), 3.0);
  EXPECT_EQ(j["avg_link_load"].get<double>(), 3.0);
  EXPECT_EQ(j["links_used"], 4);
  // The slowest message crosses 2 links of 100 ns (x 13.01) carrying 3 bytes at 0.97 x
  // 12.5 GB/s (core/metrics/exchange_time.h); the baseline is this mapping.
  EXPECT_DOUBLE_EQ(j["exchange_seconds"].get<double>(), 13.01 * 2 * 100e-9 + 3 / (0.97 * 12.5e9));
  EXPECT_EQ(j["baseline_exchange_seconds"], j["exchange_seconds"]);
  EXPECT_GE(j["solve_seconds"].get<double>(), 0.0);
  EXPECT_EQ(j["solve_seconds"].get<double>(), report->solve_seconds);

  ASSERT_TRUE(j["candidates"].is_array());
  ASSERT_EQ(j["candidates"].size(), 1u);
  const Json& c = j["candidates"][0];
  EXPECT_EQ(c["algorithm"], "in-order");
  EXPECT_EQ(c["hop_bytes"], kRingBaseline);
  EXPECT_EQ(c["seconds"].get<double>(), report->candidates[0].seconds);
  EXPECT_FALSE(c.contains("error"));
}

TEST(ReportToJsonTest, SolveAutoListsEveryCandidate) {
  const TaskGraph graph = SmallGraph();
  const Allocation allocation = RingAllocation();
  absl::StatusOr<MappingReport> report = SolveMapping(graph, allocation, "auto", OneThread());
  ASSERT_TRUE(report.ok()) << report.status();
  const Json j = ToJson(*report, allocation);
  // in-order: 12. axis-order orders the nodes by coordinate (0, 2, 3): TX puts
  // tasks 0,1 on node 0 and 2,3 on node 2 (12); XT is round-robin over them (30).
  // round-robin over positions: nodes 2, 0, 3, 2 -> 10*2 + 4*1 + 6*1 = 30.
  // The general constructions and refinement that follow do better; the winner is
  // the first candidate with the fewest hop-bytes.
  ASSERT_EQ(j["candidates"].size(), report->candidates.size());
  ASSERT_GE(j["candidates"].size(), 3u);
  const int64_t best = j["hop_bytes"].get<int64_t>();
  EXPECT_LE(best, 12);
  std::string first_best;
  for (const auto& c : j["candidates"]) {
    if (c.contains("error")) continue;
    EXPECT_GE(c["hop_bytes"].get<int64_t>(), best) << c.dump();
    if (first_best.empty() && c["hop_bytes"].get<int64_t>() == best) {
      first_best = c["algorithm"].get<std::string>();
    }
  }
  EXPECT_EQ(j["algorithm"], first_best);
  EXPECT_EQ(j["candidates"][0]["algorithm"], "in-order");
  EXPECT_EQ(j["candidates"][0]["hop_bytes"], 12);
  EXPECT_EQ(j["candidates"][1]["algorithm"], "axis-order(TX)");
  EXPECT_EQ(j["candidates"][1]["hop_bytes"], 12);
  EXPECT_EQ(j["candidates"][2]["algorithm"], "round-robin");
  EXPECT_EQ(j["candidates"][2]["hop_bytes"], 30);
  for (size_t i = 0; i < report->candidates.size(); ++i) {
    EXPECT_EQ(j["candidates"][i]["seconds"].get<double>(), report->candidates[i].seconds);
  }
}

TEST(ReportToJsonTest, EvaluateGivenMappingNodesAreMachineIds) {
  const TaskGraph graph = SmallGraph();
  const Allocation allocation = RingAllocation();
  // Tasks 0,1 on node 2 (slots 0, 1), tasks 2,3 on node 3 (slots 4, 5):
  // w(1,2) = 4 and w(0,3) = 2 go 1 hop: 6 hop-bytes, the lower bound.
  absl::StatusOr<MappingReport> report =
      EvaluateMapping(graph, allocation, {0, 1, 4, 5}, Routing::kDimensionOrder, 1);
  ASSERT_TRUE(report.ok()) << report.status();
  const Json j = ToJson(*report, allocation);
  EXPECT_EQ(j["algorithm"], "given");
  EXPECT_EQ(j["slot_of_task"], Json::parse("[0, 1, 4, 5]"));
  EXPECT_EQ(j["node_of_task"], Json::parse("[2, 2, 3, 3]"));
  EXPECT_EQ(j["core_of_task"], Json::parse("[0, 1, 0, 1]"));
  EXPECT_EQ(j["hop_bytes"], 6);
  EXPECT_THAT(j["avg_hops_per_byte"].get<double>(), DoubleNear(6.0 / 22.0, 1e-12));
  EXPECT_EQ(j["lower_bound"], kRingLowerBound);
  EXPECT_EQ(j["gap"].get<double>(), 1.0);
  EXPECT_EQ(j["baseline_hop_bytes"], kRingBaseline);
  EXPECT_THAT(j["improvement"].get<double>(), DoubleNear(0.5, 1e-12));
  EXPECT_EQ(j["max_dilation"], 1);
  // 2->3 and 3->2 each carry 2 + 1 bytes.
  EXPECT_EQ(j["max_link_load"].get<double>(), 3.0);
  EXPECT_EQ(j["links_used"], 2);
  EXPECT_EQ(j["solve_seconds"].get<double>(), 0.0);
  EXPECT_EQ(j["candidates"], Json::array());
}

TEST(ReportToJsonTest, BusiestLinksHeaviestFirst) {
  const TaskGraph graph = SmallGraph();
  const Allocation allocation = RingAllocation();
  // Tasks on nodes 2, 2, 0, 3. Link ids on the ring: node * 2 + {0: +, 1: -}.
  //   w(1,2) = 4, nodes 2 <-> 0, half way: 2 bytes on 2->3 (4), 3->0 (6) and on
  //   0->1 (0), 1->2 (2); w(2,3) = 6, nodes 0 <-> 3: 3 bytes on 0->3 (1) and 3->0 (6);
  //   w(0,3) = 2, nodes 2 <-> 3: 1 byte on 2->3 (4) and 3->2 (7).
  // Loads: link 6: 5, link 1: 3, link 4: 3, link 0: 2, link 2: 2, link 7: 1.
  absl::StatusOr<MappingReport> report =
      EvaluateMapping(graph, allocation, {0, 1, 2, 4}, Routing::kDimensionOrder, 1);
  ASSERT_TRUE(report.ok()) << report.status();
  const Json j = ToJson(*report, allocation, /*busiest_links=*/4);
  EXPECT_EQ(j["hop_bytes"], 16);
  EXPECT_EQ(j["max_dilation"], 2);
  EXPECT_THAT(j["gap"].get<double>(), DoubleNear(16.0 / 6.0, 1e-12));
  EXPECT_THAT(j["improvement"].get<double>(), DoubleNear(1.0 - 16.0 / 12.0, 1e-12));
  EXPECT_EQ(j["max_link_load"].get<double>(), 5.0);
  EXPECT_EQ(j["links_used"], 6);
  EXPECT_THAT(j["avg_link_load"].get<double>(), DoubleNear(16.0 / 6.0, 1e-12));
  EXPECT_EQ(j["busiest_links"], Json::parse(R"json([
      {"link": "(3)->(0)", "bytes": 5.0
},
      {"link": "(0)->(3)", "bytes": 3.0},
      {"link": "(2)->(3)", "bytes": 3.0},
      {"link": "(0)->(1)", "bytes": 2.0}])json"));

  // More links asked for than carry traffic: only the loaded ones, all 6.
  const Json all = ToJson(*report, allocation, /*busiest_links=*/100);
  ASSERT_EQ(all["busiest_links"].size(), 6u);
  EXPECT_EQ(all["busiest_links"][4]["link"], "(1)->(2)");
  EXPECT_EQ(all["busiest_links"][5]["link"], "(3)->(2)");
  EXPECT_EQ(all["busiest_links"][5]["bytes"].get<double>(), 1.0);
}

TEST(ReportToJsonTest, BusiestLinksAdaptiveTiesByLinkId) {
  const TaskGraph graph = SmallGraph();
  const Allocation allocation = RingAllocation();
  // As above, but w(1,2)'s half-way routes split over both ways round: 1 byte on
  // each of links 4, 6, 5, 3 (2->0) and 0, 2, 1, 7 (0->2). Plus 3 on links 1 and 6,
  // 1 on links 4 and 7: loads 1:4, 6:4, 4:2, 7:2, and 1 on 0, 2, 3, 5.
  absl::StatusOr<MappingReport> report =
      EvaluateMapping(graph, allocation, {0, 1, 2, 4}, Routing::kAdaptive, 1);
  ASSERT_TRUE(report.ok()) << report.status();
  const Json j = ToJson(*report, allocation, /*busiest_links=*/5);
  EXPECT_EQ(j["routing"], "adaptive");
  EXPECT_EQ(j["hop_bytes"], 16);
  EXPECT_EQ(j["max_link_load"].get<double>(), 4.0);
  EXPECT_EQ(j["links_used"], 8);
  EXPECT_EQ(j["avg_link_load"].get<double>(), 2.0);
  EXPECT_EQ(j["busiest_links"], Json::parse(R"json([
      {"link": "(0)->(3)", "bytes": 4.0
},
      {"link": "(3)->(0)", "bytes": 4.0},
      {"link": "(2)->(3)", "bytes": 2.0},
      {"link": "(3)->(2)", "bytes": 2.0},
      {"link": "(0)->(1)", "bytes": 1.0}])json"));
}

TEST(ReportToJsonTest, MatrixMachineHasNoLinkLoads) {
  absl::StatusOr<DistanceMatrixMachine> matrix =
      DistanceMatrixMachine::Create(3, {0, 1, 2, 1, 0, 1, 2, 1, 0});
  ASSERT_TRUE(matrix.ok()) << matrix.status();
  auto machine = std::make_shared<DistanceMatrixMachine>(*std::move(matrix));
  absl::StatusOr<Allocation> allocation = Allocation::Create(machine, {2, 0}, 1);
  ASSERT_TRUE(allocation.ok()) << allocation.status();
  TaskGraphBuilder b(2);
  ASSERT_TRUE(b.AddTraffic(0, 1, 7).ok());
  absl::StatusOr<TaskGraph> graph = std::move(b).Build();
  ASSERT_TRUE(graph.ok()) << graph.status();

  absl::StatusOr<MappingReport> report = SolveMapping(*graph, *allocation, "in-order", OneThread());
  ASSERT_TRUE(report.ok()) << report.status();
  const Json j = ToJson(*report, *allocation, /*busiest_links=*/3);
  EXPECT_EQ(j["machine"], "matrix:3");
  EXPECT_EQ(j["node_of_task"], Json::parse("[2, 0]"));
  EXPECT_EQ(j["core_of_task"], Json::parse("[0, 0]"));
  EXPECT_EQ(j["hop_bytes"], 14);
  // One core, the only other node 2 hops away: 7 * 2 per task, halved.
  EXPECT_EQ(j["lower_bound"], 14);
  EXPECT_EQ(j["gap"].get<double>(), 1.0);
  EXPECT_EQ(j["max_dilation"], 2);
  ASSERT_TRUE(j.contains("max_link_load"));
  EXPECT_TRUE(j["max_link_load"].is_null());
  EXPECT_TRUE(j["avg_link_load"].is_null());
  EXPECT_TRUE(j["links_used"].is_null());
  EXPECT_TRUE(j["exchange_seconds"].is_null());
  EXPECT_TRUE(j["baseline_exchange_seconds"].is_null());
  EXPECT_FALSE(j.contains("busiest_links"));
}

TEST(ReportToJsonTest, GapWhenTheLowerBoundIsZero) {
  absl::StatusOr<Allocation> allocation = Allocation::Create(Ring4(), {0, 1}, 2);
  ASSERT_TRUE(allocation.ok()) << allocation.status();
  TaskGraphBuilder b(2);
  ASSERT_TRUE(b.AddTraffic(0, 1, 5).ok());
  absl::StatusOr<TaskGraph> graph = std::move(b).Build();
  ASSERT_TRUE(graph.ok()) << graph.status();

  // Both tasks on node 0: no hop-bytes and a 0 bound: gap 1 (optimal).
  absl::StatusOr<MappingReport> together =
      EvaluateMapping(*graph, *allocation, {0, 1}, Routing::kDimensionOrder, 1);
  ASSERT_TRUE(together.ok()) << together.status();
  Json j = ToJson(*together, *allocation);
  EXPECT_EQ(j["hop_bytes"], 0);
  EXPECT_EQ(j["lower_bound"], 0);
  EXPECT_EQ(j["gap"].get<double>(), 1.0);
  EXPECT_EQ(j["avg_hops_per_byte"].get<double>(), 0.0);
  EXPECT_EQ(j["max_link_load"].get<double>(), 0.0);
  EXPECT_EQ(j["links_used"], 0);

  // Apart (nodes 0 and 1, 1 hop): 5 hop-bytes over a 0 bound: no gap.
  absl::StatusOr<MappingReport> apart =
      EvaluateMapping(*graph, *allocation, {0, 2}, Routing::kDimensionOrder, 1);
  ASSERT_TRUE(apart.ok()) << apart.status();
  j = ToJson(*apart, *allocation);
  EXPECT_EQ(j["hop_bytes"], 5);
  EXPECT_EQ(j["lower_bound"], 0);
  ASSERT_TRUE(j.contains("gap"));
  EXPECT_TRUE(j["gap"].is_null());
  EXPECT_EQ(j["node_of_task"], Json::parse("[0, 1]"));
  // Baseline is in-order (both on node 0): 0, so no improvement is claimed.
  EXPECT_EQ(j["baseline_hop_bytes"], 0);
  EXPECT_EQ(j["improvement"].get<double>(), 0.0);
}

TEST(ReportToJsonTest, FailedCandidateHasNullHopBytesAndError) {
  const Allocation allocation = RingAllocation();
  MappingReport report;
  report.tasks = 1;
  report.slots = 6;
  report.algorithm = "in-order";
  report.slot_of_task = {5};
  report.node_of_task = {3};  // the report is self-contained: nodes come with it
  report.core_of_task = {1};
  report.candidates.push_back({"in-order", 0, 0, 0.25, "", {{"passes", 3}}});
  report.candidates.push_back({"stack", 0, 0, 0.5, "needs a 3D torus", {}});
  const Json j = ToJson(report, allocation);
  EXPECT_EQ(j["node_of_task"], Json::parse("[3]"));
  EXPECT_EQ(j["core_of_task"], Json::parse("[1]"));
  EXPECT_EQ(j["candidates"][0], Json::parse(R"({"algorithm":"in-order","hop_bytes":0,
                                                "seconds":0.25,"stats":{"passes":3}})"));
  EXPECT_EQ(j["candidates"][1]["stats"], Json::object());
  const Json& failed = j["candidates"][1];
  EXPECT_EQ(failed["algorithm"], "stack");
  ASSERT_TRUE(failed.contains("hop_bytes"));
  EXPECT_TRUE(failed["hop_bytes"].is_null());
  EXPECT_EQ(failed["error"], "needs a 3D torus");
  EXPECT_EQ(failed["seconds"].get<double>(), 0.5);
  // No link loads in a hand-made report: null, like a matrix machine.
  EXPECT_TRUE(j["max_link_load"].is_null());
  EXPECT_TRUE(j["gap"].is_null());
}

// ---------------------------------------------------------------- ParseMapping

TEST(ParseMappingTest, JsonReportRoundTrip) {
  const TaskGraph graph = SmallGraph();
  const Allocation allocation = RingAllocation();
  absl::StatusOr<MappingReport> report =
      EvaluateMapping(graph, allocation, {5, 0, 2, 4}, Routing::kDimensionOrder, 1);
  ASSERT_TRUE(report.ok()) << report.status();
  const Json j = ToJson(*report, allocation, 2);
  for (const std::string& text : {j.dump(), j.dump(2), "\n  " + j.dump(4)}) {
    absl::StatusOr<std::vector<SlotId>> slots = ParseMapping(text, "report.json");
    ASSERT_TRUE(slots.ok()) << slots.status();
    EXPECT_THAT(*slots, ElementsAre(5, 0, 2, 4));
  }
  // Through a file too.
  const std::string path = hopmap::testing::TempPath("report_json_test_report.json");
  {
    std::ofstream out(path, std::ios::trunc);
    out << j.dump(2);
  }
  absl::StatusOr<std::vector<SlotId>> slots = ReadMappingFile(path, &allocation);
  ASSERT_TRUE(slots.ok()) << slots.status();
  EXPECT_THAT(*slots, ElementsAre(5, 0, 2, 4));
  // Made for another shape (as many slots, other nodes): its slots mean other
  // cores, so it is refused when the allocation is known.
  absl::StatusOr<Allocation> other = Allocation::Create(Ring4(), {0, 1}, 3);
  ASSERT_TRUE(other.ok()) << other.status();
  absl::StatusOr<std::vector<SlotId>> refused = ReadMappingFile(path, &*other);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("report_json_test_report.json: the mapping was made for "));
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("made for 3 nodes x 2 cores"));
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("not for this allocation's 2 nodes x 3 cores"));
}

}  // namespace
}  // namespace hopmap
