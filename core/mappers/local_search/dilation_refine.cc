#include "core/mappers/local_search/dilation_refine.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/search/placement.h"

namespace hopmap {

absl::Status DilationRefineOptions::Validate() const {
  if (max_work < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("dilation refine: max_work must be >= 1, got ", max_work));
  }
  return absl::OkStatus();
}

namespace {

// One search: the placement, the neighbourhoods tried, and the work done.
class DilationSearch {
 public:
  DilationSearch(Placement& placement, const PositionGraph& near,
                 const DilationRefineOptions& options, const StopCondition& stop)
      : p_(placement),
        graph_(placement.graph()),
        near_(near),
        cores_(placement.allocation().cores_per_node()),
        options_(options),
        stop_(stop) {}

  [[nodiscard]] int64_t work() const { return work_; }
  [[nodiscard]] bool Exhausted() const { return work_ >= options_.max_work || stop_.ShouldStop(); }

  // The most hops any edge travels.
  int32_t LongestEdge() {
    int32_t most = 0;
    for (TaskId t = 0; t < graph_.num_tasks(); ++t) most = std::max(most, LongestEdgeOf(t));
    return most;
  }

  // Shortens the longest edges while it can; returns whether it ended with no
  // exchange left (not on the work cap).
  bool Shorten(int64_t& exchanges) {
    std::vector<TaskId> longest;
    while (!Exhausted()) {
      // The longest edge and its tasks, in one pass.
      int32_t bound = 0;
      longest.clear();
      for (TaskId t = 0; t < graph_.num_tasks(); ++t) {
        const int32_t hops = LongestEdgeOf(t);
        if (hops > bound) {
          bound = hops;
          longest.clear();
        }
        if (hops == bound && hops > 0) longest.push_back(t);
      }
      if (bound == 0) return true;
      int64_t applied = 0;
      for (const TaskId t : longest) {
        if (Exhausted()) return false;
        if (LongestEdgeOf(t) < bound) continue;  // an earlier exchange shortened it
        // Any exchange that leaves fewer edges at the bound and none above it, the
        // cheapest: hop-bytes may rise.
        if (ApplyBest(t, bound, -1, std::numeric_limits<HopBytes>::max())) {
          ++applied;
          ++exchanges;
        }
      }
      if (applied == 0) return true;
    }
    return false;
  }

  // Lowers hop-bytes with every edge kept at or under `bound` and no more edges at
  // it; returns whether it ended with no exchange left.
  bool Recover(int32_t bound, int64_t& exchanges) {
    bool improved = true;
    while (improved) {
      improved = false;
      for (TaskId t = 0; t < graph_.num_tasks(); ++t) {
        if (Exhausted()) return false;
        if (ApplyBest(t, bound, 0, 0)) {
          ++exchanges;
          improved = true;
        }
      }
    }
    return true;
  }

 private:
  // Over t's edges with t on position `at` and `other` (kNoTask: nobody) on
  // `other_at` (an edge to `other` counted only when `count_other_edge`): the most
  // hops, and how many edges are at `at_least` hops or more.
  struct Edges {
    int32_t longest = 0;
    int32_t long_edges = 0;
  };
  Edges EdgesOf(TaskId t, int32_t at, TaskId other, int32_t other_at, int32_t at_least,
                bool count_other_edge = true) {
    Edges e;
    graph_.ForEachNeighbor(t, [&](TaskId v, Bytes) {
      if (v == other && !count_other_edge) return;
      const int32_t pv = v == other ? other_at : p_.position_of(v);
      const int32_t hops = p_.HopsBetweenPositions(at, pv);
      e.longest = std::max(e.longest, hops);
      e.long_edges += hops >= at_least ? 1 : 0;
    });
    work_ += graph_.degree(t);
    return e;
  }
  int32_t LongestEdgeOf(TaskId t) {
    return EdgesOf(t, p_.position_of(t), kNoTask, 0, std::numeric_limits<int32_t>::max()).longest;
  }

  // The exchange of t with a slot near one of its neighbours after which every edge
  // of both tasks is at most `bound` hops, the number at `bound` changes by at most
  // `change_at_bound`, and hop-bytes change by less than `below`: the lowest change
  // (lowest slot on ties), applied when there is one.
  bool ApplyBest(TaskId t, int32_t bound, int32_t change_at_bound, HopBytes below) {
    PositionsNearTask(
        near_, graph_, t, /*with_own=*/false, [&](TaskId u) { return p_.position_of(u); },
        positions_);
    const int32_t at = p_.position_of(t);
    const SlotId from = p_.slot_of(t);
    // The edges at the bound now, t's and (per partner) the partner's.
    const int32_t t_long = EdgesOf(t, at, kNoTask, 0, bound).long_edges;
    SlotId best_to = kInvalidSlot;
    HopBytes best_delta = below;
    for (const int32_t q : positions_) {
      if (q == at) continue;
      bool tried_empty = false;  // the empty slots of one node are all alike
      for (int32_t c = 0; c < cores_; ++c) {
        const SlotId to = static_cast<SlotId>(q) * cores_ + c;
        const TaskId other = p_.task_at(to);
        if (other == kNoTask) {
          if (tried_empty) continue;
          tried_empty = true;
        }
        const Edges t_after = EdgesOf(t, q, other, at, bound);
        if (t_after.longest > bound) continue;
        int32_t long_before = t_long;
        int32_t long_after = t_after.long_edges;
        if (other != kNoTask) {
          // The edge between them, if any, keeps its length: counted with t only.
          const Edges o_after = EdgesOf(other, at, t, q, bound, false);
          if (o_after.longest > bound) continue;
          long_after += o_after.long_edges;
          long_before += EdgesOf(other, q, t, at, bound, false).long_edges;
        }
        if (long_after - long_before > change_at_bound) continue;
        const HopBytes delta = p_.SwapDelta(from, to);
        work_ += graph_.degree(t) + (other != kNoTask ? graph_.degree(other) : 0);
        if (delta < best_delta) {
          best_delta = delta;
          best_to = to;
        }
      }
    }
    if (best_to == kInvalidSlot) return false;
    p_.SwapSlots(from, best_to, best_delta);
    return true;
  }

  Placement& p_;
  const TaskGraph& graph_;
  const PositionGraph& near_;
  const int32_t cores_;
  const DilationRefineOptions& options_;
  const StopCondition& stop_;
  std::vector<int32_t> positions_;
  int64_t work_ = 0;
};

}  // namespace

std::vector<SlotId> RefineDilation(const TaskGraph& graph, const Allocation& allocation,
                                   std::vector<SlotId> start, const DilationRefineOptions& options,
                                   const StopCondition& stop, const PositionGraph* near,
                                   DilationRefineStats* stats) {
  DilationRefineStats local;
  DilationRefineStats& out = stats != nullptr ? *stats : local;
  out = DilationRefineStats{};
  std::optional<PositionGraph> own_near;
  if (near == nullptr && graph.num_edges() > 0) {
    near = &own_near.emplace(PositionGraph::Build(allocation));
  }
  Placement placement(graph, allocation, std::move(start));
  out.start_hop_bytes = placement.hop_bytes();
  if (graph.num_edges() == 0) {
    out.end_hop_bytes = out.start_hop_bytes;
    out.local_optimum = true;
    return std::move(placement).Release();
  }
  DilationSearch search(placement, *near, options, stop);
  out.start_max_dilation = search.LongestEdge();
  // Rounds of both until one applies nothing: the recovery's exchanges can open
  // shortenings. Every exchange lowers (longest edge, edges at it, hop-bytes) in
  // that order, so the rounds end.
  for (bool first = true;; first = false) {
    const int64_t shortened = out.shortening_exchanges;
    if (!search.Shorten(out.shortening_exchanges)) break;
    if (!first && out.shortening_exchanges == shortened) {
      out.local_optimum = true;
      break;
    }
    const int64_t recovered = out.recovering_exchanges;
    if (!search.Recover(search.LongestEdge(), out.recovering_exchanges)) break;
    if (out.recovering_exchanges == recovered) {
      out.local_optimum = true;
      break;
    }
  }
  out.end_max_dilation = search.LongestEdge();
  out.end_hop_bytes = placement.hop_bytes();
  out.work = search.work();
  return std::move(placement).Release();
}

}  // namespace hopmap
