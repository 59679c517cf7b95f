// What the SimGrid worker computes from a network model before it simulates it, to
// simulate less (docs/simulate.md#speed): the links whose sharing never decides
// anything, and a lower bound on each phase's time that sets the time step. Plain
// computations on the model; no SimGrid here.
#ifndef HOPMAP_SIM_MODEL_REDUCTION_H_
#define HOPMAP_SIM_MODEL_REDUCTION_H_

#include <vector>

#include "core/simulate/network_model.h"

namespace hopmap::sim {

// Link l is redundant when another link m carries every route l carries (and maybe
// more) and has no more bandwidth: whatever the flows' rates, the bytes per second
// through l never exceed m's, so l's constraint in the max-min sharing is implied by
// m's and leaving it out of the routes changes no rate. Of links that carry the
// same routes with the same bandwidth, the first in model order stays. Every route
// keeps at least one link (the last link standing behind a redundant one is on
// every route the redundant one is on). Indexed as model.links.
std::vector<bool> RedundantLinks(const NetworkModel& model);

// For each phase, a time it cannot take less than: the slowest single flow alone
// (its latency x latency_factor plus bytes over bandwidth_factor x its route's
// narrowest link, or TCP's window bound), and the busiest link's bytes over
// bandwidth_factor x its bandwidth (the loopback counts one flow at a time: it
// shares nothing). Indexed as model.phases.
std::vector<double> PhaseTimeLowerBounds(const NetworkModel& model, const Lv08Factors& factors);

// The two parts of a phase's lower bound: the slowest single flow alone, and the
// busiest link's bytes over its bandwidth.
struct PhaseBoundParts {
  double slowest_flow = 0;
  double busiest_link = 0;
};
std::vector<PhaseBoundParts> PhaseTimeBoundParts(const NetworkModel& model,
                                                 const Lv08Factors& factors);

// Whether the links' bandwidth, not each flow's own latency and window, bounds the
// model's time: summed over the phases, the busiest link's time exceeds the slowest
// flow's. The worker then has SimGrid re-solve the whole sharing at each event
// (network/optim:Full), else only the part an event changed (Lazy): when the links
// bind, every flow is coupled to every other through them and Lazy's search for the
// changed part finds everything at a cost of its own; when they do not, that part is
// small (docs/simulate.md#speed).
bool LinksBindTheTime(const NetworkModel& model, const Lv08Factors& factors);

}  // namespace hopmap::sim

#endif  // HOPMAP_SIM_MODEL_REDUCTION_H_
