#include "core/topology/fattree.h"

#include <algorithm>
#include <array>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hopmap {

absl::StatusOr<FatTreeMachine> FatTreeMachine::Create(std::vector<int32_t> arities) {
  if (arities.empty()) return absl::InvalidArgumentError("fattree: needs at least one level");
  if (arities.size() > static_cast<size_t>(kMaxLevels)) {
    return absl::InvalidArgumentError(
        absl::StrCat("fattree: ", arities.size(), " levels (at most ", kMaxLevels, ")"));
  }
  const int levels = static_cast<int>(arities.size());
  FatTreeMachine m;
  m.level_size_.assign(levels + 1, 1);
  for (int i = 0; i < levels; ++i) {
    if (arities[i] < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("fattree: level ", i, " has arity ", arities[i], " (must be >= 1)"));
    }
    m.level_size_[i + 1] = m.level_size_[i] * arities[i];
    if (m.level_size_[i + 1] > kMaxTasks) {
      return absl::InvalidArgumentError(absl::StrCat("fattree: ", absl::StrJoin(arities, "x"),
                                                     " has more nodes than hopmap supports (",
                                                     kMaxTasks, ")"));
    }
  }
  // Vertices numbered from the bottom: level L (nodes) first, then L-1, ..., 1.
  m.level_offset_.assign(levels + 1, 0);
  int64_t offset = 0;
  for (int k = levels; k >= 1; --k) {
    m.level_offset_[k] = offset;
    offset += m.level_size_[k];
  }
  m.num_vertices_ = offset;
  m.num_nodes_ = static_cast<NodeId>(m.level_size_[levels]);
  // Two different nodes first differ at some digit i with A_i > 1; they are then
  // 2 * (L - i) hops apart. The extremes come from the first/last such level.
  int first = -1, last = -1;
  for (int i = 0; i < levels; ++i) {
    if (arities[i] > 1) {
      if (first < 0) first = i;
      last = i;
    }
  }
  if (first >= 0) {
    m.max_hops_ = 2 * (levels - first);
    m.min_hops_ = 2 * (levels - last);
  }
  m.arities_ = std::move(arities);
  return m;
}

std::string FatTreeMachine::Spec() const {
  return absl::StrCat("fattree:", absl::StrJoin(arities_, "x"), ":cores=", cores_per_node(),
                      SharedSpecOptions());
}

std::vector<std::string> FatTreeMachine::dim_names() const {
  std::vector<std::string> names;
  for (size_t i = 0; i < arities_.size(); ++i) names.push_back(absl::StrCat("L", i));
  return names;
}

void FatTreeMachine::Coordinates(NodeId node, std::span<int32_t> out) const {
  int64_t rest = node;
  for (int i = num_levels() - 1; i >= 0; --i) {
    out[i] = static_cast<int32_t>(rest % arities_[i]);
    rest /= arities_[i];
  }
}

int32_t FatTreeMachine::Hops(NodeId a, NodeId b) const {
  // Climb both nodes level by level until they meet at their lowest common switch.
  int32_t hops = 0;
  int64_t x = a, y = b;
  for (int i = num_levels() - 1; i >= 0 && x != y; --i) {
    x /= arities_[i];
    y /= arities_[i];
    hops += 2;
  }
  return hops;
}

void FatTreeMachine::ForEachRouteLink(NodeId a, NodeId b, Routing /*routing*/,
                                      LinkVisitor visit) const {
  // One path in a tree: both routings are the same.
  if (a == b) return;
  const int levels = num_levels();
  // down[k] = b's ancestor at level k (level L = b itself).
  std::array<int64_t, kMaxLevels + 1> down;
  int64_t x = a, y = b;
  int level = levels;
  while (x != y) {
    visit(2 * VertexId(level, x), 1.0);  // up from x to its parent
    down[level] = y;
    x /= arities_[level - 1];
    y /= arities_[level - 1];
    --level;
  }
  for (int k = level + 1; k <= levels; ++k) visit(2 * VertexId(k, down[k]) + 1, 1.0);
}

std::string FatTreeMachine::VertexName(int level, int64_t index) const {
  if (level == num_levels()) return absl::StrCat("node ", index);
  return absl::StrCat("L", level, " switch ", index);
}

std::string FatTreeMachine::LinkName(int64_t link) const {
  if (link < 0 || link >= num_links()) return absl::StrCat("link ", link, " (out of range)");
  const int64_t vertex = link / 2;
  const bool up = link % 2 == 0;
  int level = 1;
  while (level < num_levels() && vertex < level_offset_[level]) ++level;
  const int64_t index = vertex - level_offset_[level];
  const std::string child = VertexName(level, index);
  const std::string parent = VertexName(level - 1, index / arities_[level - 1]);
  return up ? absl::StrCat(child, " -> ", parent) : absl::StrCat(parent, " -> ", child);
}

std::vector<int64_t> FatTreeMachine::BallSizeUpperBounds() const {
  const int levels = num_levels();
  std::vector<int64_t> balls(max_hops_ + 1);
  for (int32_t h = 0; h <= max_hops_; ++h) {
    // Within h hops: the nodes under the switch h/2 levels above the node.
    const int up = std::min(h / 2, levels);
    balls[h] = level_size_[levels] / level_size_[levels - up];
  }
  return balls;
}

}  // namespace hopmap
