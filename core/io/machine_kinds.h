// The machine kinds a spec names (KIND:ARGS[:key=value]...): the one table of them,
// each row with how its ARGS are read and what ParseMachineSpec's shared options and
// the edges (requests, pictures) need to know of it, which they ask the row instead
// of testing kind names. A new kind is its Machine subclass in core/topology/ and its
// row in RegisterBuiltinMachineKinds (machine_kinds.cc); docs/architecture.md lists
// the rest.
#ifndef HOPMAP_CORE_IO_MACHINE_KINDS_H_
#define HOPMAP_CORE_IO_MACHINE_KINDS_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "core/topology/machine.h"

namespace hopmap {

// A spec's options by key ("wrap" -> "101"), as ParseMachineSpec peeled them off.
using SpecOptions = absl::flat_hash_map<std::string, std::string>;

// What a kind's parser reads: the spec between "KIND:" and the options, the
// options, and the whole spec (which every error names).
struct MachineSpecParts {
  const std::string& args;
  const SpecOptions& options;
  const std::string& spec;
};

// Reads ARGS and the kind's own options into a machine; the options every kind takes
// (cores=, node=, link-bandwidth=, prefix=, ...) are ParseMachineSpec's.
using MachineSpecParser = absl::StatusOr<std::shared_ptr<Machine>> (*)(const MachineSpecParts&);

struct MachineKind {
  // The spec's KIND: "torus".
  std::string name;
  // Machine::kind() of what it makes: its name but for slurm (a switch graph) and
  // slurm-topology (a switch graph, or a torus for Slurm's torus3d).
  std::string machine_kind;
  // How errors list it: "torus:AxBxC".
  std::string usage;
  MachineSpecParser parse = nullptr;
  // Options only this kind (and the others listing them) takes; every other kind
  // refuses them: wrap= (torus, mesh), distances=, nodes=, hops=.
  std::vector<std::string> own_options = {};
  // ARGS is a file's path: it may hold ':', the file names the nodes (prefix= and
  // width= are refused), and a request cannot name it (it sends the text instead).
  bool reads_file = false;
  // False when its machines have no links (an explicit hop matrix): link-bandwidth=
  // and link-latency= are refused.
  bool has_links = true;
  // Each node is one PE with one slot, the lowest level being the cores (hierarchy):
  // node=, cores= other than 1 and a request's cores_per_node above 1 are refused.
  bool one_slot_per_node = false;
  // The CLI sends hopmapd the machine it parsed (ParsedMachineRef: a GPU cluster, a
  // Slurm topology's switch graph or torus), since the spec's options or the file's
  // choice of topology decided it, rather than the file's text.
  bool sends_model = false;
  // Options every other kind takes that this one says otherwise, each with what to
  // use instead (gpu: its slots are its GPUs, gpus=; its links' figures are its
  // nvlink-/rail- options): refused, naming the alternative.
  std::vector<std::pair<std::string, std::string>> refused_shared_options = {};
};

// The one place every built-in kind is listed (no static initialisers), in the
// order errors list them.
void RegisterBuiltinMachineKinds(std::vector<MachineKind>& kinds);
// The rows RegisterBuiltinMachineKinds lists, built on first use.
const std::vector<MachineKind>& BuiltinMachineKinds();
// The row named `name` (a spec's KIND), or null.
const MachineKind* FindMachineKind(std::string_view name);
// The row named by `machine`'s kind() (graph's for a switch graph read from a Slurm
// file: both rows say the same of it), or null for a machine no spec makes.
const MachineKind* MachineKindOf(const Machine& machine);
// Every row's usage, as errors list them: "torus:AxBxC, mesh:AxB, ..., matrix:FILE".
std::string MachineKindUsages();

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_MACHINE_KINDS_H_
