#include "core/mappers/construct/ohtma.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/search/placement.h"
#include "tbb/blocked_range.h"
#include "tbb/enumerable_thread_specific.h"
#include "tbb/parallel_for.h"

// Where seed 004 is ambiguous, the choices made here (both implementations share
// them, so they give the same mapping):
//  - A is the task graph's weight w(p, i) (both directions summed; the paper's A is
//    directed). B is hops between slots (processors = cores): 0 within a node, so a
//    node's cores are taken one after another.
//  - Greedy keys are compared exactly: comm_p = sel_p + unsel_p / (1 + k) with
//    k = |P_selected| = |N_selected| is ordered as (1 + k) * sel_p + unsel_p, a
//    128-bit integer; the same for hops_n. Ties go to the lowest task id (largest
//    comm) and the lowest slot id (smallest hops).
//  - Only the |P| greedy-selected processors take part in the exchanges (i, j in P:
//    exchanges are between two tasks, never with an empty slot).
//  - Cost_ij is the exact hop-bytes saving of exchanging i and j: the second sum of
//    the printed formula is evaluated with f after the exchange, so the i-j edge,
//    whose length does not change, cancels (as printed it would overstate the saving
//    by 2 A_ij B_f(i)f(j)). Cost_ij may be negative: like Kernighan-Lin, a step takes
//    the best unmarked pair even when it loses, and the backtrack undoes the tail.
//  - Line 30 ("Status[|P|] <- 1, k <- 1") is read as: mark m and n, k <- k + 1.
//  - The best pair is the largest Cost_ij, ties to the lexicographically smallest
//    (i, j) with i < j. The backtrack keeps the prefix with the largest sum of
//    gains, ties to the shortest (the empty prefix, sum 0, is allowed, so the result
//    is never worse than the start).
//  - A pass ends after `loop` steps or when fewer than two unmarked tasks remain.

namespace hopmap {
namespace {

using Wide = __int128;

// Hops between some positions of the allocation, dense and 16-bit (as Allocation
// keeps them): built once per solve, so that the greedy's row sums and the exchange
// phase read rows of memory instead of asking the machine model (allocations above
// Allocation::kDefaultDenseLimit nodes have no dense matrix of their own).
class PositionHops {
 public:
  // positions[i] is the allocation position of index i. Fails if a hop count does
  // not fit 16 bits.
  static absl::StatusOr<PositionHops> Build(const Allocation& allocation,
                                            std::vector<int32_t> positions) {
    PositionHops table;
    const size_t k = positions.size();
    table.size_ = static_cast<int32_t>(k);
    table.hops_.resize(k * k);
    std::atomic<bool> too_far{false};
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, k, 16), [&](const tbb::blocked_range<size_t>& r) {
          for (size_t a = r.begin(); a < r.end(); ++a) {
            for (size_t b = 0; b < k; ++b) {
              const int32_t h = allocation.HopsBetweenPositions(positions[a], positions[b]);
              if (h > std::numeric_limits<uint16_t>::max()) too_far = true;
              table.hops_[a * k + b] = static_cast<uint16_t>(h);
            }
          }
        });
    if (too_far) return absl::InvalidArgumentError("ohtma: a hop count exceeds 65535");
    table.positions_ = std::move(positions);
    return table;
  }

  [[nodiscard]] int32_t size() const { return size_; }
  [[nodiscard]] const std::vector<int32_t>& positions() const { return positions_; }
  [[nodiscard]] const uint16_t* Row(int32_t i) const {
    return &hops_[static_cast<size_t>(i) * size_];
  }
  [[nodiscard]] int32_t operator()(int32_t i, int32_t j) const { return Row(i)[j]; }

 private:
  int32_t size_ = 0;
  std::vector<int32_t> positions_;
  std::vector<uint16_t> hops_;
};

// The whole allocation's table is built for the greedy when it is not much more work
// than the greedy's own n x positions lookups and fits in memory (8192^2 x 2 bytes).
constexpr int32_t kMaxTablePositions = 8192;

// ----------------------------------------------------------------------------
// Greedy placement (Algorithm 1, steps 1-19).

// Incremental: sel[p] = sum of w(p, i) over selected i, updated for the neighbours
// of the chosen task; unsel[p] = weighted degree - sel[p]. The processor sums depend
// only on the node, so they are kept per allocation position; a node's free cores
// are taken lowest first, the literal algorithm's tie-break.
// `table` (may be null) holds every position of the allocation, in order. When
// `stop` (may be null) fires first, the tasks not yet placed take the free slots in
// id order, so the caller still gets a valid start.
std::vector<SlotId> GreedyIncremental(const TaskGraph& graph, const Allocation& allocation,
                                      const PositionHops* table, const StopCondition* stop) {
  const TaskId n = graph.num_tasks();
  const int32_t positions = allocation.num_nodes();
  const int32_t cores = allocation.cores_per_node();
  std::vector<Bytes> weighted_degree(n);
  for (TaskId t = 0; t < n; ++t) weighted_degree[t] = graph.weighted_degree(t);
  std::vector<Bytes> selected_bytes(n, 0);
  std::vector<uint8_t> task_placed(n, 0);

  // Sum of B over every slot of the allocation, per position. positions^2 hop
  // lookups (2.5e8 for 15,702 nodes): the budget is checked per row (the first row
  // catches a budget already spent), and a stop here falls back to in-order.
  std::vector<int64_t> all_hops(positions);
  std::atomic<bool> stopped{false};
  tbb::parallel_for(
      tbb::blocked_range<int32_t>(0, positions, 16), [&](const tbb::blocked_range<int32_t>& r) {
        for (int32_t q = r.begin(); q < r.end(); ++q) {
          if (stop != nullptr && (stopped.load(std::memory_order_relaxed) || stop->ShouldStop())) {
            stopped.store(true, std::memory_order_relaxed);
            return;
          }
          int64_t sum = 0;
          if (table != nullptr) {
            const uint16_t* row = table->Row(q);
            for (int32_t p = 0; p < positions; ++p) sum += row[p];
          } else {
            for (int32_t p = 0; p < positions; ++p) {
              sum += allocation.HopsBetweenPositions(q, p);
            }
          }
          all_hops[q] = sum * cores;
        }
      });
  if (stopped.load()) {
    std::vector<SlotId> in_order(n);
    std::iota(in_order.begin(), in_order.end(), 0);
    return in_order;
  }
  std::vector<int64_t> selected_hops(positions, 0);
  std::vector<int32_t> next_core(positions, 0);

  std::vector<SlotId> slot_of_task(n, kInvalidSlot);
  for (TaskId k = 0; k < n; ++k) {
    if (stop != nullptr && k % 64 == 63 && stop->ShouldStop()) break;
    const Wide scale = static_cast<Wide>(k) + 1;
    TaskId best_task = kInvalidTask;
    Wide best_comm = 0;
    for (TaskId p = 0; p < n; ++p) {
      if (task_placed[p]) continue;
      const Wide comm = scale * selected_bytes[p] + (weighted_degree[p] - selected_bytes[p]);
      if (best_task == kInvalidTask || comm > best_comm) {
        best_task = p;
        best_comm = comm;
      }
    }
    int32_t best_position = -1;
    Wide best_hops = 0;
    for (int32_t q = 0; q < positions; ++q) {
      if (next_core[q] == cores) continue;
      const Wide hops = scale * selected_hops[q] + (all_hops[q] - selected_hops[q]);
      if (best_position < 0 || hops < best_hops) {
        best_position = q;
        best_hops = hops;
      }
    }
    slot_of_task[best_task] = best_position * cores + next_core[best_position]++;
    task_placed[best_task] = 1;
    graph.ForEachNeighbor(best_task, [&](TaskId u, Bytes w) { selected_bytes[u] += w; });
    if (table != nullptr) {  // hops are symmetric: read the chosen node's row
      const uint16_t* row = table->Row(best_position);
      for (int32_t q = 0; q < positions; ++q) selected_hops[q] += row[q];
    } else {
      for (int32_t q = 0; q < positions; ++q) {
        selected_hops[q] += allocation.HopsBetweenPositions(q, best_position);
      }
    }
  }
  // Stopped early: the remaining tasks take the free slots in order.
  std::vector<uint8_t> slot_used(allocation.num_slots(), 0);
  for (TaskId t = 0; t < n; ++t) {
    if (task_placed[t]) slot_used[slot_of_task[t]] = 1;
  }
  SlotId next_free = 0;
  for (TaskId t = 0; t < n; ++t) {
    if (task_placed[t]) continue;
    while (slot_used[next_free]) ++next_free;
    slot_of_task[t] = next_free++;
  }
  return slot_of_task;
}

// The paper's dense traffic matrix A (n x n, row-major).
std::vector<Bytes> DenseTraffic(const TaskGraph& graph) {
  const int64_t n = graph.num_tasks();
  std::vector<Bytes> dense(static_cast<size_t>(n * n), 0);
  for (TaskId p = 0; p < n; ++p) {
    graph.ForEachNeighbor(p, [&](TaskId u, Bytes w) { dense[p * n + u] = w; });
  }
  return dense;
}

// As written: every step recomputes comm_p for every unselected task from row p of A
// and hops_n for every unselected slot from row n of B, in parallel (the paper's
// OpenMP loops).
std::vector<SlotId> GreedyLiteral(const TaskGraph& graph, const Allocation& allocation,
                                  const std::vector<Bytes>& traffic) {
  const TaskId n = graph.num_tasks();
  const SlotId slots = static_cast<SlotId>(allocation.num_slots());
  std::vector<uint8_t> task_selected(n, 0);
  std::vector<uint8_t> slot_selected(slots, 0);
  std::vector<Wide> comm(n);
  std::vector<Wide> hops(slots);
  std::vector<SlotId> slot_of_task(n, kInvalidSlot);
  for (TaskId k = 0; k < n; ++k) {
    const Wide scale = static_cast<Wide>(k) + 1;
    tbb::parallel_for(tbb::blocked_range<TaskId>(0, n, 16),
                      [&](const tbb::blocked_range<TaskId>& r) {
                        for (TaskId p = r.begin(); p < r.end(); ++p) {
                          if (task_selected[p]) continue;
                          const Bytes* row = &traffic[static_cast<size_t>(p) * n];
                          Bytes selected_sum = 0;
                          Bytes unselected_sum = 0;
                          for (TaskId i = 0; i < n; ++i) {
                            (task_selected[i] ? selected_sum : unselected_sum) += row[i];
                          }
                          comm[p] = scale * selected_sum + unselected_sum;
                        }
                      });
    tbb::parallel_for(tbb::blocked_range<SlotId>(0, slots, 16),
                      [&](const tbb::blocked_range<SlotId>& r) {
                        for (SlotId s = r.begin(); s < r.end(); ++s) {
                          if (slot_selected[s]) continue;
                          int64_t selected_sum = 0;
                          int64_t unselected_sum = 0;
                          for (SlotId j = 0; j < slots; ++j) {
                            (slot_selected[j] ? selected_sum : unselected_sum) +=
                                allocation.HopsBetweenSlots(s, j);
                          }
                          hops[s] = scale * selected_sum + unselected_sum;
                        }
                      });
    TaskId p_max = kInvalidTask;
    for (TaskId p = 0; p < n; ++p) {
      if (!task_selected[p] && (p_max == kInvalidTask || comm[p] > comm[p_max])) p_max = p;
    }
    SlotId n_min = kInvalidSlot;
    for (SlotId s = 0; s < slots; ++s) {
      if (!slot_selected[s] && (n_min == kInvalidSlot || hops[s] < hops[n_min])) n_min = s;
    }
    slot_of_task[p_max] = n_min;
    task_selected[p_max] = 1;
    slot_selected[n_min] = 1;
  }
  return slot_of_task;
}

// ----------------------------------------------------------------------------
// Exchange phase (steps 20-35).

// One pass's exchanges, in order, already applied to the placement.
struct PassLog {
  std::vector<std::pair<TaskId, TaskId>> pairs;
  std::vector<HopBytes> gains;  // Cost_mn of each step: hop-bytes saved (may be < 0)
};

// Pair with the largest gain, ties to the smallest (i, j); gain of a missing pair
// never wins.
struct BestPair {
  HopBytes gain = 0;
  TaskId i = kInvalidTask;
  TaskId j = kInvalidTask;
  [[nodiscard]] bool BeatenBy(HopBytes g, TaskId gi, TaskId gj) const {
    if (i == kInvalidTask) return true;
    if (g != gain) return g > gain;
    return gi != i ? gi < i : gj < j;
  }
};

// The literal exchange pass: every step evaluates Cost_ij for every unmarked pair
// from the dense A and B (O(n) per pair), in parallel over i, then picks the best.
PassLog LiteralPass(Placement& placement, const std::vector<Bytes>& traffic, int64_t max_steps,
                    const StopCondition& stop) {
  const TaskId n = placement.graph().num_tasks();
  const Allocation& allocation = placement.allocation();
  std::vector<uint8_t> marked(n, 0);
  std::vector<BestPair> row_best(n);
  PassLog log;
  for (int64_t step = 0; step < max_steps && !stop.ShouldStop(); ++step) {
    const std::vector<SlotId>& f = placement.slot_of_task();
    tbb::parallel_for(tbb::blocked_range<TaskId>(0, n, 1),
                      [&](const tbb::blocked_range<TaskId>& r) {
                        for (TaskId i = r.begin(); i < r.end(); ++i) {
                          BestPair best;
                          if (!marked[i]) {
                            const Bytes* a_i = &traffic[static_cast<size_t>(i) * n];
                            for (TaskId j = i + 1; j < n; ++j) {
                              if (marked[j]) continue;
                              const Bytes* a_j = &traffic[static_cast<size_t>(j) * n];
                              HopBytes before = 0;
                              HopBytes after = 0;
                              for (TaskId l = 0; l < n; ++l) {
                                const SlotId fl = f[l];
                                before += a_i[l] * allocation.HopsBetweenSlots(f[i], fl) +
                                          a_j[l] * allocation.HopsBetweenSlots(f[j], fl);
                                const SlotId fl_after = l == i ? f[j] : (l == j ? f[i] : fl);
                                after += a_i[l] * allocation.HopsBetweenSlots(f[j], fl_after) +
                                         a_j[l] * allocation.HopsBetweenSlots(f[i], fl_after);
                              }
                              const HopBytes cost = before - after;
                              if (best.BeatenBy(cost, i, j)) best = {cost, i, j};
                            }
                          }
                          row_best[i] = best;
                        }
                      });
    BestPair best;
    for (TaskId i = 0; i < n; ++i) {
      const BestPair& b = row_best[i];
      if (b.i != kInvalidTask && best.BeatenBy(b.gain, b.i, b.j)) best = b;
    }
    if (best.i == kInvalidTask) break;
    placement.SwapSlots(placement.slot_of(best.i), placement.slot_of(best.j), -best.gain);
    marked[best.i] = marked[best.j] = 1;
    log.pairs.emplace_back(best.i, best.j);
    log.gains.push_back(best.gain);
  }
  return log;
}

// The incremental exchange pass. With C_a(s) = sum over neighbours l of a of
// w(a, l) * B(s, f(l)) (a's cost were it on slot s), the gain of exchanging a and b is
//   G(a, b) = H(a, b) + H(b, a) - 2 w(a, b) B(f(a), f(b)),  H(a, b) = C_a(f(a)) - C_a(f(b)).
// Exchanging m and n (slots s_m, s_n) changes C_x only for neighbours x of m or n:
//   dC_x(s) = c_x * d(s), c_x = w(x, m) - w(x, n), d(s) = B(s, s_n) - B(s, s_m),
// and for two unmarked tasks (their slots do not move) the gain changes by
//   dG(a, b) = (c_a - c_b) * (d(f(a)) - d(f(b))),
// nonzero only when a or b neighbours m or n. The gains of unmarked pairs are kept in
// a packed upper triangle with each row's best partner; a row is rescanned only when
// its own task neighbours the exchanged pair or its best partner was just marked or
// lost gain. Exact integers throughout, so the result is the literal pass's.
class IncrementalPass {
 public:
  // `hops` covers every position the placement occupies; index_of_position maps an
  // allocation position to its index in `hops`. The exchange phase only moves tasks
  // between the slots they already occupy, so no other node is needed. Both must
  // outlive the pass.
  IncrementalPass(Placement& placement, const PositionHops& hops,
                  const std::vector<int32_t>& index_of_position);

  PassLog Run(int64_t max_steps, const StopCondition& stop);

 private:
  // Gains of row a (entries b > a), indexed by b.
  HopBytes* Row(TaskId a) {
    const int64_t offset = static_cast<int64_t>(a) * (2 * static_cast<int64_t>(n_) - a - 1) / 2;
    return gains_.data() + offset - (a + 1);
  }
  struct Scratch {
    std::vector<std::pair<Bytes, int32_t>> by_weight;
    std::vector<int32_t> run_sum;
    std::vector<HopBytes> cost_at;  // C_a at the node of each hop index
  };
  void CostsAtEveryNode(TaskId a, Scratch& scratch) const;
  void InitGains();
  void RescanRow(TaskId a);
  // Applies the exchange of (m, n) just made to row a; see Run.
  void UpdateRow(TaskId a, TaskId m, TaskId n);

  Placement* placement_;
  const PositionHops* hops_;
  TaskId n_ = 0;
  std::vector<int32_t> hop_index_of_task_;  // index in hops_ of each task's node
  std::vector<HopBytes> gains_;
  std::vector<HopBytes> best_gain_;
  std::vector<TaskId> best_partner_;  // kInvalidTask: no unmarked partner after a
  std::vector<uint8_t> marked_;
  std::vector<HopBytes> coef_;            // c_x during one step, else 0
  std::vector<int32_t> slot_difference_;  // d(f(b)) during one step
  std::vector<TaskId> changed_;           // tasks with c_x != 0, ascending
};

IncrementalPass::IncrementalPass(Placement& placement, const PositionHops& hops,
                                 const std::vector<int32_t>& index_of_position)
    : placement_(&placement), hops_(&hops), n_(placement.graph().num_tasks()) {
  const Allocation& allocation = placement.allocation();
  hop_index_of_task_.resize(n_);
  for (TaskId t = 0; t < n_; ++t) {
    hop_index_of_task_[t] = index_of_position[allocation.PositionOfSlot(placement.slot_of(t))];
  }
  gains_.resize(static_cast<size_t>(n_) * (n_ - 1) / 2);
  best_gain_.resize(n_);
  best_partner_.resize(n_);
  coef_.assign(n_, 0);
  slot_difference_.assign(n_, 0);
}

void IncrementalPass::CostsAtEveryNode(TaskId a, Scratch& scratch) const {
  // C_a(q) = sum over neighbours l of w(a, l) * B(q, f(l)). Neighbours of equal
  // weight (all of them in the usual stencils and collectives) first add their hop
  // rows in 32 bits, then one multiply per distinct weight: narrow adds vectorise.
  const int32_t k = hops_->size();
  std::vector<std::pair<Bytes, int32_t>>& by_weight = scratch.by_weight;
  std::vector<int32_t>& run_sum = scratch.run_sum;
  std::vector<HopBytes>& cost_at = scratch.cost_at;
  by_weight.clear();
  placement_->graph().ForEachNeighbor(
      a, [&](TaskId l, Bytes w) { by_weight.emplace_back(w, hop_index_of_task_[l]); });
  std::sort(by_weight.begin(), by_weight.end());
  cost_at.assign(k, 0);
  run_sum.resize(k);
  // Up to 32768 rows of hops below 65536 add up to less than 2^31.
  constexpr size_t kMaxRun = 32768;
  for (size_t i = 0; i < by_weight.size();) {
    const Bytes w = by_weight[i].first;
    std::fill(run_sum.begin(), run_sum.end(), 0);
    size_t j = i;
    for (; j < by_weight.size() && by_weight[j].first == w && j - i < kMaxRun; ++j) {
      const uint16_t* row = hops_->Row(by_weight[j].second);
      for (int32_t q = 0; q < k; ++q) run_sum[q] += row[q];
    }
    for (int32_t q = 0; q < k; ++q) cost_at[q] += w * run_sum[q];
    i = j;
  }
}

void IncrementalPass::InitGains() {
  const TaskGraph& graph = placement_->graph();
  marked_.assign(n_, 0);
  std::fill(gains_.begin(), gains_.end(), 0);
  // H(a, b) = C_a(f(a)) - C_a(f(b)) for every b comes from one vector: C_a at every
  // node, a sum of deg(a) rows of the hop table. Each such vector is computed once
  // and its H(a, b) added into entry {a, b} of the triangle; rows go in blocks, in
  // parallel within a block, so that no two tasks add into one entry at once: for b
  // in an earlier block the entry is in b's row (column a: only a writes it now),
  // for b in a later block in a's own row, and pairs inside the block go through a
  // small buffer added afterwards.
  tbb::enumerable_thread_specific<Scratch> scratch;
  constexpr TaskId kBlock = 64;
  std::vector<HopBytes> inside(static_cast<size_t>(kBlock) * kBlock);
  for (TaskId a0 = 0; a0 < n_; a0 += kBlock) {
    const TaskId a1 = std::min<TaskId>(n_, a0 + kBlock);
    tbb::parallel_for(tbb::blocked_range<TaskId>(a0, a1, 4),
                      [&](const tbb::blocked_range<TaskId>& r) {
                        Scratch& local = scratch.local();
                        for (TaskId a = r.begin(); a < r.end(); ++a) {
                          CostsAtEveryNode(a, local);
                          const std::vector<HopBytes>& cost_at = local.cost_at;
                          const HopBytes current = cost_at[hop_index_of_task_[a]];
                          for (TaskId b = 0; b < a0; ++b) {
                            Row(b)[a] += current - cost_at[hop_index_of_task_[b]];
                          }
                          HopBytes* in = &inside[static_cast<size_t>(a - a0) * kBlock];
                          for (TaskId b = a0; b < a1; ++b) {
                            in[b - a0] = current - cost_at[hop_index_of_task_[b]];
                          }
                          HopBytes* row = Row(a);
                          for (TaskId b = a1; b < n_; ++b)
                            row[b] += current - cost_at[hop_index_of_task_[b]];
                        }
                      });
    for (TaskId a = a0; a < a1; ++a) {
      HopBytes* row = Row(a);
      for (TaskId b = a + 1; b < a1; ++b) {
        row[b] += inside[static_cast<size_t>(a - a0) * kBlock + (b - a0)] +
                  inside[static_cast<size_t>(b - a0) * kBlock + (a - a0)];
      }
    }
  }
  // The a-b edge keeps its length: -2 w(a, b) B(f(a), f(b)); then each row's best.
  tbb::parallel_for(tbb::blocked_range<TaskId>(0, n_, 16),
                    [&](const tbb::blocked_range<TaskId>& r) {
                      for (TaskId a = r.begin(); a < r.end(); ++a) {
                        HopBytes* row = Row(a);
                        const uint16_t* hops_a = hops_->Row(hop_index_of_task_[a]);
                        graph.ForEachNeighbor(a, [&](TaskId b, Bytes w) {
                          if (b > a) row[b] -= 2 * w * hops_a[hop_index_of_task_[b]];
                        });
                        RescanRow(a);
                      }
                    });
}

void IncrementalPass::RescanRow(TaskId a) {
  const HopBytes* row = Row(a);
  TaskId best = kInvalidTask;
  HopBytes best_gain = 0;
  for (TaskId b = a + 1; b < n_; ++b) {
    if (marked_[b]) continue;
    if (best == kInvalidTask || row[b] > best_gain) {
      best = b;
      best_gain = row[b];
    }
  }
  best_partner_[a] = best;
  best_gain_[a] = best_gain;
}

void IncrementalPass::UpdateRow(TaskId a, TaskId m, TaskId n) {
  HopBytes* row = Row(a);
  const HopBytes ca = coef_[a];
  const int32_t da = slot_difference_[a];
  if (ca != 0) {
    // Every entry of the row moves. Marked partners' entries are updated too (never
    // read again, and a loop without the test vectorises), then the row is rescanned.
    for (TaskId b = a + 1; b < n_; ++b) row[b] += (ca - coef_[b]) * (da - slot_difference_[b]);
    RescanRow(a);
    return;
  }
  bool rescan = best_partner_[a] == m || best_partner_[a] == n;
  for (auto it = std::upper_bound(changed_.begin(), changed_.end(), a); it != changed_.end();
       ++it) {
    const TaskId b = *it;
    const HopBytes gain = row[b] += -coef_[b] * (da - slot_difference_[b]);
    if (rescan) continue;
    if (b == best_partner_[a]) {
      if (gain < best_gain_[a]) {
        rescan = true;  // another entry may now be the best
      } else {
        best_gain_[a] = gain;
      }
    } else if (gain > best_gain_[a] || (gain == best_gain_[a] && b < best_partner_[a])) {
      best_gain_[a] = gain;
      best_partner_[a] = b;
    }
  }
  if (rescan) RescanRow(a);
}

PassLog IncrementalPass::Run(int64_t max_steps, const StopCondition& stop) {
  const TaskGraph& graph = placement_->graph();
  InitGains();
  PassLog log;
  std::vector<uint8_t> in_changed(n_, 0);
  std::vector<TaskId> touched;
  for (int64_t step = 0; step < max_steps && !stop.ShouldStop(); ++step) {
    BestPair best;
    for (TaskId a = 0; a < n_; ++a) {
      if (!marked_[a] && best_partner_[a] != kInvalidTask &&
          best.BeatenBy(best_gain_[a], a, best_partner_[a])) {
        best = {best_gain_[a], a, best_partner_[a]};
      }
    }
    if (best.i == kInvalidTask) break;
    const TaskId m = best.i;
    const TaskId n = best.j;
    const uint16_t* hops_from_m = hops_->Row(hop_index_of_task_[m]);
    const uint16_t* hops_from_n = hops_->Row(hop_index_of_task_[n]);
    placement_->SwapSlots(placement_->slot_of(m), placement_->slot_of(n), -best.gain);
    std::swap(hop_index_of_task_[m], hop_index_of_task_[n]);
    marked_[m] = marked_[n] = 1;
    log.pairs.emplace_back(m, n);
    log.gains.push_back(best.gain);

    touched.clear();
    auto add = [&](TaskId x, HopBytes w) {
      if (marked_[x]) return;
      if (!in_changed[x]) {
        in_changed[x] = 1;
        touched.push_back(x);
      }
      coef_[x] += w;
    };
    graph.ForEachNeighbor(m, [&](TaskId x, Bytes w) { add(x, w); });
    graph.ForEachNeighbor(n, [&](TaskId x, Bytes w) { add(x, -w); });
    changed_.clear();
    for (TaskId x : touched) {
      if (coef_[x] != 0) changed_.push_back(x);
    }
    std::sort(changed_.begin(), changed_.end());
    if (!changed_.empty()) {
      // d(f(b)) = B(old slot of n, f(b)) - B(old slot of m, f(b)), read along rows.
      tbb::parallel_for(tbb::blocked_range<TaskId>(0, n_, 1024),
                        [&](const tbb::blocked_range<TaskId>& r) {
                          for (TaskId b = r.begin(); b < r.end(); ++b) {
                            if (marked_[b]) continue;
                            const int32_t hb = hop_index_of_task_[b];
                            slot_difference_[b] = hops_from_n[hb] - hops_from_m[hb];
                          }
                        });
    }
    tbb::parallel_for(tbb::blocked_range<TaskId>(0, n_, 32),
                      [&](const tbb::blocked_range<TaskId>& r) {
                        for (TaskId a = r.begin(); a < r.end(); ++a) {
                          if (!marked_[a]) UpdateRow(a, m, n);
                        }
                      });
    for (TaskId x : touched) {
      coef_[x] = 0;
      in_changed[x] = 0;
    }
  }
  return log;
}

// Steps 33-35: keeps the prefix of the pass with the largest total gain (ties to the
// shortest) and undoes the rest. Returns the number of exchanges kept.
size_t BacktrackToBestPrefix(Placement& placement, const PassLog& log) {
  HopBytes sum = 0;
  HopBytes best_sum = 0;
  size_t keep = 0;
  for (size_t s = 0; s < log.gains.size(); ++s) {
    sum += log.gains[s];
    if (sum > best_sum) {
      best_sum = sum;
      keep = s + 1;
    }
  }
  for (size_t s = log.gains.size(); s-- > keep;) {
    const auto [i, j] = log.pairs[s];
    placement.SwapSlots(placement.slot_of(i), placement.slot_of(j), log.gains[s]);
  }
  return keep;
}

}  // namespace

absl::Status OhtmaOptions::Validate() const {
  if (exchange_steps < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ohtma: exchange_steps must be >= 0 (0: half the tasks), got ", exchange_steps));
  }
  if (passes < 1) {
    return absl::InvalidArgumentError(absl::StrCat("ohtma: passes must be >= 1, got ", passes));
  }
  if (max_tasks < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("ohtma: max_tasks must be >= 1, got ", max_tasks));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<SlotId>> OhtmaGreedyPlacement(const TaskGraph& graph,
                                                         const Allocation& allocation,
                                                         bool literal) {
  if (absl::Status s = CheckFits(graph, allocation); !s.ok()) return s;
  if (literal) return GreedyLiteral(graph, allocation, DenseTraffic(graph));
  return GreedyIncremental(graph, allocation, /*table=*/nullptr, /*stop=*/nullptr);
}

absl::StatusOr<MapOutput> OhtmaMapper::Map(const MapInput& input) const {
  if (absl::Status s = options_.Validate(); !s.ok()) return s;
  const TaskGraph& graph = input.graph;
  const Allocation& allocation = input.allocation;
  if (absl::Status s = CheckFits(graph, allocation); !s.ok()) return s;
  const TaskId n = graph.num_tasks();
  if (n > options_.max_tasks) {
    return absl::ResourceExhaustedError(
        absl::StrCat("ohtma keeps the exchange gain of every pair of tasks: ", n,
                     " tasks is more than its ", options_.max_tasks, "-task limit"));
  }
  MapOutput out;
  if (n == 0) return out;

  std::vector<Bytes> traffic;
  if (options_.literal) traffic = DenseTraffic(graph);
  std::vector<SlotId> start;
  if (input.initial != nullptr) {
    if (absl::Status s = ValidateMapping(allocation, n, *input.initial); !s.ok()) return s;
    start = *input.initial;
  } else if (options_.literal) {
    start = GreedyLiteral(graph, allocation, traffic);
  }
  const int32_t positions = allocation.num_nodes();
  std::optional<PositionHops> all_positions;
  if (!options_.literal && positions <= kMaxTablePositions &&
      static_cast<int64_t>(positions) <= 4 * static_cast<int64_t>(n)) {
    std::vector<int32_t> every(positions);
    std::iota(every.begin(), every.end(), 0);
    absl::StatusOr<PositionHops> table = PositionHops::Build(allocation, std::move(every));
    if (!table.ok()) return table.status();
    all_positions = *std::move(table);
  }
  if (input.initial == nullptr && !options_.literal) {
    start = GreedyIncremental(graph, allocation, all_positions ? &*all_positions : nullptr,
                              &input.stop);
  }

  Placement placement(graph, allocation, std::move(start));
  // The exchange phase's hop table: the nodes the tasks occupy (the whole table when
  // they occupy every node).
  std::vector<int32_t> index_of_position(positions, -1);
  std::optional<PositionHops> exchange_hops;
  if (!options_.literal) {
    std::vector<int32_t> occupied;
    for (TaskId t = 0; t < n; ++t) {
      index_of_position[allocation.PositionOfSlot(placement.slot_of(t))] = 0;
    }
    for (int32_t q = 0; q < positions; ++q) {
      if (index_of_position[q] == 0) {
        index_of_position[q] = static_cast<int32_t>(occupied.size());
        occupied.push_back(q);
      }
    }
    if (all_positions && occupied.size() == static_cast<size_t>(positions)) {
      exchange_hops = std::move(all_positions);
    } else {
      all_positions.reset();
      absl::StatusOr<PositionHops> table = PositionHops::Build(allocation, std::move(occupied));
      if (!table.ok()) return table.status();
      exchange_hops = *std::move(table);
    }
  }
  const int64_t steps = options_.exchange_steps > 0 ? options_.exchange_steps : n / 2;
  size_t kept = 0;
  size_t made = 0;
  for (int32_t pass = 0; pass < options_.passes && !input.stop.ShouldStop(); ++pass) {
    PassLog log;
    if (options_.literal) {
      log = LiteralPass(placement, traffic, steps, input.stop);
    } else {
      IncrementalPass incremental(placement, *exchange_hops, index_of_position);
      log = incremental.Run(steps, input.stop);
    }
    const size_t kept_now = BacktrackToBestPrefix(placement, log);
    kept += kept_now;
    made += log.gains.size();
    if (kept_now == 0) break;
  }
  out.variant = input.initial != nullptr ? "from initial" : "from greedy";
  out.stats = {{"exchanges_kept", static_cast<double>(kept)},
               {"exchanges_found", static_cast<double>(made)}};
  out.slot_of_task = std::move(placement).Release();
  return out;
}

}  // namespace hopmap
