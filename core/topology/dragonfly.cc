#include "core/topology/dragonfly.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace hopmap {

absl::StatusOr<DragonflyMachine> DragonflyMachine::Create(int32_t groups, int32_t routers_per_group,
                                                          int32_t nodes_per_router) {
  if (groups < 1 || routers_per_group < 1 || nodes_per_router < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("dragonfly: ", groups, " groups, ", routers_per_group, " routers per group, ",
                     nodes_per_router, " nodes per router (each must be >= 1)"));
  }
  const int64_t routers = static_cast<int64_t>(groups) * routers_per_group;
  if (routers * nodes_per_router > kMaxTasks) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dragonfly: ", groups, ",", routers_per_group, ",", nodes_per_router, " is ",
        routers * nodes_per_router, " nodes (hopmap supports at most ", kMaxTasks, ")"));
  }
  DragonflyMachine m;
  m.groups_ = groups;
  m.routers_ = routers_per_group;
  m.nodes_per_router_ = nodes_per_router;
  m.h_ = std::max<int64_t>(
      1, (static_cast<int64_t>(groups) - 1 + routers_per_group - 1) / routers_per_group);
  m.num_nodes_ = static_cast<NodeId>(routers * nodes_per_router);
  m.local_base_ = 2 * static_cast<int64_t>(m.num_nodes_);
  m.global_base_ = m.local_base_ + routers * (routers_per_group - 1);
  m.num_links_ = m.global_base_ + static_cast<int64_t>(groups) * (groups - 1);
  // The distances that occur between two different nodes.
  if (m.num_nodes_ > 1) {
    m.min_hops_ = nodes_per_router > 1 ? 2 : 3;
    m.max_hops_ = nodes_per_router > 1 ? 2 : 0;
    if (routers_per_group > 1) m.max_hops_ = 3;
    // Another group: 5 when both ends can be off their gateways.
    if (groups > 1) m.max_hops_ = routers_per_group > 1 ? 5 : 3;
  }
  return m;
}

std::string DragonflyMachine::Spec() const {
  return absl::StrCat("dragonfly:", groups_, ",", routers_, ",", nodes_per_router_,
                      ":cores=", cores_per_node(), SharedSpecOptions());
}

void DragonflyMachine::Coordinates(NodeId node, std::span<int32_t> out) const {
  const int32_t router = node / nodes_per_router_;
  out[0] = router / routers_;
  out[1] = router % routers_;
  out[2] = node % nodes_per_router_;
}

int32_t DragonflyMachine::Hops(NodeId a, NodeId b) const {
  if (a == b) return 0;
  const int32_t ra = a / nodes_per_router_, rb = b / nodes_per_router_;
  if (ra == rb) return 2;
  const int32_t ga = ra / routers_, gb = rb / routers_;
  if (ga == gb) return 3;
  return 3 + (ra % routers_ != Gateway(ga, gb) ? 1 : 0) +
         (rb % routers_ != Gateway(gb, ga) ? 1 : 0);
}

void DragonflyMachine::ForEachRouteLink(NodeId a, NodeId b, Routing /*routing*/,
                                        LinkVisitor visit) const {
  // Single minimal path: both routings are the same.
  if (a == b) return;
  visit(2 * static_cast<int64_t>(a), 1.0);
  const int32_t ra = a / nodes_per_router_, rb = b / nodes_per_router_;
  if (ra != rb) {
    const int32_t ga = ra / routers_, gb = rb / routers_;
    const int32_t la = ra % routers_, lb = rb % routers_;
    if (ga == gb) {
      visit(LocalLink(ga, la, lb), 1.0);
    } else {
      const int32_t out = Gateway(ga, gb), in = Gateway(gb, ga);
      if (la != out) visit(LocalLink(ga, la, out), 1.0);
      visit(global_base_ + static_cast<int64_t>(ga) * (groups_ - 1) + GlobalIndex(ga, gb), 1.0);
      if (in != lb) visit(LocalLink(gb, in, lb), 1.0);
    }
  }
  visit(2 * static_cast<int64_t>(b) + 1, 1.0);
}

std::string DragonflyMachine::RouterName(int32_t g, int32_t r) const {
  return absl::StrCat("router (g", g, ",r", r, ")");
}

std::string DragonflyMachine::LinkName(int64_t link) const {
  if (link < 0 || link >= num_links_) return absl::StrCat("link ", link, " (out of range)");
  if (link < local_base_) {
    const NodeId node = static_cast<NodeId>(link / 2);
    const int32_t router = node / nodes_per_router_;
    const std::string r = RouterName(router / routers_, router % routers_);
    return link % 2 == 0 ? absl::StrCat("node ", node, " -> ", r)
                         : absl::StrCat(r, " -> node ", node);
  }
  if (link < global_base_) {
    const int64_t rel = link - local_base_;
    const int64_t router = rel / (routers_ - 1);
    const int32_t g = static_cast<int32_t>(router / routers_);
    const int32_t from = static_cast<int32_t>(router % routers_);
    const int32_t j = static_cast<int32_t>(rel % (routers_ - 1));
    return absl::StrCat(RouterName(g, from), " -> ", RouterName(g, j < from ? j : j + 1));
  }
  const int64_t rel = link - global_base_;
  const int32_t g = static_cast<int32_t>(rel / (groups_ - 1));
  const int64_t k = rel % (groups_ - 1);
  const int32_t j = static_cast<int32_t>((g + k + 1) % groups_);
  return absl::StrCat(RouterName(g, static_cast<int32_t>(k / h_)), " -> ",
                      RouterName(j, Gateway(j, g)));
}

std::vector<int64_t> DragonflyMachine::BallSizeUpperBounds() const {
  const int64_t p = nodes_per_router_, a = routers_, others = groups_ - 1;
  std::vector<int64_t> balls(max_hops_ + 1, 0);
  for (int32_t r = 0; r < routers_; ++r) {
    // m = other groups reached through this router's own global links.
    const int64_t m = std::clamp<int64_t>(others - r * h_, 0, h_);
    // Nodes at exactly d hops from a node on router r.
    const int64_t at[6] = {1,
                           0,
                           p - 1,
                           (a - 1) * p + m * p,
                           m * (a - 1) * p + (others - m) * p,
                           (others - m) * (a - 1) * p};
    int64_t running = 0;
    for (int32_t d = 0; d <= max_hops_; ++d) {
      running += at[d];
      balls[d] = std::max(balls[d], running);
    }
  }
  return balls;
}

}  // namespace hopmap
