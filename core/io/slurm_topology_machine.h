// The machine of one topology of Slurm's own topology files (topology.yaml or
// topology.conf), with the host names Slurm uses: the slurm-topology:FILE[:NAME]
// machine kind (issue 45). docs/formats.md, "Slurm topologies as machines".
//   tree     the switch tree, as slurm:FILE reads a topology.conf
//   block    a switch per base block, per aggregated block of Slurm's block levels
//            (block_sizes), and a top switch above what is left unjoined
//   ring     each ring a cycle of switches, one per position with its host; several
//            rings joined by a top switch at each ring's position 0
//   torus3d  the torus (a TorusMachine, node id x + X*(y + Y*z)), each host at its
//            cell; cells without a host are vacant (Machine::IsVacant)
//   flat     refused: it has no network to map onto
#ifndef HOPMAP_CORE_IO_SLURM_TOPOLOGY_MACHINE_H_
#define HOPMAP_CORE_IO_SLURM_TOPOLOGY_MACHINE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/io/slurm_topology_yaml.h"
#include "core/topology/machine.h"
#include "core/topology/switch_graph.h"

namespace hopmap {

// The spec's kind.
inline constexpr char kSlurmTopologyKind[] = "slurm-topology";

// A piece of the network, for `hopmap machines`: a switch, a block, an aggregated
// block, the top switch, a ring, a torus or one of its regions.
struct SlurmTopologyPart {
  std::string what;    // "switch", "block", "aggregate", "top", "ring", "torus", "region"
  std::string name;    // Slurm's name ("b[1-4]" for an aggregate); "" for a region
  std::string detail;  // "children leaf[1-2]", "level 2: 4 blocks", "4x4x2", ...
  std::string nodes;   // its hosts as a Slurm hostlist; "" for none
};

// What a slurm-topology machine was read from, beside the machine itself.
struct SlurmTopologySummary {
  std::string path;
  std::string format;    // "topology.yaml" or "topology.conf"
  std::string topology;  // the topology's name ("default" for a topology.conf)
  SlurmTopologyKind plugin = SlurmTopologyKind::kTree;
  bool cluster_default = false;  // the file's default (what Slurm uses without a choice)
  std::string network;           // one line: "5 switches", "4x4x2 = 32 cells, 30 hosts", ...
  std::vector<SlurmTopologyPart> parts;
  int64_t hosts = 0;
  std::string host_names;  // every host in node id order, as a Slurm hostlist
  int64_t vacant_cells = 0;
};

struct SlurmTopologyMachine {
  std::shared_ptr<Machine> machine;
  SlurmTopologySummary summary;
};

// The switch graph of a tree topology: its switches in file order, the nodes in the
// order they first appear under a switch (a node under two switches is linked to
// both), a link from each switch down to each child; a virtual root above switches
// that are not connected (SwitchGraphMachine). slurm:FILE reads a topology.conf
// with it. `spec` is what Spec() says. Errors: no nodes; what
// SwitchGraphMachine::Create refuses, "PATH: [topology 'NAME': ]switch graph: ...".
absl::StatusOr<SwitchGraphMachine> SlurmTreeSwitchGraph(const SlurmTopologyFile& file,
                                                        const SlurmTopology& tree,
                                                        std::string spec);

// Whether `text` is a topology.conf rather than a topology.yaml: its first line that
// is neither blank nor a '#' comment starts with KEY= (SwitchName=, BlockName=,
// BlockSizes=, RingName=, any key). Anything else is read as YAML.
bool IsSlurmTopologyConf(const std::string& text);

// The machine of topology `name` of `file` (empty: the file's default: the first
// with cluster_default: true, else its first, as Slurm orders them; a topology.conf
// takes no name). `spec_path` goes into Spec() ("slurm-topology:PATH[:NAME]", NAME
// for a topology.yaml's). Errors ("PATH[:LINE]: [topology 'NAME': ]problem",
// InvalidArgument): a name the file does not have or a name on a topology.conf (both
// listing what the file has); a flat topology; a host in two blocks, rings or cells;
// block_sizes Slurm refuses (not the base size times a power of two, 2^16 or more
// blocks); several toruses (give each its own topology); more than 2^18 cells.
absl::StatusOr<SlurmTopologyMachine> BuildSlurmTopologyMachine(const SlurmTopologyFile& file,
                                                               const std::string& name,
                                                               const std::string& spec_path);

// slurm-topology's ARGS, "FILE[:NAME]": NAME follows the last ':' unless all of ARGS
// is a file. The file is read as a topology.conf or a topology.yaml by its text
// (IsSlurmTopologyConf) and its topology built (BuildSlurmTopologyMachine). A file
// that cannot be opened is NotFound.
absl::StatusOr<SlurmTopologyMachine> ReadSlurmTopologyMachine(const std::string& args);

// For `hopmap machines SPEC`: the summary of a slurm-topology spec (options and
// all), nullopt for a spec of another kind; the errors of ReadSlurmTopologyMachine.
absl::StatusOr<std::optional<SlurmTopologySummary>> DescribeSlurmTopologySpec(
    const std::string& spec);

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_SLURM_TOPOLOGY_MACHINE_H_
