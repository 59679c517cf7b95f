// Node selections: which machine nodes an allocation holds, as a user writes them.
#ifndef HOPMAP_CORE_TOPOLOGY_NODE_SELECTION_H_
#define HOPMAP_CORE_TOPOLOGY_NODE_SELECTION_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/topology/machine.h"
#include "core/types.h"

namespace hopmap {

// Parses a node selection: items separated by top-level commas (commas inside [...]
// belong to a hostlist), each one of
//   "17"                      a node id,
//   "0-99"                    an inclusive id range,
//   "nid[00012-00100,00200]"  a host name or Slurm hostlist expression, each name
//   "circe-n005"              resolved with machine.node_names().Find().
// Spaces around items are ignored. The order is kept as written (an allocation is
// ordered); duplicates are NOT checked here (Allocation::Create does). Errors: an id
// outside the machine, a reversed range, an unknown host name, an empty item or
// selection, or more than 10,000,000 nodes in all.
absl::StatusOr<std::vector<NodeId>> ParseNodeSelection(absl::string_view text,
                                                       const Machine& machine);

}  // namespace hopmap

#endif  // HOPMAP_CORE_TOPOLOGY_NODE_SELECTION_H_
