// rec-bisect: the recursive bisection engine (core/bisection) with one task per
// core, as a mapper.
#ifndef HOPMAP_CORE_MAPPERS_CONSTRUCT_REC_BISECT_H_
#define HOPMAP_CORE_MAPPERS_CONSTRUCT_REC_BISECT_H_

#include "core/bisection/bisection.h"
#include "core/mappers/mapper.h"

namespace hopmap {

class RecursiveBisectionMapper final : public Mapper {
 public:
  explicit RecursiveBisectionMapper(RecursiveBisectionOptions options = {}) : options_(options) {}
  absl::StatusOr<MapOutput> Map(const MapInput& input) const override;

 private:
  RecursiveBisectionOptions options_;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_CONSTRUCT_REC_BISECT_H_
