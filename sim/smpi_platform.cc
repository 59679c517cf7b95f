// libhopmap_smpi_platform.so: a SimGrid platform library for smpirun
// (`smpirun -platform libhopmap_smpi_platform.so ...`). It builds the network model
// in the file $HOPMAP_SIMGRID_MODEL (written by hopmap simulate --mpi, with routes
// between every two hosts) through the same s4u code as the worker.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "absl/status/statusor.h"
#include "sim/model_codec.h"
#include "sim/simgrid_platform.h"
#include "simgrid/s4u/Engine.hpp"

extern "C" void load_platform(const simgrid::s4u::Engine& /*engine*/) {
  const char* path = std::getenv("HOPMAP_SIMGRID_MODEL");
  if (path == nullptr || *path == '\0') {
    std::fprintf(stderr, "libhopmap_smpi_platform: HOPMAP_SIMGRID_MODEL names no model file\n");
    std::exit(2);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "libhopmap_smpi_platform: %s: cannot open\n", path);
    std::exit(2);
  }
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<hopmap::NetworkModel> model = hopmap::sim::DecodeNetworkModel(bytes, path);
  if (!model.ok()) {
    std::fprintf(stderr, "libhopmap_smpi_platform: %s\n",
                 std::string(model.status().message()).c_str());
    std::exit(2);
  }
  hopmap::sim::BuildSimGridPlatform(*model, hopmap::sim::kReferenceOptions);
}
