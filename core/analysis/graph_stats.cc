#include "core/analysis/graph_stats.h"

#include <algorithm>

namespace hopmap {

GraphStatistics ComputeGraphStatistics(const TaskGraph& graph) {
  GraphStatistics s;
  s.tasks = graph.num_tasks();
  s.edges = graph.num_edges();
  s.total_bytes = graph.total_bytes();
  s.self_bytes = graph.self_bytes();
  s.max_degree = graph.num_tasks() > 0 ? graph.max_degree() : 0;
  s.mean_degree = graph.num_tasks() > 0 ? 2.0 * static_cast<double>(graph.num_edges()) /
                                              static_cast<double>(graph.num_tasks())
                                        : 0.0;
  for (Bytes w : graph.adjwgt()) s.max_edge_bytes = std::max(s.max_edge_bytes, w);
  return s;
}

}  // namespace hopmap
