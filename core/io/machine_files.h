// Readers for machine files: Slurm topology.conf, hopmap's switch-graph format, and
// a hop-distance matrix. Every error reads "PATH:LINE: message" (or "PATH: message"
// when no one line is to blame).
#ifndef HOPMAP_CORE_IO_MACHINE_FILES_H_
#define HOPMAP_CORE_IO_MACHINE_FILES_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/topology/distance_matrix.h"
#include "core/topology/switch_graph.h"

namespace hopmap {

// Reads a Slurm topology.conf for the tree plugin. Each line is
//   SwitchName=NAME [Switches=HOSTLIST] [Nodes=HOSTLIST] [LinkSpeed=N]
// with keys in any case, '#' comments, blank lines, and a trailing backslash that
// continues a line on the next one. Switches are numbered in the order of their
// SwitchName lines and compute nodes in the order they first appear in Nodes=; a
// node under two switches is linked to both. Host names are kept as written (no
// prefix is added or checked). Errors: an unknown key, a token that is not
// KEY=VALUE, a line without SwitchName, a switch defined twice, a Switches= name
// never defined by a SwitchName line, a bad hostlist, no nodes. A file whose
// switches are not connected (no top switch) gets a virtual root switch; see
// SwitchGraphMachine and its warnings(). A topology.conf of another plugin
// (BlockName=, RingName= lines) is refused: slurm-topology:FILE reads those
// (slurm_topology_machine.h, which builds this switch graph too). Spec() is
// "slurm:PATH".
absl::StatusOr<SwitchGraphMachine> ReadSlurmTopology(const std::string& path);
// The same from the file's text; `source` names it in errors ("SOURCE:LINE: ...").
absl::StatusOr<SwitchGraphMachine> ParseSlurmTopology(const std::string& text,
                                                      const std::string& source);

// Reads hopmap's switch-graph format, one statement per line:
//   # a comment (from '#' to the end of the line); blank lines are ignored
//   node HOSTLIST...     declares compute nodes; ids 0, 1, ... in the order declared
//   switch HOSTLIST...   declares switches
//   link A B             an undirected link between two declared names (a node and
//                        a switch, or two switches; for two switches A is read as the
//                        parent of B)
// Keywords are case-insensitive; a line may hold several hostlists separated by
// spaces ("node a[1-4] b[1-4]"). Names are declared once, anywhere in the file
// (a link may come before the declarations it uses). Errors: an unknown keyword, a
// name declared twice, a link that does not have two names or names an undeclared
// vertex, a node-node link ("connect nodes through a switch"), a link from a name
// to itself, a node attached to no switch (at the line declaring it), no nodes.
// Spec() is "graph:PATH".
absl::StatusOr<SwitchGraphMachine> ReadSwitchGraphFile(const std::string& path);
// The same from the file's text; `source` names it in errors.
absl::StatusOr<SwitchGraphMachine> ParseSwitchGraphFile(const std::string& text,
                                                        const std::string& source);

// Reads a square matrix of non-negative integer hop counts, one row per line,
// entries separated by whitespace and/or commas; '#' comments and blank lines are
// ignored. An optional first line "names: h1 h2 ..." gives the nodes' host names
// (separated by whitespace and/or commas). The matrix must have a zero diagonal and
// be symmetric (see DistanceMatrixMachine). Errors: a non-integer entry, a ragged
// row, a non-square matrix, a wrong number of names, and the first bad entry at its
// row's line. Spec() is "matrix:PATH".
absl::StatusOr<DistanceMatrixMachine> ReadDistanceMatrixFile(const std::string& path);
// The same from the file's text; `source` names it in errors.
absl::StatusOr<DistanceMatrixMachine> ParseDistanceMatrixFile(const std::string& text,
                                                              const std::string& source);

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_MACHINE_FILES_H_
