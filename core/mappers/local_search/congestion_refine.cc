#include "core/mappers/local_search/congestion_refine.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/search/placement.h"

namespace hopmap {

absl::Status CongestionRefineOptions::Validate() const {
  if (max_work < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("congestion refine: max_work must be >= 1, got ", max_work));
  }
  if (max_exchanges_per_task < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "congestion refine: max_exchanges_per_task must be >= 0, got ", max_exchanges_per_task));
  }
  return absl::OkStatus();
}

namespace {

// Loads in 1/256 byte, as ComputeLinkLoads sums them, so equal loads compare equal.
constexpr double kUnitsPerByte = 256;

class LoadBook {
 public:
  // `by_link_time`: each link's load counted as its bytes times the slowest link's
  // bandwidth over its own (the time they take, in the slowest link's bytes: never
  // more than the bytes, so the sums cannot outgrow int64 where bytes do not).
  LoadBook(const Placement& placement, Routing routing, bool by_link_time)
      : placement_(placement),
        machine_(placement.allocation().machine()),
        routing_(routing),
        loads_(static_cast<size_t>(machine_.num_links()), 0) {
    if (by_link_time) {
      std::vector<double> bandwidth(loads_.size(), 0);
      for (size_t l = 0; l < loads_.size(); ++l) {
        bandwidth[l] = machine_.LinkBandwidthOf(static_cast<int64_t>(l)).value_or(0);
      }
      const auto [slowest, fastest] = std::minmax_element(bandwidth.begin(), bandwidth.end());
      if (!bandwidth.empty() && *slowest > 0 && *slowest < *fastest) {
        scale_.resize(loads_.size());
        for (size_t l = 0; l < loads_.size(); ++l) scale_[l] = *slowest / bandwidth[l];
        bytes_.assign(loads_.size(), 0);
      }
    }
    const TaskGraph& graph = placement.graph();
    for (TaskId u = 0; u < graph.num_tasks(); ++u) {
      graph.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
        if (u < v) AddEdge(u, v, w, +1);
      });
    }
  }

  // Adds (sign +1) or removes (-1) an edge's loads at its endpoints' current nodes;
  // `touched`, when given, collects the links whose load changed.
  void AddEdge(TaskId u, TaskId v, Bytes w, int sign, std::vector<int64_t>* touched = nullptr) {
    const double half = 0.5 * static_cast<double>(w) * kUnitsPerByte;
    ForEachRouteLinkOfEdge(u, v, [&](int64_t link, double share) {
      if (scale_.empty()) {
        loads_[link] += sign * std::llround(half * share);
      } else {
        loads_[link] += sign * std::llround(half * share * scale_[link]);
        bytes_[link] += sign * std::llround(half * share);
      }
      if (touched != nullptr) touched->push_back(link);
    });
  }
  // Every edge of `a` and of `b` (kNoTask: none) once.
  void AddEdgesOf(TaskId a, TaskId b, int sign, std::vector<int64_t>* touched = nullptr) {
    const TaskGraph& graph = placement_.graph();
    if (a != kNoTask)
      graph.ForEachNeighbor(a, [&](TaskId v, Bytes w) { AddEdge(a, v, w, sign, touched); });
    if (b != kNoTask) {
      graph.ForEachNeighbor(b, [&](TaskId v, Bytes w) {
        if (v != a) AddEdge(b, v, w, sign, touched);
      });
    }
  }
  // The busiest link (lowest index among equals) and its load.
  [[nodiscard]] std::pair<int64_t, int64_t> Busiest() const {
    const auto it = std::max_element(loads_.begin(), loads_.end());
    return {it - loads_.begin(), *it};
  }
  // Whether an edge between the nodes of u and v is routed over `link`.
  [[nodiscard]] bool Crosses(TaskId u, TaskId v, int64_t link) const {
    bool found = false;
    ForEachRouteLinkOfEdge(u, v, [&](int64_t l, double) { found = found || l == link; });
    return found;
  }
  [[nodiscard]] int64_t load(int64_t link) const { return loads_[link]; }
  // The busiest link's bytes.
  [[nodiscard]] double BusiestBytes() const {
    const auto [link, load] = Busiest();
    return static_cast<double>(bytes_.empty() ? load : bytes_[link]) / kUnitsPerByte;
  }
  // Route links visited so far: the measure of work the search is capped by.
  [[nodiscard]] int64_t work() const { return work_; }

 private:
  // The links of both directions of an edge between the current nodes of u and v
  // (none on one node), each visit counted as work.
  template <typename Visit>
  void ForEachRouteLinkOfEdge(TaskId u, TaskId v, Visit visit) const {
    const int32_t pu = placement_.position_of(u);
    const int32_t pv = placement_.position_of(v);
    if (pu == pv) return;
    const NodeId a = placement_.allocation().node_at(pu);
    const NodeId b = placement_.allocation().node_at(pv);
    auto counted = [&](int64_t link, double share) {
      ++work_;
      visit(link, share);
    };
    machine_.ForEachRouteLink(a, b, routing_, counted);
    machine_.ForEachRouteLink(b, a, routing_, counted);
  }

  const Placement& placement_;
  const Machine& machine_;
  const Routing routing_;
  std::vector<int64_t> loads_;
  // By_link_time on unequal links: each link's scale and its load in bytes (loads_
  // then holds the scaled ones); else empty.
  std::vector<double> scale_;
  std::vector<int64_t> bytes_;
  mutable int64_t work_ = 0;
};

}  // namespace

std::vector<SlotId> RefineCongestion(const TaskGraph& graph, const Allocation& allocation,
                                     std::vector<SlotId> start, Routing routing,
                                     const CongestionRefineOptions& options,
                                     const StopCondition& stop, const PositionGraph* near,
                                     CongestionRefineStats* stats) {
  CongestionRefineStats local;
  CongestionRefineStats& out = stats != nullptr ? *stats : local;
  out = CongestionRefineStats{};
  if (allocation.machine().num_links() == 0 || graph.num_edges() == 0) {
    out.local_optimum = true;
    return start;
  }
  std::optional<PositionGraph> own_near;
  if (near == nullptr) near = &own_near.emplace(PositionGraph::Build(allocation));
  Placement placement(graph, allocation, std::move(start));
  LoadBook book(placement, routing, options.by_link_time);
  out.start_max_load = book.BusiestBytes();
  const int32_t cores = allocation.cores_per_node();
  const int64_t max_exchanges =
      options.max_exchanges_per_task * static_cast<int64_t>(graph.num_tasks());
  std::vector<int32_t> positions;  // where one of them may go
  std::vector<int64_t> touched;
  while (out.exchanges < max_exchanges && book.work() < options.max_work && !stop.ShouldStop()) {
    const auto [busiest, most] = book.Busiest();
    if (most == 0) break;
    bool moved = false;
    for (TaskId t = 0; t < graph.num_tasks() && !moved && book.work() < options.max_work; ++t) {
      bool crosses = false;
      graph.ForEachNeighbor(
          t, [&](TaskId v, Bytes) { crosses = crosses || book.Crosses(t, v, busiest); });
      if (!crosses) continue;
      PositionsNearTask(
          *near, graph, t, /*with_own=*/true, [&](TaskId u) { return placement.position_of(u); },
          positions);
      const SlotId from = placement.slot_of(t);
      for (const int32_t p : positions) {
        for (int32_t c = 0; c < cores && !moved; ++c) {
          const SlotId to = static_cast<SlotId>(p) * cores + c;
          if (allocation.PositionOfSlot(to) == allocation.PositionOfSlot(from)) continue;
          const TaskId other = placement.task_at(to);
          touched.clear();
          book.AddEdgesOf(t, other, -1);
          const HopBytes delta = placement.SwapDelta(from, to);
          placement.SwapSlots(from, to, delta);
          book.AddEdgesOf(t, other, +1, &touched);
          bool lower = book.load(busiest) < most;
          for (const int64_t link : touched) lower = lower && book.load(link) < most;
          if (lower) {
            moved = true;
            ++out.exchanges;
          } else {
            book.AddEdgesOf(t, other, -1);
            placement.SwapSlots(from, to, -delta);
            book.AddEdgesOf(t, other, +1);
          }
        }
        if (moved) break;
      }
    }
    if (!moved) {
      out.local_optimum = book.work() < options.max_work;
      break;
    }
  }
  out.end_max_load = book.BusiestBytes();
  out.work = book.work();
  return std::move(placement).Release();
}

}  // namespace hopmap
