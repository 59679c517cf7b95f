// What the hopmap subcommands share: loading the problem from flags, writing output.
#ifndef HOPMAP_CLIENT_CLI_COMMON_H_
#define HOPMAP_CLIENT_CLI_COMMON_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "core/graph/task_graph.h"
#include "core/topology/allocation.h"

namespace hopmap::cli {

// How to reach hopmapd (map, eval, machines). Empty fields fall back to the
// environment: HOPMAP_SERVER, HOPMAP_TOKEN, HOPMAP_TLS_CA.
struct RemoteFlags {
  std::string server;  // --server: HOST:PORT or unix:PATH
  std::string token;   // --token
  std::string tls_ca;  // --tls-ca: PEM file of the CA of hopmapd's certificate
};

// Adds --server, --token and --tls-ca; `local` (may be null) is the command's
// --local flag, which --server excludes.
void AddRemoteFlags(CLI::App& app, RemoteFlags& flags, CLI::Option* local);

// Where a command runs: in this process, or through hopmapd.
enum class Mode { kLocal, kRemote };

// --local, or --server (or HOPMAP_SERVER when --local is not given): fills the
// server, token and CA file from the environment where the flags left them empty.
// Neither: FailedPrecondition "--local is required without a daemon: use --local or
// --server ADDR ...".
absl::StatusOr<Mode> ResolveMode(bool local, RemoteFlags& remote);
// Only the environment fallbacks of ResolveMode (commands without --local).
void ApplyRemoteEnvironment(RemoteFlags& remote);

// The flags that say what to map onto what (map and eval).
struct ProblemFlags {
  bool local = false;
  RemoteFlags remote;
  std::string machine;
  std::string nodes;
  int cores = 0;  // 0: the machine's
  std::string graph;
  std::string graph_format;
  int threads = 0;
};

// Adds the problem flags, --local and the RemoteFlags.
// Option checks whose messages name what is wanted (CLI11's NonNegativeNumber
// prints the whole of DBL_MAX and says "not in range" of a word).
CLI::Validator NonNegativeInteger();
CLI::Validator NonNegativeReal();

void AddProblemFlags(CLI::App& app, ProblemFlags& flags);

struct Problem {
  TaskGraph graph;
  std::optional<Allocation> allocation;
};

// Reads the graph and builds the machine and allocation (--local); errors are user
// errors.
absl::StatusOr<Problem> LoadProblem(const ProblemFlags& flags);

// The machine of --machine and the allocation of --nodes/--cores, built here.
// `machine` null: parsed from flags.machine (ParseMachineSpec; its warnings are
// printed on stderr).
absl::StatusOr<Allocation> BuildAllocation(const ProblemFlags& flags,
                                           std::shared_ptr<Machine> machine = nullptr);

// Prints a machine model's warnings on stderr, one "hopmap: warning:" line each
// (control characters escaped: the names come from the user's files).
void PrintWarnings(const Machine& machine);

// Writes text to `path` (written to a temporary file and renamed), or stdout if
// path is empty or "-".
absl::Status WriteOutput(const std::string& path, const std::string& text);

// A text table for people: each column as wide as its widest cell (the header row
// included), two spaces between columns, cells left-aligned or right-aligned where
// `right_aligned[column]` is true; the last column is not padded. Widths count
// characters (UTF-8), not bytes. Every row ends with a newline.
std::string FormatTable(const std::vector<std::vector<std::string>>& rows,
                        const std::vector<bool>& right_aligned = {});

}  // namespace hopmap::cli

#endif  // HOPMAP_CLIENT_CLI_COMMON_H_
