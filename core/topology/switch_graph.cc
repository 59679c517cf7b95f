#include "core/topology/switch_graph.h"

#include <algorithm>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tbb/parallel_for.h"

namespace hopmap {
namespace {

constexpr uint16_t kUnreached = std::numeric_limits<uint16_t>::max();
// The virtual root warning lists at most this many switches by name.
constexpr size_t kMaxListedSwitches = 20;

absl::Status Invalid(absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("switch graph: ", message));
}

// Links as vertex pairs: nodes are 0..n-1, switch s is n + s.
using Edges = std::vector<std::pair<int32_t, int32_t>>;

// The steps below that fill the machine's tables take its (private) Data as `auto&`.

absl::Status CheckSizes(const SwitchGraphSpec& spec) {
  const int64_t n64 = static_cast<int64_t>(spec.node_names.size());
  if (n64 == 0) return Invalid("no compute nodes");
  if (n64 > kMaxTasks)
    return Invalid(absl::StrCat(n64, " compute nodes is more than hopmap supports"));
  if (spec.switch_names.size() > static_cast<size_t>(SwitchGraphMachine::kMaxSwitches)) {
    return Invalid(absl::StrCat(spec.switch_names.size(), " switches is more than the ",
                                SwitchGraphMachine::kMaxSwitches, " hopmap supports"));
  }
  return absl::OkStatus();
}

// The vertex id of every name: nodes 0..n-1, switch s is n + s. Names are unique
// and not empty.
absl::StatusOr<absl::flat_hash_map<std::string, int32_t>> IndexVertices(const SwitchGraphSpec& spec,
                                                                        int32_t n, int32_t s0) {
  absl::flat_hash_map<std::string, int32_t> vertex;
  vertex.reserve(n + s0);
  auto describe = [&](int32_t v) {
    return v < n ? absl::StrCat("node ", v) : absl::StrCat("switch ", v - n);
  };
  for (int32_t v = 0; v < n + s0; ++v) {
    const std::string& name = v < n ? spec.node_names[v] : spec.switch_names[v - n];
    if (name.empty()) return Invalid(absl::StrCat(describe(v), " has an empty name"));
    auto [it, inserted] = vertex.emplace(name, v);
    if (!inserted) {
      return Invalid(absl::StrCat("name '", name, "' is given to ", describe(it->second), " and ",
                                  describe(v)));
    }
  }
  return vertex;
}

// The spec's links, deduplicated, in the order given.
struct Links {
  Edges edges;
  std::vector<bool> has_parent;  // per switch: some switch-switch link ends at it
  int64_t duplicates = 0;
  std::string first_duplicate;
};

absl::StatusOr<Links> ReadLinks(const SwitchGraphSpec& spec,
                                const absl::flat_hash_map<std::string, int32_t>& vertex, int32_t n,
                                int32_t s0) {
  Links links;
  links.edges.reserve(spec.links.size());
  links.has_parent.assign(s0, false);
  absl::flat_hash_set<uint64_t> seen;
  seen.reserve(spec.links.size());
  for (size_t i = 0; i < spec.links.size(); ++i) {
    const auto& [na, nb] = spec.links[i];
    const std::string label = absl::StrCat("link ", i, " ('", na, "' - '", nb, "')");
    auto ia = vertex.find(na);
    auto ib = vertex.find(nb);
    if (ia == vertex.end() || ib == vertex.end()) {
      return Invalid(absl::StrCat(label, ": '", ia == vertex.end() ? na : nb,
                                  "' is not a declared node or switch"));
    }
    const int32_t a = ia->second, b = ib->second;
    if (a == b) return Invalid(absl::StrCat(label, " joins '", na, "' to itself"));
    if (a < n && b < n) {
      return Invalid(
          absl::StrCat(label, " joins two compute nodes; connect nodes through a switch"));
    }
    const uint64_t key =
        (static_cast<uint64_t>(std::min(a, b)) << 32) | static_cast<uint32_t>(std::max(a, b));
    if (!seen.insert(key).second) {
      if (links.duplicates++ == 0) links.first_duplicate = absl::StrCat("'", na, "' - '", nb, "'");
      continue;
    }
    if (a >= n && b >= n) links.has_parent[b - n] = true;
    links.edges.emplace_back(a, b);
  }
  return links;
}

// Every node needs a switch.
absl::Status CheckEveryNodeAttached(const Edges& edges, const std::vector<std::string>& node_names,
                                    int32_t n) {
  std::vector<int32_t> att_count(n, 0);
  for (const auto& [a, b] : edges) {
    if (a < n) ++att_count[a];
    if (b < n) ++att_count[b];
  }
  for (int32_t v = 0; v < n; ++v) {
    if (att_count[v] == 0) {
      return Invalid(
          absl::StrCat("node '", node_names[v], "' (id ", v, ") is attached to no switch"));
    }
  }
  return absl::OkStatus();
}

// The connected groups of switches (through switch-switch links only: nodes do not
// forward), as the switch of each that a virtual root would link to: its lowest
// switch without a parent, else its lowest switch.
std::vector<int32_t> SwitchGroupTops(const Edges& edges, const std::vector<bool>& has_parent,
                                     int32_t n, int32_t s0) {
  std::vector<std::vector<int32_t>> adj(s0);
  for (const auto& [a, b] : edges) {
    if (a >= n && b >= n) {
      adj[a - n].push_back(b - n);
      adj[b - n].push_back(a - n);
    }
  }
  std::vector<int32_t> group(s0, -1);
  std::vector<int32_t> group_top;  // the switch the virtual root would link to
  std::vector<int32_t> queue;
  for (int32_t s = 0; s < s0; ++s) {
    if (group[s] >= 0) continue;
    const int32_t g = static_cast<int32_t>(group_top.size());
    int32_t top = -1;
    queue.assign(1, s);
    group[s] = g;
    for (size_t q = 0; q < queue.size(); ++q) {
      const int32_t u = queue[q];
      if (!has_parent[u] && (top < 0 || u < top)) top = u;
      for (int32_t w : adj[u]) {
        if (group[w] < 0) {
          group[w] = g;
          queue.push_back(w);
        }
      }
    }
    group_top.push_back(top >= 0 ? top : s);  // s is the group's lowest switch
  }
  return group_top;
}

// Joins the groups of switches (more than one) under a virtual root switch, the last,
// named so that no vertex has its name; warns which switches it links.
absl::Status AddVirtualRoot(const std::vector<int32_t>& group_top,
                            const absl::flat_hash_map<std::string, int32_t>& vertex, int32_t n,
                            int32_t s0, Edges& edges, auto& data) {
  if (s0 + 1 > SwitchGraphMachine::kMaxSwitches) {
    return Invalid(absl::StrCat("the switches are not connected and a virtual root would make ",
                                s0 + 1, " switches, more than the ",
                                SwitchGraphMachine::kMaxSwitches, " hopmap supports"));
  }
  std::string root(SwitchGraphMachine::kVirtualRootName);
  for (int k = 2; vertex.contains(root); ++k)
    root = absl::StrCat(std::string(SwitchGraphMachine::kVirtualRootName), "-", k);
  const int32_t r = s0;
  std::vector<std::string> listed;
  for (size_t g = 0; g < group_top.size(); ++g) {
    edges.emplace_back(n + r, n + group_top[g]);
    if (g < kMaxListedSwitches) listed.push_back(data.switch_names[group_top[g]]);
  }
  std::string list = absl::StrJoin(listed, ", ");
  if (group_top.size() > kMaxListedSwitches) {
    absl::StrAppend(&list, " and ", group_top.size() - kMaxListedSwitches, " more");
  }
  data.warnings.push_back(absl::StrCat("the switches form ", group_top.size(),
                                       " groups that are not connected; added a virtual root "
                                       "switch '",
                                       root, "' above ", list));
  data.switch_names.push_back(std::move(root));
  data.num_switches = s0 + 1;
  data.has_virtual_root = true;
  return absl::OkStatus();
}

// The link tables: the links, the node attachments (CSR over nodes) and the
// switch-switch adjacency (CSR over switches), each link e being the directed links
// 2e (as given) and 2e + 1 (back).
void FillLinkTables(const Edges& edges, int32_t n, auto& data) {
  const int32_t num_sw = data.num_switches;
  const size_t num_edges = edges.size();
  data.edge_from.resize(num_edges);
  data.edge_to.resize(num_edges);
  data.att_offsets.assign(n + 1, 0);
  data.sw_offsets.assign(num_sw + 1, 0);
  for (size_t e = 0; e < num_edges; ++e) {
    const auto [a, b] = edges[e];
    data.edge_from[e] = a;
    data.edge_to[e] = b;
    if (a < n) {
      ++data.att_offsets[a + 1];
    } else if (b < n) {
      ++data.att_offsets[b + 1];
    } else {
      ++data.sw_offsets[a - n + 1];
      ++data.sw_offsets[b - n + 1];
    }
  }
  for (int32_t v = 0; v < n; ++v) data.att_offsets[v + 1] += data.att_offsets[v];
  for (int32_t s = 0; s < num_sw; ++s) data.sw_offsets[s + 1] += data.sw_offsets[s];
  data.att_switch.resize(data.att_offsets[n]);
  data.att_up.resize(data.att_offsets[n]);
  data.att_down.resize(data.att_offsets[n]);
  data.sw_adj.resize(data.sw_offsets[num_sw]);
  data.sw_link.resize(data.sw_offsets[num_sw]);
  std::vector<int64_t> att_fill(data.att_offsets.begin(), data.att_offsets.end() - 1);
  std::vector<int64_t> sw_fill(data.sw_offsets.begin(), data.sw_offsets.end() - 1);
  for (size_t e = 0; e < num_edges; ++e) {
    const auto [a, b] = edges[e];
    const int64_t forward = 2 * static_cast<int64_t>(e), back = forward + 1;
    if (a < n || b < n) {
      const bool node_first = a < n;
      const int32_t node = node_first ? a : b;
      const int64_t k = att_fill[node]++;
      data.att_switch[k] = (node_first ? b : a) - n;
      data.att_up[k] = node_first ? forward : back;
      data.att_down[k] = node_first ? back : forward;
    } else {
      int64_t k = sw_fill[a - n]++;
      data.sw_adj[k] = b - n;
      data.sw_link[k] = forward;
      k = sw_fill[b - n]++;
      data.sw_adj[k] = a - n;
      data.sw_link[k] = back;
    }
  }
}

// Neighbours in increasing order (dimension-order routing picks the smallest).
void SortSwitchNeighbours(auto& data) {
  for (int32_t s = 0; s < data.num_switches; ++s) {
    const int64_t lo = data.sw_offsets[s], hi = data.sw_offsets[s + 1];
    std::vector<std::pair<int32_t, int64_t>> row;
    row.reserve(hi - lo);
    for (int64_t k = lo; k < hi; ++k) row.emplace_back(data.sw_adj[k], data.sw_link[k]);
    std::sort(row.begin(), row.end());
    for (int64_t k = lo; k < hi; ++k) {
      data.sw_adj[k] = row[k - lo].first;
      data.sw_link[k] = row[k - lo].second;
    }
  }
}

// Switch-to-switch distances, one BFS per switch.
void ComputeSwitchDistances(auto& d) {
  const int32_t num_sw = d.num_switches;
  d.dist.assign(static_cast<size_t>(num_sw) * num_sw, kUnreached);
  tbb::parallel_for(int32_t{0}, num_sw, [&d, num_sw](int32_t src) {
    uint16_t* row = d.dist.data() + static_cast<size_t>(src) * num_sw;
    std::vector<int32_t> queue = {src};
    row[src] = 0;
    for (size_t q = 0; q < queue.size(); ++q) {
      const int32_t u = queue[q];
      for (int64_t k = d.sw_offsets[u]; k < d.sw_offsets[u + 1]; ++k) {
        const int32_t w = d.sw_adj[k];
        if (row[w] == kUnreached) {
          row[w] = static_cast<uint16_t>(row[u] + 1);
          queue.push_back(w);
        }
      }
    }
  });
}

// Exact min/max hops over pairs of different nodes: nodes with the same set of
// switches are alike, so compare those sets.
void ComputeMinMaxHops(int32_t n, auto& data) {
  const int32_t num_sw = data.num_switches;
  absl::flat_hash_map<std::vector<int32_t>, int64_t> set_count;
  for (int32_t v = 0; v < n; ++v) {
    std::vector<int32_t> set(data.att_switch.begin() + data.att_offsets[v],
                             data.att_switch.begin() + data.att_offsets[v + 1]);
    std::sort(set.begin(), set.end());
    ++set_count[set];
  }
  std::vector<std::vector<int32_t>> sets;
  bool shared_set = false;
  for (auto& [set, count] : set_count) {
    sets.push_back(set);
    shared_set |= count > 1;
  }
  if (n <= 1) return;
  const size_t num_sets = sets.size();
  std::vector<int32_t> row_min(num_sets, std::numeric_limits<int32_t>::max());
  std::vector<int32_t> row_max(num_sets, 0);
  const auto& d = data;
  tbb::parallel_for(size_t{0}, num_sets, [&](size_t g) {
    for (size_t h = g + 1; h < num_sets; ++h) {
      int32_t best = std::numeric_limits<int32_t>::max();
      for (int32_t sa : sets[g]) {
        for (int32_t sb : sets[h]) {
          best = std::min<int32_t>(best, d.dist[static_cast<size_t>(sa) * num_sw + sb]);
        }
      }
      row_min[g] = std::min(row_min[g], best + 2);
      row_max[g] = std::max(row_max[g], best + 2);
    }
  });
  data.min_hops = shared_set ? 2 : std::numeric_limits<int32_t>::max();
  data.max_hops = shared_set ? 2 : 0;
  for (size_t g = 0; g < num_sets; ++g) {
    data.min_hops = std::min(data.min_hops, row_min[g]);
    data.max_hops = std::max(data.max_hops, row_max[g]);
  }
}

}  // namespace

absl::StatusOr<SwitchGraphMachine> SwitchGraphMachine::Create(SwitchGraphSpec spec) {
  if (absl::Status s = CheckSizes(spec); !s.ok()) return s;
  const int32_t n = static_cast<int32_t>(spec.node_names.size());
  const int32_t s0 = static_cast<int32_t>(spec.switch_names.size());
  absl::StatusOr<absl::flat_hash_map<std::string, int32_t>> vertex = IndexVertices(spec, n, s0);
  if (!vertex.ok()) return vertex.status();
  absl::StatusOr<Links> links = ReadLinks(spec, *vertex, n, s0);
  if (!links.ok()) return links.status();
  Edges& edges = links->edges;

  auto data = std::make_shared<Data>();
  if (links->duplicates > 0) {
    data->warnings.push_back(
        absl::StrCat(links->duplicates,
                     " duplicate link(s) kept once (the first: ", links->first_duplicate, ")"));
  }
  if (absl::Status s = CheckEveryNodeAttached(edges, spec.node_names, n); !s.ok()) return s;
  const std::vector<int32_t> group_top = SwitchGroupTops(edges, links->has_parent, n, s0);
  data->num_switches = s0;
  data->switch_names = std::move(spec.switch_names);
  if (group_top.size() > 1) {
    if (absl::Status s = AddVirtualRoot(group_top, *vertex, n, s0, edges, *data); !s.ok()) {
      return s;
    }
  }
  FillLinkTables(edges, n, *data);
  SortSwitchNeighbours(*data);
  ComputeSwitchDistances(*data);
  ComputeMinMaxHops(n, *data);

  SwitchGraphMachine m;
  m.num_nodes_ = n;
  m.source_ = std::move(spec.source);
  absl::StatusOr<NodeNames> names = NodeNames::List(std::move(spec.node_names));
  if (!names.ok()) return Invalid(names.status().message());
  m.set_node_names(*std::move(names));
  m.data_ = std::move(data);
  return m;
}

SwitchGraphSpec SwitchGraphMachine::ToSpec() const {
  SwitchGraphSpec spec;
  spec.node_names.reserve(static_cast<size_t>(num_nodes_));
  for (NodeId v = 0; v < num_nodes_; ++v) spec.node_names.push_back(NodeName(v));
  spec.switch_names = data_->switch_names;
  spec.links.reserve(data_->edge_from.size());
  for (size_t e = 0; e < data_->edge_from.size(); ++e) {
    spec.links.emplace_back(VertexName(data_->edge_from[e]), VertexName(data_->edge_to[e]));
  }
  spec.source = source_;
  return spec;
}

std::string SwitchGraphMachine::Spec() const {
  return absl::StrCat(source_.empty() ? std::string("graph") : source_, SharedSpecOptions());
}

int32_t SwitchGraphMachine::Hops(NodeId a, NodeId b) const {
  if (a == b) return 0;
  const Data& d = *data_;
  const int64_t a_lo = d.att_offsets[a], a_hi = d.att_offsets[a + 1];
  const int64_t b_lo = d.att_offsets[b], b_hi = d.att_offsets[b + 1];
  if (a_hi - a_lo == 1 && b_hi - b_lo == 1) return Dist(d.att_switch[a_lo], d.att_switch[b_lo]) + 2;
  int32_t best = std::numeric_limits<int32_t>::max();
  for (int64_t i = a_lo; i < a_hi; ++i) {
    for (int64_t j = b_lo; j < b_hi; ++j) {
      best = std::min(best, Dist(d.att_switch[i], d.att_switch[j]));
    }
  }
  return best + 2;
}

std::vector<int32_t> SwitchGraphMachine::SwitchesOfNode(NodeId node) const {
  return std::vector<int32_t>(data_->att_switch.begin() + data_->att_offsets[node],
                              data_->att_switch.begin() + data_->att_offsets[node + 1]);
}

std::vector<std::pair<int64_t, int64_t>> SwitchGraphMachine::NodeLinks(NodeId node) const {
  std::vector<std::pair<int64_t, int64_t>> links;
  for (int64_t i = data_->att_offsets[node]; i < data_->att_offsets[node + 1]; ++i) {
    links.emplace_back(data_->att_up[i], data_->att_down[i]);
  }
  return links;
}

int32_t SwitchGraphMachine::BestPairs(NodeId a, NodeId b,
                                      std::vector<std::pair<int64_t, int64_t>>* pairs) const {
  const Data& d = *data_;
  int32_t best = std::numeric_limits<int32_t>::max();
  for (int64_t i = d.att_offsets[a]; i < d.att_offsets[a + 1]; ++i) {
    for (int64_t j = d.att_offsets[b]; j < d.att_offsets[b + 1]; ++j) {
      const int32_t dist = Dist(d.att_switch[i], d.att_switch[j]);
      if (dist < best) {
        best = dist;
        pairs->clear();
      }
      if (dist == best) pairs->emplace_back(i, j);
    }
  }
  return best;
}

void SwitchGraphMachine::ForEachRouteLink(NodeId a, NodeId b, Routing routing,
                                          LinkVisitor visit) const {
  if (a == b) return;
  const Data& d = *data_;
  std::vector<std::pair<int64_t, int64_t>> pairs;
  const int32_t dist = BestPairs(a, b, &pairs);
  if (routing == Routing::kDimensionOrder) {
    const auto [i, j] = pairs.front();
    const int32_t sb = d.att_switch[j];
    visit(d.att_up[i], 1.0);
    int32_t s = d.att_switch[i];
    while (s != sb) {
      const int32_t want = Dist(s, sb) - 1;
      for (int64_t k = d.sw_offsets[s]; k < d.sw_offsets[s + 1]; ++k) {
        if (Dist(sb, d.sw_adj[k]) == want) {
          visit(d.sw_link[k], 1.0);
          s = d.sw_adj[k];
          break;
        }
      }
    }
    visit(d.att_down[j], 1.0);
    return;
  }
  // Adaptive: the shortest-path DAG of each tied pair, layer by layer. Path counts
  // live in per-thread scratch arrays indexed by switch (an epoch stamp marks the
  // entries of this pass, so nothing is cleared between routes). A visitor that
  // starts another route on the same thread gets fresh arrays instead.
  struct Scratch {
    bool busy = false;
    std::vector<double> from_src, to_dst;
    std::vector<uint32_t> stamp;
    uint32_t epoch = 0;
    std::vector<std::vector<int32_t>> layers;
  };
  thread_local Scratch per_thread;
  Scratch fresh;
  Scratch& scratch = per_thread.busy ? fresh : per_thread;
  scratch.busy = true;
  const size_t num_sw = static_cast<size_t>(d.num_switches);
  if (scratch.stamp.size() < num_sw) {
    scratch.from_src.resize(num_sw);
    scratch.to_dst.resize(num_sw);
    scratch.stamp.assign(num_sw, 0);
    scratch.epoch = 0;
  }
  if (scratch.layers.size() < static_cast<size_t>(dist) + 1) scratch.layers.resize(dist + 1);
  std::vector<double>& from_src = scratch.from_src;
  std::vector<double>& to_dst = scratch.to_dst;
  std::vector<uint32_t>& stamp = scratch.stamp;
  std::vector<std::vector<int32_t>>& layers = scratch.layers;
  const double pair_share = 1.0 / static_cast<double>(pairs.size());
  for (const auto& [i, j] : pairs) {
    const int32_t sa = d.att_switch[i], sb = d.att_switch[j];
    visit(d.att_up[i], pair_share);
    if (sa != sb) {
      if (++scratch.epoch == 0) {  // wrapped: old stamps could look current
        std::fill(stamp.begin(), stamp.end(), 0);
        scratch.epoch = 1;
      }
      const uint32_t epoch = scratch.epoch;
      for (int32_t layer = 0; layer <= dist; ++layer) layers[layer].clear();
      layers[0].push_back(sa);
      stamp[sa] = epoch;
      from_src[sa] = 1.0;
      for (int32_t layer = 0; layer < dist; ++layer) {
        for (int32_t u : layers[layer]) {
          const double paths = from_src[u];
          for (int64_t k = d.sw_offsets[u]; k < d.sw_offsets[u + 1]; ++k) {
            const int32_t w = d.sw_adj[k];
            if (Dist(sb, w) != dist - layer - 1) continue;
            if (stamp[w] != epoch) {
              stamp[w] = epoch;
              from_src[w] = 0.0;
              layers[layer + 1].push_back(w);
            }
            from_src[w] += paths;
          }
        }
      }
      to_dst[sb] = 1.0;
      for (int32_t layer = dist - 1; layer >= 0; --layer) {
        for (int32_t u : layers[layer]) {
          double paths = 0;
          for (int64_t k = d.sw_offsets[u]; k < d.sw_offsets[u + 1]; ++k) {
            const int32_t w = d.sw_adj[k];
            if (Dist(sb, w) == dist - layer - 1) paths += to_dst[w];
          }
          to_dst[u] = paths;
        }
      }
      const double total = from_src[sb];
      for (int32_t layer = 0; layer < dist; ++layer) {
        for (int32_t u : layers[layer]) {
          const double before = pair_share * from_src[u] / total;
          for (int64_t k = d.sw_offsets[u]; k < d.sw_offsets[u + 1]; ++k) {
            const int32_t w = d.sw_adj[k];
            if (Dist(sb, w) != dist - layer - 1) continue;
            visit(d.sw_link[k], before * to_dst[w]);
          }
        }
      }
    }
    visit(d.att_down[j], pair_share);
  }
  scratch.busy = false;
}

std::string SwitchGraphMachine::VertexName(int32_t v) const {
  return v < num_nodes_ ? NodeName(v) : data_->switch_names[v - num_nodes_];
}

std::string SwitchGraphMachine::LinkName(int64_t link) const {
  if (link < 0 || link >= num_links()) return "";
  const size_t e = static_cast<size_t>(link / 2);
  int32_t from = data_->edge_from[e], to = data_->edge_to[e];
  if (link % 2 == 1) std::swap(from, to);
  return absl::StrCat(VertexName(from), "->", VertexName(to));
}

}  // namespace hopmap
