#include "sim/model_codec.h"

#include <cmath>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hopmap/sim/network_model.pb.h"

namespace hopmap::sim {
namespace {

absl::Status Bad(const std::string& source, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(source, ": ", what));
}

bool IsRate(double value) { return std::isfinite(value) && value > 0; }
bool IsDelay(double value) { return std::isfinite(value) && value >= 0; }

}  // namespace

std::string EncodeNetworkModel(const NetworkModel& model) {
  wire::NetworkModel message;
  for (const std::string& host : model.hosts) message.add_hosts(host);
  message.set_node_bandwidth(model.node_bandwidth);
  message.set_node_latency(model.node_latency);
  for (const SimLink& link : model.links) {
    wire::Link* l = message.add_links();
    l->set_name(link.name);
    l->set_bandwidth(link.bandwidth);
    l->set_latency(link.latency);
    l->set_link_class(link.link_class);
  }
  for (const SimRoute& route : model.routes) {
    wire::Route* r = message.add_routes();
    r->set_src_host(route.src_host);
    r->set_dst_host(route.dst_host);
    r->mutable_links()->Assign(route.links.begin(), route.links.end());
  }
  for (const std::vector<SimFlow>& flows : model.phases) {
    wire::Phase* phase = message.add_phases();
    phase->mutable_src_host()->Reserve(static_cast<int>(flows.size()));
    for (const SimFlow& f : flows) {
      phase->add_src_host(f.src_host);
      phase->add_dst_host(f.dst_host);
      phase->add_bytes(f.bytes);
    }
  }
  message.set_iterations(model.iterations);
  return message.SerializeAsString();
}

absl::StatusOr<NetworkModel> DecodeNetworkModel(const std::string& bytes,
                                                const std::string& source) {
  wire::NetworkModel message;
  if (!message.ParseFromString(bytes)) return Bad(source, "not a hopmap network model");
  NetworkModel model;
  const int hosts = message.hosts_size();
  if (hosts == 0) return Bad(source, "no hosts");
  model.hosts.assign(message.hosts().begin(), message.hosts().end());
  absl::flat_hash_set<std::string> names;
  for (const std::string& host : model.hosts) {
    if (host.empty() || !names.insert(host).second) {
      return Bad(source, absl::StrCat("host name '", host, "' is empty or used twice"));
    }
  }
  if (!IsRate(message.node_bandwidth()) || !IsDelay(message.node_latency())) {
    return Bad(source, "the node loopback needs a bandwidth above 0 and a latency of 0 or more");
  }
  model.node_bandwidth = message.node_bandwidth();
  model.node_latency = message.node_latency();
  for (const wire::Link& l : message.links()) {
    if (!IsRate(l.bandwidth()) || !IsDelay(l.latency())) {
      return Bad(source, absl::StrCat("link '", l.name(), "' needs a bandwidth above 0 and a ",
                                      "latency of 0 or more"));
    }
    model.links.push_back({l.name(), l.bandwidth(), l.latency(), l.link_class()});
  }
  const int links = message.links_size();
  absl::flat_hash_set<int64_t> routed;
  for (const wire::Route& r : message.routes()) {
    if (r.src_host() < 0 || r.src_host() >= hosts || r.dst_host() < 0 || r.dst_host() >= hosts ||
        r.src_host() == r.dst_host()) {
      return Bad(source, absl::StrCat("a route from host ", r.src_host(), " to host ", r.dst_host(),
                                      " (", hosts, " hosts)"));
    }
    if (!routed.insert(static_cast<int64_t>(r.src_host()) * hosts + r.dst_host()).second) {
      return Bad(source, absl::StrCat("two routes from host ", r.src_host(), " to ", r.dst_host()));
    }
    SimRoute route{r.src_host(), r.dst_host(), {r.links().begin(), r.links().end()}};
    for (int32_t link : route.links) {
      if (link < 0 || link >= links) {
        return Bad(source, absl::StrCat("a route names link ", link, " (", links, " links)"));
      }
    }
    model.routes.push_back(std::move(route));
  }
  for (const wire::Phase& p : message.phases()) {
    if (p.dst_host_size() != p.src_host_size() || p.bytes_size() != p.src_host_size()) {
      return Bad(source, "a phase's columns differ in length");
    }
    std::vector<SimFlow>& flows = model.phases.emplace_back();
    flows.reserve(p.src_host_size());
    for (int i = 0; i < p.src_host_size(); ++i) {
      const int32_t src = p.src_host(i), dst = p.dst_host(i);
      if (src < 0 || src >= hosts || dst < 0 || dst >= hosts) {
        return Bad(source, absl::StrCat("a flow from host ", src, " to host ", dst, " (", hosts,
                                        " hosts)"));
      }
      if (src != dst && !routed.contains(static_cast<int64_t>(src) * hosts + dst)) {
        return Bad(source, absl::StrCat("no route for a flow from ", model.hosts[src], " to ",
                                        model.hosts[dst]));
      }
      flows.push_back({src, dst, p.bytes(i)});
    }
  }
  if (message.iterations() < 1) return Bad(source, "iterations must be at least 1");
  model.iterations = message.iterations();
  return model;
}

}  // namespace hopmap::sim
