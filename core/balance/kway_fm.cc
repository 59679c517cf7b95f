#include "core/balance/kway_fm.h"

#include <algorithm>
#include <numeric>
#include <queue>
#include <span>
#include <tuple>

#include "core/balance/flow_refine.h"
#include "core/search/random_stream.h"

namespace hopmap {
namespace {

struct Target {
  int32_t part = -1;  // -1: no move fits
  int64_t gain = 0;
};

// One FM pass; the state the pass needs between moves.
class KwayPass {
 public:
  KwayPass(const CsrGraph& graph, std::span<const int64_t> max_weight, std::span<int32_t> part)
      : graph_(graph),
        max_weight_(max_weight),
        part_(part),
        weight_(max_weight.size(), 0),
        connection_(max_weight.size(), 0),
        locked_(graph.num_vertices(), 0),
        version_(graph.num_vertices(), 0) {
    for (int32_t v = 0; v < graph.num_vertices(); ++v) weight_[part_[v]] += graph.vwgt[v];
  }

  // Moves vertices out of the parts above their limits, the least loss first, each
  // into the connected part with room it loses least by joining, or else the part
  // with the most room; until no part is above or no vertex of one can move.
  // Returns how much the cut fell (negative: it rose).
  int64_t Balance() {
    const int32_t k = static_cast<int32_t>(max_weight_.size());
    auto over = [&](int32_t p) { return weight_[p] > max_weight_[p]; };
    bool any_over = false;
    for (int32_t p = 0; p < k; ++p) any_over = any_over || over(p);
    if (!any_over) return 0;
    auto target_of = [&](int32_t v) {
      Target target = BestMove(v);
      if (target.part >= 0) return target;
      int32_t roomiest = -1;
      for (int32_t p = 0; p < k; ++p) {
        if (p == part_[v] || weight_[p] + graph_.vwgt[v] > max_weight_[p]) continue;
        if (roomiest < 0 || max_weight_[p] - weight_[p] > max_weight_[roomiest] - weight_[roomiest])
          roomiest = p;
      }
      if (roomiest < 0) return target;
      int64_t internal = 0;
      for (int32_t e = graph_.xadj[v]; e < graph_.xadj[v + 1]; ++e) {
        if (part_[graph_.adjncy[e]] == part_[v]) internal += graph_.adjwgt[e];
      }
      return Target{roomiest, -internal};
    };
    auto push = [&](int32_t v) {
      if (!over(part_[v])) return;
      const Target target = target_of(v);
      if (target.part >= 0) queue_.push({target.gain, -v, version_[v]});
    };
    for (int32_t v = 0; v < graph_.num_vertices(); ++v) push(v);
    int64_t cut_change = 0;
    while (!queue_.empty()) {
      const auto [gain, negative_v, version] = queue_.top();
      queue_.pop();
      const int32_t v = -negative_v;
      if (version != version_[v] || !over(part_[v])) continue;
      const Target target = target_of(v);
      if (target.part < 0) continue;
      if (target.gain < gain) {
        queue_.push({target.gain, -v, version_[v]});
        continue;
      }
      weight_[part_[v]] -= graph_.vwgt[v];
      weight_[target.part] += graph_.vwgt[v];
      part_[v] = target.part;
      ++version_[v];
      cut_change -= target.gain;
      for (int32_t e = graph_.xadj[v]; e < graph_.xadj[v + 1]; ++e) {
        const int32_t u = graph_.adjncy[e];
        ++version_[u];
        push(u);
      }
    }
    return -cut_change;
  }

  // Returns how much the cut fell (0: the partition is as it was).
  int64_t Run(int64_t patience) {
    for (int32_t v = 0; v < graph_.num_vertices(); ++v) Push(v);
    int64_t cut_change = 0, best_change = 0;
    size_t best_moves = 0;
    while (!queue_.empty()) {
      const auto [gain, negative_v, version] = queue_.top();
      queue_.pop();
      const int32_t v = -negative_v;
      if (locked_[v] || version != version_[v]) continue;
      const Target target = BestMove(v);
      if (target.part < 0) continue;  // pushed again when a neighbour moves
      if (target.gain < gain) {       // a part filled up since: queue at its new gain
        queue_.push({target.gain, -v, version_[v]});
        continue;
      }
      moves_.push_back({v, part_[v]});
      weight_[part_[v]] -= graph_.vwgt[v];
      weight_[target.part] += graph_.vwgt[v];
      part_[v] = target.part;
      locked_[v] = 1;
      cut_change -= target.gain;
      if (cut_change < best_change) {
        best_change = cut_change;
        best_moves = moves_.size();
      } else if (static_cast<int64_t>(moves_.size() - best_moves) > patience) {
        break;
      }
      for (int32_t e = graph_.xadj[v]; e < graph_.xadj[v + 1]; ++e) {
        const int32_t u = graph_.adjncy[e];
        if (locked_[u]) continue;
        ++version_[u];
        Push(u);
      }
    }
    // Back to the best cut seen.
    while (moves_.size() > best_moves) {
      const auto [v, from] = moves_.back();
      moves_.pop_back();
      weight_[part_[v]] -= graph_.vwgt[v];
      weight_[from] += graph_.vwgt[v];
      part_[v] = from;
    }
    return -best_change;
  }

 private:
  void Push(int32_t v) {
    const Target target = BestMove(v);
    if (target.part >= 0) queue_.push({target.gain, -v, version_[v]});
  }

  // The part v gains most by joining among those it has edges to and that have
  // room for it (lower part on ties).
  Target BestMove(int32_t v) {
    touched_.clear();
    for (int32_t e = graph_.xadj[v]; e < graph_.xadj[v + 1]; ++e) {
      const int32_t p = part_[graph_.adjncy[e]];
      if (connection_[p] == 0) touched_.push_back(p);
      connection_[p] += graph_.adjwgt[e];
    }
    const int32_t own = part_[v];
    const int64_t internal = connection_[own];
    Target best;
    for (int32_t p : touched_) {
      if (p == own || weight_[p] + graph_.vwgt[v] > max_weight_[p]) continue;
      const int64_t gain = connection_[p] - internal;
      if (best.part < 0 || gain > best.gain || (gain == best.gain && p < best.part)) {
        best = {p, gain};
      }
    }
    for (int32_t p : touched_) connection_[p] = 0;
    return best;
  }

  const CsrGraph& graph_;
  std::span<const int64_t> max_weight_;
  std::span<int32_t> part_;
  std::vector<int64_t> weight_;
  std::vector<int64_t> connection_;
  std::vector<int32_t> touched_;
  std::vector<char> locked_;
  std::vector<int32_t> version_;
  // (gain, -vertex, version): the highest gain first, then the lowest vertex.
  std::priority_queue<std::tuple<int64_t, int32_t, int32_t>> queue_;
  std::vector<std::pair<int32_t, int32_t>> moves_;  // (vertex, part it left)
};

// A coarse graph: its arrays, and the coarse vertex of each finer one.
struct CoarseLevel {
  std::vector<int32_t> xadj, adjncy, adjwgt, vwgt;
  std::vector<int32_t> coarse_of;  // finer vertex -> this level's vertex
  [[nodiscard]] CsrGraph csr() const { return {xadj, adjncy, adjwgt, vwgt}; }
};

// One level of coarsening: vertices in a random order each matched with the
// unmatched neighbour of the same part with the highest w^2 / (c(u) c(v)) whose
// weight together stays within `max_vertex_weight` (lower neighbour on ties).
CoarseLevel Coarsen(const CsrGraph& graph, std::span<const int32_t> part, int64_t max_vertex_weight,
                    RandomStream& random) {
  const int32_t n = graph.num_vertices();
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  random.Shuffle(std::span<int32_t>(order));
  std::vector<int32_t> mate(n, -1);
  for (int32_t v : order) {
    if (mate[v] >= 0) continue;
    int32_t best = -1;
    double best_rating = 0;
    for (int32_t e = graph.xadj[v]; e < graph.xadj[v + 1]; ++e) {
      const int32_t u = graph.adjncy[e];
      if (u == v || mate[u] >= 0 || part[u] != part[v] ||
          int64_t{graph.vwgt[u]} + graph.vwgt[v] > max_vertex_weight) {
        continue;
      }
      const double w = graph.adjwgt[e];
      const double rating = w * w /
                            (std::max(1.0, static_cast<double>(graph.vwgt[u])) *
                             std::max(1.0, static_cast<double>(graph.vwgt[v])));
      if (best < 0 || rating > best_rating || (rating == best_rating && u < best)) {
        best = u;
        best_rating = rating;
      }
    }
    mate[v] = best >= 0 ? best : v;
    if (best >= 0) mate[best] = v;
  }
  CoarseLevel level;
  level.coarse_of.assign(n, -1);
  int32_t coarse_n = 0;
  for (int32_t v = 0; v < n; ++v) {
    if (level.coarse_of[v] >= 0) continue;
    level.coarse_of[v] = coarse_n;
    level.coarse_of[mate[v]] = coarse_n;
    ++coarse_n;
  }
  level.vwgt.assign(coarse_n, 0);
  level.xadj.assign(coarse_n + 1, 0);
  std::vector<int32_t> members(n);  // finer vertices grouped by coarse vertex
  {
    std::vector<int32_t> count(coarse_n + 1, 0);
    for (int32_t v = 0; v < n; ++v) ++count[level.coarse_of[v] + 1];
    std::partial_sum(count.begin(), count.end(), count.begin());
    for (int32_t v = 0; v < n; ++v) members[count[level.coarse_of[v]]++] = v;
  }
  std::vector<int64_t> weight_to(coarse_n, 0);
  std::vector<int32_t> touched;
  size_t next_member = 0;
  for (int32_t c = 0; c < coarse_n; ++c) {
    touched.clear();
    while (next_member < members.size() && level.coarse_of[members[next_member]] == c) {
      const int32_t v = members[next_member++];
      level.vwgt[c] += graph.vwgt[v];
      for (int32_t e = graph.xadj[v]; e < graph.xadj[v + 1]; ++e) {
        const int32_t d = level.coarse_of[graph.adjncy[e]];
        if (d == c) continue;
        if (weight_to[d] == 0) touched.push_back(d);
        weight_to[d] += graph.adjwgt[e];
      }
    }
    std::sort(touched.begin(), touched.end());
    for (int32_t d : touched) {
      level.adjncy.push_back(d);
      // Edge weights stay within METIS's int32 range: the caller's graph sums fit.
      level.adjwgt.push_back(static_cast<int32_t>(std::min<int64_t>(weight_to[d], INT32_MAX)));
      weight_to[d] = 0;
    }
    level.xadj[c + 1] = static_cast<int32_t>(level.adjncy.size());
  }
  return level;
}

// One V-cycle; returns how much the cut fell.
int64_t VCycle(const CsrGraph& graph, std::span<const int64_t> max_weight, std::span<int32_t> part,
               RandomStream& random, const KwayFmOptions& options, bool flows) {
  const int32_t k = static_cast<int32_t>(max_weight.size());
  int64_t smallest_part = max_weight.empty() ? 0 : max_weight[0];
  for (int64_t w : max_weight) smallest_part = std::min(smallest_part, w);
  // A coarse vertex stays well below a part's size, so parts can still trade them.
  const int64_t max_vertex_weight = std::max<int64_t>(1, smallest_part / 16);
  const int32_t coarsest = std::max(128, 16 * k);
  std::vector<CoarseLevel> levels;
  std::vector<std::vector<int32_t>> parts;  // the partition on each coarse level
  CsrGraph current = graph;
  std::span<const int32_t> current_part = part;
  while (current.num_vertices() > coarsest && levels.size() < 24) {
    CoarseLevel level = Coarsen(current, current_part, max_vertex_weight, random);
    if (level.vwgt.size() > static_cast<size_t>(0.9 * current.num_vertices())) break;
    std::vector<int32_t> coarse_part(level.vwgt.size());
    for (int32_t v = 0; v < current.num_vertices(); ++v)
      coarse_part[level.coarse_of[v]] = current_part[v];
    levels.push_back(std::move(level));
    parts.push_back(std::move(coarse_part));
    current = levels.back().csr();
    current_part = parts.back();
  }
  auto refine = [&](const CsrGraph& level, std::span<int32_t> level_part) {
    const int64_t by_flows = flows ? RefineKwayCutByFlows(level, max_weight, level_part) : 0;
    return by_flows + RefineKwayCut(level, max_weight, level_part, options);
  };
  int64_t gained = 0;
  for (size_t i = levels.size(); i-- > 0;) {
    gained += refine(levels[i].csr(), parts[i]);
    // Project onto the finer level.
    std::span<int32_t> finer = i > 0 ? std::span<int32_t>(parts[i - 1]) : part;
    for (size_t v = 0; v < finer.size(); ++v) finer[v] = parts[i][levels[i].coarse_of[v]];
  }
  return gained + refine(graph, part);
}

}  // namespace

int64_t RefineKwayCutMultilevel(const CsrGraph& graph, std::span<const int64_t> max_weight,
                                std::span<int32_t> part, uint64_t seed, int32_t cycles,
                                const KwayFmOptions& options) {
  int64_t total = 0;
  for (int32_t cycle = 0; cycle < cycles; ++cycle) {
    RandomStream random(seed, static_cast<uint64_t>(cycle));
    const int64_t gained =
        VCycle(graph, max_weight, part, random, options, cycle < options.flow_cycles);
    total += gained;
    if (gained == 0) break;
  }
  return total;
}

int64_t KwayCut(const CsrGraph& graph, std::span<const int32_t> part) {
  int64_t cut = 0;
  for (int32_t v = 0; v < graph.num_vertices(); ++v) {
    for (int32_t e = graph.xadj[v]; e < graph.xadj[v + 1]; ++e) {
      if (graph.adjncy[e] > v && part[graph.adjncy[e]] != part[v]) cut += graph.adjwgt[e];
    }
  }
  return cut;
}

int64_t RefineKwayCut(const CsrGraph& graph, std::span<const int64_t> max_weight,
                      std::span<int32_t> part, const KwayFmOptions& options) {
  const int64_t patience = std::max<int64_t>(
      64, static_cast<int64_t>(options.patience * static_cast<double>(graph.num_vertices())));
  int64_t total = KwayPass(graph, max_weight, part).Balance();
  for (int32_t pass = 0; pass < options.max_passes; ++pass) {
    const int64_t gained = KwayPass(graph, max_weight, part).Run(patience);
    total += gained;
    if (gained == 0) break;
  }
  return total;
}

}  // namespace hopmap
