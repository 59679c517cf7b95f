#include "sim/runner.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "sim/installed_files.h"
#include "sim/model_codec.h"
#include "sim/subprocess.h"

namespace hopmap::sim {
namespace {

// The last non-empty line of a worker's errors: SimGrid ends with what stopped it.
std::string LastLine(absl::string_view text) {
  absl::string_view last;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) last = line;
  }
  return std::string(last);
}

}  // namespace

absl::StatusOr<std::string> FindSimGridWorker() {
  return FindInstalledFile({.what = "the SimGrid worker hopmap-simgrid",
                            .env = "HOPMAP_SIMGRID_WORKER",
                            .installed = "libexec/hopmap/hopmap-simgrid",
                            .built = HOPMAP_SIMGRID_WORKER_BUILT,
                            .executable = true});
}

NetworkSimulator SimGridSimulator(std::string worker, const std::atomic<bool>* cancelled) {
  return
      [worker = std::move(worker), cancelled](const NetworkModel& model) -> absl::StatusOr<double> {
        if (cancelled != nullptr && cancelled->load()) {
          return absl::CancelledError("the call was cancelled");
        }
        absl::StatusOr<ProcessResult> run =
            RunProcess({worker}, EncodeNetworkModel(model), {}, cancelled);
        if (!run.ok()) return run.status();
        if (run->exit_code != 0) {
          std::string why = LastLine(run->err);
          if (why.empty()) {
            why = run->signal != 0 ? absl::StrCat("ended by signal ", run->signal)
                                   : absl::StrCat("exit code ", run->exit_code);
          }
          return absl::InternalError(absl::StrCat("the SimGrid worker failed: ", why));
        }
        double seconds = 0;
        absl::string_view out = absl::StripAsciiWhitespace(run->out);
        if (!absl::ConsumePrefix(&out, "time_s=") || !absl::SimpleAtod(out, &seconds)) {
          // Whatever it printed instead, short and readable (it may be anything).
          std::string shown = LastLine(run->out).substr(0, 80);
          for (char& c : shown) {
            if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
              c = '?';
          }
          return absl::InternalError(absl::StrCat("the SimGrid worker ", worker,
                                                  " printed no time_s= line (", run->out.size(),
                                                  " bytes of output, ending '", shown, "')"));
        }
        return seconds;
      };
}

}  // namespace hopmap::sim
