// hopmap-simgrid: runs one network model (proto/hopmap/sim/network_model.proto,
// binary, on stdin) on SimGrid and prints "time_s=SECONDS" for all its iterations.
// hopmap simulate and hopmapd start it once per placement (sim/runner.h): SimGrid
// keeps one engine per process, and a daemon must not host it.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "sim/model_codec.h"
#include "sim/model_reduction.h"
#include "sim/simgrid_platform.h"
#include "simgrid/s4u/Engine.hpp"

namespace {

constexpr char kUsage[] =
    "usage: hopmap-simgrid [--reference] [--all-links] [--one-flow-per-message]\n"
    "                      [--time-step-fraction=F] [--cfg=KEY:VALUE]... < MODEL\n"
    "Runs a hopmap network model (written by hopmap simulate) on SimGrid and prints "
    "time_s=SECONDS.\n"
    "  --reference             one flow per message over every link of its route, 1 ns\n"
    "                          time steps: the model before the three below (also when\n"
    "                          HOPMAP_SIMGRID_REFERENCE=1)\n"
    "  --all-links             keep the redundant links in the routes\n"
    "  --one-flow-per-message  do not merge alike messages between two hosts\n"
    "  --time-step-fraction=F  each phase's time step as a fraction of its lower bound\n"
    "                          (default 0.002; 0: 1 ns throughout)\n"
    "  --cfg=KEY:VALUE         a SimGrid setting after the worker's own (repeatable),\n"
    "                          e.g. --cfg=network/optim:Lazy\n";

}  // namespace

int main(int argc, char** argv) {
  hopmap::sim::SimulationOptions options;
  std::vector<std::string> extra_settings;
  const char* reference = std::getenv("HOPMAP_SIMGRID_REFERENCE");
  if (reference != nullptr && std::string(reference) == "1") {
    options = hopmap::sim::kReferenceOptions;
  }
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    double fraction = 0;
    if (arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "--reference") {
      options = hopmap::sim::kReferenceOptions;
    } else if (arg == "--all-links") {
      options.drop_redundant_links = false;
    } else if (arg == "--one-flow-per-message") {
      options.merge_alike_flows = false;
    } else if (absl::StartsWith(arg, "--cfg=") && arg.find(':') != std::string::npos) {
      extra_settings.push_back(arg);
    } else if (absl::StartsWith(arg, "--time-step-fraction=") &&
               absl::SimpleAtod(arg.substr(arg.find('=') + 1), &fraction) && fraction >= 0 &&
               fraction <= 0.1) {
      options.time_step_fraction = fraction;
    } else {
      std::fprintf(stderr, "hopmap-simgrid: bad argument '%s' (--time-step-fraction: 0 to 0.1)\n%s",
                   arg.c_str(), kUsage);
      return 2;
    }
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
  // microseconds; with a time step fraction, each phase sets its own); the sharing
  // re-solved whole at each event (network/optim:Full) where the links bind the
  // time, else only where an event changed it (Lazy; LinksBindTheTime says why;
  // measured in docs/simulate.md#speed); small actor stacks without guard pages (one
  // actor per node: at 32,768 nodes, stacks with guards pass Linux's default 65,530
  // mappings per process, vm.max_map_count); only warnings logged.
  const bool links_bind = hopmap::sim::LinksBindTheTime(*model, hopmap::Lv08Factors{});
  std::vector<std::string> args = {
      "hopmap-simgrid",
      "--cfg=network/crosstraffic:0",
      "--cfg=surf/precision:1e-9",
      links_bind ? "--cfg=network/optim:Full" : "--cfg=network/optim:Lazy",
      "--cfg=contexts/stack-size:128",
      "--cfg=contexts/guard-size:0",
      "--log=root.thres:warning",
      "--log=no_loc"};
  args.insert(args.end(), extra_settings.begin(), extra_settings.end());
  std::vector<char*> engine_argv;
  for (std::string& a : args) engine_argv.push_back(a.data());
  int engine_argc = static_cast<int>(engine_argv.size());
  simgrid::s4u::Engine engine(&engine_argc, engine_argv.data());
  const hopmap::sim::SimGridPlatform platform = hopmap::sim::BuildSimGridPlatform(*model, options);
  const double seconds = hopmap::sim::RunModelTraffic(engine, *model, platform, options);
  std::printf("time_s=%.17g\n", seconds);
  return 0;
}
