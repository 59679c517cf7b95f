#include "core/solve/simulate_json.h"

namespace hopmap {

nlohmann::ordered_json SimulationReportToJson(const SimulationReport& report) {
  nlohmann::ordered_json j;
  j["machine"] = report.machine;
  j["tasks"] = report.tasks;
  j["hosts"] = report.hosts;
  j["link_bandwidth"] = report.link_bandwidth;
  j["link_latency"] = report.link_latency;
  j["patterns"] = report.patterns;
  j["iterations"] = report.iterations;
  j["flows_per_iteration"] = report.flows_per_iteration;
  j["simulator"] = "SimGrid (flow level, LV08)";
  nlohmann::ordered_json simulations = nlohmann::ordered_json::array();
  for (const SimulationResult& r : report.simulations) {
    nlohmann::ordered_json s;
    s["mapping"] = r.mapping;
    s["time_s"] = r.time_s;
    s["total_time_s"] = r.total_time_s;
    s["ratio_to_in_order"] = r.ratio_to_in_order;
    s["hop_bytes"] = r.hop_bytes;
    if (r.busiest_link.link >= 0) {
      s["busiest_link"] = {{"name", r.busiest_link.name},
                           {"bytes", r.busiest_link.bytes},
                           {"busy_s", r.busiest_link.busy_s},
                           {"share", r.busiest_link_share}};
    } else {
      s["busiest_link"] = nullptr;  // every message stayed inside its node
    }
    if (!r.link_class_bytes.empty()) {
      nlohmann::ordered_json by_class = nlohmann::ordered_json::object();
      for (const auto& [link_class, bytes] : r.link_class_bytes) by_class[link_class] = bytes;
      s["link_class_bytes"] = std::move(by_class);
    }
    if (r.mpi_time_s.has_value()) s["mpi_time_s"] = *r.mpi_time_s;
    if (r.collective_s.has_value()) s["collective_s"] = *r.collective_s;
    if (r.compute_s.has_value()) s["compute_s"] = *r.compute_s;
    if (r.unmatched_calls.has_value()) s["unmatched_calls"] = *r.unmatched_calls;
    simulations.push_back(std::move(s));
  }
  j["simulations"] = std::move(simulations);
  return j;
}

}  // namespace hopmap
