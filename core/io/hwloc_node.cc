#include "core/io/hwloc_node.h"

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>

#include "absl/strings/str_cat.h"

namespace hopmap {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* topology) const { hwloc_topology_destroy(topology); }
};
using Topology = std::unique_ptr<hwloc_topology, TopologyDeleter>;

// A way of grouping the PEs: the group of each PE (-1: none).
struct Grouping {
  std::string name;
  int32_t distance = 0;
  std::vector<int32_t> group_of_pe;
  int32_t num_groups = 0;
};

// The logical index of pe's ancestor of `type`, per PE (none when a PE has none).
std::optional<Grouping> AncestorGrouping(hwloc_topology_t topology,
                                         const std::vector<hwloc_obj_t>& pes, hwloc_obj_type_t type,
                                         std::string name, int32_t distance) {
  Grouping g{std::move(name), distance, {}, 0};
  for (hwloc_obj_t pe : pes) {
    hwloc_obj_t ancestor = hwloc_get_ancestor_obj_by_type(topology, type, pe);
    if (ancestor == nullptr) return std::nullopt;
    g.group_of_pe.push_back(static_cast<int32_t>(ancestor->logical_index));
  }
  g.num_groups = hwloc_get_nbobjs_by_type(topology, type);
  return g;
}

// NUMA nodes hang beside the cores in hwloc 2: a PE's is the one whose cpuset holds it.
std::optional<Grouping> NumaGrouping(hwloc_topology_t topology,
                                     const std::vector<hwloc_obj_t>& pes) {
  const int numa = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE);
  if (numa < 1) return std::nullopt;
  Grouping g{"numa", kHwlocNumaDistance, {}, numa};
  for (hwloc_obj_t pe : pes) {
    int32_t found = -1;
    for (int i = 0; i < numa && found < 0; ++i) {
      hwloc_obj_t node = hwloc_get_obj_by_type(topology, HWLOC_OBJ_NUMANODE, i);
      if (node->cpuset != nullptr && hwloc_bitmap_isincluded(pe->cpuset, node->cpuset)) found = i;
    }
    if (found < 0) return std::nullopt;
    g.group_of_pe.push_back(found);
  }
  return g;
}

// Groups renumbered by first appearance; false if some group's PEs are not
// consecutive.
bool Consecutive(Grouping& g) {
  std::vector<int32_t> renumbered(g.group_of_pe.size());
  int32_t next = -1;
  std::vector<int32_t> seen_as;
  std::vector<int32_t> id_of(static_cast<size_t>(g.num_groups) + 1, -1);
  for (size_t p = 0; p < g.group_of_pe.size(); ++p) {
    const int32_t old = g.group_of_pe[p];
    if (old < 0 || old >= static_cast<int32_t>(id_of.size())) return false;
    if (id_of[old] < 0) {
      id_of[old] = ++next;
    } else if (id_of[old] != next) {
      return false;  // came back to an earlier group
    }
    renumbered[p] = id_of[old];
  }
  g.group_of_pe = std::move(renumbered);
  g.num_groups = next + 1;
  return true;
}

absl::Status Fail(const std::string& path, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

// hwloc's topology from the XML file at `path`.
absl::StatusOr<Topology> LoadTopology(const std::string& path) {
  if (!std::ifstream(path)) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot open (node=hwloc: wants lstopo's XML: lstopo --of xml FILE)"));
  }
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return Fail(path, "hwloc cannot start");
  Topology topology(raw);
  auto not_xml = [&]() {
    return Fail(path, absl::StrCat("not an hwloc XML topology (hwloc: ", std::strerror(errno),
                                   "); make one with lstopo --of xml FILE"));
  };
  if (hwloc_topology_set_xml(raw, path.c_str()) != 0) return not_xml();
  if (hwloc_topology_load(raw) != 0) return not_xml();
  return topology;
}

// The PEs: the cores, or the PUs when the topology has no cores.
absl::StatusOr<std::vector<hwloc_obj_t>> ProcessingElements(hwloc_topology_t raw,
                                                            const std::string& path) {
  const bool have_cores = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_CORE) > 0;
  const hwloc_obj_type_t pe_type = have_cores ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  const int n = hwloc_get_nbobjs_by_type(raw, pe_type);
  if (n < 1) return Fail(path, "no cores and no PUs");
  if (n > NodeInterior::kMaxPes) {
    return Fail(path, absl::StrCat(n, " cores: more than ", NodeInterior::kMaxPes, " per node"));
  }
  std::vector<hwloc_obj_t> pes;
  for (int i = 0; i < n; ++i) pes.push_back(hwloc_get_obj_by_type(raw, pe_type, i));
  return pes;
}

// The L3, NUMA and package groupings the topology has, each of consecutive PEs in
// groups of one size.
absl::StatusOr<std::vector<Grouping>> CandidateGroupings(hwloc_topology_t raw,
                                                         const std::vector<hwloc_obj_t>& pes,
                                                         const std::string& path) {
  std::vector<Grouping> candidates;
  if (auto g = AncestorGrouping(raw, pes, HWLOC_OBJ_L3CACHE, "l3", kHwlocL3Distance)) {
    candidates.push_back(*std::move(g));
  }
  if (auto g = NumaGrouping(raw, pes)) candidates.push_back(*std::move(g));
  if (auto g = AncestorGrouping(raw, pes, HWLOC_OBJ_PACKAGE, "package", kHwlocPackageDistance)) {
    candidates.push_back(*std::move(g));
  }
  for (Grouping& g : candidates) {
    if (!Consecutive(g)) {
      return Fail(path, absl::StrCat("the cores of one ", g.name,
                                     " are not consecutive in hwloc's logical order"));
    }
    std::vector<int32_t> size(g.num_groups, 0);
    for (int32_t group : g.group_of_pe) ++size[group];
    const auto [small, large] = std::minmax_element(size.begin(), size.end());
    if (*small != *large) {
      return Fail(path, absl::StrCat("its ", g.name, " groups hold different numbers of cores (",
                                     *large, " and ", *small, "): node levels must be uniform"));
    }
  }
  return candidates;
}

// The node's levels, finest first, ending with the node itself: a candidate that
// does not nest in the kept ones below, or adds nothing, is left out. Sets
// `pes_per_package` when a package level is kept.
std::vector<Grouping> NestedLevels(std::vector<Grouping> candidates, int n,
                                   int32_t& pes_per_package) {
  std::stable_sort(candidates.begin(), candidates.end(), [](const Grouping& a, const Grouping& b) {
    return a.num_groups > b.num_groups;
  });
  std::vector<Grouping> kept;
  for (Grouping& g : candidates) {
    // One group is the node itself (the level added below).
    if (g.num_groups == 1) continue;
    const Grouping* below = kept.empty() ? nullptr : &kept.back();
    if (below != nullptr && g.num_groups == below->num_groups &&
        g.group_of_pe == below->group_of_pe) {
      // The same groups under two names (one NUMA node per package): one level, at
      // the finer name's distance.
      kept.back().name += "+" + g.name;
      if (g.name == "package") pes_per_package = n / g.num_groups;
      continue;
    }
    if (g.num_groups >= (below == nullptr ? n : below->num_groups)) continue;
    bool nests = true;
    if (below != nullptr) {
      std::vector<int32_t> parent(below->num_groups, -1);
      for (int p = 0; p < n && nests; ++p) {
        int32_t& slot = parent[below->group_of_pe[p]];
        if (slot < 0) slot = g.group_of_pe[p];
        nests = slot == g.group_of_pe[p];
      }
    }
    if (!nests) continue;
    if (g.name == "package") pes_per_package = n / g.num_groups;
    kept.push_back(std::move(g));
  }
  kept.push_back({"node", kHwlocNodeDistance, std::vector<int32_t>(n, 0), 1});
  return kept;
}

// The distances of the levels above NUMA from hwloc's NUMA latency matrix (`matrix`,
// m x m), relative to the NUMA level's.
void ScaleByNumaLatencies(const hwloc_distances_s& matrix, const std::vector<hwloc_obj_t>& pes,
                          const std::vector<Grouping>& kept, size_t numa,
                          std::vector<int32_t>& level_distances) {
  const int n = static_cast<int>(pes.size());
  const unsigned m = matrix.nbobjs;
  // A PE of each NUMA node, to find the level two NUMA nodes share.
  std::vector<int> pe_of(m, -1);
  for (unsigned i = 0; i < m; ++i) {
    for (int p = 0; p < n && pe_of[i] < 0; ++p) {
      if (hwloc_bitmap_isincluded(pes[p]->cpuset, matrix.objs[i]->cpuset)) pe_of[i] = p;
    }
  }
  double local = 0;
  for (unsigned i = 0; i < m; ++i) local += static_cast<double>(matrix.values[i * m + i]) / m;
  std::vector<double> sum(kept.size(), 0);
  std::vector<int> pairs(kept.size(), 0);
  for (unsigned i = 0; i < m; ++i) {
    for (unsigned j = 0; j < m; ++j) {
      if (i == j || pe_of[i] < 0 || pe_of[j] < 0) continue;
      size_t level = 0;
      while (level < kept.size() &&
             kept[level].group_of_pe[pe_of[i]] != kept[level].group_of_pe[pe_of[j]]) {
        ++level;
      }
      if (level < kept.size()) {
        sum[level] += static_cast<double>(matrix.values[i * m + j]);
        ++pairs[level];
      }
    }
  }
  for (size_t level = numa + 1; level < kept.size() && local > 0; ++level) {
    if (pairs[level] == 0) continue;
    const double ratio = sum[level] / pairs[level] / local;
    level_distances[level] =
        std::max(level_distances[level - 1],
                 static_cast<int32_t>(std::lround(level_distances[numa] * ratio)));
  }
}

// The NUMA latency matrix, when the file has one and a level is NUMA, sets the
// levels above NUMA.
void ApplyNumaLatencies(hwloc_topology_t raw, const std::vector<hwloc_obj_t>& pes,
                        const std::vector<Grouping>& kept, const std::vector<std::string>& names,
                        std::vector<int32_t>& level_distances) {
  const auto numa_level =
      std::find_if(names.begin(), names.end(), [](const std::string& s) { return s == "numa"; });
  unsigned count = 1;
  hwloc_distances_s* matrix = nullptr;
  if (numa_level != names.end() &&
      hwloc_distances_get_by_type(raw, HWLOC_OBJ_NUMANODE, &count, &matrix,
                                  HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) == 0 &&
      count >= 1 && matrix != nullptr && matrix->nbobjs > 1) {
    ScaleByNumaLatencies(*matrix, pes, kept, static_cast<size_t>(numa_level - names.begin()),
                         level_distances);
  }
  if (matrix != nullptr) hwloc_distances_release(raw, matrix);
}

}  // namespace

absl::StatusOr<NodeInterior> ReadHwlocNodeInterior(
    const std::string& path, const std::optional<std::vector<int32_t>>& distances,
    int32_t hop_cost) {
  absl::StatusOr<Topology> topology = LoadTopology(path);
  if (!topology.ok()) return topology.status();
  hwloc_topology_t raw = topology->get();
  absl::StatusOr<std::vector<hwloc_obj_t>> pes = ProcessingElements(raw, path);
  if (!pes.ok()) return pes.status();
  const int n = static_cast<int>(pes->size());
  absl::StatusOr<std::vector<Grouping>> candidates = CandidateGroupings(raw, *pes, path);
  if (!candidates.ok()) return candidates.status();
  int32_t pes_per_package = n;
  const std::vector<Grouping> kept = NestedLevels(*std::move(candidates), n, pes_per_package);
  std::vector<int32_t> arities, level_distances;
  std::vector<std::string> names;
  int32_t below_groups = n;
  for (const Grouping& g : kept) {
    arities.push_back(below_groups / g.num_groups);
    level_distances.push_back(
        std::max(g.distance, level_distances.empty() ? 1 : level_distances.back()));
    names.push_back(g.name);
    below_groups = g.num_groups;
  }
  if (!distances) ApplyNumaLatencies(raw, *pes, kept, names, level_distances);
  if (distances) {
    if (distances->size() != arities.size()) {
      std::string levels;
      for (size_t i = 0; i < names.size(); ++i) {
        absl::StrAppend(&levels, i ? ", " : "", names[i], " (", arities[i], ")");
      }
      return Fail(path, absl::StrCat("node-distances= gives ", distances->size(), " distances for ",
                                     arities.size(), " levels: ", levels));
    }
    level_distances = *distances;
  }
  absl::StatusOr<NodeInterior> interior =
      NodeInterior::Create(std::move(arities), std::move(level_distances), hop_cost,
                           std::move(names), path, pes_per_package);
  if (!interior.ok()) return Fail(path, std::string(interior.status().message()));
  // Each PE's CPU as the OS numbers it: its first hardware thread.
  std::vector<int32_t> os_cpus;
  for (hwloc_obj_t pe : *pes) os_cpus.push_back(hwloc_bitmap_first(pe->cpuset));
  if (absl::Status set = interior->SetOsCpus(std::move(os_cpus)); !set.ok()) {
    return Fail(path, std::string(set.message()));
  }
  return interior;
}

}  // namespace hopmap
