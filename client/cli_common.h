// What the hopmap subcommands share: loading the problem from flags, writing output.
#ifndef HOPMAP_CLIENT_CLI_COMMON_H_
#define HOPMAP_CLIENT_CLI_COMMON_H_

#include <memory>
#include <optional>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "core/graph/task_graph.h"
#include "core/topology/allocation.h"

namespace hopmap::cli {

// The flags that say what to map onto what (map and eval).
struct ProblemFlags {
  bool local = false;
  std::string machine;
  std::string nodes;
  int cores = 0;  // 0: the machine's
  std::string graph;
  std::string graph_format;
  int threads = 0;
};

void AddProblemFlags(CLI::App& app, ProblemFlags& flags);

struct Problem {
  TaskGraph graph;
  std::optional<Allocation> allocation;
};

// Reads the graph and builds the machine and allocation; errors are user errors.
absl::StatusOr<Problem> LoadProblem(const ProblemFlags& flags);

// Writes text to `path` (written to a temporary file and renamed), or stdout if
// path is empty or "-".
absl::Status WriteOutput(const std::string& path, const std::string& text);

}  // namespace hopmap::cli

#endif  // HOPMAP_CLIENT_CLI_COMMON_H_
