// rec-bisect: Hoefler & Snir's recursive bisection of the task graph (METIS) and of
// the allocation, matched half to half.
#ifndef HOPMAP_CORE_MAPPERS_REC_BISECT_H_
#define HOPMAP_CORE_MAPPERS_REC_BISECT_H_

#include "core/mappers/mapper.h"

namespace hopmap {

// Splits the allocated nodes in two halves (sizes ceil(m/2) and floor(m/2)): on a
// torus/mesh across the longest dimension of their bounding box; elsewhere by the
// farthest pair (a, b), sorting nodes by hops(a, x) - hops(b, x). The tasks go
// first to the first half up to its slots (so fewer tasks than slots stay
// compact), the rest to the second; METIS_PartGraphRecursive cuts the task graph
// into parts of those sizes (target weights, a fixed METIS seed from the options),
// exact sizes restored by moving the vertices that gain most. Recurses until a
// half is one node. Graphs METIS refuses or cannot help with (no edges inside,
// an error code) are cut in breadth-first order instead. O(E log m) plus METIS.
class RecursiveBisectionMapper final : public Mapper {
 public:
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_REC_BISECT_H_
