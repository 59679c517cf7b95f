// K-way Fiduccia-Mattheyses refinement of a partition's edge cut, with hill
// climbing: moves that raise the cut are taken too, and the pass returns to the best
// cut it saw (METIS's k-way refinement only takes moves that gain, so its cuts sit in
// the first local minimum; the multi-try FM of KaFFPa climbs out of them).
#ifndef HOPMAP_CORE_BALANCE_KWAY_FM_H_
#define HOPMAP_CORE_BALANCE_KWAY_FM_H_

#include <cstdint>
#include <span>
#include <vector>

namespace hopmap {

// A graph in compressed rows (as METIS takes it): vertex v's neighbours are
// adjncy[xadj[v] .. xadj[v + 1]) with weights adjwgt, v's weight vwgt[v].
struct CsrGraph {
  std::span<const int32_t> xadj;
  std::span<const int32_t> adjncy;
  std::span<const int32_t> adjwgt;
  std::span<const int32_t> vwgt;
  [[nodiscard]] int32_t num_vertices() const { return static_cast<int32_t>(vwgt.size()); }
};

struct KwayFmOptions {
  // Passes over the boundary; a pass that does not lower the cut ends it.
  int32_t max_passes = 8;
  // A pass stops after this many moves past the best cut it saw (at least 64), as a
  // fraction of the vertices.
  double patience = 0.02;
  // RefineKwayCutMultilevel: in the first flow_cycles V-cycles every level is
  // first refined by max-flow min-cut on the pairs of parts that share edges
  // (RefineKwayCutByFlows), then by the FM passes, as KaFFPa strong refines each
  // level. The V-cycles after them find little the flows would add.
  int32_t flow_cycles = 0;
};

// Refines `part` (values in [0, max_weight.size())) in place: a part never goes
// above its max_weight through a move. Parts already above it first give up
// vertices, the least loss first, to parts with room (the cut may rise there).
// Deterministic: ties between equal gains go to the lower vertex, then the lower
// part. Returns how much the cut (sum of the weights of edges between parts, each
// counted once) fell (negative when the balancing raised it more than FM won).
int64_t RefineKwayCut(const CsrGraph& graph, std::span<const int64_t> max_weight,
                      std::span<int32_t> part, const KwayFmOptions& options = {});

// RefineKwayCut as V-cycles (KaFFPa's global search): the graph is coarsened by
// matching each vertex with the neighbour of its own part it is most tied to (edge
// weight squared over the two weights, KaFFPa's rating), level after level, so the
// partition stays the same on every level; then refined from the coarsest level to
// the vertices. A coarse vertex's move moves a whole piece of a part at once, which
// no single move finds. Up to `cycles` V-cycles while one still lowers the cut; the
// matching order of each comes from (seed, cycle). Returns how much the cut fell.
int64_t RefineKwayCutMultilevel(const CsrGraph& graph, std::span<const int64_t> max_weight,
                                std::span<int32_t> part, uint64_t seed, int32_t cycles = 2,
                                const KwayFmOptions& options = {});

// The cut of a partition: the weights of edges between parts, each edge once.
int64_t KwayCut(const CsrGraph& graph, std::span<const int32_t> part);

}  // namespace hopmap

#endif  // HOPMAP_CORE_BALANCE_KWAY_FM_H_
