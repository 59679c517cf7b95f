// Basic statistics of a task graph (what `hopmap analyze` prints besides the pattern).
#ifndef HOPMAP_CORE_ANALYSIS_GRAPH_STATS_H_
#define HOPMAP_CORE_ANALYSIS_GRAPH_STATS_H_

#include <cstdint>

#include "core/graph/task_graph.h"

namespace hopmap {

struct GraphStatistics {
  TaskId tasks = 0;
  int64_t edges = 0;
  Bytes total_bytes = 0;
  Bytes self_bytes = 0;
  int64_t max_degree = 0;
  double mean_degree = 0;
  Bytes max_edge_bytes = 0;
};

GraphStatistics ComputeGraphStatistics(const TaskGraph& graph);

}  // namespace hopmap

#endif  // HOPMAP_CORE_ANALYSIS_GRAPH_STATS_H_
