#include "sim/model_reduction.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "absl/container/flat_hash_map.h"

namespace hopmap::sim {

std::vector<bool> RedundantLinks(const NetworkModel& model) {
  const size_t num_links = model.links.size();
  // The routes through each link.
  std::vector<std::vector<int32_t>> routes_through(num_links);
  for (size_t r = 0; r < model.routes.size(); ++r) {
    for (int32_t l : model.routes[r].links) routes_through[l].push_back(static_cast<int32_t>(r));
  }
  std::vector<bool> redundant(num_links, false);
  // For link l: how many of l's routes each link is on; the links on all of them
  // carry every route l carries.
  std::vector<int32_t> count(num_links, 0);
  std::vector<int32_t> touched;
  for (size_t l = 0; l < num_links; ++l) {
    const std::vector<int32_t>& mine = routes_through[l];
    if (mine.empty()) continue;
    touched.clear();
    for (int32_t r : mine) {
      for (int32_t m : model.routes[r].links) {
        if (count[m]++ == 0) touched.push_back(m);
      }
    }
    const int32_t all = static_cast<int32_t>(mine.size());
    for (int32_t m : touched) {
      if (redundant[l] || static_cast<size_t>(m) == l || count[m] != all) continue;
      if (model.links[m].bandwidth > model.links[l].bandwidth) continue;
      // m carries a superset of l's routes. The same set and bandwidth: the first stays.
      const bool same = routes_through[m].size() == mine.size() &&
                        model.links[m].bandwidth == model.links[l].bandwidth;
      if (!same || static_cast<size_t>(m) < l) redundant[l] = true;
    }
    for (int32_t m : touched) count[m] = 0;
  }
  return redundant;
}

std::vector<PhaseBoundParts> PhaseTimeBoundParts(const NetworkModel& model,
                                                 const Lv08Factors& factors) {
  const int64_t num_hosts = static_cast<int64_t>(model.hosts.size());
  absl::flat_hash_map<int64_t, const SimRoute*> route_of;
  route_of.reserve(model.routes.size());
  for (const SimRoute& route : model.routes)
    route_of[route.src_host * num_hosts + route.dst_host] = &route;
  std::vector<PhaseBoundParts> parts;
  parts.reserve(model.phases.size());
  std::vector<double> link_bytes(model.links.size());
  for (const std::vector<SimFlow>& phase : model.phases) {
    std::fill(link_bytes.begin(), link_bytes.end(), 0.0);
    PhaseBoundParts bound;
    for (const SimFlow& flow : phase) {
      const double bytes = static_cast<double>(flow.bytes);
      double latency = model.node_latency;
      double bandwidth = model.node_bandwidth;
      if (flow.src_host != flow.dst_host) {
        auto it = route_of.find(flow.src_host * num_hosts + flow.dst_host);
        if (it == route_of.end()) continue;  // the codec refuses such models
        latency = 0;
        bandwidth = std::numeric_limits<double>::infinity();
        for (int32_t l : it->second->links) {
          latency += model.links[l].latency;
          bandwidth = std::min(bandwidth, model.links[l].bandwidth);
          link_bytes[l] += bytes;
        }
      }
      if (latency > 0) bandwidth = std::min(bandwidth, factors.tcp_gamma / (2 * latency));
      bound.slowest_flow =
          std::max(bound.slowest_flow, factors.latency_factor * latency +
                                           bytes / (factors.bandwidth_factor * bandwidth));
    }
    for (size_t l = 0; l < link_bytes.size(); ++l) {
      bound.busiest_link = std::max(bound.busiest_link, link_bytes[l] / (factors.bandwidth_factor *
                                                                         model.links[l].bandwidth));
    }
    parts.push_back(bound);
  }
  return parts;
}

std::vector<double> PhaseTimeLowerBounds(const NetworkModel& model, const Lv08Factors& factors) {
  std::vector<double> bounds;
  for (const PhaseBoundParts& part : PhaseTimeBoundParts(model, factors))
    bounds.push_back(std::max(part.slowest_flow, part.busiest_link));
  return bounds;
}

bool LinksBindTheTime(const NetworkModel& model, const Lv08Factors& factors) {
  double slowest_flow = 0, busiest_link = 0;
  for (const PhaseBoundParts& part : PhaseTimeBoundParts(model, factors)) {
    slowest_flow += part.slowest_flow;
    busiest_link += part.busiest_link;
  }
  return busiest_link > slowest_flow;
}

}  // namespace hopmap::sim
