// What a search reports about its run, as figures, and what a portfolio reports
// about each algorithm it tried: shared by the mappers, the balancers and the
// reports (core/solve) alike.
#ifndef HOPMAP_CORE_SEARCH_STATISTICS_H_
#define HOPMAP_CORE_SEARCH_STATISTICS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/types.h"

namespace hopmap {

// One figure a search reports about its run: a count ("passes"), a flag (1 or 0,
// "stopped_early") or a wall time (the name ends in "_seconds"). Figures never go
// into names: the algorithm and its variant say what was chosen, these what it did.
struct Statistic {
  std::string name;
  double value = 0;
  bool operator==(const Statistic&) const = default;
};
// The value of the statistic `name`, if `stats` has it.
std::optional<double> FindStatistic(const std::vector<Statistic>& stats, absl::string_view name);

// One algorithm a solve tried, as the report lists it.
struct Candidate {
  std::string algorithm;  // e.g. "axis-order(ZYXT)"
  HopBytes hop_bytes = 0;
  double max_link_load = 0;  // filled when the objective is congestion
  double seconds = 0;
  std::string error;  // why it produced no mapping; empty when it did
  std::vector<Statistic> stats;
  int32_t max_dilation = 0;  // filled when the objective is dilation
  // The estimated time of one exchange (core/metrics/exchange_time.h), seconds:
  // filled when the objective is time.
  double exchange_seconds = 0;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_SEARCH_STATISTICS_H_
