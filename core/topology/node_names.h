// NodeNames: the hostnames of a machine's nodes, as schedulers print them.
#ifndef HOPMAP_CORE_TOPOLOGY_NODE_NAMES_H_
#define HOPMAP_CORE_TOPOLOGY_NODE_NAMES_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "core/types.h"

namespace hopmap {

// Either a pattern (prefix + node id zero-padded to `width` digits, the Cray
// "nid00012" convention; the default) or an explicit list (Slurm topology files).
class NodeNames {
 public:
  // Pattern names: "nid" + 5 digits.
  NodeNames() = default;
  static NodeNames Pattern(std::string prefix, int width);
  // Explicit names; fails on an empty or duplicate name.
  static absl::StatusOr<NodeNames> List(std::vector<std::string> names);

  [[nodiscard]] std::string Name(NodeId node) const;
  // The node of a name, or nullopt. Pattern names also accept other paddings
  // ("nid12" and "nid00012" are both node 12); `num_nodes` bounds the id.
  [[nodiscard]] std::optional<NodeId> Find(std::string_view name, NodeId num_nodes) const;

  [[nodiscard]] bool is_pattern() const { return list_ == nullptr; }
  [[nodiscard]] const std::string& prefix() const { return prefix_; }
  [[nodiscard]] int width() const { return width_; }

 private:
  struct ListData {
    std::vector<std::string> names;
    absl::flat_hash_map<std::string, NodeId> index;
  };
  std::string prefix_ = "nid";
  int width_ = 5;
  std::shared_ptr<const ListData> list_;  // shared: machines are copied cheaply
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_TOPOLOGY_NODE_NAMES_H_
