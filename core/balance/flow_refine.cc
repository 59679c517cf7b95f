#include "core/balance/flow_refine.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace hopmap {
namespace {

constexpr int32_t kSource = 0;
constexpr int32_t kSink = 1;
// How often one pair is tried again after a cut fell, at most.
constexpr int32_t kMaxTriesPerPair = 8;

// A flow network in compressed rows, each arc with its reverse (reverse_[a]),
// with Dinic's maximum flow (levels by breadth-first search, then blocking flows
// along the current arcs). Edges are added first, then Finish() lays out the arcs.
class FlowNetwork {
 public:
  explicit FlowNetwork(int32_t nodes) : first_(nodes + 1, 0) {}

  [[nodiscard]] int32_t num_nodes() const { return static_cast<int32_t>(first_.size()) - 1; }

  // An edge u-v that carries up to `forward` from u to v and `backward` back.
  void AddEdge(int32_t u, int32_t v, int64_t forward, int64_t backward) {
    edges_.push_back({u, v, forward, backward});
    ++first_[u + 1];
    ++first_[v + 1];
  }

  void Finish() {
    for (size_t v = 1; v < first_.size(); ++v) first_[v] += first_[v - 1];
    const size_t arcs = static_cast<size_t>(first_.back());
    to_.resize(arcs);
    capacity_.resize(arcs);
    reverse_.resize(arcs);
    std::vector<int32_t> fill(first_.begin(), first_.end() - 1);
    for (const Edge& e : edges_) {
      const int32_t a = fill[e.u]++, b = fill[e.v]++;
      to_[a] = e.v, capacity_[a] = e.forward, reverse_[a] = b;
      to_[b] = e.u, capacity_[b] = e.backward, reverse_[b] = a;
    }
    edges_ = {};
  }

  int64_t MaxFlow() {
    int64_t flow = 0;
    while (BuildLevels()) {
      current_.assign(first_.begin(), first_.end() - 1);
      for (int64_t pushed; (pushed = Augment()) > 0;) flow += pushed;
    }
    return flow;
  }

  // The nodes `from` reaches along arcs with capacity left; with forward false,
  // the nodes that reach `from` so.
  [[nodiscard]] std::vector<char> Reached(int32_t from, bool forward) const {
    std::vector<char> reached(num_nodes(), 0);
    std::vector<int32_t> queue{from};
    reached[from] = 1;
    for (size_t i = 0; i < queue.size(); ++i) {
      for (int32_t a = first_[queue[i]]; a < first_[queue[i] + 1]; ++a) {
        // a goes x -> w; its reverse w -> x.
        const int32_t w = to_[a];
        if (capacity_[forward ? a : reverse_[a]] > 0 && !reached[w]) {
          reached[w] = 1;
          queue.push_back(w);
        }
      }
    }
    return reached;
  }

  // The strongly connected components of the residual graph, each node's
  // component numbered in Tarjan's order of completion: a component is numbered
  // after every component it reaches (a reverse topological order).
  [[nodiscard]] std::vector<int32_t> ResidualComponents(int32_t* count) const {
    const int32_t n = num_nodes();
    std::vector<int32_t> index(n, -1), low(n, 0), component(n, -1), stack, arc_of(n);
    std::vector<int32_t> calls;  // the depth-first path
    int32_t next_index = 0, components = 0;
    auto open = [&](int32_t v) {
      index[v] = low[v] = next_index++;
      arc_of[v] = first_[v];
      stack.push_back(v);
      calls.push_back(v);
    };
    for (int32_t root = 0; root < n; ++root) {
      if (index[root] >= 0) continue;
      open(root);
      while (!calls.empty()) {
        const int32_t v = calls.back();
        int32_t& a = arc_of[v];
        for (; a < first_[v + 1]; ++a) {
          if (capacity_[a] <= 0) continue;
          const int32_t w = to_[a];
          if (index[w] < 0) break;
          if (component[w] < 0) low[v] = std::min(low[v], index[w]);
        }
        if (a < first_[v + 1]) {
          open(to_[a++]);
          continue;
        }
        calls.pop_back();
        if (!calls.empty()) low[calls.back()] = std::min(low[calls.back()], low[v]);
        if (low[v] == index[v]) {
          int32_t w;
          do {
            w = stack.back();
            stack.pop_back();
            component[w] = components;
          } while (w != v);
          ++components;
        }
      }
    }
    *count = components;
    return component;
  }

 private:
  struct Edge {
    int32_t u, v;
    int64_t forward, backward;
  };

  bool BuildLevels() {
    level_.assign(num_nodes(), -1);
    queue_.assign(1, kSource);
    level_[kSource] = 0;
    for (size_t i = 0; i < queue_.size(); ++i) {
      const int32_t v = queue_[i];
      for (int32_t a = first_[v]; a < first_[v + 1]; ++a) {
        if (capacity_[a] > 0 && level_[to_[a]] < 0) {
          level_[to_[a]] = level_[v] + 1;
          if (to_[a] == kSink) return true;  // deeper levels never lead to it
          queue_.push_back(to_[a]);
        }
      }
    }
    return false;
  }

  // One path from the source to the sink along the levels, saturated; 0 when
  // the levels hold none any more.
  int64_t Augment() {
    path_.clear();
    int32_t v = kSource;
    while (true) {
      if (v == kSink) {
        int64_t pushed = capacity_[path_[0]];
        for (int32_t a : path_) pushed = std::min(pushed, capacity_[a]);
        for (int32_t a : path_) capacity_[a] -= pushed, capacity_[reverse_[a]] += pushed;
        return pushed;
      }
      int32_t& a = current_[v];
      const int32_t end = first_[v + 1];
      while (a < end && (capacity_[a] <= 0 || level_[to_[a]] != level_[v] + 1)) ++a;
      if (a < end) {
        path_.push_back(a);
        v = to_[a];
        continue;
      }
      if (v == kSource) return 0;
      level_[v] = -1;  // a dead end for the rest of this phase
      path_.pop_back();
      v = path_.empty() ? kSource : to_[path_.back()];
      ++current_[v];
    }
  }

  std::vector<Edge> edges_;
  std::vector<int32_t> first_, to_, reverse_;
  std::vector<int64_t> capacity_;
  std::vector<int32_t> level_, current_, path_, queue_;
};

// The state of one refinement: the partition, its parts' weights and members.
class PairRefiner {
 public:
  PairRefiner(const CsrGraph& graph, std::span<const int64_t> max_weight, std::span<int32_t> part,
              const FlowRefineOptions& options)
      : graph_(graph),
        max_weight_(max_weight),
        part_(part),
        options_(options),
        k_(static_cast<int32_t>(max_weight.size())),
        weight_(max_weight.size(), 0),
        tolerance_(max_weight.size(), 1),
        members_(max_weight.size()),
        local_of_(graph.num_vertices(), -1) {
    int64_t total = 0, limits = 0;
    for (int32_t v = 0; v < graph.num_vertices(); ++v) weight_[part_[v]] += graph.vwgt[v];
    for (int32_t p = 0; p < k_; ++p) total += weight_[p], limits += max_weight_[p];
    for (int32_t p = 0; p < k_; ++p) {
      const double share = limits > 0
                               ? static_cast<double>(total) * static_cast<double>(max_weight_[p]) /
                                     static_cast<double>(limits)
                               : 0;
      tolerance_[p] =
          std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(max_weight_[p]) - share));
    }
  }

  int64_t Run() {
    int64_t total = 0;
    for (int32_t round = 0; round < options_.max_rounds; ++round) {
      for (auto& m : members_) m.clear();
      for (int32_t v = 0; v < graph_.num_vertices(); ++v) members_[part_[v]].push_back(v);
      int64_t gained = 0;
      for (const auto& [a, b] : PairsByCut()) {
        // A pair that found nothing, neither part changed since: nothing again.
        const int64_t key = int64_t{a} * k_ + b;
        const auto last = settled_.find(key);
        if (last != settled_.end() && last->second == std::make_pair(changes_[a], changes_[b])) {
          continue;
        }
        const int64_t gain = RefinePair(a, b);
        gained += gain;
        if (gain == 0) settled_[key] = {changes_[a], changes_[b]};
      }
      total += gained;
      if (gained == 0) break;
    }
    return total;
  }

 private:
  // The pairs of parts that share edges, the heaviest shared cut first (then
  // the lower pair).
  std::vector<std::pair<int32_t, int32_t>> PairsByCut() const {
    absl::flat_hash_map<int64_t, int64_t> cut;
    for (int32_t v = 0; v < graph_.num_vertices(); ++v) {
      for (int32_t e = graph_.xadj[v]; e < graph_.xadj[v + 1]; ++e) {
        const int32_t u = graph_.adjncy[e];
        if (part_[u] <= part_[v]) continue;
        cut[int64_t{part_[v]} * k_ + part_[u]] += graph_.adjwgt[e];
      }
    }
    std::vector<std::pair<int64_t, int64_t>> sorted(cut.begin(), cut.end());
    std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) {
      return x.second != y.second ? x.second > y.second : x.first < y.first;
    });
    std::vector<std::pair<int32_t, int32_t>> pairs;
    pairs.reserve(sorted.size());
    for (const auto& [key, w] : sorted) {
      pairs.emplace_back(static_cast<int32_t>(key / k_), static_cast<int32_t>(key % k_));
    }
    return pairs;
  }

  int64_t RefinePair(int32_t a, int32_t b) {
    int64_t gained = 0;
    double alpha = options_.max_alpha;
    for (int32_t tries = 0; tries < kMaxTriesPerPair && alpha >= 1;) {
      const int64_t gain = TryCorridor(a, b, alpha);
      if (gain > 0) {
        gained += gain;
        ++tries;
      } else if (gain == 0) {
        break;  // no lower cut in this corridor, nor in a smaller one
      } else {
        alpha /= 2;  // the lower cuts did not fit
      }
    }
    return gained;
  }

  // Breadth-first from `from`'s vertices next to `to`, inside `from`, while the
  // corridor's weight stays within `bound`; appends to region_. Returns the
  // corridor's weight.
  int64_t GrowCorridor(int32_t from, int32_t to, int64_t bound) {
    const size_t begin = region_.size();
    int64_t weight = 0;
    auto take = [&](int32_t v) {
      if (local_of_[v] >= 0) return true;
      if (weight + graph_.vwgt[v] > bound) return false;
      weight += graph_.vwgt[v];
      local_of_[v] = static_cast<int32_t>(region_.size()) + 2;
      region_.push_back(v);
      return true;
    };
    bool full = false;
    for (int32_t v : members_[from]) {
      if (part_[v] != from) continue;
      bool next_to = false;
      for (int32_t e = graph_.xadj[v]; e < graph_.xadj[v + 1] && !next_to; ++e) {
        next_to = part_[graph_.adjncy[e]] == to;
      }
      if (next_to && !take(v)) {
        full = true;
        break;
      }
    }
    for (size_t i = begin; i < region_.size() && !full; ++i) {
      const int32_t v = region_[i];
      for (int32_t e = graph_.xadj[v]; e < graph_.xadj[v + 1]; ++e) {
        const int32_t u = graph_.adjncy[e];
        if (part_[u] == from && !take(u)) {
          full = true;
          break;
        }
      }
    }
    return weight;
  }

  // One corridor of the pair at `alpha`: the cut's fall when a lower cut that
  // fits was applied, 0 when the corridor holds no lower cut, -1 when its lower
  // cuts do not fit.
  int64_t TryCorridor(int32_t a, int32_t b, double alpha) {
    auto bound_for = [&](int32_t other) {
      const double room =
          static_cast<double>(std::max<int64_t>(0, max_weight_[other] - weight_[other]));
      return static_cast<int64_t>(room + (alpha - 1) * static_cast<double>(tolerance_[other]));
    };
    region_.clear();
    const int64_t corridor_a = GrowCorridor(a, b, bound_for(b));
    const size_t a_side = region_.size();
    const int64_t corridor_b = GrowCorridor(b, a, bound_for(a));
    struct Reset {
      PairRefiner& r;
      ~Reset() {
        for (int32_t v : r.region_) r.local_of_[v] = -1;
      }
    } reset{*this};
    if (a_side == 0 || a_side == region_.size()) return 0;
    // A corridor that took its whole part leaves its side no anchor: the minimum
    // cut is then 0 and empties a part, which fits only where the other could
    // take it all, as a corridor at alpha = 1 may. A smaller alpha, without the
    // flow.
    if (alpha > 1 && (corridor_a == weight_[a] || corridor_b == weight_[b])) return -1;

    const int32_t nodes = static_cast<int32_t>(region_.size()) + 2;
    FlowNetwork network(nodes);
    std::vector<int64_t> to_source(nodes, 0), to_sink(nodes, 0);
    int64_t cut_now = 0;  // the corridor's share of the pair's cut as it is
    for (size_t i = 0; i < region_.size(); ++i) {
      const int32_t v = region_[i];
      const int32_t l = local_of_[v];
      const bool in_a = i < a_side;
      for (int32_t e = graph_.xadj[v]; e < graph_.xadj[v + 1]; ++e) {
        const int32_t u = graph_.adjncy[e];
        const int64_t w = graph_.adjwgt[e];
        const int32_t lu = local_of_[u];
        if (lu >= 0) {
          if (lu > l) {
            network.AddEdge(l, lu, w, w);
            if ((static_cast<size_t>(lu - 2) < a_side) != in_a) cut_now += w;
          }
        } else if (part_[u] == a) {
          to_source[l] += w;
          if (!in_a) cut_now += w;
        } else if (part_[u] == b) {
          to_sink[l] += w;
          if (in_a) cut_now += w;
        }
      }
    }
    for (int32_t l = 2; l < nodes; ++l) {
      if (to_source[l] > 0) network.AddEdge(kSource, l, to_source[l], 0);
      if (to_sink[l] > 0) network.AddEdge(l, kSink, to_sink[l], 0);
    }
    network.Finish();
    const int64_t flow = network.MaxFlow();
    if (flow >= cut_now) return 0;

    // The most balanced minimum cut of one sweep: the source side is what the
    // source reaches, then components in Tarjan's order (each closed under the
    // residual arcs with those before it), never one that reaches the sink.
    const std::vector<char> from_source = network.Reached(kSource, /*forward=*/true);
    const std::vector<char> to_sink_side = network.Reached(kSink, /*forward=*/false);
    int32_t components = 0;
    const std::vector<int32_t> component = network.ResidualComponents(&components);
    std::vector<int64_t> component_weight(components, 0);
    std::vector<char> free_component(components, 1);
    int64_t side_a = weight_[a] - corridor_a;  // A outside the corridor
    const int64_t pair_weight = weight_[a] + weight_[b];
    for (int32_t l = 0; l < nodes; ++l) {
      const int32_t c = component[l];
      if (from_source[l] || to_sink_side[l] || l < 2) free_component[c] = 0;
      if (l >= 2) {
        if (from_source[l]) side_a += graph_.vwgt[region_[l - 2]];
        component_weight[c] += graph_.vwgt[region_[l - 2]];
      }
    }
    const int64_t limit_a = std::max(max_weight_[a], weight_[a]);
    const int64_t limit_b = std::max(max_weight_[b], weight_[b]);
    auto fill = [&](int64_t wa) {
      return std::max(
          static_cast<double>(wa) / static_cast<double>(std::max<int64_t>(1, max_weight_[a])),
          static_cast<double>(pair_weight - wa) /
              static_cast<double>(std::max<int64_t>(1, max_weight_[b])));
    };
    auto fits = [&](int64_t wa) { return wa <= limit_a && pair_weight - wa <= limit_b; };
    int32_t best_prefix = -1;  // components [0, best_prefix] taken; -1: none
    bool found = fits(side_a);
    double best_fill = found ? fill(side_a) : 0;
    for (int32_t c = 0; c < components; ++c) {
      if (!free_component[c]) continue;
      side_a += component_weight[c];
      if (fits(side_a) && (!found || fill(side_a) < best_fill)) {
        found = true;
        best_fill = fill(side_a);
        best_prefix = c;
      }
    }
    if (!found) return -1;
    for (int32_t l = 2; l < nodes; ++l) {
      const int32_t c = component[l];
      const bool to_a = from_source[l] || (free_component[c] && c <= best_prefix);
      const int32_t v = region_[l - 2];
      const int32_t target = to_a ? a : b;
      if (part_[v] == target) continue;
      weight_[part_[v]] -= graph_.vwgt[v];
      weight_[target] += graph_.vwgt[v];
      part_[v] = target;
      members_[target].push_back(v);  // stale entries elsewhere are skipped
    }
    ++changes_[a];
    ++changes_[b];
    return cut_now - flow;
  }

  const CsrGraph& graph_;
  std::span<const int64_t> max_weight_;
  std::span<int32_t> part_;
  const FlowRefineOptions& options_;
  const int32_t k_;
  std::vector<int64_t> weight_;
  std::vector<int64_t> tolerance_;
  // How many cuts each part took part in, and for each pair (a k + b) that
  // found nothing, its parts' counts then.
  std::vector<int64_t> changes_ = std::vector<int64_t>(k_, 0);
  absl::flat_hash_map<int64_t, std::pair<int64_t, int64_t>> settled_;
  // Each part's vertices; a vertex that moves is appended to its new part, and a
  // reader skips the entries whose vertex has left.
  std::vector<std::vector<int32_t>> members_;
  std::vector<int32_t> local_of_;  // vertex -> node of the network (-1: not in it)
  std::vector<int32_t> region_;    // the network's nodes from 2 on
};

}  // namespace

absl::Status FlowRefineOptions::Validate() const {
  if (!(max_alpha >= 1)) return absl::InvalidArgumentError("max_alpha must be >= 1");
  if (max_rounds < 0) return absl::InvalidArgumentError("max_rounds must be >= 0");
  return absl::OkStatus();
}

int64_t RefineKwayCutByFlows(const CsrGraph& graph, std::span<const int64_t> max_weight,
                             std::span<int32_t> part, const FlowRefineOptions& options) {
  if (max_weight.size() < 2 || graph.num_vertices() == 0) return 0;
  return PairRefiner(graph, max_weight, part, options).Run();
}

}  // namespace hopmap
