#include "core/mappers/local_search/hybrid.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/bisection/metis_adapter.h"
#include "core/mappers/construct/rec_bisect.h"
#include "core/mappers/local_search/grasp.h"
#include "core/search/placement.h"
#include "core/search/position_graph.h"
#include "core/search/random_stream.h"
#include "core/topology/distance_matrix.h"
#include "tbb/parallel_for.h"

namespace hopmap {
namespace {

// Work-item tags of the random streams that derive seeds (distinct from group indices,
// which are below 2^31).
constexpr uint64_t kQuotientSeedItem = uint64_t{1} << 40;

struct LevelStats {
  int depth = 0;          // deepest level reached (1: one split)
  int64_t leaves = 0;     // groups solved by GRASP
  int64_t unsolved = 0;   // groups placed greedily when the time limit fired
  int32_t top_parts = 0;  // groups of the first level
  int64_t flips = 0;      // parts mirrored to face their outside neighbours
};

// Splits the allocation's positions into k compact groups of floor(m/k) or
// ceil(m/k) nodes (the larger ones first), by recursive geometric bisection.
std::vector<std::vector<int32_t>> SplitIntoGroups(const Allocation& allocation, int32_t k) {
  const int32_t m = allocation.num_nodes();
  const int nd = static_cast<int>(allocation.machine().dims().size());
  const std::vector<int32_t> coords = FlatPositionCoordinates(allocation);
  std::vector<int32_t> size_of_group(k, m / k);
  for (int32_t j = 0; j < m % k; ++j) ++size_of_group[j];
  std::vector<int32_t> positions(m);
  std::iota(positions.begin(), positions.end(), 0);
  std::vector<std::vector<int32_t>> groups(k);
  // (first group, group count, first position index) ranges still to split.
  struct Range {
    int32_t group;
    int32_t count;
    int32_t begin;
  };
  std::vector<Range> stack = {{0, k, 0}};
  while (!stack.empty()) {
    const Range r = stack.back();
    stack.pop_back();
    int32_t total = 0;
    for (int32_t j = r.group; j < r.group + r.count; ++j) total += size_of_group[j];
    std::span<int32_t> span(positions.data() + r.begin, total);
    if (r.count == 1) {
      groups[r.group].assign(span.begin(), span.end());
      continue;
    }
    OrderForSplit(allocation, coords, nd, span);
    const int32_t left = (r.count + 1) / 2;
    int32_t left_size = 0;
    for (int32_t j = r.group; j < r.group + left; ++j) left_size += size_of_group[j];
    stack.push_back({r.group + left, r.count - left, r.begin + left_size});
    stack.push_back({r.group, left, r.begin});
  }
  return groups;
}

// Parts in breadth-first order, cut into runs of the target sizes: keeps neighbours
// together where METIS cannot be used (no edges, an error, out of time).
void BreadthFirstParts(const TaskGraph& graph, const std::vector<int64_t>& target,
                       std::vector<int32_t>& part) {
  const std::vector<TaskId> order = BreadthFirstOrder(graph);
  size_t next = 0;
  for (size_t p = 0; p < target.size(); ++p) {
    for (int64_t i = 0; i < target[p]; ++i) part[order[next++]] = static_cast<int32_t>(p);
  }
}

// METIS balances within a tolerance; parts need exact sizes. Moves vertices out of
// parts that are too big into parts that are too small, the moves that lose least
// connection first (ties by vertex), a round at a time until every size is exact.
void RestoreExactSizes(const TaskGraph& graph, const std::vector<int64_t>& target,
                       std::vector<int32_t>& part) {
  const int32_t k = static_cast<int32_t>(target.size());
  std::vector<int64_t> count(k, 0);
  for (int32_t p : part) ++count[p];
  std::vector<int64_t> conn(k, 0);
  std::vector<int32_t> touched;
  while (true) {
    std::vector<int32_t> under;
    bool any_over = false;
    for (int32_t p = 0; p < k; ++p) {
      if (count[p] < target[p]) under.push_back(p);
      any_over = any_over || count[p] > target[p];
    }
    if (!any_over) return;
    struct Move {
      int64_t loss;
      TaskId task;
      int32_t to;
    };
    std::vector<Move> moves;
    for (TaskId t = 0; t < graph.num_tasks(); ++t) {
      const int32_t from = part[t];
      if (count[from] <= target[from]) continue;
      touched.clear();
      graph.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
        if (conn[part[u]] == 0) touched.push_back(part[u]);
        conn[part[u]] += w;
      });
      int32_t to = under.front();
      int64_t best = -1;
      for (int32_t q : touched) {
        if (count[q] < target[q] && (conn[q] > best || (conn[q] == best && q < to))) {
          best = conn[q];
          to = q;
        }
      }
      moves.push_back({conn[from] - std::max<int64_t>(best, 0), t, to});
      for (int32_t q : touched) conn[q] = 0;
    }
    std::sort(moves.begin(), moves.end(), [](const Move& a, const Move& b) {
      return a.loss != b.loss ? a.loss < b.loss : a.task < b.task;
    });
    for (const Move& m : moves) {
      const int32_t from = part[m.task];
      if (count[from] > target[from] && count[m.to] < target[m.to]) {
        part[m.task] = m.to;
        --count[from];
        ++count[m.to];
      }
    }
  }
}

// Cuts the graph into parts of exactly target[p] tasks (k-way METIS, fixed seed).
std::vector<int32_t> PartitionTasks(const TaskGraph& graph, const std::vector<int64_t>& target,
                                    uint64_t seed, bool use_metis) {
  const TaskId n = graph.num_tasks();
  const int32_t k = static_cast<int32_t>(target.size());
  std::vector<int32_t> part(n, 0);
  if (k == 1) return part;
  bool partitioned = false;
  if (use_metis && graph.num_edges() > 0) {
    if (absl::StatusOr<MetisCsr> csr = MetisCsrOf(graph); csr.ok()) {
      std::vector<float> tpwgts(k);
      for (int32_t p = 0; p < k; ++p) {
        tpwgts[p] = static_cast<float>(target[p]) / static_cast<float>(n);
      }
      MetisPartitionOptions metis;
      metis.method = MetisMethod::kKway;
      metis.parts = k;
      metis.seed = seed;
      metis.part_fractions = tpwgts;
      std::vector<int32_t> metis_part(n, 0);
      const MetisGraph metis_graph{csr->xadj, csr->adjncy, csr->adjwgt, /*vwgt=*/{}};
      if (MetisPartition(metis_graph, metis, metis_part).ok()) {
        partitioned = true;
        part = std::move(metis_part);
      }
    }
  }
  if (!partitioned) BreadthFirstParts(graph, target, part);
  RestoreExactSizes(graph, target, part);
  return part;
}

// The quotient machine: average hops between every two groups (sampled, scaled,
// rounded; at least 1 between distinct groups).
absl::StatusOr<Allocation> QuotientAllocation(const Allocation& allocation,
                                              const std::vector<std::vector<int32_t>>& groups,
                                              const HybridOptions& options) {
  const int32_t k = static_cast<int32_t>(groups.size());
  std::vector<std::vector<int32_t>> samples(k);
  for (int32_t j = 0; j < k; ++j) {
    const size_t size = groups[j].size();
    const size_t count = std::min<size_t>(size, static_cast<size_t>(options.distance_samples));
    for (size_t i = 0; i < count; ++i) samples[j].push_back(groups[j][i * size / count]);
  }
  std::vector<int32_t> hops(static_cast<size_t>(k) * k, 0);
  tbb::parallel_for(0, k, [&](int32_t a) {
    for (int32_t b = a + 1; b < k; ++b) {
      int64_t sum = 0;
      for (int32_t x : samples[a]) {
        for (int32_t y : samples[b]) sum += allocation.HopsBetweenPositions(x, y);
      }
      const double average =
          static_cast<double>(sum) / static_cast<double>(samples[a].size() * samples[b].size());
      const int32_t scaled =
          std::max<int32_t>(1, static_cast<int32_t>(std::lround(average * options.hop_scale)));
      hops[static_cast<size_t>(a) * k + b] = scaled;
      hops[static_cast<size_t>(b) * k + a] = scaled;
    }
  });
  absl::StatusOr<DistanceMatrixMachine> machine = DistanceMatrixMachine::Create(k, std::move(hops));
  if (!machine.ok()) return machine.status();
  std::vector<NodeId> nodes(k);
  std::iota(nodes.begin(), nodes.end(), 0);
  return Allocation::Create(std::make_shared<DistanceMatrixMachine>(*std::move(machine)),
                            std::move(nodes), 1);
}

// GraspOptions::tabu_iterations for `per_slot` iterations per slot (0: no tabu
// search, which GRASP spells -1; its 0 would mean "until the deadline").
int64_t TabuIterations(int64_t per_slot, const Allocation& allocation) {
  return per_slot > 0 ? per_slot * allocation.num_slots() : -1;
}

std::vector<SlotId> InOrder(const TaskGraph& graph) {
  std::vector<SlotId> slots(graph.num_tasks());
  std::iota(slots.begin(), slots.end(), 0);
  return slots;
}

// The tasks of part p of `part_of` as a graph of their own (local ids in
// `local`, edges to other parts dropped).
absl::StatusOr<TaskGraph> PartSubgraph(const TaskGraph& graph, const std::vector<TaskId>& tasks,
                                       const std::vector<int32_t>& part_of,
                                       const std::vector<TaskId>& local, int32_t p) {
  std::vector<EdgeIndex> xadj(tasks.size() + 1, 0);
  std::vector<TaskId> adj;
  std::vector<Bytes> wgt;
  for (size_t i = 0; i < tasks.size(); ++i) {
    graph.ForEachNeighbor(tasks[i], [&](TaskId u, Bytes w) {
      if (part_of[u] != p) return;
      adj.push_back(local[u]);
      wgt.push_back(w);
    });
    xadj[i + 1] = static_cast<EdgeIndex>(adj.size());
  }
  return TaskGraph::FromCsr(std::move(xadj), std::move(adj), std::move(wgt));
}

class HybridSolver {
 public:
  HybridSolver(const HybridOptions& options, const MapperOptions& mapper_options,
               const StopCondition& stop, bool use_grasp, NodeId machine_nodes)
      : options_(options),
        mapper_options_(mapper_options),
        stop_(stop),
        use_grasp_(use_grasp),
        leaf_of_node_(machine_nodes, -1) {}

  // Which leaf group each machine node went to (-1: none); two tasks on nodes of
  // different leaves were mapped without seeing each other.
  [[nodiscard]] const std::vector<int32_t>& leaf_of_node() const { return leaf_of_node_; }

  std::vector<SlotId> Solve(const TaskGraph& graph, const Allocation& allocation, uint64_t seed,
                            int depth) {
    const TaskId n = graph.num_tasks();
    if (n == 0) return {};
    if (stop_.ShouldStop()) {
      // Out of time: a greedy breadth-first placement (O(E), milliseconds) rather
      // than in-order, which scatters a METIS part's neighbours over its group.
      ++stats_unsolved_;
      MarkLeaf(allocation);
      return graph.num_edges() > 0 ? GreedyBfsMapping(graph, allocation) : InOrder(graph);
    }
    if (allocation.num_slots() <= options_.part_slots || allocation.num_nodes() == 1) {
      MarkLeaf(allocation);
      return SolveLeaf(graph, allocation, seed);
    }
    RecordDepth(depth + 1);
    const int32_t m = allocation.num_nodes();
    const int32_t cores = allocation.cores_per_node();
    const int64_t nodes_per_group = std::max<int64_t>(1, options_.part_slots / cores);
    const int32_t k = static_cast<int32_t>(std::min<int64_t>(
        options_.max_parts_per_level, (m + nodes_per_group - 1) / nodes_per_group));
    if (depth == 0) top_parts_ = k;
    const std::vector<std::vector<int32_t>> groups = SplitIntoGroups(allocation, k);
    std::vector<int64_t> capacity(k);
    for (int32_t j = 0; j < k; ++j) capacity[j] = static_cast<int64_t>(groups[j].size()) * cores;
    const int64_t min_capacity = *std::min_element(capacity.begin(), capacity.end());

    // Part sizes: as few equal parts as fit the smallest group (fewer tasks than
    // slots leave whole groups empty, and GRASP picks which); when even k of those
    // do not hold the tasks, the groups' capacities trimmed evenly from the top.
    std::vector<int64_t> target;
    const int64_t few = (n + min_capacity - 1) / min_capacity;
    if (few <= k) {
      target.assign(few, n / few);
      for (int64_t p = 0; p < n % few; ++p) ++target[p];
    } else {
      // The excess is below (larger groups) x cores, so this loop is short, and no
      // more parts exceed the smaller capacity than there are larger groups.
      target = capacity;
      int64_t excess = std::accumulate(target.begin(), target.end(), int64_t{0}) - n;
      for (; excess > 0; --excess) --*std::max_element(target.begin(), target.end());
    }
    const int32_t parts = static_cast<int32_t>(target.size());
    const std::vector<int32_t> part_of =
        PartitionTasks(graph, target, seed, /*use_metis=*/!stop_.ShouldStop());

    // Parts onto groups: GRASP on the quotient problem.
    std::vector<int32_t> group_of_part(parts);
    std::iota(group_of_part.begin(), group_of_part.end(), 0);
    if (parts > 1 && !stop_.ShouldStop()) {
      TaskGraphBuilder builder(parts);
      for (TaskId u = 0; u < n; ++u) {
        graph.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
          if (u < v && part_of[u] != part_of[v])
            (void)builder.AddTraffic(part_of[u], part_of[v], w);
        });
      }
      absl::StatusOr<TaskGraph> quotient = std::move(builder).Build();
      absl::StatusOr<Allocation> machine = QuotientAllocation(allocation, groups, options_);
      if (quotient.ok() && machine.ok()) {
        GraspOptions grasp;
        grasp.max_iterations = options_.quotient_grasp_iterations;
        grasp.tabu_iterations =
            TabuIterations(options_.quotient_tabu_iterations_per_slot, *machine);
        MapperOptions sub = mapper_options_;
        sub.seed = RandomStream(seed, kQuotientSeedItem).Next();
        sub.iteration_limit = 0;
        MapInput input{*quotient, *machine, sub, stop_};
        absl::StatusOr<MapOutput> out = GraspMapper(grasp).Map(input);
        if (out.ok()) {
          for (int32_t p = 0; p < parts; ++p) group_of_part[p] = out->slot_of_task[p];
        }
      }
    }
    RepairCapacities(target, capacity, group_of_part);

    // Each part onto its group, in parallel; results stored by part index.
    std::vector<TaskId> local(n);
    std::vector<std::vector<TaskId>> members(parts);
    for (TaskId t = 0; t < n; ++t) {
      local[t] = static_cast<TaskId>(members[part_of[t]].size());
      members[part_of[t]].push_back(t);
    }
    std::vector<std::vector<SlotId>> sub_mapping(parts);
    tbb::parallel_for(0, parts, [&](int32_t p) {
      const std::vector<TaskId>& tasks = members[p];
      const std::vector<int32_t>& group = groups[group_of_part[p]];
      absl::StatusOr<TaskGraph> subgraph = PartSubgraph(graph, tasks, part_of, local, p);
      std::vector<NodeId> nodes(group.size());
      for (size_t i = 0; i < group.size(); ++i) nodes[i] = allocation.node_at(group[i]);
      absl::StatusOr<Allocation> sub_allocation =
          Allocation::Create(allocation.shared_machine(), std::move(nodes), cores);
      if (subgraph.ok() && sub_allocation.ok()) {
        sub_mapping[p] = Solve(*subgraph, *sub_allocation,
                               RandomStream(seed, static_cast<uint64_t>(p)).Next(), depth + 1);
      } else {
        sub_mapping[p].resize(tasks.size());
        std::iota(sub_mapping[p].begin(), sub_mapping[p].end(), 0);
      }
    });
    std::vector<SlotId> slot_of_task(n);
    for (int32_t p = 0; p < parts; ++p) {
      const std::vector<int32_t>& group = groups[group_of_part[p]];
      for (size_t i = 0; i < members[p].size(); ++i) {
        const SlotId local_slot = sub_mapping[p][i];
        slot_of_task[members[p][i]] = group[local_slot / cores] * cores + local_slot % cores;
      }
    }
    OrientParts(graph, allocation, groups, group_of_part, members, part_of, slot_of_task);
    return slot_of_task;
  }

  [[nodiscard]] bool uses_grasp() const { return use_grasp_; }

  // Each part was mapped without seeing its outside neighbours, so its orientation
  // inside its group is arbitrary: on machines with coordinates, try the mirror
  // images of the part's mapping across each dim of its group's bounding box (those
  // that land inside the group) and keep the one whose edges to other parts cost
  // least. Two sweeps over the parts in order; deterministic.
  void OrientParts(const TaskGraph& graph, const Allocation& allocation,
                   const std::vector<std::vector<int32_t>>& groups,
                   const std::vector<int32_t>& group_of_part,
                   const std::vector<std::vector<TaskId>>& members,
                   const std::vector<int32_t>& part_of, std::vector<SlotId>& slot_of_task) {
    // Node ids from coordinates follow the torus/mesh numbering (docs/design.md).
    if (allocation.machine().grid_geometry() == nullptr) return;
    const int nd = static_cast<int>(allocation.machine().dims().size());
    if (nd == 0 || nd > 6) return;
    const int32_t m = allocation.num_nodes();
    const int32_t cores = allocation.cores_per_node();
    const std::vector<int32_t> coords = FlatPositionCoordinates(allocation);
    // Allocation position of each machine node of the current group (-1 elsewhere),
    // looked up by coordinates through a map from node id.
    absl::flat_hash_map<NodeId, int32_t> position_of_node;
    for (int32_t q = 0; q < m; ++q) position_of_node[allocation.node_at(q)] = q;
    const std::vector<int32_t> dims = allocation.machine().dims();
    std::vector<int32_t> in_group(m, -1);
    std::vector<int32_t> image(m, -1);
    std::vector<int32_t> c(nd);
    for (int sweep = 0; sweep < 2; ++sweep) {
      for (size_t p = 0; p < members.size(); ++p) {
        // Mirroring is optional polish: at 1M tasks the top level's sweeps cost
        // seconds, which the final search needs more once the limit has fired.
        if (stop_.ShouldStop()) return;
        const std::vector<int32_t>& group = groups[group_of_part[p]];
        if (members[p].empty() || group.size() < 2) continue;
        std::vector<int32_t> lo(nd), hi(nd);
        for (int d = 0; d < nd; ++d) {
          lo[d] = hi[d] = coords[static_cast<size_t>(group[0]) * nd + d];
          for (int32_t q : group) {
            lo[d] = std::min(lo[d], coords[static_cast<size_t>(q) * nd + d]);
            hi[d] = std::max(hi[d], coords[static_cast<size_t>(q) * nd + d]);
          }
        }
        for (int32_t q : group) in_group[q] = static_cast<int32_t>(p);
        // Cost of the part's outside edges with position map `to` (identity: null).
        auto outside_cost = [&](const std::vector<int32_t>* to) {
          HopBytes cost = 0;
          for (TaskId t : members[p]) {
            int32_t pos = slot_of_task[t] / cores;
            if (to != nullptr) pos = (*to)[pos];
            graph.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
              if (part_of[u] != static_cast<int32_t>(p)) {
                cost += w * allocation.HopsBetweenPositions(pos, slot_of_task[u] / cores);
              }
            });
          }
          return cost;
        };
        HopBytes best_cost = outside_cost(nullptr);
        int best_mask = 0;
        for (int mask = 1; mask < (1 << nd) && best_cost > 0; ++mask) {
          bool valid = true;
          for (int32_t q : group) {
            for (int d = 0; d < nd; ++d) {
              const int32_t x = coords[static_cast<size_t>(q) * nd + d];
              c[d] = (mask >> d) & 1 ? lo[d] + hi[d] - x : x;
            }
            NodeId node = 0;
            for (int d = nd - 1; d >= 0; --d) node = node * dims[d] + c[d];
            auto it = position_of_node.find(node);
            if (it == position_of_node.end() || in_group[it->second] != static_cast<int32_t>(p)) {
              valid = false;
              break;
            }
            image[q] = it->second;
          }
          if (!valid) continue;
          const HopBytes cost = outside_cost(&image);
          if (cost < best_cost) {
            best_cost = cost;
            best_mask = mask;
          }
        }
        if (best_mask != 0) {
          for (int32_t q : group) {
            for (int d = 0; d < nd; ++d) {
              const int32_t x = coords[static_cast<size_t>(q) * nd + d];
              c[d] = (best_mask >> d) & 1 ? lo[d] + hi[d] - x : x;
            }
            NodeId node = 0;
            for (int d = nd - 1; d >= 0; --d) node = node * dims[d] + c[d];
            image[q] = position_of_node[node];
          }
          for (TaskId t : members[p]) {
            const SlotId s = slot_of_task[t];
            slot_of_task[t] = image[s / cores] * cores + s % cores;
          }
          ++stats_flips_;
        }
        for (int32_t q : group) in_group[q] = -1;
      }
    }
  }
  [[nodiscard]] LevelStats stats() const {
    return {depth_.load(), stats_leaves_.load(), stats_unsolved_.load(), top_parts_,
            stats_flips_.load()};
  }

 private:
  std::vector<SlotId> SolveLeaf(const TaskGraph& graph, const Allocation& allocation,
                                uint64_t seed) {
    if (allocation.num_nodes() == 1 || graph.num_edges() == 0) return InOrder(graph);
    MapperOptions sub = mapper_options_;
    sub.seed = seed;
    sub.iteration_limit = 0;
    MapInput input{graph, allocation, sub, stop_};
    // Both paths start from recursive bisection of the group: GRASP's random
    // constructions cost too much for thousands of leaves (docs/tuning.md).
    absl::StatusOr<MapOutput> start =
        RecursiveBisectionMapper(use_grasp_ ? RecursiveBisectionOptions{} : options_.leaf_start)
            .Map(input);
    if (!start.ok()) return InOrder(graph);
    if (!use_grasp_) {
      Placement placement(graph, allocation, std::move(start->slot_of_task));
      RefinePlacement(placement, options_.leaf_refine, stop_);
      ++stats_leaves_;
      return std::move(placement).Release();
    }
    input.initial = &start->slot_of_task;
    GraspOptions grasp;
    grasp.max_iterations = options_.leaf_grasp_iterations;
    grasp.tabu_iterations = TabuIterations(options_.leaf_tabu_iterations_per_slot, allocation);
    absl::StatusOr<MapOutput> out = GraspMapper(grasp).Map(input);
    if (!out.ok()) return InOrder(graph);
    ++stats_leaves_;
    return std::move(out->slot_of_task);
  }

  // GRASP ignores part sizes; a part larger than its group's capacity changes place
  // with a part that fits both ways (one always exists: group capacities take two
  // values and no more parts need the larger than there are larger groups).
  static void RepairCapacities(const std::vector<int64_t>& size, const std::vector<int64_t>& cap,
                               std::vector<int32_t>& group_of_part) {
    const int32_t parts = static_cast<int32_t>(size.size());
    const int32_t k = static_cast<int32_t>(cap.size());
    std::vector<int32_t> part_in_group(k, -1);
    for (int32_t p = 0; p < parts; ++p) part_in_group[group_of_part[p]] = p;
    for (int32_t p = 0; p < parts; ++p) {
      const int32_t g = group_of_part[p];
      if (size[p] <= cap[g]) continue;
      for (int32_t h = 0; h < k; ++h) {
        const int32_t q = part_in_group[h];
        if (cap[h] < size[p] || (q >= 0 && size[q] > cap[g])) continue;
        group_of_part[p] = h;
        part_in_group[h] = p;
        part_in_group[g] = q;
        if (q >= 0) group_of_part[q] = g;
        break;
      }
    }
  }

  // Leaves own disjoint nodes, so concurrent leaves write disjoint entries. The
  // numbering depends on the schedule, but only equality of leaves is ever used.
  void MarkLeaf(const Allocation& allocation) {
    const int32_t leaf = next_leaf_.fetch_add(1);
    for (int32_t q = 0; q < allocation.num_nodes(); ++q)
      leaf_of_node_[allocation.node_at(q)] = leaf;
  }

  void RecordDepth(int depth) {
    int current = depth_.load();
    while (depth > current && !depth_.compare_exchange_weak(current, depth)) {
    }
  }

  const HybridOptions& options_;
  const MapperOptions& mapper_options_;
  const StopCondition& stop_;
  const bool use_grasp_;  // leaves by GRASP (else recursive bisection + refinement)
  std::atomic<int> depth_{0};
  std::atomic<int64_t> stats_leaves_{0};
  std::atomic<int64_t> stats_unsolved_{0};
  std::atomic<int64_t> stats_flips_{0};
  int32_t top_parts_ = 0;
  std::vector<int32_t> leaf_of_node_;
  std::atomic<int32_t> next_leaf_{0};
};

}  // namespace

absl::Status HybridOptions::Validate() const {
  if (part_slots < 2 || part_slots > 512) {
    return absl::InvalidArgumentError(absl::StrCat(
        "hybrid: part_slots must be in 2..512 (GRASP's dense limit), got ", part_slots));
  }
  if (max_parts_per_level < 2 || max_parts_per_level > 512) {
    return absl::InvalidArgumentError(
        absl::StrCat("hybrid: max_parts_per_level must be in 2..512, got ", max_parts_per_level));
  }
  if (quotient_grasp_iterations < 1 || leaf_grasp_iterations < 1) {
    return absl::InvalidArgumentError(
        "hybrid: quotient_grasp_iterations and leaf_grasp_iterations must be >= 1");
  }
  if (quotient_tabu_iterations_per_slot < 0 || leaf_tabu_iterations_per_slot < 0) {
    return absl::InvalidArgumentError("hybrid: tabu iterations per slot must be >= 0");
  }
  if (distance_samples < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("hybrid: distance_samples must be >= 1, got ", distance_samples));
  }
  if (hop_scale < 1 || hop_scale > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("hybrid: hop_scale must be in 1..1024, got ", hop_scale));
  }
  if (grasp_leaves_max_slots < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("hybrid: grasp_leaves_max_slots must be >= 0, got ", grasp_leaves_max_slots));
  }
  if (refine_work_per_task < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("hybrid: refine_work_per_task must be >= 0, got ", refine_work_per_task));
  }
  if (!(parts_time_share > 0 && parts_time_share <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("hybrid: parts_time_share must be in (0, 1], got ", parts_time_share));
  }
  if (absl::Status s = leaf_start.Validate(); !s.ok()) return s;
  if (absl::Status s = leaf_refine.Validate(); !s.ok()) return s;
  return refine.Validate();
}

namespace {

// Work-item tag of the node-grouping METIS seed.
constexpr uint64_t kCoreGroupSeedItem = (uint64_t{1} << 40) + 1;

// Several cores per node: tasks cut into ceil(n / cores) groups of exactly `cores`
// tasks (the last one the rest), the group graph (bytes between groups; bytes
// inside a group cost nothing, its tasks share a node) and a 1-core allocation of
// the same nodes. The caller maps the group graph and fills each node's cores.
struct CoreGroups {
  std::vector<int32_t> group_of_task;
  TaskGraph graph;
};

// Groups of exactly `cores` tasks (the last group the rest), numbered 0..ceil(n /
// cores) - 1. Above `fanout` groups the tasks are first cut into at most `fanout`
// chunks of whole groups (one k-way METIS call into n / cores parts costs seconds:
// docs/tuning.md), each grouped the same way, chunks in parallel (results by chunk
// index: deterministic).
std::vector<int32_t> GroupByCores(const TaskGraph& graph, int32_t cores, uint64_t seed,
                                  bool use_metis, int64_t fanout) {
  const TaskId n = graph.num_tasks();
  const int64_t groups = (n + cores - 1) / cores;
  const int64_t remainder = n - (groups - 1) * int64_t{cores};
  if (groups <= fanout) {
    std::vector<int64_t> target(groups, cores);
    target.back() = remainder;
    return PartitionTasks(graph, target, seed, use_metis);
  }
  const int64_t chunks = std::min(fanout, (groups + fanout - 1) / fanout);
  std::vector<int64_t> groups_in_chunk(chunks, groups / chunks);
  for (int64_t c = 0; c < groups % chunks; ++c) ++groups_in_chunk[c];
  std::vector<int64_t> target(chunks);
  std::vector<int32_t> first_group(chunks, 0);
  for (int64_t c = 0; c < chunks; ++c) {
    target[c] = groups_in_chunk[c] * cores;
    if (c > 0) first_group[c] = first_group[c - 1] + static_cast<int32_t>(groups_in_chunk[c - 1]);
  }
  target.back() -= cores - remainder;  // the partial group is the last chunk's last
  const std::vector<int32_t> chunk_of = PartitionTasks(graph, target, seed, use_metis);
  std::vector<TaskId> local(n);
  std::vector<std::vector<TaskId>> members(chunks);
  for (TaskId t = 0; t < n; ++t) {
    local[t] = static_cast<TaskId>(members[chunk_of[t]].size());
    members[chunk_of[t]].push_back(t);
  }
  std::vector<int32_t> group_of(n, 0);
  tbb::parallel_for(int64_t{0}, chunks, [&](int64_t c) {
    const int32_t chunk = static_cast<int32_t>(c);
    absl::StatusOr<TaskGraph> sub = PartSubgraph(graph, members[chunk], chunk_of, local, chunk);
    std::vector<int32_t> sub_group;
    if (sub.ok()) {
      sub_group = GroupByCores(*sub, cores, RandomStream(seed, static_cast<uint64_t>(c)).Next(),
                               use_metis, fanout);
    } else {  // consecutive runs (FromCsr of a valid subgraph does not fail)
      sub_group.resize(members[chunk].size());
      for (size_t i = 0; i < sub_group.size(); ++i) sub_group[i] = static_cast<int32_t>(i / cores);
    }
    for (size_t i = 0; i < members[chunk].size(); ++i) {
      group_of[members[chunk][i]] = first_group[chunk] + sub_group[i];
    }
  });
  return group_of;
}

absl::StatusOr<CoreGroups> GroupTasksByNode(const TaskGraph& graph, int32_t cores, uint64_t seed,
                                            bool use_metis, int64_t fanout) {
  const TaskId n = graph.num_tasks();
  const int64_t k = (n + cores - 1) / cores;
  CoreGroups out;
  out.group_of_task = GroupByCores(graph, cores, seed, use_metis, fanout);
  TaskGraphBuilder builder(static_cast<TaskId>(k));
  builder.Reserve(graph.adjncy().size() / 2);
  for (TaskId u = 0; u < n; ++u) {
    graph.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
      if (u < v && out.group_of_task[u] != out.group_of_task[v]) {
        (void)builder.AddTraffic(out.group_of_task[u], out.group_of_task[v], w);
      }
    });
  }
  absl::StatusOr<TaskGraph> quotient = std::move(builder).Build();
  if (!quotient.ok()) return quotient.status();
  out.graph = *std::move(quotient);
  return out;
}

// Tasks with a neighbour on another leaf's nodes, in task order.
std::vector<TaskId> LeafBoundaryTasks(const Placement& placement,
                                      const std::vector<int32_t>& leaf_of_node) {
  const TaskGraph& graph = placement.graph();
  const Allocation& allocation = placement.allocation();
  const int32_t cores = allocation.cores_per_node();
  auto leaf = [&](TaskId t) {
    return leaf_of_node[allocation.node_at(placement.slot_of(t) / cores)];
  };
  std::vector<TaskId> boundary;
  for (TaskId t = 0; t < graph.num_tasks(); ++t) {
    const int32_t own = leaf(t);
    bool outside = false;
    graph.ForEachNeighbor(t, [&](TaskId u, Bytes) { outside = outside || leaf(u) != own; });
    if (outside) boundary.push_back(t);
  }
  return boundary;
}

struct FinalRefineStats {
  int32_t passes = 0;
  int64_t exchanges = 0;
  int64_t work = 0;
  int64_t first_active = 0;  // tasks searched by the first pass
  bool work_cap = false;     // ended by refine_work_per_task
};

// Passes of RefinePlacement over an active set (the leaf boundary first, then what
// moved and its neighbours), in chunks so that the work cap ends it between chunks.
FinalRefineStats FinalRefine(Placement& placement, const HybridOptions& options,
                             const std::vector<int32_t>& leaf_of_node, const StopCondition& stop) {
  FinalRefineStats stats;
  const TaskGraph& graph = placement.graph();
  const TaskId n = graph.num_tasks();
  std::vector<TaskId> active;
  if (options.refine_boundary_only) {
    active = LeafBoundaryTasks(placement, leaf_of_node);
  } else {
    active.resize(n);
    std::iota(active.begin(), active.end(), 0);
  }
  stats.first_active = static_cast<int64_t>(active.size());
  const int64_t work_cap =
      options.refine_work_per_task > 0 ? options.refine_work_per_task * int64_t{n} : -1;
  RefineOptions one_pass = options.refine;
  one_pass.max_passes = 1;
  const PositionGraph near = PositionGraph::Build(placement.allocation());
  constexpr size_t kChunk = 16384;
  std::vector<SlotId> before(n);
  std::vector<uint8_t> queued(n, 0);
  for (int32_t pass = 0; pass < options.refine.max_passes && !active.empty(); ++pass) {
    for (TaskId t = 0; t < n; ++t) before[t] = placement.slot_of(t);
    ++stats.passes;
    int64_t applied = 0;
    for (size_t begin = 0; begin < active.size(); begin += kChunk) {
      if (stop.ShouldStop()) return stats;
      if (work_cap >= 0 && stats.work >= work_cap) {
        stats.work_cap = true;
        return stats;
      }
      const size_t end = std::min(active.size(), begin + kChunk);
      const RefineStats chunk =
          RefinePlacement(placement, one_pass, stop,
                          std::span<const TaskId>(active.data() + begin, end - begin), &near);
      stats.work += chunk.work;
      stats.exchanges += chunk.exchanges;
      applied += chunk.exchanges;
    }
    if (applied == 0 || !options.refine_boundary_only) {
      if (applied == 0) break;
      continue;
    }
    // Next pass: the moved tasks and their neighbours, in task order.
    active.clear();
    for (TaskId t = 0; t < n; ++t) {
      if (placement.slot_of(t) == before[t]) continue;
      queued[t] = 1;
      graph.ForEachNeighbor(t, [&](TaskId u, Bytes) { queued[u] = 1; });
    }
    for (TaskId t = 0; t < n; ++t) {
      if (queued[t]) active.push_back(t);
      queued[t] = 0;
    }
  }
  return stats;
}

}  // namespace

absl::StatusOr<MapOutput> HybridMapper::Map(const MapInput& input) const {
  if (absl::Status s = options_.Validate(); !s.ok()) return s;
  if (absl::Status s = CheckFits(input.graph, input.allocation); !s.ok()) return s;
  HybridOptions options = options_;
  // MapperOptions::iteration_limit L caps every GRASP (iterations and tabu per slot).
  if (input.options.iteration_limit > 0) {
    const int64_t limit = input.options.iteration_limit;
    options.quotient_grasp_iterations = std::min(options.quotient_grasp_iterations, limit);
    options.leaf_grasp_iterations = std::min(options.leaf_grasp_iterations, limit);
    options.quotient_tabu_iterations_per_slot =
        std::min(options.quotient_tabu_iterations_per_slot, limit);
    options.leaf_tabu_iterations_per_slot = std::min(options.leaf_tabu_iterations_per_slot, limit);
    options.refine.max_passes =
        static_cast<int32_t>(std::min<int64_t>(options.refine.max_passes, limit));
  }
  const TaskGraph& graph = input.graph;
  const Allocation& allocation = input.allocation;
  const TaskId n = graph.num_tasks();
  const int32_t cores = allocation.cores_per_node();
  const absl::Time start = absl::Now();
  // The parts stage's share of the budget (an infinite deadline stays infinite).
  const StopCondition parts_stop =
      input.stop.Until(start + (input.stop.deadline() - start) * options.parts_time_share);
  const bool group_cores = options.group_cores_first && cores > 1 && n > cores;

  std::vector<SlotId> mapping;
  std::optional<HybridSolver> solver;
  if (group_cores) {
    // Node-sized groups, mapped as a 1-core problem onto the same nodes.
    absl::StatusOr<CoreGroups> grouped =
        GroupTasksByNode(graph, cores, RandomStream(input.options.seed, kCoreGroupSeedItem).Next(),
                         /*use_metis=*/!parts_stop.ShouldStop(), options.max_parts_per_level);
    if (!grouped.ok()) return grouped.status();
    std::vector<NodeId> nodes(allocation.num_nodes());
    for (int32_t q = 0; q < allocation.num_nodes(); ++q) nodes[q] = allocation.node_at(q);
    absl::StatusOr<Allocation> one_core =
        Allocation::Create(allocation.shared_machine(), std::move(nodes), 1);
    if (!one_core.ok()) return one_core.status();
    // Leaves by GRASP or refinement after the problem's slots, not the nodes
    // (docs/tuning.md).
    solver.emplace(options, input.options, parts_stop,
                   allocation.num_slots() <= options.grasp_leaves_max_slots,
                   allocation.machine().num_nodes());
    const std::vector<SlotId> position_of_group =
        solver->Solve(grouped->graph, *one_core, input.options.seed, 0);
    // Each group's tasks on its node's cores, in task order.
    std::vector<int32_t> used(grouped->graph.num_tasks(), 0);
    mapping.resize(n);
    for (TaskId t = 0; t < n; ++t) {
      const int32_t g = grouped->group_of_task[t];
      mapping[t] = position_of_group[g] * cores + used[g]++;
    }
  } else {
    solver.emplace(options, input.options, parts_stop,
                   allocation.num_slots() <= options.grasp_leaves_max_slots,
                   allocation.machine().num_nodes());
    mapping = solver->Solve(graph, allocation, input.options.seed, 0);
  }
  const absl::Time parts_done = absl::Now();
  // Never above in-order (docs/tuning.md). O(E) to check; the final search starts
  // from the better one.
  Placement placement(graph, allocation, std::move(mapping));
  bool from_in_order = false;
  if (n > 0) {
    Placement in_order(graph, allocation, InOrder(graph));
    if (in_order.hop_bytes() < placement.hop_bytes()) {
      placement = std::move(in_order);
      from_in_order = true;
    }
  }
  FinalRefineStats refined;
  if (options.refine.max_passes > 0 && n > 0 && !input.stop.ShouldStop()) {
    refined = FinalRefine(placement, options, solver->leaf_of_node(), input.stop);
  }
  mapping = std::move(placement).Release();
  const LevelStats stats = solver->stats();
  MapOutput out;
  out.slot_of_task = std::move(mapping);
  out.variant =
      absl::StrCat(group_cores ? absl::StrCat("tasks grouped by ", cores, " per node, ") : "",
                   "leaves by ", solver->uses_grasp() ? "GRASP" : "refinement",
                   from_in_order ? ", refined from in-order (it was better)" : "");
  out.stats = {
      {"levels", static_cast<double>(stats.depth)},
      {"top_parts", static_cast<double>(stats.top_parts)},
      {"leaves", static_cast<double>(stats.leaves)},
      {"mirrored_parts", static_cast<double>(stats.flips)},
      // Groups the time limit left unsolved, placed greedily (breadth-first).
      {"groups_placed_greedily", static_cast<double>(stats.unsolved)},
      {"boundary_exchanges", static_cast<double>(refined.exchanges)},
      {"boundary_passes", static_cast<double>(refined.passes)},
      {"boundary_start_tasks", static_cast<double>(refined.first_active)},
      {"boundary_work_cap", refined.work_cap ? 1.0 : 0.0},
      {"parts_seconds", absl::ToDoubleSeconds(parts_done - start)},
      {"boundary_seconds", absl::ToDoubleSeconds(absl::Now() - parts_done)},
  };
  return out;
}

}  // namespace hopmap
