// Per-link traffic of a mapping under a routing model (DESIGN.md, "Link loads").
#ifndef HOPMAP_CORE_METRICS_LINK_LOADS_H_
#define HOPMAP_CORE_METRICS_LINK_LOADS_H_

#include <span>
#include <vector>

#include "core/graph/task_graph.h"
#include "core/topology/allocation.h"

namespace hopmap {

struct LinkLoads {
  // Bytes on every directed link of the machine; empty when the machine model has
  // no links (an explicit distance matrix).
  std::vector<double> bytes_on_link;
  double max_load = 0;      // the largest directed load
  double average_load = 0;  // mean over the links that carry any traffic
  int64_t links_used = 0;   // links with a load above zero
  // False for machines without a link model. Reports received from hopmapd carry
  // the summary (max, average, links used) but not bytes_on_link.
  bool has_link_model = false;
  [[nodiscard]] bool available() const { return has_link_model; }
};

// Each edge's w bytes are split evenly between its two directions, each following
// its own route. Loads are summed in fixed point (1/256 byte), so the result does
// not depend on how threads split the work.
LinkLoads ComputeLinkLoads(const TaskGraph& graph, const Allocation& allocation,
                           std::span<const SlotId> slot_of_task, Routing routing);

// How ComputeLinkLoads sums, for metrics that walk the routes anyway and need the
// same loads (exchange_time.cc): each direction of an edge of w bytes calls
// AddLinkLoadUnits for every link of its route (share: the part of the direction's
// bytes that link carries), from any thread (an atomic add of whole units, so the
// sums do not depend on the order); LinkLoadsFromUnits turns the sums into loads.
void AddLinkLoadUnits(std::span<int64_t> units_on_link, int64_t link, Bytes edge_bytes,
                      double share);
LinkLoads LinkLoadsFromUnits(std::span<const int64_t> units_on_link);

// Links crossed by all routes of the mapping (each edge both ways: 2 x hops), the
// work ComputeLinkLoads does. Cheap: one hop lookup per edge.
int64_t RouteLinkCount(const TaskGraph& graph, const Allocation& allocation,
                       std::span<const SlotId> slot_of_task);

// Reports skip link loads above this many route links (RouteLinkCount), too many
// to walk after a solve (docs/tuning.md).
inline constexpr int64_t kMaxReportRouteLinks = 200'000'000;

}  // namespace hopmap

#endif  // HOPMAP_CORE_METRICS_LINK_LOADS_H_
