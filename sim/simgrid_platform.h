// A NetworkModel as a SimGrid platform, built through the s4u API in the running
// engine: one netzone whose routes are the model's own (the machine's
// deterministic routing), a host per node, a fat-pipe loopback per host for the
// messages inside a node. Only the worker and the SMPI platform library include
// this (they alone link SimGrid).
#ifndef HOPMAP_SIM_SIMGRID_PLATFORM_H_
#define HOPMAP_SIM_SIMGRID_PLATFORM_H_

#include <vector>

#include "core/simulate/network_model.h"
#include "simgrid/s4u/Host.hpp"

namespace hopmap::sim {

// Builds and seals the platform; the engine must exist and have no platform yet.
// Returns the hosts in model order.
std::vector<simgrid::s4u::Host*> BuildSimGridPlatform(const NetworkModel& model);

// Runs the model's iterations (phases in order, each phase's flows at once) on an
// engine whose platform BuildSimGridPlatform built; returns the simulated seconds.
double RunModelTraffic(simgrid::s4u::Engine& engine, const NetworkModel& model,
                       const std::vector<simgrid::s4u::Host*>& hosts);

}  // namespace hopmap::sim

#endif  // HOPMAP_SIM_SIMGRID_PLATFORM_H_
