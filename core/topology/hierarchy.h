// Hierarchy (A1 x A2 x ... x Al with distances D1, ..., Dl): the process-mapping
// literature's machine model (VieM, KaHIP's integrated mapping, SharedMap write it
// H = a1:a2:...:al, D = d1:d2:...:dl). A1 processing elements (PEs) share the
// lowest level (say the cores of a socket), A2 such groups the next (the sockets of
// a node), and so on; two PEs whose lowest common level is i are Di apart.
#ifndef HOPMAP_CORE_TOPOLOGY_HIERARCHY_H_
#define HOPMAP_CORE_TOPOLOGY_HIERARCHY_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/topology/fattree.h"
#include "core/topology/machine.h"

namespace hopmap {

// Each PE is one node of the model with one slot (cores_per_node() is 1): the
// lowest level is the cores. PE ids count with A1 fastest: PEs s and t share level
// i when s / (A1 * ... * Ai) == t / (A1 * ... * Ai), and Hops(s, t) = Di for the
// lowest such i (0 for s == t). Distances are non-decreasing upward (a level never
// costs less than the one below it). Coordinates() gives the digits (d1, ..., dl),
// dims() the arities (A1, ..., Al), dim_names() "L1", ..., "Ll".
//
// Links (for link loads and simulate): the levels are a tree of switches, as a fat
// tree with the arities listed top first (Al, ..., A1): a route goes up from the
// PE to the lowest common switch and down, one path, every link with share 1.
// LinkName() is the fat tree's ("node 5 -> L2 switch 1"; L0 is the top switch).
class HierarchyMachine final : public Machine {
 public:
  // Distances above this are refused: the lower bound keeps one entry per distance.
  static constexpr int32_t kMaxDistance = 1'000'000;

  // Fails on no levels, an arity < 1, distances that are not one positive integer
  // per level (at most kMaxDistance, non-decreasing), or too many PEs.
  static absl::StatusOr<HierarchyMachine> Create(std::vector<int32_t> arities,
                                                 std::vector<int32_t> distances);

  std::string_view kind() const override { return "hierarchy"; }
  // "hierarchy:4x16x16:distances=1,10,100".
  std::string Spec() const override;
  NodeId num_nodes() const override { return tree_.num_nodes(); }
  int32_t Hops(NodeId a, NodeId b) const override;
  int32_t max_hops() const override { return max_hops_; }
  int32_t min_hops() const override { return min_hops_; }
  std::vector<int32_t> dims() const override { return arities_; }
  std::vector<std::string> dim_names() const override;
  void Coordinates(NodeId node, std::span<int32_t> out) const override;
  int64_t num_links() const override { return tree_.num_links(); }
  void ForEachRouteLink(NodeId a, NodeId b, Routing routing, LinkVisitor visit) const override;
  std::string LinkName(int64_t link) const override { return tree_.LinkName(link); }
  // Exact: the PEs within distance h of any PE are those of its level-i group for
  // the highest i with Di <= h.
  std::vector<int64_t> BallSizeUpperBounds() const override;

  [[nodiscard]] const std::vector<int32_t>& arities() const { return arities_; }
  [[nodiscard]] const std::vector<int32_t>& distances() const { return distances_; }

 private:
  explicit HierarchyMachine(FatTreeMachine tree) : tree_(std::move(tree)) {}

  FatTreeMachine tree_;              // the links and routes
  std::vector<int32_t> arities_;     // A1 .. Al, lowest first
  std::vector<int32_t> distances_;   // D1 .. Dl
  std::vector<int64_t> group_size_;  // [i] = A1 * ... * Ai, i = 0..l
  // Hops() without divisions (the greedy constructions call it n^2 times): each PE's
  // digits packed, level i in its own bit_width(Ai - 1) bits above the levels below,
  // so the highest bit where two codes differ names the lowest level they share.
  std::vector<uint64_t> code_of_pe_;
  std::array<int32_t, 64> hops_of_top_bit_{};  // the distance for that highest bit
  int32_t max_hops_ = 0;
  int32_t min_hops_ = 0;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_TOPOLOGY_HIERARCHY_H_
