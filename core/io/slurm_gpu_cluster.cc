#include "core/io/slurm_gpu_cluster.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/io/line_reader.h"

namespace hopmap {
namespace {

// The topology of `kind` the option `key` names, or the file's only one of that
// kind; null when the file has none and none was named.
absl::StatusOr<const SlurmTopology*> PickTopology(const SlurmTopologyFile& file,
                                                  SlurmTopologyKind kind, const std::string& name,
                                                  absl::string_view key) {
  const absl::string_view kind_name = SlurmTopologyKindName(kind);
  if (!name.empty()) {
    const SlurmTopology* topo = file.Find(name);
    if (topo == nullptr) {
      std::vector<std::string> names;
      for (const SlurmTopology& t : file.topologies) names.push_back(t.name);
      return SourceError(file.source,
                         absl::StrCat(key, "=", name, ": no such topology (the file has ",
                                      absl::StrJoin(names, ", "), ")"));
    }
    if (topo->kind != kind) {
      return LineError(
          file.source, topo->line,
          absl::StrCat(key, "=", name, ": topology '", name, "' is a ",
                       SlurmTopologyKindName(topo->kind), " topology, not a ", kind_name));
    }
    return topo;
  }
  std::vector<const SlurmTopology*> of_kind = file.OfKind(kind);
  if (of_kind.size() > 1) {
    std::vector<std::string> names;
    for (const SlurmTopology* t : of_kind) names.push_back(t->name);
    return SourceError(
        file.source, absl::StrCat("several ", kind_name, " topologies (",
                                  absl::StrJoin(names, ", "), "): choose one with ", key, "=NAME"));
  }
  return of_kind.empty() ? nullptr : of_kind[0];
}

// Hosts by name, numbered as they are first seen, with the leaf switch (or block)
// and the block of each (-1: none yet).
struct HostTable {
  std::vector<std::string> names;
  absl::flat_hash_map<std::string, int32_t> id;
  std::vector<int32_t> leaf;
  std::vector<int32_t> block;

  int32_t Add(const std::string& name) {
    auto [it, added] = id.try_emplace(name, static_cast<int32_t>(names.size()));
    if (added) {
      names.push_back(name);
      leaf.push_back(-1);
      block.push_back(-1);
    }
    return it->second;
  }
};

// The tree's leaf switches: every host under one of them, and under one only.
absl::Status AddLeaves(const SlurmTopologyFile& file, const SlurmTopology& tree, HostTable& hosts,
                       std::vector<std::string>& leaf_names) {
  for (const SlurmSwitch& sw : tree.switches) {
    if (sw.nodes.empty()) continue;
    const int32_t leaf = static_cast<int32_t>(leaf_names.size());
    leaf_names.push_back(sw.name);
    for (const std::string& host : sw.nodes) {
      const int32_t h = hosts.Add(host);
      if (hosts.leaf[h] != -1) {
        return LineError(file.source, sw.nodes_line,
                         absl::StrCat("topology '", tree.name, "': host '", host,
                                      "' is under two leaf switches ('", leaf_names[hosts.leaf[h]],
                                      "' and '", sw.name, "')"));
      }
      hosts.leaf[h] = leaf;
    }
  }
  return absl::OkStatus();
}

// The blocks: every host in one block at most, each block under one leaf switch
// (with a tree); without a tree each block is its own leaf group.
absl::Status AddBlocks(const SlurmTopologyFile& file, const SlurmTopology& blocks, bool have_tree,
                       HostTable& hosts, const std::vector<std::string>& leaf_names) {
  for (size_t b = 0; b < blocks.blocks.size(); ++b) {
    const SlurmNodeGroup& block = blocks.blocks[b];
    const auto error = [&](absl::string_view message) {
      return LineError(
          file.source, block.nodes_line,
          absl::StrCat("topology '", blocks.name, "': block '", block.name, "': ", message));
    };
    int32_t first = -1;  // the block's first host
    for (const std::string& host : block.nodes) {
      int32_t h = -1;
      if (have_tree) {
        auto it = hosts.id.find(host);
        if (it == hosts.id.end()) {
          return error(absl::StrCat("host '", host, "' is under no leaf switch of the tree"));
        }
        h = it->second;
      } else {
        h = hosts.Add(host);
        hosts.leaf[h] = static_cast<int32_t>(b);
      }
      if (hosts.block[h] != -1) {
        return error(absl::StrCat("host '", host, "' is also in block '",
                                  blocks.blocks[hosts.block[h]].name, "'"));
      }
      hosts.block[h] = static_cast<int32_t>(b);
      if (first == -1) first = h;
      if (hosts.leaf[h] != hosts.leaf[first]) {
        return error(absl::StrCat("spans two leaf groups: host '", hosts.names[first], "' under '",
                                  leaf_names[hosts.leaf[first]], "', host '", host, "' under '",
                                  leaf_names[hosts.leaf[h]],
                                  "' (an NVLink domain lies inside one leaf group)"));
      }
    }
  }
  return absl::OkStatus();
}

// Renumbers `group_of_host` (-1: a group of its own, named after the host) in the
// order of each group's first host; names from `names`.
void Renumber(const std::vector<int32_t>& group_of_host, const std::vector<std::string>& names,
              const std::vector<std::string>& host_names, std::vector<int32_t>& ids,
              std::vector<std::string>& id_names) {
  absl::flat_hash_map<int32_t, int32_t> new_id;
  ids.assign(group_of_host.size(), -1);
  for (size_t h = 0; h < group_of_host.size(); ++h) {
    const int32_t g = group_of_host[h];
    if (g == -1) {
      ids[h] = static_cast<int32_t>(id_names.size());
      id_names.push_back(host_names[h]);
      continue;
    }
    auto [it, added] = new_id.try_emplace(g, static_cast<int32_t>(id_names.size()));
    if (added) id_names.push_back(names[g]);
    ids[h] = it->second;
  }
}

std::string SourceSpec(const std::string& path, const SlurmGpuClusterOptions& options) {
  std::string spec = absl::StrCat("gpu-slurm:", path);
  if (!options.tree.empty()) absl::StrAppend(&spec, ":tree=", options.tree);
  if (!options.block.empty()) absl::StrAppend(&spec, ":block=", options.block);
  if (options.gpus_per_host != SlurmGpuClusterOptions{}.gpus_per_host) {
    absl::StrAppend(&spec, ":gpus=", options.gpus_per_host);
  }
  return spec;
}

}  // namespace

absl::Status SlurmGpuClusterOptions::Validate() const {
  if (gpus_per_host < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("gpus=", gpus_per_host, ": GPUs per host must be at least 1"));
  }
  return absl::OkStatus();
}

absl::StatusOr<GpuClusterSpec> GpuClusterFromSlurmTopology(const SlurmTopologyFile& file,
                                                           const SlurmGpuClusterOptions& options) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  absl::StatusOr<const SlurmTopology*> tree =
      PickTopology(file, SlurmTopologyKind::kTree, options.tree, "tree");
  if (!tree.ok()) return tree.status();
  absl::StatusOr<const SlurmTopology*> blocks =
      PickTopology(file, SlurmTopologyKind::kBlock, options.block, "block");
  if (!blocks.ok()) return blocks.status();
  if (*tree == nullptr && *blocks == nullptr) {
    return SourceError(file.source,
                       "no tree and no block topology: the leaf groups come from a tree's leaf "
                       "switches, the NVLink domains from a block topology");
  }
  HostTable hosts;
  std::vector<std::string> leaf_names;
  if (*tree != nullptr) {
    if (absl::Status s = AddLeaves(file, **tree, hosts, leaf_names); !s.ok()) return s;
  } else {
    for (const SlurmNodeGroup& block : (*blocks)->blocks) leaf_names.push_back(block.name);
  }
  std::vector<std::string> block_names;
  if (*blocks != nullptr) {
    if (absl::Status s = AddBlocks(file, **blocks, *tree != nullptr, hosts, leaf_names); !s.ok()) {
      return s;
    }
    for (const SlurmNodeGroup& block : (*blocks)->blocks) block_names.push_back(block.name);
  }
  GpuClusterSpec spec;
  spec.gpus_per_host = options.gpus_per_host;
  Renumber(hosts.leaf, leaf_names, hosts.names, spec.leaf_of_host, spec.leaf_names);
  if (*blocks != nullptr) {
    Renumber(hosts.block, block_names, hosts.names, spec.domain_of_host, spec.domain_names);
  }
  spec.host_names = std::move(hosts.names);
  spec.source = SourceSpec(file.source, options);
  return spec;
}

absl::StatusOr<GpuClusterSpec> ParseGpuSlurmSpec(const std::string& path,
                                                 const SlurmGpuClusterOptions& options) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  absl::StatusOr<SlurmTopologyFile> file = ReadSlurmTopologyYaml(path);
  if (!file.ok()) return file.status();
  return GpuClusterFromSlurmTopology(*file, options);
}

}  // namespace hopmap
