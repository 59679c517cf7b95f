// DistanceMatrixMachine: a machine given only as a node-to-node hop matrix.
#ifndef HOPMAP_CORE_TOPOLOGY_DISTANCE_MATRIX_H_
#define HOPMAP_CORE_TOPOLOGY_DISTANCE_MATRIX_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/topology/machine.h"
#include "core/types.h"

namespace hopmap {

// The first entry of a hop matrix that breaks the rules, and what is wrong.
struct HopMatrixProblem {
  int32_t row = 0;
  int32_t col = 0;
  std::string message;  // e.g. "hops[3][5] = 2 but hops[5][3] = 4"
};

// Checks a row-major n x n hop matrix: first every entry in reading order (zero
// diagonal, values in 0..DistanceMatrixMachine::kMaxHops), then symmetry above the
// diagonal in reading order ("hops[3][5] = 2 but hops[5][3] = 4", row 3). nullopt
// when it is valid. `hops` must have n * n entries.
std::optional<HopMatrixProblem> FindHopMatrixProblem(int32_t n, std::span<const int32_t> hops);

// Hops are looked up in the matrix (kept once, shared by copies). The model has no
// links: num_links() is 0, ForEachRouteLink visits nothing, LinkName returns "".
class DistanceMatrixMachine final : public Machine {
 public:
  // Largest hop value accepted (the lower bound keeps one counter per hop value).
  static constexpr int32_t kMaxHops = 1'000'000;
  // Largest n accepted (the matrix is n * n int32).
  static constexpr int32_t kMaxNodes = 32768;

  // `hops` is row-major n x n. `names` is empty (names "nid00000", ...) or has n
  // unique host names. Fails on n < 1 or n > kMaxNodes, a wrong number of entries
  // or names, or a matrix FindHopMatrixProblem rejects (the error names the entry).
  static absl::StatusOr<DistanceMatrixMachine> Create(int32_t n, std::vector<int32_t> hops,
                                                      std::vector<std::string> names = {});

  std::string_view kind() const override { return "matrix"; }
  // "matrix:" + source, or "matrix:N" without a source.
  std::string Spec() const override;
  NodeId num_nodes() const override { return n_; }
  int32_t Hops(NodeId a, NodeId b) const override {
    return (*hops_)[static_cast<size_t>(a) * n_ + b];
  }
  int32_t max_hops() const override { return max_hops_; }
  int32_t min_hops() const override { return min_hops_; }
  int64_t num_links() const override { return 0; }
  void ForEachRouteLink(NodeId /*a*/, NodeId /*b*/, Routing /*routing*/,
                        LinkVisitor /*visit*/) const override {}
  std::string LinkName(int64_t /*link*/) const override { return ""; }

  [[nodiscard]] const std::string& source() const { return source_; }
  void set_source(std::string source) { source_ = std::move(source); }

 private:
  DistanceMatrixMachine() = default;

  NodeId n_ = 0;
  int32_t min_hops_ = 0, max_hops_ = 0;
  std::string source_;
  std::shared_ptr<const std::vector<int32_t>> hops_;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_TOPOLOGY_DISTANCE_MATRIX_H_
