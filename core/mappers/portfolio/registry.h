// The built-in algorithms: the one list of every mapper hopmap knows by name.
#ifndef HOPMAP_CORE_MAPPERS_PORTFOLIO_REGISTRY_H_
#define HOPMAP_CORE_MAPPERS_PORTFOLIO_REGISTRY_H_

#include "core/mappers/mapper.h"

namespace hopmap {

// The one place every built-in algorithm is registered (no static initialisers).
void RegisterBuiltinMappers(MapperRegistry& registry);
// A registry holding the built-in mappers, built on first use.
const MapperRegistry& BuiltinMappers();

// Maps a sub-problem with auto (a SubproblemMapper): what the request layer passes
// to the balancers for their parts' quotient graph.
absl::StatusOr<std::vector<SlotId>> MapSubproblemWithAuto(const TaskGraph& graph,
                                                          const Allocation& allocation,
                                                          const MapperOptions& options,
                                                          const StopCondition& stop);

}  // namespace hopmap

#endif  // HOPMAP_CORE_MAPPERS_PORTFOLIO_REGISTRY_H_
