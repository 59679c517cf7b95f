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
// Tasks of one label reached together, up to this many, are placed one at a time.
constexpr size_t kOneAtATime = 64;
// How far, and over how many tasks, two tied tasks' surroundings are compared.
constexpr int32_t kProfileDepth = 8;
constexpr size_t kProfileTasks = 512;

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
  // What a task meets within kProfileDepth steps (up to kProfileTasks tasks), distance
  // by distance, placed tasks by their position and the others by label: tasks that
  // colour refinement leaves alike (the inside of a structured mesh) sit differently
  // against the order so far.
  std::vector<int32_t> depth_of(n, -1);
  auto profile = [&](TaskId t) {
    std::vector<std::pair<int32_t, uint64_t>> met;
    std::vector<TaskId> ball = {t};
    depth_of[t] = 0;
    for (size_t head = 0; head < ball.size() && ball.size() < kProfileTasks; ++head) {
      const int32_t depth = depth_of[ball[head]];
      if (depth == kProfileDepth) break;
      graph.ForEachNeighbor(ball[head], [&](TaskId u, Bytes) {
        if (depth_of[u] >= 0) return;
        depth_of[u] = depth + 1;
        ball.push_back(u);
        met.push_back(
            {depth + 1, position[u] >= 0 ? Mix(static_cast<uint64_t>(position[u]) + 1) : label[u]});
      });
    }
    for (TaskId u : ball) depth_of[u] = -1;
    std::sort(met.begin(), met.end());
    return met;
  };
  // Twins (the same neighbours, each other aside, by the same bytes) are
  // interchangeable: either order gives the same graph.
  auto twins = [&](TaskId a, TaskId b) {
    if (graph.degree(a) != graph.degree(b)) return false;
    std::vector<std::pair<TaskId, Bytes>> of_a;
    std::vector<std::pair<TaskId, Bytes>> of_b;
    graph.ForEachNeighbor(a, [&](TaskId u, Bytes w) { of_a.push_back({u == b ? a : u, w}); });
    graph.ForEachNeighbor(b, [&](TaskId u, Bytes w) { of_b.push_back({u == a ? a : u, w}); });
    std::sort(of_a.begin(), of_a.end());
    std::sort(of_b.begin(), of_b.end());
    return of_a == of_b;
  };
  std::vector<TaskId> reached;
  auto place = [&](TaskId t) {
    position[t] = static_cast<TaskId>(order.size());
    order.push_back(t);
  };
  // Places tasks of one label reached together. A few are placed one at a time,
  // each choice told apart by the ones before it: two triangles hanging off one task
  // are four tasks alike, and once one is placed its partner is not like the others.
  // Many (a hub's leaves) are sorted once.
  using Keyed = std::pair<std::vector<std::pair<TaskId, Bytes>>, TaskId>;
  std::vector<Keyed> keyed;
  auto place_tied = [&](std::span<TaskId> tied) {
    if (tied.size() > kOneAtATime) {
      keyed.clear();
      for (TaskId t : tied) keyed.push_back({placed_neighbours(t), t});
      std::sort(keyed.begin(), keyed.end());
      for (const Keyed& k : keyed) place(k.second);
      return;
    }
    for (size_t left = tied.size(); left > 0; --left) {
      size_t best = 0;
      Keyed best_key = {placed_neighbours(tied[0]), tied[0]};
      std::vector<std::pair<int32_t, uint64_t>> best_profile;  // computed when needed
      for (size_t k = 1; k < left; ++k) {
        Keyed key = {placed_neighbours(tied[k]), tied[k]};
        bool better = key.first < best_key.first;
        if (key.first == best_key.first && twins(key.second, best_key.second)) {
          better = key.second < best_key.second;  // either gives the same graph
        } else if (key.first == best_key.first) {
          if (best_profile.empty()) best_profile = profile(best_key.second);
          std::vector<std::pair<int32_t, uint64_t>> key_profile = profile(tied[k]);
          better = key_profile != best_profile ? key_profile < best_profile
                                               : key.second < best_key.second;
          if (better) best_profile = std::move(key_profile);
        } else if (better) {
          best_profile.clear();
        }
        if (better) {
          best = k;
          best_key = std::move(key);
        }
      }
      place(tied[best]);
      std::swap(tied[best], tied[left - 1]);
    }
  };
  // Every task a head reaches is placed before the next head is looked at, so a
  // task not placed yet has not been reached.
  auto search_from = [&](TaskId root) {
    place(root);
    for (size_t head = order.size() - 1; head < order.size(); ++head) {
      reached.clear();
      graph.ForEachNeighbor(order[head], [&](TaskId u, Bytes) {
        if (position[u] < 0) reached.push_back(u);
      });
      std::sort(reached.begin(), reached.end(), before);
      for (size_t begin = 0; begin < reached.size();) {
        size_t end = begin + 1;
        while (end < reached.size() && label[reached[end]] == label[reached[begin]]) ++end;
        place_tied(std::span<TaskId>(reached.data() + begin, end - begin));
        begin = end;
      }
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
    if (position[t] < 0) left.push_back(t);
  }
  std::sort(left.begin(), left.end(), before);
  for (TaskId root : left) {
    if (position[root] < 0) search_from(root);
  }
  return order;
}

int64_t CanonicalLabelCount(const TaskGraph& graph, std::span<const double> loads) {
  return DistinctCount(Labels(graph, loads));
}

}  // namespace hopmap
