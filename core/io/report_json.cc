#include "core/io/report_json.h"

#include <algorithm>
#include <fstream>
#include <numeric>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace hopmap {

namespace {

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
    candidates.push_back(std::move(cj));
  }
  j["candidates"] = std::move(candidates);
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

nlohmann::ordered_json AnalysisToJson(const GraphStatistics& stats, const PatternReport& pattern) {
  nlohmann::ordered_json j;
  j["tasks"] = stats.tasks;
  j["edges"] = stats.edges;
  j["total_bytes"] = stats.total_bytes;
  j["self_bytes"] = stats.self_bytes;
  j["max_degree"] = stats.max_degree;
  j["mean_degree"] = stats.mean_degree;
  j["max_edge_bytes"] = stats.max_edge_bytes;
  j["pattern"] = pattern.kind;
  j["dims"] = pattern.dims;
  j["wrap"] = pattern.wrap;
  j["periodic"] = pattern.periodic;
  j["rank_order"] = pattern.rank_order;
  j["explained_share"] = pattern.explained_share;
  j["edges_left_out"] = pattern.edges_left_out;
  j["bytes_left_out"] = pattern.bytes_left_out;
  j["hubs"] = pattern.hubs;
  return j;
}

absl::StatusOr<std::vector<SlotId>> ParseMapping(const std::string& text,
                                                 const std::string& source_name,
                                                 const Allocation* allocation) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source_name, ": not valid JSON (a mapping file is JSON or perm)"));
    }
    if (!j.contains("slot_of_task") || !j["slot_of_task"].is_array()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source_name, ": JSON has no \"slot_of_task\" array"));
    }
    if (allocation != nullptr && j.contains("nodes") && j["nodes"].is_number_integer() &&
        j.contains("cores_per_node") && j["cores_per_node"].is_number_integer()) {
      const int64_t nodes = j["nodes"].get<int64_t>();
      const int64_t cores = j["cores_per_node"].get<int64_t>();
      if (nodes != allocation->num_nodes() || cores != allocation->cores_per_node()) {
        const std::string machine = j.contains("machine") && j["machine"].is_string()
                                        ? absl::StrCat(" (", j["machine"].get<std::string>(), ")")
                                        : std::string();
        return absl::InvalidArgumentError(
            absl::StrCat(source_name, ": the mapping was made for ", nodes, " nodes x ", cores,
                         " cores", machine, ", not for this allocation's ", allocation->num_nodes(),
                         " nodes x ", allocation->cores_per_node(), " cores"));
      }
    }
    std::vector<SlotId> slots;
    for (size_t i = 0; i < j["slot_of_task"].size(); ++i) {
      const auto& v = j["slot_of_task"][i];
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > kMaxTasks) {
        return absl::InvalidArgumentError(
            absl::StrCat(source_name, ": slot_of_task[", i, "] is not a slot number: ", v.dump()));
      }
      slots.push_back(v.get<SlotId>());
    }
    return slots;
  }
  std::vector<SlotId> slots;
  std::istringstream in(text);
  std::string line;
  for (int line_number = 1; std::getline(in, line); ++line_number) {
    absl::string_view s = line;
    if (size_t hash = s.find('#'); hash != absl::string_view::npos) s = s.substr(0, hash);
    s = absl::StripAsciiWhitespace(s);
    if (s.empty()) continue;
    int64_t slot = 0;
    if (!absl::SimpleAtoi(s, &slot) || slot < 0 || slot > kMaxTasks) {
      return absl::InvalidArgumentError(absl::StrCat(source_name, ":", line_number,
                                                     ": expected the slot of task ", slots.size(),
                                                     " (a non-negative integer), got '", s, "'"));
    }
    slots.push_back(static_cast<SlotId>(slot));
  }
  if (slots.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(source_name, ": the mapping is empty"));
  }
  return slots;
}

absl::StatusOr<std::vector<SlotId>> ReadMappingFile(const std::string& path,
                                                    const Allocation* allocation) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open mapping file"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseMapping(buffer.str(), path, allocation);
}

}  // namespace hopmap
