#include "core/metrics/exchange_time.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "core/metrics/hop_bytes.h"
#include "tbb/blocked_range.h"
#include "tbb/enumerable_thread_specific.h"
#include "tbb/parallel_for.h"

namespace hopmap {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// What one thread finds: the slowest message alone.
struct ThreadPart {
  ExchangeTimeEstimate slowest;
  std::vector<int64_t> route;  // the links of the message at hand
};

// `slot` = min(slot, value), from any thread; the result does not depend on the order.
void AtomicMin(double& slot, double value) {
  std::atomic_ref<double> ref(slot);
  double seen = ref.load(std::memory_order_relaxed);
  while (value < seen && !ref.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

// The later of two answers; ties to the lower link, then the lower (src, dst), so
// that the answer does not depend on how threads split the work. A message alone
// (link -1) ranks after every link among equal times.
bool Later(const ExchangeTimeEstimate& a, const ExchangeTimeEstimate& b) {
  if (a.seconds != b.seconds) return a.seconds > b.seconds;
  const uint64_t a_link = static_cast<uint64_t>(a.link);  // -1 sorts last
  const uint64_t b_link = static_cast<uint64_t>(b.link);
  return std::tie(a_link, a.src, a.dst) < std::tie(b_link, b.src, b.dst);
}

// EstimateExchangeTime; `summed_out`, when given (and known_loads null), gets the
// loads the walk summed.
std::optional<ExchangeTimeEstimate> Estimate(const TaskGraph& graph, const Allocation& allocation,
                                             std::span<const SlotId> slot_of_task, Routing routing,
                                             const LinkLoads* known_loads,
                                             const Lv08Factors& factors, LinkLoads* summed_out) {
  const Machine& machine = allocation.machine();
  const int64_t num_links = machine.num_links();
  if (num_links == 0) return std::nullopt;
  // Without the loads, they are summed on the same walk over the routes.
  const bool sum_loads = known_loads == nullptr;
  const std::vector<int32_t> pos = PositionsOfTasks(allocation, slot_of_task);
  const double node_bandwidth = machine.NodeBandwidth().value_or(kNodeBandwidth);
  auto bandwidth_of = [&](int64_t link) {
    return machine.LinkBandwidthOf(link).value_or(kDefaultLinkBandwidth);
  };
  // Per link, shared by the threads (a copy per thread would take threads x links x
  // 8 bytes each): when its first message starts sending, and (sum_loads) its load
  // units.
  std::vector<double> first_start(num_links, kNever);
  std::vector<int64_t> load_units(sum_loads ? num_links : 0, 0);
  tbb::enumerable_thread_specific<ThreadPart> parts;
  tbb::parallel_for(
      tbb::blocked_range<TaskId>(0, graph.num_tasks(), 256),
      [&](const tbb::blocked_range<TaskId>& r) {
        ThreadPart& part = parts.local();
        for (TaskId u = r.begin(); u < r.end(); ++u) {
          const NodeId a = allocation.node_at(pos[u]);
          graph.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
            if (w <= 0) return;
            // The lower end sends the larger half (core/simulate/traffic.cc).
            const Bytes half = w / 2;
            const double bytes = static_cast<double>(u < v ? w - half : half);
            if (bytes <= 0 && !sum_loads) return;
            const NodeId b = allocation.node_at(pos[v]);
            // The route's latency and narrowest link, its links kept for their first
            // start, and (sum_loads) this direction's half of the edge on each (the
            // loads split every edge evenly, a message of 0 bytes included).
            double latency = 0;
            double narrowest = kMaxLinkBandwidth;
            part.route.clear();
            if (a != b) {
              machine.ForEachRouteLink(a, b, routing, [&](int64_t link, double share) {
                latency += share * machine.LinkLatencyOf(link).value_or(kDefaultLinkLatency);
                narrowest = std::min(narrowest, bandwidth_of(link));
                part.route.push_back(link);
                if (sum_loads) AddLinkLoadUnits(load_units, link, w, share);
              });
            }
            if (bytes <= 0) return;
            ExchangeTimeEstimate message;
            message.src = u;
            message.dst = v;
            if (a == b) {
              message.link_seconds = bytes / (factors.bandwidth_factor * node_bandwidth);
            } else {
              message.latency_seconds = factors.latency_factor * latency;
              for (int64_t link : part.route) AtomicMin(first_start[link], message.latency_seconds);
              double rate = factors.bandwidth_factor * narrowest;
              if (latency > 0) rate = std::min(rate, factors.tcp_gamma / (2 * latency));
              message.link_seconds = bytes / rate;
            }
            message.seconds = message.latency_seconds + message.link_seconds;
            if (part.slowest.src < 0 || Later(message, part.slowest)) part.slowest = message;
          });
        }
      });
  ExchangeTimeEstimate answer;
  for (const ThreadPart& part : parts) {
    if (part.slowest.src >= 0 && (answer.src < 0 || Later(part.slowest, answer))) {
      answer = part.slowest;
    }
  }
  LinkLoads summed;
  if (sum_loads) {
    summed = LinkLoadsFromUnits(load_units);
    known_loads = &summed;
  }
  const LinkLoads& loads = *known_loads;
  for (int64_t l = 0; l < num_links; ++l) {
    if (first_start[l] == kNever || loads.bytes_on_link[l] <= 0) continue;
    ExchangeTimeEstimate drained;
    drained.link = l;
    drained.latency_seconds = first_start[l];
    drained.link_seconds = loads.bytes_on_link[l] / (factors.bandwidth_factor * bandwidth_of(l));
    drained.seconds = drained.latency_seconds + drained.link_seconds;
    if (Later(drained, answer)) answer = drained;
  }
  if (summed_out != nullptr && sum_loads) *summed_out = std::move(summed);
  return answer;
}

}  // namespace

std::optional<ExchangeTimeEstimate> EstimateExchangeTime(
    const TaskGraph& graph, const Allocation& allocation, std::span<const SlotId> slot_of_task,
    Routing routing, const LinkLoads* known_loads, const Lv08Factors& factors) {
  return Estimate(graph, allocation, slot_of_task, routing, known_loads, factors, nullptr);
}

std::optional<ExchangeTimeEstimate> EstimateExchangeTimeAndLoads(
    const TaskGraph& graph, const Allocation& allocation, std::span<const SlotId> slot_of_task,
    Routing routing, LinkLoads& loads, const Lv08Factors& factors) {
  return Estimate(graph, allocation, slot_of_task, routing, nullptr, factors, &loads);
}

}  // namespace hopmap
