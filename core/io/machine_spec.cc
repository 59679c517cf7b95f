#include "core/io/machine_spec.h"

#include <algorithm>
#include <fstream>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/io/hwloc_node.h"
#include "core/io/machine_kinds.h"
#include "core/io/machine_spec_values.h"
#include "core/topology/catalog.h"
#include "core/topology/node_selection.h"

namespace hopmap {
namespace {

using io_internal::ParseInRange;
using io_internal::ParseList;
using io_internal::ParsePositive;

// What a spec may be, as errors list it.
std::string SpecUsage() { return absl::StrCat(MachineKindUsages(), ", or a catalog name"); }

const char* const kOptionKeys[] = {"cores",          "wrap",
                                   "nodes",          "hops",
                                   "prefix",         "width",
                                   "link-bandwidth", "link-latency",
                                   "distances",      "node",
                                   "node-distances", "hop-cost",
                                   "packages",       "cpus",
                                   "gpus",           "domain",
                                   "leaf",           "nvlink-bandwidth",
                                   "nvlink-latency", "rail-bandwidth",
                                   "rail-latency",   "oversubscription",
                                   "tree",           "block",
                                   "block-label",    "sub-block-label",
                                   "host-label"};

// The keys of kOptionKeys that only some kinds take (their rows' own_options), in
// the order a spec's stray ones are reported.
const char* const kKindOwnOptions[] = {
    "wrap",           "distances",      "nodes",        "hops",
    "gpus",           "domain",         "leaf",         "nvlink-bandwidth",
    "nvlink-latency", "rail-bandwidth", "rail-latency", "oversubscription",
    "tree",           "block",          "block-label",  "sub-block-label",
    "host-label"};

bool IsOptionKey(absl::string_view key) {
  for (const char* k : kOptionKeys) {
    if (key == k) return true;
  }
  return false;
}

// cpus=: numbers and runs A-B, comma-separated ("0-7,16-23"), as Linux lists CPUs.
absl::StatusOr<std::vector<int32_t>> ParseCpuList(absl::string_view text, const std::string& spec) {
  std::vector<int32_t> cpus;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    const std::vector<absl::string_view> range = absl::StrSplit(item, absl::MaxSplits('-', 1));
    int32_t first = 0, last = 0;
    const bool ok = absl::SimpleAtoi(range[0], &first) && first >= 0 &&
                    (range.size() == 1 ? (last = first, true)
                                       : absl::SimpleAtoi(range[1], &last) && last >= first);
    if (!ok || last - first >= NodeInterior::kMaxPes ||
        cpus.size() + (last - first + 1) > static_cast<size_t>(NodeInterior::kMaxPes)) {
      return absl::InvalidArgumentError(
          absl::StrCat("machine spec '", spec, "': cpus=: '", item,
                       "' is not a CPU number or a range A-B (A <= B), e.g. cpus=0-7,16-23"));
    }
    for (int32_t c = first; c <= last; ++c) cpus.push_back(c);
  }
  return cpus;
}

// node=A1x...xAl or node=hwloc:FILE, node-distances=, hop-cost=, packages=: the
// inside of every node (NodeInterior). cores=, when given, must be its PEs.
absl::Status SetNodeInterior(const MachineKind& kind, const SpecOptions& options,
                             const std::string& spec, Machine& machine) {
  auto node = options.find("node");
  if (node == options.end()) {
    for (const char* key : {"node-distances", "hop-cost", "packages", "cpus"}) {
      if (options.contains(key)) {
        return absl::InvalidArgumentError(absl::StrCat("machine spec '", spec, "': ", key,
                                                       "= needs node= (the levels inside a node)"));
      }
    }
    return absl::OkStatus();
  }
  if (kind.one_slot_per_node) {
    return absl::InvalidArgumentError(
        absl::StrCat("machine spec '", spec, "': node= does not apply to ", kind.name,
                     " (its levels are the PEs; add a level instead)"));
  }
  std::optional<std::vector<int32_t>> distances;
  if (auto it = options.find("node-distances"); it != options.end()) {
    absl::StatusOr<std::vector<int32_t>> d = ParseList(it->second, ',', "a node distance", spec);
    if (!d.ok()) return d.status();
    distances = *std::move(d);
  }
  int32_t hop_cost = 0;
  if (auto it = options.find("hop-cost"); it != options.end()) {
    absl::StatusOr<int32_t> h = ParsePositive(it->second, "hop-cost=", spec);
    if (!h.ok()) return h.status();
    hop_cost = *h;
  }
  absl::StatusOr<NodeInterior> interior = absl::UnknownError("");
  if (absl::StartsWith(node->second, "hwloc:")) {
    for (const char* key : {"packages", "cpus"}) {
      if (options.contains(key)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "machine spec '", spec, "': ", key, "= does not apply to node=hwloc: (the file says)"));
      }
    }
    interior = ReadHwlocNodeInterior(node->second.substr(6), distances, hop_cost);
  } else {
    absl::StatusOr<std::vector<int32_t>> arities =
        ParseList(node->second, 'x', "a node level", spec);
    if (!arities.ok()) return arities.status();
    if (!distances) {
      // 1, 10, 100, ...: the literature's usual costs, lowest level first.
      distances.emplace();
      int32_t d = 1;
      for (size_t i = 0; i < arities->size();
           ++i, d = std::min(d * 10, NodeInterior::kMaxDistance)) {
        distances->push_back(d);
      }
    }
    int32_t pes_per_package = 0;
    if (auto it = options.find("packages"); it != options.end()) {
      absl::StatusOr<int32_t> packages = ParsePositive(it->second, "packages=", spec);
      if (!packages.ok()) return packages.status();
      int64_t pes = 1;
      for (int32_t a : *arities) pes *= a;
      if (pes % *packages != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("machine spec '", spec, "': packages=", *packages, " does not divide the ",
                         pes, " PEs of node=", node->second));
      }
      pes_per_package = static_cast<int32_t>(pes / *packages);
    }
    interior = NodeInterior::Create(*std::move(arities), *std::move(distances), hop_cost, {}, "",
                                    pes_per_package);
  }
  if (interior.ok()) {
    if (auto it = options.find("cpus"); it != options.end()) {
      absl::StatusOr<std::vector<int32_t>> cpus = ParseCpuList(it->second, spec);
      if (!cpus.ok()) return cpus.status();
      if (absl::Status set = interior->SetOsCpus(*std::move(cpus)); !set.ok()) interior = set;
    }
  }
  if (!interior.ok()) {
    return absl::Status(interior.status().code(),
                        absl::StrCat("machine spec '", spec, "': ", interior.status().message()));
  }
  if (auto it = options.find("cores");
      it != options.end() && machine.cores_per_node() != interior->num_pes()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "machine spec '", spec, "': cores=", machine.cores_per_node(), " but node=", node->second,
        " has ", interior->num_pes(), " PEs (leave cores= out: node= sets it)"));
  }
  machine.set_node_interior(std::make_shared<const NodeInterior>(*std::move(interior)));
  return absl::OkStatus();
}

// Peels the options off the end of `rest` (the spec after "KIND:"), leaving the
// kind's own part. Options come last; later ones win. File names may contain ':', so
// peel only known keys off the end. node=hwloc:FILE holds a file name too: it runs
// to the next known option or the end.
SpecOptions PeelOptions(std::string& rest) {
  SpecOptions options;
  if (const size_t at = rest.find("node=hwloc:"); at != std::string::npos) {
    size_t end = rest.size();
    for (size_t colon_at = rest.find(':', at + 11); colon_at != std::string::npos;
         colon_at = rest.find(':', colon_at + 1)) {
      const size_t eq = rest.find('=', colon_at);
      if (eq != std::string::npos && IsOptionKey(rest.substr(colon_at + 1, eq - colon_at - 1))) {
        end = colon_at;
        break;
      }
    }
    options["node"] = rest.substr(at + 5, end - at - 5);
    rest = rest.substr(0, at > 0 ? at - 1 : 0) + rest.substr(end);
  }
  std::vector<std::pair<std::string, std::string>> peeled;
  while (true) {
    const size_t last = rest.rfind(':');
    const std::string segment = last == std::string::npos ? rest : rest.substr(last + 1);
    const size_t eq = segment.find('=');
    if (eq == std::string::npos || !IsOptionKey(segment.substr(0, eq))) break;
    peeled.emplace_back(segment.substr(0, eq), segment.substr(eq + 1));
    rest = last == std::string::npos ? "" : rest.substr(0, last);
    if (last == std::string::npos) break;
  }
  for (auto it = peeled.rbegin(); it != peeled.rend(); ++it) {
    if (it->first == "node" && options.contains("node")) continue;  // node=hwloc: wins
    options[it->first] = it->second;
  }
  return options;
}

// Options of one kind given to another (MachineKind::own_options).
absl::Status RejectOtherKindsOptions(const MachineKind& kind, const SpecOptions& options,
                                     const std::string& spec) {
  for (const char* key : kKindOwnOptions) {
    if (options.contains(key) && std::find(kind.own_options.begin(), kind.own_options.end(), key) ==
                                     kind.own_options.end()) {
      return absl::InvalidArgumentError(absl::StrCat("machine spec '", spec, "': option ", key,
                                                     "= does not apply to ", kind.name));
    }
  }
  return absl::OkStatus();
}

// link-bandwidth= and link-latency= (not for a kind without links: an explicit hop
// matrix).
absl::Status SetLinkOptions(const MachineKind& kind, const SpecOptions& options,
                            const std::string& spec, Machine& machine) {
  if (!kind.has_links && (options.contains("link-bandwidth") || options.contains("link-latency"))) {
    return absl::InvalidArgumentError(
        absl::StrCat("machine spec '", spec, "': link-bandwidth=/link-latency= do not apply to ",
                     kind.name, " (an explicit hop matrix has no links)"));
  }
  if (auto it = options.find("link-bandwidth"); it != options.end()) {
    absl::StatusOr<double> bandwidth = ParseInRange(
        it->second, "link-bandwidth=", kMinLinkBandwidth, kMaxLinkBandwidth, "bytes/s", spec);
    if (!bandwidth.ok()) return bandwidth.status();
    machine.set_link_bandwidth(*bandwidth);
  }
  if (auto it = options.find("link-latency"); it != options.end()) {
    absl::StatusOr<double> latency =
        ParseInRange(it->second, "link-latency=", 0, kMaxLinkLatency, "seconds", spec);
    if (!latency.ok()) return latency.status();
    machine.set_link_latency(*latency);
  }
  return absl::OkStatus();
}

// prefix= and width=: the node names (not for the file kinds: their files name the
// nodes).
absl::Status SetNodeNamePattern(const MachineKind& kind, const SpecOptions& options,
                                const std::string& spec, Machine& machine) {
  if (!options.contains("prefix") && !options.contains("width")) return absl::OkStatus();
  if (kind.reads_file) {
    return absl::InvalidArgumentError(absl::StrCat("machine spec '", spec,
                                                   "': prefix=/width= do not apply to ", kind.name,
                                                   " (its file names the nodes)"));
  }
  int32_t width = 5;
  if (auto it = options.find("width"); it != options.end()) {
    if (!absl::SimpleAtoi(it->second, &width) || width < 0 || width > 12) {
      return absl::InvalidArgumentError(
          absl::StrCat("machine spec '", spec, "': width= must be 0..12, got '", it->second, "'"));
    }
  }
  auto it = options.find("prefix");
  machine.set_node_names(NodeNames::Pattern(it == options.end() ? "nid" : it->second, width));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<Machine>> ParseMachineSpec(const std::string& spec) {
  if (spec.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("empty machine spec (use ", SpecUsage(), ")"));
  }
  const size_t colon = spec.find(':');
  const std::string name = spec.substr(0, colon);  // a kind or a catalog name
  std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (const CatalogEntry* entry = FindCatalogEntry(name)) {
    // A catalog name, optionally with options that override the entry's.
    return ParseMachineSpec(rest.empty() ? entry->spec : absl::StrCat(entry->spec, ":", rest));
  }
  const SpecOptions options = PeelOptions(rest);
  const MachineKind* kind = FindMachineKind(name);
  if ((kind == nullptr || !kind->reads_file) && rest.find(':') != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "machine spec '", spec, "': unknown option '", rest.substr(rest.rfind(':') + 1),
        "' (options: ", absl::StrJoin(kOptionKeys, "=, "), "=)"));
  }
  if (rest.empty()) {
    if (colon == std::string::npos) {
      std::vector<std::string> names;
      for (const CatalogEntry& e : BuiltinCatalog()) names.push_back(e.name);
      return absl::NotFoundError(absl::StrCat("unknown machine '", spec,
                                              "' (catalog: ", absl::StrJoin(names, ", "),
                                              "; or a spec: ", SpecUsage(), ")"));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("machine spec '", spec, "': nothing after '", name, ":'"));
  }
  if (kind == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("machine spec '", spec, "': unknown kind '",
                                                   name, "' (use ", SpecUsage(), ")"));
  }
  for (const auto& [key, instead] : kind->refused_shared_options) {
    if (options.contains(key)) {
      return absl::InvalidArgumentError(absl::StrCat("machine spec '", spec, "': ", key,
                                                     "= does not apply to ", kind->name, " (",
                                                     instead, ")"));
    }
  }
  absl::StatusOr<std::shared_ptr<Machine>> machine = kind->parse({rest, options, spec});
  if (!machine.ok()) return machine.status();
  if (absl::Status s = RejectOtherKindsOptions(*kind, options, spec); !s.ok()) return s;
  if (auto it = options.find("cores"); it != options.end()) {
    if (kind->one_slot_per_node && it->second != "1") {
      return absl::InvalidArgumentError(
          absl::StrCat("machine spec '", spec, "': cores= does not apply to ", kind->name,
                       " (each PE is a node with one slot; the lowest level is the cores)"));
    }
    absl::StatusOr<int32_t> cores = ParsePositive(it->second, "cores=", spec);
    if (!cores.ok()) return cores.status();
    (*machine)->set_cores_per_node(*cores);
  }
  if (absl::Status s = SetNodeInterior(*kind, options, spec, **machine); !s.ok()) return s;
  if (absl::Status s = SetLinkOptions(*kind, options, spec, **machine); !s.ok()) return s;
  if (absl::Status s = SetNodeNamePattern(*kind, options, spec, **machine); !s.ok()) return s;
  return machine;
}

std::optional<MachineSpecKindArgs> SplitMachineSpec(const std::string& spec) {
  const size_t colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (const CatalogEntry* entry = FindCatalogEntry(name)) {
    return SplitMachineSpec(rest.empty() ? entry->spec : absl::StrCat(entry->spec, ":", rest));
  }
  if (FindMachineKind(name) == nullptr) return std::nullopt;
  PeelOptions(rest);
  return MachineSpecKindArgs{name, rest};
}

absl::StatusOr<std::vector<NodeListItem>> ReadNodeListFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open node list"));
  std::vector<NodeListItem> items;
  std::string line;
  for (int line_number = 1; std::getline(in, line); ++line_number) {
    absl::string_view text = line;
    if (size_t hash = text.find('#'); hash != absl::string_view::npos) text = text.substr(0, hash);
    text = absl::StripAsciiWhitespace(text);
    if (!text.empty()) items.push_back({line_number, std::string(text)});
  }
  if (items.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": no nodes listed"));
  return items;
}

absl::StatusOr<std::vector<NodeId>> ReadNodeSelection(const std::string& arg,
                                                      const Machine& machine) {
  if (arg.empty() || arg[0] != '@') return ParseNodeSelection(arg, machine);
  const std::string path = arg.substr(1);
  absl::StatusOr<std::vector<NodeListItem>> items = ReadNodeListFile(path);
  if (!items.ok()) return items.status();
  std::vector<NodeId> nodes;
  for (const NodeListItem& item : *items) {
    absl::StatusOr<std::vector<NodeId>> part = ParseNodeSelection(item.text, machine);
    if (!part.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", item.line, ": ", part.status().message()));
    }
    nodes.insert(nodes.end(), part->begin(), part->end());
  }
  return nodes;
}

}  // namespace hopmap
