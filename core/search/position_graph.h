// What the constructive mappers (gge, mahd, emahd, rcm, rec-bisect) share: a sparse
// graph of "near" allocated nodes, each node's centrality, a search for the best
// free node near a set of nodes, and reverse Cuthill-McKee orderings.
#ifndef HOPMAP_CORE_SEARCH_POSITION_GRAPH_H_
#define HOPMAP_CORE_SEARCH_POSITION_GRAPH_H_

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "core/graph/task_graph.h"
#include "core/topology/allocation.h"
#include "core/types.h"

namespace hopmap {

// A directed neighbour list per allocation position. On a torus or mesh the
// neighbours are the allocated nodes one hop away (found from coordinates, O(m));
// a position with none of those, and every position on other machines, gets the
// allocated nodes at its smallest distance (at most kMaxNearest of them) and a few
// at each of the next two distances, the next ones after it in cyclic position
// order, so that fat-tree leaves and allocation islands stay linked. It is a
// search aid: distances still come from the allocation.
//
// Blocks: consecutive runs of kBlockSize positions in breadth-first order over
// that graph (so each block is a compact patch), with the graph between blocks.
// A search that must cross a large full region walks blocks, kBlockSize times
// fewer steps.
struct PositionGraph {
  static constexpr int kMaxNearest = 16;
  static constexpr int kBlockSize = 64;
  std::vector<int64_t> xadj;  // num_nodes + 1 offsets
  std::vector<int32_t> adj;
  std::vector<int32_t> block_of;           // per position
  std::vector<int64_t> block_member_xadj;  // per block + 1
  std::vector<int32_t> block_members;      // positions, by block
  std::vector<int64_t> block_xadj;         // per block + 1
  std::vector<int32_t> block_adj;          // neighbouring blocks
  [[nodiscard]] int32_t num_blocks() const {
    return static_cast<int32_t>(block_member_xadj.size()) - 1;
  }

  // link_farther = false keeps only the smallest distance (rcm's node order:
  // on a fat tree, leaf after leaf).
  static PositionGraph Build(const Allocation& allocation, bool link_farther = true);
  [[nodiscard]] int32_t num_positions() const { return static_cast<int32_t>(xadj.size()) - 1; }
  [[nodiscard]] std::span<const int32_t> neighbors(int32_t p) const {
    return {adj.data() + xadj[p], adj.data() + xadj[p + 1]};
  }
};

// Into `out`, sorted and each once: the positions of task t's neighbours (and of t
// itself when `with_own`) and their neighbours in `near`, where an exchange of t
// can shorten or unload its edges. `position_of(task)` gives a task's position.
template <typename PositionOf>
void PositionsNearTask(const PositionGraph& near, const TaskGraph& graph, TaskId t, bool with_own,
                       PositionOf position_of, std::vector<int32_t>& out) {
  out.clear();
  auto near_to = [&](int32_t p) {
    out.push_back(p);
    for (const int32_t q : near.neighbors(p)) out.push_back(q);
  };
  if (with_own) near_to(position_of(t));
  graph.ForEachNeighbor(t, [&](TaskId v, Bytes) { near_to(position_of(v)); });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

// For every position, the sum of hops to every allocated node (lower = more
// central). Exact: per-dimension histograms on a torus/mesh, the dense matrix
// when there is one; otherwise estimated against an evenly spaced sample of at
// most 1024 positions.
std::vector<int64_t> SumOfHopsToAll(const Allocation& allocation);

// Positions sorted by SumOfHopsToAll ascending, ties by position.
std::vector<int32_t> PositionsByCentrality(const Allocation& allocation);

// The machine coordinates of every allocated node, position-major: position p's
// coordinates are at [p * nd, (p + 1) * nd) with nd = machine().dims().size().
std::vector<int32_t> FlatPositionCoordinates(const Allocation& allocation);

// Orders `positions` so that splitting the list at any index gives two compact
// parts (recursive bisection of the allocation). With coordinates (`nd` > 0,
// `coords` from FlatPositionCoordinates): by the longest extent of their bounding
// box, then the other coordinates, then position. Without (nd == 0): by the farthest
// pair (a, b), sorting by (hops(a, x) - hops(b, x), hops(a, x), x).
void OrderForSplit(const Allocation& allocation, std::span<const int32_t> coords, int nd,
                   std::span<int32_t> positions);

// The allocation's positions as a tree of groups in which any two members of
// different children are equally far apart: the levels of a hierarchy machine
// (racks, nodes), or of a fat-tree's switches.
struct PositionGroup {
  std::vector<int32_t> positions;       // ascending
  std::vector<PositionGroup> children;  // empty: one position
  int32_t height = 0;                   // levels below this group (0 for a position)
};

// The allocation's group tree, or an empty tree (no positions) when the distances are not a
// hierarchy's: some two members of different children of a group are not at the group's diameter.
PositionGroup HierarchyOfPositions(const Allocation& allocation);

// On a hierarchy (HierarchyOfPositions): orders `positions` by the group of the
// set's top level each is in (groups in the order of their first member, members
// in the order given) and returns where the first half ends: the boundary between
// two groups nearest to the middle (the lower on ties), so that no group is cut.
// Halving by count would cut one when the top level has an odd number of them (3
// racks: 1.5 | 1.5, every edge inside the cut rack then paying the top distance).
size_t OrderHierarchyForSplit(const Allocation& allocation, std::span<int32_t> positions);

// One node the task being placed talks to: its position and two weights. The cost
// of a candidate node q is (sum primary * hops(q, position), sum secondary * hops)
// compared lexicographically, then by q.
struct PlacementSource {
  int32_t position;
  int64_t primary;
  int64_t secondary;
};

// The free cores of an allocation while a greedy mapping fills it, and the search
// for the cheapest free node near a set of source nodes. Not thread-safe: one per
// greedy run. Cost per search: a breadth-first search over PositionGraph from the
// sources that stops one level past the first free node (at most kMaxCandidates
// candidates costed exactly); past kMaxFineVisits visited nodes, the same search
// over blocks, costing the free nodes of the first blocks that have one; when
// the sources' component is full, a scan of all free nodes.
class FreeSlotSearch {
 public:
  static constexpr int kMaxCandidates = 64;
  static constexpr int kExtraLevels = 1;
  static constexpr int kMaxFineVisits = 512;

  FreeSlotSearch(const Allocation& allocation, const PositionGraph& graph);

  [[nodiscard]] bool HasFree(int32_t position) const {
    return used_[position] < allocation_->cores_per_node();
  }
  [[nodiscard]] int64_t num_free_positions() const {
    return static_cast<int64_t>(free_list_.size());
  }
  // Takes the next free core of `position` (which must have one); returns its slot.
  SlotId Take(int32_t position);

  // The free position of lowest cost for `sources` (merged by position; weights
  // must be >= 0). With no sources: the first free position in `fallback_order`
  // (e.g. by centrality). Requires a free slot somewhere.
  int32_t FindBest(std::span<const PlacementSource> sources,
                   std::span<const int32_t> fallback_order);

 private:
  struct Cost {
    int64_t primary;
    int64_t secondary;
  };
  Cost CostAt(int32_t q) const;
  // Fills candidates_ from a breadth-first search over blocks.
  void BlockSearch();

  const Allocation* allocation_;
  const PositionGraph* graph_;
  std::vector<int32_t> used_;           // cores taken per position
  std::vector<int32_t> free_list_;      // positions with a free core
  std::vector<int32_t> index_in_free_;  // -1 once full
  size_t fallback_cursor_ = 0;
  // Search scratch: visit stamps and the merged sources.
  std::vector<uint32_t> stamp_;
  uint32_t current_stamp_ = 0;
  std::vector<int32_t> source_index_;  // position -> index into merged_, valid under stamp
  std::vector<uint32_t> source_stamp_;
  std::vector<PlacementSource> merged_;
  std::vector<int32_t> frontier_, next_, candidates_;
  std::vector<int32_t> free_in_block_;  // positions with a free core, per block
  std::vector<uint32_t> block_stamp_;
};

// Reverse Cuthill-McKee order of a CSR graph (xadj/adj, symmetric or not): each
// component from a pseudo-peripheral vertex of low degree, neighbours visited by
// increasing degree (ties by id), the whole sequence reversed. Components follow
// each other by their lowest vertex id. O(E log deg).
std::vector<int32_t> ReverseCuthillMcKee(std::span<const int64_t> xadj,
                                         std::span<const int32_t> adj);

}  // namespace hopmap

#endif  // HOPMAP_CORE_SEARCH_POSITION_GRAPH_H_
