#include "core/mappers/local_search/exact.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/mappers/local_search/refine.h"
#include "core/metrics/gilmore_lawler.h"
#include "core/metrics/hop_bytes.h"
#include "core/search/placement.h"
#include "core/search/random_stream.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"

namespace hopmap {
namespace {

constexpr HopBytes kNoCost = std::numeric_limits<HopBytes>::max();
// The subtrees below this depth are the parallel work items.
constexpr int32_t kPrefixDepth = 2;
// How many nodes a search visits between looks at the clock.
constexpr int64_t kNodesBetweenStopChecks = 256;

// Sum of every row's cost in doubled units stays below this (see the overflow check).
constexpr int64_t kMaxDoubledTotal = int64_t{1} << 60;

// The problem in search order: depth d places task order[d].
struct Problem {
  int32_t n = 0;      // tasks
  int32_t slots = 0;  // slots (all of them, empty ones included)
  int32_t cores = 1;  // cores per node
  int32_t positions = 0;
  std::vector<TaskId> order;
  std::vector<int64_t> weight;  // n x n, depth-numbered, 0 on the diagonal
  std::vector<int64_t> hops;    // slots x slots
  // For depth i: the other depths j with weight > 0, heaviest first (ties by j).
  std::vector<std::vector<int32_t>> heaviest;
  // For slot k: the other slots, nearest first (ties by slot).
  std::vector<std::vector<int32_t>> nearest;
  // For each position, the previous position with the same hops to every other
  // position (a twin: e.g. two nodes under one fat-tree leaf switch), or -1.
  std::vector<int32_t> previous_twin;

  [[nodiscard]] int64_t w(int32_t i, int32_t j) const {
    return weight[static_cast<size_t>(i) * n + j];
  }
  [[nodiscard]] int64_t h(int32_t k, int32_t l) const {
    return hops[static_cast<size_t>(k) * slots + l];
  }
};

// Heaviest-connected first: start from the largest weighted degree, then always the
// task with the most weight to those already ordered (ties: weighted degree, id).
std::vector<TaskId> SearchOrder(const TaskGraph& graph) {
  const TaskId n = graph.num_tasks();
  std::vector<Bytes> degree(n), to_ordered(n, 0);
  for (TaskId u = 0; u < n; ++u) degree[u] = graph.weighted_degree(u);
  std::vector<char> done(n, 0);
  std::vector<TaskId> order;
  order.reserve(n);
  for (TaskId step = 0; step < n; ++step) {
    TaskId best = -1;
    for (TaskId u = 0; u < n; ++u) {
      if (done[u]) continue;
      if (best < 0 || to_ordered[u] > to_ordered[best] ||
          (to_ordered[u] == to_ordered[best] && degree[u] > degree[best])) {
        best = u;
      }
    }
    done[best] = 1;
    order.push_back(best);
    graph.ForEachNeighbor(best, [&](TaskId v, Bytes w) { to_ordered[v] += w; });
  }
  return order;
}

Problem BuildProblem(const TaskGraph& graph, const Allocation& allocation) {
  Problem p;
  p.n = graph.num_tasks();
  p.slots = static_cast<int32_t>(allocation.num_slots());
  p.cores = allocation.cores_per_node();
  p.positions = allocation.num_nodes();
  p.order = SearchOrder(graph);
  std::vector<int32_t> depth_of(p.n);
  for (int32_t d = 0; d < p.n; ++d) depth_of[p.order[d]] = d;
  p.weight.assign(static_cast<size_t>(p.n) * p.n, 0);
  for (TaskId u = 0; u < p.n; ++u) {
    graph.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
      p.weight[static_cast<size_t>(depth_of[u]) * p.n + depth_of[v]] = w;
    });
  }
  p.hops.resize(static_cast<size_t>(p.slots) * p.slots);
  for (int32_t k = 0; k < p.slots; ++k) {
    for (int32_t l = 0; l < p.slots; ++l) {
      p.hops[static_cast<size_t>(k) * p.slots + l] = allocation.HopsBetweenSlots(k, l);
    }
  }
  p.heaviest.resize(p.n);
  for (int32_t i = 0; i < p.n; ++i) {
    for (int32_t j = 0; j < p.n; ++j) {
      if (j != i && p.w(i, j) > 0) p.heaviest[i].push_back(j);
    }
    std::sort(p.heaviest[i].begin(), p.heaviest[i].end(), [&](int32_t a, int32_t b) {
      return p.w(i, a) != p.w(i, b) ? p.w(i, a) > p.w(i, b) : a < b;
    });
  }
  // Twins: positions a < b with hops(a, c) == hops(b, c) for every other c. Hops are
  // symmetric, so exchanging the contents of two empty twins changes no cost.
  p.previous_twin.assign(p.positions, -1);
  for (int32_t b = 0; b < p.positions; ++b) {
    for (int32_t a = b - 1; a >= 0 && p.previous_twin[b] < 0; --a) {
      bool twin = true;
      for (int32_t c = 0; c < p.positions && twin; ++c) {
        if (c != a && c != b) {
          twin = allocation.HopsBetweenPositions(a, c) == allocation.HopsBetweenPositions(b, c);
        }
      }
      if (twin) p.previous_twin[b] = a;
    }
  }
  p.nearest.resize(p.slots);
  for (int32_t k = 0; k < p.slots; ++k) {
    for (int32_t l = 0; l < p.slots; ++l) {
      if (l != k) p.nearest[k].push_back(l);
    }
    std::sort(p.nearest[k].begin(), p.nearest[k].end(), [&](int32_t a, int32_t b) {
      return p.h(k, a) != p.h(k, b) ? p.h(k, a) < p.h(k, b) : a < b;
    });
  }
  return p;
}

// One child of a search node: the task of this depth on `slot`, and its bound.
struct Child {
  HopBytes bound;
  int32_t slot;
};

// Depth-first branch and bound below one prefix. Not thread-safe: one per work item.
class Search {
 public:
  Search(const Problem& problem, const StopCondition& stop, std::atomic<HopBytes>& shared_best,
         std::atomic<bool>& stopped, HopBytes own_best)
      : p_(problem),
        stop_(stop),
        shared_best_(shared_best),
        stopped_(stopped),
        own_best_(own_best),
        slot_of_(problem.n, -1),
        used_(problem.slots, 0),
        tasks_on_(problem.positions, 0),
        linear_(static_cast<size_t>(problem.n) * problem.slots, 0),
        children_(problem.n + 1) {}

  // Places depth `depth()` on `slot`.
  void Assign(int32_t slot) {
    const int32_t d = depth_;
    fixed_ += linear_[static_cast<size_t>(d) * p_.slots + slot];
    slot_of_[d] = slot;
    used_[slot] = 1;
    ++tasks_on_[slot / p_.cores];
    for (int32_t i = d + 1; i < p_.n; ++i) {
      const int64_t w = p_.w(i, d);
      if (w == 0) continue;
      int64_t* row = &linear_[static_cast<size_t>(i) * p_.slots];
      for (int32_t l = 0; l < p_.slots; ++l) row[l] += w * p_.h(l, slot);
    }
    ++depth_;
  }
  void Unassign() {
    const int32_t d = --depth_;
    const int32_t slot = slot_of_[d];
    for (int32_t i = d + 1; i < p_.n; ++i) {
      const int64_t w = p_.w(i, d);
      if (w == 0) continue;
      int64_t* row = &linear_[static_cast<size_t>(i) * p_.slots];
      for (int32_t l = 0; l < p_.slots; ++l) row[l] -= w * p_.h(l, slot);
    }
    used_[slot] = 0;
    --tasks_on_[slot / p_.cores];
    slot_of_[d] = -1;
    fixed_ -= linear_[static_cast<size_t>(d) * p_.slots + slot];
  }

  // The children of the current node that survive `limit` (bound < limit), with
  // their bounds, cheapest first (ties by slot). Only the lowest free core of each
  // node is tried: free cores of one node are interchangeable. Likewise an empty node
  // whose previous twin is empty too is skipped: the twin's branch covers it.
  std::vector<Child>& Children(HopBytes limit) {
    std::vector<Child>& out = children_[depth_];
    out.clear();
    const int32_t d = depth_;
    PrepareWeights();
    for (int32_t position = 0; position < p_.positions; ++position) {
      if (tasks_on_[position] == 0) {
        const int32_t twin = p_.previous_twin[position];
        if (twin >= 0 && tasks_on_[twin] == 0) continue;
      }
      int32_t slot = -1;
      for (int32_t c = 0; c < p_.cores; ++c) {
        const int32_t s = position * p_.cores + c;
        if (!used_[s]) {
          slot = s;
          break;
        }
      }
      if (slot < 0) continue;
      const HopBytes bound =
          fixed_ + linear_[static_cast<size_t>(d) * p_.slots + slot] + RemainingBound(slot);
      if (bound < limit) out.push_back({bound, slot});
    }
    std::sort(out.begin(), out.end(), [](const Child& a, const Child& b) {
      return a.bound != b.bound ? a.bound < b.bound : a.slot < b.slot;
    });
    return out;
  }

  // The pruning limit: children must beat this one's own best, and may not be
  // strictly worse than the best any item found (equal is kept, so this item finds
  // its own first optimal leaf whatever the others do).
  [[nodiscard]] HopBytes Limit() const {
    const HopBytes shared = shared_best_.load(std::memory_order_relaxed);
    return std::min(own_best_, shared == kNoCost ? kNoCost : shared + 1);
  }

  // Searches the subtree below the current node. Returns false when stopped.
  bool Run() {
    if (depth_ == p_.n) {
      if (fixed_ < own_best_) {
        own_best_ = fixed_;
        best_slots_ = slot_of_;
        HopBytes seen = shared_best_.load(std::memory_order_relaxed);
        while (fixed_ < seen && !shared_best_.compare_exchange_weak(seen, fixed_)) {
        }
      }
      return true;
    }
    if (nodes_++ % kNodesBetweenStopChecks == 0) {
      if (stopped_.load(std::memory_order_relaxed) || stop_.ShouldStop()) {
        stopped_.store(true, std::memory_order_relaxed);
      }
    }
    if (stopped_.load(std::memory_order_relaxed)) return false;
    std::vector<Child>& children = Children(Limit());
    for (size_t c = 0; c < children.size(); ++c) {
      if (children[c].bound >= Limit()) break;  // sorted: the rest cannot do better
      Assign(children[c].slot);
      const bool finished = Run();
      Unassign();
      if (!finished) return false;
    }
    return true;
  }

  [[nodiscard]] int32_t depth() const { return depth_; }
  [[nodiscard]] HopBytes own_best() const { return own_best_; }
  [[nodiscard]] const std::vector<int32_t>& best_slots() const { return best_slots_; }
  [[nodiscard]] const std::vector<int32_t>& slot_of() const { return slot_of_; }
  [[nodiscard]] int64_t nodes() const { return nodes_; }

 private:
  // For each unplaced depth i below the next one, its weights to the other unplaced
  // depths (> depth_ once the child is placed), heaviest first.
  void PrepareWeights() {
    const int32_t first = depth_ + 1;
    weights_.resize(p_.n);
    for (int32_t i = first; i < p_.n; ++i) {
      std::vector<int64_t>& list = weights_[i];
      list.clear();
      for (int32_t j : p_.heaviest[i]) {
        if (j >= first) list.push_back(p_.w(i, j));
      }
    }
  }

  // Lower bound on the cost the unplaced depths (> depth_) add once depth_ sits on
  // `slot`: in doubled units, task i on free slot l costs 2 x (its edges to placed
  // tasks, exactly) + the minimal scalar product of its weights to the other unplaced
  // tasks with l's distances to the other free slots; an assignment of those
  // costs, halved and rounded up.
  HopBytes RemainingBound(int32_t slot) {
    const int32_t first = depth_ + 1;
    const int32_t rows = p_.n - first;
    if (rows == 0) return 0;
    const int32_t d = depth_;
    columns_.clear();
    for (int32_t l = 0; l < p_.slots; ++l) {
      if (!used_[l] && l != slot) columns_.push_back(l);
    }
    const int32_t cols = static_cast<int32_t>(columns_.size());
    size_t longest = 0;
    for (int32_t i = first; i < p_.n; ++i) longest = std::max(longest, weights_[i].size());
    cost_.resize(static_cast<size_t>(rows) * cols);
    for (int32_t c = 0; c < cols; ++c) {
      const int32_t l = columns_[c];
      // l's distances to the other free slots (the child's slot is taken), nearest first.
      distances_.clear();
      for (int32_t m : p_.nearest[l]) {
        if (distances_.size() == longest) break;
        if (!used_[m] && m != slot) distances_.push_back(p_.h(l, m));
      }
      const int64_t to_slot = p_.h(l, slot);
      for (int32_t r = 0; r < rows; ++r) {
        const int32_t i = first + r;
        const std::vector<int64_t>& w = weights_[i];
        int64_t quadratic = 0;
        for (size_t k = 0; k < w.size(); ++k) quadratic += w[k] * distances_[k];
        const int64_t linear =
            linear_[static_cast<size_t>(i) * p_.slots + l] + p_.w(i, d) * to_slot;
        cost_[static_cast<size_t>(r) * cols + c] = 2 * linear + quadratic;
      }
    }
    const int64_t twice = solver_.Solve(rows, cols, cost_);
    return (twice + 1) / 2;
  }

  const Problem& p_;
  const StopCondition& stop_;
  std::atomic<HopBytes>& shared_best_;
  std::atomic<bool>& stopped_;
  HopBytes own_best_;
  std::vector<int32_t> best_slots_;

  int32_t depth_ = 0;
  HopBytes fixed_ = 0;  // hop-bytes among placed depths
  std::vector<int32_t> slot_of_;
  std::vector<char> used_;
  std::vector<int32_t> tasks_on_;  // tasks per position
  // linear_[i][l]: hop-bytes of depth i's edges to placed depths if i sat on slot l.
  std::vector<int64_t> linear_;
  std::vector<std::vector<Child>> children_;  // per depth
  std::vector<std::vector<int64_t>> weights_;
  std::vector<int32_t> columns_;
  std::vector<int64_t> distances_;
  std::vector<int64_t> cost_;
  LinearAssignmentSolver solver_;
  int64_t nodes_ = 0;
};

// The incumbent: the best local optimum from the caller's mapping, in-order and
// seeded random starts (lowest start index on ties).
std::pair<HopBytes, std::vector<SlotId>> Incumbent(const MapInput& input,
                                                   const ExactOptions& options) {
  const TaskId n = input.graph.num_tasks();
  const int64_t slots = input.allocation.num_slots();
  const int starts = options.local_search ? options.local_search_starts + 2 : 2;
  std::vector<HopBytes> cost(starts, kNoCost);
  std::vector<std::vector<SlotId>> mapping(starts);
  tbb::parallel_for(tbb::blocked_range<int>(0, starts, 1), [&](const tbb::blocked_range<int>& r) {
    for (int s = r.begin(); s < r.end(); ++s) {
      std::vector<SlotId> start;
      if (s == 0) {
        if (input.initial == nullptr) continue;
        start = *input.initial;
      } else {
        start.resize(slots);
        std::iota(start.begin(), start.end(), 0);
        if (s > 1) {
          RandomStream random(input.options.seed, static_cast<uint64_t>(s));
          random.Shuffle(std::span<SlotId>(start));
        }
        start.resize(n);
      }
      Placement placement(input.graph, input.allocation, std::move(start));
      // exact refuses more than kExactMaxSlots, so refine tries every pair of slots:
      // a 2-exchange local optimum.
      static_assert(kExactMaxSlots <= RefineOptions{}.all_pairs_slot_limit);
      if (options.local_search) RefinePlacement(placement, RefineOptions{}, input.stop);
      cost[s] = placement.hop_bytes();
      mapping[s] = std::move(placement).Release();
    }
  });
  int best = -1;
  for (int s = 0; s < starts; ++s) {
    if (cost[s] != kNoCost && (best < 0 || cost[s] < cost[best])) best = s;
  }
  return {cost[best], std::move(mapping[best])};
}

// A work item: a placement of the first depths, and its bound.
struct Prefix {
  HopBytes bound;
  std::vector<int32_t> slots;
};

// Each node computes its children's bounds (an assignment problem), and the first
// depths of a large allocation have many nodes (176 slots: 30,800 at depth 2), so
// the budget is checked at every node: a stop leaves the prefixes found so far and
// sets `stopped`, which ends every search started from them at once.
void CollectPrefixes(Search& search, int32_t depth_limit, HopBytes limit, const StopCondition& stop,
                     std::atomic<bool>& stopped, std::vector<Prefix>& out) {
  if (search.depth() == depth_limit) {
    return;
  }
  if (stopped.load(std::memory_order_relaxed) || stop.ShouldStop()) {
    stopped.store(true, std::memory_order_relaxed);
    return;
  }
  // Copy: the per-depth buffer is reused by the recursion.
  const std::vector<Child> children = search.Children(limit);
  for (const Child& child : children) {
    search.Assign(child.slot);
    if (search.depth() == depth_limit) {
      out.push_back({child.bound, std::vector<int32_t>(search.slot_of().begin(),
                                                       search.slot_of().begin() + depth_limit)});
    } else {
      CollectPrefixes(search, depth_limit, limit, stop, stopped, out);
    }
    search.Unassign();
  }
}

}  // namespace

absl::Status ExactOptions::Validate() const {
  if (local_search_starts < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("exact: local_search_starts must be >= 0, got ", local_search_starts));
  }
  return absl::OkStatus();
}

absl::StatusOr<MapOutput> ExactMapper::Map(const MapInput& input) const {
  if (absl::Status s = options_.Validate(); !s.ok()) return s;
  const TaskGraph& graph = input.graph;
  const Allocation& allocation = input.allocation;
  if (absl::Status s = CheckFits(graph, allocation); !s.ok()) return s;
  const TaskId n = graph.num_tasks();
  if (n > kExactMaxTasks) {
    return absl::ResourceExhaustedError(
        absl::StrCat("exact: ", n, " tasks is above the ", kExactMaxTasks,
                     " this branch and bound can prove within a solve's budget (use grasp or "
                     "auto for larger graphs)"));
  }
  if (allocation.num_slots() > kExactMaxSlots) {
    return absl::ResourceExhaustedError(
        absl::StrCat("exact: ", allocation.num_slots(), " slots is above the ", kExactMaxSlots,
                     " this branch and bound handles (allocate fewer nodes or cores)"));
  }
  if (absl::Status s = CheckHopBytesFit(graph, allocation); !s.ok()) return s;
  const int64_t diameter = std::max(allocation.machine().max_hops(), 1);
  if (graph.total_bytes() > kMaxDoubledTotal / 2 / diameter) {
    return absl::FailedPreconditionError(
        absl::StrCat("exact: total bytes ", graph.total_bytes(), " x diameter ", diameter,
                     " is too large for the bound's 64-bit sums; scale the weights down"));
  }
  MapOutput out;
  if (n == 0) {
    out.variant = "proven";
    return out;
  }
  // Not a structured binding: the lambdas below capture the cost, which clang
  // before 16 refuses for bindings (the fuzz build compiles with clang 14).
  auto incumbent_pair = Incumbent(input, options_);
  const HopBytes incumbent_cost = incumbent_pair.first;
  auto& incumbent = incumbent_pair.second;

  const Problem problem = BuildProblem(graph, allocation);
  std::atomic<HopBytes> shared_best{kNoCost};
  std::atomic<bool> stopped{false};
  // Work items: the surviving placements of the first depths, most promising first.
  std::vector<Prefix> prefixes;
  {
    Search root(problem, input.stop, shared_best, stopped, incumbent_cost);
    CollectPrefixes(root, std::min<int32_t>(kPrefixDepth, n), incumbent_cost, input.stop, stopped,
                    prefixes);
  }
  std::stable_sort(prefixes.begin(), prefixes.end(),
                   [](const Prefix& a, const Prefix& b) { return a.bound < b.bound; });
  std::vector<HopBytes> item_best(prefixes.size(), kNoCost);
  std::vector<std::vector<int32_t>> item_slots(prefixes.size());
  tbb::parallel_for(tbb::blocked_range<size_t>(0, prefixes.size(), 1),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t item = r.begin(); item < r.end(); ++item) {
                        // Strictly worse than a found solution: nothing to find here.
                        const HopBytes shared = shared_best.load(std::memory_order_relaxed);
                        if (prefixes[item].bound >= incumbent_cost ||
                            (shared != kNoCost && prefixes[item].bound > shared)) {
                          continue;
                        }
                        Search search(problem, input.stop, shared_best, stopped, incumbent_cost);
                        for (int32_t slot : prefixes[item].slots) search.Assign(slot);
                        search.Run();
                        if (search.own_best() < incumbent_cost) {
                          item_best[item] = search.own_best();
                          item_slots[item] = search.best_slots();
                        }
                      }
                    });
  // The best, first item on ties; the incumbent when no item beat it.
  size_t winner = prefixes.size();
  for (size_t item = 0; item < prefixes.size(); ++item) {
    if (item_best[item] != kNoCost &&
        (winner == prefixes.size() || item_best[item] < item_best[winner])) {
      winner = item;
    }
  }
  if (winner == prefixes.size()) {
    out.slot_of_task = std::move(incumbent);
  } else {
    out.slot_of_task.assign(n, -1);
    for (int32_t d = 0; d < n; ++d) out.slot_of_task[problem.order[d]] = item_slots[winner][d];
  }
  out.variant = stopped.load() ? "not proven" : "proven";
  return out;
}

}  // namespace hopmap
