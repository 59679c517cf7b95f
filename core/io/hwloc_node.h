// node=hwloc:FILE (docs/formats.md#inside-the-node): the inside of a node from an
// hwloc XML topology (`lstopo --of xml`, `hwloc-gather-topology`), read with libhwloc.
#ifndef HOPMAP_CORE_IO_HWLOC_NODE_H_
#define HOPMAP_CORE_IO_HWLOC_NODE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/topology/node_interior.h"

namespace hopmap {

// The default node distances of hwloc's levels: PEs (cores) sharing an L3 cache, a
// NUMA node, a package, the node.
inline constexpr int32_t kHwlocL3Distance = 1;
inline constexpr int32_t kHwlocNumaDistance = 2;
inline constexpr int32_t kHwlocPackageDistance = 5;
inline constexpr int32_t kHwlocNodeDistance = 10;

// The node's cores are its PEs, in hwloc's logical order (PUs of one core are one
// PE). Levels are the groups that nest and have more than one member: L3 caches,
// NUMA nodes, packages, then the node, lowest first; each must hold the same
// number of cores everywhere and its cores must be consecutive. Distances:
// `distances` when given (one per level), else the defaults above by level, those
// above the NUMA level scaled by the file's NUMA latency matrix when it has one (the
// mean latency between NUMA nodes whose lowest common level is that one over the
// mean local latency). Errors name the file and what is wrong (InvalidArgument; a
// missing file is NotFound).
absl::StatusOr<NodeInterior> ReadHwlocNodeInterior(
    const std::string& path, const std::optional<std::vector<int32_t>>& distances,
    int32_t hop_cost);

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_HWLOC_NODE_H_
