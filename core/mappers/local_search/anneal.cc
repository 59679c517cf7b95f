#include "core/mappers/local_search/anneal.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/mappers/local_search/refine.h"
#include "core/search/placement.h"
#include "core/search/random_stream.h"
#include "tbb/parallel_for.h"

namespace hopmap {

absl::Status AnnealOptions::Validate() const {
  if (moves_per_task < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("anneal: moves_per_task must be >= 1, got ", moves_per_task));
  }
  if (chains < 1) {
    return absl::InvalidArgumentError(absl::StrCat("anneal: chains must be >= 1, got ", chains));
  }
  if (!(start_temperature > 0) || !std::isfinite(start_temperature)) {
    return absl::InvalidArgumentError(
        absl::StrCat("anneal: start_temperature must be > 0, got ", start_temperature));
  }
  if (!(cooling_ratio >= 1) || !std::isfinite(cooling_ratio)) {
    return absl::InvalidArgumentError(
        absl::StrCat("anneal: cooling_ratio must be >= 1, got ", cooling_ratio));
  }
  return absl::OkStatus();
}

namespace {

// Proposes exchanges: a random task (with edges) to a random slot on, or next to,
// the node of one of its neighbours.
class MoveSource {
 public:
  MoveSource(const Placement& placement, const PositionGraph& near)
      : placement_(&placement), near_(&near) {
    const TaskGraph& graph = placement.graph();
    for (TaskId t = 0; t < graph.num_tasks(); ++t) {
      if (graph.degree(t) > 0) movable_.push_back(t);
    }
  }
  [[nodiscard]] bool empty() const { return movable_.empty(); }

  // The two slots of a proposed exchange (equal when the draw lands on the task's own
  // slot).
  std::pair<SlotId, SlotId> Draw(RandomStream& random) const {
    const TaskGraph& graph = placement_->graph();
    const TaskId task = movable_[random.Below(movable_.size())];
    const EdgeIndex edge =
        graph.xadj()[task] +
        static_cast<EdgeIndex>(random.Below(static_cast<uint64_t>(graph.degree(task))));
    int32_t position = placement_->position_of(graph.adjncy()[edge]);
    // The neighbour's node or one next to it, each equally likely.
    const auto next = near_->neighbors(position);
    if (const uint64_t pick = random.Below(next.size() + 1); pick < next.size()) {
      position = next[pick];
    }
    const int32_t cores = placement_->allocation().cores_per_node();
    const SlotId slot = static_cast<SlotId>(position) * cores +
                        static_cast<SlotId>(cores > 1 ? random.Below(cores) : 0);
    return {placement_->slot_of(task), slot};
  }

 private:
  const Placement* placement_;
  const PositionGraph* near_;
  std::vector<TaskId> movable_;
};

// The mean hop-bytes rise of uphill exchanges proposed from the start: the scale of
// the temperature, so one setting suits graphs of any byte counts.
double MeanUphillDelta(const Placement& placement, const MoveSource& moves, uint64_t seed) {
  RandomStream random(seed, 0x54454d50ULL);  // "TEMP"
  const int64_t samples =
      std::clamp<int64_t>(placement.graph().num_tasks() * 4, int64_t{1000}, int64_t{20000});
  double sum = 0;
  int64_t uphill = 0;
  for (int64_t i = 0; i < samples; ++i) {
    const auto [a, b] = moves.Draw(random);
    const HopBytes delta = placement.SwapDelta(a, b);
    if (delta > 0) {
      sum += static_cast<double>(delta);
      ++uphill;
    }
  }
  return uphill > 0 ? sum / static_cast<double>(uphill) : 0;
}

struct ChainResult {
  std::vector<SlotId> slots;
  HopBytes hop_bytes = 0;
  int64_t moves = 0;
  int64_t accepted = 0;
  int64_t best_at_move = 0;
  bool stopped = false;
  bool hurried = false;
};

// Moves the chain can still make before the deadline at the rate it has kept since
// `chain_start` (`move` moves), less 10% slack for the caller's final steps.
int64_t AffordableMoves(int64_t move, absl::Time chain_start, const StopCondition& stop) {
  const absl::Time now = absl::Now();
  const double elapsed = absl::ToDoubleSeconds(now - chain_start);
  if (elapsed <= 0) return std::numeric_limits<int64_t>::max();
  const double affordable =
      0.9 * static_cast<double>(move) / elapsed * absl::ToDoubleSeconds(stop.deadline() - now);
  return affordable < 9e18 ? static_cast<int64_t>(affordable) : std::numeric_limits<int64_t>::max();
}

// One chain. The best state is kept without copying the mapping on every new best:
// the exchanges since it are journaled and undone at the end; only when that
// journal outgrows the task count is the best copied out (so at most one copy per
// num_tasks accepted exchanges).
ChainResult RunChain(const TaskGraph& graph, const Allocation& allocation,
                     const std::vector<SlotId>& start, const PositionGraph& near,
                     double start_temperature, const AnnealOptions& options, uint64_t seed,
                     int32_t chain, const StopCondition& stop) {
  constexpr int64_t kClockEvery = 4096;  // moves between deadline checks
  // The move rate is trusted after this many moves.
  constexpr int64_t kHurryAfter = 8 * kClockEvery;
  Placement placement(graph, allocation, start);
  const MoveSource moves(placement, near);
  RandomStream random(seed, static_cast<uint64_t>(chain));
  int64_t total = 0;  // saturates: --iterations may be any count
  if (__builtin_mul_overflow(options.moves_per_task, int64_t{graph.num_tasks()}, &total)) {
    total = std::numeric_limits<int64_t>::max();
  }
  double factor = std::pow(1.0 / options.cooling_ratio, 1.0 / static_cast<double>(total));
  double temperature = start_temperature;
  const double end_temperature = start_temperature / options.cooling_ratio;
  const absl::Time chain_start = absl::Now();

  ChainResult out;
  HopBytes best = placement.hop_bytes();
  std::vector<SlotId> saved;  // a copy of the best, when the journal could not hold it
  bool best_is_journaled = true;
  std::vector<Placement::Exchange> journal;
  const size_t journal_limit = std::max<size_t>(1, static_cast<size_t>(graph.num_tasks()));
  placement.set_journal(&journal);
  int64_t move = 0;
  for (; move < total; ++move, temperature *= factor) {
    if (move % kClockEvery == 0) {
      if (stop.ShouldStop()) {
        out.stopped = true;
        break;
      }
      // A schedule the deadline would cut mid-way (a slow or loaded machine) cools
      // over the moves the time left allows instead, so the chain still ends cold.
      // A run that finishes in time is never shortened: it stays a pure count.
      if (options.cool_to_deadline && move >= kHurryAfter) {
        const int64_t left = std::max(kClockEvery, AffordableMoves(move, chain_start, stop));
        // (left may be INT64_MAX, no deadline: compared without adding to move.)
        if (left < total - move) {
          total = move + left;
          factor = std::pow(end_temperature / temperature, 1.0 / static_cast<double>(left));
          out.hurried = true;
        }
      }
    }
    const auto [a, b] = moves.Draw(random);
    if (a == b) continue;
    const HopBytes delta = placement.SwapDelta(a, b);
    if (delta > 0 && random.Unit() >= std::exp(-static_cast<double>(delta) / temperature)) {
      continue;
    }
    placement.SwapSlots(a, b, delta);
    ++out.accepted;
    if (placement.hop_bytes() < best) {
      best = placement.hop_bytes();
      out.best_at_move = move + 1;
      journal.clear();
      if (!best_is_journaled) placement.set_journal(&journal);
      best_is_journaled = true;
    } else if (best_is_journaled && journal.size() >= journal_limit) {
      // Copy the best out (undo to it, copy, replay); no journal until the next best.
      std::vector<Placement::Exchange> replay = journal;
      placement.Undo(journal);
      saved = placement.slot_of_task();
      placement.set_journal(nullptr);
      for (const Placement::Exchange& e : replay) placement.SwapSlots(e.a, e.b, e.delta);
      best_is_journaled = false;
    }
  }
  out.moves = move;
  placement.set_journal(nullptr);
  if (best_is_journaled) {
    placement.Undo(journal);
    out.slots = std::move(placement).Release();
  } else {
    out.slots = std::move(saved);
  }
  out.hop_bytes = best;
  return out;
}

}  // namespace

std::vector<SlotId> Anneal(const TaskGraph& graph, const Allocation& allocation,
                           const std::vector<SlotId>& start, const AnnealOptions& options,
                           uint64_t seed, const StopCondition& stop, const PositionGraph* near,
                           AnnealStats* stats) {
  std::optional<PositionGraph> own_near;
  if (near == nullptr) near = &own_near.emplace(PositionGraph::Build(allocation));
  const Placement probe(graph, allocation, start);
  const MoveSource moves(probe, *near);
  const double scale = MeanUphillDelta(probe, moves, seed);
  if (stats != nullptr) {
    *stats = AnnealStats{};
    stats->best_hop_bytes = probe.hop_bytes();
  }
  if (moves.empty() || scale <= 0) return start;
  const double start_temperature = options.start_temperature * scale;
  std::vector<ChainResult> results(options.chains);
  tbb::parallel_for(0, options.chains, [&](int32_t chain) {
    results[chain] =
        RunChain(graph, allocation, start, *near, start_temperature, options, seed, chain, stop);
  });
  int32_t best_chain = 0;
  for (int32_t c = 1; c < options.chains; ++c) {
    if (results[c].hop_bytes < results[best_chain].hop_bytes) best_chain = c;
  }
  if (stats != nullptr) {
    *stats = AnnealStats{};
    for (const ChainResult& r : results) {
      stats->moves += r.moves;
      stats->accepted += r.accepted;
      stats->stopped_early = stats->stopped_early || r.stopped;
      stats->hurried = stats->hurried || r.hurried;
    }
    stats->best_chain = best_chain;
    stats->best_found_at_move = results[best_chain].best_at_move;
    stats->best_hop_bytes = std::min(results[best_chain].hop_bytes, probe.hop_bytes());
  }
  if (results[best_chain].hop_bytes >= probe.hop_bytes()) return start;
  return std::move(results[best_chain].slots);
}

std::vector<Statistic> AnnealStatistics(const AnnealStats& stats) {
  return {{"moves", static_cast<double>(stats.moves)},
          {"accepted", static_cast<double>(stats.accepted)},
          {"best_found_at_move", static_cast<double>(stats.best_found_at_move)},
          {"cooled_faster", stats.hurried ? 1.0 : 0.0},
          {"stopped_early", stats.stopped_early ? 1.0 : 0.0}};
}

absl::StatusOr<MapOutput> AnnealMapper::Map(const MapInput& input) const {
  AnnealOptions options = options_;
  if (input.options.iteration_limit > 0) options.moves_per_task = input.options.iteration_limit;
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  std::string from;
  absl::StatusOr<std::vector<SlotId>> start = LocalSearchStart(input, "anneal", &from);
  if (!start.ok()) return start.status();
  AnnealStats stats;
  MapOutput out;
  out.slot_of_task = Anneal(input.graph, input.allocation, *start, options, input.options.seed,
                            input.stop, nullptr, &stats);
  out.variant = absl::StrCat("from ", from);
  out.stats = AnnealStatistics(stats);
  return out;
}

}  // namespace hopmap
