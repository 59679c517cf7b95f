#include "core/io/slurm_topology_machine.h"

#include <filesystem>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/io/line_reader.h"
#include "core/io/machine_spec.h"
#include "core/io/slurm_topology_conf.h"
#include "core/io/slurm_topology_networks.h"
#include "core/topology/hostlist.h"

namespace hopmap {
namespace {

using io_internal::TopologyErrors;

// "fabric (tree, cluster default), nvlink (block)": what a file has, for errors.
std::string ListTopologies(const SlurmTopologyFile& file) {
  std::vector<std::string> names;
  for (const SlurmTopology& t : file.topologies) {
    names.push_back(absl::StrCat(t.name, " (", SlurmTopologyKindName(t.kind),
                                 t.cluster_default && !file.conf ? ", cluster default" : "", ")"));
  }
  return absl::StrJoin(names, ", ");
}

// The topology `name` names, or the file's default.
absl::StatusOr<const SlurmTopology*> PickTopology(const SlurmTopologyFile& file,
                                                  const std::string& name) {
  if (file.topologies.empty()) {
    return SourceError(file.source, "no SwitchName=, BlockName= or RingName= lines: no topology");
  }
  if (file.conf && !name.empty()) {
    return SourceError(
        file.source, absl::StrCat("':", name,
                                  "' names a topology of a topology.yaml, but this "
                                  "is a topology.conf, whose one topology Slurm calls '",
                                  kSlurmConfTopologyName, "' (the file has: ", ListTopologies(file),
                                  "): leave out ':", name, "'"));
  }
  if (name.empty()) {
    const SlurmTopology* chosen = file.ClusterDefault();
    return chosen != nullptr ? chosen : &file.topologies[0];
  }
  const SlurmTopology* topo = file.Find(name);
  if (topo == nullptr) {
    return SourceError(file.source, absl::StrCat("no topology '", name,
                                                 "' (the file has: ", ListTopologies(file), ")"));
  }
  return topo;
}

// FILE and NAME of "FILE[:NAME]".
std::pair<std::string, std::string> SplitArgs(const std::string& args) {
  std::error_code error;
  const size_t colon = args.rfind(':');
  if (colon == std::string::npos || std::filesystem::is_regular_file(args, error)) {
    return {args, ""};
  }
  return {args.substr(0, colon), args.substr(colon + 1)};
}

void AddSwitchParts(const SlurmTopology& tree, SlurmTopologySummary& summary) {
  for (const SlurmSwitch& sw : tree.switches) {
    std::string detail;
    if (!sw.children.empty()) detail = absl::StrCat("children ", CompressHostlist(sw.children));
    summary.parts.push_back({"switch", sw.name, detail, CompressHostlist(sw.nodes)});
  }
}

absl::StatusOr<SlurmTopologyMachine> BuildTree(const SlurmTopologyFile& file,
                                               const SlurmTopology& tree, std::string spec) {
  absl::StatusOr<SwitchGraphMachine> graph = SlurmTreeSwitchGraph(file, tree, std::move(spec));
  if (!graph.ok()) return graph.status();
  SlurmTopologyMachine built;
  built.summary.network = absl::StrCat(
      tree.switches.size(), " switch", tree.switches.size() == 1 ? "" : "es",
      graph->has_virtual_root()
          ? absl::StrCat(", and a virtual root '", graph->switch_name(graph->num_switches() - 1),
                         "' joining its top switches")
          : "");
  AddSwitchParts(tree, built.summary);
  built.machine = std::make_shared<SwitchGraphMachine>(*std::move(graph));
  return built;
}

}  // namespace

absl::StatusOr<SwitchGraphMachine> SlurmTreeSwitchGraph(const SlurmTopologyFile& file,
                                                        const SlurmTopology& tree,
                                                        std::string spec_string) {
  const TopologyErrors errors(file, tree);
  SwitchGraphSpec spec;
  spec.source = std::move(spec_string);
  absl::flat_hash_set<std::string> seen;
  for (const SlurmSwitch& sw : tree.switches) {
    spec.switch_names.push_back(sw.name);
    for (const std::string& node : sw.nodes) {
      if (seen.insert(node).second) spec.node_names.push_back(node);
      spec.links.emplace_back(sw.name, node);
    }
  }
  for (const SlurmSwitch& sw : tree.switches) {
    for (const std::string& child : sw.children) spec.links.emplace_back(sw.name, child);
  }
  if (spec.node_names.empty()) {
    return errors.At(file.conf ? 0 : tree.line,
                     file.conf ? "no Nodes= under any switch" : "no nodes under any switch");
  }
  absl::StatusOr<SwitchGraphMachine> machine = SwitchGraphMachine::Create(std::move(spec));
  if (!machine.ok()) return errors.At(0, machine.status().message());
  return machine;
}

bool IsSlurmTopologyConf(const std::string& text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    size_t key = 0;
    while (key < line.size() && absl::ascii_isalpha(static_cast<unsigned char>(line[key]))) ++key;
    return key > 0 && key < line.size() && line[key] == '=';
  }
  return false;
}

absl::StatusOr<SlurmTopologyMachine> BuildSlurmTopologyMachine(const SlurmTopologyFile& file,
                                                               const std::string& name,
                                                               const std::string& spec_path) {
  absl::StatusOr<const SlurmTopology*> picked = PickTopology(file, name);
  if (!picked.ok()) return picked.status();
  const SlurmTopology& topo = **picked;
  std::string spec = absl::StrCat(kSlurmTopologyKind, ":", spec_path);
  if (!file.conf) absl::StrAppend(&spec, ":", topo.name);
  absl::StatusOr<SlurmTopologyMachine> built = absl::UnknownError("");
  switch (topo.kind) {
    case SlurmTopologyKind::kTree:
      built = BuildTree(file, topo, std::move(spec));
      break;
    case SlurmTopologyKind::kBlock:
      built = io_internal::BuildBlocks(file, topo, std::move(spec));
      break;
    case SlurmTopologyKind::kRing:
      built = io_internal::BuildRings(file, topo, std::move(spec));
      break;
    case SlurmTopologyKind::kTorus3d:
      built = io_internal::BuildTorus(file, topo, std::move(spec));
      break;
    case SlurmTopologyKind::kFlat:
      return TopologyErrors(file, topo)
          .At(topo.line, absl::StrCat("flat: no network to map onto (Slurm's flat plugin knows "
                                      "no switches, blocks, rings or tori); name another "
                                      "topology (the file has: ",
                                      ListTopologies(file), ")"));
  }
  if (!built.ok()) return built.status();
  SlurmTopologySummary& summary = built->summary;
  summary.path = file.source;
  summary.format = file.conf ? "topology.conf" : "topology.yaml";
  summary.topology = topo.name;
  summary.plugin = topo.kind;
  summary.cluster_default =
      file.conf ||
      &topo == (file.ClusterDefault() != nullptr ? file.ClusterDefault() : &file.topologies[0]);
  const Machine& machine = *built->machine;
  std::vector<std::string> hosts;
  for (NodeId v : machine.AllocatableNodes()) hosts.push_back(machine.NodeName(v));
  summary.hosts = static_cast<int64_t>(hosts.size());
  summary.host_names = CompressHostlist(hosts);
  summary.vacant_cells = machine.num_vacant();
  return built;
}

absl::StatusOr<SlurmTopologyMachine> ReadSlurmTopologyMachine(const std::string& args) {
  const auto [path, name] = SplitArgs(args);
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<SlurmTopologyFile> file = IsSlurmTopologyConf(*text)
                                               ? ParseSlurmTopologyConf(*text, path)
                                               : ParseSlurmTopologyYaml(*text, path);
  if (!file.ok()) return file.status();
  return BuildSlurmTopologyMachine(*file, name, path);
}

absl::StatusOr<std::optional<SlurmTopologySummary>> DescribeSlurmTopologySpec(
    const std::string& spec) {
  std::optional<MachineSpecKindArgs> split = SplitMachineSpec(spec);
  if (!split.has_value() || split->kind != kSlurmTopologyKind) return std::nullopt;
  absl::StatusOr<SlurmTopologyMachine> built = ReadSlurmTopologyMachine(split->args);
  if (!built.ok()) return built.status();
  return std::move(built->summary);
}

}  // namespace hopmap
