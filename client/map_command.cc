// hopmap map: compute a mapping (in this process or through hopmapd) and print it
// with its report.
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>

#include "absl/strings/str_format.h"
#include "client/balance_flags.h"
#include "client/cli_common.h"
#include "client/commands.h"
#include "client/draw_command.h"
#include "client/progress_bar.h"
#include "client/remote.h"
#include "core/io/mapping_files.h"
#include "core/io/mapping_writers.h"
#include "core/solve/report.h"
#include "core/solve/report_json.h"
#include "core/solve/solve.h"
#include "proto/convert/convert.h"

namespace hopmap::cli {
namespace {

struct MapFlags {
  ProblemFlags problem;
  std::string algorithm = "auto";
  std::string objective = "hop-bytes";
  std::string routing = "dimension-order";
  double time_limit = 0;  // 0: sized to the job (DefaultTimeLimitSeconds)
  uint64_t seed = 1;
  int64_t iteration_limit = 0;
  std::string initial;      // a mapping file to start from
  int32_t keep_blocks = 1;  // tasks K*i .. K*i+K-1 on one node
  std::string format = "json";
  std::string output;
  bool quiet = false;
  std::string draw_output;  // --draw: a picture of the answer
  DrawFlags draw;
  BalanceFlags balance;
};

// --draw: the picture of the answer, after the report is written.
absl::Status DrawAnswer(const MapFlags& flags, const TaskGraph& graph, const Allocation& allocation,
                        const MappingReport& report) {
  absl::StatusOr<draw::DrawOptions> options = DrawOptionsFromFlags(flags.draw);
  if (!options.ok()) return options.status();
  draw::DrawJob job;
  job.graph = &graph;
  job.allocation = &allocation;
  job.slot_of_task = report.slot_of_task;
  job.job_name = JobName(flags.problem.graph);
  return draw::DrawPicture(job, *options, flags.draw_output);
}

std::string Summary(const MappingReport& r) {
  if (r.balance.has_value()) return BalanceSummary(r);
  std::string text = absl::StrFormat(
      "hopmap: %d tasks on %d slots with %s: hop-bytes %d (in-order %d, %.1f%% less), "
      "%.3f hops/byte, lower bound %d (%s, gap %s), %.3f s\n",
      r.tasks, r.slots, r.algorithm, r.hop_bytes, r.baseline_hop_bytes, 100.0 * r.improvement,
      r.avg_hops_per_byte, r.lower_bound.value, r.lower_bound.method,
      r.gap ? absl::StrFormat("%.3f", *r.gap) : std::string("n/a"), r.solve_seconds);
  if (r.node_cost.has_value()) {
    absl::StrAppend(&text, absl::StrFormat("hopmap: inside the nodes: node cost %d, full cost %d "
                                           "(%d x hop-bytes + node cost; in-order %d)\n",
                                           r.node_cost->node_cost, r.node_cost->full_cost,
                                           r.node_cost->hop_cost, r.node_cost->baseline_full_cost));
  }
  return text;
}

// Both modes end here: the report printed the same way whoever computed it.
// `allocation` is needed for every format but json.
absl::Status WriteMapResult(const MapFlags& flags, MappingFormat format,
                            const MappingReport& report, const Allocation* allocation) {
  std::string text;
  if (format == MappingFormat::kJson) {
    nlohmann::ordered_json j = ReportToJson(report);
    text = j.dump(2) + "\n";
  } else {
    absl::StatusOr<std::string> formatted =
        FormatMapping(*allocation, report.slot_of_task, format, report.balance.has_value());
    if (!formatted.ok()) return formatted.status();
    text = *std::move(formatted);
    if (!flags.quiet) std::cerr << Summary(report);
  }
  return WriteOutput(flags.output, text);
}

// The request the flags describe, without its graph and allocation: the
// algorithm, the options, and --initial (the balanced problem's current placement
// with --balance, else a mapping to start from). `allocation` (null: not known
// here) checks a JSON mapping's shape.
absl::StatusOr<SolveRequest> RequestFromFlags(const MapFlags& flags, const MapperOptions& options,
                                              int64_t num_tasks, const Allocation* allocation) {
  SolveRequest request;
  request.algorithm = flags.algorithm;
  request.options = options;
  request.keep_blocks = flags.keep_blocks;
  if (flags.balance.active()) {
    absl::StatusOr<BalanceRequest> balance =
        LoadBalanceRequest(flags.balance, flags.initial, num_tasks, allocation);
    if (!balance.ok()) return balance.status();
    request.balance = *std::move(balance);
  } else if (!flags.initial.empty()) {
    absl::StatusOr<std::vector<SlotId>> initial = ReadMappingFile(flags.initial, allocation);
    if (!initial.ok()) return initial.status();
    request.initial = *std::move(initial);
  }
  return request;
}

absl::Status RunMapLocal(const MapFlags& flags, MappingFormat format,
                         const MapperOptions& options) {
  // The algorithm is checked before the files are read.
  SolveRequest named;
  named.algorithm = flags.algorithm;
  named.options = options;
  named.keep_blocks = flags.keep_blocks;
  if (flags.balance.active()) named.balance.emplace();
  if (std::optional<RequestError> bad = CheckSolveOptions(named)) return bad->status;
  absl::StatusOr<Problem> problem = LoadProblem(flags.problem);
  if (!problem.ok()) return problem.status();
  const Allocation& allocation = *problem->allocation;
  absl::StatusOr<SolveRequest> request =
      RequestFromFlags(flags, options, problem->graph.num_tasks(), &allocation);
  if (!request.ok()) return request.status();
  request->graph = &problem->graph;
  request->allocation = &allocation;
  // `named` had the request's options and algorithm: what is left to check, once.
  if (std::optional<RequestError> bad = CheckSolveInputs(*request)) return bad->status;
  absl::StatusOr<MappingReport> report = SolveCheckedRequest(*request);
  if (!report.ok()) return report.status();
  if (absl::Status s = WriteMapResult(flags, format, *report, &allocation); !s.ok()) return s;
  if (flags.draw_output.empty()) return absl::OkStatus();
  return DrawAnswer(flags, problem->graph, allocation, *report);
}

// The daemon's registry decides which algorithms exist, so the name is not checked
// here.
absl::Status RunMapRemote(const MapFlags& flags, MappingFormat format,
                          const MapperOptions& options) {
  absl::StatusOr<RemoteProblem> problem = BuildRemoteProblem(flags.problem);
  if (!problem.ok()) return problem.status();
  absl::StatusOr<std::unique_ptr<client::HopmapClient>> client =
      ConnectRemote(flags.problem.remote);
  if (!client.ok()) return client.status();
  // The mapping formats need the machine's node names: built here, before the solve,
  // so a bad allocation fails fast with the same message as --local.
  std::optional<Allocation> allocation;
  if (format != MappingFormat::kJson || !flags.draw_output.empty()) {
    absl::StatusOr<Allocation> built = RemoteAllocation(flags.problem, *problem, **client);
    if (!built.ok()) return built.status();
    allocation.emplace(*std::move(built));
  }
  v1::MapRequest request;
  problem->FillRequest(request);
  absl::StatusOr<SolveRequest> solve = RequestFromFlags(
      flags, options, problem->graph.num_tasks(), allocation.has_value() ? &*allocation : nullptr);
  if (!solve.ok()) return solve.status();
  SolveRequestToProto(*solve, &request);

  absl::StatusOr<MappingReport> report;
  if (!flags.quiet && isatty(STDERR_FILENO)) {
    // The bar's length: the budget asked for, or the size-based default (the
    // daemon may choose another; the bar then ends early or waits at full).
    ProgressBar bar(STDERR_FILENO, flags.time_limit > 0
                                       ? flags.time_limit
                                       : DefaultTimeLimitSeconds(problem->graph.num_tasks()));
    report = (*client)->MapStream(request, [&bar](const Progress& p) {
      bar.Update(!p.candidate_finished.empty(),
                 p.best_algorithm.empty() ? std::nullopt : std::optional<int64_t>(p.best_hop_bytes),
                 p.best_algorithm);
    });
    bar.Finish();
  } else {
    report = (*client)->Map(request);
  }
  if (!report.ok()) return OneLine(report.status());
  problem->FixReport(*report);
  if (absl::Status s = WriteMapResult(flags, format, *report, allocation ? &*allocation : nullptr);
      !s.ok()) {
    return s;
  }
  if (flags.draw_output.empty()) return absl::OkStatus();
  return DrawAnswer(flags, problem->graph, *allocation, *report);
}

absl::Status RunMap(MapFlags& flags) {
  absl::StatusOr<MappingFormat> format = ParseMappingFormat(flags.format);
  if (!format.ok()) return format.status();
  MapperOptions options;
  options.seed = flags.seed;
  options.iteration_limit = flags.iteration_limit;
  options.time_limit_seconds = flags.time_limit;
  options.threads = flags.problem.threads;
  absl::StatusOr<Objective> objective = ParseObjective(flags.objective);
  if (!objective.ok()) return objective.status();
  options.objective = *objective;
  absl::StatusOr<Routing> routing = ParseRouting(flags.routing);
  if (!routing.ok()) return routing.status();
  options.routing = *routing;
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  if (!flags.draw_output.empty()) {  // fail before the solve, not after it
    flags.draw.routing = flags.routing;
    if (absl::StatusOr<draw::DrawOptions> d = DrawOptionsFromFlags(flags.draw); !d.ok()) {
      return d.status();
    }
    if (absl::StatusOr<draw::FileFormat> f = draw::FileFormatOfPath(flags.draw_output); !f.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--draw ", f.status().message()));
    }
  }
  if (flags.balance.active() && *format != MappingFormat::kJson &&
      *format != MappingFormat::kPerm && *format != MappingFormat::kCsv) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--format ", flags.format,
        " places one process per core; with load balancing (objects many per slot) use json, "
        "perm or csv"));
  }
  absl::StatusOr<Mode> mode = ResolveMode(flags.problem.local, flags.problem.remote);
  if (!mode.ok()) return mode.status();
  return WithBalanceHint(*mode == Mode::kLocal ? RunMapLocal(flags, *format, options)
                                               : RunMapRemote(flags, *format, options),
                         flags.balance, flags.algorithm);
}

}  // namespace

void AddMapCommand(CLI::App& root, Action& run) {
  auto flags = std::make_shared<MapFlags>();
  CLI::App* cmd = root.add_subcommand(
      "map",
      "Compute a placement of the graph's tasks on the allocation and report it, in this "
      "process (--local) or through hopmapd (--server)");
  AddProblemFlags(*cmd, flags->problem);
  cmd->add_option("--algorithm", flags->algorithm, "Mapping algorithm (see `hopmap algorithms`)")
      ->capture_default_str();
  cmd->add_option("--objective", flags->objective,
                  "What to minimise: hop-bytes; congestion (the largest link load, then "
                  "hop-bytes); dilation (the most hops a message travels, then hop-bytes); or "
                  "time (the estimated time of one exchange of the graph's messages on the "
                  "machine's links, then hop-bytes)")
      ->capture_default_str();
  cmd->add_option("--routing", flags->routing,
                  "Routing model for link loads: dimension-order or adaptive")
      ->capture_default_str();
  cmd->add_option("--time-limit", flags->time_limit,
                  "Budget in seconds for the whole solve (hopmapd may cap it); 0: sized to the "
                  "job, 1 s per 8192 tasks (with load balancing: per 8192 slots, and at least 1 s "
                  "per 32768 objects), at least 1 s and at most 45 s (with --server: the "
                  "daemon's --default-time-limit)")
      ->capture_default_str();
  cmd->add_option("--seed", flags->seed, "Seed of every random choice")->capture_default_str();
  cmd->add_option("--initial", flags->initial,
                  "A mapping to start from (a perm file, as --format perm writes, or a JSON "
                  "report): refine improves it, auto refines it beside its own candidates; with "
                  "load balancing, the objects' current placement (moves are counted against "
                  "it)");
  cmd->add_option("--iterations", flags->iteration_limit,
                  "Iterative searches (grasp, emahd, ...) stop after this many iterations; "
                  "0: only --time-limit stops them. A search that ends on this limit gives the "
                  "same answer on every run with the same --seed and --threads")
      ->check(NonNegativeInteger())
      ->capture_default_str();
  cmd->add_option("--keep-blocks", flags->keep_blocks,
                  "Keep tasks K*i .. K*i+K-1 together on one node, on consecutive cores, as "
                  "launchers that give each host a block of consecutive ranks need (torchrun "
                  "--nproc-per-node K, a Kubernetes pod per host); K divides the cores per node "
                  "and the task count; 1: no constraint")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--format", flags->format,
                  "Output: json (the full report), perm, rankfile (Open MPI; slot=P:C with node=), "
                  "rank-node-core (a line per rank), hostfile (Slurm SLURM_HOSTFILE for srun "
                  "--distribution=arbitrary), map-cpu (Slurm --cpu-bind=map_cpu: lists beside it), "
                  "hydra (MPICH's mpiexec -f, with its -bind-to list), mpich-rank-order (Cray "
                  "MPICH_RANK_ORDER), bg-mapfile (Blue Gene), csv")
      ->capture_default_str();
  cmd->add_option("--output,-o", flags->output, "Write to FILE instead of standard output");
  cmd->add_flag("--quiet,-q", flags->quiet,
                "No summary on stderr (printed with formats other than json), and with "
                "--server no progress bar (drawn when stderr is a terminal)");
  cmd->add_option("--draw", flags->draw_output,
                  "Also draw the answer to OUT.svg, OUT.png or OUT.pdf (see `hopmap draw`; "
                  "--draw-what and the other --draw-* flags choose the picture)");
  AddDrawOptionFlags(*cmd, flags->draw, "draw-");
  AddBalanceFlags(*cmd, flags->balance, BalanceFlagsFor::kMap);
  cmd->callback([flags, &run] { run = [flags] { return RunMap(*flags); }; });
}

}  // namespace hopmap::cli
