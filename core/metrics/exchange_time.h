// The time one exchange of a graph's edges takes on the machine, estimated without
// simulating it: what the time objective ranks placements by (`hopmap map
// --objective time`). It reads the machine's links as `hopmap simulate` builds its
// network (the same routes, bandwidths and latencies, LV08's factors) and costs a
// pass over the routes instead of a simulation.
#ifndef HOPMAP_CORE_METRICS_EXCHANGE_TIME_H_
#define HOPMAP_CORE_METRICS_EXCHANGE_TIME_H_

#include <cstdint>
#include <optional>
#include <span>

#include "core/graph/task_graph.h"
#include "core/metrics/link_loads.h"
#include "core/topology/allocation.h"
#include "core/types.h"

namespace hopmap {

// A spec without link-bandwidth= / link-latency= gets these: one direction of a
// 100 Gb/s link (InfiniBand EDR, 100G Ethernet) and a switch's port-to-port
// latency of the same generation (docs/simulate.md).
inline constexpr double kDefaultLinkBandwidth = 12.5e9;  // bytes/s
inline constexpr double kDefaultLinkLatency = 100e-9;    // seconds per link
// Two tasks on one node exchange through memory: a loopback of this bandwidth
// that every such message has to itself (SimGrid's own loopback default).
inline constexpr double kNodeBandwidth = 10e9;  // bytes/s
inline constexpr double kNodeLatency = 0;

// The constants of SimGrid's LV08 network model, SimGrid's defaults: what the
// worker's lower bounds use (sim/model_reduction.h, which reads the ones SimGrid
// runs with) and what the estimate below assumes.
struct Lv08Factors {
  double latency_factor = 13.01;   // network/latency-factor
  double bandwidth_factor = 0.97;  // network/bandwidth-factor
  double tcp_gamma = 4194304;      // network/TCP-gamma: a flow's rate <= gamma / (2 x latency)
};

// Every edge of w bytes is one message each way (w/2 each, as `simulate --pattern
// graph` sends them), all starting at once. As in LV08, a message first waits its
// route's latency x latency_factor, then sends at a share of its links'
// bandwidth x bandwidth_factor. So a link is done no sooner than the first of its
// messages starts sending plus all their bytes over its bandwidth (it can carry no
// more), and a message no sooner than its own start plus its bytes at its narrowest
// link (or TCP's window bound); a message inside a node uses the node's loopback,
// alone. The estimate is the latest of these, per link and per message. It is
// exact when one link or one message decides, and below a simulation's time when
// messages that start late pile onto a link, or wait on several links in turn
// (bench/README.md compares it with the simulator).
struct ExchangeTimeEstimate {
  double seconds = 0;          // latency_seconds + link_seconds
  double latency_seconds = 0;  // when the deciding link or message starts sending
  double link_seconds = 0;     // then its bytes over its bandwidth
  int64_t link = -1;           // the deciding link, or -1: a message alone decides
  TaskId src = -1;             // that message's sender and receiver; -1 when a link
  TaskId dst = -1;             // decides or no edge carries bytes
};

// Null when the machine has no links (an explicit hop matrix: nothing to time).
// Deterministic: ties go to the lowest link, then to the lowest (src, dst). `known_loads`,
// when given, are this placement's ComputeLinkLoads (a report has them already);
// without them the estimate sums the same loads on its one walk over the routes.
std::optional<ExchangeTimeEstimate> EstimateExchangeTime(
    const TaskGraph& graph, const Allocation& allocation, std::span<const SlotId> slot_of_task,
    Routing routing, const LinkLoads* known_loads = nullptr, const Lv08Factors& factors = {});

// EstimateExchangeTime, and `loads` = ComputeLinkLoads of the same placement, from
// one walk over the routes instead of two (what a report needs; at a million tasks
// a walk takes seconds). `loads` is left as it was when the machine has no links.
std::optional<ExchangeTimeEstimate> EstimateExchangeTimeAndLoads(
    const TaskGraph& graph, const Allocation& allocation, std::span<const SlotId> slot_of_task,
    Routing routing, LinkLoads& loads, const Lv08Factors& factors = {});

}  // namespace hopmap

#endif  // HOPMAP_CORE_METRICS_EXCHANGE_TIME_H_
