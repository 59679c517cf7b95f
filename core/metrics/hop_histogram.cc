#include "core/metrics/hop_histogram.h"

#include "core/metrics/hop_bytes.h"
#include "tbb/blocked_range.h"
#include "tbb/enumerable_thread_specific.h"
#include "tbb/parallel_for.h"

namespace hopmap {

std::vector<Bytes> BytesByHops(const TaskGraph& graph, const Allocation& allocation,
                               std::span<const SlotId> slot_of_task) {
  const size_t bins = static_cast<size_t>(allocation.machine().max_hops()) + 1;
  const std::vector<int32_t> pos = PositionsOfTasks(allocation, slot_of_task);
  tbb::enumerable_thread_specific<std::vector<Bytes>> local(
      [bins] { return std::vector<Bytes>(bins, 0); });
  tbb::parallel_for(tbb::blocked_range<TaskId>(0, graph.num_tasks(), 1024),
                    [&](const tbb::blocked_range<TaskId>& r) {
                      std::vector<Bytes>& counts = local.local();
                      for (TaskId u = r.begin(); u < r.end(); ++u) {
                        graph.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
                          if (v <= u) return;  // each edge once; self loops are not traffic
                          counts[allocation.HopsBetweenPositions(pos[u], pos[v])] += w;
                        });
                      }
                    });
  std::vector<Bytes> total(bins, 0);
  for (const std::vector<Bytes>& counts : local) {
    for (size_t h = 0; h < bins; ++h) total[h] += counts[h];
  }
  return total;
}

}  // namespace hopmap
