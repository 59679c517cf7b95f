#include "core/topology/chipmesh.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hopmap {

absl::StatusOr<ChipMeshMachine> ChipMeshMachine::Create(int32_t rows_x, int32_t cols_y,
                                                        int32_t nodes_per_chip,
                                                        std::array<int32_t, 6> hop_table) {
  if (rows_x < 1 || cols_y < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("chipmesh: chip grid ", rows_x, "x", cols_y, " (both sizes must be >= 1)"));
  }
  if (nodes_per_chip < 2 || nodes_per_chip % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrCat("chipmesh: nodes per chip is ", nodes_per_chip,
                                                   " (must be even and >= 2: two equal sides)"));
  }
  for (int c = 0; c < 6; ++c) {
    if (hop_table[c] < 1 || hop_table[c] > kMaxTableHops) {
      return absl::InvalidArgumentError(absl::StrCat("chipmesh: hop table entry ", c, " is ",
                                                     hop_table[c], " (must be in [1, ",
                                                     kMaxTableHops, "])"));
    }
  }
  const int64_t chips = static_cast<int64_t>(rows_x) * cols_y;
  const int64_t nodes = chips * nodes_per_chip;
  if (nodes > kMaxTasks) {
    return absl::InvalidArgumentError(
        absl::StrCat("chipmesh: ", rows_x, "x", cols_y, " chips of ", nodes_per_chip, " nodes is ",
                     nodes, " nodes (hopmap supports at most ", kMaxTasks, ")"));
  }
  ChipMeshMachine m;
  m.x_ = rows_x;
  m.y_ = cols_y;
  m.nodes_per_chip_ = nodes_per_chip;
  m.table_ = hop_table;
  m.num_nodes_ = static_cast<NodeId>(nodes);
  m.cross_base_ = 2 * nodes;
  m.row_base_ = m.cross_base_ + 2 * chips;
  m.column_base_ = m.row_base_ + 2 * chips * (rows_x - 1);
  m.num_links_ = m.column_base_ + 2 * chips * (cols_y - 1);
  m.min_hops_ = std::numeric_limits<int32_t>::max();
  for (int c = 0; c < 6; ++c) {
    if (m.CaseCount(c) == 0) continue;
    m.max_hops_ = std::max(m.max_hops_, hop_table[c]);
    m.min_hops_ = std::min(m.min_hops_, hop_table[c]);
  }
  return m;  // case 1 (the other side of the own chip) always exists: min is set
}

std::string ChipMeshMachine::Spec() const {
  std::string spec = absl::StrCat("chipmesh:", x_, "x", y_);
  if (nodes_per_chip_ != kDefaultNodesPerChip) absl::StrAppend(&spec, ":nodes=", nodes_per_chip_);
  if (table_ != kDefaultHopTable) absl::StrAppend(&spec, ":hops=", absl::StrJoin(table_, ","));
  absl::StrAppend(&spec, ":cores=", cores_per_node(), SharedSpecOptions());
  return spec;
}

void ChipMeshMachine::Coordinates(NodeId node, std::span<int32_t> out) const {
  const int32_t chip = Chip(node);
  out[0] = ChipX(chip);
  out[1] = ChipY(chip);
  out[2] = node % nodes_per_chip_;
}

int ChipMeshMachine::Case(NodeId a, NodeId b) const {
  const int32_t ca = Chip(a), cb = Chip(b);
  const int sides = Side(a) != Side(b) ? 1 : 0;
  if (ca == cb) return sides;
  if (ChipX(ca) == ChipX(cb) || ChipY(ca) == ChipY(cb)) return 2 + sides;
  return 4 + sides;
}

int64_t ChipMeshMachine::CaseCount(int c) const {
  const int64_t half = nodes_per_chip_ / 2;
  const int64_t chips = c < 2   ? 1
                        : c < 4 ? (x_ - 1) + (y_ - 1)
                                : static_cast<int64_t>(x_ - 1) * (y_ - 1);
  // Same side of the own chip: every other node of the half.
  return c == 0 ? half - 1 : chips * half;
}

int32_t ChipMeshMachine::Hops(NodeId a, NodeId b) const {
  if (a == b) return 0;
  return table_[Case(a, b)];
}

int64_t ChipMeshMachine::RowLink(int32_t chip, int side, int32_t to_x) const {
  const int32_t from_x = ChipX(chip);
  const int32_t j = to_x < from_x ? to_x : to_x - 1;
  return row_base_ + (2 * static_cast<int64_t>(chip) + side) * (x_ - 1) + j;
}

int64_t ChipMeshMachine::ColumnLink(int32_t chip, int side, int32_t to_y) const {
  const int32_t from_y = ChipY(chip);
  const int32_t j = to_y < from_y ? to_y : to_y - 1;
  return column_base_ + (2 * static_cast<int64_t>(chip) + side) * (y_ - 1) + j;
}

void ChipMeshMachine::ForEachRouteLink(NodeId a, NodeId b, Routing routing,
                                       LinkVisitor visit) const {
  if (a == b) return;
  const int32_t ca = Chip(a), cb = Chip(b);
  const int sa = Side(a), sb = Side(b);
  visit(2 * static_cast<int64_t>(a), 1.0);
  if (sa != sb) visit(CrossLink(ca, sa), 1.0);
  const int32_t ax = ChipX(ca), ay = ChipY(ca), bx = ChipX(cb), by = ChipY(cb);
  if (ax != bx && ay != by) {
    // Row then column through chip (bx, ay); adaptively also column then row
    // through chip (ax, by), each with half the bytes.
    const double share = routing == Routing::kAdaptive ? 0.5 : 1.0;
    visit(RowLink(ca, sb, bx), share);
    visit(ColumnLink(bx + x_ * ay, sb, by), share);
    if (routing == Routing::kAdaptive) {
      visit(ColumnLink(ca, sb, by), share);
      visit(RowLink(ax + x_ * by, sb, bx), share);
    }
  } else if (ax != bx) {
    visit(RowLink(ca, sb, bx), 1.0);
  } else if (ay != by) {
    visit(ColumnLink(ca, sb, by), 1.0);
  }
  visit(2 * static_cast<int64_t>(b) + 1, 1.0);
}

std::string ChipMeshMachine::SwitchName(int32_t chip, int side) const {
  return absl::StrCat("chip (", ChipX(chip), ",", ChipY(chip), ") ", side == 0 ? "left" : "right");
}

std::string ChipMeshMachine::LinkName(int64_t link) const {
  if (link < 0 || link >= num_links_) return absl::StrCat("link ", link, " (out of range)");
  if (link < cross_base_) {
    const NodeId node = static_cast<NodeId>(link / 2);
    const std::string sw = SwitchName(Chip(node), Side(node));
    return link % 2 == 0 ? absl::StrCat("node ", node, " -> ", sw)
                         : absl::StrCat(sw, " -> node ", node);
  }
  if (link < row_base_) {
    const int32_t chip = static_cast<int32_t>((link - cross_base_) / 2);
    const int from = static_cast<int>((link - cross_base_) % 2);
    return absl::StrCat(SwitchName(chip, from), " -> ", SwitchName(chip, 1 - from));
  }
  const bool row = link < column_base_;
  const int64_t rel = row ? link - row_base_ : link - column_base_;
  const int32_t others = row ? x_ - 1 : y_ - 1;
  const int64_t chip_side = rel / others;
  const int32_t j = static_cast<int32_t>(rel % others);
  const int32_t chip = static_cast<int32_t>(chip_side / 2);
  const int side = static_cast<int>(chip_side % 2);
  int32_t tx = ChipX(chip), ty = ChipY(chip);
  if (row) {
    tx = j < tx ? j : j + 1;
  } else {
    ty = j < ty ? j : j + 1;
  }
  return absl::StrCat(SwitchName(chip, side), " -> ", SwitchName(tx + x_ * ty, side));
}

std::vector<int64_t> ChipMeshMachine::BallSizeUpperBounds() const {
  std::vector<int64_t> balls(max_hops_ + 1, 1);
  for (int c = 0; c < 6; ++c) {
    const int64_t count = CaseCount(c);
    for (int32_t h = table_[c]; h <= max_hops_ && count > 0; ++h) balls[h] += count;
  }
  return balls;
}

}  // namespace hopmap
