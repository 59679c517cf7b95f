// Fat tree (levels x arity): a tree of switches with the compute nodes as leaves.
#ifndef HOPMAP_CORE_TOPOLOGY_FATTREE_H_
#define HOPMAP_CORE_TOPOLOGY_FATTREE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/topology/machine.h"

namespace hopmap {

// Levels are listed top to bottom with their arities A0, A1, ..., A(L-1): the
// root switch (level 0) has A0 children, each level-1 switch has A1 children, and
// so on; the children of a level-(L-1) ("leaf") switch are the compute nodes. So
// "fattree:64x64" is one root, 64 leaf switches and 4096 nodes.
//
// Node id = the digits d0 d1 ... d(L-1) in mixed radix with the LAST arity
// varying fastest (node = d0*A1 + d1 for two levels). Coordinates() gives these
// digits, dims() the arities (top to bottom), dim_names() "L0", "L1", ...
// The level-k switch above a node is identified by the first k digits (its index
// within level k is node / (A_k * ... * A(L-1))).
//
// Hops between two nodes = 2 x (number of levels below their lowest common
// switch): 2 on one leaf switch, 4 one level up, ..., 2L through the root.
// A level of arity 1 is allowed (a switch with one child); it still counts as a
// level, so max_hops()/min_hops() are the true extremes over node pairs (e.g.
// 2x1: every pair is 4 hops apart).
//
// Links: every tree vertex except the root (switches of levels 1..L-1 and the
// nodes, "level L") has one up-link to its parent and one down-link from its
// parent. Vertices are numbered densely from the bottom: the nodes first (vertex
// = node id), then the level-(L-1) switches, then level L-2, ..., then level 1;
// within a level by index. Link id = 2 * vertex + {0: up, 1: down}, so a node's
// up-link is 2 * node and its down-link 2 * node + 1. LinkName() is
// "<from> -> <to>" with "node 5", "L1 switch 3", "L0 switch 0" (the root).
//
// Routing: a route goes up from the source to the lowest common switch and down
// to the destination. A tree has exactly one minimal path between two nodes, so
// dimension-order and adaptive routing give the same single path, every link
// with share 1, and the number of links on it equals Hops(a, b).
class FatTreeMachine final : public Machine {
 public:
  // Levels beyond this are rejected (hops stay small; with arities >= 2 an int32
  // node count allows at most 31 levels anyway).
  static constexpr int kMaxLevels = 64;

  // Fails on no levels, more than kMaxLevels levels, an arity < 1, or more nodes
  // than hopmap supports (kMaxTasks).
  static absl::StatusOr<FatTreeMachine> Create(std::vector<int32_t> arities);

  std::string_view kind() const override { return "fattree"; }
  std::string Spec() const override;  // "fattree:64x64:cores=C"
  NodeId num_nodes() const override { return num_nodes_; }
  int32_t Hops(NodeId a, NodeId b) const override;
  int32_t max_hops() const override { return max_hops_; }
  int32_t min_hops() const override { return min_hops_; }
  std::vector<int32_t> dims() const override { return arities_; }
  std::vector<std::string> dim_names() const override;
  void Coordinates(NodeId node, std::span<int32_t> out) const override;
  int64_t num_links() const override { return 2 * num_vertices_; }
  void ForEachRouteLink(NodeId a, NodeId b, Routing routing, LinkVisitor visit) const override;
  std::string LinkName(int64_t link) const override;
  // Exact: the tree is vertex-transitive on its nodes; the nodes within 2j hops
  // of a node are those under its level-(L-j) switch, A(L-j) * ... * A(L-1).
  std::vector<int64_t> BallSizeUpperBounds() const override;

  [[nodiscard]] int num_levels() const { return static_cast<int>(arities_.size()); }
  [[nodiscard]] const std::vector<int32_t>& arities() const { return arities_; }
  // Number of switches at level k (0 <= k < L); level L is the nodes.
  [[nodiscard]] int64_t vertices_at_level(int level) const { return level_size_[level]; }

 private:
  FatTreeMachine() = default;
  // Vertex number of the level-`level` vertex with index `index` (level 1..L).
  int64_t VertexId(int level, int64_t index) const { return level_offset_[level] + index; }
  std::string VertexName(int level, int64_t index) const;

  std::vector<int32_t> arities_;
  std::vector<int64_t> level_size_;    // [k] = A0 * ... * A(k-1), k = 0..L
  std::vector<int64_t> level_offset_;  // [k] = first vertex number of level k (1..L)
  int64_t num_vertices_ = 0;           // vertices except the root
  NodeId num_nodes_ = 0;
  int32_t max_hops_ = 0;
  int32_t min_hops_ = 0;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_TOPOLOGY_FATTREE_H_
