#include "core/solve/measure.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/analysis/pattern.h"
#include "core/metrics/exchange_time.h"
#include "core/metrics/hop_bytes.h"
#include "core/metrics/node_cost.h"

namespace hopmap {
namespace {

// ComputeLowerBound with the graph's grid when it is one. The grid-cut bound needs
// several cores per node, so the graph is analysed only then.
LowerBound LowerBoundOf(const TaskGraph& graph, const Allocation& allocation) {
  std::optional<GridShape> grid;
  if (allocation.cores_per_node() > 1) {
    if (absl::StatusOr<PatternReport> pattern = AnalyzePattern(graph);
        pattern.ok() && pattern->is_grid()) {
      grid = GridShape{pattern->dims, pattern->periodic};
    }
  }
  return ComputeLowerBound(graph, allocation, grid ? &*grid : nullptr);
}

}  // namespace

void MeasureMapping(const TaskGraph& graph, const Allocation& allocation, Routing routing,
                    MappingReport& report, const std::optional<LowerBound>& known_bound,
                    std::span<const SlotId> baseline) {
  report.tasks = graph.num_tasks();
  report.slots = allocation.num_slots();
  report.machine = allocation.machine().Spec();
  report.nodes = allocation.num_nodes();
  report.cores_per_node = allocation.cores_per_node();
  report.node_of_task.resize(report.slot_of_task.size());
  report.core_of_task.resize(report.slot_of_task.size());
  for (size_t t = 0; t < report.slot_of_task.size(); ++t) {
    report.node_of_task[t] = allocation.NodeOfSlot(report.slot_of_task[t]);
    report.core_of_task[t] = allocation.CoreOfSlot(report.slot_of_task[t]);
  }
  report.hop_bytes = ComputeHopBytes(graph, allocation, report.slot_of_task);
  report.total_bytes = graph.total_bytes();
  report.self_bytes = graph.self_bytes();
  report.avg_hops_per_byte = graph.total_bytes() > 0 ? static_cast<double>(report.hop_bytes) /
                                                           static_cast<double>(graph.total_bytes())
                                                     : 0.0;
  report.max_dilation = ComputeMaxDilation(graph, allocation, report.slot_of_task);
  report.routing = routing;
  report.link_loads = LinkLoads{};  // stays empty on a machine without links
  if (allocation.machine().num_links() > 0) {
    if (const int64_t links = RouteLinkCount(graph, allocation, report.slot_of_task);
        links > kMaxReportRouteLinks) {
      report.link_loads_skipped = absl::StrCat("the routes cross ", links, " links, more than ",
                                               kMaxReportRouteLinks, " (the report's limit)");
    } else if (auto e = EstimateExchangeTimeAndLoads(graph, allocation, report.slot_of_task,
                                                     routing, report.link_loads)) {
      // The loads and the exchange-time estimate from one walk over the routes.
      report.exchange_seconds = e->seconds;
    }
  }
  report.lower_bound = known_bound ? *known_bound : LowerBoundOf(graph, allocation);
  if (report.lower_bound.value > 0) {
    report.gap =
        static_cast<double>(report.hop_bytes) / static_cast<double>(report.lower_bound.value);
  } else if (report.hop_bytes == 0) {
    report.gap = 1.0;
  }
  std::vector<SlotId> in_order;
  if (baseline.empty()) {
    in_order.resize(graph.num_tasks());
    std::iota(in_order.begin(), in_order.end(), 0);
    baseline = in_order;
  }
  report.baseline_hop_bytes = ComputeHopBytes(graph, allocation, baseline);
  if (report.link_loads.available()) {
    // The baseline's routes can be far longer than the answer's (in-order for 1M
    // random tasks: ~8e8 links, ~30 s to walk): the same limit holds for them.
    if (RouteLinkCount(graph, allocation, baseline) <= kMaxReportRouteLinks) {
      if (auto e = EstimateExchangeTime(graph, allocation, baseline, routing)) {
        report.baseline_exchange_seconds = e->seconds;
      }
    }
  }
  if (const NodeInterior* interior = allocation.machine().node_interior().get()) {
    NodeCostReport& n = report.node_cost.emplace();
    n.hop_cost = interior->hop_cost();
    n.node_cost = ComputeNodeCost(graph, allocation, report.slot_of_task);
    n.full_cost = FullCost(allocation, report.hop_bytes, n.node_cost);
    n.baseline_full_cost = FullCost(allocation, report.baseline_hop_bytes,
                                    ComputeNodeCost(graph, allocation, baseline));
  }
  report.improvement = report.baseline_hop_bytes > 0
                           ? 1.0 - static_cast<double>(report.hop_bytes) /
                                       static_cast<double>(report.baseline_hop_bytes)
                           : 0.0;
}

void AddBusiestLinks(const Allocation& allocation, int count, MappingReport& report) {
  report.busiest_links.clear();
  const std::vector<double>& loads = report.link_loads.bytes_on_link;
  if (count <= 0 || loads.empty()) return;
  std::vector<int64_t> order(loads.size());
  std::iota(order.begin(), order.end(), 0);
  const size_t k = std::min<size_t>(count, order.size());
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t a, int64_t b) {
    return loads[a] != loads[b] ? loads[a] > loads[b] : a < b;
  });
  for (size_t i = 0; i < k && loads[order[i]] > 0; ++i) {
    report.busiest_links.push_back({allocation.machine().LinkName(order[i]), loads[order[i]]});
  }
}

}  // namespace hopmap
