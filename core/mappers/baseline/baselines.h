// The placements schedulers make without looking at the network.
#ifndef HOPMAP_CORE_MAPPERS_BASELINE_BASELINES_H_
#define HOPMAP_CORE_MAPPERS_BASELINE_BASELINES_H_

#include "core/mappers/mapper.h"

namespace hopmap {

// in-order (Blue Gene "TXYZ" on a whole torus): task i -> slot i.
class InOrderMapper final : public Mapper {
 public:
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;
};

// round-robin (cyclic): task i -> node i mod m, core i / m.
class RoundRobinMapper final : public Mapper {
 public:
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;
};

// random: a uniformly random choice of distinct slots, seeded from the options' seed.
class RandomMapper final : public Mapper {
 public:
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_BASELINE_BASELINES_H_
