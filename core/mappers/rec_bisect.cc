#include "core/mappers/rec_bisect.h"

#include <metis.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/mappers/baselines.h"
#include "core/mappers/metis_lock.h"
#include "core/mappers/position_graph.h"
#include "core/topology/torus.h"

namespace hopmap {
namespace {

class Bisector {
 public:
  Bisector(const TaskGraph& graph, const Allocation& allocation, uint64_t seed,
           const RecursiveBisectionOptions& options, const StopCondition& stop)
      : graph_(graph),
        stop_(stop),
        allocation_(allocation),
        options_(options),
        local_of_task_(graph.num_tasks(), -1) {
    METIS_SetDefaultOptions(metis_options_);
    metis_options_[METIS_OPTION_SEED] = static_cast<idx_t>(seed & 0x7fffffff);
    metis_options_[METIS_OPTION_NUMBERING] = 0;
    ScaleWeights();
    torus_ = dynamic_cast<const TorusMachine*>(&allocation.machine());
    if (torus_ != nullptr) {
      nd_ = static_cast<int>(torus_->dims().size());
      coords_ = FlatPositionCoordinates(allocation);
    }
  }

  [[nodiscard]] bool stopped() const { return stopped_; }

  std::vector<SlotId> Run() {
    slot_of_task_.assign(graph_.num_tasks(), kInvalidSlot);
    rep_of_task_.assign(graph_.num_tasks(), -1);
    mark_.assign(graph_.num_tasks(), 0);
    side_.assign(graph_.num_tasks(), 0);
    std::vector<TaskId> tasks(graph_.num_tasks());
    std::iota(tasks.begin(), tasks.end(), 0);
    std::vector<int32_t> positions(allocation_.num_nodes());
    std::iota(positions.begin(), positions.end(), 0);
    Recurse(std::move(tasks), std::move(positions));
    return std::move(slot_of_task_);
  }

 private:
  // METIS weights are 32-bit and their sums must fit too: scale the bytes into
  // [1, cap] when they do not fit already.
  void ScaleWeights() {
    const std::vector<Bytes>& w = graph_.adjwgt();
    Bytes max_w = 1;
    for (Bytes b : w) max_w = std::max(max_w, b);
    const int64_t cap = std::max<int64_t>(
        1, std::min<int64_t>(
               int64_t{1} << 20,
               (int64_t{1} << 30) / std::max<int64_t>(1, static_cast<int64_t>(w.size()))));
    scaled_.resize(w.size());
    for (size_t e = 0; e < w.size(); ++e) {
      scaled_[e] = max_w <= cap
                       ? static_cast<idx_t>(w[e])
                       : static_cast<idx_t>(std::max<int64_t>(
                             1, static_cast<int64_t>(static_cast<__int128>(w[e]) * cap / max_w)));
    }
  }

  void Recurse(std::vector<TaskId> tasks, std::vector<int32_t> positions) {
    if (tasks.empty()) return;
    const int32_t cores = allocation_.cores_per_node();
    if (positions.size() == 1) {
      for (size_t i = 0; i < tasks.size(); ++i) {
        slot_of_task_[tasks[i]] = positions[0] * cores + static_cast<SlotId>(i);
      }
      return;
    }
    SplitPositions(positions);
    if (stopped_ || (stopped_ = stop_.ShouldStop())) {
      // Out of time: the halves' order still keeps nearby tasks nearby.
      for (size_t i = 0; i < tasks.size(); ++i) {
        slot_of_task_[tasks[i]] = positions[i / cores] * cores + static_cast<SlotId>(i % cores);
      }
      return;
    }
    const size_t half = (positions.size() + 1) / 2;
    std::vector<int32_t> second(positions.begin() + half, positions.end());
    positions.resize(half);
    const int32_t first_rep = Representative(positions);
    const int32_t second_rep = Representative(second);
    const size_t first_capacity = half * cores;
    const size_t second_capacity = second.size() * cores;
    const size_t first_tasks = std::min(tasks.size(), first_capacity);
    std::vector<TaskId> rest;
    if (first_tasks < tasks.size()) rest = SplitTasks(tasks, first_tasks);
    // Which half each part goes to is free when sizes allow: pick the way that
    // keeps the edges leaving this task set shortest, judged by where their other
    // ends already are (the sibling subtrees' halves). Without this, recursive
    // bisection orients every cut at random and pays about one hop more per edge.
    const bool can_swap = rest.empty()
                              ? tasks.size() <= second_capacity
                              : rest.size() <= first_capacity && tasks.size() <= second_capacity;
    if (can_swap) {
      const HopBytes keep =
          ExternalCost(tasks, rest, first_rep) + ExternalCost(rest, tasks, second_rep);
      const HopBytes swap =
          ExternalCost(tasks, rest, second_rep) + ExternalCost(rest, tasks, first_rep);
      if (swap < keep) std::swap(tasks, rest);
    }
    if (!rest.empty() && options_.refine_passes > 0) {
      RefineCut(tasks, rest, first_rep, second_rep);
    }
    for (TaskId t : tasks) rep_of_task_[t] = first_rep;
    for (TaskId t : rest) rep_of_task_[t] = second_rep;
    Recurse(std::move(tasks), std::move(positions));
    Recurse(std::move(rest), std::move(second));
  }

  // Bytes x hops from `rep` to the current half of every neighbour of `part`
  // outside `part` and `other` (neighbours not yet placed anywhere cost nothing).
  HopBytes ExternalCost(const std::vector<TaskId>& part, const std::vector<TaskId>& other,
                        int32_t rep) {
    ++mark_stamp_;
    for (TaskId t : part) mark_[t] = mark_stamp_;
    for (TaskId t : other) mark_[t] = mark_stamp_;
    HopBytes cost = 0;
    for (TaskId t : part) {
      graph_.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
        if (mark_[u] == mark_stamp_ || rep_of_task_[u] < 0) return;
        cost += w * allocation_.HopsBetweenPositions(rep, rep_of_task_[u]);
      });
    }
    return cost;
  }

  // METIS cuts without knowing where the halves are or where the set's outside
  // neighbours went. A few passes of pairwise exchanges (sizes stay exact) lower
  // cut bytes x hops(rep0, rep1) + outside bytes x hops(rep of the side, rep of the
  // neighbour's half); a pass that does not lower it is undone.
  void RefineCut(std::vector<TaskId>& part0, std::vector<TaskId>& part1, int32_t rep0,
                 int32_t rep1) {
    const int kPasses = options_.refine_passes;
    const int64_t across = allocation_.HopsBetweenPositions(rep0, rep1);
    ++mark_stamp_;
    for (TaskId t : part0) {
      mark_[t] = mark_stamp_;
      side_[t] = 0;
    }
    for (TaskId t : part1) {
      mark_[t] = mark_stamp_;
      side_[t] = 1;
    }
    const int32_t reps[2] = {rep0, rep1};
    // Cost of t's edges if t sat on `side` (edges inside the set counted whole,
    // as each end sees them; the total halves them).
    auto cost_on = [&](TaskId t, int side) {
      HopBytes cost = 0;
      graph_.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
        if (mark_[u] == mark_stamp_) {
          if (side_[u] != side) cost += w * across;
        } else if (rep_of_task_[u] >= 0) {
          cost += 2 * w * allocation_.HopsBetweenPositions(reps[side], rep_of_task_[u]);
        }
      });
      return cost;
    };
    auto total = [&]() {
      HopBytes sum = 0;
      for (TaskId t : part0) sum += cost_on(t, side_[t]);
      for (TaskId t : part1) sum += cost_on(t, side_[t]);
      return sum;
    };
    HopBytes current = total();
    std::vector<std::pair<HopBytes, TaskId>> gains[2];
    for (int pass = 0; pass < kPasses && current > 0; ++pass) {
      for (int side = 0; side < 2; ++side) {
        gains[side].clear();
        for (TaskId t : side == 0 ? part0 : part1) {
          const HopBytes gain = cost_on(t, side) - cost_on(t, 1 - side);
          if (gain > 0 || across > 0) gains[side].push_back({-gain, t});
        }
        std::sort(gains[side].begin(), gains[side].end());
      }
      std::vector<std::pair<TaskId, TaskId>> swaps;
      const size_t pairs = std::min(gains[0].size(), gains[1].size());
      for (size_t i = 0; i < pairs; ++i) {
        const TaskId a = gains[0][i].second, b = gains[1][i].second;
        HopBytes together = 0;  // an edge a-b stays cut after the exchange
        graph_.ForEachNeighbor(a, [&](TaskId u, Bytes w) {
          if (u == b) together = 2 * w * across;
        });
        if (-gains[0][i].first - gains[1][i].first - 2 * together <= 0) break;
        swaps.push_back({a, b});
      }
      if (swaps.empty()) break;
      for (auto [a, b] : swaps) std::swap(side_[a], side_[b]);
      const HopBytes after = total();
      if (after >= current) {
        for (auto [a, b] : swaps) std::swap(side_[a], side_[b]);
        break;
      }
      current = after;
    }
    std::vector<TaskId> now0, now1;
    now0.reserve(part0.size());
    now1.reserve(part1.size());
    for (const auto* part : {&part0, &part1}) {
      for (TaskId t : *part) (side_[t] == 0 ? now0 : now1).push_back(t);
    }
    part0 = std::move(now0);
    part1 = std::move(now1);
  }

  // A central member of a half: on a torus/mesh the member nearest the median of
  // each coordinate; elsewhere the middle of the split order.
  int32_t Representative(const std::vector<int32_t>& positions) const {
    if (torus_ == nullptr) return positions[positions.size() / 2];
    std::vector<int32_t> median(nd_), values(positions.size());
    for (int d = 0; d < nd_; ++d) {
      for (size_t i = 0; i < positions.size(); ++i) values[i] = coords_[positions[i] * nd_ + d];
      std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
      median[d] = values[values.size() / 2];
    }
    int32_t best = positions[0];
    int64_t best_distance = -1;
    for (int32_t p : positions) {
      int64_t distance = 0;
      for (int d = 0; d < nd_; ++d) distance += std::abs(coords_[p * nd_ + d] - median[d]);
      if (best_distance < 0 || distance < best_distance ||
          (distance == best_distance && p < best)) {
        best = p;
        best_distance = distance;
      }
    }
    return best;
  }

  // Orders `positions` so that the first ceil(m/2) are one half: geometric on a
  // torus or mesh, by the farthest pair elsewhere.
  void SplitPositions(std::vector<int32_t>& positions) const {
    OrderForSplit(allocation_, coords_, torus_ != nullptr ? nd_ : 0, positions);
  }

  // Keeps `first_count` tasks in `tasks` and returns the others.
  std::vector<TaskId> SplitTasks(std::vector<TaskId>& tasks, size_t first_count) {
    const idx_t n = static_cast<idx_t>(tasks.size());
    for (idx_t i = 0; i < n; ++i) local_of_task_[tasks[i]] = i;
    std::vector<idx_t> xadj(n + 1, 0), adj, wgt;
    for (idx_t i = 0; i < n; ++i) {
      const TaskId t = tasks[i];
      for (EdgeIndex e = graph_.xadj()[t]; e < graph_.xadj()[t + 1]; ++e) {
        const int32_t j = local_of_task_[graph_.adjncy()[e]];
        if (j < 0) continue;
        adj.push_back(j);
        wgt.push_back(scaled_[e]);
      }
      xadj[i + 1] = static_cast<idx_t>(adj.size());
    }
    for (TaskId t : tasks) local_of_task_[t] = -1;

    std::vector<idx_t> part(n, 1);
    bool partitioned = false;
    if (!adj.empty() && n >= 2) {
      idx_t nvtxs = n, ncon = 1, nparts = 2, objval = 0;
      real_t tpwgts[2] = {static_cast<real_t>(first_count) / static_cast<real_t>(n), 0};
      tpwgts[1] = 1 - tpwgts[0];
      metis_options_[METIS_OPTION_NCUTS] =
          n <= options_.multi_cut_max_tasks ? options_.metis_cuts : 1;
      const MetisCall metis_call;
      const int status = METIS_PartGraphRecursive(&nvtxs, &ncon, xadj.data(), adj.data(), nullptr,
                                                  nullptr, wgt.data(), &nparts, tpwgts, nullptr,
                                                  metis_options_, &objval, part.data());
      partitioned = status == METIS_OK;
    }
    if (!partitioned) {
      // Breadth-first order keeps neighbours together without METIS.
      std::fill(part.begin(), part.end(), 1);
      std::vector<idx_t> order;
      std::vector<uint8_t> seen(n, 0);
      for (idx_t root = 0; root < n && order.size() < first_count; ++root) {
        if (seen[root]) continue;
        seen[root] = 1;
        const size_t begin = order.size();
        order.push_back(root);
        for (size_t i = begin; i < order.size(); ++i) {
          for (idx_t e = xadj[order[i]]; e < xadj[order[i] + 1]; ++e) {
            if (!seen[adj[e]]) {
              seen[adj[e]] = 1;
              order.push_back(adj[e]);
            }
          }
        }
      }
      for (size_t i = 0; i < first_count; ++i) part[order[i]] = 0;
    }
    Rebalance(xadj, adj, wgt, first_count, part);
    std::vector<TaskId> first, second;
    first.reserve(first_count);
    second.reserve(tasks.size() - first_count);
    for (idx_t i = 0; i < n; ++i) (part[i] == 0 ? first : second).push_back(tasks[i]);
    tasks = std::move(first);
    return second;
  }

  // METIS balances within a tolerance; the halves need exact sizes. Moves the
  // vertices whose move costs least (external minus internal weight, highest
  // first, ties by index) out of the part that is too big.
  static void Rebalance(const std::vector<idx_t>& xadj, const std::vector<idx_t>& adj,
                        const std::vector<idx_t>& wgt, size_t first_count,
                        std::vector<idx_t>& part) {
    const idx_t n = static_cast<idx_t>(part.size());
    size_t in_first = 0;
    for (idx_t p : part) in_first += (p == 0);
    if (in_first == first_count) return;
    const idx_t from = in_first > first_count ? 0 : 1;
    const size_t excess = in_first > first_count ? in_first - first_count : first_count - in_first;
    std::vector<std::pair<int64_t, idx_t>> moves;  // (-gain, vertex)
    for (idx_t v = 0; v < n; ++v) {
      if (part[v] != from) continue;
      int64_t gain = 0;
      for (idx_t e = xadj[v]; e < xadj[v + 1]; ++e) gain += part[adj[e]] == from ? -wgt[e] : wgt[e];
      moves.push_back({-gain, v});
    }
    std::partial_sort(moves.begin(), moves.begin() + static_cast<std::ptrdiff_t>(excess),
                      moves.end());
    for (size_t i = 0; i < excess; ++i) part[moves[i].second] = 1 - from;
  }

  const TaskGraph& graph_;
  const StopCondition& stop_;
  bool stopped_ = false;  // the time limit fired: the rest is placed in order
  const Allocation& allocation_;
  const RecursiveBisectionOptions options_;
  idx_t metis_options_[METIS_NOPTIONS];
  std::vector<idx_t> scaled_;
  std::vector<int32_t> local_of_task_;
  const TorusMachine* torus_ = nullptr;
  int nd_ = 0;
  std::vector<int32_t> coords_;
  std::vector<SlotId> slot_of_task_;
  std::vector<int32_t> rep_of_task_;  // representative position of each task's half; -1 unknown
  std::vector<uint32_t> mark_;
  std::vector<int8_t> side_;  // RefineCut's current side of each task of the set
  uint32_t mark_stamp_ = 0;
};

}  // namespace

absl::Status RecursiveBisectionOptions::Validate() const {
  if (metis_cuts < 1) {
    return absl::InvalidArgumentError(absl::StrCat("metis_cuts must be >= 1, got ", metis_cuts));
  }
  if (multi_cut_max_tasks < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("multi_cut_max_tasks must be >= 0, got ", multi_cut_max_tasks));
  }
  if (refine_passes < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("refine_passes must be >= 0, got ", refine_passes));
  }
  return absl::OkStatus();
}

absl::StatusOr<MapOutput> RecursiveBisectionMapper::Map(const MapInput& input) const {
  if (absl::Status s = CheckFits(input.graph, input.allocation); !s.ok()) return s;
  if (absl::Status s = options_.Validate(); !s.ok()) return s;
  MapOutput out;
  Bisector bisector(input.graph, input.allocation, input.options.seed, options_, input.stop);
  out.slot_of_task = bisector.Run();
  if (bisector.stopped()) out.variant = "time limit: last levels in split order";
  return out;
}

}  // namespace hopmap
