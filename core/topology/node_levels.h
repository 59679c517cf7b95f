// The levels inside a node (NodeInterior) as a machine of their own, so that the
// node's PEs can be mapped onto like any allocation's nodes: the mappers' and the
// balancers' placement inside nodes share it.
#ifndef HOPMAP_CORE_TOPOLOGY_NODE_LEVELS_H_
#define HOPMAP_CORE_TOPOLOGY_NODE_LEVELS_H_

#include <optional>

#include "core/topology/allocation.h"
#include "core/topology/node_interior.h"

namespace hopmap {

// The node's levels as an allocation whose nodes are the PEs (a hierarchy machine
// with the levels' arities and distances, every PE allocated), or nothing when they
// make none.
std::optional<Allocation> NodeLevelsAsAllocation(const NodeInterior& interior);

}  // namespace hopmap

#endif  // HOPMAP_CORE_TOPOLOGY_NODE_LEVELS_H_
