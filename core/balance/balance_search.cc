#include "core/balance/balance_search.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace hopmap {
namespace {

// A change of the objective worth applying: hop-bytes are integers, the migration
// term a double.
constexpr double kMinGain = 1e-6;

// Distinct allocation positions of t's neighbours other than `skip`, in
// neighbour order, written to `out` (stamp[] marks them; `stamp_value` must be new
// for every call).
void NeighbourPositions(const BalancedPlacement& p, TaskId t, int32_t skip,
                        std::vector<int32_t>& stamp, int32_t stamp_value,
                        std::vector<int32_t>& out) {
  out.clear();
  p.graph().ForEachNeighbor(t, [&](TaskId u, Bytes) {
    const int32_t q = p.position_of(u);
    if (q == skip || stamp[q] == stamp_value) return;
    stamp[q] = stamp_value;
    out.push_back(q);
  });
}

}  // namespace

absl::Status BalanceRefineOptions::Validate() const {
  if (max_passes < 0) return absl::InvalidArgumentError("max_passes must be >= 0");
  if (swap_candidates < 0) return absl::InvalidArgumentError("swap_candidates must be >= 0");
  return absl::OkStatus();
}

// How many of the least loaded slots RepairBalance tries exchanges with.
constexpr int kExchangeSlots = 16;

namespace {

// The slots by load, to find the most and the least loaded in O(log S).
using SlotsByLoad = std::set<std::pair<double, SlotId>>;

// A move of object t to slot `to`, changing hop-bytes by delta, and its score.
struct Choice {
  double score = std::numeric_limits<double>::infinity();
  TaskId t = kNoTask;
  SlotId to = kInvalidSlot;
  HopBytes delta = 0;
};

// An exchange of object t with object u, changing hop-bytes by delta, and its score.
struct Exchange {
  double score = std::numeric_limits<double>::infinity();
  TaskId t = kNoTask, u = kNoTask;
  HopBytes delta = 0;
};

// The best move off the overloaded slot s that leaves its destination under the cap:
// lowest cost per unit of excess removed, then object, then slot. Sets `limited`
// when a move was refused by the migration limits only.
Choice BestMove(const BalancedPlacement& p, SlotId s, SlotId least, double cap, double tol,
                std::vector<int32_t>& stamp, int32_t& stamp_value, std::vector<int32_t>& positions,
                bool& limited) {
  const double excess = p.slot_load(s) - cap;
  const int32_t from_position = p.allocation().PositionOfSlot(s);
  const int32_t cores = p.allocation().cores_per_node();
  Choice best;
  auto consider = [&](TaskId t, SlotId to, HopBytes delta) {
    if (to == s || p.slot_load(to) + p.load(t) > cap + tol) return;
    if (!p.WithinMigrationLimits(t, to)) {
      limited = true;
      return;
    }
    const double cost = static_cast<double>(delta) + p.MigrationCostDelta(t, to);
    const double score = cost / std::min(p.load(t), excess);
    if (score < best.score ||
        (score == best.score && (t < best.t || (t == best.t && to < best.to)))) {
      best = {score, t, to, delta};
    }
  };
  for (TaskId t : p.objects_on(s)) {
    if (p.load(t) <= 0 || !p.movable(t)) continue;
    consider(t, p.LeastLoadedSlotAt(from_position), 0);
    NeighbourPositions(p, t, from_position, stamp, ++stamp_value, positions);
    for (int32_t q : positions) consider(t, p.LeastLoadedSlotAt(q), p.MoveDelta(t, q));
    if (p.has_current()) {
      const SlotId home = p.input().current_slot[t];
      consider(t, home, p.MoveDelta(t, p.allocation().PositionOfSlot(home)));
    }
    consider(t, least, p.MoveDelta(t, least / cores));
  }
  return best;
}

// When no single move fits: the best exchange of an object of s with a lighter
// object of one of the least loaded slots, that slot staying under the cap (small
// slots of a few heavy objects need it: every single move overloads its
// destination). Lowest cost per unit of load removed, then the lower objects. Sets
// `limited` when an exchange was refused by the migration limits only.
Exchange BestExchange(const BalancedPlacement& p, const SlotsByLoad& by_load, SlotId s, double cap,
                      double tol, bool& limited) {
  const double excess = p.slot_load(s) - cap;
  const int32_t from_position = p.allocation().PositionOfSlot(s);
  Exchange swap;
  int examined = 0;
  for (auto it = by_load.begin(); it != by_load.end() && examined < kExchangeSlots; ++it) {
    const SlotId d = it->second;
    if (d == s) continue;
    ++examined;
    const int32_t d_position = p.allocation().PositionOfSlot(d);
    for (TaskId t : p.objects_on(s)) {
      if (p.load(t) <= 0 || !p.movable(t)) continue;
      for (TaskId u : p.objects_on(d)) {
        const double gain = p.load(t) - p.load(u);
        if (!p.movable(u) || gain <= tol || p.slot_load(d) + gain > cap + tol) continue;
        if (!p.WithinMigrationLimits(t, d, u)) {
          limited = true;
          continue;
        }
        const HopBytes delta = p.MoveDelta(t, d_position, u) + p.MoveDelta(u, from_position, t);
        const double cost =
            static_cast<double>(delta) + p.MigrationCostDelta(t, d) + p.MigrationCostDelta(u, s);
        const double score = cost / std::min(gain, excess);
        if (score < swap.score ||
            (score == swap.score && (t < swap.t || (t == swap.t && u < swap.u)))) {
          swap = {score, t, u, delta};
        }
      }
    }
  }
  return swap;
}

// When no move or exchange brings s under the cap: the object of s whose move to
// the least loaded slot lowers the larger of the two loads most (the best reachable
// balance), or kNoTask. Sets `limited` when a move was refused by the migration
// limits only.
TaskId BestShed(const BalancedPlacement& p, SlotId s, SlotId least, double tol, bool& limited) {
  TaskId shed = kNoTask;
  double shed_max = p.slot_load(s);
  for (TaskId t : p.objects_on(s)) {
    if (p.load(t) <= 0 || !p.movable(t)) continue;
    if (!p.WithinMigrationLimits(t, least)) {
      limited = true;
      continue;
    }
    const double after = std::max(p.slot_load(s) - p.load(t), p.slot_load(least) + p.load(t));
    if (after < shed_max - tol || (shed != kNoTask && after == shed_max && t < shed)) {
      shed_max = after;
      shed = t;
    }
  }
  return shed;
}

// Why the slot s stays over the cap (nothing moved it).
std::string WhyStuck(const BalancedPlacement& p, SlotId s, bool limited) {
  bool any_movable = false;
  for (TaskId t : p.objects_on(s)) any_movable = any_movable || (p.movable(t) && p.load(t) > 0);
  const char* why = limited        ? ": the migration limit is reached"
                    : !any_movable ? ": its load is background and fixed objects"
                                   : ": no object move lowers it without overloading another slot";
  return absl::StrCat("slot ", s, " stays at load ", p.slot_load(s), why);
}

}  // namespace

BalanceSearchStats RepairBalance(BalancedPlacement& p, double cap, const StopCondition& stop) {
  BalanceSearchStats stats;
  const double tol = LoadTolerance(cap);
  const int64_t slots = p.num_slots();
  const int32_t cores = p.allocation().cores_per_node();
  // Every slot by load, to find the most and the least loaded in O(log S).
  SlotsByLoad by_load;
  for (SlotId s = 0; s < slots; ++s) by_load.emplace(p.slot_load(s), s);
  std::vector<uint8_t> stuck(slots, 0);
  std::vector<int32_t> stamp(p.allocation().num_nodes(), -1);
  std::vector<int32_t> positions;
  int32_t stamp_value = 0;
  // Runs change(), which alters the loads of slots a and b only, keeping by_load.
  auto reload = [&](SlotId a, SlotId b, const auto& change) {
    by_load.erase({p.slot_load(a), a});
    by_load.erase({p.slot_load(b), b});
    change();
    by_load.emplace(p.slot_load(a), a);
    by_load.emplace(p.slot_load(b), b);
  };
  auto apply = [&](TaskId t, SlotId to, HopBytes delta) {
    reload(p.slot_of(t), to, [&] { p.Move(t, to, delta); });
    ++stats.moves;
  };
  while (!stop.ShouldStop()) {
    // The most loaded slot that is not stuck.
    SlotId s = kInvalidSlot;
    for (auto it = by_load.rbegin(); it != by_load.rend() && it->first > cap + tol; ++it) {
      if (!stuck[it->second]) {
        s = it->second;
        break;
      }
    }
    if (s == kInvalidSlot) break;
    const SlotId least = by_load.begin()->second;
    bool limited = false;  // a move was refused by the migration limits only
    const Choice best = BestMove(p, s, least, cap, tol, stamp, stamp_value, positions, limited);
    if (best.t != kNoTask) {
      apply(best.t, best.to, best.delta);
      continue;
    }
    const Exchange swap = BestExchange(p, by_load, s, cap, tol, limited);
    if (swap.t != kNoTask) {
      reload(s, p.slot_of(swap.u), [&] { p.Swap(swap.t, swap.u, swap.delta); });
      ++stats.swaps;
      continue;
    }
    const TaskId shed = BestShed(p, s, least, tol, limited);
    if (shed != kNoTask && least != s) {
      apply(shed, least, p.MoveDelta(shed, least / cores));
      continue;
    }
    stuck[s] = 1;
    if (stats.why_not_balanced.empty()) stats.why_not_balanced = WhyStuck(p, s, limited);
  }
  stats.balanced = by_load.empty() || by_load.rbegin()->first <= cap + tol;
  if (stats.balanced) {
    stats.why_not_balanced.clear();
  } else if (stats.why_not_balanced.empty()) {
    stats.why_not_balanced = "the time budget ran out before every slot was under the cap";
  }
  return stats;
}

BalanceSearchStats RefineBalanced(BalancedPlacement& p, double cap,
                                  const BalanceRefineOptions& options, const StopCondition& stop) {
  BalanceSearchStats stats;
  const double tol = LoadTolerance(cap);
  const TaskId n = p.num_objects();
  const Allocation& allocation = p.allocation();
  std::vector<int32_t> stamp(allocation.num_nodes(), -1);
  int32_t stamp_value = 0;
  std::vector<int32_t> positions;
  std::vector<std::pair<HopBytes, int32_t>> candidates;
  std::vector<TaskId> active(n);
  for (TaskId t = 0; t < n; ++t) active[t] = t;
  std::vector<int32_t> woken(n, -1);
  // Whether a slot may take `add` in place of `remove`: never above max(cap, now).
  auto fits = [&](SlotId s, double add, double remove) {
    const double now = p.slot_load(s);
    return now - remove + add <= std::max(cap, now) + tol;
  };

  // One object's best improving step; returns whether it moved.
  auto improve = [&](TaskId t, int32_t pass) -> bool {
    if (!p.movable(t)) return false;
    const int32_t from_position = p.position_of(t);
    const SlotId from = p.slot_of(t);
    // Home on the same node: zero hop-bytes, refunds the migration cost, and one
    // migration fewer counts against a limit (even without a cost: a remap
    // trimmed to its limit may then spend the migration on a move that gains).
    if (p.migrated(t)) {
      const SlotId home = p.input().current_slot[t];
      if (allocation.PositionOfSlot(home) == from_position && fits(home, p.load(t), 0)) {
        p.Move(t, home, 0);
        ++stats.moves;
        return true;
      }
    }
    NeighbourPositions(p, t, from_position, stamp, ++stamp_value, positions);
    if (p.has_current()) {
      const int32_t home_position = allocation.PositionOfSlot(p.input().current_slot[t]);
      if (home_position != from_position && stamp[home_position] != stamp_value) {
        positions.push_back(home_position);
      }
    }
    candidates.clear();
    for (int32_t q : positions) candidates.emplace_back(p.MoveDelta(t, q), q);
    std::sort(candidates.begin(), candidates.end());
    // The best possible migration refund bounds what any candidate can gain.
    const double refund = p.migrated(t) ? -p.MigrationCostDelta(t, p.input().current_slot[t]) : 0;
    for (const auto& candidate : candidates) {
      // Named copies: clang 14 cannot capture structured bindings in the lambda below.
      const HopBytes delta = candidate.first;
      const int32_t q = candidate.second;
      if (static_cast<double>(delta) - refund >= -kMinGain) break;
      SlotId to = p.LeastLoadedSlotAt(q);
      if (p.has_current()) {
        const SlotId home = p.input().current_slot[t];
        if (allocation.PositionOfSlot(home) == q && fits(home, p.load(t), 0)) to = home;
      }
      if (fits(to, p.load(t), 0)) {
        const double gain = -(static_cast<double>(delta) + p.MigrationCostDelta(t, to));
        if (gain > kMinGain && p.WithinMigrationLimits(t, to)) {
          p.Move(t, to, delta);
          ++stats.moves;
          return true;
        }
        continue;
      }
      // The slot is full: exchange with an object of node q, tried among t's own
      // neighbours there (a boundary pair often gains on both sides) and a window
      // of the chosen slot's objects.
      TaskId partner = kNoTask;
      HopBytes partner_delta = 0;
      double partner_gain = kMinGain;
      auto try_partner = [&](TaskId u) {
        if (!p.movable(u)) return;
        const SlotId su = p.slot_of(u);
        if (!fits(su, p.load(t), p.load(u)) || !fits(from, p.load(u), p.load(t))) return;
        const HopBytes d = p.MoveDelta(t, q, u) + p.MoveDelta(u, from_position, t);
        const double gain =
            -(static_cast<double>(d) + p.MigrationCostDelta(t, su) + p.MigrationCostDelta(u, from));
        if (gain > partner_gain && p.WithinMigrationLimits(t, su, u)) {
          partner = u;
          partner_delta = d;
          partner_gain = gain;
        }
      };
      p.graph().ForEachNeighbor(t, [&](TaskId u, Bytes) {
        if (p.position_of(u) == q) try_partner(u);
      });
      std::span<const TaskId> there = p.objects_on(to);
      const int32_t k =
          std::min<int32_t>(options.swap_candidates, static_cast<int32_t>(there.size()));
      for (int32_t i = 0; i < k; ++i) {
        try_partner(
            there[(static_cast<size_t>(pass) * 7 + static_cast<size_t>(t) + i) % there.size()]);
      }
      if (partner != kNoTask) {
        p.Swap(t, partner, partner_delta);
        ++stats.swaps;
        return true;
      }
    }
    return false;
  };

  for (int32_t pass = 0; pass < options.max_passes && !active.empty(); ++pass) {
    if (stop.ShouldStop()) break;
    ++stats.passes;
    std::vector<TaskId> next;
    for (TaskId t : active) {
      if ((t & 255) == 0 && stop.ShouldStop()) break;
      if (!improve(t, pass)) continue;
      // Wake the moved object and its neighbours for the next pass.
      auto wake = [&](TaskId x) {
        if (woken[x] != pass) {
          woken[x] = pass;
          next.push_back(x);
        }
      };
      wake(t);
      p.graph().ForEachNeighbor(t, [&](TaskId u, Bytes) { wake(u); });
    }
    std::sort(next.begin(), next.end());
    active = std::move(next);
  }
  return stats;
}

bool TrimMigrations(BalancedPlacement& p, double cap, const StopCondition& stop) {
  if (!p.has_current()) return true;
  const double tol = LoadTolerance(cap);
  const std::span<const SlotId> home = p.input().current_slot;
  auto fits = [&](SlotId s, double load) { return p.slot_load(s) + load <= cap + tol; };
  auto return_delta = [&](TaskId t) {
    return p.MoveDelta(t, p.allocation().PositionOfSlot(home[t]));
  };
  auto return_cost = [&](TaskId t) {
    return static_cast<double>(return_delta(t)) + p.MigrationCostDelta(t, home[t]);
  };
  // t home in exchange for u, a migrated object on t's current slot that takes
  // t's place: one migration fewer (two if that is u's home).
  auto swap_delta = [&](TaskId t, TaskId u) {
    return p.MoveDelta(t, p.position_of(u), u) + p.MoveDelta(u, p.position_of(t), t);
  };
  auto swap_cost = [&](TaskId t, TaskId u) {
    return static_cast<double>(swap_delta(t, u)) + p.MigrationCostDelta(t, p.slot_of(u)) +
           p.MigrationCostDelta(u, p.slot_of(t));
  };
  auto swap_fits = [&](TaskId t, TaskId u) {
    const double change = p.load(t) - p.load(u);
    return p.slot_of(u) == home[t] && p.migrated(u) && p.movable(u) &&
           p.slot_load(home[t]) + change <= cap + tol &&
           p.slot_load(p.slot_of(t)) - change <= cap + tol;
  };
  // The cheapest exchange partner for t on its home slot (kNoTask: none fits).
  auto best_partner = [&](TaskId t) {
    TaskId best = kNoTask;
    double best_cost = std::numeric_limits<double>::infinity();
    for (TaskId u : p.objects_on(home[t])) {
      if (!swap_fits(t, u)) continue;
      const double cost = swap_cost(t, u);
      if (cost < best_cost) best = u, best_cost = cost;
    }
    return std::pair(best_cost, best);
  };
  // (cost, object, partner): lowest cost first, then ids; a plain return has no
  // partner. Entries go stale as neighbours move and are re-evaluated when they
  // come up.
  using Entry = std::tuple<double, TaskId, TaskId>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  for (TaskId t = 0; t < p.num_objects(); ++t) {
    if (p.migrated(t) && p.movable(t)) queue.emplace(return_cost(t), t, kNoTask);
  }
  auto requeue_neighbours = [&](TaskId t) {
    p.graph().ForEachNeighbor(t, [&](TaskId v, Bytes) {
      if (p.migrated(v) && p.movable(v)) queue.emplace(return_cost(v), v, kNoTask);
    });
  };
  bool progress = true;
  while (!p.MigrationLimitsHold() && progress && !stop.ShouldStop()) {
    progress = false;
    std::vector<TaskId> blocked;  // tried again after other returns made room
    while (!queue.empty() && !p.MigrationLimitsHold()) {
      const Entry top = queue.top();
      queue.pop();
      const double cost = std::get<0>(top);
      const TaskId t = std::get<1>(top), u = std::get<2>(top);
      if (!p.migrated(t)) continue;
      if (u == kNoTask) {
        const double now = return_cost(t);
        if (now > cost + kMinGain) {
          queue.emplace(now, t, kNoTask);
        } else if (fits(home[t], p.load(t))) {
          p.Move(t, home[t], return_delta(t));
          progress = true;
          requeue_neighbours(t);
        } else if (const auto [partner_cost, partner] = best_partner(t); partner != kNoTask) {
          queue.emplace(partner_cost, t, partner);
        } else {
          blocked.push_back(t);
        }
        continue;
      }
      if (!swap_fits(t, u)) {
        queue.emplace(return_cost(t), t, kNoTask);
        continue;
      }
      const double now = swap_cost(t, u);
      if (now > cost + kMinGain) {
        queue.emplace(now, t, u);
        continue;
      }
      p.Swap(t, u, swap_delta(t, u));
      progress = true;
      requeue_neighbours(t);
      requeue_neighbours(u);
    }
    for (TaskId t : blocked) queue.emplace(return_cost(t), t, kNoTask);
  }
  return p.MigrationLimitsHold();
}

void AddSearchStats(BalanceSearchStats& total, const BalanceSearchStats& more) {
  total.passes += more.passes;
  total.moves += more.moves;
  total.swaps += more.swaps;
  total.levels = std::max(total.levels, more.levels);
}

}  // namespace hopmap
