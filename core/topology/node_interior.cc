#include "core/topology/node_interior.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hopmap {

absl::StatusOr<NodeInterior> NodeInterior::Create(std::vector<int32_t> arities,
                                                  std::vector<int32_t> distances, int32_t hop_cost,
                                                  std::vector<std::string> names,
                                                  std::string source, int32_t pes_per_package) {
  if (arities.empty()) return absl::InvalidArgumentError("node=: needs at least one level");
  if (distances.size() != arities.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("node=", absl::StrJoin(arities, "x"), " has ", arities.size(),
                     " levels but node-distances= gives ", distances.size(),
                     " (one per level, the lowest first)"));
  }
  int64_t pes = 1;
  for (size_t i = 0; i < arities.size(); ++i) {
    if (arities[i] < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("node=: level ", i + 1, " has arity ", arities[i], " (must be >= 1)"));
    }
    pes *= arities[i];
    if (pes > kMaxPes) {
      return absl::InvalidArgumentError(absl::StrCat("node=", absl::StrJoin(arities, "x"),
                                                     ": more than ", kMaxPes, " PEs per node"));
    }
    if (distances[i] < 1 || distances[i] > kMaxDistance) {
      return absl::InvalidArgumentError(absl::StrCat("node-distances=: distance ", i + 1, " is ",
                                                     distances[i], " (must be 1 to ", kMaxDistance,
                                                     ")"));
    }
    if (i > 0 && distances[i] < distances[i - 1]) {
      return absl::InvalidArgumentError(
          absl::StrCat("node-distances=: distance ", i + 1, " (", distances[i],
                       ") is less than the level below it (", distances[i - 1],
                       "): a higher level never "
                       "costs less"));
    }
  }
  if (hop_cost == 0) {
    hop_cost = static_cast<int32_t>(
        std::min<int64_t>(int64_t{kDefaultHopCostFactor} * distances.back(), kMaxDistance));
  }
  if (hop_cost < 1 || hop_cost > kMaxDistance) {
    return absl::InvalidArgumentError(
        absl::StrCat("hop-cost= is ", hop_cost, " (must be 1 to ", kMaxDistance, ")"));
  }
  if (!names.empty() && names.size() != arities.size()) {
    return absl::InvalidArgumentError("node=: one name per level");
  }
  NodeInterior n;
  n.num_pes_ = static_cast<int32_t>(pes);
  if (pes_per_package == 0) {
    pes_per_package = arities.size() == 1 ? n.num_pes_ : n.num_pes_ / arities.back();
  }
  if (pes_per_package < 1 || n.num_pes_ % pes_per_package != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("node=: ", pes_per_package, " PEs per package do not divide ", pes));
  }
  n.pes_per_package_ = pes_per_package;
  n.group_size_.assign(arities.size() + 1, 1);
  for (size_t i = 0; i < arities.size(); ++i) n.group_size_[i + 1] = n.group_size_[i] * arities[i];
  if (names.empty()) {
    for (size_t i = 0; i < arities.size(); ++i) names.push_back(absl::StrCat("level", i + 1));
  }
  n.arities_ = std::move(arities);
  n.distances_ = std::move(distances);
  n.names_ = std::move(names);
  n.hop_cost_ = hop_cost;
  n.source_ = std::move(source);
  return n;
}

int32_t NodeInterior::Distance(int32_t a, int32_t b) const {
  if (a == b) return 0;
  for (size_t i = 1; i < group_size_.size(); ++i) {
    if (a / group_size_[i] == b / group_size_[i]) return distances_[i - 1];
  }
  return distances_.back();  // not reached for PEs of one node
}

int32_t NodeInterior::PackageOf(int32_t pe) const { return pe / pes_per_package_; }

int32_t NodeInterior::CoreInPackage(int32_t pe) const { return pe % pes_per_package_; }

absl::Status NodeInterior::SetOsCpus(std::vector<int32_t> cpus) {
  if (!cpus.empty() && cpus.size() != static_cast<size_t>(num_pes_)) {
    return absl::InvalidArgumentError(absl::StrCat("cpus= lists ", cpus.size(),
                                                   " CPUs for the node's ", num_pes_,
                                                   " PEs (one per PE, in PE order)"));
  }
  std::vector<int32_t> sorted = cpus;
  std::sort(sorted.begin(), sorted.end());
  if (!sorted.empty() && sorted.front() < 0) {
    return absl::InvalidArgumentError(absl::StrCat("cpus=: CPU ", sorted.front(), " is negative"));
  }
  const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
  if (twice != sorted.end()) {
    return absl::InvalidArgumentError(absl::StrCat("cpus=: CPU ", *twice, " is given twice"));
  }
  bool identity = true;
  for (size_t i = 0; i < cpus.size() && identity; ++i)
    identity = cpus[i] == static_cast<int32_t>(i);
  if (identity) cpus.clear();
  os_cpus_ = std::move(cpus);
  return absl::OkStatus();
}

std::string NodeInterior::OsCpuList() const {
  // Runs of consecutive numbers as A-B (0-7,16-23): a node of 128 cores stays short.
  std::string list;
  for (int32_t i = 0; i < num_pes_;) {
    int32_t j = i;
    while (j + 1 < num_pes_ && OsCpuOf(j + 1) == OsCpuOf(j) + 1) ++j;
    absl::StrAppend(&list, i ? "," : "", OsCpuOf(i));
    if (j > i) absl::StrAppend(&list, "-", OsCpuOf(j));
    i = j + 1;
  }
  return list;
}

std::string NodeInterior::SpecOptions() const {
  std::string options =
      absl::StrCat(":node=", absl::StrJoin(arities_, "x"),
                   ":node-distances=", absl::StrJoin(distances_, ","), ":hop-cost=", hop_cost_);
  const int32_t default_per_package = arities_.size() == 1 ? num_pes_ : num_pes_ / arities_.back();
  if (pes_per_package_ != default_per_package) {
    absl::StrAppend(&options, ":packages=", num_packages());
  }
  if (!os_cpus_.empty()) absl::StrAppend(&options, ":cpus=", OsCpuList());
  return options;
}

}  // namespace hopmap
