#include "core/simulate/network_model.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace hopmap {
namespace {

// Host pairs as one key: src * hosts + dst.
int64_t PairKey(int32_t src, int32_t dst, int32_t hosts) {
  return static_cast<int64_t>(src) * hosts + dst;
}

class ModelBuilder {
 public:
  ModelBuilder(const Allocation& allocation, NetworkModel& model)
      : allocation_(allocation), machine_(allocation.machine()), model_(model) {}

  // The route from host `src` to host `dst` (different hosts), added once.
  absl::Status AddRoute(int32_t src, int32_t dst) {
    const int64_t key = PairKey(src, dst, allocation_.num_nodes());
    if (routed_.contains(key)) return absl::OkStatus();
    routed_.insert(key);
    SimRoute route{src, dst, {}};
    bool split = false;
    machine_.ForEachRouteLink(allocation_.node_at(src), allocation_.node_at(dst),
                              Routing::kDimensionOrder, [&](int64_t link, double share) {
                                if (share < 1.0) split = true;
                                route.links.push_back(LinkIndex(link));
                              });
    if (split) {
      // No model splits a dimension-order route today; a flow-level simulator
      // would need one flow per path if one did.
      return absl::InternalError(absl::StrCat("the route from ", model_.hosts[src], " to ",
                                              model_.hosts[dst], " splits over several paths"));
    }
    model_.routes.push_back(std::move(route));
    return absl::OkStatus();
  }

 private:
  int32_t LinkIndex(int64_t machine_link) {
    auto [it, inserted] =
        link_index_.try_emplace(machine_link, static_cast<int32_t>(model_.links.size()));
    if (inserted) {
      model_.links.push_back(
          {machine_.LinkName(machine_link),
           machine_.LinkBandwidthOf(machine_link).value_or(kDefaultLinkBandwidth),
           machine_.LinkLatencyOf(machine_link).value_or(kDefaultLinkLatency),
           machine_.LinkClass(machine_link)});
    }
    return it->second;
  }

  const Allocation& allocation_;
  const Machine& machine_;
  NetworkModel& model_;
  absl::flat_hash_map<int64_t, int32_t> link_index_;
  absl::flat_hash_set<int64_t> routed_;
};

// The distinct non-empty LinkClass of the machine's links, sorted.
std::vector<std::string> LinkClassesOf(const Machine& machine) {
  absl::flat_hash_set<std::string> classes;
  for (int64_t link = 0; link < machine.num_links(); ++link) {
    std::string link_class = machine.LinkClass(link);
    if (!link_class.empty()) classes.insert(std::move(link_class));
  }
  std::vector<std::string> sorted(classes.begin(), classes.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

}  // namespace

absl::StatusOr<NetworkModel> BuildNetworkModel(const Allocation& allocation,
                                               std::span<const SlotId> slot_of_task,
                                               const std::vector<std::vector<TaskFlow>>& phases,
                                               int32_t iterations, bool all_pairs) {
  const Machine& machine = allocation.machine();
  if (machine.num_links() == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("machine '", machine.Spec(),
                     "' has no links (an explicit hop matrix): there is no network to simulate"));
  }
  if (iterations < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("iterations must be at least 1, got ", iterations));
  }
  const int32_t num_hosts = allocation.num_nodes();
  NetworkModel model;
  model.iterations = iterations;
  model.node_bandwidth = machine.NodeBandwidth().value_or(kNodeBandwidth);
  model.link_classes = LinkClassesOf(machine);
  if (!model.link_classes.empty() && machine.NodeBandwidth().has_value()) {
    model.node_link_class = kNodeLinkClass;
    if (!std::binary_search(model.link_classes.begin(), model.link_classes.end(),
                            model.node_link_class)) {
      model.link_classes.push_back(model.node_link_class);
      std::sort(model.link_classes.begin(), model.link_classes.end());
    }
  }
  model.hosts.reserve(num_hosts);
  for (int32_t p = 0; p < num_hosts; ++p)
    model.hosts.push_back(machine.NodeName(allocation.node_at(p)));

  std::vector<int32_t> host_of_task(slot_of_task.size());
  for (size_t t = 0; t < slot_of_task.size(); ++t) {
    const SlotId slot = slot_of_task[t];
    if (slot < 0 || slot >= allocation.num_slots()) {
      return absl::InvalidArgumentError(absl::StrCat("task ", t, " is placed on slot ", slot,
                                                     ", outside the allocation's ",
                                                     allocation.num_slots(), " slots"));
    }
    host_of_task[t] = allocation.PositionOfSlot(slot);
  }

  ModelBuilder builder(allocation, model);
  if (all_pairs) {
    for (int32_t a = 0; a < num_hosts; ++a) {
      for (int32_t b = 0; b < num_hosts; ++b) {
        if (a == b) continue;
        if (absl::Status s = builder.AddRoute(a, b); !s.ok()) return s;
      }
    }
  }
  model.phases.reserve(phases.size());
  for (const std::vector<TaskFlow>& phase : phases) {
    std::vector<SimFlow>& flows = model.phases.emplace_back();
    flows.reserve(phase.size());
    for (const TaskFlow& flow : phase) {
      if (flow.src < 0 || flow.dst < 0 || static_cast<size_t>(flow.src) >= host_of_task.size() ||
          static_cast<size_t>(flow.dst) >= host_of_task.size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "a flow from task ", flow.src, " to task ", flow.dst, " names a task the placement ",
            "does not have (", host_of_task.size(), " tasks)"));
      }
      const int32_t src = host_of_task[flow.src];
      const int32_t dst = host_of_task[flow.dst];
      if (src != dst) {
        if (absl::Status s = builder.AddRoute(src, dst); !s.ok()) return s;
      }
      flows.push_back({src, dst, flow.bytes});
    }
  }
  return model;
}

std::vector<double> LinkBytes(const NetworkModel& model) {
  absl::flat_hash_map<int64_t, const SimRoute*> route_of;
  route_of.reserve(model.routes.size());
  const int32_t hosts = static_cast<int32_t>(model.hosts.size());
  for (const SimRoute& route : model.routes) {
    route_of[PairKey(route.src_host, route.dst_host, hosts)] = &route;
  }
  std::vector<double> bytes(model.links.size(), 0.0);
  for (const std::vector<SimFlow>& phase : model.phases) {
    for (const SimFlow& flow : phase) {
      if (flow.src_host == flow.dst_host) continue;
      auto it = route_of.find(PairKey(flow.src_host, flow.dst_host, hosts));
      if (it == route_of.end()) continue;  // BuildNetworkModel routes every flow
      for (int32_t link : it->second->links) bytes[link] += static_cast<double>(flow.bytes);
    }
  }
  return bytes;
}

BusiestLink FindBusiestLink(const NetworkModel& model, const std::vector<double>& bytes) {
  BusiestLink busiest;
  for (size_t l = 0; l < model.links.size(); ++l) {
    const double busy = bytes[l] / model.links[l].bandwidth;
    // Strictly greater: the first such link in model order wins a tie.
    if (bytes[l] > 0 && busy > busiest.busy_s) {
      busiest = {static_cast<int32_t>(l), model.links[l].name, bytes[l], busy};
    }
  }
  return busiest;
}

std::vector<std::pair<std::string, double>> BytesByLinkClass(const NetworkModel& model,
                                                             const std::vector<double>& bytes) {
  std::vector<std::pair<std::string, double>> by_class;
  if (model.link_classes.empty()) return by_class;
  for (const std::string& link_class : model.link_classes) by_class.emplace_back(link_class, 0.0);
  auto add = [&](const std::string& link_class, double bytes) {
    for (auto& [name, total] : by_class) {
      if (name == link_class) total += bytes;
    }
  };
  for (size_t l = 0; l < model.links.size(); ++l) add(model.links[l].link_class, bytes[l]);
  if (!model.node_link_class.empty()) {
    for (const std::vector<SimFlow>& phase : model.phases) {
      for (const SimFlow& flow : phase) {
        if (flow.src_host == flow.dst_host)
          add(model.node_link_class, static_cast<double>(flow.bytes));
      }
    }
  }
  return by_class;
}

int64_t FlowsPerIteration(const NetworkModel& model) {
  int64_t flows = 0;
  for (const std::vector<SimFlow>& phase : model.phases)
    flows += static_cast<int64_t>(phase.size());
  return flows;
}

}  // namespace hopmap
