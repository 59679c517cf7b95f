#include "core/io/analysis_json.h"

namespace hopmap {

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

}  // namespace hopmap
