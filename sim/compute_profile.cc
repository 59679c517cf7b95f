#include "sim/compute_profile.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

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
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  char seen[8];
  int64_t count = 0;
  if (!in.read(seen, 8) || std::memcmp(seen, magic, 8) != 0 ||
      !in.read(reinterpret_cast<char*>(&count), sizeof count) || count < 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a compute profile file"));
  }
  std::vector<Item> items(static_cast<size_t>(count));
  if (!in.read(reinterpret_cast<char*>(items.data()),
               static_cast<std::streamsize>(items.size() * sizeof(Item)))) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": shorter than its ", count, " items"));
  }
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
  // Through a temporary file, so a replaying run never reads half of it.
  const std::string path = absl::StrCat(dir, "/sites.median");
  const std::string temp = absl::StrCat(path, ".tmp");
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    const int64_t count = static_cast<int64_t>(medians.size());
    out.write(kMedianMagic, 8);
    out.write(reinterpret_cast<const char*>(&count), sizeof count);
    out.write(reinterpret_cast<const char*>(medians.data()),
              static_cast<std::streamsize>(medians.size() * sizeof(RegionCost)));
    out.close();
    if (!out) return absl::InternalError(absl::StrCat(temp, ": cannot write"));
  }
  std::error_code renamed;
  std::filesystem::rename(temp, path, renamed);
  if (renamed) return absl::InternalError(absl::StrCat(path, ": ", renamed.message()));
  return absl::OkStatus();
}

}  // namespace hopmap::sim
