// hopmap simulate: what the in-order placement and given mappings cost in time on a
// simulated network (SimGrid), in this process's workers (--local) or through
// hopmapd (--server); --mpi runs a real MPI program under SMPI instead.
#include <filesystem>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/cli_common.h"
#include "client/commands.h"
#include "client/draw/charts.h"
#include "client/draw/time_bars.h"
#include "client/remote.h"
#include "core/io/mapping_files.h"
#include "core/solve/simulate.h"
#include "core/solve/simulate_json.h"
#include "proto/convert/convert.h"
#include "sim/runner.h"
#include "sim/smpi_runner.h"

namespace hopmap::cli {
namespace {

struct SimulateFlags {
  ProblemFlags problem;
  std::vector<std::string> mappings;
  std::vector<std::string> patterns;
  int iterations = 1;
  std::string format = "text";
  std::string output;
  std::string draw;
  std::string mpi_program;
  std::vector<std::string> mpi_args;
  std::vector<std::string> smpi_config;
};

std::string TextReport(const SimulationReport& r, bool mpi) {
  std::string text = absl::StrFormat("machine    %s\njob        %d tasks, allocation of %d nodes\n",
                                     r.machine, r.tasks, r.hosts);
  if (!r.simulations.empty() && !r.simulations[0].link_class_bytes.empty()) {
    // Each class its own figures: `hopmap machines SPEC` lists them.
    absl::StrAppend(&text, "links      each class its own figures (hopmap machines lists them)\n");
  } else {
    absl::StrAppend(&text,
                    absl::StrFormat("links      %.4g GB/s and %s each (every direction)\n",
                                    r.link_bandwidth / 1e9, draw::FormatSeconds(r.link_latency)));
  }
  if (mpi) {
    absl::StrAppend(&text, "program    ", absl::StrJoin(r.patterns, " "),
                    " (SMPI; the program's simulated run time)\n\n");
    // A program linked with hopmap's compute profile also reports where its
    // ranks' time went (docs/apps.md).
    const bool profiled = !r.simulations.empty() && r.simulations[0].mpi_time_s.has_value();
    std::vector<std::vector<std::string>> rows = {
        {"mapping", "time_s", "vs in-order", "hop_bytes"}};
    if (profiled) rows[0].insert(rows[0].end(), {"mpi_time_s", "collective_s", "compute_s"});
    for (const SimulationResult& s : r.simulations) {
      rows.push_back({s.mapping, absl::StrFormat("%.6g", s.time_s),
                      absl::StrFormat("%.4f", s.ratio_to_in_order), absl::StrCat(s.hop_bytes)});
      if (profiled) {
        rows.back().push_back(absl::StrFormat("%.6g", s.mpi_time_s.value_or(0)));
        rows.back().push_back(absl::StrFormat("%.6g", s.collective_s.value_or(0)));
        rows.back().push_back(absl::StrFormat("%.6g", s.compute_s.value_or(0)));
      }
    }
    absl::StrAppend(&text, FormatTable(rows, {false, true, true, true, true, true, true}));
    return text;
  }
  absl::StrAppend(
      &text, absl::StrFormat("traffic    %s, %d messages per iteration, %d iteration%s\n\n",
                             absl::StrJoin(r.patterns, " + "), r.flows_per_iteration, r.iterations,
                             r.iterations == 1 ? "" : "s"));
  // The mapping column as wide as its longest name (mappings are named by their
  // paths), the numbers right-aligned under their headers.
  // A machine with link classes (a GPU cluster) adds the bytes on each class.
  const bool by_class = !r.simulations.empty() && !r.simulations[0].link_class_bytes.empty();
  std::vector<std::vector<std::string>> rows = {
      {"mapping", "time_s/iter", "vs in-order", "hop_bytes", "busiest link (share)"}};
  if (by_class) rows[0].push_back("bytes/iter by link class");
  for (const SimulationResult& s : r.simulations) {
    const std::string busiest =
        s.busiest_link.link < 0
            ? std::string("none (all inside nodes)")
            : absl::StrFormat("%s (%.0f%%)", s.busiest_link.name, 100 * s.busiest_link_share);
    rows.push_back({s.mapping, absl::StrFormat("%.6g", s.time_s),
                    absl::StrFormat("%.4f", s.ratio_to_in_order), absl::StrCat(s.hop_bytes),
                    busiest});
    if (by_class) {
      rows.back().push_back(absl::StrJoin(
          s.link_class_bytes, ", ", [](std::string* out, const std::pair<std::string, double>& c) {
            absl::StrAppend(out, c.first, " ", draw::FormatBytes(c.second));
          }));
    }
  }
  absl::StrAppend(&text, FormatTable(rows, {false, true, true, true, false, false}));
  return text;
}

absl::Status WriteSimulation(const SimulateFlags& flags, const SimulationReport& report) {
  const bool mpi = !flags.mpi_program.empty();
  absl::Status written =
      flags.format == "json"
          ? WriteOutput(flags.output, SimulationReportToJson(report).dump(2) + "\n")
          : WriteOutput(flags.output, TextReport(report, mpi));
  if (!written.ok() || flags.draw.empty()) return written;
  return draw::DrawSimulationBars(
      report, std::filesystem::path(flags.problem.graph).filename().string(), flags.draw);
}

absl::StatusOr<std::vector<SimulatedMapping>> ReadMappings(const SimulateFlags& flags,
                                                           const Allocation* allocation) {
  std::vector<SimulatedMapping> mappings;
  for (const std::string& path : flags.mappings) {
    absl::StatusOr<std::vector<SlotId>> slots = ReadMappingFile(path, allocation);
    if (!slots.ok()) return slots.status();
    mappings.push_back({path, *std::move(slots)});
  }
  return mappings;
}

absl::StatusOr<std::vector<CommunicationPattern>> ParsePatterns(const SimulateFlags& flags) {
  std::vector<CommunicationPattern> patterns;
  for (const std::string& text : flags.patterns) {
    absl::StatusOr<CommunicationPattern> p = ParsePattern(text);
    if (!p.ok())
      return absl::InvalidArgumentError(absl::StrCat("--pattern: ", p.status().message()));
    patterns.push_back(*p);
  }
  return patterns;
}

// A request error as the user knows the field: the flag.
absl::Status FlagError(const RequestError& bad) {
  static const std::pair<const char*, const char*> kFlags[] = {
      {"mappings", "--mapping"}, {"iterations", "--iterations"}, {"threads", "--threads"},
      {"patterns", "--pattern"}, {"graph", "--graph"},           {"allocation", "--machine"}};
  for (const auto& [field, flag] : kFlags) {
    if (bad.field == field) {
      return absl::Status(bad.status.code(), absl::StrCat(flag, ": ", bad.status.message()));
    }
  }
  return bad.status;
}

absl::Status RunSimulateLocal(const SimulateFlags& flags) {
  absl::StatusOr<Problem> problem = LoadProblem(flags.problem);
  if (!problem.ok()) return problem.status();
  SimulateRequest request;
  request.graph = &problem->graph;
  request.allocation = &*problem->allocation;
  request.iterations = flags.iterations;
  request.threads = flags.problem.threads;
  absl::StatusOr<std::vector<SimulatedMapping>> mappings =
      ReadMappings(flags, &*problem->allocation);
  if (!mappings.ok()) return mappings.status();
  request.mappings = *std::move(mappings);
  absl::StatusOr<std::vector<CommunicationPattern>> patterns = ParsePatterns(flags);
  if (!patterns.ok()) return patterns.status();
  request.patterns = *std::move(patterns);
  if (std::optional<RequestError> bad = CheckSimulateRequest(request)) return FlagError(*bad);
  absl::StatusOr<SimulationReport> report;
  if (!flags.mpi_program.empty()) {
    sim::MpiProgram program{flags.mpi_program, flags.mpi_args, flags.smpi_config};
    report = sim::SimulateMpiProgram(request, program);
  } else {
    absl::StatusOr<std::string> worker = sim::FindSimGridWorker();
    if (!worker.ok()) return worker.status();
    report = Simulate(request, sim::SimGridSimulator(*worker));
  }
  if (!report.ok()) return report.status();
  return WriteSimulation(flags, *report);
}

absl::Status RunSimulateRemote(const SimulateFlags& flags) {
  if (!flags.mpi_program.empty()) {
    return absl::InvalidArgumentError(
        "--mpi runs the program on this machine: use it with --local, not --server");
  }
  absl::StatusOr<RemoteProblem> problem = BuildRemoteProblem(flags.problem);
  if (!problem.ok()) return problem.status();
  absl::StatusOr<std::vector<SimulatedMapping>> mappings = ReadMappings(flags, nullptr);
  if (!mappings.ok()) return mappings.status();
  absl::StatusOr<std::vector<CommunicationPattern>> patterns = ParsePatterns(flags);
  if (!patterns.ok()) return patterns.status();
  absl::StatusOr<std::unique_ptr<client::HopmapClient>> client =
      ConnectRemote(flags.problem.remote);
  if (!client.ok()) return client.status();
  // The graph, the allocation and the threads are the daemon's.
  SimulateRequest simulate;
  simulate.mappings = *std::move(mappings);
  simulate.patterns = *std::move(patterns);
  simulate.iterations = flags.iterations;
  v1::SimulateRequest request;
  problem->FillRequest(request);
  SimulateRequestToProto(simulate, &request);
  absl::StatusOr<SimulationReport> report = (*client)->Simulate(request);
  if (!report.ok()) return OneLine(report.status());
  return WriteSimulation(flags, *report);
}

absl::Status RunSimulate(SimulateFlags& flags) {
  if (flags.format != "json" && flags.format != "text") {
    return absl::InvalidArgumentError(
        absl::StrCat("--format: unknown format '", flags.format, "' (known: json, text)"));
  }
  if (flags.mpi_program.empty() && (!flags.mpi_args.empty() || !flags.smpi_config.empty())) {
    return absl::InvalidArgumentError(absl::StrCat(
        flags.mpi_args.empty() ? "--smpi-cfg" : "--mpi-arg", " goes with --mpi PROGRAM"));
  }
  absl::StatusOr<Mode> mode = ResolveMode(flags.problem.local, flags.problem.remote);
  if (!mode.ok()) return mode.status();
  return *mode == Mode::kLocal ? RunSimulateLocal(flags) : RunSimulateRemote(flags);
}

}  // namespace

void AddSimulateCommand(CLI::App& root, Action& run) {
  auto flags = std::make_shared<SimulateFlags>();
  CLI::App* cmd = root.add_subcommand(
      "simulate",
      "Predict the communication time of the in-order placement and of given mappings on a "
      "simulated network (SimGrid): every edge's bytes exchanged at once each iteration, or a "
      "real MPI program under SMPI (--mpi)");
  AddProblemFlags(*cmd, flags->problem);
  cmd->add_option("--mapping", flags->mappings,
                  "A mapping to simulate beside the in-order placement: perm file or the JSON "
                  "of `hopmap map` (repeatable; reported in the order given)");
  cmd->add_option("--pattern", flags->patterns,
                  "The phases of one iteration, in order (repeatable): graph (every edge's bytes, "
                  "half each way), allgather:BYTES (recursive doubling, BYTES per task), "
                  "alltoall:BYTES (pairwise exchange), ring-allreduce:BYTES and "
                  "tree-allreduce:BYTES (NCCL's ring and double binary tree), training:SPEC (one "
                  "step of a training job, the spec of gen training --job plus "
                  "allreduce=ring|tree); default graph");
  cmd->add_option("--iterations", flags->iterations,
                  "Iterations simulated one after the other (1 to 1000)")
      ->capture_default_str();
  cmd->add_option("--format", flags->format, "text or json")->capture_default_str();
  cmd->add_option("--output,-o", flags->output, "Write to FILE instead of standard output");
  cmd->add_option("--draw", flags->draw,
                  "Also draw the times as bars to FILE (.svg, .png or .pdf)");
  cmd->add_option("--mpi", flags->mpi_program,
                  "Run this MPI program (built with smpicc) under smpirun on the simulated "
                  "machine, once per placement, and report its simulated run time; the graph "
                  "gives the rank count (--local only)")
      ->group("MPI program (SMPI)");
  cmd->add_option("--mpi-arg", flags->mpi_args, "An argument for the --mpi program (repeatable)")
      ->group("MPI program (SMPI)");
  cmd->add_option("--smpi-cfg", flags->smpi_config,
                  "A SimGrid setting KEY:VALUE for smpirun (--cfg=KEY:VALUE; repeatable), e.g. "
                  "smpi/coll-selector:ompi")
      ->check(CLI::Validator(
          [](const std::string& setting) -> std::string {
            const size_t colon = setting.find(':');
            if (colon == 0 || colon == std::string::npos || colon + 1 == setting.size()) {
              return "expected KEY:VALUE (a SimGrid setting, e.g. smpi/coll-selector:ompi)";
            }
            return "";
          },
          "KEY:VALUE"))
      ->group("MPI program (SMPI)");
  cmd->callback([flags, &run] { run = [flags] { return RunSimulate(*flags); }; });
}

}  // namespace hopmap::cli
