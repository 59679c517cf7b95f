// Machine: a model of a network with numbered nodes. Every model answers hop
// distances in O(1) or O(dims) (no n x n matrix) and enumerates the links a route
// uses, so link loads can be computed.
#ifndef HOPMAP_CORE_TOPOLOGY_MACHINE_H_
#define HOPMAP_CORE_TOPOLOGY_MACHINE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/topology/node_interior.h"
#include "core/topology/node_names.h"
#include "core/types.h"

namespace hopmap {

// How a route's bytes spread over links (DESIGN.md, "Link loads").
enum class Routing {
  kDimensionOrder,  // one deterministic minimal route
  kAdaptive,        // each direction split equally over all minimal paths
};
absl::StatusOr<Routing> ParseRouting(absl::string_view name);  // "dimension-order", "adaptive"
std::string RoutingName(Routing routing);

// Called with a directed link id in [0, num_links()) and the share (0, 1] of the
// route's bytes that cross it.
using LinkVisitor = absl::FunctionRef<void(int64_t link, double share)>;

// The nodes of a torus or a mesh: the grid's sizes and which dimensions wrap. Hops
// between two nodes are the per-dimension distances summed (min(|d|, D - |d|) where
// the dimension wraps, |d| where it does not); node ids follow the coordinates,
// the first fastest.
struct GridGeometry {
  std::vector<int32_t> dims;
  std::vector<bool> wrap;
};

// What link-bandwidth= and link-latency= accept: beyond these no network is meant
// (a typo of units, most likely), and a simulator's arithmetic would lose sense.
inline constexpr double kMinLinkBandwidth = 1e3;   // bytes/s: 1 kB/s
inline constexpr double kMaxLinkBandwidth = 1e14;  // bytes/s: 100 TB/s
inline constexpr double kMaxLinkLatency = 1.0;     // seconds per link

class Machine {
 public:
  virtual ~Machine() = default;

  // "torus", "mesh", "fattree", "chipmesh", "dragonfly", "hierarchy", "graph", "matrix"
  // (the rows of the kinds table, core/io/machine_kinds.h).
  [[nodiscard]] virtual std::string_view kind() const = 0;
  // A spec string that describes this model (e.g. "torus:8x8x8:cores=4").
  [[nodiscard]] virtual std::string Spec() const = 0;
  [[nodiscard]] virtual NodeId num_nodes() const = 0;
  // Hops between two nodes; 0 for a node and itself. Symmetric.
  [[nodiscard]] virtual int32_t Hops(NodeId a, NodeId b) const = 0;
  // The largest Hops() over all pairs (the diameter).
  [[nodiscard]] virtual int32_t max_hops() const = 0;
  // The smallest Hops() between two different nodes (1 on a torus, 2 on a fat tree).
  [[nodiscard]] virtual int32_t min_hops() const = 0;

  // Coordinates, for machines that have them (torus, mesh, fat tree levels,
  // chip mesh, dragonfly). dims() is empty for machines without.
  [[nodiscard]] virtual std::vector<int32_t> dims() const { return {}; }
  // One short name per dim: "X", "Y", "Z", ... for tori.
  [[nodiscard]] virtual std::vector<std::string> dim_names() const { return {}; }
  // Writes dims().size() coordinates of `node` to `out`.
  virtual void Coordinates(NodeId /*node*/, std::span<int32_t> /*out*/) const {}
  // Set for machines whose hops come from grid coordinates (torus, mesh, a torus
  // with some dimensions wrapping): what mappers ask instead of the concrete class.
  // Null for the others (their dims() do not add up to hops).
  [[nodiscard]] virtual const GridGeometry* grid_geometry() const { return nullptr; }

  // Directed links of the network model; 0 means the model has no links (an
  // explicit distance matrix), and link loads are not available.
  [[nodiscard]] virtual int64_t num_links() const = 0;
  // Visits the directed links of the route from a to b under `routing`. With one
  // path every link gets share 1; adaptive routing splits the route over all
  // minimal paths, so the shares at each step of the route add up to 1. A link
  // may be visited more than once (callers add the shares).
  virtual void ForEachRouteLink(NodeId a, NodeId b, Routing routing, LinkVisitor visit) const = 0;
  // A readable name for a link, e.g. "(1,2,0)->(2,2,0)".
  [[nodiscard]] virtual std::string LinkName(int64_t link) const = 0;

  // An upper bound, for h = 0..max_hops(), on the number of machine nodes within h
  // hops of any one node (ball sizes). Used by the lower bound; the default
  // computes it exactly by scanning every pair when that is cheap and otherwise
  // returns the weakest valid bound (1 node below min_hops(), all nodes at and above).
  [[nodiscard]] virtual std::vector<int64_t> BallSizeUpperBounds() const;

  // Things the model had to assume about its input (e.g. a virtual root switch
  // added above disconnected switches), for the user to see.
  [[nodiscard]] virtual const std::vector<std::string>& warnings() const;

  // Cores per node the machine has (an allocation may use fewer).
  [[nodiscard]] int32_t cores_per_node() const { return cores_per_node_; }
  void set_cores_per_node(int32_t cores) { cores_per_node_ = cores; }

  // Each directed link's bandwidth (bytes per second) and latency (seconds), as the
  // spec's link-bandwidth= and link-latency= gave them: what `hopmap simulate`
  // builds its network from (unset: the defaults of core/simulate). Hops and link
  // loads do not depend on them.
  [[nodiscard]] std::optional<double> link_bandwidth() const { return link_bandwidth_; }
  [[nodiscard]] std::optional<double> link_latency() const { return link_latency_; }
  // Per-link figures, for machines whose links differ (a GPU cluster's NVLink and
  // rail links): what `hopmap simulate` gives each link. The defaults are the
  // machine-wide link_bandwidth() and link_latency().
  [[nodiscard]] virtual std::optional<double> LinkBandwidthOf(int64_t /*link*/) const {
    return link_bandwidth_;
  }
  [[nodiscard]] virtual std::optional<double> LinkLatencyOf(int64_t /*link*/) const {
    return link_latency_;
  }
  // Bandwidth between two slots of one node (bytes/s; NVLink inside a GPU host);
  // nullopt: kNodeBandwidth (memory; core/metrics/exchange_time.h).
  [[nodiscard]] virtual std::optional<double> NodeBandwidth() const { return std::nullopt; }
  // The class of a link for reports that sum bytes by class ("nvlink", "rail",
  // "spine" on a GPU cluster); "" for machines whose links are all alike.
  [[nodiscard]] virtual std::string LinkClass(int64_t /*link*/) const { return ""; }
  void set_link_bandwidth(double bytes_per_second) { link_bandwidth_ = bytes_per_second; }
  void set_link_latency(double seconds) { link_latency_ = seconds; }
  // The inside of each node (node=..., NodeInterior), or null: a node is cores_per_node()
  // equal slots. When set, cores_per_node() is its number of PEs.
  [[nodiscard]] const std::shared_ptr<const NodeInterior>& node_interior() const {
    return node_interior_;
  }
  void set_node_interior(std::shared_ptr<const NodeInterior> interior) {
    node_interior_ = std::move(interior);
    if (node_interior_ != nullptr) cores_per_node_ = node_interior_->num_pes();
  }

  // ":link-bandwidth=B:link-latency=L:node=...:node-distances=...:hop-cost=H" for what
  // is set ("" when nothing is): what every Spec() appends so that the spec gives back
  // the same machine.
  [[nodiscard]] std::string SharedSpecOptions() const;

  [[nodiscard]] const NodeNames& node_names() const { return names_; }
  void set_node_names(NodeNames names) { names_ = std::move(names); }
  [[nodiscard]] std::string NodeName(NodeId node) const { return names_.Name(node); }

  // Nodes no job can be given: the cells of a Slurm torus without a host
  // (slurm-topology:, docs/formats.md). They stay in the network (hops and routes
  // cross them); Allocation::Create refuses them and the whole machine
  // (AllocatableNodes) leaves them out. None unless set.
  [[nodiscard]] bool IsVacant(NodeId node) const {
    return vacant_ != nullptr && (*vacant_)[static_cast<size_t>(node)];
  }
  [[nodiscard]] NodeId num_vacant() const { return num_vacant_; }
  // `vacant[node]` for every node, or empty: none.
  void set_vacant_nodes(std::vector<bool> vacant);
  // Every node but the vacant ones, in id order: what "the whole machine" allocates.
  [[nodiscard]] std::vector<NodeId> AllocatableNodes() const;

 private:
  int32_t cores_per_node_ = 1;
  std::optional<double> link_bandwidth_;
  std::optional<double> link_latency_;
  std::shared_ptr<const NodeInterior> node_interior_;
  NodeNames names_;
  std::shared_ptr<const std::vector<bool>> vacant_;  // shared: machines are copied cheaply
  NodeId num_vacant_ = 0;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_TOPOLOGY_MACHINE_H_
