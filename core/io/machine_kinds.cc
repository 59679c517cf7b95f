// RegisterBuiltinMachineKinds: the one table of machine kinds, and each kind's parser.
#include "core/io/machine_kinds.h"

#include <algorithm>
#include <array>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/io/gpu_machine_spec.h"
#include "core/io/machine_files.h"
#include "core/io/machine_spec_values.h"
#include "core/io/slurm_topology_machine.h"
#include "core/topology/chipmesh.h"
#include "core/topology/dragonfly.h"
#include "core/topology/fattree.h"
#include "core/topology/hierarchy.h"
#include "core/topology/torus.h"

namespace hopmap {
namespace {

using io_internal::ParseList;
using io_internal::ParsePositive;
using io_internal::Share;
using MachineOrError = absl::StatusOr<std::shared_ptr<Machine>>;

// torus:AxBxC and mesh:AxB, with wrap= (by default every dimension wraps on a
// torus, none on a mesh).
MachineOrError ParseGrid(const MachineSpecParts& parts, bool wraps) {
  const std::string& spec = parts.spec;
  absl::StatusOr<std::vector<int32_t>> dims = ParseList(parts.args, 'x', "a dimension", spec);
  if (!dims.ok()) return dims.status();
  std::vector<bool> wrap(dims->size(), wraps);
  if (auto it = parts.options.find("wrap"); it != parts.options.end()) {
    if (it->second.size() != dims->size() ||
        it->second.find_first_not_of("01") != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat("machine spec '", spec,
                                                     "': wrap= needs one 0 or 1 per dimension (",
                                                     dims->size(), "), got '", it->second, "'"));
    }
    for (size_t i = 0; i < wrap.size(); ++i) wrap[i] = it->second[i] == '1';
  }
  return Share(TorusMachine::Create(*std::move(dims), std::move(wrap)), spec);
}

MachineOrError ParseTorus(const MachineSpecParts& parts) { return ParseGrid(parts, true); }
MachineOrError ParseMesh(const MachineSpecParts& parts) { return ParseGrid(parts, false); }

// fattree:AxB.
MachineOrError ParseFatTree(const MachineSpecParts& parts) {
  absl::StatusOr<std::vector<int32_t>> arities = ParseList(parts.args, 'x', "an arity", parts.spec);
  if (!arities.ok()) return arities.status();
  return Share(FatTreeMachine::Create(*std::move(arities)), parts.spec);
}

// chipmesh:XxY, with nodes= and hops=.
MachineOrError ParseChipMesh(const MachineSpecParts& parts) {
  const std::string& spec = parts.spec;
  absl::StatusOr<std::vector<int32_t>> grid = ParseList(parts.args, 'x', "a chip-grid side", spec);
  if (!grid.ok()) return grid.status();
  if (grid->size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("machine spec '", spec, "': chipmesh needs XxY chips"));
  }
  int32_t nodes = ChipMeshMachine::kDefaultNodesPerChip;
  if (auto it = parts.options.find("nodes"); it != parts.options.end()) {
    absl::StatusOr<int32_t> n = ParsePositive(it->second, "nodes=", spec);
    if (!n.ok()) return n.status();
    nodes = *n;
  }
  std::array<int32_t, 6> table = ChipMeshMachine::kDefaultHopTable;
  if (auto it = parts.options.find("hops"); it != parts.options.end()) {
    absl::StatusOr<std::vector<int32_t>> hops = ParseList(it->second, ',', "hops=", spec);
    if (!hops.ok()) return hops.status();
    if (hops->size() != 6) {
      return absl::InvalidArgumentError(
          absl::StrCat("machine spec '", spec,
                       "': hops= needs 6 values (same chip same/other side, same row or column "
                       "same/other side, elsewhere same/other side), got ",
                       hops->size()));
    }
    std::copy(hops->begin(), hops->end(), table.begin());
  }
  return Share(ChipMeshMachine::Create((*grid)[0], (*grid)[1], nodes, table), spec);
}

// dragonfly:G,A,P.
MachineOrError ParseDragonfly(const MachineSpecParts& parts) {
  absl::StatusOr<std::vector<int32_t>> gap =
      ParseList(parts.args, ',', "a dragonfly size", parts.spec);
  if (!gap.ok()) return gap.status();
  if (gap->size() != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("machine spec '", parts.spec,
                     "': dragonfly needs G,A,P (groups, routers per group, nodes per router)"));
  }
  return Share(DragonflyMachine::Create((*gap)[0], (*gap)[1], (*gap)[2]), parts.spec);
}

// hierarchy:A1xA2, with distances= (cores= only 1: one_slot_per_node).
MachineOrError ParseHierarchy(const MachineSpecParts& parts) {
  const std::string& spec = parts.spec;
  absl::StatusOr<std::vector<int32_t>> arities = ParseList(parts.args, 'x', "an arity", spec);
  if (!arities.ok()) return arities.status();
  auto it = parts.options.find("distances");
  if (it == parts.options.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("machine spec '", spec,
                     "': hierarchy needs distances=D1,...,Dl (one per level, the "
                     "lowest first; the literature's 1:10:100 is distances=1,10,100)"));
  }
  absl::StatusOr<std::vector<int32_t>> distances = ParseList(it->second, ',', "a distance", spec);
  if (!distances.ok()) return distances.status();
  return Share(HierarchyMachine::Create(*std::move(arities), *std::move(distances)), spec);
}

// slurm:FILE, graph:FILE and matrix:FILE: ARGS is the path.
MachineOrError ReadSlurm(const MachineSpecParts& parts) {
  return Share(ReadSlurmTopology(parts.args), parts.spec);
}
// slurm-topology:FILE[:NAME].
MachineOrError ReadSlurmTopologyKind(const MachineSpecParts& parts) {
  absl::StatusOr<SlurmTopologyMachine> built = ReadSlurmTopologyMachine(parts.args);
  if (!built.ok()) {
    return absl::Status(built.status().code(), absl::StrCat("machine spec '", parts.spec,
                                                            "': ", built.status().message()));
  }
  return std::move(built->machine);
}
MachineOrError ReadSwitchGraph(const MachineSpecParts& parts) {
  return Share(ReadSwitchGraphFile(parts.args), parts.spec);
}
MachineOrError ReadDistanceMatrix(const MachineSpecParts& parts) {
  return Share(ReadDistanceMatrixFile(parts.args), parts.spec);
}

}  // namespace

void RegisterBuiltinMachineKinds(std::vector<MachineKind>& kinds) {
  // Generated kinds: ARGS are sizes.
  kinds.push_back({.name = "torus",
                   .machine_kind = "torus",
                   .usage = "torus:AxBxC",
                   .parse = &ParseTorus,
                   .own_options = {"wrap"}});
  kinds.push_back({.name = "mesh",
                   .machine_kind = "mesh",
                   .usage = "mesh:AxB",
                   .parse = &ParseMesh,
                   .own_options = {"wrap"}});
  kinds.push_back({.name = "fattree",
                   .machine_kind = "fattree",
                   .usage = "fattree:AxB",
                   .parse = &ParseFatTree});
  kinds.push_back({.name = "chipmesh",
                   .machine_kind = "chipmesh",
                   .usage = "chipmesh:XxY",
                   .parse = &ParseChipMesh,
                   .own_options = {"nodes", "hops"}});
  kinds.push_back({.name = "dragonfly",
                   .machine_kind = "dragonfly",
                   .usage = "dragonfly:G,A,P",
                   .parse = &ParseDragonfly});
  kinds.push_back({.name = "hierarchy",
                   .machine_kind = "hierarchy",
                   .usage = "hierarchy:A1xA2:distances=D1,D2",
                   .parse = &ParseHierarchy,
                   .own_options = {"distances"},
                   .one_slot_per_node = true});
  // GPU clusters (issue 48): a host's slots are its GPUs, each kind of link has its
  // own figures.
  const std::vector<std::pair<std::string, std::string>> refused_by_gpu_clusters = {
      {"cores", "the slots of a host are its GPUs: use gpus="},
      {"node", "the slots of a host are its GPUs: use gpus="},
      {"link-bandwidth", "use nvlink-bandwidth= and rail-bandwidth=, per GPU"},
      {"link-latency", "use nvlink-latency= and rail-latency="}};
  const std::vector<std::string> gpu_fabric_options = {
      "nvlink-bandwidth", "nvlink-latency", "rail-bandwidth", "rail-latency", "oversubscription"};
  std::vector<std::string> gpu_options = {"gpus", "domain", "leaf"};
  gpu_options.insert(gpu_options.end(), gpu_fabric_options.begin(), gpu_fabric_options.end());
  kinds.push_back({.name = "gpu",
                   .machine_kind = "gpu",
                   .usage = "gpu:HOSTS:gpus=G",
                   .parse = &io_internal::ParseGpuCluster,
                   .own_options = gpu_options,
                   .refused_shared_options = refused_by_gpu_clusters});
  // File kinds: ARGS is the file's path.
  std::vector<std::string> slurm_options = {"gpus", "tree", "block"};
  slurm_options.insert(slurm_options.end(), gpu_fabric_options.begin(), gpu_fabric_options.end());
  kinds.push_back({.name = "gpu-slurm",
                   .machine_kind = "gpu",
                   .usage = "gpu-slurm:FILE",
                   .parse = &io_internal::ParseGpuSlurmCluster,
                   .own_options = slurm_options,
                   .reads_file = true,
                   .sends_model = true,
                   .refused_shared_options = refused_by_gpu_clusters});
  std::vector<std::string> k8s_options = {"gpus", "block-label", "sub-block-label", "host-label"};
  k8s_options.insert(k8s_options.end(), gpu_fabric_options.begin(), gpu_fabric_options.end());
  kinds.push_back({.name = "gpu-k8s",
                   .machine_kind = "gpu",
                   .usage = "gpu-k8s:FILE",
                   .parse = &io_internal::ParseGpuK8sCluster,
                   .own_options = k8s_options,
                   .reads_file = true,
                   .sends_model = true,
                   .refused_shared_options = refused_by_gpu_clusters});
  kinds.push_back({.name = "slurm",
                   .machine_kind = "graph",
                   .usage = "slurm:FILE",
                   .parse = &ReadSlurm,
                   .reads_file = true});
  kinds.push_back({.name = kSlurmTopologyKind,
                   .machine_kind = "graph",  // "torus" for a torus3d topology
                   .usage = "slurm-topology:FILE[:NAME]",
                   .parse = &ReadSlurmTopologyKind,
                   .reads_file = true,
                   .sends_model = true});
  kinds.push_back({.name = "graph",
                   .machine_kind = "graph",
                   .usage = "graph:FILE",
                   .parse = &ReadSwitchGraph,
                   .reads_file = true});
  kinds.push_back({.name = "matrix",
                   .machine_kind = "matrix",
                   .usage = "matrix:FILE",
                   .parse = &ReadDistanceMatrix,
                   .reads_file = true,
                   .has_links = false});
}

const std::vector<MachineKind>& BuiltinMachineKinds() {
  static const std::vector<MachineKind>* kinds = [] {
    auto* k = new std::vector<MachineKind>();
    RegisterBuiltinMachineKinds(*k);
    return k;
  }();
  return *kinds;
}

const MachineKind* FindMachineKind(std::string_view name) {
  for (const MachineKind& kind : BuiltinMachineKinds()) {
    if (kind.name == name) return &kind;
  }
  return nullptr;
}

const MachineKind* MachineKindOf(const Machine& machine) { return FindMachineKind(machine.kind()); }

std::string MachineKindUsages() {
  std::string usages;
  for (const MachineKind& kind : BuiltinMachineKinds()) {
    absl::StrAppend(&usages, usages.empty() ? "" : ", ", kind.usage);
  }
  return usages;
}

}  // namespace hopmap
