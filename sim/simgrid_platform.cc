#include "sim/simgrid_platform.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "simgrid/kernel/resource/NetworkModelIntf.hpp"
#include "simgrid/kernel/routing/NetPoint.hpp"
#include "simgrid/kernel/routing/NetZoneImpl.hpp"
#include "simgrid/s4u.hpp"
#include "xbt/config.hpp"

namespace hopmap::sim {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

// A netzone that answers each host pair with the route the model lists. SimGrid's
// FullZone would hold a hosts x hosts table (16 million entries at 4,096 hosts);
// the model routes only the pairs that exchange messages.
//
// With own_penalties, it also tells SimGrid each flow's LV08 figures, which SimGrid
// would otherwise derive from the links of the route (NetworkCm02Model::communicate,
// src/surf/network_cm02.cpp in SimGrid 3.32):
//  - the sharing penalty, latency + weight-S / bandwidth summed over the route in
//    route order: SimGrid takes the route's latency as the penalty and adds
//    weight-S / bandwidth per link, so with weight-S set to 0 the latency this zone
//    answers is the penalty (divided by k for k merged flows);
//  - the delay, latency-factor x latency: the latency factor callback returns
//    latency-factor x latency / penalty;
//  - TCP's window bound on the rate, TCP-gamma / (2 x latency): TCP-gamma is set
//    huge and each comm carries the bound as its rate (CommRate).
// A route without latency keeps SimGrid's own figures: LV08 gives such a flow a
// penalty of 1 and no window bound whatever its links. The route's bandwidth bound
// (its narrowest link) stays with it: a redundant link has no less bandwidth than
// the one that makes it so, which stays.
class ModelRoutesZone : public simgrid::kernel::routing::NetZoneImpl {
 public:
  ModelRoutesZone(const std::string& name, bool own_penalties)
      : NetZoneImpl(name), own_penalties_(own_penalties) {}
  // SimGrid's figures, which exist once this zone (the root) does.
  void SetFactors(const Lv08Factors& factors) { factors_ = factors; }

  struct Path {
    std::vector<sg4::Link*> links;  // the ones SimGrid sees
    double latency = 0;             // the sum over the route's links
    double penalty = 0;             // LV08's sharing penalty (own_penalties only)
  };
  static uint64_t Key(const NetPoint* src, const NetPoint* dst) {
    return (static_cast<uint64_t>(src->id()) << 32) | static_cast<uint64_t>(dst->id());
  }
  void SetPath(const NetPoint* src, const NetPoint* dst, Path path) {
    paths_[Key(src, dst)] = std::move(path);
  }
  const Path& PathOf(const NetPoint* src, const NetPoint* dst) const {
    auto it = paths_.find(Key(src, dst));
    if (it == paths_.end()) {
      // The codec checked that every flow has a route; an MPI program's messages
      // have all pairs (BuildNetworkModel's all_pairs).
      throw std::invalid_argument("hopmap network model: no route from " + src->get_name() +
                                  " to " + dst->get_name());
    }
    return it->second;
  }
  // How many messages each flow that starts from now on stands for, by Key (1 when
  // absent): the current phase's merged flows. The map outlives the phase.
  void SetMultiplicities(const absl::flat_hash_map<uint64_t, int32_t>* multiplicities) {
    multiplicities_ = multiplicities;
  }
  int32_t MultiplicityOf(const NetPoint* src, const NetPoint* dst) const {
    if (multiplicities_ == nullptr) return 1;
    auto it = multiplicities_->find(Key(src, dst));
    return it == multiplicities_->end() ? 1 : it->second;
  }

  // The latency SimGrid is told for a flow from src to dst.
  double AnsweredLatency(const NetPoint* src, const NetPoint* dst) const {
    const Path& path = PathOf(src, dst);
    if (!own_penalties_ || path.latency == 0) return path.latency;
    return path.penalty / MultiplicityOf(src, dst);
  }
  // The latency factor that turns AnsweredLatency into latency-factor x latency.
  double LatencyFactor(const NetPoint* src, const NetPoint* dst) const {
    const Path& path = PathOf(src, dst);
    if (path.latency == 0) return factors_.latency_factor;
    return factors_.latency_factor * path.latency / AnsweredLatency(src, dst);
  }
  // The rate a comm from src to dst standing for `k` messages carries: k x the
  // window bound (-1: none).
  double CommRate(const NetPoint* src, const NetPoint* dst, int32_t k) const {
    const Path& path = PathOf(src, dst);
    if (!own_penalties_ || path.latency == 0) return -1;
    return k * (factors_.bandwidth_factor * factors_.tcp_gamma / (2 * path.latency));
  }

  void get_local_route(const NetPoint* src, const NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override {
    for (sg4::Link* link : PathOf(src, dst).links) into->link_list_.push_back(link->get_impl());
    if (latency != nullptr) *latency += AnsweredLatency(src, dst);
  }

 private:
  const bool own_penalties_;
  Lv08Factors factors_;
  absl::flat_hash_map<uint64_t, Path> paths_;
  const absl::flat_hash_map<uint64_t, int32_t>* multiplicities_ = nullptr;
};

SimGridPlatform BuildSimGridPlatform(const NetworkModel& model, const SimulationOptions& options) {
  const bool own_penalties = options.drop_redundant_links || options.merge_alike_flows;
  // Like sg4::create_full_zone: the first netzone made becomes the platform's root
  // and sets up SimGrid's models (LV08 for the network), whose figures hold from then.
  SimGridPlatform platform;
  auto* zone_impl = new ModelRoutesZone("hopmap", own_penalties);
  platform.zone = zone_impl;
  sg4::NetZone* zone = zone_impl->get_iface();
  platform.factors = {
      .latency_factor = simgrid::config::get_value<double>("network/latency-factor"),
      .bandwidth_factor = simgrid::config::get_value<double>("network/bandwidth-factor"),
      .tcp_gamma = simgrid::config::get_value<double>("network/TCP-gamma")};
  const double weight_s = simgrid::config::get_value<double>("network/weight-S");
  zone_impl->SetFactors(platform.factors);
  constexpr double kHostSpeed = 1e9;  // flop/s; only SMPI's compute blocks use it
  // A route that crosses `all` (each link's latency and bandwidth), of which
  // SimGrid sees `kept`.
  auto add_path = [&](int32_t src, int32_t dst, std::vector<sg4::Link*> kept,
                      const std::vector<std::pair<double, double>>& all) {
    ModelRoutesZone::Path path;
    path.links = std::move(kept);
    for (const auto& [latency, bandwidth] : all) path.latency += latency;
    path.penalty = path.latency;
    for (const auto& [latency, bandwidth] : all) path.penalty = path.penalty + weight_s / bandwidth;
    zone_impl->SetPath(platform.hosts[src]->get_netpoint(), platform.hosts[dst]->get_netpoint(),
                       std::move(path));
  };
  platform.hosts.reserve(model.hosts.size());
  for (const std::string& name : model.hosts) {
    sg4::Host* host = zone->create_host(name, kHostSpeed);
    // The inside of the node: every message between two of its cores gets the
    // whole loopback (a fat pipe shares nothing).
    sg4::Link* loopback = zone->create_link(name + ":node", model.node_bandwidth)
                              ->set_latency(model.node_latency)
                              ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
                              ->seal();
    host->seal();
    platform.hosts.push_back(host);
    const auto h = static_cast<int32_t>(platform.hosts.size() - 1);
    add_path(h, h, {loopback}, {{model.node_latency, model.node_bandwidth}});
  }
  std::vector<sg4::Link*> links;
  links.reserve(model.links.size());
  for (size_t l = 0; l < model.links.size(); ++l) {
    const SimLink& link = model.links[l];
    // Model order makes names unique even where a machine names two links alike.
    links.push_back(zone->create_link(std::to_string(l) + ":" + link.name, link.bandwidth)
                        ->set_latency(link.latency)
                        ->seal());
  }
  std::vector<bool> redundant(model.links.size(), false);
  if (options.drop_redundant_links) redundant = RedundantLinks(model);
  for (const SimRoute& route : model.routes) {
    std::vector<sg4::Link*> kept;
    std::vector<std::pair<double, double>> all;
    for (int32_t l : route.links) {
      if (!redundant[l]) kept.push_back(links[l]);
      all.emplace_back(model.links[l].latency, model.links[l].bandwidth);
    }
    add_path(route.src_host, route.dst_host, std::move(kept), all);
  }
  if (own_penalties) {
    simgrid::config::set_value("network/weight-S", 0.0);
    simgrid::config::set_value("network/TCP-gamma", 1e200);
    zone->get_network_model()->set_lat_factor_cb(
        [zone_impl](double /*size*/, const sg4::Host* src, const sg4::Host* dst,
                    const std::vector<sg4::Link*>& /*route*/,
                    const std::unordered_set<sg4::NetZone*>& /*zones*/) {
          return zone_impl->LatencyFactor(src->get_netpoint(), dst->get_netpoint());
        });
  }
  zone->seal();
  return platform;
}

double RunModelTraffic(sg4::Engine& engine, const NetworkModel& model,
                       const SimGridPlatform& platform, const SimulationOptions& options) {
  // One actor per host sends its flows to the destination hosts' mailboxes and
  // receives as many as come to it; a barrier closes each phase. (Comm::sendto
  // from one actor would be simpler, but SimGrid 3.32 keeps such detached comms
  // in one list that each finishing comm searches: quadratic in the flows of a
  // phase, 3 s per iteration at 24,576 flows against 0.2 s this way.)
  const std::vector<sg4::Host*>& hosts = platform.hosts;
  const size_t num_hosts = hosts.size();
  const size_t num_phases = model.phases.size();
  std::vector<double> time_step(num_phases, kMinTimeStep);
  if (options.time_step_fraction > 0) {
    const std::vector<double> bounds = PhaseTimeLowerBounds(model, platform.factors);
    // Each completion SimGrid takes a step early can end its flows up to a step
    // early, and the phase has at most one completion per flow: a step of fraction x
    // bound / flows keeps the phase within fraction of its time. (Without the
    // division a phase of many flows ending at distinct times drifted: MiniMD's
    // graph on a Slurm block topology ran in 0.059 s where its busiest link alone
    // needs 0.147 s.)
    for (size_t p = 0; p < num_phases; ++p) {
      const double flows = static_cast<double>(std::max<size_t>(1, model.phases[p].size()));
      time_step[p] = std::max(kMinTimeStep, options.time_step_fraction * bounds[p] / flows);
    }
  }
  struct Send {
    int32_t dst_host;
    uint64_t bytes;
    double rate;  // -1: none
  };
  struct HostWork {
    std::vector<std::vector<Send>> sends;  // per phase
    std::vector<int> receives;             // per phase
  };
  auto work = std::make_shared<std::vector<HostWork>>(num_hosts);
  for (HostWork& w : *work) {
    w.sends.resize(num_phases);
    w.receives.assign(num_phases, 0);
  }
  // Per phase, the merged flows' multiplicities (ModelRoutesZone::SetMultiplicities).
  auto multiplicities =
      std::make_shared<std::vector<absl::flat_hash_map<uint64_t, int32_t>>>(num_phases);
  for (size_t p = 0; p < num_phases; ++p) {
    // The flows of each pair of different hosts, and whether they are all alike.
    struct Pair {
      int32_t count = 0;
      uint64_t bytes = 0;
      bool alike = true;
      bool sent = false;
    };
    absl::flat_hash_map<uint64_t, Pair> pairs;
    if (options.merge_alike_flows) {
      for (const SimFlow& flow : model.phases[p]) {
        if (flow.src_host == flow.dst_host) continue;
        Pair& pair = pairs[ModelRoutesZone::Key(hosts[flow.src_host]->get_netpoint(),
                                                hosts[flow.dst_host]->get_netpoint())];
        if (pair.count++ == 0) pair.bytes = flow.bytes;
        uint64_t total = 0;
        if (flow.bytes != pair.bytes || __builtin_mul_overflow(pair.bytes, pair.count, &total)) {
          pair.alike = false;
        }
      }
    }
    for (const SimFlow& flow : model.phases[p]) {
      const NetPoint* src = hosts[flow.src_host]->get_netpoint();
      const NetPoint* dst = hosts[flow.dst_host]->get_netpoint();
      int32_t k = 1;
      if (flow.src_host != flow.dst_host && options.merge_alike_flows) {
        const uint64_t key = ModelRoutesZone::Key(src, dst);
        Pair& pair = pairs.at(key);
        if (pair.alike && pair.count > 1) {
          if (pair.sent) continue;  // the first of them stands for all
          pair.sent = true;
          k = pair.count;
          (*multiplicities)[p][key] = k;
        }
      }
      (*work)[flow.src_host].sends[p].push_back({flow.dst_host,
                                                 flow.bytes * static_cast<uint64_t>(k),
                                                 platform.zone->CommRate(src, dst, k)});
      ++(*work)[flow.dst_host].receives[p];
    }
  }
  std::vector<sg4::Mailbox*> mailboxes(num_hosts);
  for (size_t h = 0; h < num_hosts; ++h) mailboxes[h] = sg4::Mailbox::by_name(model.hosts[h]);
  sg4::BarrierPtr end_of_phase = sg4::Barrier::create(static_cast<unsigned>(num_hosts));
  double finished = 0;
  for (size_t h = 0; h < num_hosts; ++h) {
    sg4::Actor::create(model.hosts[h], hosts[h], [&, h, work, multiplicities, end_of_phase] {
      static int payload = 0;  // what a message carries does not matter, its size does
      const HostWork& mine = (*work)[h];
      std::vector<sg4::CommPtr> comms;
      std::vector<int*> received;
      for (int32_t i = 0; i < model.iterations; ++i) {
        for (size_t p = 0; p < num_phases; ++p) {
          // Every actor is here at the same date with the previous phase's flows all
          // done, and SimGrid starts no comm and solves no sharing until every one
          // of them has run: what actor 0 sets now holds for the whole phase.
          if (h == 0) {
            platform.zone->SetMultiplicities(&(*multiplicities)[p]);
            if (options.time_step_fraction > 0) {
              sg4::Engine::set_config("surf/precision", time_step[p]);
            }
          }
          comms.clear();
          received.assign(mine.receives[p], nullptr);
          for (int k = 0; k < mine.receives[p]; ++k) {
            comms.push_back(mailboxes[h]->get_async<int>(&received[k]));
          }
          for (const Send& send : mine.sends[p]) {
            sg4::CommPtr comm = mailboxes[send.dst_host]->put_init(&payload, send.bytes);
            if (send.rate > 0) comm->set_rate(send.rate);
            comms.push_back(comm->start());
          }
          sg4::Comm::wait_all(comms);
          end_of_phase->wait();
        }
      }
      if (h == 0) finished = sg4::Engine::get_clock();
    });
  }
  engine.run();
  return finished;
}

}  // namespace hopmap::sim
