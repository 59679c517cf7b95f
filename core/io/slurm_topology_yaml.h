// Slurm's topology.yaml (Slurm 25.05 and later; ring and torus3d since 26.05): a
// YAML list of named topologies, each for one topology plugin, read into plain
// structs. Nothing here decides what a topology means for a machine: the GPU cluster
// (slurm_gpu_cluster.h) and any other machine built on Slurm's view read these.
// docs/formats.md, "Slurm topology.yaml".
#ifndef HOPMAP_CORE_IO_SLURM_TOPOLOGY_YAML_H_
#define HOPMAP_CORE_IO_SLURM_TOPOLOGY_YAML_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hopmap {

// Which plugin a topology is for: the one of `tree:`, `block:`, `flat:`, `ring:`,
// `torus3d:` it holds.
enum class SlurmTopologyKind { kTree, kBlock, kFlat, kRing, kTorus3d };

// "tree", "block", "flat", "ring", "torus3d": the YAML key.
absl::string_view SlurmTopologyKindName(SlurmTopologyKind kind);

// Every entry keeps the 1-based line of its first key, for the errors of whoever
// reads the structs ("PATH:LINE: ...").

// A switch of a tree: `switch: NAME`, `children: HOSTLIST` of switch names, `nodes:
// HOSTLIST` of host names (a leaf switch), both expanded.
struct SlurmSwitch {
  std::string name;
  std::vector<std::string> children;
  std::vector<std::string> nodes;
  int64_t line = 0;
  int64_t nodes_line = 0;  // the line of `nodes:` (0 without it)
};

// `block: NAME`, `nodes: HOSTLIST` (a block, or a ring: `ring: NAME`, whose nodes
// are in the ring's order).
struct SlurmNodeGroup {
  std::string name;
  std::vector<std::string> nodes;
  int64_t line = 0;
  int64_t nodes_line = 0;
};

// `{x: X, y: Y, z: Z}` of torus3d: a size (each >= 1) or a coordinate (each >= 0).
struct SlurmDims {
  int32_t x = 0;
  int32_t y = 0;
  int32_t z = 0;
};

// A torus3d region: the hosts of the box from `anchor` to anchor + dims - 1, in
// x-major order (x varies fastest).
struct SlurmTorusRegion {
  SlurmDims anchor;
  SlurmDims dims;
  std::vector<std::string> nodes;
  int64_t line = 0;
};

// An allowed job shape of a torus3d.
struct SlurmTorusPlacement {
  SlurmDims dims;
  std::optional<SlurmDims> anchor_seed;
  std::optional<SlurmDims> anchor_spacing;
  int64_t line = 0;
};

// A torus of torus3d: `name`, `dims`, and either `nodes` (x-major over the whole
// torus) or `regions`; `placements`.
struct SlurmTorus {
  std::string name;
  SlurmDims dims;
  std::vector<std::string> nodes;
  std::vector<SlurmTorusRegion> regions;
  std::vector<SlurmTorusPlacement> placements;
  int64_t line = 0;
};

struct SlurmTopology {
  std::string name;  // `topology:`
  bool cluster_default = false;
  SlurmTopologyKind kind = SlurmTopologyKind::kFlat;
  int64_t line = 0;
  // kTree: the switches in file order.
  std::vector<SlurmSwitch> switches;
  // kBlock: `block_sizes:` (empty when not given) and the blocks in file order.
  std::vector<int32_t> block_sizes;
  int64_t block_sizes_line = 0;  // 0 without block_sizes
  std::vector<SlurmNodeGroup> blocks;
  // kFlat: `flat: {alpha_step_rank: true}`.
  bool alpha_step_rank = false;
  // kRing: `rings:`, each at most kSlurmMaxRingSize hosts.
  std::vector<SlurmNodeGroup> rings;
  // kTorus3d: `toruses:`.
  std::vector<SlurmTorus> toruses;
};

// Slurm's MAX_RING_SIZE (src/plugins/topology/ring/ring_record.h).
inline constexpr int32_t kSlurmMaxRingSize = 16;

struct SlurmTopologyFile {
  std::string source;  // the path (or the name the text was given), for errors
  std::vector<SlurmTopology> topologies;
  // Read from a topology.conf (slurm_topology_conf.h): at most one topology, of the
  // plugin its lines are for, which Slurm names "default".
  bool conf = false;

  // The topology named `name`, or null.
  [[nodiscard]] const SlurmTopology* Find(absl::string_view name) const;
  // The first with `cluster_default: true` (Slurm's rule), or null.
  [[nodiscard]] const SlurmTopology* ClusterDefault() const;
  // The topologies of one kind, in file order.
  [[nodiscard]] std::vector<const SlurmTopology*> OfKind(SlurmTopologyKind kind) const;
};

// Reads a topology.yaml. Keys are Slurm's, in lower case; a key Slurm does not
// define is refused (a typo would otherwise drop a level of the network). Checked
// here, as Slurm checks them: the file is a non-empty list; each topology has a
// name, unique in the file, and exactly one kind; names of switches, blocks, rings
// and toruses are unique within their topology; a switch has children or nodes, and
// its children name switches of the same tree; hostlists expand (hostlist.h);
// block_sizes are positive; a ring holds 1 to 16 hosts; a torus has positive dims,
// nodes or regions (not both): nodes one per cell (x*y*z), regions inside it, one
// host per cell of each, not overlapping; the hostlists name at most 2^18 hosts and
// switches in all (machine_file_lines.h). Not checked: whether a host is in two
// switches, blocks or cells (a machine built on the file decides what that means).
// Errors: "PATH:LINE: topology 'NAME': FIELD: problem" (InvalidArgument; a missing
// file is NotFound).
absl::StatusOr<SlurmTopologyFile> ReadSlurmTopologyYaml(const std::string& path);
// The same from the file's text; `source` names it in errors.
absl::StatusOr<SlurmTopologyFile> ParseSlurmTopologyYaml(const std::string& text,
                                                         const std::string& source);

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_SLURM_TOPOLOGY_YAML_H_
