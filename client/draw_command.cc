// hopmap draw: a picture of a given mapping on its machine (placement, link loads,
// bytes by hops, in-order against the answer) as SVG, PNG or PDF.
#include "client/draw_command.h"

#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/commands.h"
#include "client/remote.h"
#include "core/io/mapping_files.h"
#include "core/topology/catalog.h"
#include "core/topology/machine.h"
#include "proto/convert/convert.h"

namespace hopmap::cli {

void AddDrawOptionFlags(CLI::App& app, DrawFlags& flags, const std::string& prefix) {
  app.add_option("--" + prefix + "what", flags.what,
                 "The picture: placement (the machine with each node's tasks and the heaviest "
                 "messages, and the task grid when the graph is a 2D/3D stencil), links (load "
                 "of every directed link and the busiest ones), hops (bytes by hop count and "
                 "the cumulative share, in-order beside the answer), compare (in-order beside "
                 "the answer on one colour scale)")
      ->capture_default_str();
  app.add_option("--" + prefix + "max-cells", flags.max_cells,
                 "Above this many nodes a cell stands for a block of nodes (a torus block, a "
                 "switch's, router's or chip's nodes); 16 to 65536")
      ->capture_default_str();
  app.add_option("--" + prefix + "edges", flags.edges,
                 "placement: draw this many of the heaviest messages between nodes")
      ->capture_default_str();
  app.add_option("--" + prefix + "busiest-links", flags.busiest_links,
                 "links: name this many of the busiest links")
      ->capture_default_str();
}

absl::StatusOr<draw::DrawOptions> DrawOptionsFromFlags(const DrawFlags& flags) {
  draw::DrawOptions options;
  absl::StatusOr<draw::What> what = draw::ParseWhat(flags.what);
  if (!what.ok()) return what.status();
  options.what = *what;
  absl::StatusOr<Routing> routing = ParseRouting(flags.routing);
  if (!routing.ok()) return routing.status();
  options.routing = *routing;
  options.max_cells = flags.max_cells;
  options.heaviest_edges = flags.edges;
  options.busiest_links = flags.busiest_links;
  if (absl::Status s = options.Validate(); !s.ok()) {
    // Name the flag the user typed rather than the struct field.
    std::string message(s.message());
    if (message.rfind("max_cells", 0) == 0) message.replace(0, 9, "--max-cells");
    if (message.rfind("heaviest_edges", 0) == 0) message.replace(0, 14, "--edges");
    if (message.rfind("busiest_links", 0) == 0) message.replace(0, 13, "--busiest-links");
    return absl::InvalidArgumentError(message);
  }
  return options;
}

std::string JobName(const std::string& graph_path) {
  const size_t slash = graph_path.rfind('/');
  return slash == std::string::npos ? graph_path : graph_path.substr(slash + 1);
}

namespace {

struct DrawCommandFlags {
  ProblemFlags problem;
  std::string mapping;
  std::string output;
  DrawFlags draw;
};

// The graph and allocation, read and built here (LoadProblem): drawing happens here,
// so no daemon is needed. Only a machine name that is neither a spec nor in this
// hopmap's catalog is fetched from the daemon of --server (or HOPMAP_SERVER, without
// --local), the graph read once for the request.
absl::StatusOr<Problem> DrawProblem(DrawCommandFlags& flags) {
  ProblemFlags& problem_flags = flags.problem;
  if (!problem_flags.local) ApplyRemoteEnvironment(problem_flags.remote);
  const bool daemon_name = problem_flags.machine.find(':') == std::string::npos &&
                           FindCatalogEntry(problem_flags.machine) == nullptr;
  if (problem_flags.local || problem_flags.remote.server.empty() || !daemon_name) {
    absl::StatusOr<Problem> problem = LoadProblem(problem_flags);
    if (!problem.ok() && daemon_name && problem_flags.remote.server.empty() &&
        absl::StartsWith(problem.status().message(), "unknown machine")) {
      return absl::Status(problem.status().code(),
                          absl::StrCat(problem.status().message(),
                                       "; a machine only hopmapd's catalog knows needs --server "
                                       "ADDR"));
    }
    return problem;
  }
  absl::StatusOr<RemoteProblem> remote = BuildRemoteProblem(flags.problem);
  if (!remote.ok()) return remote.status();
  absl::StatusOr<std::unique_ptr<client::HopmapClient>> client =
      ConnectRemote(flags.problem.remote);
  if (!client.ok()) return client.status();
  absl::StatusOr<Allocation> allocation = RemoteAllocation(flags.problem, *remote, **client);
  if (!allocation.ok()) return allocation.status();
  Problem problem;
  problem.graph = std::move(remote->graph);
  problem.allocation.emplace(*std::move(allocation));
  return problem;
}

absl::Status RunDraw(DrawCommandFlags& flags) {
  absl::StatusOr<draw::DrawOptions> options = DrawOptionsFromFlags(flags.draw);
  if (!options.ok()) return options.status();
  if (absl::StatusOr<draw::FileFormat> f = draw::FileFormatOfPath(flags.output); !f.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("-o ", f.status().message()));
  }
  absl::StatusOr<Problem> problem = DrawProblem(flags);
  if (!problem.ok()) return problem.status();
  absl::StatusOr<std::vector<SlotId>> mapping =
      ReadMappingFile(flags.mapping, &*problem->allocation);
  if (!mapping.ok()) return mapping.status();
  draw::DrawJob job;
  job.graph = &problem->graph;
  job.allocation = &*problem->allocation;
  job.slot_of_task = *mapping;
  job.job_name = JobName(flags.problem.graph);
  absl::Status status = draw::DrawPicture(job, *options, flags.output);
  if (!status.ok() && status.message().find(flags.mapping) == std::string::npos &&
      status.message().rfind("the mapping", 0) == 0) {
    return absl::InvalidArgumentError(absl::StrCat(flags.mapping, ": ", status.message()));
  }
  return status;
}

}  // namespace

void AddDrawCommand(CLI::App& root, Action& run) {
  auto flags = std::make_shared<DrawCommandFlags>();
  CLI::App* cmd = root.add_subcommand(
      "draw",
      "Draw a mapping on its machine as SVG, PNG or PDF (the format from -o's extension): "
      "where the tasks are, link loads, bytes by hops, or in-order against the answer. Runs "
      "here; --server is only needed for a machine that only hopmapd's catalog knows");
  AddProblemFlags(*cmd, flags->problem);
  // The picture is drawn here whatever the flags: neither --local nor --server is
  // required (AddProblemFlags' help says one is, as for map and eval).
  cmd->get_option("--local")->description(
      "Ignore $HOPMAP_SERVER: build the machine here (as draw does anyway without --server "
      "and $HOPMAP_SERVER)");
  cmd->get_option("--server")
      ->description(
          "Fetch the machine from the hopmapd daemon at ADDR when only its catalog knows the "
          "name (HOST:PORT or unix:PATH; default: $HOPMAP_SERVER unless --local); the picture "
          "is drawn here");
  cmd->add_option("--mapping", flags->mapping,
                  "Mapping file: perm (line i: slot of task i) or the JSON of `hopmap map`")
      ->required();
  cmd->add_option("--output,-o", flags->output, "The picture: OUT.svg, OUT.png or OUT.pdf")
      ->required();
  AddDrawOptionFlags(*cmd, flags->draw, "");
  cmd->add_option("--routing", flags->draw.routing,
                  "Link-load model: dimension-order or adaptive (split over minimal paths)")
      ->capture_default_str();
  cmd->callback([flags, &run] { run = [flags] { return RunDraw(*flags); }; });
}

}  // namespace hopmap::cli
