#include "core/metrics/qap.h"

#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/topology/distance_matrix.h"

namespace hopmap {
namespace {

// "flow[i][j] = 3 but flow[j][i] = 4" for the first asymmetric pair in reading
// order, or nullopt for a symmetric matrix.
std::optional<std::string> FindAsymmetry(const std::vector<int64_t>& m, int32_t n,
                                         absl::string_view name) {
  for (int32_t i = 0; i < n; ++i) {
    for (int32_t j = i + 1; j < n; ++j) {
      const int64_t a = m[static_cast<size_t>(i) * n + j];
      const int64_t b = m[static_cast<size_t>(j) * n + i];
      if (a != b) {
        return absl::StrCat(name, "[", i, "][", j, "] = ", a, " but ", name, "[", j, "][", i,
                            "] = ", b);
      }
    }
  }
  return std::nullopt;
}

// The first non-zero diagonal entry, as "name[k][k] = v", or nullopt.
std::optional<std::string> FindNonZeroDiagonal(const std::vector<int64_t>& m, int32_t n,
                                               absl::string_view name) {
  for (int32_t k = 0; k < n; ++k) {
    const int64_t v = m[static_cast<size_t>(k) * n + k];
    if (v != 0) return absl::StrCat(name, "[", k, "][", k, "] = ", v);
  }
  return std::nullopt;
}

}  // namespace

int64_t QapCost(const QapInstance& instance, std::span<const int32_t> permutation) {
  const int32_t n = instance.n;
  int64_t cost = 0;
  for (int32_t i = 0; i < n; ++i) {
    const size_t row = static_cast<size_t>(permutation[i]) * n;
    for (int32_t j = 0; j < n; ++j) {
      cost +=
          instance.flow[static_cast<size_t>(i) * n + j] * instance.distance[row + permutation[j]];
    }
  }
  return cost;
}

absl::StatusOr<QapProblem> QapAsMappingProblem(const QapInstance& instance) {
  const int32_t n = instance.n;
  const size_t cells = static_cast<size_t>(n) * n;
  if (n < 1 || instance.flow.size() != cells || instance.distance.size() != cells) {
    return absl::InvalidArgumentError(absl::StrCat("qap: n = ", n, " with ", instance.flow.size(),
                                                   " flow and ", instance.distance.size(),
                                                   " distance entries"));
  }
  for (const auto& [matrix, name] :
       {std::pair{&instance.flow, "flow"}, std::pair{&instance.distance, "distance"}}) {
    for (size_t c = 0; c < cells; ++c) {
      if ((*matrix)[c] < 0) {
        return absl::InvalidArgumentError(absl::StrCat("qap: ", name, "[", c / n, "][", c % n,
                                                       "] = ", (*matrix)[c], " is negative"));
      }
    }
  }
  // Diagonal terms are flow[i][i] * distance[p(i)][p(i)]. A machine has 0 hops from a
  // node to itself, so they can only be dropped when one of the two diagonals is 0.
  const std::optional<std::string> flow_diagonal = FindNonZeroDiagonal(instance.flow, n, "flow");
  const std::optional<std::string> distance_diagonal =
      FindNonZeroDiagonal(instance.distance, n, "distance");
  if (flow_diagonal && distance_diagonal) {
    return absl::InvalidArgumentError(absl::StrCat("qap: ", *flow_diagonal, " and ",
                                                   *distance_diagonal,
                                                   ": the mapping form has no self distances"));
  }
  const std::optional<std::string> flow_asymmetry = FindAsymmetry(instance.flow, n, "flow");
  const std::optional<std::string> distance_asymmetry =
      FindAsymmetry(instance.distance, n, "distance");
  if (flow_asymmetry && distance_asymmetry) {
    return absl::InvalidArgumentError(absl::StrCat("qap: both matrices are asymmetric (",
                                                   *flow_asymmetry, "; ", *distance_asymmetry,
                                                   "); hop-bytes needs one of them symmetric"));
  }
  // sum_{i != j} f_ij d_{p(i)p(j)} = sum_{i < j} (f_ij d_{p(i)p(j)} + f_ji d_{p(j)p(i)}):
  // with d symmetric that is (f_ij + f_ji) * d, with f symmetric f_ij * (d_kl + d_lk).
  const bool distance_symmetric = !distance_asymmetry.has_value();
  std::vector<int32_t> hops(cells, 0);
  for (int32_t k = 0; k < n; ++k) {
    for (int32_t l = 0; l < n; ++l) {
      if (k == l) continue;
      const size_t kl = static_cast<size_t>(k) * n + l;
      const size_t lk = static_cast<size_t>(l) * n + k;
      const int64_t h = distance_symmetric ? instance.distance[kl]
                                           : instance.distance[kl] + instance.distance[lk];
      if (h > DistanceMatrixMachine::kMaxHops) {
        return absl::InvalidArgumentError(absl::StrCat(
            "qap: distance between locations ", k, " and ", l, " is ", h,
            " (as hops), above the largest supported ", DistanceMatrixMachine::kMaxHops));
      }
      hops[kl] = static_cast<int32_t>(h);
    }
  }
  TaskGraphBuilder builder(n);
  for (int32_t i = 0; i < n; ++i) {
    for (int32_t j = i + 1; j < n; ++j) {
      const size_t ij = static_cast<size_t>(i) * n + j;
      const size_t ji = static_cast<size_t>(j) * n + i;
      const int64_t w =
          distance_symmetric ? instance.flow[ij] + instance.flow[ji] : instance.flow[ij];
      if (w == 0) continue;
      if (absl::Status s = builder.AddTraffic(i, j, w); !s.ok()) return s;
    }
  }
  absl::StatusOr<TaskGraph> graph = std::move(builder).Build();
  if (!graph.ok()) return graph.status();
  absl::StatusOr<DistanceMatrixMachine> machine = DistanceMatrixMachine::Create(n, std::move(hops));
  if (!machine.ok()) return machine.status();
  auto shared = std::make_shared<const DistanceMatrixMachine>(*std::move(machine));
  std::vector<NodeId> nodes(n);
  std::iota(nodes.begin(), nodes.end(), 0);
  absl::StatusOr<Allocation> allocation = Allocation::Create(shared, std::move(nodes), 1);
  if (!allocation.ok()) return allocation.status();
  return QapProblem{*std::move(graph), shared, *std::move(allocation)};
}

}  // namespace hopmap
