#include "core/mappers/local_search/refine.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/metrics/hop_bytes.h"
#include "core/search/position_graph.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"

namespace hopmap {

absl::Status RefineOptions::Validate() const {
  if (max_passes < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("refine: max_passes must be >= 1, got ", max_passes));
  }
  if (all_pairs_slot_limit < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("refine: all_pairs_slot_limit must be >= 0, got ", all_pairs_slot_limit));
  }
  if (slots_per_node < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("refine: slots_per_node must be >= 1, got ", slots_per_node));
  }
  if (max_candidate_nodes < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("refine: max_candidate_nodes must be >= 0, got ", max_candidate_nodes));
  }
  if (block_size < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("refine: block_size must be >= 1, got ", block_size));
  }
  return absl::OkStatus();
}

namespace {

struct BestExchange {
  SlotId slot = -1;  // -1: no improving exchange
  HopBytes delta = 0;
  int64_t work = 0;  // edges scanned to find it (RefineStats::work)
};

// The best improving exchange of `task` against the current state (lowest delta,
// then lowest slot), read-only so blocks of tasks can be searched in parallel.
//
// Cheaper than a SwapDelta per candidate: a task's cost on a node is the same for
// every core of it, and with C_t(s) = sum of w(t,u) * hops(s, slot of u) over all
// of t's neighbours u, exchanging t (on slot a) with t' (on slot b) changes
// hop-bytes by C_t(b) - C_t(a) + C_t'(a) - C_t'(b) + 2 w(t,t') hops(a,b) (t' at b
// and t at a count 0 hops in C_t(b) and C_t'(a)). So C_t(a) is computed once,
// C_t(b) once per node, and each occupied candidate costs O(deg t').
// RefinePlacement re-checks the chosen exchange with SwapDelta before applying it.
// An occupant t' on b adds C_t'(a) - C_t'(b); `cost_now`, when given, holds every
// task's CostAtPosition at its own node (kept by RefinePlacement), so C_t'(b) is
// read instead of summed.
BestExchange FindBestExchange(const Placement& placement, TaskId task, bool all_pairs,
                              const PositionGraph* near, const RefineOptions& options, int32_t pass,
                              const HopBytes* cost_now) {
  const int32_t slots_per_node = options.slots_per_node;
  const TaskGraph& graph = placement.graph();
  const int32_t cores = placement.allocation().cores_per_node();
  const int32_t from_position = placement.position_of(task);
  const HopBytes cost_here =
      cost_now != nullptr ? cost_now[task] : placement.CostAtPosition(task, from_position);
  BestExchange best;
  int64_t work = graph.degree(task);
  auto weight_to = [&](TaskId other) -> Bytes {
    for (EdgeIndex e = graph.xadj()[task]; e < graph.xadj()[task + 1]; ++e) {
      if (graph.adjncy()[e] == other) return graph.adjwgt()[e];
    }
    return 0;
  };
  // With one slot per node, and every task's cost where it sits kept, floors read
  // from the weights alone: the neighbours of a task other than the one it trades
  // places with sit on other nodes, at least min_hops away, so C_t(b) >= (W_t -
  // w(t,t')) min_hops and C_t'(a) >= (W_t' - w(t,t')) min_hops (W: weighted degree).
  // A candidate whose floor cannot beat the best is passed over before its costs are
  // summed (their scattered reads of the neighbours' positions); the answer and the
  // work counted do not change.
  const bool floors = cores == 1 && cost_now != nullptr;
  const HopBytes min_hops = placement.allocation().machine().min_hops();
  const Bytes task_weight = floors ? graph.weighted_degree(task) : 0;
  auto hopeless = [&](HopBytes floor) {
    return floor > best.delta || (floor == best.delta && best.slot < 0);
  };
  auto try_node = [&](int32_t position, int32_t first_core, int32_t count) {
    // Exchanges within one node change nothing (0 hops apart either way).
    if (position == from_position) return;
    const SlotId base = position * cores;
    work += graph.degree(task);
    const int32_t across = placement.HopsBetweenPositions(from_position, position);
    // The node's one occupant's W_t' and w(t,t') (floors only).
    Bytes other_weight = 0;
    Bytes other_to_task = 0;
    if (floors) {
      const TaskId other = placement.task_at(base);
      HopBytes floor = task_weight * min_hops - cost_here;
      if (other != kNoTask) {
        const Bytes to_task = other_to_task = weight_to(other);
        other_weight = graph.weighted_degree(other);
        floor += (other_weight - 2 * to_task) * min_hops - cost_now[other] + 2 * to_task * across;
      }
      if (hopeless(floor)) {
        if (other != kNoTask) work += graph.degree(other) + graph.degree(task);
        return;
      }
    }
    const HopBytes move = placement.CostAtPosition(task, position) - cost_here;
    bool tried_empty = false;
    for (int32_t i = 0; i < count; ++i) {
      const SlotId to = base + (first_core + i) % cores;
      const TaskId other = placement.task_at(to);
      HopBytes delta = move;
      if (other == kNoTask) {
        // Every empty core of a node is as good as the first.
        if (tried_empty) continue;
        tried_empty = true;
      } else {
        work += graph.degree(other) + graph.degree(task);
        const Bytes to_task = floors ? other_to_task : weight_to(other);
        if (floors && hopeless(move + (other_weight - to_task) * min_hops - cost_now[other] +
                               2 * to_task * across)) {
          continue;
        }
        HopBytes at_from = 0;
        graph.ForEachNeighbor(other, [&](TaskId u, Bytes w) {
          at_from += w * placement.HopsBetweenPositions(from_position, placement.position_of(u));
        });
        delta += at_from - (cost_now != nullptr ? cost_now[other]
                                                : placement.CostAtPosition(other, position));
        delta += 2 * to_task * across;
      }
      if (delta < best.delta || (delta == best.delta && best.slot >= 0 && to < best.slot)) {
        best.delta = delta;
        best.slot = to;
      }
    }
  };
  if (all_pairs) {
    const int32_t nodes = placement.allocation().num_nodes();
    for (int32_t position = 0; position < nodes; ++position) try_node(position, 0, cores);
  } else {
    // Each neighbour's node once; on nodes with many cores a window of them that
    // moves with the pass and the task, so that work per pass stays bounded and
    // successive passes see the other cores. (Scratch per thread: no allocation
    // per task.)
    thread_local std::vector<int32_t> seen;
    seen.clear();
    const int32_t window = std::min(cores, slots_per_node);
    const int32_t offset =
        window == cores
            ? 0
            : static_cast<int32_t>(
                  (static_cast<int64_t>(task) * 7 + static_cast<int64_t>(pass) * window) % cores);
    graph.ForEachNeighbor(task, [&](TaskId u, Bytes) {
      const int32_t position = placement.position_of(u);
      if (std::find(seen.begin(), seen.end(), position) != seen.end()) return;
      seen.push_back(position);
      try_node(position, offset, window);
    });
    // Then the nodes next to those (one hop on a torus): with one core per node the
    // neighbours' own slots are mostly the neighbours, and a task often belongs
    // beside them rather than in their place.
    if (near != nullptr) {
      const size_t direct = seen.size();
      for (size_t i = 0; i < direct && std::ssize(seen) < options.max_candidate_nodes; ++i) {
        for (int32_t q : near->neighbors(seen[i])) {
          if (std::ssize(seen) >= options.max_candidate_nodes) break;
          if (std::find(seen.begin(), seen.end(), q) != seen.end()) continue;
          seen.push_back(q);
          try_node(q, offset, window);
        }
      }
    }
  }
  if (best.delta >= 0) best.slot = -1;
  best.work = work;
  return best;
}

// After `moved` went from position `was` to where it is now (exchanged with
// `partner`, or kNoTask), the costs of its neighbours other than the partner (the
// edge between the two keeps its length); the two tasks' own costs are recomputed
// by the caller.
void ShiftNeighbourCosts(const Placement& placement, TaskId moved, TaskId partner, int32_t was,
                         std::vector<HopBytes>& cost_now) {
  const int32_t now = placement.position_of(moved);
  placement.graph().ForEachNeighbor(moved, [&](TaskId u, Bytes w) {
    if (u == partner || u == moved) return;
    const int32_t pu = placement.position_of(u);
    cost_now[u] +=
        w * (placement.HopsBetweenPositions(now, pu) - placement.HopsBetweenPositions(was, pu));
  });
}

}  // namespace

RefineStats RefinePlacement(Placement& placement, const RefineOptions& options,
                            const StopCondition& stop, std::span<const TaskId> only,
                            const PositionGraph* near_nodes) {
  RefineStats stats;
  const TaskGraph& graph = placement.graph();
  std::vector<TaskId> all;
  // Every task's cost where it sits, kept through the exchanges (FindBestExchange),
  // when every task is searched: for a small `only` (a perturbed patch, refined many
  // times over) building it would cost more than it saves.
  std::vector<HopBytes> cost_now;
  if (only.empty()) {
    all.resize(graph.num_tasks());
    std::iota(all.begin(), all.end(), 0);
    only = all;
    cost_now.resize(graph.num_tasks());
    tbb::parallel_for(tbb::blocked_range<TaskId>(0, graph.num_tasks()),
                      [&](const tbb::blocked_range<TaskId>& range) {
                        for (TaskId t = range.begin(); t != range.end(); ++t) {
                          cost_now[t] = placement.CostAtPosition(t, placement.position_of(t));
                        }
                      });
  }
  const HopBytes* const costs = cost_now.empty() ? nullptr : cost_now.data();
  const bool all_pairs = placement.num_slots() <= options.all_pairs_slot_limit;
  std::optional<PositionGraph> built;
  const PositionGraph* near = nullptr;
  if (!all_pairs && options.max_candidate_nodes > 0) {
    if (near_nodes == nullptr) built = PositionGraph::Build(placement.allocation());
    near = near_nodes != nullptr ? near_nodes : &*built;
  }
  std::vector<BestExchange> best(options.block_size);
  // The tasks this pass searches: `only` on a full pass, else the active set.
  std::span<const TaskId> list = only;
  bool full_pass = true;
  std::vector<TaskId> active, moved;
  std::vector<int32_t> moved_nodes, woken_nodes;
  const int32_t cores = placement.allocation().cores_per_node();
  for (int32_t pass = 0; pass < options.max_passes; ++pass) {
    ++stats.passes;
    stats.full_passes += full_pass ? 1 : 0;
    moved.clear();
    moved_nodes.clear();
    const TaskId n = static_cast<TaskId>(list.size());
    for (TaskId begin = 0; begin < n; begin += options.block_size) {
      if (stop.ShouldStop()) return stats;
      const TaskId end = std::min<TaskId>(n, begin + options.block_size);
      tbb::parallel_for(
          tbb::blocked_range<TaskId>(begin, end, 4), [&](const tbb::blocked_range<TaskId>& range) {
            for (TaskId i = range.begin(); i != range.end(); ++i) {
              // Dense graphs make one task's search long: stop inside the block too
              // (a task left unsearched proposes nothing).
              best[i - begin] = stop.ShouldStop() ? BestExchange{}
                                                  : FindBestExchange(placement, list[i], all_pairs,
                                                                     near, options, pass, costs);
            }
          });
      // Earlier exchanges of this block may have changed a later task's gain:
      // re-check each against the current state before applying it.
      for (TaskId i = begin; i < end; ++i) {
        const BestExchange& candidate = best[i - begin];
        stats.work += candidate.work;
        if (candidate.slot < 0) continue;
        const SlotId from = placement.slot_of(list[i]);
        const HopBytes delta = placement.SwapDelta(from, candidate.slot);
        if (delta < 0) {
          const TaskId other = placement.task_at(candidate.slot);
          placement.SwapSlots(from, candidate.slot, delta);
          if (costs != nullptr) {
            ShiftNeighbourCosts(placement, list[i], other, from / cores, cost_now);
            cost_now[list[i]] = placement.CostAtPosition(list[i], placement.position_of(list[i]));
            if (other != kNoTask) {
              ShiftNeighbourCosts(placement, other, list[i], candidate.slot / cores, cost_now);
              cost_now[other] = placement.CostAtPosition(other, placement.position_of(other));
            }
          }
          ++stats.exchanges;
          moved.push_back(list[i]);
          if (other != kNoTask) moved.push_back(other);
          moved_nodes.push_back(from / cores);
          moved_nodes.push_back(candidate.slot / cores);
        }
      }
    }
    if (moved.empty() && full_pass) {
      // Nothing changed during a pass over every task of `only`, so each was
      // checked against this very state: no candidate exchange improves it.
      stats.local_optimum = true;
      break;
    }
    if (!options.active_set) continue;
    // Next: the tasks whose search can have changed - those that moved and their
    // neighbours (their own costs and candidate nodes moved). Others can be
    // affected too (a task next to a node whose occupant changed), which is why
    // an empty active set leads to a full confirming pass, not straight to "done".
    active.clear();
    for (TaskId t : moved) {
      active.push_back(t);
      graph.ForEachNeighbor(t, [&](TaskId u, Bytes) { active.push_back(u); });
    }
    if (options.wake_near_nodes && near != nullptr) {
      // A task whose candidate nodes include one whose occupants changed: every
      // task with a neighbour on that node or on a node next to it.
      std::sort(moved_nodes.begin(), moved_nodes.end());
      moved_nodes.erase(std::unique(moved_nodes.begin(), moved_nodes.end()), moved_nodes.end());
      woken_nodes.clear();
      for (int32_t p : moved_nodes) {
        woken_nodes.push_back(p);
        for (int32_t q : near->neighbors(p)) woken_nodes.push_back(q);
      }
      std::sort(woken_nodes.begin(), woken_nodes.end());
      woken_nodes.erase(std::unique(woken_nodes.begin(), woken_nodes.end()), woken_nodes.end());
      for (int32_t p : woken_nodes) {
        for (int32_t c = 0; c < cores; ++c) {
          const TaskId o = placement.task_at(p * cores + c);
          if (o == kNoTask) continue;
          active.push_back(o);
          graph.ForEachNeighbor(o, [&](TaskId u, Bytes) { active.push_back(u); });
        }
      }
    }
    std::sort(active.begin(), active.end());
    active.erase(std::unique(active.begin(), active.end()), active.end());
    full_pass = active.empty();
    if (full_pass && !options.confirm_local_optimum) break;
    list = full_pass ? only : std::span<const TaskId>(active);
  }
  return stats;
}

std::vector<SlotId> GreedyBfsMapping(const TaskGraph& graph, const Allocation& allocation,
                                     RandomStream* random, int32_t choices) {
  const TaskId n = graph.num_tasks();
  const int32_t cores = allocation.cores_per_node();
  std::vector<SlotId> slot_of(n, -1);
  std::vector<TaskId> task_of_slot(allocation.num_slots(), kNoTask);
  std::vector<TaskId> node_seen_by(allocation.num_nodes(), kNoTask);
  std::vector<char> queued(n, 0);
  std::vector<TaskId> queue;
  queue.reserve(n);
  SlotId next_free = 0;
  std::vector<std::pair<HopBytes, SlotId>> candidates;

  auto place = [&](TaskId t) {
    candidates.clear();
    // All cores of a node cost the same: the first free core stands for its node.
    graph.ForEachNeighbor(t, [&](TaskId u, Bytes) {
      if (slot_of[u] < 0) return;
      const int32_t position = slot_of[u] / cores;
      if (node_seen_by[position] == t) return;
      node_seen_by[position] = t;
      for (int32_t c = 0; c < cores; ++c) {
        const SlotId s = position * cores + c;
        if (task_of_slot[s] == kNoTask) {
          candidates.push_back({0, s});
          break;
        }
      }
    });
    if (candidates.empty()) {
      while (task_of_slot[next_free] != kNoTask) ++next_free;
      candidates.push_back({0, next_free});
    }
    for (auto& candidate : candidates) {  // not a binding: clang 14 cannot capture one
      graph.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
        if (slot_of[u] >= 0) {
          candidate.first += w * allocation.HopsBetweenSlots(candidate.second, slot_of[u]);
        }
      });
    }
    size_t pick = 0;
    if (random != nullptr && choices > 1 && candidates.size() > 1) {
      const size_t k = std::min<size_t>(choices, candidates.size());
      std::partial_sort(candidates.begin(), candidates.begin() + k, candidates.end());
      pick = random->Below(k);
    } else {
      pick = std::min_element(candidates.begin(), candidates.end()) - candidates.begin();
    }
    slot_of[t] = candidates[pick].second;
    task_of_slot[candidates[pick].second] = t;
  };

  const TaskId first = (random != nullptr && n > 0) ? static_cast<TaskId>(random->Below(n)) : 0;
  for (TaskId i = 0; i < n; ++i) {
    const TaskId root = (first + i) % n;
    if (queued[root]) continue;
    queued[root] = 1;
    size_t head = queue.size();
    queue.push_back(root);
    while (head < queue.size()) {
      const TaskId t = queue[head++];
      place(t);
      graph.ForEachNeighbor(t, [&](TaskId u, Bytes) {
        if (!queued[u]) {
          queued[u] = 1;
          queue.push_back(u);
        }
      });
    }
  }
  return slot_of;
}

std::vector<SlotId> RefineStartMapping(const TaskGraph& graph, const Allocation& allocation,
                                       std::string* from) {
  std::vector<SlotId> in_order(graph.num_tasks());
  std::iota(in_order.begin(), in_order.end(), 0);
  std::vector<SlotId> greedy = GreedyBfsMapping(graph, allocation);
  const bool greedy_wins =
      ComputeHopBytes(graph, allocation, greedy) < ComputeHopBytes(graph, allocation, in_order);
  if (from != nullptr) *from = greedy_wins ? "greedy-bfs" : "in-order";
  return greedy_wins ? greedy : in_order;
}

absl::StatusOr<std::vector<SlotId>> LocalSearchStart(const MapInput& input,
                                                     absl::string_view mapper, std::string* from) {
  if (absl::Status s = CheckFits(input.graph, input.allocation); !s.ok()) return s;
  if (absl::Status s = CheckHopBytesFit(input.graph, input.allocation); !s.ok()) return s;
  if (input.initial == nullptr) return RefineStartMapping(input.graph, input.allocation, from);
  if (absl::Status s = ValidateMapping(input.allocation, input.graph.num_tasks(), *input.initial);
      !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(mapper, ": the initial mapping is invalid: ", s.message()));
  }
  if (from != nullptr) *from = "initial";
  return *input.initial;
}

absl::StatusOr<MapOutput> RefineMapper::Map(const MapInput& input) const {
  if (absl::Status s = options_.Validate(); !s.ok()) return s;
  std::string from;
  absl::StatusOr<std::vector<SlotId>> start = LocalSearchStart(input, "refine", &from);
  if (!start.ok()) return start.status();
  Placement placement(input.graph, input.allocation, *std::move(start));
  RefineOptions options = options_;
  if (input.options.iteration_limit > 0) {
    options.max_passes =
        static_cast<int32_t>(std::min<int64_t>(options.max_passes, input.options.iteration_limit));
  }
  const RefineStats stats = RefinePlacement(placement, options, input.stop);
  MapOutput out;
  out.variant = absl::StrCat("from ", from);
  out.stats = {{"passes", static_cast<double>(stats.passes)},
               {"exchanges", static_cast<double>(stats.exchanges)},
               {"stopped_early", stats.local_optimum ? 0.0 : 1.0}};
  out.slot_of_task = std::move(placement).Release();
  return out;
}

}  // namespace hopmap
