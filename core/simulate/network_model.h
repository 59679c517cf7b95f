// The network a simulation runs on and the traffic it carries, as plain data: what
// a machine, an allocation and a placement become for a flow-level network
// simulator (sim/ runs it on SimGrid). The core builds it; it knows nothing of the
// simulator.
#ifndef HOPMAP_CORE_SIMULATE_NETWORK_MODEL_H_
#define HOPMAP_CORE_SIMULATE_NETWORK_MODEL_H_

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/graph/task_graph.h"
#include "core/metrics/exchange_time.h"
#include "core/topology/allocation.h"

namespace hopmap {

// The link class of a node's inside on a machine with link classes and its own
// Machine::NodeBandwidth (the NVLink between the GPUs of one host).
inline constexpr char kNodeLinkClass[] = "nvlink";

struct SimLink {
  std::string name;        // the machine's LinkName
  double bandwidth = 0;    // bytes/s
  double latency = 0;      // seconds
  std::string link_class;  // the machine's LinkClass ("" when its links are all alike)
};

// The links one message from `src_host` to `dst_host` crosses, in order.
struct SimRoute {
  int32_t src_host = 0;
  int32_t dst_host = 0;
  std::vector<int32_t> links;  // indices into NetworkModel::links
};

struct SimFlow {
  int32_t src_host = 0;
  int32_t dst_host = 0;
  uint64_t bytes = 0;
};

// Hosts are the allocation's nodes in allocation order; a flow whose ends are on
// one host crosses that host's loopback. Each iteration runs the phases in order:
// every flow of a phase starts at once, and the next phase starts when the last
// one has arrived (bulk-synchronous).
struct NetworkModel {
  std::vector<std::string> hosts;  // node names
  double node_bandwidth = kNodeBandwidth;
  double node_latency = kNodeLatency;
  std::vector<SimLink> links;    // only the links some route crosses
  std::vector<SimRoute> routes;  // one per ordered pair of different hosts that needs one
  std::vector<std::vector<SimFlow>> phases;
  int32_t iterations = 1;
  // The machine's link classes (Machine::LinkClass), sorted; empty when its links
  // are all alike. On a machine with classes and its own NodeBandwidth (a GPU
  // host's NVLink), a host's inner flows are counted on node_link_class.
  std::vector<std::string> link_classes;
  std::string node_link_class;
};

// A message between two tasks, as a pattern phase holds it.
struct TaskFlow {
  TaskId src = 0;
  TaskId dst = 0;
  uint64_t bytes = 0;
};

// Routes follow the machine's deterministic (dimension-order) routing. `phases` are
// task flows; `slot_of_task` places them. With `all_pairs`, every ordered pair of
// different hosts gets a route (an MPI program's messages are not known ahead);
// otherwise only the pairs some flow uses. FailedPrecondition when the machine has
// no links (an explicit hop matrix: nothing to simulate on); InvalidArgument when
// `slot_of_task` does not fit the allocation.
absl::StatusOr<NetworkModel> BuildNetworkModel(const Allocation& allocation,
                                               std::span<const SlotId> slot_of_task,
                                               const std::vector<std::vector<TaskFlow>>& phases,
                                               int32_t iterations, bool all_pairs = false);

// Bytes each model link carries in one iteration (indexed as model.links): what the
// two reports below read, computed once per model.
std::vector<double> LinkBytes(const NetworkModel& model);

// The link that carries the most with the time it needs for its bytes (LinkBytes) at
// its bandwidth: the lower bound on an iteration's communication time that this one
// link sets.
struct BusiestLink {
  int32_t link = -1;  // -1: no flow leaves its node
  std::string name;
  double bytes = 0;   // per iteration
  double busy_s = 0;  // bytes / bandwidth
};
BusiestLink FindBusiestLink(const NetworkModel& model, const std::vector<double>& link_bytes);

// The bytes one iteration puts on the links of each class, in link_classes order
// (empty when the machine has none): each flow's bytes once per link its route
// crosses, as link loads count them, and a host's inner flows once on
// node_link_class.
std::vector<std::pair<std::string, double>> BytesByLinkClass(const NetworkModel& model,
                                                             const std::vector<double>& link_bytes);

// Flows in one iteration (every phase).
int64_t FlowsPerIteration(const NetworkModel& model);

}  // namespace hopmap

#endif  // HOPMAP_CORE_SIMULATE_NETWORK_MODEL_H_
