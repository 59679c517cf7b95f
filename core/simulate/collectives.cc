#include "core/simulate/collectives.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "core/graph/training_job.h"

namespace hopmap {
namespace {

// The depth of every rank under `parent` (the root at 0).
std::vector<int64_t> Depths(int64_t n, int64_t (*parent)(int64_t, int64_t)) {
  std::vector<int64_t> depth(static_cast<size_t>(n), -1);
  for (int64_t r = 0; r < n; ++r) {
    int64_t d = 0;
    for (int64_t up = parent(n, r); up >= 0; up = parent(n, up)) ++d;
    depth[static_cast<size_t>(r)] = d;
  }
  return depth;
}

std::vector<std::vector<TaskFlow>> TreePhases(std::span<const TaskId> ranks, uint64_t payload) {
  const int64_t n = static_cast<int64_t>(ranks.size());
  int64_t (*const parents[2])(int64_t, int64_t) = {NcclTreeParent, NcclSecondTreeParent};
  const uint64_t halves[2] = {payload - payload / 2, payload / 2};
  std::vector<int64_t> depths[2] = {Depths(n, parents[0]), Depths(n, parents[1])};
  const int64_t max_depth = std::max(*std::max_element(depths[0].begin(), depths[0].end()),
                                     *std::max_element(depths[1].begin(), depths[1].end()));
  std::vector<std::vector<TaskFlow>> phases(static_cast<size_t>(2 * max_depth));
  for (int tree = 0; tree < 2; ++tree) {
    if (halves[tree] == 0) continue;
    for (int64_t r = 0; r < n; ++r) {
      const int64_t up = parents[tree](n, r);
      if (up < 0) continue;
      const int64_t depth = depths[tree][static_cast<size_t>(r)];
      // Reduce: depth max_depth sends in phase 0; broadcast: depth 1 receives first.
      phases[static_cast<size_t>(max_depth - depth)].push_back(
          {ranks[static_cast<size_t>(r)], ranks[static_cast<size_t>(up)], halves[tree]});
      phases[static_cast<size_t>(max_depth + depth - 1)].push_back(
          {ranks[static_cast<size_t>(up)], ranks[static_cast<size_t>(r)], halves[tree]});
    }
  }
  return phases;
}

}  // namespace

int64_t NcclTreeParent(int64_t n, int64_t rank) {
  if (rank == 0) return -1;
  const int64_t bit = rank & -rank;
  const int64_t up = (rank ^ bit) | (bit << 1);
  return up < n ? up : rank ^ bit;
}

int64_t NcclSecondTreeParent(int64_t n, int64_t rank) {
  if (n % 2 == 1) {
    const int64_t up = NcclTreeParent(n, (rank - 1 + n) % n);
    return up < 0 ? -1 : (up + 1) % n;
  }
  const int64_t up = NcclTreeParent(n, n - 1 - rank);
  return up < 0 ? -1 : n - 1 - up;
}

std::vector<std::vector<TaskFlow>> AllReducePhases(std::span<const TaskId> ranks, uint64_t payload,
                                                   AllReduceAlgorithm algorithm) {
  const int64_t n = static_cast<int64_t>(ranks.size());
  if (n < 2 || payload == 0) return {};
  if (algorithm == AllReduceAlgorithm::kTree) return TreePhases(ranks, payload);
  std::vector<std::vector<TaskFlow>> phases;
  phases.push_back(RingPhase(ranks, RingAllReduceBytesPerRank(payload, n)));
  return phases;
}

std::vector<TaskFlow> RingPhase(std::span<const TaskId> ranks, uint64_t bytes) {
  const size_t n = ranks.size();
  std::vector<TaskFlow> flows;
  flows.reserve(n);
  for (size_t i = 0; i < n; ++i) flows.push_back({ranks[i], ranks[(i + 1) % n], bytes});
  return flows;
}

std::vector<std::vector<TaskFlow>> PairwiseAllToAllPhases(std::span<const TaskId> ranks,
                                                          uint64_t bytes) {
  const size_t n = ranks.size();
  std::vector<std::vector<TaskFlow>> phases(n < 2 ? 0 : n - 1);
  for (size_t k = 1; k < n; ++k) {
    std::vector<TaskFlow>& flows = phases[k - 1];
    flows.reserve(n);
    for (size_t i = 0; i < n; ++i) flows.push_back({ranks[i], ranks[(i + k) % n], bytes});
  }
  return phases;
}

void MergePhases(std::vector<std::vector<TaskFlow>> more,
                 std::vector<std::vector<TaskFlow>>& phases) {
  if (phases.size() < more.size()) phases.resize(more.size());
  for (size_t i = 0; i < more.size(); ++i) {
    if (phases[i].empty()) {
      phases[i] = std::move(more[i]);
    } else {
      phases[i].insert(phases[i].end(), std::make_move_iterator(more[i].begin()),
                       std::make_move_iterator(more[i].end()));
    }
  }
}

}  // namespace hopmap
