// Internal to core/io: the machines of Slurm's block, ring and torus3d topologies,
// for BuildSlurmTopologyMachine (slurm_topology_machine.h, which says what each is).
// Not a public API.
#ifndef HOPMAP_CORE_IO_SLURM_TOPOLOGY_NETWORKS_H_
#define HOPMAP_CORE_IO_SLURM_TOPOLOGY_NETWORKS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/io/slurm_topology_machine.h"
#include "core/io/slurm_topology_yaml.h"

namespace hopmap::io_internal {

// Errors about one topology of a file: "PATH:LINE: topology 'NAME': message" ("PATH:
// message" without a line; no topology for a topology.conf, which has one).
class TopologyErrors {
 public:
  TopologyErrors(const SlurmTopologyFile& file, const SlurmTopology& topo)
      : file_(file), topo_(topo) {}
  [[nodiscard]] absl::Status At(int64_t line, absl::string_view message) const;

 private:
  const SlurmTopologyFile& file_;
  const SlurmTopology& topo_;
};

// Each fills the machine, the summary's network and parts; `spec` is its Spec().
absl::StatusOr<SlurmTopologyMachine> BuildBlocks(const SlurmTopologyFile& file,
                                                 const SlurmTopology& topo, std::string spec);
absl::StatusOr<SlurmTopologyMachine> BuildRings(const SlurmTopologyFile& file,
                                                const SlurmTopology& topo, std::string spec);
absl::StatusOr<SlurmTopologyMachine> BuildTorus(const SlurmTopologyFile& file,
                                                const SlurmTopology& topo, std::string spec);

}  // namespace hopmap::io_internal

#endif  // HOPMAP_CORE_IO_SLURM_TOPOLOGY_NETWORKS_H_
