// Slurm's topology.conf, read into the structs topology.yaml is read into
// (slurm_topology_yaml.h): the one topology of the file, which Slurm names
// "default", for the plugin its lines are written for. docs/formats.md, "Slurm
// topology.conf".
#ifndef HOPMAP_CORE_IO_SLURM_TOPOLOGY_CONF_H_
#define HOPMAP_CORE_IO_SLURM_TOPOLOGY_CONF_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/io/slurm_topology_yaml.h"

namespace hopmap {

// The name Slurm gives the topology of a topology.conf.
inline constexpr char kSlurmConfTopologyName[] = "default";

// Reads a topology.conf: keys in any case, '#' comments, blank lines, a trailing
// backslash continuing a line. Each line is one of
//   SwitchName=NAME [Switches=HOSTLIST] [Nodes=HOSTLIST] [LinkSpeed=N]   (tree)
//   BlockName=NAME Nodes=HOSTLIST                                       (block)
//   BlockSizes=N[,N...]                                                 (block)
//   RingName=NAME Nodes=HOSTLIST                                        (ring)
// with its keys in any order; the first line decides the plugin, and a line of
// another plugin's is refused. The result has `conf` set and one topology named
// kSlurmConfTopologyName, or none when the file has no lines. Lines are checked as
// Slurm does: a name is one name, defined once; a child switch is defined by some
// SwitchName line; a block and a ring have nodes, a ring at most 16; BlockSizes are
// positive and given once; a tree has nodes under some switch; the hostlists name at
// most 2^18 hosts and switches in all. Errors: "PATH:LINE: message"
// (InvalidArgument; a missing file is NotFound).
absl::StatusOr<SlurmTopologyFile> ReadSlurmTopologyConf(const std::string& path);
// The same from the file's text; `source` names it in errors.
absl::StatusOr<SlurmTopologyFile> ParseSlurmTopologyConf(const std::string& text,
                                                         const std::string& source);

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_SLURM_TOPOLOGY_CONF_H_
