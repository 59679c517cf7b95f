#include "core/mappers/local_search/grasp.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/metrics/hop_bytes.h"
#include "core/search/placement.h"
#include "core/search/random_stream.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"

namespace hopmap {

absl::Status GraspOptions::Validate() const {
  auto fraction_ok = [](double x) { return std::isfinite(x) && x > 0 && x <= 1; };
  if (dense_slot_limit < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("grasp: dense_slot_limit must be >= 0, got ", dense_slot_limit));
  }
  if (max_iterations < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("grasp: max_iterations must be >= 0, got ", max_iterations));
  }
  if (round_size < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("grasp: round_size must be >= 1, got ", round_size));
  }
  if (!fraction_ok(grasp_time_fraction) || !fraction_ok(stage1_beta) || !fraction_ok(alpha)) {
    return absl::InvalidArgumentError(
        absl::StrCat("grasp: grasp_time_fraction, stage1_beta and alpha must be in (0, 1], got ",
                     grasp_time_fraction, ", ", stage1_beta, ", ", alpha));
  }
  if (sparse_choices < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("grasp: sparse_choices must be >= 1, got ", sparse_choices));
  }
  if (tabu_chains < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("grasp: tabu_chains must be >= 1, got ", tabu_chains));
  }
  if (tabu_iterations < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("grasp: tabu_iterations must be >= -1, got ", tabu_iterations));
  }
  if (!std::isfinite(tabu_tenure_factor) || tabu_tenure_factor < 0 ||
      !std::isfinite(tabu_aspiration_factor) || tabu_aspiration_factor < 0) {
    return absl::InvalidArgumentError("grasp: tabu factors must be finite and >= 0");
  }
  return refine.Validate();
}

namespace {

// Work items of the tabu chains' streams, far above any GRASP iteration index.
constexpr uint64_t kTabuStreamBase = uint64_t{1} << 62;
constexpr uint64_t kStage1Stream = kTabuStreamBase - 1;
// Tabu iterations between two looks at the stop condition (one iteration is
// O(slots^2), a look a clock read): keeps a budget within a few percent
// (docs/tuning.md).
constexpr int64_t kTabuSegment = 16;

// The problem as a QAP of size = slots: facility i < tasks is task i, facilities
// >= tasks are dummies without traffic standing for empty slots; location = slot.
// Both matrices are symmetric with a zero diagonal, and cost = sum over i < j of
// flow[i][j] * hops[p(i)][p(j)] = hop-bytes.
struct DenseQap {
  int32_t size = 0;
  int32_t tasks = 0;
  int32_t cores = 1;
  std::vector<int64_t> flow;  // size x size
  std::vector<int64_t> hops;  // size x size, between slots
  // Allocation position of every slot (a lookup: a division per pair is what the
  // tabu search's inner loop would otherwise spend most of its time on).
  std::vector<int32_t> position;

  [[nodiscard]] int64_t F(int32_t i, int32_t j) const {
    return flow[static_cast<size_t>(i) * size + j];
  }
  [[nodiscard]] int64_t D(int32_t a, int32_t b) const {
    return hops[static_cast<size_t>(a) * size + b];
  }
};

DenseQap BuildDenseQap(const TaskGraph& graph, const Allocation& allocation) {
  DenseQap q;
  q.size = static_cast<int32_t>(allocation.num_slots());
  q.tasks = graph.num_tasks();
  q.cores = allocation.cores_per_node();
  const size_t s = q.size;
  q.flow.assign(s * s, 0);
  q.hops.assign(s * s, 0);
  q.position.resize(s);
  for (int32_t slot = 0; slot < q.size; ++slot) q.position[slot] = slot / q.cores;
  for (TaskId u = 0; u < q.tasks; ++u) {
    graph.ForEachNeighbor(u, [&](TaskId v, Bytes w) { q.flow[u * s + v] = w; });
  }
  tbb::parallel_for(int32_t{0}, q.size, [&](int32_t a) {
    for (int32_t b = 0; b < q.size; ++b) q.hops[a * s + b] = allocation.HopsBetweenSlots(a, b);
  });
  return q;
}

// A permutation with its cost and the gain of every exchange (only i < j, i a
// task, is kept: exchanging two dummies changes nothing).
class DenseState {
 public:
  DenseState(const DenseQap& q, std::vector<int32_t> perm) : q_(&q), perm_(std::move(perm)) {
    const size_t s = q.size;
    delta_.assign(s * s, 0);
    cost_ = 0;
    for (int32_t i = 0; i < q.tasks; ++i) {
      for (int32_t j = i + 1; j < q.tasks; ++j) cost_ += q.F(i, j) * q.D(perm_[i], perm_[j]);
    }
    for (int32_t i = 0; i < q.tasks; ++i) {
      for (int32_t j = i + 1; j < q.size; ++j) delta_[i * s + j] = FullDelta(i, j);
    }
  }

  [[nodiscard]] int64_t cost() const { return cost_; }
  [[nodiscard]] const std::vector<int32_t>& perm() const { return perm_; }
  [[nodiscard]] int64_t delta(int32_t i, int32_t j) const {
    return delta_[static_cast<size_t>(i) * q_->size + j];
  }
  [[nodiscard]] bool SameNode(int32_t i, int32_t j) const {
    return q_->position[perm_[i]] == q_->position[perm_[j]];
  }

  // Exchanges the locations of facilities r < s and updates every gain: Taillard's
  // O(1) update for pairs disjoint from {r, s}, O(size) for the others.
  void Swap(int32_t r, int32_t s) {
    cost_ += delta(r, s);
    std::swap(perm_[r], perm_[s]);
    const DenseQap& q = *q_;
    const size_t n = q.size;
    const int32_t pr = perm_[r], ps = perm_[s];
    const int64_t* fr = &q.flow[r * n];
    const int64_t* fs = &q.flow[s * n];
    const int64_t* dr = &q.hops[pr * n];
    const int64_t* ds = &q.hops[ps * n];
    for (int32_t i = 0; i < q.tasks; ++i) {
      int64_t* row = &delta_[i * n];
      if (i == r || i == s) {
        for (int32_t j = i + 1; j < q.size; ++j) row[j] = FullDelta(i, j);
        continue;
      }
      const int64_t fri_fsi = fr[i] - fs[i];
      const int64_t dsi_dri = ds[perm_[i]] - dr[perm_[i]];
      for (int32_t j = i + 1; j < q.size; ++j) {
        if (j == r || j == s) {
          row[j] = FullDelta(i, j);
          continue;
        }
        const int32_t pj = perm_[j];
        row[j] += (fri_fsi - fr[j] + fs[j]) * (dsi_dri - ds[pj] + dr[pj]);
      }
    }
  }

 private:
  // Gain of exchanging facilities r and s: sum over k != r, s of
  // (f[r][k] - f[s][k]) * (d[p(s)][p(k)] - d[p(r)][p(k)]).
  [[nodiscard]] int64_t FullDelta(int32_t r, int32_t s) const {
    const DenseQap& q = *q_;
    const size_t n = q.size;
    const int64_t* fr = &q.flow[r * n];
    const int64_t* fs = &q.flow[s * n];
    const int64_t* dr = &q.hops[perm_[r] * n];
    const int64_t* ds = &q.hops[perm_[s] * n];
    int64_t d = 0;
    // Dummies have no flow: only tasks k contribute.
    for (int32_t k = 0; k < q.tasks; ++k) {
      if (k == r || k == s) continue;
      d += (fr[k] - fs[k]) * (ds[perm_[k]] - dr[perm_[k]]);
    }
    return d;
  }

  const DenseQap* q_;
  std::vector<int32_t> perm_;
  std::vector<int64_t> delta_;
  int64_t cost_ = 0;
};

// Best-improvement 2-exchange descent to a local optimum (or `stop`).
void DenseLocalSearch(DenseState& state, const DenseQap& q, const StopCondition& stop) {
  for (int64_t moves = 0;; ++moves) {
    if (moves % 8 == 7 && stop.ShouldStop()) return;
    int64_t best = 0;
    int32_t br = -1, bs = -1;
    for (int32_t i = 0; i < q.tasks; ++i) {
      for (int32_t j = i + 1; j < q.size; ++j) {
        const int64_t d = state.delta(i, j);
        if (d < best) {
          best = d;
          br = i;
          bs = j;
        }
      }
    }
    if (br < 0) return;
    state.Swap(br, bs);
  }
}

// Stage 1's restricted candidate list, the same for every iteration.
struct Stage1Pair {
  int32_t task_a, task_b, slot_a, slot_b;
};
std::vector<Stage1Pair> Stage1Candidates(const DenseQap& q, const GraspOptions& options,
                                         uint64_t seed) {
  std::vector<std::tuple<int64_t, int32_t, int32_t>> flows;  // (-flow, i, j)
  for (int32_t i = 0; i < q.tasks; ++i) {
    for (int32_t j = i + 1; j < q.tasks; ++j) {
      if (q.F(i, j) > 0) flows.emplace_back(-q.F(i, j), i, j);
    }
  }
  std::vector<std::tuple<int64_t, int32_t, int32_t>> dists;  // (hops, a, b)
  for (int32_t a = 0; a < q.size; ++a) {
    for (int32_t b = a + 1; b < q.size; ++b) dists.emplace_back(q.D(a, b), a, b);
  }
  // Equal flows and equal hops are common: shuffle once (a fixed stream) so the
  // list is not made of the lowest task and slot numbers only.
  RandomStream random(seed, kStage1Stream);
  random.Shuffle(std::span(flows));
  random.Shuffle(std::span(dists));
  const size_t keep = std::max<size_t>(
      1, static_cast<size_t>(options.stage1_beta * std::min(flows.size(), dists.size())));
  if (flows.empty() || dists.empty()) return {};
  const size_t k = std::min({keep, flows.size(), dists.size()});
  std::partial_sort(flows.begin(), flows.begin() + k, flows.end(),
                    [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  std::partial_sort(dists.begin(), dists.begin() + k, dists.end(),
                    [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  std::vector<std::pair<int64_t, size_t>> products(k);
  for (size_t m = 0; m < k; ++m) products[m] = {-std::get<0>(flows[m]) * std::get<0>(dists[m]), m};
  std::sort(products.begin(), products.end());
  size_t rcl = std::max<size_t>(1, static_cast<size_t>(options.alpha * k));
  // Pairs as cheap as the last one kept are as good: keep them all, or a tie at
  // the threshold (often many pairs at 0 hops) would pin stage 1 to one choice.
  while (rcl < k && products[rcl].first == products[rcl - 1].first) ++rcl;
  std::vector<Stage1Pair> out;
  for (size_t m = 0; m < rcl; ++m) {
    const size_t idx = products[m].second;
    out.push_back({std::get<1>(flows[idx]), std::get<2>(flows[idx]), std::get<1>(dists[idx]),
                   std::get<2>(dists[idx])});
  }
  return out;
}

// Li, Pardalos and Resende's randomized greedy construction.
// When `stop` fires it places the remaining tasks on the free slots in order, so a
// large construction never runs far past the deadline.
std::vector<int32_t> DenseConstruct(const DenseQap& q, const std::vector<Stage1Pair>& stage1,
                                    double alpha, RandomStream& random, const StopCondition& stop) {
  const size_t s = q.size;
  std::vector<int32_t> perm(q.size, -1);
  std::vector<char> slot_used(q.size, 0);
  // cost_at[i * s + l]: cost of task i on slot l given the tasks placed so far.
  std::vector<int64_t> cost_at(static_cast<size_t>(q.tasks) * s, 0);
  std::vector<int32_t> unplaced(q.tasks);
  std::iota(unplaced.begin(), unplaced.end(), 0);
  auto place = [&](int32_t task, int32_t slot) {
    perm[task] = slot;
    slot_used[slot] = 1;
    unplaced.erase(std::find(unplaced.begin(), unplaced.end(), task));
    for (int32_t i : unplaced) {
      const int64_t f = q.F(i, task);
      if (f == 0) continue;
      int64_t* row = &cost_at[i * s];
      const int64_t* d = &q.hops[slot * s];
      for (size_t l = 0; l < s; ++l) row[l] += f * d[l];
    }
  };
  if (!stage1.empty()) {
    const Stage1Pair& p = stage1[random.Below(stage1.size())];
    const bool flip = random.Below(2) == 1;
    place(p.task_a, flip ? p.slot_b : p.slot_a);
    place(p.task_b, flip ? p.slot_a : p.slot_b);
  }
  // (cost, random tie-break, task, slot): ties are common (every slot costs 0 for a
  // task with no placed neighbour) and must not favour low task or slot numbers.
  std::vector<std::tuple<int64_t, uint64_t, int32_t, int32_t>> candidates;
  for (int64_t step = 0; !unplaced.empty(); ++step) {
    if (step % 16 == 15 && stop.ShouldStop()) {
      int32_t next = 0;
      for (int32_t task : unplaced) {
        while (slot_used[next]) ++next;
        perm[task] = next;
        slot_used[next] = 1;
      }
      break;
    }
    candidates.clear();
    for (int32_t i : unplaced) {
      const int64_t* row = &cost_at[i * s];
      for (int32_t l = 0; l < q.size; ++l) {
        if (!slot_used[l]) candidates.emplace_back(row[l], random.Next(), i, l);
      }
    }
    const size_t k =
        std::max<size_t>(1, static_cast<size_t>(alpha * static_cast<double>(candidates.size())));
    std::nth_element(candidates.begin(), candidates.begin() + (k - 1), candidates.end());
    std::sort(candidates.begin(), candidates.begin() + k);
    const auto& picked = candidates[random.Below(k)];
    place(std::get<2>(picked), std::get<3>(picked));
  }
  // Dummies take the free slots in order.
  int32_t next = 0;
  for (int32_t i = q.tasks; i < q.size; ++i) {
    while (slot_used[next]) ++next;
    perm[i] = next;
    slot_used[next] = 1;
  }
  return perm;
}

std::vector<int32_t> PermFromMapping(const DenseQap& q, const std::vector<SlotId>& slot_of_task) {
  std::vector<int32_t> perm(slot_of_task.begin(), slot_of_task.end());
  std::vector<char> used(q.size, 0);
  for (SlotId slot : slot_of_task) used[slot] = 1;
  for (int32_t l = 0; l < q.size; ++l) {
    if (!used[l]) perm.push_back(l);
  }
  return perm;
}

struct DenseResult {
  std::vector<int32_t> perm;
  int64_t cost = 0;
};

// Robust tabu search (Taillard 1991) from `start`; returns the best permutation met.
DenseResult RobustTabuSearch(const DenseQap& q, std::vector<int32_t> start,
                             const GraspOptions& options, RandomStream& random,
                             const StopCondition& stop, int64_t* iterations_done) {
  DenseState state(q, std::move(start));
  DenseResult best{state.perm(), state.cost()};
  const size_t s = q.size;
  // tabu[i * s + l]: until which iteration moving task i back to slot l is tabu.
  std::vector<int64_t> tabu(static_cast<size_t>(q.tasks) * s, 0);
  const double tenure = options.tabu_tenure_factor * q.size;
  const int64_t aspiration =
      static_cast<int64_t>(options.tabu_aspiration_factor * q.size * static_cast<double>(q.size));
  int64_t iter = 1;
  const int64_t cap =
      options.tabu_iterations > 0 ? options.tabu_iterations : std::numeric_limits<int64_t>::max();
  const std::vector<int32_t>& p = state.perm();
  while (iter <= cap) {
    if (iter % kTabuSegment == 0 && stop.ShouldStop()) break;
    int32_t br = -1, bs = -1;
    int64_t best_delta = std::numeric_limits<int64_t>::max();
    bool aspired_found = false;
    for (int32_t i = 0; i < q.tasks; ++i) {
      for (int32_t j = i + 1; j < q.size; ++j) {
        if (state.SameNode(i, j)) continue;
        const int64_t d = state.delta(i, j);
        const int64_t ti = tabu[i * s + p[j]];
        // An empty slot (dummy j) has no tabu state of its own: the task's decides.
        const int64_t tj = j < q.tasks ? tabu[j * s + p[i]] : ti;
        const bool authorized = ti < iter || tj < iter;
        const bool aspired =
            (ti < iter - aspiration && tj < iter - aspiration) || state.cost() + d < best.cost;
        if ((aspired && !aspired_found) || (aspired && aspired_found && d < best_delta) ||
            (!aspired && !aspired_found && authorized && d < best_delta)) {
          br = i;
          bs = j;
          best_delta = d;
          if (aspired) aspired_found = true;
        }
      }
    }
    if (br >= 0) {
      const int32_t old_r = p[br], old_s = p[bs];
      state.Swap(br, bs);
      // Forbid moving each task back to the slot it left.
      auto draw = [&] {
        const double u = random.Unit();
        return iter + static_cast<int64_t>(u * u * u * tenure);
      };
      if (br < q.tasks) tabu[br * s + old_r] = draw();
      if (bs < q.tasks) tabu[bs * s + old_s] = draw();
      if (state.cost() < best.cost) {
        best.cost = state.cost();
        best.perm = state.perm();
      }
    }
    ++iter;
  }
  if (iterations_done != nullptr) *iterations_done = iter - 1;
  return best;
}

absl::StatusOr<MapOutput> MapDense(const MapInput& input, const GraspOptions& options) {
  const absl::Time start_time = absl::Now();
  const DenseQap q = BuildDenseQap(input.graph, input.allocation);
  const std::vector<Stage1Pair> stage1 = Stage1Candidates(q, options, input.options.seed);
  const bool tabu = options.tabu_iterations >= 0;
  const absl::Time grasp_deadline =
      tabu ? start_time + (input.stop.deadline() - start_time) * options.grasp_time_fraction
           : input.stop.deadline();

  // The best distinct GRASP results, ordered by (cost, iteration).
  struct PoolEntry {
    DenseResult result;
    int64_t iteration;
  };
  std::vector<PoolEntry> pool;
  const size_t pool_size = static_cast<size_t>(options.tabu_chains);
  int64_t done = 0;
  while (true) {
    int64_t end = done + options.round_size;
    if (options.max_iterations > 0) end = std::min(end, options.max_iterations);
    if (end <= done) break;
    std::vector<DenseResult> round(end - done);
    tbb::parallel_for(done, end, [&](int64_t k) {
      // Past the deadline only iteration 0 (the required answer) still runs.
      if (k > 0 && input.stop.ShouldStop()) return;
      RandomStream random(input.options.seed, static_cast<uint64_t>(k));
      std::vector<int32_t> perm =
          (k == 0 && input.initial != nullptr)
              ? PermFromMapping(q, *input.initial)
              : DenseConstruct(q, stage1, options.alpha, random, input.stop);
      DenseState state(q, std::move(perm));
      DenseLocalSearch(state, q, input.stop);
      round[k - done] = {state.perm(), state.cost()};
    });
    for (int64_t k = done; k < end; ++k) {
      DenseResult& r = round[k - done];
      if (r.perm.empty()) continue;  // skipped at the deadline
      const bool duplicate = std::any_of(pool.begin(), pool.end(), [&](const PoolEntry& e) {
        return e.result.cost == r.cost && e.result.perm == r.perm;
      });
      if (duplicate) continue;
      pool.push_back({std::move(r), k});
      std::stable_sort(pool.begin(), pool.end(), [](const PoolEntry& a, const PoolEntry& b) {
        return a.result.cost < b.result.cost;
      });
      if (pool.size() > pool_size) pool.pop_back();
    }
    done = end;
    // Hop-bytes are never negative: 0 is optimal, nothing more to search for.
    if (pool.front().result.cost == 0) break;
    if (input.stop.ShouldStop() || absl::Now() >= grasp_deadline) break;
  }

  DenseResult best = pool.front().result;
  std::vector<Statistic> stats = {{"grasp_iterations", static_cast<double>(done)}};
  if (tabu && best.cost > 0) {
    const int used_chains = static_cast<int>(pool.size());
    std::vector<DenseResult> chain_best(used_chains);
    std::vector<int64_t> chain_iterations(used_chains, 0);
    tbb::parallel_for(0, used_chains, [&](int c) {
      RandomStream random(input.options.seed, kTabuStreamBase + static_cast<uint64_t>(c));
      chain_best[c] = RobustTabuSearch(q, pool[c].result.perm, options, random, input.stop,
                                       &chain_iterations[c]);
    });
    int64_t total = 0;
    for (int c = 0; c < used_chains; ++c) {
      total += chain_iterations[c];
      if (chain_best[c].cost < best.cost) best = chain_best[c];
    }
    stats.push_back({"tabu_iterations", static_cast<double>(total)});
    stats.push_back({"tabu_chains", static_cast<double>(used_chains)});
  }
  MapOutput out;
  out.slot_of_task.assign(best.perm.begin(), best.perm.begin() + q.tasks);
  out.stats = std::move(stats);
  return out;
}

absl::StatusOr<MapOutput> MapSparse(const MapInput& input, const GraspOptions& options) {
  std::vector<SlotId> best;
  bool have_best = false;
  HopBytes best_hop_bytes = 0;
  int64_t done = 0;
  while (true) {
    int64_t end = done + options.round_size;
    if (options.max_iterations > 0) end = std::min(end, options.max_iterations);
    if (end <= done) break;
    // (ran, hop-bytes, mapping): iterations after the deadline do not run.
    std::vector<std::tuple<bool, HopBytes, std::vector<SlotId>>> round(end - done);
    tbb::parallel_for(done, end, [&](int64_t k) {
      // Past the deadline only iteration 0 (the required answer) still runs.
      if (k > 0 && input.stop.ShouldStop()) return;
      std::vector<SlotId> start;
      if (k == 0) {
        start = input.initial != nullptr ? *input.initial
                                         : RefineStartMapping(input.graph, input.allocation);
      } else {
        RandomStream random(input.options.seed, static_cast<uint64_t>(k));
        start = GreedyBfsMapping(input.graph, input.allocation, &random, options.sparse_choices);
      }
      Placement placement(input.graph, input.allocation, std::move(start));
      RefinePlacement(placement, options.refine, input.stop);
      round[k - done] = {true, placement.hop_bytes(), std::move(placement).Release()};
    });
    for (int64_t k = done; k < end; ++k) {
      auto& [ran, hop_bytes, mapping] = round[k - done];
      if (!ran) continue;
      if (!have_best || hop_bytes < best_hop_bytes) {
        have_best = true;
        best_hop_bytes = hop_bytes;
        best = std::move(mapping);
      }
    }
    done = end;
    if ((have_best && best_hop_bytes == 0) || input.stop.ShouldStop()) break;
  }
  MapOutput out;
  out.slot_of_task = std::move(best);
  out.variant = "neighbour-only gains";
  out.stats = {{"grasp_iterations", static_cast<double>(done)}};
  return out;
}

}  // namespace

absl::StatusOr<MapOutput> GraspMapper::Map(const MapInput& input) const {
  if (absl::Status s = options_.Validate(); !s.ok()) return s;
  if (absl::Status s = CheckFits(input.graph, input.allocation); !s.ok()) return s;
  if (absl::Status s = CheckHopBytesFit(input.graph, input.allocation); !s.ok()) return s;
  if (input.initial != nullptr) {
    if (absl::Status s = ValidateMapping(input.allocation, input.graph.num_tasks(), *input.initial);
        !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("grasp: the initial mapping is invalid: ", s.message()));
    }
  }
  // MapperOptions::iteration_limit L (a reproducible stop): L GRASP iterations,
  // then L * size tabu iterations per chain, whichever caps are lower.
  GraspOptions options = options_;
  const int64_t limit = input.options.iteration_limit;
  if (limit > 0) {
    options.max_iterations =
        options.max_iterations > 0 ? std::min(options.max_iterations, limit) : limit;
    if (options.tabu_iterations >= 0) {
      const int64_t tabu_cap = limit * input.allocation.num_slots();
      options.tabu_iterations =
          options.tabu_iterations > 0 ? std::min(options.tabu_iterations, tabu_cap) : tabu_cap;
    }
  }
  if (input.allocation.num_slots() <= options.dense_slot_limit) return MapDense(input, options);
  return MapSparse(input, options);
}

}  // namespace hopmap
