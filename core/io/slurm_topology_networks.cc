#include "core/io/slurm_topology_networks.h"

#include <algorithm>
#include <bitset>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/io/line_reader.h"
#include "core/io/machine_file_lines.h"
#include "core/topology/hostlist.h"
#include "core/topology/switch_graph.h"
#include "core/topology/torus.h"

namespace hopmap::io_internal {
namespace {

// Slurm's MAX_BLOCK_LEVELS (src/plugins/topology/block/block_record.h).
constexpr int kMaxBlockLevels = 16;

// Joins `below` (two or more switches) under one more switch, "top", or "top-2", ...
// when a node or switch has that name, and lists it in the summary.
void JoinUnderTop(const std::vector<std::string>& below, SwitchGraphSpec& spec,
                  SlurmTopologySummary& summary) {
  absl::flat_hash_set<std::string> taken(spec.node_names.begin(), spec.node_names.end());
  taken.insert(spec.switch_names.begin(), spec.switch_names.end());
  std::string top = "top";
  for (int i = 2; taken.contains(top); ++i) top = absl::StrCat("top-", i);
  spec.switch_names.push_back(top);
  for (const std::string& switch_name : below) spec.links.emplace_back(top, switch_name);
  summary.parts.push_back({"top", top, absl::StrCat("joins ", absl::StrJoin(below, ", ")), ""});
}

// The switch graph, its errors as the topology's.
absl::StatusOr<std::shared_ptr<Machine>> CreateGraph(const TopologyErrors& errors,
                                                     SwitchGraphSpec spec) {
  absl::StatusOr<SwitchGraphMachine> graph = SwitchGraphMachine::Create(std::move(spec));
  if (!graph.ok()) return errors.At(0, graph.status().message());
  return std::make_shared<SwitchGraphMachine>(*std::move(graph));
}

// Slurm's block levels: the size, in base blocks, of each level the block plugin
// plans with (its block_sizes[]): 1, then the sizes of block_sizes (all of 1, 2, 4,
// 8, 16 without it), up to the first that holds every block.
absl::StatusOr<std::vector<int32_t>> BlockLevels(const SlurmTopologyFile& file,
                                                 const SlurmTopology& topo,
                                                 const TopologyErrors& errors) {
  const char* field = file.conf ? "BlockSizes" : "block_sizes";
  std::bitset<kMaxBlockLevels> levels;
  if (topo.block_sizes.empty()) {
    for (int level = 0; level <= 4; ++level) levels.set(level);
  } else {
    const int32_t base = topo.block_sizes[0];
    levels.set(0);
    for (int32_t size : topo.block_sizes) {
      const int32_t blocks = size / base;
      if (size % base != 0 || (blocks & (blocks - 1)) != 0) {
        return errors.At(topo.block_sizes_line,
                         absl::StrCat(field, ": ", size, " is not the base block size ", base,
                                      " times a power of two"));
      }
      int level = 0;
      while ((int64_t{1} << level) < blocks) ++level;
      if (level >= kMaxBlockLevels) {
        return errors.At(
            topo.block_sizes_line,
            absl::StrCat(field, ": ", size, " is 2^", level,
                         " base blocks; Slurm's levels end at 2^", kMaxBlockLevels - 1));
      }
      levels.set(level);
    }
  }
  std::vector<int32_t> sizes;
  for (int level = 0; level < kMaxBlockLevels; ++level) {
    if (!levels[level]) continue;
    sizes.push_back(int32_t{1} << level);
    if (sizes.back() >= static_cast<int32_t>(topo.blocks.size())) break;
  }
  return sizes;
}

// An aggregated block: the base blocks Slurm joins at one level.
struct Aggregate {
  int level = 0;
  std::vector<int32_t> blocks;
  std::string name;  // Slurm's: the base blocks' names as a hostlist, "b[1-4]"
};

// Slurm's aggregated blocks (block_record_validate): at level j, runs of sizes[j]
// base blocks in file order, starting at multiples of sizes[j]; a last, shorter run
// is kept unless one block of the level below holds it.
std::vector<Aggregate> AggregateBlocks(const SlurmTopology& topo,
                                       const std::vector<int32_t>& sizes) {
  const int32_t count = static_cast<int32_t>(topo.blocks.size());
  std::vector<Aggregate> aggregates;
  std::vector<int> open(sizes.size(), -1);
  for (int32_t i = 0; i < count; ++i) {
    for (size_t j = 1; j < sizes.size(); ++j) {
      if (i % sizes[j] != 0) {
        if (open[j] >= 0) aggregates[open[j]].blocks.push_back(i);
        continue;
      }
      const int32_t remaining = count - i;
      if (sizes[j] > remaining && sizes[j - 1] >= remaining) {
        open[j] = -1;
        continue;
      }
      open[j] = static_cast<int>(aggregates.size());
      aggregates.push_back({static_cast<int>(j), {i}, ""});
    }
  }
  std::stable_sort(aggregates.begin(), aggregates.end(),
                   [](const Aggregate& a, const Aggregate& b) { return a.level < b.level; });
  for (Aggregate& a : aggregates) {
    std::vector<std::string> names;
    for (int32_t b : a.blocks) names.push_back(topo.blocks[b].name);
    a.name = CompressHostlist(names);
  }
  return aggregates;
}

// The switch a base block is under just below `level`: its aggregate of the highest
// level below `level`, or the block's own.
std::string Below(int32_t block, int level, const SlurmTopology& topo,
                  const std::vector<Aggregate>& aggregates,
                  const std::vector<std::vector<int>>& aggregate_of) {
  for (int l = level - 1; l >= 1; --l) {
    if (aggregate_of[l][block] >= 0) return aggregates[aggregate_of[l][block]].name;
  }
  return topo.blocks[block].name;
}

// Appends `name` to `names` unless it is there already.
void AddOnce(std::vector<std::string>& names, std::string name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    names.push_back(std::move(name));
  }
}

std::string Dims(const SlurmDims& d) { return absl::StrCat(d.x, "x", d.y, "x", d.z); }

}  // namespace

absl::Status TopologyErrors::At(int64_t line, absl::string_view message) const {
  const std::string text =
      file_.conf ? std::string(message) : absl::StrCat("topology '", topo_.name, "': ", message);
  return line > 0 ? LineError(file_.source, line, text) : SourceError(file_.source, text);
}

absl::StatusOr<SlurmTopologyMachine> BuildBlocks(const SlurmTopologyFile& file,
                                                 const SlurmTopology& topo, std::string source) {
  const TopologyErrors errors(file, topo);
  absl::StatusOr<std::vector<int32_t>> sizes = BlockLevels(file, topo, errors);
  if (!sizes.ok()) return sizes.status();
  SlurmTopologyMachine built;
  SwitchGraphSpec spec;
  spec.source = std::move(source);
  absl::flat_hash_map<std::string, int32_t> block_of_host;
  for (int32_t b = 0; b < static_cast<int32_t>(topo.blocks.size()); ++b) {
    const SlurmNodeGroup& block = topo.blocks[b];
    spec.switch_names.push_back(block.name);
    for (const std::string& host : block.nodes) {
      auto [it, added] = block_of_host.emplace(host, b);
      if (!added) {
        return errors.At(
            block.nodes_line,
            absl::StrCat("block '", block.name, "': host '", host,
                         it->second == b ? "' is listed twice"
                                         : absl::StrCat("' is also in block '",
                                                        topo.blocks[it->second].name, "'")));
      }
      spec.node_names.push_back(host);
      spec.links.emplace_back(block.name, host);
    }
    built.summary.parts.push_back({"block", block.name, "", CompressHostlist(block.nodes)});
  }
  const std::vector<Aggregate> aggregates = AggregateBlocks(topo, *sizes);
  std::vector<std::vector<int>> aggregate_of(sizes->size(),
                                             std::vector<int>(topo.blocks.size(), -1));
  for (size_t a = 0; a < aggregates.size(); ++a) {
    for (int32_t b : aggregates[a].blocks)
      aggregate_of[aggregates[a].level][b] = static_cast<int>(a);
  }
  for (const Aggregate& a : aggregates) {
    spec.switch_names.push_back(a.name);
    std::vector<std::string> children, hosts;
    for (int32_t b : a.blocks) {
      AddOnce(children, Below(b, a.level, topo, aggregates, aggregate_of));
      hosts.insert(hosts.end(), topo.blocks[b].nodes.begin(), topo.blocks[b].nodes.end());
    }
    for (std::string& child : children) spec.links.emplace_back(a.name, std::move(child));
    built.summary.parts.push_back({"aggregate", a.name,
                                   absl::StrCat("level ", a.level, ": ", a.blocks.size(), " of ",
                                                (*sizes)[a.level], " blocks"),
                                   CompressHostlist(hosts)});
  }
  std::vector<std::string> roots;
  for (int32_t b = 0; b < static_cast<int32_t>(topo.blocks.size()); ++b) {
    AddOnce(roots, Below(b, static_cast<int>(sizes->size()), topo, aggregates, aggregate_of));
  }
  if (roots.size() > 1) JoinUnderTop(roots, spec, built.summary);
  std::vector<int32_t> sizes_in_nodes;
  const int32_t base = topo.block_sizes.empty() ? static_cast<int32_t>(topo.blocks[0].nodes.size())
                                                : topo.block_sizes[0];
  for (int32_t s : *sizes) sizes_in_nodes.push_back(s * base);
  built.summary.network = absl::StrCat(
      topo.blocks.size(), " base blocks of ", base, " nodes; levels of ",
      absl::StrJoin(*sizes, ", "), " blocks (", absl::StrJoin(sizes_in_nodes, ", "), " nodes); ",
      aggregates.size(), " aggregated blocks", roots.size() > 1 ? ", a top switch above them" : "");
  absl::StatusOr<std::shared_ptr<Machine>> machine = CreateGraph(errors, std::move(spec));
  if (!machine.ok()) return machine.status();
  built.machine = *std::move(machine);
  return built;
}

absl::StatusOr<SlurmTopologyMachine> BuildRings(const SlurmTopologyFile& file,
                                                const SlurmTopology& topo, std::string source) {
  const TopologyErrors errors(file, topo);
  SlurmTopologyMachine built;
  SwitchGraphSpec spec;
  spec.source = std::move(source);
  absl::flat_hash_map<std::string, std::pair<int32_t, size_t>> place_of_host;  // ring, position
  for (int32_t r = 0; r < static_cast<int32_t>(topo.rings.size()); ++r) {
    const SlurmNodeGroup& ring = topo.rings[r];
    const size_t n = ring.nodes.size();
    for (size_t pos = 0; pos < n; ++pos) {
      const std::string& host = ring.nodes[pos];
      auto [it, added] = place_of_host.emplace(host, std::pair{r, pos});
      if (!added) {
        return errors.At(
            ring.nodes_line,
            absl::StrCat("ring '", ring.name, "': host '", host, "' is also at ", "position ",
                         it->second.second, " of ring '", topo.rings[it->second.first].name, "'"));
      }
      const std::string port = absl::StrCat(ring.name, ":", pos);
      spec.switch_names.push_back(port);
      spec.node_names.push_back(host);
      spec.links.emplace_back(port, host);
    }
    // The cycle: position i to i + 1, the last back to 0 (of two positions, one link).
    const size_t ring_links = n == 2 ? 1 : (n > 2 ? n : 0);
    for (size_t pos = 0; pos < ring_links; ++pos) {
      spec.links.emplace_back(absl::StrCat(ring.name, ":", pos),
                              absl::StrCat(ring.name, ":", (pos + 1) % n));
    }
    built.summary.parts.push_back({"ring", ring.name,
                                   absl::StrCat(n, " position", n == 1 ? "" : "s"),
                                   CompressHostlist(ring.nodes)});
  }
  if (topo.rings.size() > 1) {
    std::vector<std::string> gates;
    for (const SlurmNodeGroup& ring : topo.rings) gates.push_back(absl::StrCat(ring.name, ":0"));
    JoinUnderTop(gates, spec, built.summary);
  }
  built.summary.network = absl::StrCat(
      topo.rings.size(), " ring", topo.rings.size() == 1 ? "" : "s", ", a switch per position",
      topo.rings.size() > 1 ? ", joined at position 0 by a top switch" : "");
  absl::StatusOr<std::shared_ptr<Machine>> machine = CreateGraph(errors, std::move(spec));
  if (!machine.ok()) return machine.status();
  built.machine = *std::move(machine);
  return built;
}

absl::StatusOr<SlurmTopologyMachine> BuildTorus(const SlurmTopologyFile& file,
                                                const SlurmTopology& topo, std::string source) {
  const TopologyErrors errors(file, topo);
  if (topo.toruses.size() > 1) {
    std::vector<std::string> names;
    for (const SlurmTorus& t : topo.toruses) names.push_back(t.name);
    return errors.At(
        topo.toruses[1].line,
        absl::StrCat("torus3d: ", topo.toruses.size(), " toruses (", absl::StrJoin(names, ", "),
                     "): a machine is one torus; give each torus its own topology "
                     "and choose it with :NAME"));
  }
  const SlurmTorus& torus = topo.toruses[0];
  const int64_t cells = int64_t{torus.dims.x} * torus.dims.y * torus.dims.z;
  if (cells > static_cast<int64_t>(kMaxNamesPerFile)) {
    return errors.At(torus.line, absl::StrCat("torus '", torus.name, "': ", Dims(torus.dims), " = ",
                                              cells, " cells, more than the ", kMaxNamesPerFile,
                                              " hopmap reads from a file"));
  }
  SlurmTopologyMachine built;
  std::vector<std::string> names(static_cast<size_t>(cells));
  std::vector<bool> vacant(static_cast<size_t>(cells), true);
  absl::flat_hash_map<std::string, int64_t> cell_of_host;
  auto coords = [&](int64_t cell) {
    return absl::StrCat("(", cell % torus.dims.x, ",", cell / torus.dims.x % torus.dims.y, ",",
                        cell / (int64_t{torus.dims.x} * torus.dims.y), ")");
  };
  // Places `host` at `cell` (x + X * (y + Y * z), as Slurm numbers them).
  auto place = [&](const std::string& host, int64_t cell, int64_t line) -> absl::Status {
    auto [it, added] = cell_of_host.emplace(host, cell);
    if (!added) {
      return errors.At(line, absl::StrCat("torus '", torus.name, "': host '", host, "' is at ",
                                          coords(it->second), " and at ", coords(cell)));
    }
    names[static_cast<size_t>(cell)] = host;
    vacant[static_cast<size_t>(cell)] = false;
    return absl::OkStatus();
  };
  for (size_t i = 0; i < torus.nodes.size(); ++i) {
    if (absl::Status s = place(torus.nodes[i], static_cast<int64_t>(i), torus.line); !s.ok()) {
      return s;
    }
  }
  for (const SlurmTorusRegion& region : torus.regions) {
    const SlurmDims& d = region.dims;
    for (size_t i = 0; i < region.nodes.size(); ++i) {
      const int64_t x = region.anchor.x + static_cast<int64_t>(i % d.x);
      const int64_t y = region.anchor.y + static_cast<int64_t>(i / d.x % d.y);
      const int64_t z = region.anchor.z + static_cast<int64_t>(i / (int64_t{d.x} * d.y));
      const int64_t cell = x + torus.dims.x * (y + int64_t{torus.dims.y} * z);
      if (absl::Status s = place(region.nodes[i], cell, region.line); !s.ok()) return s;
    }
    built.summary.parts.push_back({"region", "",
                                   absl::StrCat("anchor (", region.anchor.x, ",", region.anchor.y,
                                                ",", region.anchor.z, "), ", Dims(d)),
                                   CompressHostlist(region.nodes)});
  }
  int64_t num_vacant = 0;
  for (int64_t cell = 0; cell < cells; ++cell) {
    if (!vacant[static_cast<size_t>(cell)]) continue;
    ++num_vacant;
    // A cell without a host, named as Slurm's Topology= of a node would place it there.
    names[static_cast<size_t>(cell)] =
        absl::StrCat(torus.name, ":", cell % torus.dims.x, ":", cell / torus.dims.x % torus.dims.y,
                     ":", cell / (int64_t{torus.dims.x} * torus.dims.y));
  }
  absl::StatusOr<TorusMachine> machine =
      TorusMachine::Create({torus.dims.x, torus.dims.y, torus.dims.z}, {true, true, true});
  if (!machine.ok()) return errors.At(torus.line, machine.status().message());
  absl::StatusOr<NodeNames> node_names = NodeNames::List(names);
  if (!node_names.ok()) return errors.At(torus.line, node_names.status().message());
  machine->set_node_names(*std::move(node_names));
  machine->set_vacant_nodes(std::move(vacant));
  machine->set_source(std::move(source));
  std::vector<std::string> shapes;  // the job shapes Slurm allows on it
  for (const SlurmTorusPlacement& p : torus.placements) shapes.push_back(Dims(p.dims));
  built.summary.parts.insert(built.summary.parts.begin(),
                             {"torus", torus.name,
                              absl::StrCat(Dims(torus.dims), shapes.empty() ? "" : ", placements ",
                                           absl::StrJoin(shapes, ", ")),
                              CompressHostlist(torus.nodes)});
  built.summary.network =
      absl::StrCat(Dims(torus.dims), " torus = ", cells, " cells, ", cells - num_vacant,
                   " with a host", num_vacant > 0 ? absl::StrCat(", ", num_vacant, " vacant") : "");
  built.machine = std::make_shared<TorusMachine>(*std::move(machine));
  return built;
}

}  // namespace hopmap::io_internal
