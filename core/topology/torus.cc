#include "core/topology/torus.h"

#include <cmath>
#include <cstdlib>
#include <span>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hopmap {

absl::StatusOr<TorusMachine> TorusMachine::Create(std::vector<int32_t> dims,
                                                  std::vector<bool> wrap) {
  if (dims.empty()) return absl::InvalidArgumentError("torus/mesh: needs at least one dimension");
  if (wrap.size() != dims.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("torus/mesh: ", dims.size(), " dimensions but ", wrap.size(), " wrap flags"));
  }
  TorusMachine m;
  int64_t nodes = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("torus/mesh: dimension ", i, " has size ", dims[i], " (must be >= 1)"));
    }
    m.stride_.push_back(nodes);
    nodes *= dims[i];
    if (nodes > kMaxTasks) {
      return absl::InvalidArgumentError("torus/mesh: more nodes than hopmap supports (2^31)");
    }
    m.max_hops_ += wrap[i] ? dims[i] / 2 : dims[i] - 1;
  }
  m.geometry_.dims = std::move(dims);
  m.geometry_.wrap = std::move(wrap);
  m.num_nodes_ = static_cast<NodeId>(nodes);
  return m;
}

std::string_view TorusMachine::kind() const {
  for (bool w : geometry_.wrap) {
    if (w) return "torus";
  }
  return "mesh";
}

std::string TorusMachine::Spec() const {
  if (source_.empty()) return GridSpec();
  return absl::StrCat(source_, ":cores=", cores_per_node(), SharedSpecOptions());
}

std::string TorusMachine::GridSpec() const {
  std::string spec = absl::StrCat(std::string(kind()), ":", absl::StrJoin(geometry_.dims, "x"));
  bool mixed = false;
  for (bool w : geometry_.wrap) mixed |= (w != geometry_.wrap[0]);
  if (mixed) {
    absl::StrAppend(&spec, ":wrap=");
    for (bool w : geometry_.wrap) absl::StrAppend(&spec, w ? "1" : "0");
  }
  absl::StrAppend(&spec, ":cores=", cores_per_node(), SharedSpecOptions());
  return spec;
}

std::vector<std::string> TorusMachine::dim_names() const {
  static constexpr const char* kNames[] = {"X", "Y", "Z", "W", "V", "U"};
  std::vector<std::string> names;
  for (size_t i = 0; i < geometry_.dims.size(); ++i) {
    names.push_back(i < 6 ? kNames[i] : absl::StrCat("D", i));
  }
  return names;
}

void TorusMachine::Coordinates(NodeId node, std::span<int32_t> out) const {
  // Node ids are 32-bit: a 32-bit division is several times quicker than a 64-bit
  // one, and a report takes the coordinates of both ends of every route.
  auto rest = static_cast<uint32_t>(node);
  for (size_t i = 0; i < geometry_.dims.size(); ++i) {
    const auto size = static_cast<uint32_t>(geometry_.dims[i]);
    out[i] = static_cast<int32_t>(rest % size);
    rest /= size;
  }
}

NodeId TorusMachine::NodeAt(std::span<const int32_t> coords) const {
  int64_t id = 0;
  for (size_t i = 0; i < geometry_.dims.size(); ++i) id += coords[i] * stride_[i];
  return static_cast<NodeId>(id);
}

int32_t TorusMachine::Hops(NodeId a, NodeId b) const {
  int32_t hops = 0;
  auto ra = static_cast<uint32_t>(a), rb = static_cast<uint32_t>(b);  // as in Coordinates
  for (size_t i = 0; i < geometry_.dims.size(); ++i) {
    const int32_t size = geometry_.dims[i];
    const auto usize = static_cast<uint32_t>(size);
    const auto ca = static_cast<int32_t>(ra % usize), cb = static_cast<int32_t>(rb % usize);
    ra /= usize;
    rb /= usize;
    const int32_t d = std::abs(ca - cb);
    hops += geometry_.wrap[i] ? std::min(d, size - d) : d;
  }
  return hops;
}

int64_t TorusMachine::num_links() const {
  return static_cast<int64_t>(num_nodes_) * static_cast<int64_t>(geometry_.dims.size()) * 2;
}

std::string TorusMachine::LinkName(int64_t link) const {
  const int ndims = static_cast<int>(geometry_.dims.size());
  const int sign = (link % 2 == 0) ? 1 : -1;
  const int dim = static_cast<int>((link / 2) % ndims);
  const NodeId node = static_cast<NodeId>(link / 2 / ndims);
  std::vector<int32_t> c(ndims);
  Coordinates(node, c);
  std::string from = absl::StrCat("(", absl::StrJoin(c, ","), ")");
  c[dim] = geometry_.wrap[dim]
               ? ((c[dim] + sign) % geometry_.dims[dim] + geometry_.dims[dim]) % geometry_.dims[dim]
               : c[dim] + sign;
  return absl::StrCat(from, "->(", absl::StrJoin(c, ","), ")");
}

void TorusMachine::ForEachRouteLink(NodeId a, NodeId b, Routing routing, LinkVisitor visit) const {
  if (a == b) return;
  if (routing == Routing::kAdaptive) {
    AdaptiveRoute(a, b, visit);
    return;
  }
  const int ndims = static_cast<int>(geometry_.dims.size());
  // On the stack for the usual few dimensions: a report walks one route per
  // direction of every edge.
  absl::InlinedVector<int32_t, 8> cur(ndims), dst(ndims);
  Coordinates(a, std::span<int32_t>(cur.data(), cur.size()));
  Coordinates(b, std::span<int32_t>(dst.data(), dst.size()));
  NodeId node = a;
  for (int i = 0; i < ndims; ++i) {
    const DimMove move = Move(i, cur[i], dst[i]);
    const int32_t size = geometry_.dims[i];
    int32_t at = cur[i];
    for (int32_t s = 0; s < move.steps; ++s) {
      visit(LinkId(node, i, move.sign), 1.0);
      int32_t next = at + move.sign;  // around the ring without a division
      if (next == size) {
        next = 0;
      } else if (next < 0) {
        next = size - 1;
      }
      node = static_cast<NodeId>(node + (next - at) * stride_[i]);
      at = next;
    }
  }
}

// Splits the route equally over all minimal paths. The paths from offset 0 to
// offset k in the box of per-dimension steps are the interleavings of the moves;
// the share of the step from p along dim i is M(p) * M(k - p - e_i) / M(k), with
// M the multinomial coefficient. Where a dimension is exactly half way round both
// directions are minimal and each gets half of the paths.
void TorusMachine::AdaptiveRoute(NodeId a, NodeId b, LinkVisitor visit) const {
  const int ndims = static_cast<int>(geometry_.dims.size());
  std::vector<int32_t> ca(ndims), cb(ndims);
  Coordinates(a, ca);
  Coordinates(b, cb);
  std::vector<DimMove> moves(ndims);
  std::vector<int> tie_dims;
  for (int i = 0; i < ndims; ++i) {
    moves[i] = Move(i, ca[i], cb[i]);
    if (moves[i].tie) tie_dims.push_back(i);
  }
  auto log_multinomial = [](std::span<const int32_t> v) {
    double total = 0, result = 0;
    for (int32_t x : v) {
      total += x;
      result -= std::lgamma(x + 1.0);
    }
    return result + std::lgamma(total + 1.0);
  };
  std::vector<int32_t> k(ndims), p(ndims), rest(ndims), sign(ndims);
  for (int i = 0; i < ndims; ++i) k[i] = moves[i].steps;
  const double log_total = log_multinomial(k);
  const double combo_weight = 1.0 / static_cast<double>(1 << tie_dims.size());
  for (uint32_t combo = 0; combo < (1u << tie_dims.size()); ++combo) {
    for (int i = 0; i < ndims; ++i) sign[i] = moves[i].sign;
    for (size_t t = 0; t < tie_dims.size(); ++t) {
      if (combo & (1u << t)) sign[tie_dims[t]] = -1;
    }
    // Walk every point p of the box [0, k] in mixed radix.
    std::fill(p.begin(), p.end(), 0);
    while (true) {
      const double log_before = log_multinomial(p);
      std::vector<int32_t> coords(ndims);
      for (int i = 0; i < ndims; ++i) {
        coords[i] =
            ((ca[i] + sign[i] * p[i]) % geometry_.dims[i] + geometry_.dims[i]) % geometry_.dims[i];
      }
      const NodeId node = NodeAt(coords);
      for (int i = 0; i < ndims; ++i) {
        if (p[i] >= k[i]) continue;
        for (int j = 0; j < ndims; ++j) rest[j] = k[j] - p[j] - (j == i ? 1 : 0);
        const double share =
            std::exp(log_before + log_multinomial(rest) - log_total) * combo_weight;
        visit(LinkId(node, i, sign[i]), share);
      }
      int i = 0;
      while (i < ndims && p[i] == k[i]) p[i++] = 0;
      if (i == ndims) break;
      ++p[i];
    }
  }
}

std::vector<int64_t> TorusMachine::BallSizeUpperBounds() const {
  // Tori are vertex-transitive; on a mesh the centre node has the largest balls
  // (per-dimension counts from the centre dominate, and convolution keeps that).
  // counts[h] = nodes at exactly h hops, by convolving the per-dimension counts.
  std::vector<int64_t> counts = {1};
  for (size_t i = 0; i < geometry_.dims.size(); ++i) {
    const int32_t size = geometry_.dims[i];
    std::vector<int64_t> dim_counts;
    const int32_t centre = geometry_.wrap[i] ? 0 : size / 2;
    for (int32_t x = 0; x < size; ++x) {
      const int32_t d = std::abs(x - centre);
      const int32_t h = geometry_.wrap[i] ? std::min(d, size - d) : d;
      if (h >= static_cast<int32_t>(dim_counts.size())) dim_counts.resize(h + 1, 0);
      ++dim_counts[h];
    }
    std::vector<int64_t> next(counts.size() + dim_counts.size() - 1, 0);
    for (size_t a = 0; a < counts.size(); ++a) {
      for (size_t b = 0; b < dim_counts.size(); ++b) next[a + b] += counts[a] * dim_counts[b];
    }
    counts = std::move(next);
  }
  std::vector<int64_t> balls(max_hops_ + 1, num_nodes_);
  int64_t running = 0;
  for (int32_t h = 0; h <= max_hops_; ++h) {
    if (h < static_cast<int32_t>(counts.size())) running += counts[h];
    balls[h] = std::min<int64_t>(running, num_nodes_);
  }
  return balls;
}

}  // namespace hopmap
