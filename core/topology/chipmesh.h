// Chip mesh: the Tianhe-3 exascale prototype network (seed 004, section 4.2 and
// Table 1).
#ifndef HOPMAP_CORE_TOPOLOGY_CHIPMESH_H_
#define HOPMAP_CORE_TOPOLOGY_CHIPMESH_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/topology/machine.h"

namespace hopmap {

// Switch chips form an X x Y grid; chip id = cx + X * cy (the first coordinate
// fastest). Each chip connects `nodes_per_chip` (N, even; 96 on the prototype)
// compute nodes, node id = chip * N + i, split into two halves: i < N/2 is the
// left side, the rest the right side. dims() = {X, Y, N} ("X", "Y", "N");
// Coordinates() = (cx, cy, i).
//
// Distance (the seed's Table 1, configurable): Hops(a, a) = 0; otherwise
//   same chip:                                 table[0] same side, table[1] different sides
//   different chips sharing cx or cy (a row
//   or a column; they are directly connected): table[2] / table[3]
//   different chips in another row and column: table[4] / table[5]
// with the default table {1, 2, 3, 4, 5, 6}.
//
// Link model (for link loads only; the hop table above is the distance metric,
// and loads are measured on these links): each chip has two side switches, left
// and right. Directed links, with their dense ids (n nodes, C = X * Y chips):
//   [0, 2n)                  node links: 2 * node + {0: node -> its side switch
//                            (up), 1: side switch -> node (down)}
//   [2n, 2n + 2C)            crossing links: 2n + 2 * chip + {0: left -> right,
//                            1: right -> left}
//   next 2C(X-1) ids         row links, between the same side's switches of two
//                            chips in one row (same cy, cx -> cx'), all-to-all:
//                            base + (2 * chip + side) * (X-1) + j, j = the rank of
//                            cx' among the X-1 other columns
//   next 2C(Y-1) ids         column links (same cx, cy -> cy'), likewise with Y-1
// Routing: up from the source to its side switch; if the sides differ, cross to
// the destination's side on the source chip; then a row move (to the
// destination's cx), then a column move (to its cy), each one direct link; then
// down to the destination. Dimension-order routing is exactly that single path.
// Adaptive routing sends half the route X-first (row then column) and half
// Y-first (column then row) when both coordinates differ, and is otherwise the
// same single path. So a route visits, counting shares, 2 + (1 if the sides
// differ) + (number of coordinates among cx, cy that differ) links:
// same chip 2 / 3, same row or column 3 / 4, other row and column 4 / 5 (same /
// different sides), which is NOT Hops(a, b) in general.
class ChipMeshMachine final : public Machine {
 public:
  static constexpr int32_t kDefaultNodesPerChip = 96;
  static constexpr std::array<int32_t, 6> kDefaultHopTable = {1, 2, 3, 4, 5, 6};
  // Largest hop table entry accepted (Allocation keeps hops in 16 bits).
  static constexpr int32_t kMaxTableHops = 65535;

  // Fails on rows_x < 1, cols_y < 1, nodes_per_chip odd or < 2, more nodes than
  // hopmap supports (kMaxTasks), or a hop table entry < 1 or > kMaxTableHops.
  // The table need not be non-decreasing.
  static absl::StatusOr<ChipMeshMachine> Create(
      int32_t rows_x, int32_t cols_y, int32_t nodes_per_chip = kDefaultNodesPerChip,
      std::array<int32_t, 6> hop_table = kDefaultHopTable);

  std::string_view kind() const override { return "chipmesh"; }
  // "chipmesh:XxY:nodes=N:hops=t0,...,t5:cores=C"; nodes= and hops= are left out
  // when they are the defaults.
  std::string Spec() const override;
  NodeId num_nodes() const override { return num_nodes_; }
  int32_t Hops(NodeId a, NodeId b) const override;
  int32_t max_hops() const override { return max_hops_; }
  int32_t min_hops() const override { return min_hops_; }
  std::vector<int32_t> dims() const override { return {x_, y_, nodes_per_chip_}; }
  std::vector<std::string> dim_names() const override { return {"X", "Y", "N"}; }
  void Coordinates(NodeId node, std::span<int32_t> out) const override;
  int64_t num_links() const override { return num_links_; }
  void ForEachRouteLink(NodeId a, NodeId b, Routing routing, LinkVisitor visit) const override;
  std::string LinkName(int64_t link) const override;
  // Exact: every node sees the same number of nodes in each of the six table
  // cases, so the ball sizes follow from those counts.
  std::vector<int64_t> BallSizeUpperBounds() const override;

  [[nodiscard]] int32_t size_x() const { return x_; }
  [[nodiscard]] int32_t size_y() const { return y_; }
  [[nodiscard]] int32_t nodes_per_chip() const { return nodes_per_chip_; }
  [[nodiscard]] const std::array<int32_t, 6>& hop_table() const { return table_; }
  // The table case (0..5) of two different nodes.
  [[nodiscard]] int Case(NodeId a, NodeId b) const;
  // How many other nodes each node has in table case c (the same for every node).
  [[nodiscard]] int64_t CaseCount(int c) const;

 private:
  ChipMeshMachine() = default;
  int32_t Chip(NodeId node) const { return node / nodes_per_chip_; }
  int Side(NodeId node) const { return node % nodes_per_chip_ < nodes_per_chip_ / 2 ? 0 : 1; }
  int32_t ChipX(int32_t chip) const { return chip % x_; }
  int32_t ChipY(int32_t chip) const { return chip / x_; }
  int64_t CrossLink(int32_t chip, int from_side) const {
    return cross_base_ + 2 * static_cast<int64_t>(chip) + from_side;
  }
  int64_t RowLink(int32_t chip, int side, int32_t to_x) const;
  int64_t ColumnLink(int32_t chip, int side, int32_t to_y) const;
  std::string SwitchName(int32_t chip, int side) const;

  int32_t x_ = 0;
  int32_t y_ = 0;
  int32_t nodes_per_chip_ = 0;
  std::array<int32_t, 6> table_ = kDefaultHopTable;
  NodeId num_nodes_ = 0;
  int64_t cross_base_ = 0;
  int64_t row_base_ = 0;
  int64_t column_base_ = 0;
  int64_t num_links_ = 0;
  int32_t max_hops_ = 0;
  int32_t min_hops_ = 0;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_TOPOLOGY_CHIPMESH_H_
