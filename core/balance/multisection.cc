#include "core/balance/multisection.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "core/balance/construct.h"
#include "core/balance/kway_fm.h"
#include "core/bisection/metis_adapter.h"
#include "core/search/position_graph.h"
#include "core/search/random_stream.h"
#include "tbb/parallel_for.h"

namespace hopmap {
namespace {

// What the multisection shares while it cuts the groups.
struct Shared {
  const BalanceInput& input;
  std::span<const int32_t> vertex_weight;  // MetisLoadWeights
  std::span<const int32_t> edge_weight;    // ScaledMetisEdgeWeights, adjncy order
  std::span<const double> position_share;  // each position's capacity, in load
  double imbalance;
  bool whole_loads;  // HasWholeLoads: each child's limit is a whole load
  uint64_t seed;
  const StopCondition& stop;
  // Scratch: an object's index in the group being cut. Groups cut at the same time
  // write only their own objects; a reader checks the entry points back at the
  // neighbour (objects[local] == u) before trusting it, so another group's entry,
  // written concurrently, is never used (atomics: such reads are not races).
  std::vector<std::atomic<int32_t>>& local_of_task;
  std::vector<int32_t>& position_of_task;  // the answer
  // RefineAlongHierarchy: each object's position in the placement refined
  // (empty: cut from scratch), and scratch for each position's child in the group
  // being cut (groups cut at the same time own disjoint positions).
  std::span<const int32_t> start_position = {};
  std::vector<int32_t>* child_of_position = nullptr;
};

double ShareOf(const Shared& shared, const PositionGroup& group) {
  double share = 0;
  for (int32_t p : group.positions) share += shared.position_share[p];
  return share;
}

constexpr int32_t kMetisCuts = 4;
// V-cycles of the k-way FM per cut, while one still gains: up to 8 lowered the
// field's 4:8:6 rows from 1.026x to 1.001x SharedMap's cost against 2 (random
// geometric graphs 4-5% lower; bench/README.md), for 0.1-1 s more at 2^15-2^17.
constexpr int32_t kMaxVCycles = 8;
// The levels of the first two V-cycles refined by flows, then FM: 0.990x the
// costs of FM alone over the 33 rows of bench/README.md's hierarchy tables (the
// meshes and road network 1-3% lower, random geometric graphs onto 4:8:6 4-7%;
// 4elt onto 4:16:64 10% higher, its first start now past half the budget); flows
// in every V-cycle found at most 0.4% more, in 10-20% more time.
constexpr KwayFmOptions kCutRefinement{.flow_cycles = 2};

// The graph the objects induce, in METIS's arrays (MetisGraph).
struct LocalGraph {
  std::vector<int32_t> xadj, adjncy, adjwgt, vwgt;
  [[nodiscard]] CsrGraph csr() const { return {xadj, adjncy, adjwgt, vwgt}; }
};

LocalGraph InducedGraph(const Shared& shared, std::span<const TaskId> objects) {
  const TaskGraph& graph = shared.input.graph;
  const int32_t n = static_cast<int32_t>(objects.size());
  for (int32_t i = 0; i < n; ++i)
    shared.local_of_task[objects[i]].store(i, std::memory_order_relaxed);
  LocalGraph local;
  local.xadj.assign(n + 1, 0);
  local.vwgt.resize(n);
  const auto& graph_xadj = graph.xadj();
  const auto& graph_adjncy = graph.adjncy();
  for (int32_t i = 0; i < n; ++i) {
    const TaskId t = objects[i];
    local.vwgt[i] = shared.vertex_weight[t];
    for (int64_t e = graph_xadj[t]; e < graph_xadj[t + 1]; ++e) {
      const TaskId u = graph_adjncy[e];
      const int32_t at = shared.local_of_task[u].load(std::memory_order_relaxed);
      if (u != t && at >= 0 && at < n && objects[at] == u) {
        local.adjncy.push_back(at);
        local.adjwgt.push_back(shared.edge_weight[e]);
      }
    }
    local.xadj[i + 1] = static_cast<int32_t>(local.adjncy.size());
  }
  return local;
}

// What a cut of a group may give each of its children.
struct ChildLimits {
  std::vector<float> targets;       // each child's fraction of the group's capacity
  std::vector<int64_t> max_weight;  // the most vertex weight each child may take
  double metis_imbalance = 0;       // the tolerance that lets METIS reach max_weight
};

// SharedMap's adaptive imbalance: the slack the group has (its capacity against
// its load W) spread evenly over the levels still to cut, each child then allowed
// (1 + that) x its share of W; with whole loads rounded up to a whole load
// (ImbalanceCap), as KaFFPa rounds each of SharedMap's levels, so that at the
// lowest level a PE may take what the solve's cap allows.
ChildLimits LimitsOf(const Shared& shared, const PositionGroup& group,
                     std::span<const TaskId> objects) {
  const size_t k = group.children.size();
  const double share = ShareOf(shared, group);
  double load = 0;
  int64_t weight = 0;
  for (TaskId t : objects) {
    load += LoadOf(shared.input, t);
    weight += shared.vertex_weight[t];
  }
  const double room = load > 0 ? (1 + shared.imbalance) * share / load : 1 + shared.imbalance;
  const double imbalance = std::clamp(std::pow(std::max(room, 1.0), 1.0 / group.height) - 1, 0.001,
                                      BalanceOptions::kMaxImbalance);
  ChildLimits limits{.targets = std::vector<float>(k),
                     .max_weight = std::vector<int64_t>(k),
                     .metis_imbalance = imbalance};
  const double total = static_cast<double>(weight);
  double tightest = std::numeric_limits<double>::infinity();
  for (size_t c = 0; c < k; ++c) {
    const double fraction =
        share > 0 ? ShareOf(shared, group.children[c]) / share : 1.0 / static_cast<double>(k);
    limits.targets[c] = static_cast<float>(fraction);
    // The limit in load, then in vertex weight (the loads scaled: MetisLoadWeights).
    const double most =
        load > 0 ? ImbalanceCap(fraction * load, imbalance, shared.whole_loads) / load * total
                 : (1 + imbalance) * fraction * total;
    limits.max_weight[c] = static_cast<int64_t>(std::floor(most + LoadTolerance(most)));
    if (fraction > 0 && total > 0) tightest = std::min(tightest, most / (fraction * total) - 1);
  }
  if (shared.whole_loads && std::isfinite(tightest)) {
    limits.metis_imbalance = std::clamp(tightest, imbalance, BalanceOptions::kMaxImbalance);
  }
  return limits;
}

// The graph cut into the children by METIS k-way, then refined by k-way FM
// (RefineKwayCut); false when METIS cannot (no edge, or it fails).
bool CutGraph(const LocalGraph& local, const ChildLimits& limits, uint64_t seed,
              std::vector<int32_t>& part) {
  if (local.adjncy.empty()) return false;
  MetisPartitionOptions metis;
  metis.method = MetisMethod::kKway;
  metis.parts = static_cast<int32_t>(limits.targets.size());
  metis.seed = seed;
  // The best of a few METIS cuts: 3% lower costs on the field's 4:8:6 instances
  // than one, for under twice the time (bench/README.md).
  metis.cuts = kMetisCuts;
  metis.part_fractions = limits.targets;
  metis.imbalance = limits.metis_imbalance;
  part.assign(local.vwgt.size(), 0);
  if (!MetisPartition({local.xadj, local.adjncy, local.adjwgt, local.vwgt}, metis, part).ok()) {
    return false;
  }
  RefineKwayCutMultilevel(local.csr(), limits.max_weight, part, seed, kMaxVCycles, kCutRefinement);
  return true;
}

// Without METIS: the objects in the order given cut into runs by the targets.
void CutInOrder(const Shared& shared, std::span<const TaskId> objects,
                std::span<const float> targets, std::vector<int32_t>& part) {
  double total = 0;
  for (TaskId t : objects) total += shared.vertex_weight[t];
  part.assign(objects.size(), 0);
  double before = 0, bound = targets.empty() ? 0 : targets[0] * total;
  int32_t current = 0;
  for (size_t i = 0; i < objects.size(); ++i) {
    const double mid = before + shared.vertex_weight[objects[i]] / 2.0;
    while (mid > bound && current + 1 < static_cast<int32_t>(targets.size())) {
      bound += targets[++current] * total;
    }
    part[i] = current;
    before += shared.vertex_weight[objects[i]];
  }
}

// RefineAlongHierarchy's parts: each object in the child holding its position in
// the start; one placed outside the group (moved in at a level above) joins the
// child its neighbours in the group mostly are in (the lightest child when none
// is placed yet); then the k-way FM V-cycles.
void StartParts(const Shared& shared, const PositionGroup& group, std::span<const TaskId> objects,
                const ChildLimits& limits, uint64_t seed, std::vector<int32_t>& part) {
  const std::span<const float> targets = limits.targets;
  std::vector<int32_t>& child_of_position = *shared.child_of_position;
  for (int32_t p : group.positions) child_of_position[p] = -1;
  for (size_t c = 0; c < group.children.size(); ++c) {
    for (int32_t p : group.children[c].positions) child_of_position[p] = static_cast<int32_t>(c);
  }
  const LocalGraph local = InducedGraph(shared, objects);
  const int32_t n = static_cast<int32_t>(objects.size());
  part.assign(n, -1);
  std::vector<int64_t> weight(targets.size(), 0);
  std::vector<int32_t> outside;
  for (int32_t i = 0; i < n; ++i) {
    // Another group's entries are being written: read only this group's.
    const int32_t position = shared.start_position[objects[i]];
    const int32_t child =
        std::binary_search(group.positions.begin(), group.positions.end(), position)
            ? child_of_position[position]
            : -1;
    if (child < 0) {
      outside.push_back(i);
      continue;
    }
    part[i] = child;
    weight[child] += local.vwgt[i];
  }
  std::vector<int64_t> tie(targets.size());
  for (int32_t i : outside) {
    std::fill(tie.begin(), tie.end(), 0);
    for (int32_t e = local.xadj[i]; e < local.xadj[i + 1]; ++e) {
      if (part[local.adjncy[e]] >= 0) tie[part[local.adjncy[e]]] += local.adjwgt[e];
    }
    size_t best = 0;
    for (size_t c = 1; c < targets.size(); ++c) {
      const bool stronger = tie[c] > tie[best];
      const bool lighter =
          tie[c] == tie[best] && weight[c] * targets[best] < weight[best] * targets[c];
      if (stronger || lighter) best = c;
    }
    part[i] = static_cast<int32_t>(best);
    weight[best] += local.vwgt[i];
  }
  if (!local.adjncy.empty()) {
    RefineKwayCutMultilevel(local.csr(), limits.max_weight, part, seed, kMaxVCycles,
                            kCutRefinement);
  }
}

void Section(const Shared& shared, const PositionGroup& group, std::vector<TaskId> objects) {
  if (group.children.empty() || shared.stop.ShouldStop()) {
    // A position (or, cancelled, the group's positions in turn).
    for (size_t i = 0; i < objects.size(); ++i)
      shared.position_of_task[objects[i]] = group.positions[i % group.positions.size()];
    return;
  }
  const size_t k = group.children.size();
  const ChildLimits limits = LimitsOf(shared, group, objects);
  const uint64_t seed = RandomStream(shared.seed, group.positions[0] * uint64_t{64} +
                                                      static_cast<uint64_t>(group.height))
                            .Next();
  std::vector<int32_t> part;
  if (!shared.start_position.empty()) {
    StartParts(shared, group, objects, limits, seed, part);
  } else if (!CutGraph(InducedGraph(shared, objects), limits, seed, part)) {
    CutInOrder(shared, objects, limits.targets, part);
  }
  std::vector<std::vector<TaskId>> of_child(k);
  for (size_t i = 0; i < objects.size(); ++i) of_child[part[i]].push_back(objects[i]);
  objects = {};
  tbb::parallel_for(size_t{0}, k,
                    [&](size_t c) { Section(shared, group.children[c], std::move(of_child[c])); });
}

// The multisection from the root, from scratch or (start_position) refining a
// placement; empty when the allocation is not a hierarchy.
std::vector<SlotId> RunMultisection(const BalanceInput& input, double imbalance,
                                    const MapperOptions& options, const StopCondition& stop,
                                    std::span<const int32_t> start_position,
                                    const PositionGroup* hierarchy) {
  PositionGroup built;
  if (hierarchy == nullptr) {
    built = HierarchyOfPositions(input.allocation);
    hierarchy = &built;
  }
  const PositionGroup& root = *hierarchy;
  if (root.positions.empty()) return {};
  const TaskGraph& graph = input.graph;
  const TaskId n = graph.num_tasks();
  const Allocation& allocation = input.allocation;
  // Each position's capacity: its cores' share of the average slot load, less
  // their background load (never below 0).
  double total = 0;
  for (TaskId t = 0; t < n; ++t) total += LoadOf(input, t);
  for (double b : input.background_load) total += b;
  const double average = total / static_cast<double>(allocation.num_slots());
  std::vector<double> position_share(allocation.num_nodes(), 0.0);
  for (SlotId s = 0; s < allocation.num_slots(); ++s) {
    const double background = input.background_load.empty() ? 0 : input.background_load[s];
    position_share[allocation.PositionOfSlot(s)] += std::max(0.0, average - background);
  }
  const std::vector<int32_t> vertex_weight = MetisLoadWeights(input);
  const std::vector<int32_t> edge_weight = ScaledMetisEdgeWeights(graph);
  std::vector<std::atomic<int32_t>> local_of_task(n);
  for (auto& local : local_of_task) local.store(-1, std::memory_order_relaxed);
  std::vector<int32_t> position_of_task(n, 0);
  std::vector<int32_t> child_of_position(allocation.num_nodes(), -1);
  const StopCondition no_deadline = stop.WithoutDeadline();
  const Shared shared{.input = input,
                      .vertex_weight = vertex_weight,
                      .edge_weight = edge_weight,
                      .position_share = position_share,
                      .imbalance = imbalance,
                      .whole_loads = HasWholeLoads(input),
                      .seed = options.seed,
                      .stop = no_deadline,
                      .local_of_task = local_of_task,
                      .position_of_task = position_of_task,
                      .start_position = start_position,
                      .child_of_position = &child_of_position};
  std::vector<TaskId> objects(n);
  std::iota(objects.begin(), objects.end(), 0);
  Section(shared, root, std::move(objects));
  return SpreadOverCores(input, position_of_task);
}

}  // namespace

std::vector<SlotId> MultisectionPlacement(const BalanceInput& input, double imbalance,
                                          const MapperOptions& options, const StopCondition& stop,
                                          const PositionGroup* hierarchy) {
  return RunMultisection(input, imbalance, options, stop, {}, hierarchy);
}

std::vector<SlotId> RefineAlongHierarchy(const BalanceInput& input,
                                         std::span<const SlotId> slot_of_task, double imbalance,
                                         const MapperOptions& options, const StopCondition& stop,
                                         const PositionGroup* hierarchy) {
  std::vector<int32_t> position(slot_of_task.size());
  for (size_t t = 0; t < slot_of_task.size(); ++t)
    position[t] = input.allocation.PositionOfSlot(slot_of_task[t]);
  return RunMultisection(input, imbalance, options, stop, position, hierarchy);
}

}  // namespace hopmap
