// Runs a program to completion: its standard input from a string, its output and
// errors collected. What the simulation runner starts the SimGrid worker and
// smpirun with.
#ifndef HOPMAP_SIM_SUBPROCESS_H_
#define HOPMAP_SIM_SUBPROCESS_H_

#include <atomic>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hopmap::sim {

struct ProcessResult {
  int exit_code = -1;  // -1 when a signal ended it
  int signal = 0;
  std::string out;
  std::string err;
};

// argv[0] is the program's path (not searched in PATH). `env` entries
// ("NAME=VALUE") are added to this process's environment, replacing its own of
// the same names. Fails only when the
// program cannot be started; its exit code is the caller's to judge. Ignores
// SIGPIPE in this process, so that a child that dies before reading all of
// `input` is an error code here, not a signal that ends the caller.
// `cancelled` (may be null) is looked at ten times a second: when it turns true the
// program is killed (SIGKILL) and reaped, and the answer is Cancelled.
absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                         const std::string& input,
                                         const std::vector<std::string>& env = {},
                                         const std::atomic<bool>* cancelled = nullptr);

}  // namespace hopmap::sim

#endif  // HOPMAP_SIM_SUBPROCESS_H_
