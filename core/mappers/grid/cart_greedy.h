// cart-greedy: seed 003's greedy N-D Cartesian mapping (Huedo et al., for
// MPI_Cart_create on the Cray T3E).
#ifndef HOPMAP_CORE_MAPPERS_GRID_CART_GREEDY_H_
#define HOPMAP_CORE_MAPPERS_GRID_CART_GREEDY_H_

#include "core/mappers/mapper.h"

namespace hopmap {

// Maps the coarse task grid (one cell per node) onto a box allocation. 1D: from the
// start node, each next cell takes the unused node at the least distance d from the
// current one, d = physical hops, ties to the least logical distance (difference of
// box-order ranks). N-D, recursively: a row (the fastest grid dim) is a 1D walk; the
// next row starts at the unused node nearest the previous row's start, and so on up
// the dims. The start is the first box node when the node count is even, the last
// otherwise (seed 003). Nearest-unused search: the box neighbours at L1 radius 1,
// then 2, then the nearest unused ranks on either side in box order (so O(n) overall,
// where the paper scans every node). Every order of the grid dims is tried (the paper
// advises the even dim first); the best by hop-bytes is kept, ties to the first.
class CartGreedyMapper final : public Mapper {
 public:
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_GRID_CART_GREEDY_H_
