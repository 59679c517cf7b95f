#include "core/io/kubernetes_nodes.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/io/line_reader.h"
#include "nlohmann/json.hpp"

namespace hopmap {
namespace {

using Json = nlohmann::json;

// One node as read: its host name, its labels' values, its GPUs (-1: not given).
struct KubernetesNode {
  std::string name;  // metadata.name
  std::string host;
  std::string block;
  std::string sub_block;
  int64_t gpus = -1;
};

// `object[key]` as a string, or "" when absent or not a string.
std::string StringAt(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// status.capacity["nvidia.com/gpu"]: a quantity, "8" (or 8); -1 when absent.
absl::StatusOr<int64_t> GpuCapacity(const Json& item, const std::string& source,
                                    const std::string& path) {
  auto status = item.find("status");
  if (status == item.end() || !status->is_object()) return -1;
  auto capacity = status->find("capacity");
  if (capacity == status->end() || !capacity->is_object()) return -1;
  auto gpus = capacity->find(kKubernetesGpuResource);
  if (gpus == capacity->end()) return -1;
  int64_t value = -1;
  if (gpus->is_number_integer()) value = gpus->get<int64_t>();
  if (gpus->is_string() && !absl::SimpleAtoi(gpus->get<std::string>(), &value)) value = -1;
  if (value < 0) {
    return SourceError(source,
                       absl::StrCat(path, ".status.capacity[\"", kKubernetesGpuResource,
                                    "\"]: expected a whole number of GPUs, got ", gpus->dump()));
  }
  return value;
}

absl::StatusOr<KubernetesNode> ReadNode(const Json& item, size_t index, const std::string& source,
                                        const KubernetesNodesOptions& options) {
  const std::string path = absl::StrCat("items[", index, "]");
  auto metadata = item.is_object() ? item.find("metadata") : item.end();
  if (!item.is_object() || metadata == item.end() || !metadata->is_object()) {
    return SourceError(source, absl::StrCat(path, ".metadata: missing (not a Node object?)"));
  }
  KubernetesNode node;
  node.name = StringAt(*metadata, "name");
  if (node.name.empty()) {
    return SourceError(source, absl::StrCat(path, ".metadata.name: missing"));
  }
  static const Json kNoLabels = Json::object();
  auto found = metadata->find("labels");
  const Json& labels = found != metadata->end() && found->is_object() ? *found : kNoLabels;
  const auto label = [&](const std::string& key) -> absl::StatusOr<std::string> {
    std::string value = StringAt(labels, key.c_str());
    if (value.empty()) {
      return SourceError(
          source,
          absl::StrCat(path, ".metadata.labels: node '", node.name, "' has no label '", key,
                       "' (read only labelled nodes: kubectl get nodes -l ", key, " -o json)"));
    }
    return value;
  };
  absl::StatusOr<std::string> block = label(options.block_label);
  if (!block.ok()) return block.status();
  node.block = *std::move(block);
  if (!options.sub_block_label.empty()) {
    absl::StatusOr<std::string> sub = label(options.sub_block_label);
    if (!sub.ok()) return sub.status();
    node.sub_block = *std::move(sub);
  }
  node.host = options.host_label.empty() ? "" : StringAt(labels, options.host_label.c_str());
  if (node.host.empty()) node.host = node.name;
  absl::StatusOr<int64_t> gpus = GpuCapacity(item, source, path);
  if (!gpus.ok()) return gpus.status();
  node.gpus = *gpus;
  return node;
}

// The items of a List / NodeList, or the one Node.
absl::StatusOr<std::vector<const Json*>> Items(const Json& root, const std::string& source) {
  if (!root.is_object()) {
    return SourceError(source, "expected a JSON object (kubectl get nodes -o json)");
  }
  if (StringAt(root, "kind") == "Node") return std::vector<const Json*>{&root};
  auto items = root.find("items");
  if (items == root.end() || !items->is_array()) {
    return SourceError(source, "items: missing or not a list (kubectl get nodes -o json)");
  }
  if (items->empty()) return SourceError(source, "items: no nodes");
  std::vector<const Json*> out;
  for (const Json& item : *items) out.push_back(&item);
  return out;
}

// GPUs per host: the option, or every node's capacity (all equal).
absl::StatusOr<int32_t> GpusPerHost(const std::vector<KubernetesNode>& nodes,
                                    const std::string& source,
                                    const KubernetesNodesOptions& options) {
  if (options.gpus_per_host > 0) return options.gpus_per_host;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string path = absl::StrCat("items[", i, "].status.capacity");
    if (nodes[i].gpus <= 0) {
      return SourceError(source, absl::StrCat(path, ": node '", nodes[i].name, "' has no ",
                                              kKubernetesGpuResource, " (give gpus=G)"));
    }
    if (nodes[i].gpus != nodes[0].gpus) {
      return SourceError(source,
                         absl::StrCat(path, ": node '", nodes[i].name, "' has ", nodes[i].gpus,
                                      " GPUs, node '", nodes[0].name, "' has ", nodes[0].gpus,
                                      " (hosts must be alike; give gpus=G to override)"));
    }
  }
  if (nodes[0].gpus > INT32_MAX) return SourceError(source, "too many GPUs per node");
  return static_cast<int32_t>(nodes[0].gpus);
}

// Fills the leaf groups and the domains in the order of their first host.
void GroupHosts(const std::vector<KubernetesNode>& nodes, bool have_sub_blocks,
                GpuClusterSpec& spec) {
  absl::flat_hash_map<std::string, int32_t> leaf_id;
  absl::flat_hash_map<std::pair<std::string, std::string>, int32_t> domain_id;
  absl::flat_hash_map<std::string, absl::flat_hash_set<std::string>> blocks_of_sub;
  for (const KubernetesNode& n : nodes) {
    spec.host_names.push_back(n.host);
    auto [leaf, new_leaf] = leaf_id.try_emplace(n.block, static_cast<int32_t>(leaf_id.size()));
    if (new_leaf) spec.leaf_names.push_back(n.block);
    spec.leaf_of_host.push_back(leaf->second);
    if (!have_sub_blocks) continue;
    auto [domain, new_domain] = domain_id.try_emplace(std::pair{n.block, n.sub_block},
                                                      static_cast<int32_t>(domain_id.size()));
    if (new_domain) spec.domain_names.push_back(n.sub_block);
    spec.domain_of_host.push_back(domain->second);
    blocks_of_sub[n.sub_block].insert(n.block);
  }
  for (const auto& [key, id] : domain_id) {
    if (blocks_of_sub[key.second].size() > 1) {
      spec.domain_names[id] = absl::StrCat(key.first, "/", key.second);
    }
  }
}

std::string SourceSpec(const std::string& source, const KubernetesNodesOptions& options) {
  const KubernetesNodesOptions defaults;
  std::string spec = absl::StrCat("gpu-k8s:", source);
  if (options.block_label != defaults.block_label) {
    absl::StrAppend(&spec, ":block-label=", options.block_label);
  }
  if (!options.sub_block_label.empty()) {
    absl::StrAppend(&spec, ":sub-block-label=", options.sub_block_label);
  }
  if (options.host_label != defaults.host_label) {
    absl::StrAppend(&spec, ":host-label=", options.host_label);
  }
  if (options.gpus_per_host != 0) absl::StrAppend(&spec, ":gpus=", options.gpus_per_host);
  return spec;
}

// The 1-based line of byte `offset` of `text`.
int64_t LineAt(const std::string& text, size_t offset) {
  int64_t line = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) line += text[i] == '\n';
  return line;
}

}  // namespace

absl::Status KubernetesNodesOptions::Validate() const {
  if (block_label.empty()) {
    return absl::InvalidArgumentError("block-label=: the leaf group's label must be named");
  }
  if (gpus_per_host < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gpus=", gpus_per_host, ": GPUs per host must be at least 1 (0: each node's capacity)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<GpuClusterSpec> GpuClusterFromKubernetesNodes(
    const std::string& json_text, const std::string& source,
    const KubernetesNodesOptions& options) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  Json root;
  try {
    root = Json::parse(json_text);
  } catch (const Json::parse_error& e) {
    return LineError(source, LineAt(json_text, e.byte == 0 ? 0 : e.byte - 1),
                     absl::StrCat("bad JSON: ", e.what()));
  } catch (const Json::exception& e) {
    // Valid syntax the parser still refuses (a number beyond a double: "1e400"); it
    // gives no position.
    return absl::InvalidArgumentError(absl::StrCat(source, ": bad JSON: ", e.what()));
  }
  absl::StatusOr<std::vector<const Json*>> items = Items(root, source);
  if (!items.ok()) return items.status();
  std::vector<KubernetesNode> nodes;
  absl::flat_hash_map<std::string, size_t> item_of_host;
  for (size_t i = 0; i < items->size(); ++i) {
    absl::StatusOr<KubernetesNode> node = ReadNode(*(*items)[i], i, source, options);
    if (!node.ok()) return node.status();
    auto [it, added] = item_of_host.try_emplace(node->host, i);
    if (!added) {
      return SourceError(source, absl::StrCat("items[", i, "]: host '", node->host,
                                              "' again (first at items[", it->second, "])"));
    }
    nodes.push_back(*std::move(node));
  }
  absl::StatusOr<int32_t> gpus = GpusPerHost(nodes, source, options);
  if (!gpus.ok()) return gpus.status();
  GpuClusterSpec spec;
  spec.gpus_per_host = *gpus;
  GroupHosts(nodes, !options.sub_block_label.empty(), spec);
  spec.source = SourceSpec(source, options);
  return spec;
}

absl::StatusOr<GpuClusterSpec> ParseGpuK8sSpec(const std::string& path,
                                               const KubernetesNodesOptions& options) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  return GpuClusterFromKubernetesNodes(*text, path, options);
}

}  // namespace hopmap
