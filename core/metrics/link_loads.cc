#include "core/metrics/link_loads.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "core/metrics/hop_bytes.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"

namespace hopmap {
namespace {

constexpr double kUnitsPerByte = 256.0;

}  // namespace

LinkLoads ComputeLinkLoads(const TaskGraph& graph, const Allocation& allocation,
                           std::span<const SlotId> slot_of_task, Routing routing) {
  const Machine& machine = allocation.machine();
  const int64_t num_links = machine.num_links();
  if (num_links == 0) return LinkLoads{};
  const std::vector<int32_t> pos = PositionsOfTasks(allocation, slot_of_task);
  // One array for all threads (AddLinkLoadUnits adds atomically): a copy per thread
  // would take threads x links x 8 bytes (100 MB a thread on a 128^3 torus).
  std::vector<int64_t> units(num_links, 0);
  tbb::parallel_for(tbb::blocked_range<TaskId>(0, graph.num_tasks(), 256),
                    [&](const tbb::blocked_range<TaskId>& r) {
                      for (TaskId u = r.begin(); u < r.end(); ++u) {
                        const NodeId a = allocation.node_at(pos[u]);
                        graph.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
                          // Each task routes its half of the edge towards the other.
                          const NodeId b = allocation.node_at(pos[v]);
                          if (a == b) return;
                          machine.ForEachRouteLink(a, b, routing, [&](int64_t link, double share) {
                            AddLinkLoadUnits(units, link, w, share);
                          });
                        });
                      }
                    });
  return LinkLoadsFromUnits(units);
}

void AddLinkLoadUnits(std::span<int64_t> units_on_link, int64_t link, Bytes edge_bytes,
                      double share) {
  // Half of the edge each way.
  const int64_t units = std::llround(static_cast<double>(edge_bytes) * 0.5 * kUnitsPerByte * share);
  std::atomic_ref<int64_t>(units_on_link[link]).fetch_add(units, std::memory_order_relaxed);
}

LinkLoads LinkLoadsFromUnits(std::span<const int64_t> units_on_link) {
  LinkLoads loads;
  loads.has_link_model = true;
  const auto num_links = static_cast<int64_t>(units_on_link.size());
  loads.bytes_on_link.resize(num_links);
  double sum = 0;
  for (int64_t l = 0; l < num_links; ++l) {
    const double bytes = static_cast<double>(units_on_link[l]) / kUnitsPerByte;
    loads.bytes_on_link[l] = bytes;
    if (units_on_link[l] > 0) {
      ++loads.links_used;
      sum += bytes;
      loads.max_load = std::max(loads.max_load, bytes);
    }
  }
  loads.average_load = loads.links_used > 0 ? sum / static_cast<double>(loads.links_used) : 0;
  return loads;
}

int64_t RouteLinkCount(const TaskGraph& graph, const Allocation& allocation,
                       std::span<const SlotId> slot_of_task) {
  int64_t links = 0;
  for (TaskId u = 0; u < graph.num_tasks(); ++u) {
    graph.ForEachNeighbor(u, [&](TaskId v, Bytes) {
      if (v > u) links += 2 * allocation.HopsBetweenSlots(slot_of_task[u], slot_of_task[v]);
    });
  }
  return links;
}

}  // namespace hopmap
