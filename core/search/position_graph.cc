#include "core/search/position_graph.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace hopmap {
namespace {

// p's neighbours among the allocated nodes at the smallest three distances: up to
// kMaxNearest at the smallest, kFarther at each of the next two, taken in cyclic
// position order after p (so the lists knit nodes of equal distance into one
// connected circulant, not a star onto the lowest positions). Keeps the graph
// connected across a fat tree's leaf switches and a fragmented allocation's
// islands. O(m).
void AppendNearest(const Allocation& allocation, int32_t p, bool link_farther,
                   std::vector<int32_t>& hops, std::vector<int32_t>& out) {
  const int kLevels = link_farther ? 3 : 1;
  constexpr size_t kFarther = 4;
  const int32_t m = allocation.num_nodes();
  hops.resize(m);
  int32_t distances[3];
  int levels = 0;
  for (int32_t q = 0; q < m; ++q) {
    if (q == p) continue;
    const int32_t h = allocation.HopsBetweenPositions(p, q);
    hops[q] = h;
    // Insert h into the sorted list of the smallest distinct distances.
    int i = 0;
    while (i < levels && distances[i] < h) ++i;
    if (i < levels && distances[i] == h) continue;
    if (i == kLevels) continue;
    for (int k = std::min(levels, kLevels - 1); k > i; --k) distances[k] = distances[k - 1];
    distances[i] = h;
    levels = std::min(levels + 1, kLevels);
  }
  for (int level = 0; level < levels; ++level) {
    const size_t want = level == 0 ? PositionGraph::kMaxNearest : kFarther;
    size_t taken = 0;
    for (int32_t step = 1; step < m && taken < want; ++step) {
      const int32_t q = (p + step) % m;
      if (hops[q] != distances[level]) continue;
      out.push_back(q);
      ++taken;
    }
  }
}

}  // namespace

namespace {

PositionGraph BuildNeighbours(const Allocation& allocation, bool link_farther) {
  std::vector<int32_t> hops;
  const int32_t m = allocation.num_nodes();
  PositionGraph g;
  g.xadj.assign(m + 1, 0);
  const GridGeometry* grid = allocation.machine().grid_geometry();
  if (grid != nullptr) {
    // Coordinates give the one-hop neighbours without looking at every pair.
    const Machine& machine = allocation.machine();
    std::vector<int32_t> position_of_node(machine.num_nodes(), -1);
    for (int32_t p = 0; p < m; ++p) position_of_node[allocation.node_at(p)] = p;
    const std::vector<int32_t>& dims = grid->dims;
    const std::vector<bool>& wrap = grid->wrap;
    const int nd = static_cast<int>(dims.size());
    std::vector<int64_t> stride(nd, 1);
    for (int d = 1; d < nd; ++d) stride[d] = stride[d - 1] * dims[d - 1];
    std::vector<int32_t> coords(nd);
    for (int32_t p = 0; p < m; ++p) {
      const NodeId node = allocation.node_at(p);
      machine.Coordinates(node, coords);
      const size_t before = g.adj.size();
      for (int d = 0; d < nd; ++d) {
        for (int step : {-1, 1}) {
          int32_t c = coords[d] + step;
          if (c < 0 || c >= dims[d]) {
            if (!wrap[d]) continue;
            c = (c + dims[d]) % dims[d];
          }
          if (c == coords[d]) continue;  // a dimension of size 1
          const NodeId other = static_cast<NodeId>(node + (c - coords[d]) * stride[d]);
          const int32_t q = position_of_node[other];
          if (q < 0 || q == p) continue;
          // A dimension of size 2 reaches the same node both ways.
          if (std::find(g.adj.begin() + before, g.adj.end(), q) == g.adj.end()) g.adj.push_back(q);
        }
      }
      if (g.adj.size() == before) AppendNearest(allocation, p, link_farther, hops, g.adj);
      g.xadj[p + 1] = static_cast<int64_t>(g.adj.size());
    }
    return g;
  }
  for (int32_t p = 0; p < m; ++p) {
    AppendNearest(allocation, p, link_farther, hops, g.adj);
    g.xadj[p + 1] = static_cast<int64_t>(g.adj.size());
  }
  return g;
}

// Blocks from breadth-first order (components one after another).
void BuildBlocks(PositionGraph& g) {
  const int32_t m = g.num_positions();
  std::vector<int32_t> order;
  order.reserve(m);
  std::vector<uint8_t> seen(m, 0);
  for (int32_t root = 0; root < m; ++root) {
    if (seen[root]) continue;
    seen[root] = 1;
    const size_t begin = order.size();
    order.push_back(root);
    for (size_t i = begin; i < order.size(); ++i) {
      for (int32_t q : g.neighbors(order[i])) {
        if (!seen[q]) {
          seen[q] = 1;
          order.push_back(q);
        }
      }
    }
  }
  const int32_t blocks = (m + PositionGraph::kBlockSize - 1) / PositionGraph::kBlockSize;
  g.block_of.resize(m);
  g.block_members = order;
  g.block_member_xadj.resize(blocks + 1);
  for (int32_t b = 0; b <= blocks; ++b) {
    g.block_member_xadj[b] = std::min<int64_t>(m, int64_t{b} * PositionGraph::kBlockSize);
  }
  for (int32_t i = 0; i < m; ++i) g.block_of[order[i]] = i / PositionGraph::kBlockSize;
  g.block_xadj.assign(blocks + 1, 0);
  std::vector<int32_t> seen_from(blocks, -1);
  for (int32_t b = 0; b < blocks; ++b) {
    for (int64_t i = g.block_member_xadj[b]; i < g.block_member_xadj[b + 1]; ++i) {
      for (int32_t q : g.neighbors(g.block_members[i])) {
        const int32_t c = g.block_of[q];
        if (c == b || seen_from[c] == b) continue;
        seen_from[c] = b;
        g.block_adj.push_back(c);
      }
    }
    g.block_xadj[b + 1] = static_cast<int64_t>(g.block_adj.size());
  }
}

}  // namespace

PositionGraph PositionGraph::Build(const Allocation& allocation, bool link_farther) {
  PositionGraph g = BuildNeighbours(allocation, link_farther);
  BuildBlocks(g);
  return g;
}

std::vector<int64_t> SumOfHopsToAll(const Allocation& allocation) {
  const int32_t m = allocation.num_nodes();
  std::vector<int64_t> sum(m, 0);
  const GridGeometry* grid = allocation.machine().grid_geometry();
  if (grid != nullptr) {
    // Torus hops add up over dimensions, so the sum splits into per-dimension sums
    // over a histogram of the allocation's coordinates: O(m * dims + sum D^2).
    const std::vector<int32_t>& dims = grid->dims;
    const int nd = static_cast<int>(dims.size());
    const std::vector<int32_t> coords = FlatPositionCoordinates(allocation);
    for (int d = 0; d < nd; ++d) {
      const int32_t size = dims[d];
      std::vector<int64_t> count(size, 0);
      for (int32_t p = 0; p < m; ++p) ++count[coords[p * nd + d]];
      std::vector<int64_t> at(size, 0);
      for (int32_t a = 0; a < size; ++a) {
        for (int32_t b = 0; b < size; ++b) {
          if (count[b] == 0) continue;
          int32_t diff = std::abs(a - b);
          if (grid->wrap[d]) diff = std::min(diff, size - diff);
          at[a] += count[b] * diff;
        }
      }
      for (int32_t p = 0; p < m; ++p) sum[p] += at[coords[p * nd + d]];
    }
    return sum;
  }
  constexpr int32_t kSample = 1024;
  const int32_t step =
      (allocation.has_dense_hops() || m <= kSample) ? 1 : (m + kSample - 1) / kSample;
  for (int32_t p = 0; p < m; ++p) {
    int64_t s = 0;
    for (int32_t q = 0; q < m; q += step) s += allocation.HopsBetweenPositions(p, q);
    sum[p] = s;
  }
  return sum;
}

std::vector<int32_t> PositionsByCentrality(const Allocation& allocation) {
  const std::vector<int64_t> sum = SumOfHopsToAll(allocation);
  std::vector<int32_t> order(sum.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&sum](int32_t a, int32_t b) { return sum[a] < sum[b]; });
  return order;
}

FreeSlotSearch::FreeSlotSearch(const Allocation& allocation, const PositionGraph& graph)
    : allocation_(&allocation),
      graph_(&graph),
      used_(allocation.num_nodes(), 0),
      free_list_(allocation.num_nodes()),
      index_in_free_(allocation.num_nodes()),
      stamp_(allocation.num_nodes(), 0),
      source_index_(allocation.num_nodes(), 0),
      source_stamp_(allocation.num_nodes(), 0),
      free_in_block_(graph.num_blocks()),
      block_stamp_(graph.num_blocks(), 0) {
  for (int32_t b = 0; b < graph.num_blocks(); ++b) {
    free_in_block_[b] =
        static_cast<int32_t>(graph.block_member_xadj[b + 1] - graph.block_member_xadj[b]);
  }
  std::iota(free_list_.begin(), free_list_.end(), 0);
  std::iota(index_in_free_.begin(), index_in_free_.end(), 0);
}

SlotId FreeSlotSearch::Take(int32_t position) {
  const int32_t cores = allocation_->cores_per_node();
  const SlotId slot = position * cores + used_[position];
  if (++used_[position] == cores) {
    // O(1) removal: move the last free position into this one's place.
    const int32_t i = index_in_free_[position];
    const int32_t last = free_list_.back();
    free_list_[i] = last;
    index_in_free_[last] = i;
    free_list_.pop_back();
    index_in_free_[position] = -1;
    --free_in_block_[graph_->block_of[position]];
  }
  return slot;
}

FreeSlotSearch::Cost FreeSlotSearch::CostAt(int32_t q) const {
  Cost c{0, 0};
  for (const PlacementSource& s : merged_) {
    const int64_t h = allocation_->HopsBetweenPositions(q, s.position);
    c.primary += s.primary * h;
    c.secondary += s.secondary * h;
  }
  return c;
}

int32_t FreeSlotSearch::FindBest(std::span<const PlacementSource> sources,
                                 std::span<const int32_t> fallback_order) {
  if (sources.empty()) {
    while (fallback_cursor_ < fallback_order.size() && !HasFree(fallback_order[fallback_cursor_])) {
      ++fallback_cursor_;
    }
    if (fallback_cursor_ < fallback_order.size()) return fallback_order[fallback_cursor_];
    return *std::min_element(free_list_.begin(), free_list_.end());
  }
  // Merge sources on one node: the cost is linear in the weights.
  if (++current_stamp_ == 0) {  // wrapped: clear the stamps once every 2^32 searches
    std::fill(stamp_.begin(), stamp_.end(), 0);
    std::fill(source_stamp_.begin(), source_stamp_.end(), 0);
    std::fill(block_stamp_.begin(), block_stamp_.end(), 0);
    current_stamp_ = 1;
  }
  merged_.clear();
  for (const PlacementSource& s : sources) {
    if (source_stamp_[s.position] == current_stamp_) {
      PlacementSource& m = merged_[source_index_[s.position]];
      m.primary += s.primary;
      m.secondary += s.secondary;
    } else {
      source_stamp_[s.position] = current_stamp_;
      source_index_[s.position] = static_cast<int32_t>(merged_.size());
      merged_.push_back(s);
    }
  }
  // Breadth-first search from every source at once, to one level past the first
  // level holding a free node.
  candidates_.clear();
  frontier_.clear();
  for (const PlacementSource& s : merged_) {
    stamp_[s.position] = current_stamp_;
    frontier_.push_back(s.position);
  }
  int levels_left = -1;  // set once a free node is seen
  int64_t visited = static_cast<int64_t>(frontier_.size());
  while (!frontier_.empty()) {
    if (candidates_.empty() && visited > kMaxFineVisits) {
      BlockSearch();
      break;
    }
    for (int32_t p : frontier_) {
      if (HasFree(p) && candidates_.size() < static_cast<size_t>(kMaxCandidates)) {
        candidates_.push_back(p);
      }
    }
    if (levels_left < 0 && !candidates_.empty()) levels_left = kExtraLevels;
    if (levels_left == 0 || candidates_.size() >= static_cast<size_t>(kMaxCandidates)) break;
    if (levels_left > 0) --levels_left;
    next_.clear();
    for (int32_t p : frontier_) {
      for (int32_t q : graph_->neighbors(p)) {
        if (stamp_[q] == current_stamp_) continue;
        stamp_[q] = current_stamp_;
        next_.push_back(q);
      }
    }
    visited += static_cast<int64_t>(next_.size());
    frontier_.swap(next_);
  }
  // The sources' component is full: every free node is a candidate.
  std::span<const int32_t> pool = candidates_;
  if (candidates_.empty()) pool = free_list_;
  int32_t best = -1;
  Cost best_cost{0, 0};
  for (int32_t q : pool) {
    const Cost c = CostAt(q);
    if (best < 0 || c.primary < best_cost.primary ||
        (c.primary == best_cost.primary &&
         (c.secondary < best_cost.secondary || (c.secondary == best_cost.secondary && q < best)))) {
      best = q;
      best_cost = c;
    }
  }
  return best;
}

void FreeSlotSearch::BlockSearch() {
  candidates_.clear();
  frontier_.clear();
  for (const PlacementSource& s : merged_) {
    const int32_t b = graph_->block_of[s.position];
    if (block_stamp_[b] == current_stamp_) continue;
    block_stamp_[b] = current_stamp_;
    frontier_.push_back(b);
  }
  int levels_left = -1;
  while (!frontier_.empty()) {
    for (int32_t b : frontier_) {
      if (free_in_block_[b] == 0) continue;
      for (int64_t i = graph_->block_member_xadj[b]; i < graph_->block_member_xadj[b + 1]; ++i) {
        const int32_t p = graph_->block_members[i];
        if (HasFree(p) && candidates_.size() < static_cast<size_t>(4 * kMaxCandidates)) {
          candidates_.push_back(p);
        }
      }
    }
    if (levels_left < 0 && !candidates_.empty()) levels_left = kExtraLevels;
    if (levels_left == 0 || candidates_.size() >= static_cast<size_t>(4 * kMaxCandidates)) break;
    if (levels_left > 0) --levels_left;
    next_.clear();
    for (int32_t b : frontier_) {
      for (int64_t e = graph_->block_xadj[b]; e < graph_->block_xadj[b + 1]; ++e) {
        const int32_t c = graph_->block_adj[e];
        if (block_stamp_[c] == current_stamp_) continue;
        block_stamp_[c] = current_stamp_;
        next_.push_back(c);
      }
    }
    frontier_.swap(next_);
  }
}

std::vector<int32_t> ReverseCuthillMcKee(std::span<const int64_t> xadj,
                                         std::span<const int32_t> adj) {
  const int32_t n = static_cast<int32_t>(xadj.size()) - 1;
  std::vector<int32_t> order;
  order.reserve(n);
  if (n <= 0) return order;
  auto degree = [&xadj](int32_t v) { return xadj[v + 1] - xadj[v]; };
  std::vector<int32_t> level(n, -1);  // BFS level in the pseudo-peripheral search
  std::vector<uint8_t> placed(n, 0);
  std::vector<int32_t> queue, component;
  // BFS of v's (unplaced) component; returns the last level's lowest-degree vertex
  // and the eccentricity, leaving the component's vertices in `component`.
  auto bfs = [&](int32_t root, int32_t& eccentricity) {
    component.clear();
    component.push_back(root);
    level[root] = 0;
    for (size_t i = 0; i < component.size(); ++i) {
      const int32_t v = component[i];
      for (int64_t e = xadj[v]; e < xadj[v + 1]; ++e) {
        const int32_t u = adj[e];
        if (level[u] >= 0 || placed[u]) continue;
        level[u] = level[v] + 1;
        component.push_back(u);
      }
    }
    eccentricity = level[component.back()];
    int32_t far = component.back();
    for (int32_t v : component) {
      if (level[v] == eccentricity &&
          (degree(v) < degree(far) || (degree(v) == degree(far) && v < far))) {
        far = v;
      }
    }
    for (int32_t v : component) level[v] = -1;
    return far;
  };
  std::vector<int32_t> scratch;
  for (int32_t first = 0; first < n; ++first) {
    if (placed[first]) continue;
    // George-Liu: hop to the far end until the eccentricity stops growing.
    int32_t root = first;
    int32_t ecc = 0;
    int32_t far = bfs(root, ecc);
    for (int iter = 0; iter < 8; ++iter) {
      int32_t far_ecc = 0;
      const int32_t next_far = bfs(far, far_ecc);
      if (far_ecc <= ecc) break;
      root = far;
      ecc = far_ecc;
      far = next_far;
    }
    // Cuthill-McKee from root.
    const size_t begin = order.size();
    order.push_back(root);
    placed[root] = 1;
    for (size_t i = begin; i < order.size(); ++i) {
      const int32_t v = order[i];
      scratch.clear();
      for (int64_t e = xadj[v]; e < xadj[v + 1]; ++e) {
        const int32_t u = adj[e];
        if (placed[u]) continue;
        placed[u] = 1;
        scratch.push_back(u);
      }
      std::sort(scratch.begin(), scratch.end(), [&degree](int32_t a, int32_t b) {
        return degree(a) != degree(b) ? degree(a) < degree(b) : a < b;
      });
      order.insert(order.end(), scratch.begin(), scratch.end());
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

std::vector<int32_t> FlatPositionCoordinates(const Allocation& allocation) {
  const int nd = static_cast<int>(allocation.machine().dims().size());
  std::vector<int32_t> coords(static_cast<size_t>(allocation.num_nodes()) * nd);
  for (int32_t p = 0; p < allocation.num_nodes(); ++p) {
    allocation.machine().Coordinates(
        allocation.node_at(p), std::span<int32_t>(coords.data() + static_cast<size_t>(p) * nd, nd));
  }
  return coords;
}

void OrderForSplit(const Allocation& allocation, std::span<const int32_t> coords, int nd,
                   std::span<int32_t> positions) {
  if (nd > 0) {
    int best_dim = 0;
    int32_t best_extent = -1;
    for (int d = 0; d < nd; ++d) {
      int32_t lo = coords[static_cast<size_t>(positions[0]) * nd + d], hi = lo;
      for (int32_t p : positions) {
        lo = std::min(lo, coords[static_cast<size_t>(p) * nd + d]);
        hi = std::max(hi, coords[static_cast<size_t>(p) * nd + d]);
      }
      if (hi - lo > best_extent) {
        best_extent = hi - lo;
        best_dim = d;
      }
    }
    std::sort(positions.begin(), positions.end(), [&](int32_t a, int32_t b) {
      const int32_t* ca = coords.data() + static_cast<size_t>(a) * nd;
      const int32_t* cb = coords.data() + static_cast<size_t>(b) * nd;
      if (ca[best_dim] != cb[best_dim]) return ca[best_dim] < cb[best_dim];
      for (int d = 0; d < nd; ++d) {
        if (ca[d] != cb[d]) return ca[d] < cb[d];
      }
      return a < b;
    });
    return;
  }
  auto farthest = [&](int32_t from) {
    int32_t best = positions[0];
    int32_t best_hops = -1;
    for (int32_t p : positions) {
      const int32_t h = allocation.HopsBetweenPositions(from, p);
      if (h > best_hops || (h == best_hops && p < best)) {
        best = p;
        best_hops = h;
      }
    }
    return best;
  };
  const int32_t a = farthest(positions[0]);
  const int32_t b = farthest(a);
  std::vector<std::pair<std::pair<int32_t, int32_t>, int32_t>> keyed;
  keyed.reserve(positions.size());
  for (int32_t p : positions) {
    const int32_t ha = allocation.HopsBetweenPositions(a, p);
    keyed.push_back({{ha - allocation.HopsBetweenPositions(b, p), ha}, p});
  }
  std::sort(keyed.begin(), keyed.end());
  for (size_t i = 0; i < keyed.size(); ++i) positions[i] = keyed[i].second;
}

namespace {

// Splits `group` into its children: positions nearer each other than the group's
// diameter. In a hierarchy every member's farthest is at the diameter, and
// a member's child holds exactly those nearer than it. False when some member of
// one child is not at the diameter from another child's first member.
bool SplitGroup(const Allocation& allocation, PositionGroup& group) {
  const std::vector<int32_t>& members = group.positions;
  if (members.size() < 2) return true;
  int32_t diameter = 0;
  for (int32_t p : members)
    diameter = std::max(diameter, allocation.HopsBetweenPositions(members[0], p));
  std::vector<int32_t> child_of(members.size(), -1);
  std::vector<size_t> first_of_child;
  for (size_t i = 0; i < members.size(); ++i) {
    if (child_of[i] >= 0) continue;
    const int32_t child = static_cast<int32_t>(first_of_child.size());
    first_of_child.push_back(i);
    for (size_t j = i; j < members.size(); ++j) {
      if (child_of[j] < 0 &&
          (j == i || allocation.HopsBetweenPositions(members[i], members[j]) < diameter)) {
        child_of[j] = child;
      }
    }
  }
  group.children.resize(first_of_child.size());
  for (size_t j = 0; j < members.size(); ++j) {
    for (size_t c = 0; c < first_of_child.size(); ++c) {
      if (static_cast<int32_t>(c) != child_of[j] &&
          allocation.HopsBetweenPositions(members[first_of_child[c]], members[j]) != diameter) {
        return false;
      }
    }
    group.children[child_of[j]].positions.push_back(members[j]);
  }
  group.height = 0;
  for (PositionGroup& child : group.children) {
    if (!SplitGroup(allocation, child)) return false;
    group.height = std::max(group.height, child.height + 1);
  }
  return true;
}

}  // namespace

PositionGroup HierarchyOfPositions(const Allocation& allocation) {
  PositionGroup root;
  root.positions.resize(allocation.num_nodes());
  std::iota(root.positions.begin(), root.positions.end(), 0);
  if (!SplitGroup(allocation, root)) return {};
  return root;
}

size_t OrderHierarchyForSplit(const Allocation& allocation, std::span<int32_t> positions) {
  const size_t half = (positions.size() + 1) / 2;
  if (positions.size() < 2) return half;
  int32_t diameter = 0;
  for (int32_t p : positions)
    diameter = std::max(diameter, allocation.HopsBetweenPositions(positions[0], p));
  // Each position's group: the first group whose first member is nearer than the
  // diameter (on a hierarchy exactly the members of its group are).
  std::vector<int32_t> firsts;
  std::vector<std::pair<int32_t, size_t>> keyed;  // (group, index given)
  keyed.reserve(positions.size());
  for (size_t i = 0; i < positions.size(); ++i) {
    int32_t group = -1;
    for (size_t g = 0; g < firsts.size() && group < 0; ++g) {
      if (allocation.HopsBetweenPositions(firsts[g], positions[i]) < diameter) {
        group = static_cast<int32_t>(g);
      }
    }
    if (group < 0) {
      group = static_cast<int32_t>(firsts.size());
      firsts.push_back(positions[i]);
    }
    keyed.push_back({group, i});
  }
  std::sort(keyed.begin(), keyed.end());
  const std::vector<int32_t> given(positions.begin(), positions.end());
  size_t best = half, best_distance = positions.size();
  for (size_t i = 0; i < keyed.size(); ++i) {
    positions[i] = given[keyed[i].second];
    if (i == 0 || keyed[i].first == keyed[i - 1].first) continue;
    const size_t distance = i > half ? i - half : half - i;
    if (distance < best_distance) {
      best = i;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace hopmap
