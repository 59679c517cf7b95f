// The inside of a node (issue 34): its processing elements (PEs, the cores a process
// binds to) in levels, as the process-mapping literature writes a hierarchy: A1 PEs
// share the lowest level (say an L3 cache), A2 such groups the next (a NUMA domain),
// and so on up to the node; two PEs of one node whose lowest common level is i are Di
// apart. Between nodes a unit of communication costs hop_cost per network hop, so
// the full cost of a mapping is hop_cost x hop-bytes (the network) plus the node
// cost (sum over the edges inside a node of weight x Di). docs/formats.md#inside-the-node.
#ifndef HOPMAP_CORE_TOPOLOGY_NODE_INTERIOR_H_
#define HOPMAP_CORE_TOPOLOGY_NODE_INTERIOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace hopmap {

class NodeInterior {
 public:
  // Distances and hop costs above this are refused (costs stay far from overflow).
  static constexpr int32_t kMaxDistance = 1'000'000;
  // At most this many PEs per node.
  static constexpr int32_t kMaxPes = 1 << 16;
  // hop_cost when none is given: kDefaultHopCostFactor x the top level's distance.
  static constexpr int32_t kDefaultHopCostFactor = 10;

  // Levels lowest first: arities (each >= 1), one distance per level (positive,
  // non-decreasing upward), optional names ("l3", "numa", "package", "node"; default
  // "level1", ...), hop_cost (0: the default). `source` says where the levels came
  // from (an hwloc file), for the listing; pes_per_package how many consecutive PEs
  // make a package (0: the top level's groups are the packages).
  static absl::StatusOr<NodeInterior> Create(std::vector<int32_t> arities,
                                             std::vector<int32_t> distances, int32_t hop_cost = 0,
                                             std::vector<std::string> names = {},
                                             std::string source = "", int32_t pes_per_package = 0);

  [[nodiscard]] int32_t num_pes() const { return num_pes_; }
  [[nodiscard]] const std::vector<int32_t>& arities() const { return arities_; }
  [[nodiscard]] const std::vector<int32_t>& distances() const { return distances_; }
  [[nodiscard]] const std::vector<std::string>& names() const { return names_; }
  [[nodiscard]] int32_t hop_cost() const { return hop_cost_; }
  [[nodiscard]] int32_t num_packages() const { return num_pes_ / pes_per_package_; }
  [[nodiscard]] const std::string& source() const { return source_; }

  // Cost of a unit between PEs a and b of one node: 0 when a == b, else Di for the
  // lowest level i they share (PE ids count with A1 fastest).
  [[nodiscard]] int32_t Distance(int32_t a, int32_t b) const;
  // The package of a PE and its core within the package, for launchers that bind by
  // socket and core (Open MPI's rankfile slot=P:C). For node=AxBx...: the top level's
  // groups are the packages (with one level, the node is one package); hwloc's file
  // says.
  [[nodiscard]] int32_t PackageOf(int32_t pe) const;
  [[nodiscard]] int32_t CoreInPackage(int32_t pe) const;

  // The operating system's number of a PE's CPU (its first hardware thread), what
  // Slurm's --cpu-bind=map_cpu: and taskset take: from hwloc's file, or cpus=; the
  // PE id itself when neither says.
  [[nodiscard]] int32_t OsCpuOf(int32_t pe) const { return os_cpus_.empty() ? pe : os_cpus_[pe]; }
  [[nodiscard]] const std::vector<int32_t>& os_cpus() const { return os_cpus_; }
  // Every PE's OS CPU number in PE order, runs written A-B ("0-3,8,10,12,14").
  [[nodiscard]] std::string OsCpuList() const;
  // Sets the OS CPU numbers, one per PE in PE order (empty: the PE ids). Fails on a
  // wrong count, a negative number or a number given twice, naming it.
  absl::Status SetOsCpus(std::vector<int32_t> cpus);

  // ":node=A1x...xAl:node-distances=D1,...,Dl:hop-cost=H" (and ":packages=P" when the
  // packages are not the top level's groups, ":cpus=LIST" when the OS numbers the
  // CPUs otherwise than the PEs), what a machine spec appends so that it reads back
  // as the same machine (names and source are not part of it).
  [[nodiscard]] std::string SpecOptions() const;

 private:
  std::vector<int32_t> arities_;
  std::vector<int32_t> distances_;
  std::vector<std::string> names_;
  std::vector<int64_t> group_size_;  // [i] = A1 * ... * Ai, i = 0..l
  int32_t num_pes_ = 1;
  int32_t pes_per_package_ = 1;
  int32_t hop_cost_ = 0;
  std::vector<int32_t> os_cpus_;  // empty: PE ids
  std::string source_;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_TOPOLOGY_NODE_INTERIOR_H_
