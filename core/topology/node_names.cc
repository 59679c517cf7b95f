#include "core/topology/node_names.h"

#include <charconv>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hopmap {

NodeNames NodeNames::Pattern(std::string prefix, int width) {
  NodeNames names;
  names.prefix_ = std::move(prefix);
  names.width_ = width;
  return names;
}

absl::StatusOr<NodeNames> NodeNames::List(std::vector<std::string> list) {
  auto data = std::make_shared<ListData>();
  data->index.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].empty()) {
      return absl::InvalidArgumentError(absl::StrCat("node ", i, " has an empty name"));
    }
    auto [it, inserted] = data->index.emplace(list[i], static_cast<NodeId>(i));
    if (!inserted) {
      return absl::InvalidArgumentError(
          absl::StrCat("node name '", list[i], "' is given to nodes ", it->second, " and ", i));
    }
  }
  data->names = std::move(list);
  NodeNames names;
  names.list_ = std::move(data);
  return names;
}

std::string NodeNames::Name(NodeId node) const {
  if (list_ != nullptr) return list_->names[node];
  return absl::StrFormat("%s%0*d", prefix_, width_, node);
}

std::optional<NodeId> NodeNames::Find(std::string_view name, NodeId num_nodes) const {
  if (list_ != nullptr) {
    auto it = list_->index.find(absl::string_view(name.data(), name.size()));
    if (it == list_->index.end()) return std::nullopt;
    return it->second;
  }
  if (name.size() <= prefix_.size() || name.substr(0, prefix_.size()) != prefix_) {
    return std::nullopt;
  }
  std::string_view digits = name.substr(prefix_.size());
  int64_t id = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || id < 0 || id >= num_nodes) {
    return std::nullopt;
  }
  return static_cast<NodeId>(id);
}

}  // namespace hopmap
