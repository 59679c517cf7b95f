#include "proto/convert/convert.h"

#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/balance/balancers.h"
#include "core/io/machine_files.h"
#include "core/io/machine_kinds.h"
#include "core/io/machine_spec.h"
#include "core/mappers/portfolio/registry.h"
#include "core/topology/distance_matrix.h"
#include "core/topology/node_selection.h"
#include "core/topology/switch_graph.h"
#include "google/protobuf/util/json_util.h"

namespace hopmap {
namespace {

absl::Status FieldError(absl::string_view field, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", message));
}

// The spec string of a regular model, so one parser validates CLI and RPC input.
absl::StatusOr<std::string> SpecOf(const v1::Machine& m) {
  switch (m.model_case()) {
    case v1::Machine::kSpec: {
      const std::string& spec = m.spec();
      if (const size_t colon = spec.find(':'); colon != std::string::npos) {
        const MachineKind* kind = FindMachineKind(std::string_view(spec).substr(0, colon));
        if (kind != nullptr && kind->reads_file) {
          return FieldError(
              "machine.spec",
              absl::StrCat("file machines (", kind->name,
                           ":) cannot be named by path in a request; send ",
                           kind->machine_kind == "gpu" ? "gpu_cluster"
                                                       : "switch_graph, distance_matrix or "
                                                         "slurm_topology_conf"));
        }
      }
      return spec;
    }
    case v1::Machine::kTorus: {
      const v1::Torus& t = m.torus();
      if (t.dims().empty()) return FieldError("machine.torus.dims", "empty");
      for (int i = 0; i < t.dims_size(); ++i) {
        if (t.dims(i) < 1) {
          return FieldError(absl::StrCat("machine.torus.dims[", i, "]"),
                            absl::StrCat("must be positive, got ", t.dims(i)));
        }
      }
      if (!t.wrap().empty() && t.wrap_size() != t.dims_size()) {
        return FieldError("machine.torus.wrap",
                          absl::StrCat(t.wrap_size(), " flags for ", t.dims_size(), " dims"));
      }
      std::string wrap;
      for (bool w : t.wrap()) wrap.push_back(w ? '1' : '0');
      return absl::StrCat("torus:", absl::StrJoin(t.dims(), "x"),
                          wrap.empty() ? "" : absl::StrCat(":wrap=", wrap));
    }
    case v1::Machine::kFatTree:
      if (m.fat_tree().arities().empty()) {
        return FieldError("machine.fat_tree.arities", "empty");
      }
      return absl::StrCat("fattree:", absl::StrJoin(m.fat_tree().arities(), "x"));
    case v1::Machine::kChipMesh: {
      const v1::ChipMesh& c = m.chip_mesh();
      std::string spec = absl::StrCat("chipmesh:", c.chips_x(), "x", c.chips_y());
      if (c.nodes_per_chip() != 0) absl::StrAppend(&spec, ":nodes=", c.nodes_per_chip());
      if (!c.hop_table().empty()) {
        absl::StrAppend(&spec, ":hops=", absl::StrJoin(c.hop_table(), ","));
      }
      return spec;
    }
    case v1::Machine::kDragonfly: {
      const v1::Dragonfly& d = m.dragonfly();
      return absl::StrCat("dragonfly:", d.groups(), ",", d.routers_per_group(), ",",
                          d.nodes_per_router());
    }
    default:
      return std::string();
  }
}

// The Machine fields that stand for shared spec options its kind refuses (a GPU
// cluster's slots are its GPUs, its links have their own figures): refused the same
// way, with what to use instead. cores_per_node equal to the machine's says nothing.
absl::Status CheckRefusedSharedFields(const v1::Machine& m, const Machine& machine) {
  const MachineKind* kind = MachineKindOf(machine);
  if (kind == nullptr) return absl::OkStatus();
  struct SharedField {
    std::string_view option;
    const char* field;
    bool given;
  };
  const SharedField fields[] = {
      {"cores", "machine.cores_per_node",
       m.cores_per_node() > 0 && m.cores_per_node() != machine.cores_per_node()},
      {"link-bandwidth", "machine.link_bandwidth", m.has_link_bandwidth()},
      {"link-latency", "machine.link_latency", m.has_link_latency()}};
  for (const auto& [option, instead] : kind->refused_shared_options) {
    for (const SharedField& f : fields) {
      if (f.given && option == f.option) {
        return FieldError(f.field,
                          absl::StrCat("not for a ", kind->machine_kind, " machine: ", instead));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateMachineName(const std::string& name) {
  if (name.empty() || name.size() > 64) {
    return FieldError("machine.name", "must be 1 to 64 characters");
  }
  if (name[0] == '.') return FieldError("machine.name", "must not start with '.'");
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      return FieldError("machine.name",
                        absl::StrCat("'", name, "' has a character outside [A-Za-z0-9._-]"));
    }
  }
  return absl::OkStatus();
}

v1::MachineSummary MachineSummaryToProto(const std::string& name, const std::string& description,
                                         const std::string& origin, const Machine& model) {
  v1::MachineSummary summary;
  summary.set_name(name);
  summary.set_description(description);
  summary.set_spec(model.Spec());
  summary.set_num_nodes(model.num_nodes());
  summary.set_cores_per_node(model.cores_per_node());
  summary.set_origin(origin);
  return summary;
}

absl::StatusOr<std::shared_ptr<Machine>> MachineFromProto(const v1::Machine& m) {
  if (m.cores_per_node() < 0) {
    return FieldError("machine.cores_per_node",
                      absl::StrCat("negative (", m.cores_per_node(), ")"));
  }
  std::shared_ptr<Machine> machine;
  absl::StatusOr<std::string> spec = SpecOf(m);
  if (!spec.ok()) return spec.status();
  if (!spec->empty()) {
    std::string full = *spec;
    if (m.has_node_name_prefix()) absl::StrAppend(&full, ":prefix=", m.node_name_prefix());
    if (m.has_node_name_width()) absl::StrAppend(&full, ":width=", m.node_name_width());
    absl::StatusOr<std::shared_ptr<Machine>> parsed = ParseMachineSpec(full);
    if (!parsed.ok()) return FieldError("machine", parsed.status().message());
    machine = *std::move(parsed);
  } else {
    if (m.has_node_name_prefix() || m.has_node_name_width()) {
      return FieldError("machine.node_name_prefix",
                        "only for generated kinds; this kind names its nodes itself");
    }
    switch (m.model_case()) {
      case v1::Machine::kSwitchGraph: {
        SwitchGraphSpec sg;
        sg.node_names.assign(m.switch_graph().node_names().begin(),
                             m.switch_graph().node_names().end());
        sg.switch_names.assign(m.switch_graph().switch_names().begin(),
                               m.switch_graph().switch_names().end());
        for (const auto& link : m.switch_graph().links()) sg.links.emplace_back(link.a(), link.b());
        absl::StatusOr<SwitchGraphMachine> g = SwitchGraphMachine::Create(std::move(sg));
        if (!g.ok()) return FieldError("machine.switch_graph", g.status().message());
        machine = std::make_shared<SwitchGraphMachine>(*std::move(g));
        break;
      }
      case v1::Machine::kDistanceMatrix: {
        const v1::DistanceMatrix& d = m.distance_matrix();
        std::vector<int32_t> hops(d.hops().begin(), d.hops().end());
        std::vector<std::string> names(d.node_names().begin(), d.node_names().end());
        absl::StatusOr<DistanceMatrixMachine> dm =
            DistanceMatrixMachine::Create(d.num_nodes(), std::move(hops), std::move(names));
        if (!dm.ok()) return FieldError("machine.distance_matrix", dm.status().message());
        machine = std::make_shared<DistanceMatrixMachine>(*std::move(dm));
        break;
      }
      case v1::Machine::kSlurmTopologyConf: {
        absl::StatusOr<SwitchGraphMachine> g =
            ParseSlurmTopology(m.slurm_topology_conf(), "machine.slurm_topology_conf");
        if (!g.ok()) return g.status();
        machine = std::make_shared<SwitchGraphMachine>(*std::move(g));
        break;
      }
      case v1::Machine::kSwitchGraphFile: {
        absl::StatusOr<SwitchGraphMachine> g =
            ParseSwitchGraphFile(m.switch_graph_file(), "machine.switch_graph_file");
        if (!g.ok()) return g.status();
        machine = std::make_shared<SwitchGraphMachine>(*std::move(g));
        break;
      }
      case v1::Machine::kDistanceMatrixFile: {
        absl::StatusOr<DistanceMatrixMachine> dm =
            ParseDistanceMatrixFile(m.distance_matrix_file(), "machine.distance_matrix_file");
        if (!dm.ok()) return dm.status();
        machine = std::make_shared<DistanceMatrixMachine>(*std::move(dm));
        break;
      }
      case v1::Machine::kGpuCluster: {
        absl::StatusOr<std::shared_ptr<Machine>> cluster = GpuClusterFromProto(m.gpu_cluster());
        if (!cluster.ok()) return cluster.status();
        machine = *std::move(cluster);
        break;
      }
      default:
        return FieldError("machine",
                          "no model (set spec, torus, fat_tree, chip_mesh, dragonfly, "
                          "switch_graph, distance_matrix, slurm_topology_conf, "
                          "switch_graph_file, distance_matrix_file or gpu_cluster)");
    }
  }
  if (absl::Status s = CheckRefusedSharedFields(m, *machine); !s.ok()) return s;
  if (const MachineKind* kind = MachineKindOf(*machine);
      m.cores_per_node() > 1 && kind != nullptr && kind->one_slot_per_node) {
    return FieldError(
        "machine.cores_per_node",
        absl::StrCat("a ", kind->name, " has one slot per PE (its lowest level is the cores)"));
  }
  if (m.cores_per_node() > 0) machine->set_cores_per_node(m.cores_per_node());
  if (m.has_link_bandwidth() || m.has_link_latency()) {
    if (machine->num_links() == 0) {
      return FieldError(m.has_link_bandwidth() ? "machine.link_bandwidth" : "machine.link_latency",
                        "this machine has no links (an explicit hop matrix)");
    }
    if (m.has_link_bandwidth()) {
      if (!(m.link_bandwidth() >= kMinLinkBandwidth && m.link_bandwidth() <= kMaxLinkBandwidth)) {
        return FieldError("machine.link_bandwidth",
                          absl::StrCat("must be from ", kMinLinkBandwidth, " to ",
                                       kMaxLinkBandwidth, " bytes/s, got ", m.link_bandwidth()));
      }
      machine->set_link_bandwidth(m.link_bandwidth());
    }
    if (m.has_link_latency()) {
      if (!(m.link_latency() >= 0 && m.link_latency() <= kMaxLinkLatency)) {
        return FieldError("machine.link_latency",
                          absl::StrCat("must be from 0 to ", kMaxLinkLatency, " seconds, got ",
                                       m.link_latency()));
      }
      machine->set_link_latency(m.link_latency());
    }
  }
  return machine;
}

absl::StatusOr<v1::Machine> MachineFromJson(const std::string& json, const std::string& source) {
  v1::Machine machine;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &machine, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": not a hopmap.v1.Machine in JSON: ", status.message().as_string()));
  }
  return machine;
}

std::string MachineToJson(const v1::Machine& machine) {
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(machine, &json, options);
  return json;
}

absl::StatusOr<TaskGraph> TaskGraphFromProto(const v1::TaskGraph& g) {
  const bool csr = !g.xadj().empty() || !g.adjncy().empty() || !g.adjwgt().empty();
  const bool edges = !g.edge_u().empty() || !g.edge_v().empty() || !g.edge_bytes().empty();
  if (csr && edges) {
    return FieldError("graph", "give CSR (xadj, adjncy, adjwgt) or an edge list, not both");
  }
  if (csr) {
    absl::StatusOr<TaskGraph> graph = TaskGraph::FromCsr(
        std::vector<EdgeIndex>(g.xadj().begin(), g.xadj().end()),
        std::vector<TaskId>(g.adjncy().begin(), g.adjncy().end()),
        std::vector<Bytes>(g.adjwgt().begin(), g.adjwgt().end()), g.self_bytes());
    if (!graph.ok()) return FieldError("graph", graph.status().message());
    if (g.num_tasks() != 0 && g.num_tasks() != graph->num_tasks()) {
      return FieldError("graph.num_tasks", absl::StrCat(g.num_tasks(), " but xadj describes ",
                                                        graph->num_tasks(), " tasks"));
    }
    return graph;
  }
  if (g.num_tasks() <= 0) {
    return FieldError("graph.num_tasks", "required and positive (no CSR and no edge list?)");
  }
  if (g.edge_u_size() != g.edge_v_size() || g.edge_u_size() != g.edge_bytes_size()) {
    return FieldError(
        "graph", absl::StrCat("edge_u, edge_v and edge_bytes differ in length (", g.edge_u_size(),
                              ", ", g.edge_v_size(), ", ", g.edge_bytes_size(), ")"));
  }
  TaskGraphBuilder builder(g.num_tasks());
  builder.Reserve(g.edge_u_size());
  for (int i = 0; i < g.edge_u_size(); ++i) {
    if (absl::Status s = builder.AddTraffic(g.edge_u(i), g.edge_v(i), g.edge_bytes(i)); !s.ok()) {
      return FieldError(absl::StrCat("graph.edge[", i, "]"), s.message());
    }
  }
  if (g.self_bytes() < 0) return FieldError("graph.self_bytes", "negative");
  if (g.self_bytes() > 0) {
    if (absl::Status s = builder.AddTraffic(0, 0, g.self_bytes()); !s.ok()) {
      return FieldError("graph.self_bytes", s.message());
    }
  }
  absl::StatusOr<TaskGraph> graph = std::move(builder).Build();
  if (!graph.ok()) return FieldError("graph", graph.status().message());
  return graph;
}

void TaskGraphToProto(const TaskGraph& graph, v1::TaskGraph* out) {
  out->Clear();
  out->set_num_tasks(graph.num_tasks());
  out->mutable_xadj()->Assign(graph.xadj().begin(), graph.xadj().end());
  out->mutable_adjncy()->Assign(graph.adjncy().begin(), graph.adjncy().end());
  out->mutable_adjwgt()->Assign(graph.adjwgt().begin(), graph.adjwgt().end());
  out->set_self_bytes(graph.self_bytes());
}

absl::StatusOr<std::vector<NodeId>> AllocationNodesFromProto(const v1::AllocationSpec& spec,
                                                             const Machine& machine) {
  const int given =
      (spec.node_ids_size() > 0) + (spec.hostnames_size() > 0) + (!spec.nodes().empty());
  if (given > 1) {
    return FieldError("allocation", "give one of node_ids, hostnames or nodes");
  }
  std::vector<NodeId> nodes;
  if (spec.node_ids_size() > 0) {
    for (int i = 0; i < spec.node_ids_size(); ++i) {
      const int32_t id = spec.node_ids(i);
      if (id < 0 || id >= machine.num_nodes()) {
        return FieldError(absl::StrCat("allocation.node_ids[", i, "]"),
                          absl::StrCat("node ", id, " is outside machine ", machine.Spec(),
                                       " (nodes 0..", machine.num_nodes() - 1, ")"));
      }
      nodes.push_back(id);
    }
  } else if (spec.hostnames_size() > 0) {
    for (int i = 0; i < spec.hostnames_size(); ++i) {
      std::optional<NodeId> id = machine.node_names().Find(spec.hostnames(i), machine.num_nodes());
      if (!id) {
        return FieldError(
            absl::StrCat("allocation.hostnames[", i, "]"),
            absl::StrCat("host '", spec.hostnames(i), "' is not a node of ", machine.Spec()));
      }
      nodes.push_back(*id);
    }
  } else if (!spec.nodes().empty()) {
    absl::StatusOr<std::vector<NodeId>> parsed = ParseNodeSelection(spec.nodes(), machine);
    if (!parsed.ok()) return FieldError("allocation.nodes", parsed.status().message());
    nodes = *std::move(parsed);
  } else {
    nodes = machine.AllocatableNodes();
  }
  return nodes;
}

namespace {

void StatsToProto(const std::vector<Statistic>& stats,
                  google::protobuf::RepeatedPtrField<v1::Statistic>* out) {
  for (const Statistic& s : stats) {
    v1::Statistic* p = out->Add();
    p->set_name(s.name);
    p->set_value(s.value);
  }
}

std::vector<Statistic> StatsFromProto(const google::protobuf::RepeatedPtrField<v1::Statistic>& p) {
  std::vector<Statistic> stats;
  for (const v1::Statistic& s : p) stats.push_back({s.name(), s.value()});
  return stats;
}

}  // namespace

void ReportToProto(const MappingReport& r, v1::MapReply* out) {
  out->set_tasks(r.tasks);
  out->set_slots(r.slots);
  out->set_machine(r.machine);
  out->set_nodes(r.nodes);
  out->set_cores_per_node(r.cores_per_node);
  out->set_algorithm(r.algorithm);
  out->mutable_slot_of_task()->Assign(r.slot_of_task.begin(), r.slot_of_task.end());
  out->mutable_node_of_task()->Assign(r.node_of_task.begin(), r.node_of_task.end());
  out->mutable_core_of_task()->Assign(r.core_of_task.begin(), r.core_of_task.end());
  out->set_hop_bytes(r.hop_bytes);
  out->set_total_bytes(r.total_bytes);
  out->set_self_bytes(r.self_bytes);
  out->set_avg_hops_per_byte(r.avg_hops_per_byte);
  out->set_lower_bound(r.lower_bound.value);
  out->set_lower_bound_method(r.lower_bound.method);
  if (r.gap.has_value()) out->set_gap(*r.gap);
  if (r.exchange_seconds) out->set_exchange_seconds(*r.exchange_seconds);
  if (r.baseline_exchange_seconds) {
    out->set_baseline_exchange_seconds(*r.baseline_exchange_seconds);
  }
  out->set_baseline_hop_bytes(r.baseline_hop_bytes);
  out->set_improvement(r.improvement);
  out->set_max_dilation(r.max_dilation);
  out->set_routing(RoutingName(r.routing));
  out->set_has_link_loads(r.link_loads.available());
  out->set_max_link_load(r.link_loads.max_load);
  out->set_avg_link_load(r.link_loads.average_load);
  out->set_links_used(r.link_loads.links_used);
  out->set_solve_seconds(r.solve_seconds);
  out->set_time_limit_seconds(r.time_limit_seconds);
  out->set_link_loads_skipped(r.link_loads_skipped);
  for (const Candidate& c : r.candidates) {
    v1::Candidate* pc = out->add_candidates();
    pc->set_algorithm(c.algorithm);
    pc->set_hop_bytes(c.hop_bytes);
    pc->set_max_link_load(c.max_link_load);
    pc->set_seconds(c.seconds);
    pc->set_error(c.error);
    StatsToProto(c.stats, pc->mutable_stats());
  }
  StatsToProto(r.stats, out->mutable_stats());
  for (const LinkLoadEntry& l : r.busiest_links) {
    v1::LinkLoad* pl = out->add_busiest_links();
    pl->set_link(l.link);
    pl->set_bytes(l.bytes);
  }
  if (r.balance.has_value()) BalanceReportToProto(*r.balance, out->mutable_balance());
  if (r.node_cost.has_value()) {
    v1::NodeCost* n = out->mutable_node_cost();
    n->set_hop_cost(r.node_cost->hop_cost);
    n->set_node_cost(r.node_cost->node_cost);
    n->set_full_cost(r.node_cost->full_cost);
    n->set_baseline_full_cost(r.node_cost->baseline_full_cost);
  }
}

MappingReport ReportFromProto(const v1::MapReply& p) {
  MappingReport r;
  r.tasks = p.tasks();
  r.slots = p.slots();
  r.machine = p.machine();
  r.nodes = p.nodes();
  r.cores_per_node = p.cores_per_node();
  r.algorithm = p.algorithm();
  r.slot_of_task.assign(p.slot_of_task().begin(), p.slot_of_task().end());
  r.node_of_task.assign(p.node_of_task().begin(), p.node_of_task().end());
  r.core_of_task.assign(p.core_of_task().begin(), p.core_of_task().end());
  r.hop_bytes = p.hop_bytes();
  r.total_bytes = p.total_bytes();
  r.self_bytes = p.self_bytes();
  r.avg_hops_per_byte = p.avg_hops_per_byte();
  r.lower_bound.value = p.lower_bound();
  r.lower_bound.method = p.lower_bound_method();
  if (p.has_gap()) r.gap = p.gap();
  if (p.has_exchange_seconds()) r.exchange_seconds = p.exchange_seconds();
  if (p.has_baseline_exchange_seconds()) {
    r.baseline_exchange_seconds = p.baseline_exchange_seconds();
  }
  r.baseline_hop_bytes = p.baseline_hop_bytes();
  r.improvement = p.improvement();
  if (p.has_node_cost()) {
    r.node_cost = NodeCostReport{p.node_cost().hop_cost(), p.node_cost().node_cost(),
                                 p.node_cost().full_cost(), p.node_cost().baseline_full_cost()};
  }
  r.max_dilation = p.max_dilation();
  r.routing = p.routing() == "adaptive" ? Routing::kAdaptive : Routing::kDimensionOrder;
  if (p.has_link_loads()) {
    r.link_loads.has_link_model = true;  // only the summary travels
    r.link_loads.max_load = p.max_link_load();
    r.link_loads.average_load = p.avg_link_load();
    r.link_loads.links_used = p.links_used();
  }
  r.solve_seconds = p.solve_seconds();
  r.time_limit_seconds = p.time_limit_seconds();
  r.link_loads_skipped = p.link_loads_skipped();
  for (const v1::Candidate& c : p.candidates()) {
    r.candidates.push_back({c.algorithm(), c.hop_bytes(), c.max_link_load(), c.seconds(), c.error(),
                            StatsFromProto(c.stats())});
  }
  r.stats = StatsFromProto(p.stats());
  for (const v1::LinkLoad& l : p.busiest_links()) r.busiest_links.push_back({l.link(), l.bytes()});
  if (p.has_balance()) r.balance = BalanceReportFromProto(p.balance());
  return r;
}

void AnalyzeRequestToProto(const TaskGraph& graph, const AnalyzerOptions& options,
                           v1::AnalyzeRequest* out) {
  TaskGraphToProto(graph, out->mutable_graph());
  out->set_weight_threshold(options.weight_threshold);
  out->set_keep_hubs(!options.ignore_hubs);
}

AnalyzerOptions AnalyzerOptionsFromProto(const v1::AnalyzeRequest& request) {
  AnalyzerOptions options;
  if (request.has_weight_threshold()) options.weight_threshold = request.weight_threshold();
  options.ignore_hubs = !request.keep_hubs();
  return options;
}

void AnalysisToProto(const GraphStatistics& stats, const PatternReport& pattern,
                     v1::AnalyzeReply* out) {
  out->set_tasks(stats.tasks);
  out->set_edges(stats.edges);
  out->set_total_bytes(stats.total_bytes);
  out->set_self_bytes(stats.self_bytes);
  out->set_max_degree(stats.max_degree);
  out->set_mean_degree(stats.mean_degree);
  out->set_max_edge_bytes(stats.max_edge_bytes);
  out->set_pattern(pattern.kind);
  out->mutable_dims()->Assign(pattern.dims.begin(), pattern.dims.end());
  out->set_wrap(pattern.wrap);
  out->set_rank_order(pattern.rank_order);
  out->set_explained_share(pattern.explained_share);
  out->set_edges_left_out(pattern.edges_left_out);
  out->set_bytes_left_out(pattern.bytes_left_out);
  out->mutable_hubs()->Assign(pattern.hubs.begin(), pattern.hubs.end());
  for (bool p : pattern.periodic) out->add_periodic(p);
}

void AnalysisFromProto(const v1::AnalyzeReply& p, GraphStatistics* stats, PatternReport* pattern) {
  stats->tasks = p.tasks();
  stats->edges = p.edges();
  stats->total_bytes = p.total_bytes();
  stats->self_bytes = p.self_bytes();
  stats->max_degree = p.max_degree();
  stats->mean_degree = p.mean_degree();
  stats->max_edge_bytes = p.max_edge_bytes();
  pattern->kind = p.pattern().empty() ? "none" : p.pattern();
  pattern->dims.assign(p.dims().begin(), p.dims().end());
  pattern->wrap = p.wrap();
  pattern->rank_order = p.rank_order();
  pattern->explained_share = p.explained_share();
  pattern->edges_left_out = p.edges_left_out();
  pattern->bytes_left_out = p.bytes_left_out();
  pattern->hubs.assign(p.hubs().begin(), p.hubs().end());
  pattern->periodic.assign(p.periodic().begin(), p.periodic().end());
}

v1::ListAlgorithmsReply BuiltinAlgorithms() {
  v1::ListAlgorithmsReply reply;
  for (const MapperInfo& info : BuiltinMappers().mappers()) {
    v1::AlgorithmSummary* a = reply.add_algorithms();
    a->set_name(info.name);
    a->set_description(info.description);
    a->set_kind("mapper");
    a->set_applies_to(std::string(MapperInputName(info.input)));
  }
  for (const BalancerInfo& info : BuiltinBalancers()) {
    v1::AlgorithmSummary* a = reply.add_algorithms();
    a->set_name(info.name);
    a->set_description(info.description);
    a->set_kind("balancer");
    a->set_applies_to("balance");
  }
  return reply;
}

}  // namespace hopmap
