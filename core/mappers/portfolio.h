// auto: runs a portfolio of mappers and keeps the best.
#ifndef HOPMAP_CORE_MAPPERS_PORTFOLIO_H_
#define HOPMAP_CORE_MAPPERS_PORTFOLIO_H_

#include <string>
#include <vector>

#include "core/mappers/mapper.h"

namespace hopmap {

// Runs each named mapper of `registry` in turn within the shared deadline, scores
// each result by the objective (hop-bytes; or max link load, then hop-bytes) and
// returns the best, ties going to the earlier candidate. Every candidate, with its
// score and time, is listed in MapOutput::candidates. The portfolio grows as mappers
// join the registry.
class PortfolioMapper final : public Mapper {
 public:
  PortfolioMapper(const MapperRegistry* registry, std::vector<std::string> candidates)
      : registry_(registry), candidates_(std::move(candidates)) {}
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;

 private:
  const MapperRegistry* registry_;
  std::vector<std::string> candidates_;
};

// Display name of a mapper's result: "axis-order(ZYXT)", or just the name.
std::string CandidateName(const std::string& mapper, const std::string& variant);

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_PORTFOLIO_H_
