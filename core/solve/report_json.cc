#include "core/solve/report_json.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"

namespace hopmap {

namespace {

// {"name": value, ...} in the mapper's order; counts print as integers.
nlohmann::ordered_json StatsToJson(const std::vector<Statistic>& stats) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const Statistic& s : stats) {
    if (s.value == std::trunc(s.value) && std::abs(s.value) < 9e15) {
      j[s.name] = static_cast<int64_t>(s.value);
    } else {
      j[s.name] = s.value;
    }
  }
  return j;
}

nlohmann::ordered_json BalanceToJson(const LoadBalanceReport& b) {
  nlohmann::ordered_json j;
  j["imbalance"] = b.imbalance;
  j["total_load"] = b.total_load;
  j["avg_load"] = b.avg_load;
  j["max_load"] = b.max_load;
  j["max_over_avg"] = b.avg_load > 0 ? b.max_load / b.avg_load : 0.0;
  j["requested_cap"] = b.requested_cap;
  j["load_cap"] = b.load_cap;
  j["balanced"] = b.balanced;
  j["note"] = b.note;
  j["has_current"] = b.has_current;
  if (b.has_current) {
    j["migrated_objects"] = b.migrated_objects;
    j["migrated_bytes"] = b.migrated_bytes;
    j["migration_cost"] = b.migration_cost;
    j["current_hop_bytes"] = b.current_hop_bytes;
    j["current_max_load"] = b.current_max_load;
    nlohmann::ordered_json moves = nlohmann::ordered_json::array();
    for (const ObjectMove& m : b.moves) moves.push_back({m.task, m.from, m.to});
    j["moves"] = std::move(moves);  // [object, from slot, to slot]
  }
  j["load_of_slot"] = b.load_of_slot;
  return j;
}

}  // namespace

nlohmann::ordered_json ReportToJson(const MappingReport& report) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["tasks"] = report.tasks;
  j["slots"] = report.slots;
  j["machine"] = report.machine;
  j["nodes"] = report.nodes;
  j["cores_per_node"] = report.cores_per_node;
  j["algorithm"] = report.algorithm;
  j["hop_bytes"] = report.hop_bytes;
  j["total_bytes"] = report.total_bytes;
  j["self_bytes"] = report.self_bytes;
  j["avg_hops_per_byte"] = report.avg_hops_per_byte;
  j["lower_bound"] = report.lower_bound.value;
  j["lower_bound_method"] = report.lower_bound.method;
  j["gap"] = report.gap.has_value() ? Json(*report.gap) : Json(nullptr);
  j["baseline_hop_bytes"] = report.baseline_hop_bytes;
  j["improvement"] = report.improvement;
  if (report.node_cost.has_value()) {
    j["node_cost"] = {{"hop_cost", report.node_cost->hop_cost},
                      {"node_cost", report.node_cost->node_cost},
                      {"full_cost", report.node_cost->full_cost},
                      {"baseline_full_cost", report.node_cost->baseline_full_cost}};
  } else {
    j["node_cost"] = nullptr;
  }
  j["max_dilation"] = report.max_dilation;
  j["routing"] = RoutingName(report.routing);
  if (report.link_loads.available()) {
    j["max_link_load"] = report.link_loads.max_load;
    j["avg_link_load"] = report.link_loads.average_load;
    j["links_used"] = report.link_loads.links_used;
  } else {
    j["max_link_load"] = nullptr;
    j["avg_link_load"] = nullptr;
    j["links_used"] = nullptr;
  }
  if (!report.link_loads_skipped.empty()) j["link_loads_skipped"] = report.link_loads_skipped;
  auto or_null = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  j["exchange_seconds"] = or_null(report.exchange_seconds);
  j["baseline_exchange_seconds"] = or_null(report.baseline_exchange_seconds);
  j["solve_seconds"] = report.solve_seconds;
  j["time_limit_seconds"] = report.time_limit_seconds;
  Json candidates = Json::array();
  for (const Candidate& c : report.candidates) {
    Json cj;
    cj["algorithm"] = c.algorithm;
    if (c.error.empty()) {
      cj["hop_bytes"] = c.hop_bytes;
    } else {
      cj["hop_bytes"] = nullptr;
      cj["error"] = c.error;
    }
    cj["seconds"] = c.seconds;
    cj["stats"] = StatsToJson(c.stats);
    candidates.push_back(std::move(cj));
  }
  j["candidates"] = std::move(candidates);
  j["stats"] = StatsToJson(report.stats);
  if (!report.busiest_links.empty()) {
    Json links = Json::array();
    for (const LinkLoadEntry& l : report.busiest_links) {
      links.push_back({{"link", l.link}, {"bytes", l.bytes}});
    }
    j["busiest_links"] = std::move(links);
  }
  if (report.balance.has_value()) j["balance"] = BalanceToJson(*report.balance);
  j["slot_of_task"] = report.slot_of_task;
  j["node_of_task"] = report.node_of_task;
  j["core_of_task"] = report.core_of_task;
  return j;
}

}  // namespace hopmap
