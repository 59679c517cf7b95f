#include "sim/simgrid_platform.h"

#include <stdexcept>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "simgrid/kernel/routing/NetPoint.hpp"
#include "simgrid/kernel/routing/NetZoneImpl.hpp"
#include "simgrid/s4u.hpp"

namespace hopmap::sim {
namespace {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

// A netzone that answers each host pair with the route the model lists. SimGrid's
// FullZone would hold a hosts x hosts table (16 million entries at 4,096 hosts);
// the model routes only the pairs that exchange messages.
class ModelRoutesZone : public simgrid::kernel::routing::NetZoneImpl {
 public:
  explicit ModelRoutesZone(const std::string& name) : NetZoneImpl(name) {}

  struct Path {
    std::vector<sg4::Link*> links;
    double latency = 0;
  };
  void SetPath(const NetPoint* src, const NetPoint* dst, Path path) {
    paths_[Key(src, dst)] = std::move(path);
  }

  void get_local_route(const NetPoint* src, const NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override {
    auto it = paths_.find(Key(src, dst));
    if (it == paths_.end()) {
      // The codec checked that every flow has a route; an MPI program's messages
      // have all pairs (BuildNetworkModel's all_pairs).
      throw std::invalid_argument("hopmap network model: no route from " + src->get_name() +
                                  " to " + dst->get_name());
    }
    for (sg4::Link* link : it->second.links) into->link_list_.push_back(link->get_impl());
    if (latency != nullptr) *latency += it->second.latency;
  }

 private:
  static uint64_t Key(const NetPoint* src, const NetPoint* dst) {
    return (static_cast<uint64_t>(src->id()) << 32) | static_cast<uint64_t>(dst->id());
  }
  absl::flat_hash_map<uint64_t, Path> paths_;
};

}  // namespace

std::vector<sg4::Host*> BuildSimGridPlatform(const NetworkModel& model) {
  // Like sg4::create_full_zone: the first netzone made becomes the platform's root.
  auto* zone_impl = new ModelRoutesZone("hopmap");
  sg4::NetZone* zone = zone_impl->get_iface();
  constexpr double kHostSpeed = 1e9;  // flop/s; only SMPI's compute blocks use it
  std::vector<sg4::Host*> hosts;
  hosts.reserve(model.hosts.size());
  for (const std::string& name : model.hosts) {
    sg4::Host* host = zone->create_host(name, kHostSpeed);
    // The inside of the node: every message between two of its cores gets the
    // whole loopback (a fat pipe shares nothing).
    sg4::Link* loopback = zone->create_link(name + ":node", model.node_bandwidth)
                              ->set_latency(model.node_latency)
                              ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
                              ->seal();
    zone_impl->SetPath(host->get_netpoint(), host->get_netpoint(),
                       {{loopback}, model.node_latency});
    host->seal();
    hosts.push_back(host);
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
  for (const SimRoute& route : model.routes) {
    ModelRoutesZone::Path path;
    for (int32_t l : route.links) {
      path.links.push_back(links[l]);
      path.latency += model.links[l].latency;
    }
    zone_impl->SetPath(hosts[route.src_host]->get_netpoint(), hosts[route.dst_host]->get_netpoint(),
                       std::move(path));
  }
  zone->seal();
  return hosts;
}

double RunModelTraffic(sg4::Engine& engine, const NetworkModel& model,
                       const std::vector<sg4::Host*>& hosts) {
  // One actor per host sends its flows to the destination hosts' mailboxes and
  // receives as many as come to it; a barrier closes each phase. (Comm::sendto
  // from one actor would be simpler, but SimGrid 3.32 keeps such detached comms
  // in one list that each finishing comm searches: quadratic in the flows of a
  // phase, 3 s per iteration at 24,576 flows against 0.2 s this way.)
  const size_t num_hosts = hosts.size();
  const size_t num_phases = model.phases.size();
  struct HostWork {
    std::vector<std::vector<const SimFlow*>> sends;  // per phase
    std::vector<int> receives;                       // per phase
  };
  auto work = std::make_shared<std::vector<HostWork>>(num_hosts);
  for (HostWork& w : *work) {
    w.sends.resize(num_phases);
    w.receives.assign(num_phases, 0);
  }
  for (size_t p = 0; p < num_phases; ++p) {
    for (const SimFlow& flow : model.phases[p]) {
      (*work)[flow.src_host].sends[p].push_back(&flow);
      ++(*work)[flow.dst_host].receives[p];
    }
  }
  std::vector<sg4::Mailbox*> mailboxes(num_hosts);
  for (size_t h = 0; h < num_hosts; ++h) mailboxes[h] = sg4::Mailbox::by_name(model.hosts[h]);
  sg4::BarrierPtr end_of_phase = sg4::Barrier::create(static_cast<unsigned>(num_hosts));
  double finished = 0;
  for (size_t h = 0; h < num_hosts; ++h) {
    sg4::Actor::create(model.hosts[h], hosts[h], [&, h, work, end_of_phase] {
      static int payload = 0;  // what a message carries does not matter, its size does
      const HostWork& mine = (*work)[h];
      std::vector<sg4::CommPtr> comms;
      std::vector<int*> received;
      for (int32_t i = 0; i < model.iterations; ++i) {
        for (size_t p = 0; p < num_phases; ++p) {
          comms.clear();
          received.assign(mine.receives[p], nullptr);
          for (int k = 0; k < mine.receives[p]; ++k) {
            comms.push_back(mailboxes[h]->get_async<int>(&received[k]));
          }
          for (const SimFlow* flow : mine.sends[p]) {
            comms.push_back(mailboxes[flow->dst_host]->put_async(&payload, flow->bytes));
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
