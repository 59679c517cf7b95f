// SwitchGraphMachine: an explicit network of compute nodes and switches (a Slurm
// topology.conf tree, or any switch graph), hops by breadth-first search.
#ifndef HOPMAP_CORE_TOPOLOGY_SWITCH_GRAPH_H_
#define HOPMAP_CORE_TOPOLOGY_SWITCH_GRAPH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/topology/machine.h"
#include "core/types.h"

namespace hopmap {

// What a switch graph is built from. Names are unique over nodes and switches.
struct SwitchGraphSpec {
  // Compute nodes: node i (machine id i) is node_names[i].
  std::vector<std::string> node_names;
  std::vector<std::string> switch_names;
  // Undirected links, node-switch or switch-switch, by name (node-node links are
  // rejected). For a switch-switch link the first switch is read as the parent
  // (the one above), which only matters when a virtual root is added. A link listed
  // twice is kept once (with a warning).
  std::vector<std::pair<std::string, std::string>> links;
  // The spec string that reads it back ("slurm:PATH", "graph:PATH"); may be empty.
  std::string source;
};

// Vertices are the compute nodes (machine ids 0..N-1) and the switches; compute
// nodes never forward traffic, so a route is node -> switch ... switch -> node.
// Hops between two different nodes = the number of links on a shortest such path:
// 2 for two nodes on one switch, min over the attachment pairs (sa, sb) of the two
// nodes of d(sa, sb) + 2, with d the switch-to-switch distance (precomputed, an
// S x S matrix, so S is limited to kMaxSwitches).
//
// A graph whose switches are not connected gets a virtual switch "hopmap-root"
// (another name if that one is taken) linked to one switch of every connected
// group: the lowest-numbered switch of the group that is no other switch's child
// (the second of a switch-switch link), or the group's lowest-numbered switch if
// every switch has a parent. warnings() says so.
//
// Links: undirected link e (spec.links in order, duplicates dropped, then the
// virtual root's links) gives two directed link ids: 2e (first -> second as listed)
// and 2e + 1 (back). Dimension-order routing follows one deterministic shortest
// path: the first attachment pair with the smallest distance (the source node's
// attachments in order, then the destination's), and at each switch the
// neighbouring switch with the smallest id that is one step closer. Adaptive
// routing splits the route equally over the attachment pairs with the smallest
// distance and, within a pair, equally over all its shortest paths: the link s->t
// carries paths(sa->s) * paths(t->sb) / paths(sa->sb) of the pair's share.
class SwitchGraphMachine final : public Machine {
 public:
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  static constexpr int32_t kMaxSwitches = 1024;  // fuzz builds: see CMakeLists.txt
#else
  static constexpr int32_t kMaxSwitches = 8192;
#endif
  static constexpr std::string_view kVirtualRootName = "hopmap-root";

  // Fails on: no nodes, an empty or repeated name, a link naming an undeclared
  // vertex, a link from a vertex to itself, a node-node link, a node attached to no
  // switch, more than kMaxSwitches switches (counting a virtual root).
  static absl::StatusOr<SwitchGraphMachine> Create(SwitchGraphSpec spec);

  std::string_view kind() const override { return "graph"; }
  // The spec that reads this machine back ("slurm:PATH", "graph:PATH"), or "graph".
  std::string Spec() const override;
  NodeId num_nodes() const override { return num_nodes_; }
  int32_t Hops(NodeId a, NodeId b) const override;
  int32_t max_hops() const override { return data_->max_hops; }
  int32_t min_hops() const override { return data_->min_hops; }
  int64_t num_links() const override { return 2 * static_cast<int64_t>(data_->edge_from.size()); }
  void ForEachRouteLink(NodeId a, NodeId b, Routing routing, LinkVisitor visit) const override;
  // "s0->s4", "circe-n001->s0"; "" for an id out of range.
  std::string LinkName(int64_t link) const override;

  // Switches, numbered in the spec's order; a virtual root is the last one.
  [[nodiscard]] int32_t num_switches() const { return data_->num_switches; }
  [[nodiscard]] const std::string& switch_name(int32_t s) const { return data_->switch_names[s]; }
  // The switches `node` is linked to, in link order.
  [[nodiscard]] std::vector<int32_t> SwitchesOfNode(NodeId node) const;
  // The directed links of those attachments, in the same order: (node -> switch,
  // switch -> node).
  [[nodiscard]] std::vector<std::pair<int64_t, int64_t>> NodeLinks(NodeId node) const;
  // Links on a shortest path between two switches.
  [[nodiscard]] int32_t SwitchHops(int32_t s, int32_t t) const {
    return data_->dist[static_cast<size_t>(s) * data_->num_switches + t];
  }
  // Whether a virtual root switch was added (then it is switch num_switches() - 1).
  [[nodiscard]] bool has_virtual_root() const { return data_->has_virtual_root; }
  // Things Create fixed or dropped (a virtual root, duplicate links).
  [[nodiscard]] const std::vector<std::string>& warnings() const override {
    return data_->warnings;
  }
  [[nodiscard]] const std::string& source() const { return source_; }
  void set_source(std::string source) { source_ = std::move(source); }
  // What Create rebuilds this machine from, link for link: its nodes, its switches (a
  // virtual root as an ordinary last switch) and its links in link order, each as
  // it is directed (duplicates dropped), with source().
  [[nodiscard]] SwitchGraphSpec ToSpec() const;

 private:
  struct Data {
    int32_t num_switches = 0;
    std::vector<std::string> switch_names;
    bool has_virtual_root = false;
    // Undirected link e joins vertex edge_from[e] and edge_to[e] (nodes are
    // 0..N-1, switch s is N + s).
    std::vector<int32_t> edge_from, edge_to;
    // Node attachments (CSR over nodes): switch, link node->switch, link back.
    std::vector<int64_t> att_offsets;
    std::vector<int32_t> att_switch;
    std::vector<int64_t> att_up, att_down;
    // Switch-switch adjacency (CSR over switches, neighbours in increasing order)
    // and the directed link to each neighbour.
    std::vector<int64_t> sw_offsets;
    std::vector<int32_t> sw_adj;
    std::vector<int64_t> sw_link;
    std::vector<uint16_t> dist;  // S x S switch distances
    int32_t min_hops = 0, max_hops = 0;
    std::vector<std::string> warnings;
  };

  SwitchGraphMachine() = default;
  [[nodiscard]] int32_t Dist(int32_t s, int32_t t) const {
    return data_->dist[static_cast<size_t>(s) * data_->num_switches + t];
  }
  // The attachment pairs (indices into att_*) of a and b with the smallest
  // distance, in order, and that distance.
  int32_t BestPairs(NodeId a, NodeId b, std::vector<std::pair<int64_t, int64_t>>* pairs) const;
  std::string VertexName(int32_t v) const;

  NodeId num_nodes_ = 0;
  std::string source_;
  std::shared_ptr<const Data> data_;  // shared: machines are copied cheaply
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_TOPOLOGY_SWITCH_GRAPH_H_
