// A NetworkModel as a SimGrid platform, built through the s4u API in the running
// engine: one netzone whose routes are the model's own (the machine's
// deterministic routing), a host per node, a fat-pipe loopback per host for the
// messages inside a node. Only the worker and the SMPI platform library include
// this (they alone link SimGrid).
#ifndef HOPMAP_SIM_SIMGRID_PLATFORM_H_
#define HOPMAP_SIM_SIMGRID_PLATFORM_H_

#include <vector>

#include "core/simulate/network_model.h"
#include "sim/model_reduction.h"
#include "simgrid/s4u/Engine.hpp"
#include "simgrid/s4u/Host.hpp"

namespace hopmap::sim {

// SimGrid's time step (surf/precision) when a phase does not set its own: 1 ns.
inline constexpr double kMinTimeStep = 1e-9;

// How the worker simulates a model (docs/simulate.md#speed). The defaults are the
// worker's; kReferenceOptions is the model as it was before them (one SimGrid flow
// per message over every link of its route, 1 ns time steps), which
// bench/simulate_speed.sh compares against.
struct SimulationOptions {
  // Leave RedundantLinks out of the routes: the same max-min rates with fewer
  // constraints to solve.
  bool drop_redundant_links = true;
  // The messages of one phase between one pair of hosts, when they all have the
  // same size, become one SimGrid flow of their total size that shares as they
  // would together (k x their bytes, sharing penalty / k, k x their rate bound):
  // the same rates and end, fewer variables. Not inside a node (a fat pipe).
  bool merge_alike_flows = true;
  // Each phase's time step is this fraction of its PhaseTimeLowerBounds (never under
  // kMinTimeStep): SimGrid ends together the flows due to end within one step of
  // the first, at the first one's date, instead of re-solving the sharing at each.
  // 0: kMinTimeStep throughout.
  double time_step_fraction = 2e-3;
};
inline constexpr SimulationOptions kReferenceOptions{
    .drop_redundant_links = false, .merge_alike_flows = false, .time_step_fraction = 0};

class ModelRoutesZone;  // simgrid_platform.cc

struct SimGridPlatform {
  std::vector<simgrid::s4u::Host*> hosts;  // model order
  Lv08Factors factors;                     // SimGrid's, read before any change
  ModelRoutesZone* zone = nullptr;         // the root netzone (SimGrid owns it)
};

// Builds and seals the platform; the engine must exist and have no platform yet.
// With options.drop_redundant_links or merge_alike_flows, hopmap gives SimGrid each
// flow's LV08 sharing penalty, latency and rate bound itself (weight-S 0, TCP-gamma
// huge, a latency factor callback: see the .cc) so that shorter routes and merged
// flows keep the figures SimGrid would derive; the SMPI platform library, whose own
// network model reads them, passes kReferenceOptions.
SimGridPlatform BuildSimGridPlatform(const NetworkModel& model, const SimulationOptions& options);

// Runs the model's iterations (phases in order, each phase's flows at once) on an
// engine whose platform BuildSimGridPlatform built with the same options; returns
// the simulated seconds.
double RunModelTraffic(simgrid::s4u::Engine& engine, const NetworkModel& model,
                       const SimGridPlatform& platform, const SimulationOptions& options);

}  // namespace hopmap::sim

#endif  // HOPMAP_SIM_SIMGRID_PLATFORM_H_
