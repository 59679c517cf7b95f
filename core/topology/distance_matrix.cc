#include "core/topology/distance_matrix.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"

namespace hopmap {

std::optional<HopMatrixProblem> FindHopMatrixProblem(int32_t n, std::span<const int32_t> hops) {
  constexpr int32_t kMax = DistanceMatrixMachine::kMaxHops;
  auto at = [&](int32_t i, int32_t j) { return hops[static_cast<size_t>(i) * n + j]; };
  auto entry = [&](int32_t i, int32_t j) {
    return absl::StrCat("hops[", i, "][", j, "] = ", at(i, j));
  };
  // Entries on their own first, then symmetry (so a negative entry is not reported
  // as an asymmetry).
  for (int32_t i = 0; i < n; ++i) {
    for (int32_t j = 0; j < n; ++j) {
      const int32_t v = at(i, j);
      if (i == j && v != 0) {
        return HopMatrixProblem{i, j,
                                absl::StrCat(entry(i, j), " but a node is 0 hops from itself")};
      }
      if (v < 0) return HopMatrixProblem{i, j, absl::StrCat(entry(i, j), " is negative")};
      if (v > kMax) {
        return HopMatrixProblem{
            i, j, absl::StrCat(entry(i, j), " is above the largest supported value ", kMax)};
      }
    }
  }
  for (int32_t i = 0; i < n; ++i) {
    for (int32_t j = i + 1; j < n; ++j) {
      if (at(i, j) != at(j, i)) {
        return HopMatrixProblem{i, j, absl::StrCat(entry(i, j), " but ", entry(j, i))};
      }
    }
  }
  return std::nullopt;
}

absl::StatusOr<DistanceMatrixMachine> DistanceMatrixMachine::Create(
    int32_t n, std::vector<int32_t> hops, std::vector<std::string> names) {
  if (n < 1 || n > kMaxNodes) {
    return absl::InvalidArgumentError(
        absl::StrCat("distance matrix: ", n, " nodes (must be 1..", kMaxNodes, ")"));
  }
  const size_t expected = static_cast<size_t>(n) * n;
  if (hops.size() != expected) {
    return absl::InvalidArgumentError(absl::StrCat(
        "distance matrix: ", hops.size(), " entries for ", n, " nodes (need ", expected, ")"));
  }
  if (std::optional<HopMatrixProblem> problem = FindHopMatrixProblem(n, hops)) {
    return absl::InvalidArgumentError(absl::StrCat("distance matrix: ", problem->message));
  }
  DistanceMatrixMachine m;
  if (!names.empty()) {
    if (names.size() != static_cast<size_t>(n)) {
      return absl::InvalidArgumentError(
          absl::StrCat("distance matrix: ", names.size(), " names for ", n, " nodes"));
    }
    absl::StatusOr<NodeNames> list = NodeNames::List(std::move(names));
    if (!list.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("distance matrix: ", list.status().message()));
    }
    m.set_node_names(*std::move(list));
  }
  m.n_ = n;
  if (n > 1) {
    m.min_hops_ = std::numeric_limits<int32_t>::max();
    for (int32_t i = 0; i < n; ++i) {
      for (int32_t j = 0; j < n; ++j) {
        if (i == j) continue;
        const int32_t v = hops[static_cast<size_t>(i) * n + j];
        m.min_hops_ = std::min(m.min_hops_, v);
        m.max_hops_ = std::max(m.max_hops_, v);
      }
    }
  }
  m.hops_ = std::make_shared<const std::vector<int32_t>>(std::move(hops));
  return m;
}

std::string DistanceMatrixMachine::Spec() const {
  return absl::StrCat(
      source_.empty() ? absl::StrCat("matrix:", n_) : absl::StrCat("matrix:", source_),
      SharedSpecOptions());
}

}  // namespace hopmap
