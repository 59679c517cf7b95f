// Dragonfly (Kim et al., canonical): groups of all-to-all connected routers, one
// global link between every two groups.
#ifndef HOPMAP_CORE_TOPOLOGY_DRAGONFLY_H_
#define HOPMAP_CORE_TOPOLOGY_DRAGONFLY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/topology/machine.h"

namespace hopmap {

// G groups of A routers, P nodes per router. Node id = (g * A + r) * P + p;
// dims() = {G, A, P} ("G", "R", "P"), Coordinates() = (g, r, p).
//
// Routers of a group are connected all-to-all (local links); every pair of
// groups has exactly one global link. Placement ("consecutive"): group g's links
// to the other groups j != g are ordered by k = (j - g - 1) mod G, k = 0..G-2, and
// link k sits on router k / h of group g, with h = ceil((G-1) / A) global links per
// router. The router of group g holding the link to group j is the gateway
// Gateway(g, j); the link arrives in j at router Gateway(j, g).
//
// Hops count every link, including the node-router links (as in the fat tree):
// same node 0, same router 2, same group and another router 3, another group
// 1 + (source router != Gateway(g, j)) + 1 + (destination router != Gateway(j, g))
// + 1, i.e. 3 to 5.
//
// Links, directed, with dense ids (n nodes, R = G * A routers):
//   [0, 2n)                 2 * node + {0: injection node -> router,
//                           1: ejection router -> node}
//   next R * (A-1) ids      local links: base + (g * A + r) * (A-1) + j for r -> r'
//                           in group g, j = r' if r' < r else r' - 1
//   next G * (G-1) ids      global links: base + g * (G-1) + k for group g's link k
//                           (to group (g + k + 1) mod G), leaving router k / h
// Routing is minimal: injection, local hop to the gateway if needed, the global
// link, local hop from the arrival router if needed, ejection. There is exactly
// one such path, so dimension-order and adaptive routing are identical, every link
// has share 1 and a route visits Hops(a, b) links.
class DragonflyMachine final : public Machine {
 public:
  // Fails on a size < 1 or more nodes than hopmap supports (kMaxTasks).
  static absl::StatusOr<DragonflyMachine> Create(int32_t groups, int32_t routers_per_group,
                                                 int32_t nodes_per_router);

  std::string_view kind() const override { return "dragonfly"; }
  std::string Spec() const override;  // "dragonfly:G,A,P:cores=C"
  NodeId num_nodes() const override { return num_nodes_; }
  int32_t Hops(NodeId a, NodeId b) const override;
  int32_t max_hops() const override { return max_hops_; }
  int32_t min_hops() const override { return min_hops_; }
  std::vector<int32_t> dims() const override { return {groups_, routers_, nodes_per_router_}; }
  std::vector<std::string> dim_names() const override { return {"G", "R", "P"}; }
  void Coordinates(NodeId node, std::span<int32_t> out) const override;
  int64_t num_links() const override { return num_links_; }
  void ForEachRouteLink(NodeId a, NodeId b, Routing routing, LinkVisitor visit) const override;
  std::string LinkName(int64_t link) const override;
  // Exact, in O(A): the distance profile of a node depends only on how many
  // global links its router holds (m_r = min(h, max(0, G-1 - r*h))), not on its
  // group; the bound is the maximum over the A routers of a group.
  std::vector<int64_t> BallSizeUpperBounds() const override;

  [[nodiscard]] int32_t groups() const { return groups_; }
  [[nodiscard]] int32_t routers_per_group() const { return routers_; }
  [[nodiscard]] int32_t nodes_per_router() const { return nodes_per_router_; }
  // h: global links per router (at least 1).
  [[nodiscard]] int64_t global_links_per_router() const { return h_; }
  // The router (0..A-1) of group g holding the global link to group j != g.
  [[nodiscard]] int32_t Gateway(int32_t g, int32_t j) const {
    return static_cast<int32_t>(GlobalIndex(g, j) / h_);
  }

 private:
  DragonflyMachine() = default;
  // k of group g's link to group j.
  int64_t GlobalIndex(int32_t g, int32_t j) const {
    return ((static_cast<int64_t>(j) - g - 1) % groups_ + groups_) % groups_;
  }
  int64_t LocalLink(int32_t g, int32_t from, int32_t to) const {
    return local_base_ + (static_cast<int64_t>(g) * routers_ + from) * (routers_ - 1) +
           (to < from ? to : to - 1);
  }
  std::string RouterName(int32_t g, int32_t r) const;

  int32_t groups_ = 0;
  int32_t routers_ = 0;
  int32_t nodes_per_router_ = 0;
  int64_t h_ = 1;
  NodeId num_nodes_ = 0;
  int64_t local_base_ = 0;
  int64_t global_base_ = 0;
  int64_t num_links_ = 0;
  int32_t max_hops_ = 0;
  int32_t min_hops_ = 0;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_TOPOLOGY_DRAGONFLY_H_
