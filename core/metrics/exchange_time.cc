#include "core/metrics/exchange_time.h"

#include <algorithm>
#include <limits>
#include <tuple>
#include <vector>

#include "core/metrics/hop_bytes.h"
#include "tbb/blocked_range.h"
#include "tbb/enumerable_thread_specific.h"
#include "tbb/parallel_for.h"

namespace hopmap {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// What one thread finds: the slowest message alone, and when each link's first
// message starts sending.
struct ThreadPart {
  ExchangeTimeEstimate slowest;
  std::vector<double> first_start;  // per link; kNever: no message crosses it
};

// The later of two answers; ties to the lower link, then the lower (src, dst), so
// that the answer does not depend on how threads split the work. A message alone
// (link -1) ranks after every link among equal times.
bool Later(const ExchangeTimeEstimate& a, const ExchangeTimeEstimate& b) {
  if (a.seconds != b.seconds) return a.seconds > b.seconds;
  const uint64_t a_link = static_cast<uint64_t>(a.link);  // -1 sorts last
  const uint64_t b_link = static_cast<uint64_t>(b.link);
  return std::tie(a_link, a.src, a.dst) < std::tie(b_link, b.src, b.dst);
}

}  // namespace

std::optional<ExchangeTimeEstimate> EstimateExchangeTime(
    const TaskGraph& graph, const Allocation& allocation, std::span<const SlotId> slot_of_task,
    Routing routing, const LinkLoads* known_loads, const Lv08Factors& factors) {
  const Machine& machine = allocation.machine();
  const int64_t num_links = machine.num_links();
  if (num_links == 0) return std::nullopt;
  LinkLoads computed;
  if (known_loads == nullptr) {
    computed = ComputeLinkLoads(graph, allocation, slot_of_task, routing);
    known_loads = &computed;
  }
  const LinkLoads& loads = *known_loads;
  const std::vector<int32_t> pos = PositionsOfTasks(allocation, slot_of_task);
  const double node_bandwidth = machine.NodeBandwidth().value_or(kNodeBandwidth);
  auto bandwidth_of = [&](int64_t link) {
    return machine.LinkBandwidthOf(link).value_or(kDefaultLinkBandwidth);
  };
  tbb::enumerable_thread_specific<ThreadPart> parts([num_links] {
    return ThreadPart{{}, std::vector<double>(num_links, kNever)};
  });
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
            if (bytes <= 0) return;
            const NodeId b = allocation.node_at(pos[v]);
            ExchangeTimeEstimate message;
            message.src = u;
            message.dst = v;
            if (a == b) {
              message.link_seconds = bytes / (factors.bandwidth_factor * node_bandwidth);
            } else {
              double latency = 0;
              double narrowest = kMaxLinkBandwidth;
              machine.ForEachRouteLink(a, b, routing, [&](int64_t link, double share) {
                latency += share * machine.LinkLatencyOf(link).value_or(kDefaultLinkLatency);
                narrowest = std::min(narrowest, bandwidth_of(link));
              });
              message.latency_seconds = factors.latency_factor * latency;
              machine.ForEachRouteLink(a, b, routing, [&](int64_t link, double) {
                part.first_start[link] = std::min(part.first_start[link], message.latency_seconds);
              });
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
  std::vector<double> first_start(num_links, kNever);
  for (const ThreadPart& part : parts) {
    if (part.slowest.src >= 0 && (answer.src < 0 || Later(part.slowest, answer))) {
      answer = part.slowest;
    }
    for (int64_t l = 0; l < num_links; ++l) {
      first_start[l] = std::min(first_start[l], part.first_start[l]);
    }
  }
  for (int64_t l = 0; l < num_links; ++l) {
    if (first_start[l] == kNever || loads.bytes_on_link[l] <= 0) continue;
    ExchangeTimeEstimate drained;
    drained.link = l;
    drained.latency_seconds = first_start[l];
    drained.link_seconds = loads.bytes_on_link[l] / (factors.bandwidth_factor * bandwidth_of(l));
    drained.seconds = drained.latency_seconds + drained.link_seconds;
    if (Later(drained, answer)) answer = drained;
  }
  return answer;
}

}  // namespace hopmap
