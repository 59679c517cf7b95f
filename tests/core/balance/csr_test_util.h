// Graphs in METIS's compressed rows for the tests of the k-way refinements
// (kway_fm, flow_refine), and the weights of a partition's parts.
#ifndef HOPMAP_TESTS_CORE_BALANCE_CSR_TEST_UTIL_H_
#define HOPMAP_TESTS_CORE_BALANCE_CSR_TEST_UTIL_H_

#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "core/balance/kway_fm.h"
#include "core/graph/task_graph.h"

namespace hopmap::testing {

// A graph in METIS's arrays, unit vertex weights.
struct CsrArrays {
  std::vector<int32_t> xadj, adjncy, adjwgt, vwgt;
  // The task graph's edges, each of weight 1.
  explicit CsrArrays(const TaskGraph& graph)
      : xadj(graph.xadj().begin(), graph.xadj().end()),
        adjncy(graph.adjncy().begin(), graph.adjncy().end()),
        vwgt(graph.num_tasks(), 1) {
    for (TaskId t = 0; t < graph.num_tasks(); ++t)
      graph.ForEachNeighbor(t, [&](TaskId, Bytes) { adjwgt.push_back(1); });
  }
  // n vertices and the given (u, v, weight) edges, each listed once.
  CsrArrays(int32_t n, const std::vector<std::tuple<int32_t, int32_t, int32_t>>& edges)
      : xadj(n + 1, 0), vwgt(n, 1) {
    std::vector<std::vector<std::pair<int32_t, int32_t>>> rows(n);
    for (const auto& [u, v, w] : edges) rows[u].push_back({v, w}), rows[v].push_back({u, w});
    for (int32_t v = 0; v < n; ++v) {
      for (const auto& [u, w] : rows[v]) adjncy.push_back(u), adjwgt.push_back(w);
      xadj[v + 1] = static_cast<int32_t>(adjncy.size());
    }
  }
  [[nodiscard]] CsrGraph csr() const { return {xadj, adjncy, adjwgt, vwgt}; }
};

// How many vertices each of the k parts holds.
inline std::vector<int64_t> PartWeights(const std::vector<int32_t>& part, int32_t k) {
  std::vector<int64_t> weight(k, 0);
  for (int32_t p : part) ++weight[p];
  return weight;
}

}  // namespace hopmap::testing

#endif  // HOPMAP_TESTS_CORE_BALANCE_CSR_TEST_UTIL_H_
