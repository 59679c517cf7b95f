// Simulate's request and reply <-> core/solve/simulate.h.
#include "absl/strings/str_cat.h"
#include "proto/convert/convert.h"

namespace hopmap {

absl::StatusOr<SimulateRequest> SimulateRequestFromProto(const v1::SimulateRequest& request) {
  SimulateRequest out;
  for (int i = 0; i < request.mappings_size(); ++i) {
    const v1::SimulatedMapping& m = request.mappings(i);
    out.mappings.push_back({m.name().empty() ? absl::StrCat("mapping ", i + 1) : m.name(),
                            {m.slot_of_task().begin(), m.slot_of_task().end()}});
  }
  for (int i = 0; i < request.patterns_size(); ++i) {
    absl::StatusOr<CommunicationPattern> pattern = ParsePattern(request.patterns(i));
    if (!pattern.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("patterns[", i, "]: ", pattern.status().message()));
    }
    out.patterns.push_back(*pattern);
  }
  out.iterations = request.iterations() == 0 ? 1 : request.iterations();
  return out;
}

void SimulateRequestToProto(const SimulateRequest& request, v1::SimulateRequest* out) {
  for (const SimulatedMapping& m : request.mappings) {
    v1::SimulatedMapping* mapping = out->add_mappings();
    mapping->set_name(m.name);
    mapping->mutable_slot_of_task()->Assign(m.slot_of_task.begin(), m.slot_of_task.end());
  }
  for (const CommunicationPattern& p : request.patterns) out->add_patterns(p.Name());
  out->set_iterations(request.iterations);
}

void SimulationReportToProto(const SimulationReport& report, v1::SimulateReply* out) {
  out->set_machine(report.machine);
  out->set_tasks(report.tasks);
  out->set_hosts(report.hosts);
  out->set_link_bandwidth(report.link_bandwidth);
  out->set_link_latency(report.link_latency);
  for (const std::string& p : report.patterns) out->add_patterns(p);
  out->set_iterations(report.iterations);
  out->set_flows_per_iteration(report.flows_per_iteration);
  for (const SimulationResult& r : report.simulations) {
    v1::Simulation* s = out->add_simulations();
    s->set_mapping(r.mapping);
    s->set_time_seconds(r.time_s);
    s->set_total_time_seconds(r.total_time_s);
    s->set_ratio_to_in_order(r.ratio_to_in_order);
    s->set_hop_bytes(r.hop_bytes);
    if (r.busiest_link.link >= 0) {
      v1::BusiestLink* b = s->mutable_busiest_link();
      b->set_name(r.busiest_link.name);
      b->set_bytes(r.busiest_link.bytes);
      b->set_busy_seconds(r.busiest_link.busy_s);
      b->set_share(r.busiest_link_share);
    }
    for (const auto& [link_class, bytes] : r.link_class_bytes) {
      v1::LinkClassBytes* c = s->add_link_class_bytes();
      c->set_link_class(link_class);
      c->set_bytes(bytes);
    }
  }
}

SimulationReport SimulationReportFromProto(const v1::SimulateReply& reply) {
  SimulationReport report;
  report.machine = reply.machine();
  report.tasks = reply.tasks();
  report.hosts = reply.hosts();
  report.link_bandwidth = reply.link_bandwidth();
  report.link_latency = reply.link_latency();
  report.patterns.assign(reply.patterns().begin(), reply.patterns().end());
  report.iterations = reply.iterations();
  report.flows_per_iteration = reply.flows_per_iteration();
  for (const v1::Simulation& s : reply.simulations()) {
    SimulationResult& r = report.simulations.emplace_back();
    r.mapping = s.mapping();
    r.time_s = s.time_seconds();
    r.total_time_s = s.total_time_seconds();
    r.ratio_to_in_order = s.ratio_to_in_order();
    r.hop_bytes = s.hop_bytes();
    if (s.has_busiest_link()) {
      // The link's index stays on the server; 0 marks it present.
      r.busiest_link = {0, s.busiest_link().name(), s.busiest_link().bytes(),
                        s.busiest_link().busy_seconds()};
      r.busiest_link_share = s.busiest_link().share();
    }
    for (const v1::LinkClassBytes& c : s.link_class_bytes()) {
      r.link_class_bytes.emplace_back(c.link_class(), c.bytes());
    }
  }
  return report;
}

}  // namespace hopmap
