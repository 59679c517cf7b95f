// hilbert: space-filling-curve mapping (seed 000 section VI, Heuristic 3).
#ifndef HOPMAP_CORE_MAPPERS_GRID_HILBERT_H_
#define HOPMAP_CORE_MAPPERS_GRID_HILBERT_H_

#include <cstdint>
#include <vector>

#include "core/mappers/mapper.h"

namespace hopmap {

// Orders the coarse task grid's cells (one per node, CoarsenByCores) along a
// generalized Hilbert curve ("Gilbert", any side lengths, unit steps: 2D and 3D;
// a snake above 3 dims), orders the allocated nodes along the machine's curve over
// their coordinates (any allocation, fragmented too: Gilbert over the nodes'
// bounding box when it is at most 64x the node count and 3 dims or fewer, else
// Skilling's N-D Hilbert index of each node, sorted), and gives the i-th cell to
// the i-th node. Variants: the grid curve led by either end of the dim list, the
// machine curve over each order of the machine dims (at most 24); the best by
// hop-bytes is kept. Machines without coordinates: FailedPrecondition.
class HilbertMapper final : public Mapper {
 public:
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;
};

// The cells of a dims[0] x dims[1] (x dims[2]) box in generalized Hilbert order,
// as linear indices (first dim fastest). 1 to 3 dims; more get a boustrophedon.
std::vector<int64_t> GilbertOrder(const std::vector<int32_t>& dims);

// Skilling's Hilbert index of `coords` (each < 2^bits) as big-endian 64-bit words.
std::vector<uint64_t> HilbertKey(std::vector<uint32_t> coords, int bits);

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_GRID_HILBERT_H_
