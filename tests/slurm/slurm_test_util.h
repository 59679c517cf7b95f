// What the Slurm tests share: running shell commands, and
// reading what a batch job printed ("job ID", "hostfile: NODE" lines and srun -l's
// "RANK: TEXT" lines).
#ifndef HOPMAP_TESTS_SLURM_SLURM_TEST_UTIL_H_
#define HOPMAP_TESTS_SLURM_SLURM_TEST_UTIL_H_

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tests/scaleout/child_process.h"  // FreePort

namespace hopmap::testing {

// The standard output of a shell command.
inline std::string Output(const std::string& command) {
  std::string text;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return text;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) text.append(buffer, n);
  pclose(pipe);
  return text;
}

inline int Shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// What a batch job printed: its hostfile (if any) and, per rank, what srun -l
// printed for it.
struct JobOutput {
  int job_id = -1;
  int printed_job_id = -1;
  std::vector<std::string> hostfile;
  std::map<int, std::string> node_of_rank;
  std::string text;
};

inline void ParseJobOutput(const std::string& text, JobOutput& job) {
  job.text = text;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (absl::ConsumePrefix(&line, "job ")) {
      (void)absl::SimpleAtoi(line, &job.printed_job_id);
    } else if (absl::ConsumePrefix(&line, "hostfile: ")) {
      job.hostfile.emplace_back(line);
    } else {
      // srun -l: "RANK: TEXT"
      std::vector<std::string> parts = absl::StrSplit(line, absl::MaxSplits(": ", 1));
      int rank = -1;
      if (parts.size() == 2 && absl::SimpleAtoi(parts[0], &rank)) {
        job.node_of_rank[rank] = parts[1];
      }
    }
  }
}

// Waits (120 s at most) until `job_id` has left the queue; `env` prefixes the
// squeue command (SLURM_CONF=..., PATH=...). False if it did not.
inline bool WaitForJob(const std::string& env, int job_id) {
  // sbatch --wait polls at up to 10 s intervals; squeue every 0.1 s is faster.
  for (int i = 0; i < 1200; ++i) {
    if (Output(absl::StrCat(env, "squeue -h -j ", job_id, " -o %T 2>/dev/null")).empty()) {
      return true;
    }
    usleep(100'000);
  }
  return false;
}

}  // namespace hopmap::testing

#endif  // HOPMAP_TESTS_SLURM_SLURM_TEST_UTIL_H_
