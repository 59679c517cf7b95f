#include "core/io/slurm_topology_yaml.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/io/line_reader.h"
#include "core/io/machine_file_lines.h"

namespace hopmap {
namespace {

// yaml-cpp's marks are 0-based; a node made up by yaml-cpp has none (line -1 -> 0).
int64_t LineOf(const YAML::Node& node) { return node.Mark().line + 1; }

// Reads one file's nodes, each error "SOURCE:LINE: topology 'NAME': message".
class YamlReader {
 public:
  explicit YamlReader(std::string source) : source_(std::move(source)) {}

  void set_topology(std::string name) { topology_ = std::move(name); }

  [[nodiscard]] absl::Status Error(const YAML::Node& at, absl::string_view message) const {
    return ErrorAt(LineOf(at), message);
  }
  [[nodiscard]] absl::Status ErrorAt(int64_t line, absl::string_view message) const {
    if (topology_.empty()) return LineError(source_, line, message);
    return LineError(source_, line, absl::StrCat("topology '", topology_, "': ", message));
  }

  // Refuses a key of `map` outside `known` (each a key Slurm defines there).
  absl::Status CheckKeys(const YAML::Node& map, std::initializer_list<absl::string_view> known,
                         absl::string_view what) const {
    for (const auto& entry : map) {
      const std::string key = entry.first.Scalar();
      bool found = false;
      for (absl::string_view k : known) found = found || k == key;
      if (!found) {
        return Error(entry.first, absl::StrCat("unknown key '", key, "' in ", what,
                                               " (known: ", absl::StrJoin(known, ", "), ")"));
      }
    }
    return absl::OkStatus();
  }

  // `map[key]` as a mapping (the caller checked `map` is one).
  absl::StatusOr<YAML::Node> Map(const YAML::Node& map, absl::string_view key) const {
    YAML::Node node = map[std::string(key)];
    if (!node.IsMap()) return Error(node, absl::StrCat(key, ": expected a mapping of keys"));
    return node;
  }

  // `map[key]` as a list; a missing key or `~` is an empty list.
  absl::StatusOr<YAML::Node> List(const YAML::Node& map, absl::string_view key) const {
    YAML::Node node = map[std::string(key)];
    if (!node.IsDefined() || node.IsNull()) return YAML::Node(YAML::NodeType::Sequence);
    if (!node.IsSequence()) return Error(node, absl::StrCat(key, ": expected a list"));
    return node;
  }

  // `map[key]` as a non-empty string; nullopt when absent and not `required`.
  absl::StatusOr<std::optional<std::string>> String(const YAML::Node& map, absl::string_view key,
                                                    bool required) const {
    YAML::Node node = map[std::string(key)];
    if (!node.IsDefined() || node.IsNull()) {
      if (required) return Error(map, absl::StrCat(key, ": missing"));
      return std::nullopt;
    }
    if (!node.IsScalar() || node.Scalar().empty()) {
      return Error(node, absl::StrCat(key, ": expected a non-empty string"));
    }
    return node.Scalar();
  }

  // `map[key]`, a Slurm hostlist ("gpu[001-004]"), expanded within the file's
  // budget of names (io_internal::kMaxNamesPerFile); empty when absent.
  absl::StatusOr<std::vector<std::string>> Hostlist(const YAML::Node& map,
                                                    absl::string_view key) const {
    absl::StatusOr<std::optional<std::string>> text = String(map, key, false);
    if (!text.ok()) return text.status();
    if (!text->has_value()) return std::vector<std::string>{};
    absl::StatusOr<std::vector<std::string>> names =
        io_internal::ExpandWithinBudget(**text, names_left_);
    if (!names.ok()) {
      return Error(map[std::string(key)],
                   absl::StrCat(key, ": bad hostlist '", **text, "': ", names.status().message()));
    }
    return names;
  }

  // `node` as an integer >= `min`; `what` names it in errors.
  absl::StatusOr<int32_t> Int(const YAML::Node& node, absl::string_view what, int32_t min) const {
    int64_t value = 0;
    if (!node.IsScalar() || !YAML::convert<int64_t>::decode(node, value) || value < min ||
        value > INT32_MAX) {
      return Error(node, absl::StrCat(what, ": expected an integer >= ", min, ", got '",
                                      node.IsScalar() ? node.Scalar() : "(not a value)", "'"));
    }
    return static_cast<int32_t>(value);
  }

  // `map[key]` as `{x: X, y: Y, z: Z}`, each at least `min`.
  absl::StatusOr<SlurmDims> Dims(const YAML::Node& map, absl::string_view key, int32_t min) const {
    absl::StatusOr<YAML::Node> dims = Map(map, key);
    if (!dims.ok()) return dims.status();
    if (absl::Status s = CheckKeys(*dims, {"x", "y", "z"}, key); !s.ok()) return s;
    SlurmDims out;
    for (auto [axis, field] : {std::pair{"x", &out.x}, {"y", &out.y}, {"z", &out.z}}) {
      YAML::Node value = (*dims)[axis];
      if (!value.IsDefined()) return Error(*dims, absl::StrCat(key, ".", axis, ": missing"));
      absl::StatusOr<int32_t> v = Int(value, absl::StrCat(key, ".", axis), min);
      if (!v.ok()) return v.status();
      *field = *v;
    }
    return out;
  }

  // Each entry's `name_key` must be new among `seen`.
  absl::Status Unique(const YAML::Node& at, absl::string_view what, const std::string& name,
                      absl::flat_hash_set<std::string>& seen) const {
    if (!seen.insert(name).second) return Error(at, absl::StrCat(what, " '", name, "' twice"));
    return absl::OkStatus();
  }

 private:
  std::string source_;
  std::string topology_;
  mutable size_t names_left_ = io_internal::kMaxNamesPerFile;
};

absl::Status ReadTree(const YamlReader& r, const YAML::Node& tree, SlurmTopology& topo) {
  if (absl::Status s = r.CheckKeys(tree, {"switches"}, "tree"); !s.ok()) return s;
  absl::StatusOr<YAML::Node> switches = r.List(tree, "switches");
  if (!switches.ok()) return switches.status();
  if (switches->size() == 0) return r.Error(tree, "tree: switches: no switch");
  absl::flat_hash_set<std::string> names;
  for (const YAML::Node& entry : *switches) {
    if (!entry.IsMap()) return r.Error(entry, "switches: expected a mapping of keys");
    if (absl::Status s = r.CheckKeys(entry, {"switch", "children", "nodes"}, "a switch"); !s.ok()) {
      return s;
    }
    SlurmSwitch sw;
    sw.line = LineOf(entry);
    absl::StatusOr<std::optional<std::string>> name = r.String(entry, "switch", true);
    if (!name.ok()) return name.status();
    sw.name = **name;
    if (absl::Status s = r.Unique(entry, "switch", sw.name, names); !s.ok()) return s;
    absl::StatusOr<std::vector<std::string>> children = r.Hostlist(entry, "children");
    if (!children.ok()) return children.status();
    absl::StatusOr<std::vector<std::string>> nodes = r.Hostlist(entry, "nodes");
    if (!nodes.ok()) return nodes.status();
    if (children->empty() && nodes->empty()) {
      return r.Error(entry, absl::StrCat("switch '", sw.name, "': needs children or nodes"));
    }
    sw.children = *std::move(children);
    sw.nodes = *std::move(nodes);
    if (!sw.nodes.empty()) sw.nodes_line = LineOf(entry["nodes"]);
    topo.switches.push_back(std::move(sw));
  }
  for (const SlurmSwitch& sw : topo.switches) {
    for (const std::string& child : sw.children) {
      if (!names.contains(child)) {
        return r.ErrorAt(sw.line, absl::StrCat("switch '", sw.name, "': child switch '", child,
                                               "' is not defined in this tree"));
      }
    }
  }
  return absl::OkStatus();
}

// Blocks (`blocks:`, key `block`) or rings (`rings:`, key `ring`).
absl::Status ReadNodeGroups(const YamlReader& r, const YAML::Node& parent, absl::string_view list,
                            absl::string_view key, std::vector<SlurmNodeGroup>& out) {
  absl::StatusOr<YAML::Node> entries = r.List(parent, list);
  if (!entries.ok()) return entries.status();
  if (entries->size() == 0) return r.Error(parent, absl::StrCat(list, ": none given"));
  absl::flat_hash_set<std::string> names;
  for (const YAML::Node& entry : *entries) {
    if (!entry.IsMap()) return r.Error(entry, absl::StrCat(list, ": expected a mapping of keys"));
    if (absl::Status s = r.CheckKeys(entry, {key, "nodes"}, absl::StrCat("a ", key)); !s.ok()) {
      return s;
    }
    SlurmNodeGroup group;
    group.line = LineOf(entry);
    absl::StatusOr<std::optional<std::string>> name = r.String(entry, key, true);
    if (!name.ok()) return name.status();
    group.name = **name;
    if (absl::Status s = r.Unique(entry, key, group.name, names); !s.ok()) return s;
    absl::StatusOr<std::vector<std::string>> nodes = r.Hostlist(entry, "nodes");
    if (!nodes.ok()) return nodes.status();
    if (nodes->empty()) return r.Error(entry, absl::StrCat(key, " '", group.name, "': no nodes"));
    group.nodes = *std::move(nodes);
    group.nodes_line = LineOf(entry["nodes"]);
    out.push_back(std::move(group));
  }
  return absl::OkStatus();
}

absl::Status ReadBlock(const YamlReader& r, const YAML::Node& block, SlurmTopology& topo) {
  if (absl::Status s = r.CheckKeys(block, {"block_sizes", "blocks"}, "block"); !s.ok()) return s;
  absl::StatusOr<YAML::Node> sizes = r.List(block, "block_sizes");
  if (!sizes.ok()) return sizes.status();
  if (sizes->size() > 0) topo.block_sizes_line = LineOf(*sizes);
  for (const YAML::Node& size : *sizes) {
    absl::StatusOr<int32_t> v = r.Int(size, "block_sizes", 1);
    if (!v.ok()) return v.status();
    topo.block_sizes.push_back(*v);
  }
  return ReadNodeGroups(r, block, "blocks", "block", topo.blocks);
}

absl::Status ReadRing(const YamlReader& r, const YAML::Node& ring, SlurmTopology& topo) {
  if (absl::Status s = r.CheckKeys(ring, {"rings"}, "ring"); !s.ok()) return s;
  if (absl::Status s = ReadNodeGroups(r, ring, "rings", "ring", topo.rings); !s.ok()) return s;
  for (const SlurmNodeGroup& g : topo.rings) {
    if (g.nodes.size() > static_cast<size_t>(kSlurmMaxRingSize)) {
      return r.ErrorAt(g.line, absl::StrCat("ring '", g.name, "': ", g.nodes.size(),
                                            " nodes, Slurm's limit is ", kSlurmMaxRingSize));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<SlurmTorusRegion> ReadRegion(const YamlReader& r, const YAML::Node& entry,
                                            const SlurmTorus& torus) {
  if (!entry.IsMap()) return r.Error(entry, "regions: expected a mapping of keys");
  if (absl::Status s = r.CheckKeys(entry, {"anchor", "dims", "nodes"}, "a region"); !s.ok()) {
    return s;
  }
  SlurmTorusRegion region;
  region.line = LineOf(entry);
  absl::StatusOr<SlurmDims> anchor = r.Dims(entry, "anchor", 0);
  if (!anchor.ok()) return anchor.status();
  absl::StatusOr<SlurmDims> dims = r.Dims(entry, "dims", 1);
  if (!dims.ok()) return dims.status();
  region.anchor = *anchor;
  region.dims = *dims;
  if (anchor->x + dims->x > torus.dims.x || anchor->y + dims->y > torus.dims.y ||
      anchor->z + dims->z > torus.dims.z) {
    return r.Error(entry, absl::StrCat("torus '", torus.name, "': region does not fit in ",
                                       torus.dims.x, "x", torus.dims.y, "x", torus.dims.z));
  }
  absl::StatusOr<std::vector<std::string>> nodes = r.Hostlist(entry, "nodes");
  if (!nodes.ok()) return nodes.status();
  const int64_t cells = int64_t{dims->x} * dims->y * dims->z;
  if (static_cast<int64_t>(nodes->size()) != cells) {
    return r.Error(
        entry, absl::StrCat("torus '", torus.name, "': a region of ", cells, " cells needs ", cells,
                            " nodes (one per cell), got ", nodes->size()));
  }
  for (const SlurmTorusRegion& earlier : torus.regions) {
    const auto overlap = [](int32_t a, int32_t a_size, int32_t b, int32_t b_size) {
      return a < b + b_size && b < a + a_size;
    };
    if (overlap(anchor->x, dims->x, earlier.anchor.x, earlier.dims.x) &&
        overlap(anchor->y, dims->y, earlier.anchor.y, earlier.dims.y) &&
        overlap(anchor->z, dims->z, earlier.anchor.z, earlier.dims.z)) {
      return r.Error(entry,
                     absl::StrCat("torus '", torus.name, "': region overlaps the region of line ",
                                  earlier.line, " at (", std::max(anchor->x, earlier.anchor.x), ",",
                                  std::max(anchor->y, earlier.anchor.y), ",",
                                  std::max(anchor->z, earlier.anchor.z), ")"));
    }
  }
  region.nodes = *std::move(nodes);
  return region;
}

absl::StatusOr<SlurmTorusPlacement> ReadPlacement(const YamlReader& r, const YAML::Node& entry) {
  if (!entry.IsMap()) return r.Error(entry, "placements: expected a mapping of keys");
  if (absl::Status s = r.CheckKeys(entry, {"dims", "anchor_seed", "anchor_spacing"}, "a placement");
      !s.ok()) {
    return s;
  }
  SlurmTorusPlacement placement;
  placement.line = LineOf(entry);
  absl::StatusOr<SlurmDims> dims = r.Dims(entry, "dims", 1);
  if (!dims.ok()) return dims.status();
  placement.dims = *dims;
  if (entry["anchor_seed"].IsDefined()) {
    absl::StatusOr<SlurmDims> seed = r.Dims(entry, "anchor_seed", 0);
    if (!seed.ok()) return seed.status();
    placement.anchor_seed = *seed;
  }
  if (entry["anchor_spacing"].IsDefined()) {
    absl::StatusOr<SlurmDims> spacing = r.Dims(entry, "anchor_spacing", 1);
    if (!spacing.ok()) return spacing.status();
    placement.anchor_spacing = *spacing;
  }
  return placement;
}

absl::StatusOr<SlurmTorus> ReadTorus(const YamlReader& r, const YAML::Node& entry) {
  if (!entry.IsMap()) return r.Error(entry, "toruses: expected a mapping of keys");
  if (absl::Status s =
          r.CheckKeys(entry, {"name", "dims", "nodes", "regions", "placements"}, "a torus");
      !s.ok()) {
    return s;
  }
  SlurmTorus torus;
  torus.line = LineOf(entry);
  absl::StatusOr<std::optional<std::string>> name = r.String(entry, "name", true);
  if (!name.ok()) return name.status();
  torus.name = **name;
  absl::StatusOr<SlurmDims> dims = r.Dims(entry, "dims", 1);
  if (!dims.ok()) return dims.status();
  torus.dims = *dims;
  absl::StatusOr<std::vector<std::string>> nodes = r.Hostlist(entry, "nodes");
  if (!nodes.ok()) return nodes.status();
  torus.nodes = *std::move(nodes);
  absl::StatusOr<YAML::Node> regions = r.List(entry, "regions");
  if (!regions.ok()) return regions.status();
  if (torus.nodes.empty() == (regions->size() == 0)) {
    return r.Error(entry, absl::StrCat("torus '", torus.name, "': give nodes or regions (one)"));
  }
  const int64_t cells = int64_t{torus.dims.x} * torus.dims.y * torus.dims.z;
  if (!torus.nodes.empty() && static_cast<int64_t>(torus.nodes.size()) != cells) {
    return r.Error(
        entry, absl::StrCat("torus '", torus.name, "': ", torus.nodes.size(), " nodes for ", cells,
                            " cells (one per cell, x varying "
                            "fastest; regions place fewer)"));
  }
  for (const YAML::Node& region : *regions) {
    absl::StatusOr<SlurmTorusRegion> read = ReadRegion(r, region, torus);
    if (!read.ok()) return read.status();
    torus.regions.push_back(*std::move(read));
  }
  absl::StatusOr<YAML::Node> placements = r.List(entry, "placements");
  if (!placements.ok()) return placements.status();
  for (const YAML::Node& placement : *placements) {
    absl::StatusOr<SlurmTorusPlacement> read = ReadPlacement(r, placement);
    if (!read.ok()) return read.status();
    torus.placements.push_back(*std::move(read));
  }
  return torus;
}

absl::Status ReadTorus3d(const YamlReader& r, const YAML::Node& torus3d, SlurmTopology& topo) {
  if (absl::Status s = r.CheckKeys(torus3d, {"toruses"}, "torus3d"); !s.ok()) return s;
  absl::StatusOr<YAML::Node> toruses = r.List(torus3d, "toruses");
  if (!toruses.ok()) return toruses.status();
  if (toruses->size() == 0) return r.Error(torus3d, "toruses: none given");
  absl::flat_hash_set<std::string> names;
  for (const YAML::Node& entry : *toruses) {
    absl::StatusOr<SlurmTorus> torus = ReadTorus(r, entry);
    if (!torus.ok()) return torus.status();
    if (absl::Status s = r.Unique(entry, "torus", torus->name, names); !s.ok()) return s;
    topo.toruses.push_back(*std::move(torus));
  }
  return absl::OkStatus();
}

// `flat: true`, `flat: false` (no kind) or `flat: {alpha_step_rank: BOOL}`.
absl::StatusOr<bool> ReadFlat(const YamlReader& r, const YAML::Node& flat, SlurmTopology& topo) {
  bool value = false;
  if (flat.IsScalar() && YAML::convert<bool>::decode(flat, value)) return value;
  if (!flat.IsMap()) return r.Error(flat, "flat: expected true, false or a mapping of options");
  if (absl::Status s = r.CheckKeys(flat, {"alpha_step_rank"}, "flat"); !s.ok()) return s;
  YAML::Node alpha = flat["alpha_step_rank"];
  if (alpha.IsDefined() && !YAML::convert<bool>::decode(alpha, topo.alpha_step_rank)) {
    return r.Error(alpha, "alpha_step_rank: expected true or false");
  }
  return true;
}

absl::Status ReadKindBody(const YamlReader& r, const YAML::Node& body, SlurmTopology& topo) {
  if (topo.kind == SlurmTopologyKind::kFlat) return absl::OkStatus();
  if (!body.IsMap()) {
    return r.Error(body,
                   absl::StrCat(SlurmTopologyKindName(topo.kind), ": expected a mapping of keys"));
  }
  switch (topo.kind) {
    case SlurmTopologyKind::kTree:
      return ReadTree(r, body, topo);
    case SlurmTopologyKind::kBlock:
      return ReadBlock(r, body, topo);
    case SlurmTopologyKind::kRing:
      return ReadRing(r, body, topo);
    case SlurmTopologyKind::kTorus3d:
      return ReadTorus3d(r, body, topo);
    case SlurmTopologyKind::kFlat:
      break;
  }
  return absl::OkStatus();
}

absl::StatusOr<SlurmTopology> ReadTopology(YamlReader& r, const YAML::Node& entry) {
  r.set_topology("");
  if (!entry.IsMap()) return r.Error(entry, "a topology must be a mapping of keys");
  SlurmTopology topo;
  topo.line = LineOf(entry);
  absl::StatusOr<std::optional<std::string>> name = r.String(entry, "topology", true);
  if (!name.ok()) return name.status();
  topo.name = **name;
  r.set_topology(topo.name);
  if (absl::Status s = r.CheckKeys(
          entry, {"topology", "cluster_default", "tree", "block", "flat", "ring", "torus3d"},
          "a topology");
      !s.ok()) {
    return s;
  }
  YAML::Node is_default = entry["cluster_default"];
  if (is_default.IsDefined() && !YAML::convert<bool>::decode(is_default, topo.cluster_default)) {
    return r.Error(is_default, "cluster_default: expected true or false");
  }
  std::vector<SlurmTopologyKind> kinds;
  YAML::Node body;
  for (SlurmTopologyKind kind :
       {SlurmTopologyKind::kTree, SlurmTopologyKind::kBlock, SlurmTopologyKind::kFlat,
        SlurmTopologyKind::kRing, SlurmTopologyKind::kTorus3d}) {
    YAML::Node node = entry[std::string(SlurmTopologyKindName(kind))];
    if (!node.IsDefined()) continue;
    if (kind == SlurmTopologyKind::kFlat) {
      absl::StatusOr<bool> flat = ReadFlat(r, node, topo);
      if (!flat.ok()) return flat.status();
      if (!*flat) continue;
    }
    kinds.push_back(kind);
    body = node;
  }
  if (kinds.size() != 1) {
    return r.Error(entry, absl::StrCat("needs exactly one of tree, block, flat, ring, torus3d; "
                                       "got ",
                                       kinds.size()));
  }
  topo.kind = kinds[0];
  if (absl::Status s = ReadKindBody(r, body, topo); !s.ok()) return s;
  return topo;
}

absl::StatusOr<SlurmTopologyFile> ParseDocument(const YAML::Node& root, const std::string& source) {
  YamlReader r(source);
  if (!root.IsSequence() || root.size() == 0) {
    return SourceError(source, "expected a YAML list of topologies ('- topology: NAME ...')");
  }
  SlurmTopologyFile file;
  file.source = source;
  absl::flat_hash_set<std::string> names;
  for (const YAML::Node& entry : root) {
    absl::StatusOr<SlurmTopology> topo = ReadTopology(r, entry);
    if (!topo.ok()) return topo.status();
    if (!names.insert(topo->name).second) {
      return LineError(source, topo->line, absl::StrCat("topology '", topo->name, "' twice"));
    }
    file.topologies.push_back(*std::move(topo));
  }
  return file;
}

}  // namespace

absl::string_view SlurmTopologyKindName(SlurmTopologyKind kind) {
  switch (kind) {
    case SlurmTopologyKind::kTree:
      return "tree";
    case SlurmTopologyKind::kBlock:
      return "block";
    case SlurmTopologyKind::kFlat:
      return "flat";
    case SlurmTopologyKind::kRing:
      return "ring";
    case SlurmTopologyKind::kTorus3d:
      return "torus3d";
  }
  return "?";
}

const SlurmTopology* SlurmTopologyFile::Find(absl::string_view name) const {
  for (const SlurmTopology& t : topologies) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const SlurmTopology* SlurmTopologyFile::ClusterDefault() const {
  for (const SlurmTopology& t : topologies) {
    if (t.cluster_default) return &t;
  }
  return nullptr;
}

std::vector<const SlurmTopology*> SlurmTopologyFile::OfKind(SlurmTopologyKind kind) const {
  std::vector<const SlurmTopology*> out;
  for (const SlurmTopology& t : topologies) {
    if (t.kind == kind) out.push_back(&t);
  }
  return out;
}

absl::StatusOr<SlurmTopologyFile> ParseSlurmTopologyYaml(const std::string& text,
                                                         const std::string& source) {
  // yaml-cpp reports bad YAML by exceptions; none leaves this function.
  try {
    return ParseDocument(YAML::Load(text), source);
  } catch (const YAML::Exception& e) {
    return LineError(source, e.mark.line + 1, absl::StrCat("bad YAML: ", e.msg));
  }
}

absl::StatusOr<SlurmTopologyFile> ReadSlurmTopologyYaml(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  return ParseSlurmTopologyYaml(*text, path);
}

}  // namespace hopmap
