#include "core/search/statistics.h"

namespace hopmap {

std::optional<double> FindStatistic(const std::vector<Statistic>& stats, absl::string_view name) {
  for (const Statistic& s : stats) {
    if (s.name == name) return s.value;
  }
  return std::nullopt;
}

}  // namespace hopmap
