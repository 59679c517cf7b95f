// Bytes by hop count: how far a mapping's traffic travels (what `hopmap draw
// --what hops` plots).
#ifndef HOPMAP_CORE_METRICS_HOP_HISTOGRAM_H_
#define HOPMAP_CORE_METRICS_HOP_HISTOGRAM_H_

#include <span>
#include <vector>

#include "core/graph/task_graph.h"
#include "core/topology/allocation.h"

namespace hopmap {

// bytes_at_hops[h] = the bytes of the edges whose two tasks are h hops apart, each
// edge once (h = 0: the same node), for h = 0..machine diameter. The sum is the
// graph's total bytes without self traffic, and sum h * bytes_at_hops[h] is the
// hop-bytes. Exact integer sums over TBB, independent of the thread count.
// Requires a valid mapping.
std::vector<Bytes> BytesByHops(const TaskGraph& graph, const Allocation& allocation,
                               std::span<const SlotId> slot_of_task);

}  // namespace hopmap

#endif  // HOPMAP_CORE_METRICS_HOP_HISTOGRAM_H_
