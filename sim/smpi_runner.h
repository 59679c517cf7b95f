// hopmap simulate --mpi: a real MPI program (built with smpicc) under smpirun on the
// machine's network model, once per placement, with the hostfile in that
// placement's order (rank r on the node of the slot task r has).
#ifndef HOPMAP_SIM_SMPI_RUNNER_H_
#define HOPMAP_SIM_SMPI_RUNNER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/solve/simulate.h"

namespace hopmap::sim {

struct MpiProgram {
  std::string path;               // the program, built with smpicc
  std::vector<std::string> args;  // its arguments
  // SimGrid settings for smpirun, KEY:VALUE each (--cfg=KEY:VALUE), after hopmap's own.
  std::vector<std::string> smpi_config;
};

// The platform library smpirun loads: $HOPMAP_SMPI_PLATFORM if set, else
// <this program's folder>/../lib/hopmap/libhopmap_smpi_platform.so, else this
// build's.
absl::StatusOr<std::string> FindSmpiPlatform();

// Runs `program` with graph->num_tasks() ranks for the in-order placement and each
// mapping (one after the other: each run is a whole MPI job), in a temporary folder
// that is removed afterwards. Each result's time_s is the program's simulated run
// time (SMPI's clock when it ends), total_time_s the same; busiest_link is unset.
// The program's own errors come back with its last line of output.
absl::StatusOr<SimulationReport> SimulateMpiProgram(const SimulateRequest& request,
                                                    const MpiProgram& program);

}  // namespace hopmap::sim

#endif  // HOPMAP_SIM_SMPI_RUNNER_H_
