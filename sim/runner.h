// Runs network models on SimGrid for the edges (the CLI, hopmapd): each model in
// its own hopmap-simgrid process (SimGrid holds one engine per process and global
// state a daemon must not share), and MPI programs under smpirun.
#ifndef HOPMAP_SIM_RUNNER_H_
#define HOPMAP_SIM_RUNNER_H_

#include <atomic>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/solve/simulate.h"

namespace hopmap::sim {

// The worker program: $HOPMAP_SIMGRID_WORKER if set, else
// <this program's folder>/../libexec/hopmap/hopmap-simgrid (an installation), else
// the one this build made. NotFound names the places looked at.
absl::StatusOr<std::string> FindSimGridWorker();

// A NetworkSimulator that encodes the model, runs `worker` on it and reads its
// time; a worker that fails gives its last error line. When `cancelled` (may be
// null; hopmapd's call) turns true, running workers are killed and the
// simulation answers Cancelled.
NetworkSimulator SimGridSimulator(std::string worker, const std::atomic<bool>* cancelled = nullptr);

}  // namespace hopmap::sim

#endif  // HOPMAP_SIM_RUNNER_H_
