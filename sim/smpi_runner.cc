#include "sim/smpi_runner.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/metrics/hop_bytes.h"
#include "sim/compute_profile.h"
#include "sim/installed_files.h"
#include "sim/model_codec.h"
#include "sim/subprocess.h"
#include "tbb/parallel_for.h"
#include "tbb/task_arena.h"

namespace hopmap::sim {
namespace {

// A folder under $TMPDIR that goes away with this object, whatever happened.
class TempFolder {
 public:
  TempFolder() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern =
        absl::StrCat(base != nullptr && *base != '\0' ? base : "/tmp", "/hopmap-smpi.XXXXXX");
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempFolder() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

absl::Status WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat(path, ": cannot write"));
  return absl::OkStatus();
}

// SMPI's report line "Simulated time: 0.0123 seconds." (smpi/display-timing).
std::optional<double> SimulatedTime(absl::string_view output) {
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    const size_t at = line.find("Simulated time: ");
    if (at == absl::string_view::npos) continue;
    absl::string_view rest = line.substr(at + 16);
    rest = rest.substr(0, rest.find(' '));
    double seconds = 0;
    if (absl::SimpleAtod(rest, &seconds)) return seconds;
  }
  return std::nullopt;
}

// The line rank 0 of a program linked with hopmap's compute profile prints at
// MPI_Finalize (sim/smpi_compute/hopmap_smpi_compute.c):
//   hopmap-smpi-compute: ranks=N mpi_time_s=S mpi_time_max_s=S compute_s=S collective_s=S
//                        calls=N unmatched=N
void ReadComputeProfileLine(absl::string_view output, SimulationResult& result) {
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    if (!absl::ConsumePrefix(&line, "hopmap-smpi-compute: ")) continue;
    for (absl::string_view field : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
      const std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(field, '=');
      double value = 0;
      if (!absl::SimpleAtod(kv.second, &value)) continue;
      if (kv.first == "mpi_time_s") result.mpi_time_s = value;
      if (kv.first == "compute_s") result.compute_s = value;
      if (kv.first == "collective_s") result.collective_s = value;
      if (kv.first == "unmatched") result.unmatched_calls = static_cast<int64_t>(value);
    }
  }
}

// What went wrong in a run that smpirun may still end with exit code 0: SMPI
// reports an MPI_Abort, a deadlock, or ranks that never reached MPI_Finalize, and
// carries on.
std::optional<std::string> SmpiFailure(absl::string_view log) {
  static constexpr std::pair<const char*, const char*> kSigns[] = {
      {"MPI_Abort was called", "a rank called MPI_Abort"},
      {"Deadlock detected", "the ranks deadlocked"},
      {"Stalling SMPI instance", "not every rank called MPI_Finalize"},
  };
  for (const auto& [sign, meaning] : kSigns) {
    if (absl::StrContains(log, sign)) return std::string(meaning);
  }
  return std::nullopt;
}

// The program's own last lines: not SimGrid's log lines (they start with '[') nor
// the rest of SMPI's timing report.
std::string ProgramLines(absl::string_view text, int count) {
  std::vector<absl::string_view> lines;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '[' || absl::StartsWith(line, "The simulation took") ||
        absl::EndsWith(line, "seconds were actual computation of the application")) {
      continue;
    }
    lines.push_back(line);
  }
  if (lines.size() > static_cast<size_t>(count)) lines.erase(lines.begin(), lines.end() - count);
  return absl::StrJoin(lines, " | ");
}

absl::StatusOr<std::string> FindSmpirun() {
  const char* path = std::getenv("PATH");
  for (absl::string_view dir : absl::StrSplit(path != nullptr ? path : "/usr/bin", ':')) {
    const std::string candidate = absl::StrCat(dir, "/smpirun");
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return absl::NotFoundError(
      "smpirun is not installed (Debian: apt-get install simgrid; bash deploy/install-deps.sh)");
}

// One placement's smpirun, with its files in a folder of its own under `folder`.
absl::StatusOr<SimulationResult> RunPlacement(const SimulateRequest& request,
                                              const MpiProgram& program, const std::string& smpirun,
                                              const std::string& platform,
                                              const std::string& folder, int i,
                                              const SimulationCase& c) {
  const Allocation& allocation = *request.allocation;
  const std::string own_folder = absl::StrCat(folder, "/run-", i);
  std::error_code made;
  if (!std::filesystem::create_directory(own_folder, made)) {
    return absl::InternalError(absl::StrCat(own_folder, ": cannot make: ", made.message()));
  }
  const std::string model_path = absl::StrCat(own_folder, "/model.pb");
  const std::string hostfile = absl::StrCat(own_folder, "/hosts");
  if (absl::Status s = WriteFile(model_path, EncodeNetworkModel(c.model)); !s.ok()) return s;
  std::string hosts;
  for (SlotId slot : c.slot_of_task) {
    absl::StrAppend(&hosts, c.model.hosts[allocation.PositionOfSlot(slot)], "\n");
  }
  if (absl::Status s = WriteFile(hostfile, hosts); !s.ok()) return s;
  std::vector<std::string> argv = {smpirun, "-platform", platform, "-hostfile", hostfile, "-np",
                                   absl::StrCat(c.slot_of_task.size()),
                                   // Compute blocks are not timed: the run's time is
                                   // its communication (and the computation a compute
                                   // profile replays), the same on every run.
                                   "--cfg=smpi/simulate-computation:no",
                                   "--cfg=smpi/host-speed:1Gf", "--cfg=smpi/display-timing:yes",
                                   "--log=root.thres:warning", "--log=smpi.thres:info",
                                   "--log=no_loc"};
  for (const std::string& setting : program.smpi_config) {
    argv.push_back(absl::StrCat("--cfg=", setting));
  }
  argv.push_back(program.path);
  argv.insert(argv.end(), program.args.begin(), program.args.end());
  // smpirun copies the program there once per rank (SMPI's privatization of
  // globals). Its own -tmpdir option loses its argument (SimGrid 3.32's script
  // shifts one word), so the folder goes in through TMPDIR, which it honours.
  absl::StatusOr<ProcessResult> run = RunProcess(
      argv, "",
      {absl::StrCat("HOPMAP_SIMGRID_MODEL=", model_path), absl::StrCat("TMPDIR=", own_folder)});
  if (!run.ok()) return run.status();
  const std::string log = run->out + "\n" + run->err;
  const std::optional<double> seconds = SimulatedTime(log);
  std::optional<std::string> failure = SmpiFailure(log);
  if (!failure.has_value() && run->exit_code != 0) {
    failure = run->signal != 0 ? absl::StrCat("ended by signal ", run->signal)
                               : absl::StrCat("exit code ", run->exit_code);
  }
  if (!failure.has_value() && !seconds.has_value()) failure = "SMPI reported no simulated time";
  if (failure.has_value()) {
    const std::string own = ProgramLines(run->err + "\n" + run->out, 2);
    return absl::FailedPreconditionError(absl::StrCat("smpirun ", program.path, " (", c.mapping,
                                                      ") failed: ", *failure,
                                                      own.empty() ? "" : ": ", own));
  }
  SimulationResult r;
  r.mapping = c.mapping;
  r.time_s = r.total_time_s = *seconds;
  r.hop_bytes = ComputeHopBytes(*request.graph, allocation, c.slot_of_task);
  ReadComputeProfileLine(run->out, r);
  return r;
}

}  // namespace

absl::StatusOr<std::string> FindSmpiPlatform() {
  return FindInstalledFile({.what = "the SMPI platform library",
                            .env = "HOPMAP_SMPI_PLATFORM",
                            .installed = "lib/hopmap/libhopmap_smpi_platform.so",
                            .built = HOPMAP_SMPI_PLATFORM_BUILT,
                            .executable = false});
}

absl::StatusOr<SimulationReport> SimulateMpiProgram(const SimulateRequest& request,
                                                    const MpiProgram& program) {
  if (access(program.path.c_str(), X_OK) != 0) {
    return absl::NotFoundError(absl::StrCat("--mpi ", program.path, ": not an executable program"));
  }
  absl::StatusOr<std::string> smpirun = FindSmpirun();
  if (!smpirun.ok()) return smpirun.status();
  absl::StatusOr<std::string> platform = FindSmpiPlatform();
  if (!platform.ok()) return platform.status();
  absl::StatusOr<std::vector<SimulationCase>> cases =
      BuildSimulationCases(request, /*all_pairs=*/true);
  if (!cases.ok()) return cases.status();
  // Every run of a measuring program writes the same profile.
  const char* profile = std::getenv("HOPMAP_SMPI_COMPUTE");
  if (profile != nullptr && absl::StartsWith(profile, "measure:") && cases->size() > 1) {
    return absl::InvalidArgumentError(
        "HOPMAP_SMPI_COMPUTE=measure: measures in one run: give no --mapping (every "
        "placement's run would write the same profile), then replay it");
  }
  TempFolder folder;
  if (folder.path().empty()) return absl::InternalError("cannot make a temporary folder");

  SimulationReport report = NewSimulationReport(request);
  // The program and its arguments stand where the traffic patterns would.
  report.patterns = {std::filesystem::path(program.path).filename().string()};
  for (const std::string& arg : program.args) report.patterns.push_back(arg);
  report.iterations = 1;
  // Each placement is its own smpirun (one core each), up to request.threads at
  // once; each result goes to its own place, so the report's order is the cases'.
  const int n = static_cast<int>(cases->size());
  std::vector<absl::StatusOr<SimulationResult>> results(n, absl::UnknownError("not run"));
  const int threads =
      request.threads > 0 ? request.threads : static_cast<int>(std::thread::hardware_concurrency());
  tbb::task_arena arena(std::max(1, std::min(threads, n)));
  arena.execute([&] {
    tbb::parallel_for(0, n, [&](int i) {
      results[i] =
          RunPlacement(request, program, *smpirun, *platform, folder.path(), i, (*cases)[i]);
    });
  });
  for (absl::StatusOr<SimulationResult>& result : results) {
    if (!result.ok()) return result.status();  // the first failing placement, in order
    report.simulations.push_back(*std::move(result));
  }
  // The measured profile's one cost per code region, for replay-median.
  if (profile != nullptr && absl::StartsWith(profile, "measure:")) {
    const absl::Status medians = WriteRegionMedians(
        std::string(profile + 8), static_cast<int>((*cases)[0].slot_of_task.size()));
    if (!medians.ok()) {
      return absl::Status(medians.code(),
                          absl::StrCat("the compute profile's medians: ", medians.message()));
    }
  }
  SetRatiosToInOrder(report);
  return report;
}

}  // namespace hopmap::sim
