// The report and the request survive the trip through hopmap.v1 messages.
#include "proto/convert/convert.h"

#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/solve/measure.h"
#include "core/solve/solve.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/mappers/search_test_util.h"

namespace hopmap {
namespace {

using ::hopmap::testing::Generate;
using ::hopmap::testing::WholeTorus;

void ExpectSameCandidates(const std::vector<Candidate>& a, const std::vector<Candidate>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].algorithm, b[i].algorithm);
    EXPECT_EQ(a[i].hop_bytes, b[i].hop_bytes);
    EXPECT_EQ(a[i].max_link_load, b[i].max_link_load);
    EXPECT_EQ(a[i].seconds, b[i].seconds);
    EXPECT_EQ(a[i].error, b[i].error);
    EXPECT_EQ(a[i].stats, b[i].stats);
  }
}

// Every field ReportFromProto promises (link loads: the summary only).
void ExpectSameReport(const MappingReport& a, const MappingReport& b) {
  EXPECT_EQ(a.tasks, b.tasks);
  EXPECT_EQ(a.slots, b.slots);
  EXPECT_EQ(a.machine, b.machine);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.cores_per_node, b.cores_per_node);
  EXPECT_EQ(a.algorithm, b.algorithm);
  EXPECT_EQ(a.slot_of_task, b.slot_of_task);
  EXPECT_EQ(a.node_of_task, b.node_of_task);
  EXPECT_EQ(a.core_of_task, b.core_of_task);
  EXPECT_EQ(a.hop_bytes, b.hop_bytes);
  EXPECT_EQ(a.total_bytes, b.total_bytes);
  EXPECT_EQ(a.self_bytes, b.self_bytes);
  EXPECT_EQ(a.avg_hops_per_byte, b.avg_hops_per_byte);
  EXPECT_EQ(a.max_dilation, b.max_dilation);
  EXPECT_EQ(a.routing, b.routing);
  EXPECT_EQ(a.link_loads.available(), b.link_loads.available());
  EXPECT_EQ(a.link_loads.max_load, b.link_loads.max_load);
  EXPECT_EQ(a.link_loads.average_load, b.link_loads.average_load);
  EXPECT_EQ(a.link_loads.links_used, b.link_loads.links_used);
  EXPECT_EQ(a.link_loads_skipped, b.link_loads_skipped);
  EXPECT_EQ(a.exchange_seconds, b.exchange_seconds);
  EXPECT_EQ(a.baseline_exchange_seconds, b.baseline_exchange_seconds);
  ASSERT_EQ(a.busiest_links.size(), b.busiest_links.size());
  for (size_t i = 0; i < a.busiest_links.size(); ++i) {
    EXPECT_EQ(a.busiest_links[i].link, b.busiest_links[i].link);
    EXPECT_EQ(a.busiest_links[i].bytes, b.busiest_links[i].bytes);
  }
  EXPECT_EQ(a.lower_bound.value, b.lower_bound.value);
  EXPECT_EQ(a.lower_bound.method, b.lower_bound.method);
  EXPECT_EQ(a.gap, b.gap);
  EXPECT_EQ(a.baseline_hop_bytes, b.baseline_hop_bytes);
  EXPECT_EQ(a.improvement, b.improvement);
  EXPECT_EQ(a.solve_seconds, b.solve_seconds);
  EXPECT_EQ(a.time_limit_seconds, b.time_limit_seconds);
  ExpectSameCandidates(a.candidates, b.candidates);
  EXPECT_EQ(a.stats, b.stats);
  ASSERT_EQ(a.balance.has_value(), b.balance.has_value());
  if (!a.balance.has_value()) return;
  const LoadBalanceReport& x = *a.balance;
  const LoadBalanceReport& y = *b.balance;
  EXPECT_EQ(x.imbalance, y.imbalance);
  EXPECT_EQ(x.total_load, y.total_load);
  EXPECT_EQ(x.avg_load, y.avg_load);
  EXPECT_EQ(x.max_load, y.max_load);
  EXPECT_EQ(x.requested_cap, y.requested_cap);
  EXPECT_EQ(x.load_cap, y.load_cap);
  EXPECT_EQ(x.balanced, y.balanced);
  EXPECT_EQ(x.note, y.note);
  EXPECT_EQ(x.load_of_slot, y.load_of_slot);
  EXPECT_EQ(x.has_current, y.has_current);
  ASSERT_EQ(x.moves.size(), y.moves.size());
  for (size_t i = 0; i < x.moves.size(); ++i) {
    EXPECT_EQ(x.moves[i].task, y.moves[i].task);
    EXPECT_EQ(x.moves[i].from, y.moves[i].from);
    EXPECT_EQ(x.moves[i].to, y.moves[i].to);
  }
  EXPECT_EQ(x.migrated_objects, y.migrated_objects);
  EXPECT_EQ(x.migrated_bytes, y.migrated_bytes);
  EXPECT_EQ(x.migration_cost, y.migration_cost);
  EXPECT_EQ(x.current_hop_bytes, y.current_hop_bytes);
  EXPECT_EQ(x.current_max_load, y.current_max_load);
}

MappingReport RoundTrip(const MappingReport& report) {
  v1::MapReply reply;
  ReportToProto(report, &reply);
  // Through the wire format, not only the in-memory message.
  v1::MapReply parsed;
  EXPECT_TRUE(parsed.ParseFromString(reply.SerializeAsString()));
  return ReportFromProto(parsed);
}

TEST(ConvertTest, MappingReportRoundTrip) {
  const TaskGraph graph = Generate("stencil2d-5", {8, 8});
  const Allocation allocation = WholeTorus({4, 4}, 4);
  SolveRequest request;
  request.graph = &graph;
  request.allocation = &allocation;
  request.options.iteration_limit = 3;
  request.options.threads = 1;
  request.options.time_limit_seconds = 60;
  absl::StatusOr<MappingReport> report = Solve(request);  // auto: many candidates
  ASSERT_TRUE(report.ok()) << report.status();
  AddBusiestLinks(allocation, 3, *report);
  ASSERT_GT(report->candidates.size(), 5u);
  ASSERT_FALSE(report->busiest_links.empty());
  ASSERT_TRUE(report->exchange_seconds.has_value());
  ASSERT_TRUE(report->baseline_exchange_seconds.has_value());
  ExpectSameReport(*report, RoundTrip(*report));
}

TEST(ConvertTest, BalancedReportRoundTripWithMovesAndStatistics) {
  const TaskGraph graph = Generate("stencil2d-5", {8, 8});
  const Allocation allocation = WholeTorus({4, 4}, 1);
  SolveRequest request;
  request.graph = &graph;
  request.allocation = &allocation;
  request.algorithm = "refine-lb";
  request.options.threads = 1;
  request.options.time_limit_seconds = 60;
  request.balance.emplace();
  request.balance->loads.resize(64);
  for (size_t t = 0; t < 64; ++t) request.balance->loads[t] = 1.0 + static_cast<double>(t % 5);
  request.balance->current_slot.assign(64, 0);  // everything on slot 0: moves
  for (size_t t = 32; t < 64; ++t) request.balance->current_slot[t] = 1;
  request.balance->state_bytes.assign(64, 100);
  request.balance->options.migration_cost = 0.5;
  absl::StatusOr<MappingReport> report = Solve(request);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->balance.has_value());
  ASSERT_FALSE(report->balance->moves.empty());
  // Statistics travel too, whoever made them.
  report->stats = {{"passes", 3}, {"parts_seconds", 0.125}};
  report->candidates.front().stats = report->stats;
  ExpectSameReport(*report, RoundTrip(*report));
}

TEST(ConvertTest, SolveRequestRoundTrip) {
  SolveRequest request;
  request.algorithm = "partition";
  request.options.seed = 77;
  request.options.iteration_limit = 9;
  request.options.threads = 2;
  request.options.time_limit_seconds = 1.5;
  request.options.routing = Routing::kAdaptive;
  request.balance.emplace();
  request.balance->loads = {1, 2, 3};
  request.balance->current_slot = {0, 1, 1};
  request.balance->state_bytes = {10, 20, 30};
  request.balance->background_load = {0.5, 0};
  const uint8_t fixed[] = {0, 1, 0};
  request.balance->set_fixed(fixed);
  request.balance->options.imbalance = 0.1;
  request.balance->options.max_migrations = 2;
  request.balance->options.max_migration_bytes = 25;
  request.balance->options.migration_cost = 0.25;
  v1::MapRequest message;
  SolveRequestToProto(request, &message);
  absl::StatusOr<SolveRequest> back = SolveRequestFromProto(message);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->algorithm, request.algorithm);
  EXPECT_EQ(back->options.seed, 77u);
  EXPECT_EQ(back->options.iteration_limit, 9);
  EXPECT_EQ(back->options.threads, 2);
  EXPECT_EQ(back->options.time_limit_seconds, 1.5);
  EXPECT_EQ(back->options.routing, Routing::kAdaptive);
  EXPECT_EQ(back->options.objective, Objective::kHopBytes);
  EXPECT_TRUE(back->initial.empty());
  ASSERT_TRUE(back->balance.has_value());
  EXPECT_EQ(back->balance->loads, request.balance->loads);
  EXPECT_EQ(back->balance->current_slot, request.balance->current_slot);
  EXPECT_EQ(back->balance->state_bytes, request.balance->state_bytes);
  EXPECT_EQ(back->balance->background_load, request.balance->background_load);
  ASSERT_EQ(back->balance->num_fixed, 3u);
  EXPECT_TRUE(back->balance->fixed[1]);
  EXPECT_FALSE(back->balance->fixed[2]);
  EXPECT_EQ(back->balance->options.imbalance, 0.1);
  EXPECT_EQ(back->balance->options.max_migrations, 2);
  EXPECT_EQ(back->balance->options.max_migration_bytes, 25);
  EXPECT_EQ(back->balance->options.migration_cost, 0.25);
  EXPECT_EQ(back->keep_blocks, 1);  // unset on the wire: no blocks

  // keep_blocks travels (0 on the wire, an older client's, is 1).
  SolveRequest blocks;
  blocks.keep_blocks = 4;
  v1::MapRequest blocks_message;
  SolveRequestToProto(blocks, &blocks_message);
  EXPECT_EQ(blocks_message.keep_blocks(), 4);
  EXPECT_EQ(SolveRequestFromProto(blocks_message)->keep_blocks, 4);
  blocks_message.clear_keep_blocks();
  EXPECT_EQ(SolveRequestFromProto(blocks_message)->keep_blocks, 1);

  // A bad field is named.
  message.set_objective("fastest");
  EXPECT_THAT(std::string(SolveRequestFromProto(message).status().message()),
              ::testing::StartsWith("objective: "));
  message.set_objective("");
  message.set_threads(-1);
  EXPECT_THAT(std::string(SolveRequestFromProto(message).status().message()),
              ::testing::StartsWith("threads: "));
}

TEST(ConvertTest, EvaluateRequestRoundTrip) {
  EvaluateRequest request;
  request.slot_of_task = {3, 0, 2, 1};
  request.routing = Routing::kAdaptive;
  request.busiest_links = 7;
  request.threads = 3;  // the daemon's to choose: not sent
  v1::EvaluateRequest message;
  EvaluateRequestToProto(request, &message);
  EXPECT_FALSE(message.has_balance());
  absl::StatusOr<EvaluateRequest> back = EvaluateRequestFromProto(message);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->slot_of_task, request.slot_of_task);
  EXPECT_EQ(back->routing, Routing::kAdaptive);
  EXPECT_EQ(back->busiest_links, 7);
  EXPECT_EQ(back->threads, 0);
  EXPECT_FALSE(back->balance.has_value());

  // With the balanced problem: the balance travels, unset limits stay unset.
  request.routing = Routing::kDimensionOrder;
  request.balance.emplace();
  request.balance->loads = {1, 2, 3, 4};
  request.balance->current_slot = {0, 0, 1, 1};
  request.balance->options.imbalance = 0.2;
  request.balance->options.migration_cost = 0.5;
  message.Clear();
  EvaluateRequestToProto(request, &message);
  EXPECT_FALSE(message.balance().has_max_migrations());
  back = EvaluateRequestFromProto(message);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->routing, Routing::kDimensionOrder);
  ASSERT_TRUE(back->balance.has_value());
  EXPECT_EQ(back->balance->loads, request.balance->loads);
  EXPECT_EQ(back->balance->current_slot, request.balance->current_slot);
  EXPECT_EQ(back->balance->options.imbalance, 0.2);
  EXPECT_EQ(back->balance->options.max_migrations, -1);
  EXPECT_EQ(back->balance->options.migration_cost, 0.5);

  // A bad field is named.
  message.set_routing("shortest");
  EXPECT_THAT(std::string(EvaluateRequestFromProto(message).status().message()),
              ::testing::StartsWith("routing: "));
}

TEST(ConvertTest, ProgressRoundTrip) {
  Progress progress;
  progress.elapsed_seconds = 1.25;
  progress.candidate_finished = "greedy";
  progress.candidate_hop_bytes = 1234;
  progress.best_algorithm = "axis-order(ZYX)";
  progress.best_hop_bytes = 1000;
  v1::Progress message;
  ProgressToProto(progress, &message);
  EXPECT_EQ(message.best_hop_bytes(), 1000);
  const Progress back = ProgressFromProto(message);
  EXPECT_EQ(back.elapsed_seconds, 1.25);
  EXPECT_EQ(back.candidate_finished, "greedy");
  EXPECT_EQ(back.candidate_hop_bytes, 1234);
  EXPECT_EQ(back.best_algorithm, "axis-order(ZYX)");
  EXPECT_EQ(back.best_hop_bytes, 1000);
}

TEST(ConvertTest, SimulateRequestRoundTrip) {
  SimulateRequest request;
  request.mappings = {{"greedy.perm", {3, 2, 1, 0}}, {"", {0, 2, 1, 3}}};
  for (const char* text : {"graph", "allgather:1024", "alltoall:65536"}) {
    request.patterns.push_back(*ParsePattern(text));
  }
  request.iterations = 5;
  request.threads = 3;  // the daemon's to choose: not sent
  v1::SimulateRequest message;
  SimulateRequestToProto(request, &message);
  EXPECT_EQ(message.patterns(1), "allgather:1024");
  absl::StatusOr<SimulateRequest> back = SimulateRequestFromProto(message);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->mappings.size(), 2u);
  EXPECT_EQ(back->mappings[0].name, "greedy.perm");
  EXPECT_EQ(back->mappings[0].slot_of_task, request.mappings[0].slot_of_task);
  EXPECT_EQ(back->mappings[1].name, "mapping 2");  // an unnamed one is numbered
  EXPECT_EQ(back->mappings[1].slot_of_task, request.mappings[1].slot_of_task);
  ASSERT_EQ(back->patterns.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back->patterns[i].kind, request.patterns[i].kind);
    EXPECT_EQ(back->patterns[i].block_bytes, request.patterns[i].block_bytes);
  }
  EXPECT_EQ(back->iterations, 5);
  EXPECT_EQ(back->threads, 0);

  // A bad field is named.
  message.set_patterns(2, "scatter:8");
  EXPECT_THAT(std::string(SimulateRequestFromProto(message).status().message()),
              ::testing::StartsWith("patterns[2]: "));
}

TEST(ConvertTest, AnalyzeRequestRoundTrip) {
  const TaskGraph graph = Generate("stencil2d-5", {4, 4});
  AnalyzerOptions options;
  options.weight_threshold = 0.35;
  options.ignore_hubs = false;
  v1::AnalyzeRequest message;
  AnalyzeRequestToProto(graph, options, &message);
  EXPECT_TRUE(message.keep_hubs());
  const AnalyzerOptions back = AnalyzerOptionsFromProto(message);
  EXPECT_EQ(back.weight_threshold, 0.35);
  EXPECT_FALSE(back.ignore_hubs);
  absl::StatusOr<TaskGraph> graph_back = TaskGraphFromProto(message.graph());
  ASSERT_TRUE(graph_back.ok()) << graph_back.status();
  EXPECT_EQ(graph_back->xadj(), graph.xadj());
  EXPECT_EQ(graph_back->adjncy(), graph.adjncy());
  EXPECT_EQ(graph_back->adjwgt(), graph.adjwgt());

  // An unset threshold reads as the default.
  message.clear_weight_threshold();
  message.clear_keep_hubs();
  EXPECT_EQ(AnalyzerOptionsFromProto(message).weight_threshold, AnalyzerOptions().weight_threshold);
  EXPECT_TRUE(AnalyzerOptionsFromProto(message).ignore_hubs);

  // A threshold of 0 (keep every edge) is the user's, not the default: the daemon
  // answers as the CLI does locally.
  options.weight_threshold = 0;
  AnalyzeRequestToProto(graph, options, &message);
  EXPECT_EQ(AnalyzerOptionsFromProto(message).weight_threshold, 0);
}

TEST(GivenConvertTest, MachineByCatalogNameSpecOrFileText) {
  v1::MapRequest map;
  MachineRefToProto(MachineRefFromText("kraken"), &map);
  EXPECT_EQ(map.machine_name(), "kraken");
  EXPECT_FALSE(map.has_machine());
  MachineRefToProto(MachineRefFromText("torus:4x4:cores=2"), &map);
  EXPECT_TRUE(map.machine_name().empty());
  EXPECT_EQ(map.machine().spec(), "torus:4x4:cores=2");

  absl::StatusOr<MachineRef> slurm = MachineFileRef("slurm", "SwitchName=s0 Nodes=n[0-3]\n", 4);
  ASSERT_TRUE(slurm.ok()) << slurm.status();
  v1::EvaluateRequest evaluate;
  MachineRefToProto(*slurm, &evaluate);
  EXPECT_EQ(evaluate.machine().slurm_topology_conf(), "SwitchName=s0 Nodes=n[0-3]\n");
  EXPECT_EQ(evaluate.machine().cores_per_node(), 4);
  v1::SimulateRequest simulate;
  MachineRefToProto(*MachineFileRef("graph", "text", 1), &simulate);
  EXPECT_EQ(simulate.machine().switch_graph_file(), "text");
  MachineRefToProto(*MachineFileRef("matrix", "text", 1), &simulate);
  EXPECT_EQ(simulate.machine().distance_matrix_file(), "text");
  EXPECT_EQ(MachineFileRef("torus", "4x4", 1).status().message(),
            "machine file kind 'torus': use slurm, graph or matrix");
}

TEST(GivenConvertTest, AllocationAndCsrArraysAsGiven) {
  absl::StatusOr<std::shared_ptr<Machine>> torus =
      MachineFromProto(MachineRefFromText("torus:4x4").machine.value());
  ASSERT_TRUE(torus.ok()) << torus.status();
  const std::vector<NodeId> ids = {5, 2};
  v1::AllocationSpec allocation;
  AllocationSpecToProto(ids, "", 2, &allocation);
  EXPECT_EQ(allocation.cores_per_node(), 2);
  EXPECT_EQ(*AllocationNodesFromProto(allocation, **torus), ids);
  AllocationSpecToProto({}, "3-4", 0, &allocation);
  EXPECT_EQ(allocation.node_ids_size(), 0);
  EXPECT_EQ(*AllocationNodesFromProto(allocation, **torus), (std::vector<NodeId>{3, 4}));
  // Not checked here: the daemon names the bad entry.
  AllocationSpecToProto(std::vector<NodeId>{99}, "", 0, &allocation);
  EXPECT_THAT(std::string(AllocationNodesFromProto(allocation, **torus).status().message()),
              ::testing::StartsWith("allocation.node_ids[0]: "));

  // A path of three tasks; no weights: 1 byte per entry.
  const std::vector<EdgeIndex> xadj = {0, 1, 3, 4};
  const std::vector<TaskId> adjncy = {1, 0, 2, 1};
  v1::TaskGraph graph;
  CsrArraysToProto(xadj, adjncy, {}, &graph);
  absl::StatusOr<TaskGraph> read = TaskGraphFromProto(graph);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->num_tasks(), 3);
  EXPECT_EQ(read->adjwgt(), (std::vector<Bytes>{1, 1, 1, 1}));
  const std::vector<Bytes> adjwgt = {7, 7, 9, 9};
  CsrArraysToProto(xadj, adjncy, adjwgt, &graph);
  read = TaskGraphFromProto(graph);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->adjwgt(), adjwgt);
  const std::vector<EdgeIndex> bad_xadj = {0, 1, 3, 9};
  CsrArraysToProto(bad_xadj, adjncy, {}, &graph);
  EXPECT_EQ(TaskGraphFromProto(graph).status().message(),
            "graph: xadj[n] = 9 but adjncy has 4 entries");
}

TEST(MachineConvertTest, SummaryOfACatalogEntry) {
  absl::StatusOr<std::shared_ptr<Machine>> torus =
      MachineFromProto(MachineRefFromText("torus:4x4x2:cores=8").machine.value());
  ASSERT_TRUE(torus.ok()) << torus.status();
  const v1::MachineSummary summary =
      MachineSummaryToProto("lab", "a small torus", "stored", **torus);
  EXPECT_EQ(summary.name(), "lab");
  EXPECT_EQ(summary.description(), "a small torus");
  EXPECT_EQ(summary.origin(), "stored");
  EXPECT_EQ(summary.spec(), (*torus)->Spec());
  EXPECT_EQ(summary.num_nodes(), 32);
  EXPECT_EQ(summary.cores_per_node(), 8);
}

}  // namespace
}  // namespace hopmap

namespace hopmap {
namespace {

TEST(MachineConvertTest, LinkParametersOfAStructuredMachineAreReadAndChecked) {
  v1::Machine torus;
  torus.mutable_torus()->add_dims(4);
  torus.mutable_torus()->add_dims(4);
  torus.set_link_bandwidth(2e9);
  torus.set_link_latency(5e-7);
  absl::StatusOr<std::shared_ptr<Machine>> machine = MachineFromProto(torus);
  ASSERT_TRUE(machine.ok()) << machine.status();
  EXPECT_EQ((*machine)->link_bandwidth(), 2e9);
  EXPECT_EQ((*machine)->link_latency(), 5e-7);
  torus.set_link_bandwidth(0);
  EXPECT_EQ(MachineFromProto(torus).status().message(),
            "machine.link_bandwidth: must be from 1000 to 1e+14 bytes/s, got 0");
  torus.clear_link_bandwidth();
  torus.set_link_latency(2);
  EXPECT_EQ(MachineFromProto(torus).status().message(),
            "machine.link_latency: must be from 0 to 1 seconds, got 2");

  v1::Machine matrix;
  matrix.mutable_distance_matrix()->set_num_nodes(2);
  for (int h : {0, 1, 1, 0}) matrix.mutable_distance_matrix()->add_hops(h);
  matrix.set_link_latency(1e-6);
  EXPECT_EQ(MachineFromProto(matrix).status().message(),
            "machine.link_latency: this machine has no links (an explicit hop matrix)");
}

// A file kind's spec names a path on the client's machine, which a request cannot
// carry; a hierarchy keeps one slot per PE whatever cores_per_node says.
TEST(MachineConvertTest, FileSpecsAndSlotsOfAHierarchyAreRefused) {
  for (const char* kind : {"slurm", "graph", "matrix"}) {
    v1::Machine file;
    file.set_spec(absl::StrCat(kind, ":/tmp/machine.txt"));
    EXPECT_EQ(MachineFromProto(file).status().message(),
              absl::StrCat("machine.spec: file machines (", kind,
                           ":) cannot be named by path in a request; send switch_graph, "
                           "distance_matrix or slurm_topology_conf"));
  }
  v1::Machine hierarchy;
  hierarchy.set_spec("hierarchy:4x2:distances=1,10");
  hierarchy.set_cores_per_node(1);
  absl::StatusOr<std::shared_ptr<Machine>> machine = MachineFromProto(hierarchy);
  ASSERT_TRUE(machine.ok()) << machine.status();
  EXPECT_EQ((*machine)->cores_per_node(), 1);
  hierarchy.set_cores_per_node(2);
  EXPECT_EQ(MachineFromProto(hierarchy).status().message(),
            "machine.cores_per_node: a hierarchy has one slot per PE (its lowest level is the "
            "cores)");
  v1::Machine torus;
  torus.set_spec("torus:4x2");
  torus.set_cores_per_node(2);
  machine = MachineFromProto(torus);
  ASSERT_TRUE(machine.ok()) << machine.status();
  EXPECT_EQ((*machine)->cores_per_node(), 2);
}

}  // namespace
}  // namespace hopmap
