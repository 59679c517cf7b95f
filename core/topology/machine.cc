#include "core/topology/machine.h"

#include <algorithm>
#include <charconv>

#include "absl/strings/str_cat.h"

namespace hopmap {

absl::StatusOr<Routing> ParseRouting(absl::string_view name) {
  if (name == "dimension-order") return Routing::kDimensionOrder;
  if (name == "adaptive") return Routing::kAdaptive;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown routing '", name, "' (known: dimension-order, adaptive)"));
}

std::string RoutingName(Routing routing) {
  return routing == Routing::kDimensionOrder ? "dimension-order" : "adaptive";
}

const std::vector<std::string>& Machine::warnings() const {
  static const std::vector<std::string>* none = new std::vector<std::string>();
  return *none;
}

std::string Machine::SharedSpecOptions() const {
  // The shortest form that reads back as the same double (425e6 is "4.25e+08",
  // 1000 is "1000").
  auto shortest = [](double value) {
    char buffer[32];
    const std::to_chars_result end = std::to_chars(buffer, buffer + sizeof(buffer), value);
    return std::string(buffer, end.ptr);
  };
  std::string options;
  if (link_bandwidth_) absl::StrAppend(&options, ":link-bandwidth=", shortest(*link_bandwidth_));
  if (link_latency_) absl::StrAppend(&options, ":link-latency=", shortest(*link_latency_));
  if (node_interior_ != nullptr) absl::StrAppend(&options, node_interior_->SpecOptions());
  return options;
}

void Machine::set_vacant_nodes(std::vector<bool> vacant) {
  num_vacant_ = static_cast<NodeId>(std::count(vacant.begin(), vacant.end(), true));
  vacant_ =
      num_vacant_ == 0 ? nullptr : std::make_shared<const std::vector<bool>>(std::move(vacant));
}

std::vector<NodeId> Machine::AllocatableNodes() const {
  std::vector<NodeId> nodes;
  nodes.reserve(static_cast<size_t>(num_nodes() - num_vacant_));
  for (NodeId v = 0; v < num_nodes(); ++v) {
    if (!IsVacant(v)) nodes.push_back(v);
  }
  return nodes;
}

std::vector<int64_t> Machine::BallSizeUpperBounds() const {
  const NodeId n = num_nodes();
  const int32_t diameter = max_hops();
  std::vector<int64_t> balls(diameter + 1, n);
  // Scanning all pairs costs n^2 Hops() calls: fine up to a few thousand nodes.
  constexpr NodeId kExactLimit = 4096;
  if (n > kExactLimit) {
    for (int32_t h = 0; h < std::min(min_hops(), diameter + 1); ++h) balls[h] = 1;
    return balls;
  }
  std::fill(balls.begin(), balls.end(), 0);
  std::vector<int64_t> counts(diameter + 1);
  for (NodeId a = 0; a < n; ++a) {
    std::fill(counts.begin(), counts.end(), 0);
    for (NodeId b = 0; b < n; ++b) ++counts[Hops(a, b)];
    int64_t running = 0;
    for (int32_t h = 0; h <= diameter; ++h) {
      running += counts[h];
      balls[h] = std::max(balls[h], running);
    }
  }
  return balls;
}

}  // namespace hopmap
