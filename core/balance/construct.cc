#include "core/balance/construct.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <numeric>
#include <queue>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/bisection/bisection.h"
#include "core/bisection/metis_adapter.h"

namespace hopmap {
namespace {

// Objects in breadth-first order (components by lowest id), cut into `parts` runs
// of about equal load.
std::vector<int32_t> BreadthFirstRuns(const BalanceInput& input, int32_t parts) {
  const TaskId n = input.graph.num_tasks();
  const std::vector<TaskId> order = BreadthFirstOrder(input.graph);
  double total = 0;
  for (TaskId t = 0; t < n; ++t) total += LoadOf(input, t);
  std::vector<int32_t> part(n, 0);
  double before = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const TaskId t = order[i];
    const double load = LoadOf(input, t);
    const double mid = total > 0 ? (before + load / 2) / total
                                 : (static_cast<double>(i) + 0.5) / static_cast<double>(n);
    part[t] = std::min<int32_t>(parts - 1, static_cast<int32_t>(mid * parts));
    before += load;
  }
  return part;
}

// METIS k-way parts with the loads as vertex weights; false when METIS cannot run.
bool MetisParts(const BalanceInput& input, int32_t parts, double imbalance, uint64_t seed,
                std::vector<int32_t>& part) {
  const TaskGraph& graph = input.graph;
  if (graph.num_edges() == 0) return false;
  absl::StatusOr<MetisCsr> csr = MetisCsrOf(graph);  // fails when it does not fit METIS
  if (!csr.ok()) return false;
  const std::vector<int32_t> vwgt = MetisLoadWeights(input);
  MetisPartitionOptions metis;
  metis.method = MetisMethod::kKway;
  metis.parts = parts;
  metis.seed = seed;
  metis.imbalance = imbalance;
  std::vector<int32_t> metis_part(graph.num_tasks(), 0);
  if (!MetisPartition({csr->xadj, csr->adjncy, csr->adjwgt, vwgt}, metis, metis_part).ok()) {
    return false;
  }
  part = std::move(metis_part);
  return true;
}

}  // namespace

std::vector<int32_t> MetisLoadWeights(const BalanceInput& input) {
  const TaskId n = input.graph.num_tasks();
  double max_load = 0;
  for (TaskId t = 0; t < n; ++t) max_load = std::max(max_load, LoadOf(input, t));
  // Vertex weights sum to at most 2^30 (int32_t sums must not overflow).
  const double scale = max_load > 0 ? static_cast<double>(int64_t{1} << 30) / n / max_load : 0;
  std::vector<int32_t> vwgt(n, 1);
  if (max_load > 0) {
    for (TaskId t = 0; t < n; ++t)
      vwgt[t] = static_cast<int32_t>(std::llround(LoadOf(input, t) * scale));
  }
  return vwgt;
}

std::vector<SlotId> SpreadOverCores(const BalanceInput& input,
                                    std::span<const int32_t> position_of_task) {
  const Allocation& allocation = input.allocation;
  const int32_t cores = allocation.cores_per_node();
  const TaskId n = input.graph.num_tasks();
  std::vector<SlotId> slot(n, 0);
  // Objects grouped by position (counting sort, ids ascending within a position).
  std::vector<int64_t> start(allocation.num_nodes() + 1, 0);
  for (TaskId t = 0; t < n; ++t) ++start[position_of_task[t] + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<TaskId> grouped(n);
  {
    std::vector<int64_t> next(start.begin(), start.end() - 1);
    for (TaskId t = 0; t < n; ++t) grouped[next[position_of_task[t]]++] = t;
  }
  std::vector<double> core_load(cores);
  const bool has_current = !input.current_slot.empty();
  for (int32_t position = 0; position < allocation.num_nodes(); ++position) {
    auto first = grouped.begin() + start[position];
    auto last = grouped.begin() + start[position + 1];
    std::fill(core_load.begin(), core_load.end(), 0.0);
    if (has_current) {
      // Objects staying on their node keep their core; the rest are spread below.
      auto arriving = first;
      for (auto it = first; it != last; ++it) {
        const TaskId t = *it;
        if (allocation.PositionOfSlot(input.current_slot[t]) == position) {
          slot[t] = input.current_slot[t];
          core_load[allocation.CoreOfSlot(slot[t])] += LoadOf(input, t);
        } else {
          *arriving++ = t;
        }
      }
      last = arriving;
    }
    std::stable_sort(first, last,
                     [&](TaskId a, TaskId b) { return LoadOf(input, a) > LoadOf(input, b); });
    for (auto it = first; it != last; ++it) {
      const int32_t core = static_cast<int32_t>(
          std::min_element(core_load.begin(), core_load.end()) - core_load.begin());
      core_load[core] += LoadOf(input, *it);
      slot[*it] = position * cores + core;
    }
  }
  return slot;
}

std::vector<SlotId> BisectionPlacement(const BalanceInput& input, double node_imbalance,
                                       const MapperOptions& options, const StopCondition& stop,
                                       const BisectionHints& hints) {
  const TaskId n = input.graph.num_tasks();
  const int32_t nodes = input.allocation.num_nodes();
  // Integer weights: 1 + the load scaled so the sum stays under 2^28 (METIS's
  // 32-bit sums with the anchors' weight on top); the 1 keeps zero loads placeable.
  double max_load = 0, total = 0;
  for (TaskId t = 0; t < n; ++t) {
    max_load = std::max(max_load, LoadOf(input, t));
    total += LoadOf(input, t);
  }
  const double budget = static_cast<double>(int64_t{1} << 28) - n;
  const double scale = total > 0 ? std::min(budget / total, 1e6 / max_load) : 0;
  std::vector<int64_t> weights(n);
  int64_t weight_sum = 0, heaviest = 0;
  for (TaskId t = 0; t < n; ++t) {
    weights[t] = 1 + static_cast<int64_t>(std::floor(LoadOf(input, t) * scale));
    weight_sum += weights[t];
    heaviest = std::max(heaviest, weights[t]);
  }
  // A node never needs to hold more than everything (and a huge imbalance must not
  // overflow the conversion).
  const double allowed = std::ceil(static_cast<double>(weight_sum) / nodes * (1 + node_imbalance));
  const int64_t capacity = std::max<int64_t>(
      heaviest, static_cast<int64_t>(std::min(allowed, static_cast<double>(weight_sum))));
  std::vector<int32_t> home;
  if (!input.current_slot.empty() && !hints.stay.empty()) {
    home.resize(n);
    for (TaskId t = 0; t < n; ++t) home[t] = input.allocation.PositionOfSlot(input.current_slot[t]);
  }
  const BisectionProblem problem{
      .graph = input.graph,
      .allocation = input.allocation,
      .seed = options.seed,
      .weights = weights,
      .node_capacity = capacity,
      .home = home,
      .stay = home.empty() ? std::span<const int64_t>() : hints.stay,
      .grid_dims = hints.grid_dims,
  };
  // The bisection always completes (cancellation still stops it): cut short by the
  // clock it lays whole sets in split order, and on a busy machine that gave answers
  // 16 to 150 times worse than a finished one (2^17 objects onto hierarchy 4:8:6 with
  // 0.3-1 s); the deadline governs the refinement after it.
  std::vector<int32_t> position = BisectByWeight(
      problem, {.anchored_cut = hints.anchored_cut, .slide_grid_cuts = hints.slide_grid_cuts},
      stop.WithoutDeadline());
  return SpreadOverCores(input, position);
}

std::vector<SlotId> PartitionPlacement(const BalanceInput& input, double node_imbalance,
                                       const MapperOptions& options, const StopCondition& stop,
                                       const SubproblemMapper& map_quotient) {
  const TaskGraph& graph = input.graph;
  const Allocation& allocation = input.allocation;
  const TaskId n = graph.num_tasks();
  const int32_t nodes = allocation.num_nodes();
  std::vector<int32_t> part(n, 0);
  if (nodes > 1 && n <= nodes) {
    std::iota(part.begin(), part.end(), 0);  // an object per node: map the graph itself
  } else if (nodes > 1 && !MetisParts(input, nodes, node_imbalance, options.seed, part)) {
    part = BreadthFirstRuns(input, nodes);
  }
  // The parts onto the nodes: the quotient graph mapped one part per node.
  std::vector<int32_t> position_of_part(nodes);
  std::iota(position_of_part.begin(), position_of_part.end(), 0);
  if (nodes > 1 && graph.num_edges() > 0) {
    TaskGraphBuilder builder(nodes);
    absl::Status added = absl::OkStatus();
    for (TaskId u = 0; u < n && added.ok(); ++u) {
      graph.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
        if (u < v && part[u] != part[v] && added.ok())
          added = builder.AddTraffic(part[u], part[v], w);
      });
    }
    absl::StatusOr<TaskGraph> quotient =
        added.ok() ? std::move(builder).Build() : absl::StatusOr<TaskGraph>(added);
    absl::StatusOr<Allocation> one_per_node =
        Allocation::Create(allocation.shared_machine(), allocation.nodes(), 1);
    if (quotient.ok() && one_per_node.ok()) {
      // The quotient's share of the budget: two thirds of what is left.
      const absl::Time now = absl::Now();
      const absl::Time until = now + (stop.deadline() - now) * 2 / 3;
      const StopCondition quotient_stop = stop.Until(until);
      MapperOptions quotient_options = options;
      quotient_options.time_limit_seconds = std::max(1e-3, absl::ToDoubleSeconds(until - now));
      // An iteration cap makes the answer the same on every run when the searches
      // end on it before the clock (the quotient is small: nodes, not objects).
      if (quotient_options.iteration_limit == 0) quotient_options.iteration_limit = 64;
      absl::StatusOr<std::vector<SlotId>> out =
          map_quotient(*quotient, *one_per_node, quotient_options, quotient_stop);
      if (out.ok()) position_of_part = *std::move(out);
    }
  }
  std::vector<int32_t> position_of_task(n);
  for (TaskId t = 0; t < n; ++t) position_of_task[t] = position_of_part[part[t]];
  return SpreadOverCores(input, position_of_task);
}

std::vector<SlotId> BlockPlacement(const BalanceInput& input) {
  const TaskId n = input.graph.num_tasks();
  const int64_t slots = input.allocation.num_slots();
  double total = 0;
  for (TaskId t = 0; t < n; ++t) total += LoadOf(input, t);
  std::vector<SlotId> slot(n);
  double before = 0;
  for (TaskId t = 0; t < n; ++t) {
    const double load = LoadOf(input, t);
    const double mid = total > 0 ? (before + load / 2) / total
                                 : (static_cast<double>(t) + 0.5) / static_cast<double>(n);
    slot[t] = static_cast<SlotId>(std::min<int64_t>(slots - 1, static_cast<int64_t>(mid * slots)));
    before += load;
  }
  PinFixedObjects(input, slot);
  return slot;
}

std::vector<SlotId> GreedyLbPlacement(const BalanceInput& input) {
  const TaskId n = input.graph.num_tasks();
  std::vector<TaskId> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](TaskId a, TaskId b) { return LoadOf(input, a) > LoadOf(input, b); });
  // Fixed objects and the background load are there first (as GreedyLB counts
  // non-migratable objects and background load in the processors' loads).
  std::vector<SlotId> slot(n, kInvalidSlot);
  PinFixedObjects(input, slot);
  const std::vector<double> fixed_load = FixedSlotLoads(input);
  using Entry = std::pair<double, SlotId>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> least;
  for (SlotId s = 0; s < input.allocation.num_slots(); ++s) least.emplace(fixed_load[s], s);
  for (TaskId t : order) {
    if (slot[t] != kInvalidSlot) continue;
    auto [load, s] = least.top();
    least.pop();
    slot[t] = s;
    least.emplace(load + LoadOf(input, t), s);
  }
  return slot;
}

std::vector<SlotId> RefineLbPlacement(const BalanceInput& input, std::span<const SlotId> start,
                                      double cap) {
  const int64_t slots = input.allocation.num_slots();
  std::vector<SlotId> slot(start.begin(), start.end());
  PinFixedObjects(input, slot);
  std::vector<double> load = SlotLoads(input, slot);
  std::vector<std::vector<TaskId>> objects(slots);
  for (TaskId t = 0; t < static_cast<TaskId>(slot.size()); ++t) objects[slot[t]].push_back(t);
  std::set<std::pair<double, SlotId>> by_load;
  for (SlotId s = 0; s < slots; ++s) by_load.emplace(load[s], s);
  const double tol = LoadTolerance(cap);
  std::vector<uint8_t> stuck(slots, 0);
  while (true) {
    SlotId heavy = kInvalidSlot;
    for (auto it = by_load.rbegin(); it != by_load.rend() && it->first > cap + tol; ++it) {
      if (!stuck[it->second]) {
        heavy = it->second;
        break;
      }
    }
    if (heavy == kInvalidSlot) break;
    const SlotId light = by_load.begin()->second;
    // The heaviest object that fits on the light slot (lowest id on ties).
    int32_t pick = -1;
    std::vector<TaskId>& here = objects[heavy];
    for (int32_t i = 0; i < static_cast<int32_t>(here.size()); ++i) {
      const double w = LoadOf(input, here[i]);
      if (w <= 0 || IsFixed(input, here[i]) || load[light] + w > cap + tol) continue;
      if (pick < 0 || w > LoadOf(input, here[pick]) ||
          (w == LoadOf(input, here[pick]) && here[i] < here[pick])) {
        pick = i;
      }
    }
    if (pick < 0 || light == heavy) {
      stuck[heavy] = 1;
      continue;
    }
    const TaskId t = here[pick];
    const double w = LoadOf(input, t);
    here.erase(here.begin() + pick);
    objects[light].push_back(t);
    by_load.erase({load[heavy], heavy});
    by_load.erase({load[light], light});
    load[heavy] -= w;
    load[light] += w;
    by_load.emplace(load[heavy], heavy);
    by_load.emplace(load[light], light);
    slot[t] = light;
  }
  return slot;
}

}  // namespace hopmap
