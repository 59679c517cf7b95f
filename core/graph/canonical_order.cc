#include "core/graph/canonical_order.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "tbb/parallel_for.h"
#include "tbb/parallel_sort.h"

namespace hopmap {
namespace {

// Refinement rounds: each extends what a label sees by one more ring of neighbours.
// It stops earlier once the labels split the tasks no further (on meshes and random
// geometric graphs nearly every label is distinct after two or three rounds); the
// long chains of a road network need more.
constexpr int kMaxRounds = 16;

uint64_t Mix(uint64_t x) {  // SplitMix64's finalizer
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

int64_t DistinctCount(std::vector<uint64_t> labels) {
  tbb::parallel_sort(labels.begin(), labels.end());
  return std::unique(labels.begin(), labels.end()) - labels.begin();
}

std::vector<uint64_t> Labels(const TaskGraph& graph, std::span<const double> loads) {
  const TaskId n = graph.num_tasks();
  std::vector<uint64_t> label(n);
  std::vector<uint64_t> next(n);
  tbb::parallel_for(TaskId{0}, n, [&](TaskId t) {
    const double load = loads.empty() ? 1.0 : loads[t];
    label[t] = Mix(Mix(static_cast<uint64_t>(graph.degree(t))) ^ std::bit_cast<uint64_t>(load));
  });
  int64_t distinct = DistinctCount(label);
  for (int round = 0; round < kMaxRounds && distinct < n; ++round) {
    tbb::parallel_for(TaskId{0}, n, [&](TaskId t) {
      // A sum of hashes: the same for any order of the neighbours.
      uint64_t around = 0;
      graph.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
        around += Mix(label[u] ^ Mix(static_cast<uint64_t>(w) + 0x9e3779b97f4a7c15ULL));
      });
      next[t] = Mix(label[t] * 0x2545f4914f6cdd1dULL + around);
    });
    const int64_t refined = DistinctCount(next);
    if (refined <= distinct) break;  // stable: another round splits nothing
    label.swap(next);
    distinct = refined;
  }
  return label;
}

}  // namespace

std::vector<TaskId> CanonicalOrder(const TaskGraph& graph, std::span<const double> loads) {
  const TaskId n = graph.num_tasks();
  const std::vector<uint64_t> label = Labels(graph, loads);
  auto before = [&](TaskId a, TaskId b) {
    return label[a] != label[b] ? label[a] < label[b] : a < b;
  };
  std::vector<TaskId> order;
  order.reserve(n);
  std::vector<uint8_t> seen(n, 0);
  std::vector<TaskId> position(n, -1);  // in `order`, once placed
  // Tasks of one label reached together are told apart by where their placed
  // neighbours are (a canonical fact once the order so far is): the label sees the
  // neighbourhood's shape, not which of its tasks came first.
  auto placed_neighbours = [&](TaskId t) {
    std::vector<std::pair<TaskId, Bytes>> at;
    graph.ForEachNeighbor(t, [&](TaskId u, Bytes w) {
      if (position[u] >= 0) at.push_back({position[u], w});
    });
    std::sort(at.begin(), at.end());
    return at;
  };
  std::vector<TaskId> reached;
  auto place = [&](TaskId t) {
    position[t] = static_cast<TaskId>(order.size());
    order.push_back(t);
  };
  auto search_from = [&](TaskId root) {
    seen[root] = 1;
    place(root);
    for (size_t head = order.size() - 1; head < order.size(); ++head) {
      reached.clear();
      graph.ForEachNeighbor(order[head], [&](TaskId u, Bytes) {
        if (!seen[u]) {
          seen[u] = 1;
          reached.push_back(u);
        }
      });
      std::sort(reached.begin(), reached.end(), before);
      for (size_t begin = 0; begin < reached.size();) {
        size_t end = begin + 1;
        while (end < reached.size() && label[reached[end]] == label[reached[begin]]) ++end;
        if (end - begin > 1) {
          std::vector<std::pair<std::vector<std::pair<TaskId, Bytes>>, TaskId>> keyed;
          for (size_t k = begin; k < end; ++k) {
            keyed.push_back({placed_neighbours(reached[k]), reached[k]});
          }
          std::sort(keyed.begin(), keyed.end());
          for (size_t k = begin; k < end; ++k) reached[k] = keyed[k - begin].second;
        }
        begin = end;
      }
      for (TaskId u : reached) place(u);
    }
  };
  if (n == 0) return order;
  // The first root by a scan; the other components' (usually few tasks) from the
  // tasks left, sorted once.
  TaskId first = 0;
  for (TaskId t = 1; t < n; ++t) {
    if (before(t, first)) first = t;
  }
  search_from(first);
  std::vector<TaskId> left;
  for (TaskId t = 0; t < n; ++t) {
    if (!seen[t]) left.push_back(t);
  }
  std::sort(left.begin(), left.end(), before);
  for (TaskId root : left) {
    if (!seen[root]) search_from(root);
  }
  return order;
}

int64_t CanonicalLabelCount(const TaskGraph& graph, std::span<const double> loads) {
  return DistinctCount(Labels(graph, loads));
}

}  // namespace hopmap
