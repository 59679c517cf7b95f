// hopmap-simgrid: runs one network model (proto/hopmap/sim/network_model.proto,
// binary, on stdin) on SimGrid and prints "time_s=SECONDS" for all its iterations.
// hopmap simulate and hopmapd start it once per placement (sim/runner.h): SimGrid
// keeps one engine per process, and a daemon must not host it.
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/model_codec.h"
#include "sim/simgrid_platform.h"
#include "simgrid/s4u/Engine.hpp"

int main(int argc, char** argv) {
  if (argc > 1) {
    const std::string arg = argv[1];
    std::fprintf(arg == "--help" ? stdout : stderr,
                 "usage: hopmap-simgrid < MODEL\n"
                 "Runs a hopmap network model (written by hopmap simulate) on SimGrid and "
                 "prints time_s=SECONDS.\n");
    return arg == "--help" ? 0 : 2;
  }
  std::string input((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  absl::StatusOr<hopmap::NetworkModel> model =
      hopmap::sim::DecodeNetworkModel(input, "standard input");
  if (!model.ok()) {
    std::fprintf(stderr, "hopmap-simgrid: %s\n", std::string(model.status().message()).c_str());
    return 2;
  }
  // SimGrid's own defaults but these: cross-traffic off (each direction is a link
  // of its own in hopmap's models, so there is no reverse route to load with
  // acknowledgements); time steps of 1 ns, not 10 us (an iteration may take
  // microseconds); small actor stacks without guard pages (one actor per node:
  // at 32,768 nodes, stacks with guards pass Linux's default 65,530 mappings per
  // process, vm.max_map_count); only warnings logged.
  std::vector<std::string> args = {"hopmap-simgrid",
                                   "--cfg=network/crosstraffic:0",
                                   "--cfg=surf/precision:1e-9",
                                   "--cfg=contexts/stack-size:128",
                                   "--cfg=contexts/guard-size:0",
                                   "--log=root.thres:warning",
                                   "--log=no_loc"};
  std::vector<char*> engine_argv;
  for (std::string& a : args) engine_argv.push_back(a.data());
  int engine_argc = static_cast<int>(engine_argv.size());
  simgrid::s4u::Engine engine(&engine_argc, engine_argv.data());
  std::vector<simgrid::s4u::Host*> hosts = hopmap::sim::BuildSimGridPlatform(*model);
  const double seconds = hopmap::sim::RunModelTraffic(engine, *model, hosts);
  std::printf("time_s=%.17g\n", seconds);
  return 0;
}
