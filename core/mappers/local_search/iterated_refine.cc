#include "core/mappers/local_search/iterated_refine.h"

#include <algorithm>
#include <optional>
#include <span>
#include <utility>

#include "core/mappers/local_search/refine.h"
#include "core/search/placement.h"
#include "core/search/position_graph.h"
#include "core/search/random_stream.h"

namespace hopmap {

std::vector<SlotId> PerturbAndRefine(const TaskGraph& graph, const Allocation& allocation,
                                     std::vector<SlotId> best, int64_t rounds, double work_budget,
                                     uint64_t seed, const StopCondition& stop,
                                     const PositionGraph* near_nodes) {
  constexpr int32_t kPatch = 12;
  Placement placement(graph, allocation, std::move(best));
  std::optional<PositionGraph> built;
  if (near_nodes == nullptr) built = PositionGraph::Build(allocation);
  const PositionGraph& near = near_nodes != nullptr ? *near_nodes : *built;
  // Rounds that keep failing mean the search is stuck: stop early (a count, not the
  // clock, so runs stay reproducible).
  const int64_t max_failures = std::max<int64_t>(50, rounds / 5);
  int64_t failures = 0;
  double work = 0;             // edges refine scanned (RefineStats::work)
  std::vector<TaskId> region;  // the patch and its neighbours: what refine revisits
  HopBytes best_hop_bytes = placement.hop_bytes();
  std::vector<TaskId> patch;
  std::vector<SlotId> slots;
  std::vector<char> in_patch(graph.num_tasks(), 0);
  // A failed round is undone from this journal: O(its exchanges), not O(tasks),
  // so rounds stay cheap on a million tasks. Between rounds the placement is the
  // best so far.
  std::vector<Placement::Exchange> journal;
  placement.set_journal(&journal);
  for (int64_t round = 0; round < rounds && !stop.ShouldStop(); ++round) {
    journal.clear();
    RandomStream random(seed ^ 0x5045525455524245ULL, static_cast<uint64_t>(round));
    patch.assign(1, static_cast<TaskId>(random.Below(graph.num_tasks())));
    in_patch[patch[0]] = 1;
    for (size_t i = 0; i < patch.size() && patch.size() < kPatch; ++i) {
      graph.ForEachNeighbor(patch[i], [&](TaskId u, Bytes) {
        if (patch.size() < kPatch && !in_patch[u]) {
          in_patch[u] = 1;
          patch.push_back(u);
        }
      });
    }
    slots.clear();
    for (TaskId t : patch) {
      slots.push_back(placement.slot_of(t));
      in_patch[t] = 0;
    }
    random.Shuffle(std::span<SlotId>(slots));
    // Apply the shuffle as exchanges, so the placement stays consistent.
    for (size_t i = 0; i < patch.size(); ++i) {
      const SlotId from = placement.slot_of(patch[i]);
      if (from != slots[i])
        placement.SwapSlots(from, slots[i], placement.SwapDelta(from, slots[i]));
    }
    region = patch;
    for (TaskId t : patch) in_patch[t] = 1;
    for (TaskId t : patch) {
      graph.ForEachNeighbor(t, [&](TaskId u, Bytes) {
        if (!in_patch[u]) {
          in_patch[u] = 1;
          region.push_back(u);
        }
      });
    }
    for (TaskId t : region) in_patch[t] = 0;
    const RefineStats stats = RefinePlacement(placement, RefineOptions{}, stop, region, &near);
    work += static_cast<double>(stats.work);
    if (placement.hop_bytes() < best_hop_bytes) {
      best_hop_bytes = placement.hop_bytes();
      failures = 0;
    } else {
      placement.Undo(journal);
      if (++failures >= max_failures) break;
    }
    if (work > work_budget) break;
  }
  placement.set_journal(nullptr);
  return std::move(placement).Release();
}

}  // namespace hopmap
