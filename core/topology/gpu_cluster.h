// GpuClusterMachine (issue 48): GPU hosts joined by NVLink inside NVLink domains and
// by a rail-optimized fabric (leaf groups under a spine layer), the network a
// training job runs on. docs/gpu.md.
#ifndef HOPMAP_CORE_TOPOLOGY_GPU_CLUSTER_H_
#define HOPMAP_CORE_TOPOLOGY_GPU_CLUSTER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/topology/machine.h"

namespace hopmap {

// The figures of each kind of link, one direction, per GPU.
struct GpuFabric {
  // NVLink: what one GPU sends per second to the NVLink switches of its domain
  // (NVLink 4, H100: 18 links x 25 GB/s = 450 GB/s each way).
  double nvlink_bandwidth = 450e9;  // bytes/s
  double nvlink_latency = 1e-6;     // seconds per link
  // The GPU's own NIC on its rail (400 Gb/s InfiniBand NDR / ConnectX-7).
  double rail_bandwidth = 50e9;  // bytes/s
  double rail_latency = 1e-6;    // seconds per link
  // Leaf-to-spine capacity below the hosts' rail capacity under a leaf group
  // (1: non-blocking, 2: half the capacity up, ...).
  double oversubscription = 1.0;
};

// What a GPU cluster is built from: a spec (gpu:HOSTS:...), a Slurm topology.yaml or a
// Kubernetes node list. Host h (machine node h) is host_names[h].
struct GpuClusterSpec {
  std::vector<std::string> host_names;
  int32_t gpus_per_host = 8;
  // The NVLink domain of each host (hosts of one domain reach each other over
  // NVLink switches, e.g. 18 hosts of 4 GPUs in a 72-GPU rack); empty: every host is
  // its own domain. Ids 0..D-1.
  std::vector<int32_t> domain_of_host;
  // The leaf group of each host: the hosts whose GPU i all sit on the same leaf
  // switch of rail i (a scalable unit). Ids 0..L-1. A domain lies inside one leaf group.
  std::vector<int32_t> leaf_of_host;
  // Names for listings and link names ("" entries: "domain3", "leaf2").
  std::vector<std::string> domain_names;
  std::vector<std::string> leaf_names;
  GpuFabric fabric;
  // The spec that reads it back ("gpu:64:...", "gpu-slurm:PATH", "gpu-k8s:PATH:...").
  std::string source;
};

// The machine: each host is one node whose slots are its GPUs (cores_per_node() =
// gpus_per_host; a slot's core index is the local GPU index, torchrun's LOCAL_RANK).
//
// Links (directed, two per undirected link; bandwidth for `hopmap simulate`):
//  - per host of a domain of more than one host: its NVLink link to the domain's
//    NVLink switches, gpus x nvlink_bandwidth ("nvlink");
//  - per host: its rails as one bundle to its leaf group's rail leaves, gpus x
//    rail_bandwidth ("rail"). NCCL stripes a host's traffic over all its NICs (a
//    channel per rail), and PXN first moves a message bound for another rail over
//    NVLink to the GPU on the destination's rail, so at flow level a host's G rails
//    act as one link of G times the bandwidth to a leaf layer that joins every host
//    of the leaf group;
//  - per leaf group (when there are several): one uplink bundle to the spine layer,
//    (hosts of the group x gpus x rail_bandwidth) / oversubscription ("spine").
// Link ids: rails 2h (up) and 2h + 1 (down) for host h; then the spine uplinks
// 2H + 2l (up) and 2H + 2l + 1 (down) for leaf group l; then the NVLink links in
// host order, up before down.
//
// Routes (one path, share 1, under either routing): same domain: host -> NVLink
// switch -> host; same leaf group: host -> leaf -> host; else host -> leaf ->
// spine -> leaf -> host. Hops are weighted as a hierarchy's distances: an NVLink
// link costs 1, a fabric link (rail bundle, spine uplink) fabric_hop_cost() = F =
// max(1, round(nvlink_bandwidth / rail_bandwidth)), so same domain = 2, same leaf
// group = 2F, across the spine = 4F.
//
// Coordinates (leaf group, domain within the leaf group, host within the domain),
// dim_names() "L", "D", "H", top first as a fat tree's.
class GpuClusterMachine final : public Machine {
 public:
  static constexpr int32_t kMaxGpusPerHost = 64;
  static constexpr int32_t kMaxHosts = 1'000'000;
  // gpu:HOSTS without prefix=/width= names its hosts host000, host001, ...
  static constexpr std::string_view kHostPrefix = "host";
  static constexpr int kHostWidth = 3;
  // gpu:HOSTS without leaf=: hosts per leaf group (a DGX SuperPOD scalable unit).
  static constexpr int32_t kDefaultLeafHosts = 32;

  // Fails, naming the field, on no hosts or more than kMaxHosts, an empty or repeated host name,
  // gpus_per_host outside 1..64, domain_of_host (unless empty) or leaf_of_host not
  // one id per host, ids that are not 0..N-1 each used, a domain across leaf
  // groups, names lists of the wrong size, fabric figures outside machine.h's
  // kMinLinkBandwidth..kMaxLinkBandwidth and (0, kMaxLinkLatency], or an
  // oversubscription below 1.
  static absl::StatusOr<GpuClusterMachine> Create(GpuClusterSpec spec);

  std::string_view kind() const override { return "gpu"; }
  // spec().source when set, else "gpu:HOSTS:gpus=G[:domain=D][:leaf=L]..." with the
  // options that differ from their defaults (the form that reads back when domains
  // and leaf groups are runs of D and L hosts, as gpu: specs make them).
  std::string Spec() const override;
  NodeId num_nodes() const override { return static_cast<NodeId>(spec_.host_names.size()); }
  int32_t Hops(NodeId a, NodeId b) const override;
  int32_t max_hops() const override { return max_hops_; }
  int32_t min_hops() const override { return min_hops_; }
  std::vector<int32_t> dims() const override;
  std::vector<std::string> dim_names() const override { return {"L", "D", "H"}; }
  void Coordinates(NodeId node, std::span<int32_t> out) const override;
  int64_t num_links() const override;
  void ForEachRouteLink(NodeId a, NodeId b, Routing routing, LinkVisitor visit) const override;
  std::string LinkName(int64_t link) const override;
  // Exact: within 2 hops a host's domain, within 2F its leaf group, within 4F all.
  std::vector<int64_t> BallSizeUpperBounds() const override;

  std::optional<double> LinkBandwidthOf(int64_t link) const override;
  std::optional<double> LinkLatencyOf(int64_t link) const override;
  // One GPU's NVLink bandwidth: two GPUs of one host exchange over NVLink.
  std::optional<double> NodeBandwidth() const override { return spec_.fabric.nvlink_bandwidth; }
  // "nvlink", "rail" or "spine".
  std::string LinkClass(int64_t link) const override;

  [[nodiscard]] const GpuClusterSpec& spec() const { return spec_; }
  [[nodiscard]] int32_t DomainOf(NodeId host) const { return domain_of_host_[host]; }
  [[nodiscard]] int32_t LeafOf(NodeId host) const { return spec_.leaf_of_host[host]; }
  [[nodiscard]] int32_t num_domains() const { return static_cast<int32_t>(domain_size_.size()); }
  [[nodiscard]] int32_t num_leaves() const { return static_cast<int32_t>(leaf_size_.size()); }
  // Hosts of domain d / leaf group l.
  [[nodiscard]] int32_t DomainSize(int32_t d) const { return domain_size_[d]; }
  [[nodiscard]] int32_t LeafSize(int32_t l) const { return leaf_size_[l]; }
  [[nodiscard]] std::string DomainName(int32_t d) const;
  [[nodiscard]] std::string LeafName(int32_t l) const;
  // F: what a fabric link costs in hops, an NVLink link costing 1.
  [[nodiscard]] int32_t fabric_hop_cost() const { return fabric_hop_cost_; }

 private:
  GpuClusterMachine() = default;
  enum class LinkKind { kRail, kSpine, kNvlink };
  struct LinkOwner {
    LinkKind kind;
    int32_t index;  // host (rail, NVLink) or leaf group (spine)
    bool up;
  };
  LinkOwner OwnerOf(int64_t link) const;
  int64_t SpineLink(int32_t leaf) const { return 2 * static_cast<int64_t>(num_nodes()) + 2 * leaf; }
  bool has_spine() const { return leaf_size_.size() > 1; }

  GpuClusterSpec spec_;
  std::vector<int32_t> domain_of_host_;  // spec's, or one domain per host
  std::vector<int32_t> domain_size_;     // hosts per domain
  std::vector<int32_t> leaf_size_;       // hosts per leaf group
  std::vector<int32_t> domain_index_;    // [d]: the domain's index within its leaf group
  std::vector<int32_t> host_index_;      // [h]: the host's index within its domain
  std::vector<int64_t> nvlink_of_host_;  // [h]: its NVLink up link id, -1 without
  std::vector<int32_t> host_of_nvlink_;  // [(id - first NVLink) / 2]: the host
  int32_t domains_per_leaf_ = 1;         // the most domains in one leaf group
  int32_t hosts_per_domain_ = 1;         // the most hosts in one domain
  int32_t fabric_hop_cost_ = 1;
  int32_t min_hops_ = 0;
  int32_t max_hops_ = 0;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_TOPOLOGY_GPU_CLUSTER_H_
