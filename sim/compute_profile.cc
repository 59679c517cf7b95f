#include "sim/compute_profile.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/io/line_reader.h"

namespace hopmap::sim {
namespace {

// The layout hopmap_smpi_compute.c writes: 8 bytes of magic, an int64 count, then
// the items, in the host's byte order (the files never leave the machine).
constexpr char kBurstsMagic[8] = {'H', 'M', 'B', 'U', 'R', 'S', 'T', '1'};
constexpr char kSitesMagic[8] = {'H', 'M', 'S', 'I', 'T', 'E', 'S', '1'};
constexpr char kMedianMagic[8] = {'H', 'M', 'M', 'E', 'D', 'I', 'A', '1'};

struct RegionCost {
  uint64_t region;
  double seconds;
};
static_assert(sizeof(RegionCost) == 16, "the C wrapper reads the same 16-byte pairs");

template <typename Item>
absl::StatusOr<std::vector<Item>> ReadItems(const std::string& path, const char (&magic)[8]) {
  absl::StatusOr<std::string> bytes = ReadFileToString(path);
  if (!bytes.ok()) return bytes.status();
  int64_t count = -1;
  if (bytes->size() >= 16) std::memcpy(&count, bytes->data() + 8, sizeof count);
  if (count < 0 || bytes->compare(0, 8, magic, 8) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a compute profile file"));
  }
  if ((bytes->size() - 16) / sizeof(Item) < static_cast<uint64_t>(count)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": shorter than its ", count, " items"));
  }
  std::vector<Item> items(static_cast<size_t>(count));
  std::memcpy(items.data(), bytes->data() + 16, items.size() * sizeof(Item));
  return items;
}

}  // namespace

absl::Status WriteRegionMedians(const std::string& dir, int ranks) {
  std::vector<RegionCost> all;
  for (int rank = 0; rank < ranks; ++rank) {
    const std::string stem = absl::StrCat(dir, "/rank-", rank);
    absl::StatusOr<std::vector<double>> bursts =
        ReadItems<double>(absl::StrCat(stem, ".bursts"), kBurstsMagic);
    if (!bursts.ok()) return bursts.status();
    absl::StatusOr<std::vector<uint64_t>> regions =
        ReadItems<uint64_t>(absl::StrCat(stem, ".sites"), kSitesMagic);
    if (!regions.ok()) return regions.status();
    if (regions->size() != bursts->size()) {
      return absl::InvalidArgumentError(absl::StrCat(stem, ".sites: ", regions->size(),
                                                     " sites for ", bursts->size(), " bursts"));
    }
    for (size_t k = 0; k < bursts->size(); ++k) all.push_back({(*regions)[k], (*bursts)[k]});
  }
  std::sort(all.begin(), all.end(), [](const RegionCost& a, const RegionCost& b) {
    return std::pair(a.region, a.seconds) < std::pair(b.region, b.seconds);
  });
  std::vector<RegionCost> medians;
  for (size_t first = 0; first < all.size();) {
    size_t end = first;
    while (end < all.size() && all[end].region == all[first].region) ++end;
    const size_t n = end - first;
    const double middle = n % 2 == 1
                              ? all[first + n / 2].seconds
                              : 0.5 * (all[first + n / 2 - 1].seconds + all[first + n / 2].seconds);
    medians.push_back({all[first].region, middle});
    first = end;
  }
  const int64_t count = static_cast<int64_t>(medians.size());
  std::string contents(kMedianMagic, 8);
  contents.append(reinterpret_cast<const char*>(&count), sizeof count);
  contents.append(reinterpret_cast<const char*>(medians.data()),
                  medians.size() * sizeof(RegionCost));
  // Atomically, so a replaying run never reads half of it.
  return WriteFileAtomically(absl::StrCat(dir, "/sites.median"), contents);
}

}  // namespace hopmap::sim
