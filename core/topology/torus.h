// N-dimensional torus/mesh with per-dimension wraparound (Blue Gene, Cray XT/XE).
#ifndef HOPMAP_CORE_TOPOLOGY_TORUS_H_
#define HOPMAP_CORE_TOPOLOGY_TORUS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/topology/machine.h"

namespace hopmap {

// Node id = x0 + D0*(x1 + D1*(x2 + ...)): the first coordinate varies fastest, as
// in Scotch's torusXD/meshXD. Hops: per dimension min(|d|, D-|d|) with wrap and
// |d| without. Links: every node has a + and a - link per dimension (ids
// (node * ndims + dim) * 2 + {0: +, 1: -}); a mesh's edge links exist but carry
// nothing. Dimension-order routing goes dim 0 first, the shorter way round, and
// at exactly half way the positive direction.
class TorusMachine final : public Machine {
 public:
  // `wrap[i]` says whether dimension i wraps. Fails on an empty or non-positive
  // dimension, or more nodes than an int32 holds.
  static absl::StatusOr<TorusMachine> Create(std::vector<int32_t> dims, std::vector<bool> wrap);

  std::string_view kind() const override;
  std::string Spec() const override;
  NodeId num_nodes() const override { return num_nodes_; }
  int32_t Hops(NodeId a, NodeId b) const override;
  int32_t max_hops() const override { return max_hops_; }
  int32_t min_hops() const override { return num_nodes_ > 1 ? 1 : 0; }
  std::vector<int32_t> dims() const override { return geometry_.dims; }
  std::vector<std::string> dim_names() const override;
  void Coordinates(NodeId node, std::span<int32_t> out) const override;
  int64_t num_links() const override;
  void ForEachRouteLink(NodeId a, NodeId b, Routing routing, LinkVisitor visit) const override;
  std::string LinkName(int64_t link) const override;
  std::vector<int64_t> BallSizeUpperBounds() const override;
  const GridGeometry* grid_geometry() const override { return &geometry_; }

  [[nodiscard]] const std::vector<bool>& wrap() const { return geometry_.wrap; }
  [[nodiscard]] NodeId NodeAt(std::span<const int32_t> coords) const;

  // The spec that read this torus from a file ("slurm-topology:PATH:NAME"), which
  // Spec() then starts with instead of "torus:DIMS"; empty for a generated torus.
  [[nodiscard]] const std::string& source() const { return source_; }
  void set_source(std::string source) { source_ = std::move(source); }
  // "torus:DIMS[:wrap=...]:cores=N" and the shared options: the generated torus of
  // the same network, whatever source() says.
  [[nodiscard]] std::string GridSpec() const;

 private:
  TorusMachine() = default;
  // Signed steps and whether both directions are minimal (exactly half way).
  struct DimMove {
    int32_t steps;  // >= 0
    int32_t sign;   // +1 or -1 (the dimension-order choice)
    bool tie;       // both directions minimal
  };
  // Inline: returned through the stack from an out-of-line call, the struct cost a
  // store-forwarding stall per dimension of every route a report walks.
  DimMove Move(int dim, int32_t from, int32_t to) const {
    const int32_t d = to - from;
    if (!geometry_.wrap[dim]) return {d >= 0 ? d : -d, d >= 0 ? 1 : -1, false};
    // Both coordinates lie in [0, size): the forward distance needs no division.
    const int32_t size = geometry_.dims[dim];
    const int32_t forward = d >= 0 ? d : d + size;
    const int32_t backward = size - forward;
    if (forward == 0) return {0, 1, false};
    if (forward < backward) return {forward, 1, false};
    if (forward > backward) return {backward, -1, false};
    return {forward, 1, true};  // exactly half way: positive first, both minimal
  }
  int64_t LinkId(NodeId node, int dim, int sign) const {
    return (static_cast<int64_t>(node) * static_cast<int64_t>(geometry_.dims.size()) + dim) * 2 +
           (sign > 0 ? 0 : 1);
  }
  void AdaptiveRoute(NodeId a, NodeId b, LinkVisitor visit) const;

  GridGeometry geometry_;
  std::string source_;
  std::vector<int64_t> stride_;
  NodeId num_nodes_ = 0;
  int32_t max_hops_ = 0;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_TOPOLOGY_TORUS_H_
