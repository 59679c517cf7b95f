#include "core/topology/hierarchy.h"

#include <algorithm>
#include <bit>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hopmap {

absl::StatusOr<HierarchyMachine> HierarchyMachine::Create(std::vector<int32_t> arities,
                                                          std::vector<int32_t> distances) {
  if (arities.empty()) return absl::InvalidArgumentError("hierarchy: needs at least one level");
  if (distances.size() != arities.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("hierarchy: ", arities.size(), " levels (", absl::StrJoin(arities, "x"),
                     ") need as many distances, got ", distances.size(),
                     " (distances=D1,...,Dl, the lowest level first)"));
  }
  for (size_t i = 0; i < distances.size(); ++i) {
    if (distances[i] < 1 || distances[i] > kMaxDistance) {
      return absl::InvalidArgumentError(absl::StrCat("hierarchy: distance ", i + 1, " is ",
                                                     distances[i], " (must be 1 to ", kMaxDistance,
                                                     ")"));
    }
    if (i > 0 && distances[i] < distances[i - 1]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "hierarchy: distance ", i + 1, " (", distances[i], ") is less than the level below it (",
          distances[i - 1], "): a higher level never costs less"));
    }
  }
  // The tree of the links: a fat tree lists its levels top first.
  std::vector<int32_t> top_first(arities.rbegin(), arities.rend());
  absl::StatusOr<FatTreeMachine> tree = FatTreeMachine::Create(std::move(top_first));
  if (!tree.ok()) {
    std::string message(tree.status().message());
    if (message.rfind("fattree: ", 0) == 0) message = message.substr(9);
    return absl::InvalidArgumentError(absl::StrCat("hierarchy: ", message));
  }
  HierarchyMachine m(*std::move(tree));
  const int levels = static_cast<int>(arities.size());
  m.group_size_.assign(levels + 1, 1);
  for (int i = 0; i < levels; ++i) m.group_size_[i + 1] = m.group_size_[i] * arities[i];
  // Two different PEs first share level i + 1 where A(i+1) > 1 splits them.
  for (int i = 0; i < levels; ++i) {
    if (arities[i] > 1) {
      if (m.min_hops_ == 0) m.min_hops_ = distances[i];
      m.max_hops_ = distances[i];
    }
  }
  // The packed digits (Hops); a hierarchy of more PEs than kMaxPackedPes (8 bytes
  // each) keeps the divisions. The digits always fit a word: a level of arity A
  // takes bit_width(A - 1) <= 1.3 log2(A) bits (the most at A = 5), so at most
  // 1.3 x 31 = 41 bits for the fewer than 2^31 PEs FatTreeMachine::Create allows.
  constexpr int64_t kMaxPackedPes = int64_t{1} << 22;
  int bits = 0;
  for (int i = 0; i < levels; ++i) {
    const int width = std::bit_width(static_cast<uint32_t>(arities[i] - 1));
    for (int b = bits; b < bits + width; ++b) m.hops_of_top_bit_[b] = distances[i];
    bits += width;
  }
  if (m.group_size_[levels] <= kMaxPackedPes) {
    m.code_of_pe_.resize(m.group_size_[levels]);
    for (int64_t pe = 0; pe < m.group_size_[levels]; ++pe) {
      uint64_t code = 0;
      int64_t rest = pe;
      int shift = 0;
      for (int i = 0; i < levels; ++i) {
        code |= static_cast<uint64_t>(rest % arities[i]) << shift;
        rest /= arities[i];
        shift += std::bit_width(static_cast<uint32_t>(arities[i] - 1));
      }
      m.code_of_pe_[pe] = code;
    }
  }
  m.arities_ = std::move(arities);
  m.distances_ = std::move(distances);
  return m;
}

std::string HierarchyMachine::Spec() const {
  return absl::StrCat("hierarchy:", absl::StrJoin(arities_, "x"),
                      ":distances=", absl::StrJoin(distances_, ","), SharedSpecOptions());
}

int32_t HierarchyMachine::Hops(NodeId a, NodeId b) const {
  if (a == b) return 0;
  if (!code_of_pe_.empty()) {
    const uint64_t differ = code_of_pe_[a] ^ code_of_pe_[b];
    return hops_of_top_bit_[63 - std::countl_zero(differ)];
  }
  const int levels = static_cast<int>(arities_.size());
  for (int i = 1; i <= levels; ++i) {
    if (a / group_size_[i] == b / group_size_[i]) return distances_[i - 1];
  }
  return distances_.back();  // not reached: level l holds every PE
}

std::vector<std::string> HierarchyMachine::dim_names() const {
  std::vector<std::string> names;
  for (size_t i = 0; i < arities_.size(); ++i) names.push_back(absl::StrCat("L", i + 1));
  return names;
}

void HierarchyMachine::Coordinates(NodeId node, std::span<int32_t> out) const {
  int64_t rest = node;
  for (size_t i = 0; i < arities_.size(); ++i) {
    out[i] = static_cast<int32_t>(rest % arities_[i]);
    rest /= arities_[i];
  }
}

void HierarchyMachine::ForEachRouteLink(NodeId a, NodeId b, Routing routing,
                                        LinkVisitor visit) const {
  tree_.ForEachRouteLink(a, b, routing, visit);
}

std::vector<int64_t> HierarchyMachine::BallSizeUpperBounds() const {
  std::vector<int64_t> balls(max_hops_ + 1, 1);
  for (int32_t h = 0; h <= max_hops_; ++h) {
    int64_t within = 1;
    for (size_t i = 0; i < distances_.size(); ++i) {
      if (distances_[i] <= h) within = group_size_[i + 1];
    }
    balls[h] = within;
  }
  return balls;
}

}  // namespace hopmap
