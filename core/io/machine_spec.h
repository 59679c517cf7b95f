// Machine spec strings, as --machine takes them, and node selections (--nodes).
#ifndef HOPMAP_CORE_IO_MACHINE_SPEC_H_
#define HOPMAP_CORE_IO_MACHINE_SPEC_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/topology/machine.h"

namespace hopmap {

// Accepts a catalog name (BuiltinCatalog) or KIND:ARGS[:key=value]... (machine_kinds.h):
//   torus:25x16x24   mesh:32x32   (options wrap=101 per dimension, cores=N)
//   fattree:64x64    (arities top to bottom)
//   hierarchy:4x16x16:distances=1,10,100  (arities and distances lowest level
//                    first, as the literature writes H and D; one PE per node)
//   chipmesh:4x4     (options nodes=96, hops=1,2,3,4,5,6)
//   dragonfly:G,A,P  (groups, routers per group, nodes per router)
//   slurm:FILE       (a Slurm topology.conf)
//   slurm-topology:FILE[:NAME]  (a topology of Slurm's topology.yaml or .conf)
//   graph:FILE       (hopmap's switch-graph file)
//   matrix:FILE      (an explicit hop matrix)
// Every kind takes cores=N (default 1), link-bandwidth=BYTES_PER_S and
// link-latency=SECONDS (each directed link's, for `hopmap simulate`; not matrix),
// and the generated kinds prefix=P and
// width=W for node names (default nid + 5 digits). Errors name the part that is
// wrong and list what is accepted.
absl::StatusOr<std::shared_ptr<Machine>> ParseMachineSpec(const std::string& spec);

// A spec's kind and ARGS as ParseMachineSpec reads them: a catalog name expanded,
// the options peeled off the end ("slurm-topology:t.yaml:fabric:cores=4" ->
// "slurm-topology", "t.yaml:fabric"). nullopt when the spec names no known kind.
struct MachineSpecKindArgs {
  std::string kind;
  std::string args;
};
std::optional<MachineSpecKindArgs> SplitMachineSpec(const std::string& spec);

// A node selection: what ParseNodeSelection accepts ("0-99,200-299",
// "nid[00012-00100]"), or "@FILE" holding one such selection per line
// ('#' comments, blank lines skipped; errors name FILE:LINE).
absl::StatusOr<std::vector<NodeId>> ReadNodeSelection(const std::string& arg,
                                                      const Machine& machine);

// The items of a node-list file (@FILE): each non-blank line with '#' comments
// removed, with its line number. NotFound if the file cannot be opened;
// InvalidArgument "FILE: no nodes listed" if it holds no item.
struct NodeListItem {
  int line = 0;
  std::string text;
};
absl::StatusOr<std::vector<NodeListItem>> ReadNodeListFile(const std::string& path);

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_MACHINE_SPEC_H_
