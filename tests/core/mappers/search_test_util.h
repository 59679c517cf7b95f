// Small problems and brute force for the local-search and GRASP tests.
#ifndef HOPMAP_TESTS_CORE_MAPPERS_SEARCH_TEST_UTIL_H_
#define HOPMAP_TESTS_CORE_MAPPERS_SEARCH_TEST_UTIL_H_

#include <algorithm>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/graph/generators.h"
#include "core/graph/task_graph.h"
#include "core/search/random_stream.h"
#include "core/topology/allocation.h"
#include "core/topology/distance_matrix.h"
#include "core/topology/torus.h"
#include "gtest/gtest.h"

namespace hopmap::testing {

// Each pair of tasks is joined with probability `density`, weight 1..max_weight.
inline TaskGraph RandomGraph(TaskId n, double density, int64_t max_weight, uint64_t seed) {
  RandomStream random(seed, 0);
  TaskGraphBuilder builder(n);
  for (TaskId u = 0; u < n; ++u) {
    for (TaskId v = u + 1; v < n; ++v) {
      if (random.Unit() < density) {
        (void)builder.AddTraffic(u, v, 1 + static_cast<Bytes>(random.Below(max_weight)));
      }
    }
  }
  return *std::move(builder).Build();
}

// A generated graph (core/graph/generators.h): a stencil of `dims`, or `tasks` tasks.
inline TaskGraph Generate(const std::string& kind, std::vector<int32_t> dims, int32_t tasks = 0) {
  GeneratorOptions options;
  options.kind = kind;
  options.dims = std::move(dims);
  options.tasks = tasks;
  return *GenerateGraph(options);
}

// Every node of a periodic torus of `dims`, with `cores` per node.
inline Allocation WholeTorus(std::vector<int32_t> dims, int32_t cores) {
  std::vector<bool> wrap(dims.size(), true);
  auto torus = std::make_shared<TorusMachine>(*TorusMachine::Create(dims, wrap));
  std::vector<NodeId> nodes(torus->num_nodes());
  std::iota(nodes.begin(), nodes.end(), 0);
  return *Allocation::Create(torus, std::move(nodes), cores);
}

// 160 nodes of an 8x8x8 torus in five runs of consecutive ids (what a scheduler that
// fills free nodes in name order leaves a job), 4 cores each: 640 slots.
inline Allocation FragmentedTorus8() {
  auto torus = std::make_shared<TorusMachine>(*TorusMachine::Create({8, 8, 8}, {true, true, true}));
  std::vector<NodeId> nodes;
  for (const auto& [first, count] :
       {std::pair{10, 20}, {75, 40}, {200, 30}, {301, 45}, {460, 25}}) {
    for (NodeId n = first; n < first + count; ++n) nodes.push_back(n);
  }
  return *Allocation::Create(torus, std::move(nodes), 4);
}

// Every task on an allocated slot, no slot twice (so no node over its cores).
inline void ExpectValidMapping(const Allocation& allocation, const TaskGraph& graph,
                               const std::vector<SlotId>& mapping) {
  const absl::Status status = ValidateMapping(allocation, graph.num_tasks(), mapping);
  ASSERT_TRUE(status.ok()) << status;
}

// A fragmented allocation of a 4x3x2 torus (mixed wrap) with `cores` per node.
inline Allocation FragmentedTorusAllocation(std::vector<NodeId> nodes, int32_t cores) {
  auto torus =
      std::make_shared<TorusMachine>(*TorusMachine::Create({4, 3, 2}, {true, false, true}));
  return *Allocation::Create(torus, std::move(nodes), cores);
}

// m nodes at random distances 1..max_hops (symmetric), one core each: a QAP.
inline Allocation RandomDistanceAllocation(int32_t m, int32_t max_hops, uint64_t seed) {
  RandomStream random(seed, 1);
  std::vector<int32_t> hops(static_cast<size_t>(m) * m, 0);
  for (int32_t a = 0; a < m; ++a) {
    for (int32_t b = a + 1; b < m; ++b) {
      hops[a * m + b] = hops[b * m + a] = 1 + static_cast<int32_t>(random.Below(max_hops));
    }
  }
  auto machine =
      std::make_shared<DistanceMatrixMachine>(*DistanceMatrixMachine::Create(m, std::move(hops)));
  std::vector<NodeId> nodes(m);
  std::iota(nodes.begin(), nodes.end(), 0);
  return *Allocation::Create(machine, std::move(nodes), 1);
}

// Hop-bytes recomputed from scratch (no shared code with the mappers).
inline HopBytes BruteHopBytes(const TaskGraph& graph, const Allocation& allocation,
                              const std::vector<SlotId>& slot_of_task) {
  HopBytes total = 0;
  for (TaskId u = 0; u < graph.num_tasks(); ++u) {
    graph.ForEachNeighbor(u, [&](TaskId v, Bytes w) {
      if (u < v) total += w * allocation.HopsBetweenSlots(slot_of_task[u], slot_of_task[v]);
    });
  }
  return total;
}

// Hop-bytes of the in-order mapping (task t on slot t), by brute force.
inline HopBytes InOrderHopBytes(const TaskGraph& graph, const Allocation& allocation) {
  std::vector<SlotId> in_order(graph.num_tasks());
  std::iota(in_order.begin(), in_order.end(), 0);
  return BruteHopBytes(graph, allocation, in_order);
}

// The first exchange of two slots' occupants (tasks or empty) that lowers the
// recomputed hop-bytes of `mapping`, as (a, b); nullopt at a 2-exchange local optimum.
inline std::optional<std::pair<SlotId, SlotId>> FirstImprovingExchange(
    const TaskGraph& graph, const Allocation& allocation, const std::vector<SlotId>& mapping) {
  const HopBytes hb = BruteHopBytes(graph, allocation, mapping);
  std::vector<TaskId> task_at(allocation.num_slots(), -1);
  for (TaskId t = 0; t < graph.num_tasks(); ++t) task_at[mapping[t]] = t;
  for (SlotId a = 0; a < allocation.num_slots(); ++a) {
    for (SlotId b = a + 1; b < allocation.num_slots(); ++b) {
      std::vector<SlotId> other = mapping;
      if (task_at[a] >= 0) other[task_at[a]] = b;
      if (task_at[b] >= 0) other[task_at[b]] = a;
      if (BruteHopBytes(graph, allocation, other) < hb) return std::make_pair(a, b);
    }
  }
  return std::nullopt;
}

// The optimum over every injective task -> slot map (small problems only).
inline HopBytes BruteForceOptimum(const TaskGraph& graph, const Allocation& allocation) {
  std::vector<SlotId> slots(allocation.num_slots());
  std::iota(slots.begin(), slots.end(), 0);
  HopBytes best = -1;
  do {
    std::vector<SlotId> mapping(slots.begin(), slots.begin() + graph.num_tasks());
    const HopBytes hb = BruteHopBytes(graph, allocation, mapping);
    if (best < 0 || hb < best) best = hb;
  } while (std::next_permutation(slots.begin(), slots.end()));
  return best;
}

}  // namespace hopmap::testing

#endif  // HOPMAP_TESTS_CORE_MAPPERS_SEARCH_TEST_UTIL_H_
