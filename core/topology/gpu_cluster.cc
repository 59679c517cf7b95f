#include "core/topology/gpu_cluster.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace hopmap {
namespace {

absl::Status Invalid(absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("gpu cluster: ", message));
}

// `ids` (one per host) are 0..N-1 with each used; `count` gets N.
absl::Status CheckDenseIds(const std::vector<int32_t>& ids, absl::string_view field,
                           int32_t& count) {
  int32_t most = -1;
  for (size_t h = 0; h < ids.size(); ++h) {
    if (ids[h] < 0 || ids[h] >= static_cast<int32_t>(ids.size())) {
      return Invalid(
          absl::StrCat(field, "[", h, "] is ", ids[h], ", not an id 0..", ids.size() - 1));
    }
    most = std::max(most, ids[h]);
  }
  std::vector<bool> used(most + 1, false);
  for (int32_t id : ids) used[id] = true;
  for (int32_t id = 0; id <= most; ++id) {
    if (!used[id]) {
      return Invalid(absl::StrCat(field, " skips id ", id, " (ids are 0..N-1, each used)"));
    }
  }
  count = most + 1;
  return absl::OkStatus();
}

absl::Status CheckNames(const std::vector<std::string>& names, int32_t count,
                        absl::string_view field) {
  if (!names.empty() && static_cast<int32_t>(names.size()) != count) {
    return Invalid(absl::StrCat(field, " has ", names.size(), " names for ", count,
                                " ids (one per id, or none)"));
  }
  return absl::OkStatus();
}

absl::Status CheckRange(double value, double low, bool low_open, double high,
                        absl::string_view field, absl::string_view unit) {
  const bool above_low = low_open ? value > low : value >= low;
  if (!(above_low && value <= high)) {
    return Invalid(absl::StrCat(field, " must be ", low_open ? "above " : "from ", low, " to ",
                                high, " (", unit, "), got ", value));
  }
  return absl::OkStatus();
}

absl::Status CheckFabric(const GpuFabric& f) {
  for (auto [value, field] : {std::pair{f.nvlink_bandwidth, "nvlink_bandwidth (nvlink-bandwidth=)"},
                              std::pair{f.rail_bandwidth, "rail_bandwidth (rail-bandwidth=)"}}) {
    if (absl::Status s =
            CheckRange(value, kMinLinkBandwidth, false, kMaxLinkBandwidth, field, "bytes/s");
        !s.ok()) {
      return s;
    }
  }
  for (auto [value, field] : {std::pair{f.nvlink_latency, "nvlink_latency (nvlink-latency=)"},
                              std::pair{f.rail_latency, "rail_latency (rail-latency=)"}}) {
    if (absl::Status s = CheckRange(value, 0, true, kMaxLinkLatency, field, "seconds"); !s.ok()) {
      return s;
    }
  }
  if (!(f.oversubscription >= 1 && std::isfinite(f.oversubscription))) {
    return Invalid(absl::StrCat("oversubscription (oversubscription=) must be at least 1, got ",
                                f.oversubscription));
  }
  return absl::OkStatus();
}

absl::Status CheckHosts(const GpuClusterSpec& spec) {
  if (spec.host_names.empty()) return Invalid("host_names: needs at least one host");
  if (spec.host_names.size() > static_cast<size_t>(GpuClusterMachine::kMaxHosts)) {
    return Invalid(absl::StrCat("host_names: ", spec.host_names.size(), " hosts, at most ",
                                GpuClusterMachine::kMaxHosts));
  }
  absl::flat_hash_set<std::string_view> seen;
  for (size_t h = 0; h < spec.host_names.size(); ++h) {
    if (spec.host_names[h].empty()) return Invalid(absl::StrCat("host_names[", h, "] is empty"));
    if (!seen.insert(spec.host_names[h]).second) {
      return Invalid(absl::StrCat("host_names[", h, "] '", spec.host_names[h], "' is repeated"));
    }
  }
  if (spec.gpus_per_host < 1 || spec.gpus_per_host > GpuClusterMachine::kMaxGpusPerHost) {
    return Invalid(absl::StrCat("gpus_per_host (gpus=) must be from 1 to ",
                                GpuClusterMachine::kMaxGpusPerHost, ", got ", spec.gpus_per_host));
  }
  const size_t hosts = spec.host_names.size();
  if (spec.leaf_of_host.size() != hosts) {
    return Invalid(absl::StrCat("leaf_of_host has ", spec.leaf_of_host.size(), " entries for ",
                                hosts, " hosts (one per host)"));
  }
  if (!spec.domain_of_host.empty() && spec.domain_of_host.size() != hosts) {
    return Invalid(absl::StrCat("domain_of_host has ", spec.domain_of_host.size(), " entries for ",
                                hosts, " hosts (one per host, or none)"));
  }
  return absl::OkStatus();
}

// Sizes of each group of `ids` (0..count-1).
std::vector<int32_t> GroupSizes(const std::vector<int32_t>& ids, int32_t count) {
  std::vector<int32_t> sizes(count, 0);
  for (int32_t id : ids) ++sizes[id];
  return sizes;
}

// The shortest text that reads back as the same double.
std::string Shortest(double value) {
  char buffer[32];
  const std::to_chars_result end = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, end.ptr);
}

}  // namespace

absl::StatusOr<GpuClusterMachine> GpuClusterMachine::Create(GpuClusterSpec spec) {
  if (absl::Status s = CheckHosts(spec); !s.ok()) return s;
  if (absl::Status s = CheckFabric(spec.fabric); !s.ok()) return s;
  const int32_t hosts = static_cast<int32_t>(spec.host_names.size());
  GpuClusterMachine m;
  int32_t leaves = 0;
  if (absl::Status s = CheckDenseIds(spec.leaf_of_host, "leaf_of_host", leaves); !s.ok()) return s;
  int32_t domains = hosts;
  m.domain_of_host_ = spec.domain_of_host;
  if (m.domain_of_host_.empty()) {
    for (int32_t h = 0; h < hosts; ++h) m.domain_of_host_.push_back(h);
  } else if (absl::Status s = CheckDenseIds(spec.domain_of_host, "domain_of_host", domains);
             !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckNames(spec.leaf_names, leaves, "leaf_names"); !s.ok()) return s;
  if (absl::Status s = CheckNames(spec.domain_names, domains, "domain_names"); !s.ok()) return s;
  std::vector<int32_t> leaf_of_domain(domains, -1);
  for (int32_t h = 0; h < hosts; ++h) {
    int32_t& leaf = leaf_of_domain[m.domain_of_host_[h]];
    if (leaf >= 0 && leaf != spec.leaf_of_host[h]) {
      return Invalid(absl::StrCat("domain ", m.domain_of_host_[h], " spans leaf groups ", leaf,
                                  " and ", spec.leaf_of_host[h], " (host_names[", h, "] '",
                                  spec.host_names[h], "'): a domain lies inside one leaf group"));
    }
    leaf = spec.leaf_of_host[h];
  }
  m.domain_size_ = GroupSizes(m.domain_of_host_, domains);
  m.leaf_size_ = GroupSizes(spec.leaf_of_host, leaves);
  // Indices within the parent group, in host order.
  std::vector<int32_t> domains_in_leaf(leaves, 0), hosts_in_domain(domains, 0);
  m.domain_index_.assign(domains, -1);
  m.host_index_.resize(hosts);
  m.nvlink_of_host_.assign(hosts, -1);
  const int64_t first_nvlink = 2 * static_cast<int64_t>(hosts) + (leaves > 1 ? 2 * leaves : 0);
  for (int32_t h = 0; h < hosts; ++h) {
    const int32_t d = m.domain_of_host_[h];
    if (m.domain_index_[d] < 0) m.domain_index_[d] = domains_in_leaf[spec.leaf_of_host[h]]++;
    m.host_index_[h] = hosts_in_domain[d]++;
    if (m.domain_size_[d] > 1) {
      m.nvlink_of_host_[h] = first_nvlink + 2 * static_cast<int64_t>(m.host_of_nvlink_.size());
      m.host_of_nvlink_.push_back(h);
    }
  }
  m.domains_per_leaf_ = *std::max_element(domains_in_leaf.begin(), domains_in_leaf.end());
  m.hosts_per_domain_ = *std::max_element(m.domain_size_.begin(), m.domain_size_.end());
  m.fabric_hop_cost_ = std::max<int32_t>(
      1,
      static_cast<int32_t>(std::lround(spec.fabric.nvlink_bandwidth / spec.fabric.rail_bandwidth)));
  // The pair classes that occur: same domain, same leaf group (other domain), across.
  const int32_t f = m.fabric_hop_cost_;
  const bool same_domain = m.hosts_per_domain_ > 1;
  const bool same_leaf = m.domains_per_leaf_ > 1;
  const bool across = leaves > 1;
  m.min_hops_ = same_domain ? 2 : same_leaf ? 2 * f : across ? 4 * f : 0;
  m.max_hops_ = across ? 4 * f : same_leaf ? 2 * f : same_domain ? 2 : 0;
  m.set_cores_per_node(spec.gpus_per_host);
  absl::StatusOr<NodeNames> names = NodeNames::List(spec.host_names);
  if (!names.ok()) return Invalid(names.status().message());
  m.set_node_names(*std::move(names));
  m.spec_ = std::move(spec);
  return m;
}

std::string GpuClusterMachine::Spec() const {
  // The link figures that differ from GpuFabric{}: a file kind's machine takes them
  // as options too.
  const GpuFabric& f = spec_.fabric;
  const GpuFabric defaults;
  std::string fabric;
  for (auto [key, value, fallback] :
       {std::tuple{"nvlink-bandwidth", f.nvlink_bandwidth, defaults.nvlink_bandwidth},
        std::tuple{"nvlink-latency", f.nvlink_latency, defaults.nvlink_latency},
        std::tuple{"rail-bandwidth", f.rail_bandwidth, defaults.rail_bandwidth},
        std::tuple{"rail-latency", f.rail_latency, defaults.rail_latency},
        std::tuple{"oversubscription", f.oversubscription, defaults.oversubscription}}) {
    if (value != fallback) absl::StrAppend(&fabric, ":", key, "=", Shortest(value));
  }
  if (!spec_.source.empty()) return absl::StrCat(spec_.source, fabric, SharedSpecOptions());
  // Only what differs from the parser's defaults (leaf=32).
  std::string spec = absl::StrCat("gpu:", num_nodes(), ":gpus=", spec_.gpus_per_host);
  if (hosts_per_domain_ > 1) absl::StrAppend(&spec, ":domain=", hosts_per_domain_);
  const int32_t leaf = leaf_size_[0];  // groups are runs of leaf= hosts, the last maybe short
  if (num_leaves() > 1 ? leaf != kDefaultLeafHosts : leaf > kDefaultLeafHosts) {
    absl::StrAppend(&spec, ":leaf=", leaf);
  }
  absl::StrAppend(&spec, fabric);
  if (node_names().is_pattern() &&
      (node_names().prefix() != kHostPrefix || node_names().width() != kHostWidth)) {
    absl::StrAppend(&spec, ":prefix=", node_names().prefix(), ":width=", node_names().width());
  }
  return absl::StrCat(spec, SharedSpecOptions());
}

int32_t GpuClusterMachine::Hops(NodeId a, NodeId b) const {
  if (a == b) return 0;
  if (domain_of_host_[a] == domain_of_host_[b]) return 2;
  if (spec_.leaf_of_host[a] == spec_.leaf_of_host[b]) return 2 * fabric_hop_cost_;
  return 4 * fabric_hop_cost_;
}

std::vector<int32_t> GpuClusterMachine::dims() const {
  return {num_leaves(), domains_per_leaf_, hosts_per_domain_};
}

void GpuClusterMachine::Coordinates(NodeId node, std::span<int32_t> out) const {
  out[0] = spec_.leaf_of_host[node];
  out[1] = domain_index_[domain_of_host_[node]];
  out[2] = host_index_[node];
}

int64_t GpuClusterMachine::num_links() const {
  return 2 * static_cast<int64_t>(num_nodes()) + (has_spine() ? 2 * num_leaves() : 0) +
         2 * static_cast<int64_t>(host_of_nvlink_.size());
}

void GpuClusterMachine::ForEachRouteLink(NodeId a, NodeId b, Routing /*routing*/,
                                         LinkVisitor visit) const {
  if (a == b) return;
  if (domain_of_host_[a] == domain_of_host_[b]) {
    visit(nvlink_of_host_[a], 1.0);
    visit(nvlink_of_host_[b] + 1, 1.0);
    return;
  }
  visit(2 * static_cast<int64_t>(a), 1.0);
  const int32_t leaf_a = spec_.leaf_of_host[a], leaf_b = spec_.leaf_of_host[b];
  if (leaf_a != leaf_b) {
    visit(SpineLink(leaf_a), 1.0);
    visit(SpineLink(leaf_b) + 1, 1.0);
  }
  visit(2 * static_cast<int64_t>(b) + 1, 1.0);
}

GpuClusterMachine::LinkOwner GpuClusterMachine::OwnerOf(int64_t link) const {
  const int64_t hosts = num_nodes();
  const bool up = link % 2 == 0;
  if (link < 2 * hosts) return {LinkKind::kRail, static_cast<int32_t>(link / 2), up};
  const int64_t spine_links = has_spine() ? 2 * num_leaves() : 0;
  if (link < 2 * hosts + spine_links) {
    return {LinkKind::kSpine, static_cast<int32_t>((link - 2 * hosts) / 2), up};
  }
  return {LinkKind::kNvlink, host_of_nvlink_[(link - 2 * hosts - spine_links) / 2], up};
}

std::string GpuClusterMachine::DomainName(int32_t d) const {
  if (static_cast<size_t>(d) < spec_.domain_names.size() && !spec_.domain_names[d].empty()) {
    return spec_.domain_names[d];
  }
  return absl::StrCat("domain", d);
}

std::string GpuClusterMachine::LeafName(int32_t l) const {
  if (static_cast<size_t>(l) < spec_.leaf_names.size() && !spec_.leaf_names[l].empty()) {
    return spec_.leaf_names[l];
  }
  return absl::StrCat("leaf", l);
}

std::string GpuClusterMachine::LinkName(int64_t link) const {
  const LinkOwner owner = OwnerOf(link);
  std::string low, high;
  switch (owner.kind) {
    case LinkKind::kRail:
      low = NodeName(owner.index);
      high = absl::StrCat(LeafName(spec_.leaf_of_host[owner.index]), " rails");
      break;
    case LinkKind::kSpine:
      low = LeafName(owner.index);
      high = "spine";
      break;
    case LinkKind::kNvlink:
      low = NodeName(owner.index);
      high = absl::StrCat(DomainName(domain_of_host_[owner.index]), " nvlink");
      break;
  }
  return owner.up ? absl::StrCat(low, " -> ", high) : absl::StrCat(high, " -> ", low);
}

std::string GpuClusterMachine::LinkClass(int64_t link) const {
  switch (OwnerOf(link).kind) {
    case LinkKind::kRail:
      return "rail";
    case LinkKind::kSpine:
      return "spine";
    case LinkKind::kNvlink:
      return "nvlink";
  }
  return "";
}

std::optional<double> GpuClusterMachine::LinkBandwidthOf(int64_t link) const {
  const GpuFabric& f = spec_.fabric;
  const LinkOwner owner = OwnerOf(link);
  switch (owner.kind) {
    case LinkKind::kRail:
      return spec_.gpus_per_host * f.rail_bandwidth;
    case LinkKind::kSpine:
      return static_cast<double>(leaf_size_[owner.index]) * spec_.gpus_per_host * f.rail_bandwidth /
             f.oversubscription;
    case LinkKind::kNvlink:
      return spec_.gpus_per_host * f.nvlink_bandwidth;
  }
  return std::nullopt;
}

std::optional<double> GpuClusterMachine::LinkLatencyOf(int64_t link) const {
  return OwnerOf(link).kind == LinkKind::kNvlink ? spec_.fabric.nvlink_latency
                                                 : spec_.fabric.rail_latency;
}

std::vector<int64_t> GpuClusterMachine::BallSizeUpperBounds() const {
  const int32_t f = fabric_hop_cost_;
  const int64_t max_leaf = *std::max_element(leaf_size_.begin(), leaf_size_.end());
  std::vector<int64_t> balls(max_hops_ + 1);
  for (int32_t h = 0; h <= max_hops_; ++h) {
    balls[h] = h >= 4 * f ? num_nodes() : h >= 2 * f ? max_leaf : h >= 2 ? hosts_per_domain_ : 1;
  }
  return balls;
}

}  // namespace hopmap
