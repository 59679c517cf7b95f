// hopmap qap: solve a QAPLIB instance with any mapper. The distance matrix becomes a
// machine (explicit distances, one core per location) and the flow matrix a task
// graph, so every algorithm runs on it unchanged.
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/cli_common.h"
#include "client/commands.h"
#include "core/io/qaplib.h"
#include "core/mappers/portfolio/registry.h"
#include "core/metrics/qap.h"
#include "core/solve/report.h"
#include "core/solve/solve_mapping.h"
#include "nlohmann/json.hpp"

namespace hopmap::cli {
namespace {

struct QapFlags {
  std::string file;
  std::string algorithm = "auto";
  double time_limit = 10.0;
  uint64_t seed = 1;
  int threads = 0;
  std::string format = "json";
};

absl::Status RunQap(const QapFlags& flags) {
  if (flags.format != "json" && flags.format != "text") {
    return absl::InvalidArgumentError(
        absl::StrCat("--format must be json or text, got '", flags.format, "'"));
  }
  if (BuiltinMappers().Find(flags.algorithm) == nullptr) {
    return BuiltinMappers().Create(flags.algorithm).status();
  }
  MapperOptions options;
  options.seed = flags.seed;
  options.time_limit_seconds = flags.time_limit;
  options.threads = flags.threads;
  if (absl::Status s = options.Validate(); !s.ok()) return s;

  absl::StatusOr<QapInstance> instance = ReadQaplib(flags.file);
  if (!instance.ok()) return instance.status();
  absl::StatusOr<QapProblem> problem = QapAsMappingProblem(*instance);
  if (!problem.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(flags.file, ": ", problem.status().message()));
  }
  absl::StatusOr<MappingReport> report =
      SolveMapping(problem->graph, problem->allocation, flags.algorithm, options);
  if (!report.ok()) return report.status();
  // One core per location, so slot = location: the permutation QAPLIB defines.
  const std::vector<int32_t>& permutation = report->slot_of_task;
  const int64_t cost = QapCost(*instance, permutation);
  if (cost != report->hop_bytes) {
    return absl::InternalError(absl::StrCat("QAP cost ", cost, " differs from hop-bytes ",
                                            report->hop_bytes, " of the same permutation"));
  }
  // Optimal when the exact search finished or the cost meets the lower bound.
  const bool proven = report->algorithm == "exact(proven)" || cost == report->lower_bound.value;
  std::vector<int32_t> one_based(permutation.size());
  for (size_t i = 0; i < permutation.size(); ++i) one_based[i] = permutation[i] + 1;

  std::string instance_name = flags.file;
  if (size_t slash = instance_name.find_last_of('/'); slash != std::string::npos) {
    instance_name = instance_name.substr(slash + 1);
  }
  if (instance_name.size() > 4 && instance_name.ends_with(".dat"))
    instance_name.resize(instance_name.size() - 4);

  std::string text;
  if (flags.format == "json") {
    nlohmann::ordered_json j;
    j["instance"] = instance_name;
    j["n"] = instance->n;
    j["cost"] = cost;
    j["lower_bound"] = report->lower_bound.value;
    j["lower_bound_method"] = report->lower_bound.method;
    if (report->gap) j["gap"] = *report->gap;
    j["proven"] = proven;
    j["algorithm"] = report->algorithm;
    j["seconds"] = report->solve_seconds;
    j["permutation"] = one_based;
    text = j.dump(2) + "\n";
  } else {
    text = absl::StrFormat(
        "instance %s\nn %d\ncost %d\nlower_bound %d (%s)\nproven %s\nalgorithm %s\nseconds "
        "%.3f\npermutation %s\n",
        instance_name, instance->n, cost, report->lower_bound.value, report->lower_bound.method,
        proven ? "yes" : "no", report->algorithm, report->solve_seconds,
        absl::StrJoin(one_based, " "));
  }
  std::cout << text;
  return absl::OkStatus();
}

}  // namespace

void AddQapCommand(CLI::App& root, Action& run) {
  auto flags = std::make_shared<QapFlags>();
  CLI::App* cmd = root.add_subcommand(
      "qap",
      "Solve a QAPLIB instance (.dat) with any algorithm: cost, lower bound, permutation "
      "(1-based, as QAPLIB)");
  cmd->add_option("file", flags->file, "QAPLIB .dat file")->required();
  cmd->add_option("--algorithm", flags->algorithm,
                  "Mapping algorithm (see `hopmap algorithms`); exact proves small instances")
      ->capture_default_str();
  cmd->add_option("--time-limit", flags->time_limit, "Budget in seconds for the solve")
      ->capture_default_str();
  cmd->add_option("--seed", flags->seed, "Seed of every random choice")->capture_default_str();
  cmd->add_option("--threads", flags->threads, "Worker threads (0: every hardware thread)")
      ->capture_default_str();
  cmd->add_option("--format", flags->format, "Output: json or text")->capture_default_str();
  cmd->callback([flags, &run] { run = [flags] { return RunQap(*flags); }; });
}

}  // namespace hopmap::cli
