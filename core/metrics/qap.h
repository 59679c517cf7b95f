// Quadratic assignment problems (QAPLIB) as mapping problems.
#ifndef HOPMAP_CORE_METRICS_QAP_H_
#define HOPMAP_CORE_METRICS_QAP_H_

#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "core/graph/task_graph.h"
#include "core/topology/allocation.h"
#include "core/types.h"

namespace hopmap {

// QAPLIB convention: cost(p) = sum_{i,j} flow[i][j] * distance[p(i)][p(j)], with p(i)
// the location of facility i. Matrices are row-major n x n.
struct QapInstance {
  int32_t n = 0;
  std::vector<int64_t> flow;      // QAPLIB's first matrix (A)
  std::vector<int64_t> distance;  // QAPLIB's second matrix (B)
};

// cost(p) exactly as QAPLIB defines it, from the matrices (the reference the mapping
// form is checked against). `permutation` has n entries in 0..n-1.
int64_t QapCost(const QapInstance& instance, std::span<const int32_t> permutation);

// The same problem as hopmap solves it: facility i = task i, location k = node k of a
// DistanceMatrixMachine, one core per node, so cost(p) == hop-bytes of
// slot_of_task = p. Because hop-bytes count each undirected edge once with symmetric
// hops, one matrix must be symmetric: with a symmetric distance matrix the task
// graph has w(i,j) = flow[i][j] + flow[j][i]; with a symmetric flow matrix,
// w(i,j) = flow[i][j] and hops(k,l) = distance[k][l] + distance[l][k]. Fails (naming
// the first offending entry) when both are asymmetric, on a non-zero diagonal
// entry the mapping form cannot hold, or on negative entries.
struct QapProblem {
  TaskGraph graph;
  std::shared_ptr<const Machine> machine;
  Allocation allocation;
};
absl::StatusOr<QapProblem> QapAsMappingProblem(const QapInstance& instance);

}  // namespace hopmap

#endif  // HOPMAP_CORE_METRICS_QAP_H_
