#include "client/cli_common.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/io/escape.h"
#include "core/io/graph_format.h"
#include "core/io/line_reader.h"
#include "core/io/machine_spec.h"
#include "core/io/object_values.h"

namespace hopmap::cli {

namespace {

std::string Getenv(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace

void AddRemoteFlags(CLI::App& app, RemoteFlags& flags, CLI::Option* local) {
  CLI::Option* server =
      app.add_option("--server", flags.server,
                     "Run through the hopmapd daemon at ADDR: HOST:PORT or unix:PATH, or "
                     "replicas: IP:PORT,IP:PORT,... or dns:///NAME:PORT (calls spread "
                     "round-robin, retried on another when one is down) (default: "
                     "$HOPMAP_SERVER)")
          ->type_name("ADDR");
  if (local != nullptr) server->excludes(local);
  app.add_option("--token", flags.token,
                 "Token for hopmapd, sent as \"authorization: Bearer T\" (default: "
                 "$HOPMAP_TOKEN)")
      ->type_name("TOKEN");
  app.add_option("--tls-ca", flags.tls_ca,
                 "Talk TLS to hopmapd, trusting the CA certificate in this PEM file (default: "
                 "$HOPMAP_TLS_CA; none: plaintext)")
      ->type_name("FILE");
}

void ApplyRemoteEnvironment(RemoteFlags& remote) {
  if (remote.server.empty()) remote.server = Getenv("HOPMAP_SERVER");
  if (remote.token.empty()) remote.token = Getenv("HOPMAP_TOKEN");
  if (remote.tls_ca.empty()) remote.tls_ca = Getenv("HOPMAP_TLS_CA");
}

absl::StatusOr<Mode> ResolveMode(bool local, RemoteFlags& remote) {
  if (local) return Mode::kLocal;
  ApplyRemoteEnvironment(remote);
  if (remote.server.empty()) {
    return absl::FailedPreconditionError(
        "--local is required without a daemon: use --local or --server ADDR (or set "
        "HOPMAP_SERVER)");
  }
  return Mode::kRemote;
}

CLI::Validator NonNegativeInteger() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        int64_t n = 0;
        if (!absl::SimpleAtoi(value, &n) || n < 0) {
          return absl::StrCat("'", value, "' is not an integer from 0 to ",
                              std::numeric_limits<int64_t>::max());
        }
        return "";
      },
      "INT>=0");
}
CLI::Validator NonNegativeReal() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        double x = 0;
        if (!ParseFiniteDecimal(value, &x) || x < 0) {
          return absl::StrCat("'", value, "' is not a number >= 0");
        }
        return "";
      },
      "NUMBER>=0");
}

void AddProblemFlags(CLI::App& app, ProblemFlags& flags) {
  CLI::Option* local =
      app.add_flag("--local", flags.local,
                   "Run in this process (one of --local and --server, or $HOPMAP_SERVER, is "
                   "required)");
  AddRemoteFlags(app, flags.remote, local);
  app.add_option("--machine", flags.machine,
                 "Machine: a catalog name (see `hopmap machines`; with --server, the daemon's "
                 "catalog) or a spec such as torus:25x16x24:cores=12, mesh:32x32, fattree:64x64, "
                 "chipmesh:4x4, dragonfly:G,A,P, hierarchy:4x16x16:distances=1,10,100, "
                 "gpu:HOSTS:gpus=8, gpu-slurm:FILE, gpu-k8s:FILE, slurm:FILE, "
                 "slurm-topology:FILE[:NAME] (a topology of Slurm's topology.yaml or .conf), "
                 "graph:FILE, matrix:FILE (files are read here and sent; docs/formats.md lists "
                 "every kind)")
      ->required();
  app.add_option("--nodes", flags.nodes,
                 "Allocated nodes in order: ids and ranges (0-99,200-299), a Slurm hostlist "
                 "(nid[00012-00100,00200]) or @FILE with one per line; default: the whole "
                 "machine (but a Slurm torus's cells without a host)");
  app.add_option("--cores", flags.cores, "Cores (slots) per node; default: the machine's")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--graph", flags.graph,
                 "Task graph file (read here also with --server): Matrix Market (.mtx), METIS "
                 "(.graph), Scotch (.grf), edge list (.edgelist/.txt) or dense matrix (.csv)")
      ->required();
  app.add_option("--graph-format", flags.graph_format,
                 "Graph format when the extension does not say: mm, metis, scotch, edgelist, "
                 "dense");
  app.add_option("--threads", flags.threads,
                 "Worker threads; 0 = all hardware threads (with --server: the daemon's choice)")
      ->check(NonNegativeInteger());
}

absl::StatusOr<Allocation> BuildAllocation(const ProblemFlags& flags,
                                           std::shared_ptr<Machine> machine) {
  if (machine == nullptr) {
    absl::StatusOr<std::shared_ptr<Machine>> parsed = ParseMachineSpec(flags.machine);
    if (!parsed.ok()) return parsed.status();
    PrintWarnings(**parsed);
    machine = *std::move(parsed);
  }
  const int32_t cores = flags.cores > 0 ? flags.cores : machine->cores_per_node();
  if (flags.nodes.empty()) return Allocation::Create(machine, machine->AllocatableNodes(), cores);
  absl::StatusOr<std::vector<NodeId>> nodes = ReadNodeSelection(flags.nodes, *machine);
  if (!nodes.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--nodes: ", nodes.status().message()));
  }
  return Allocation::Create(machine, *std::move(nodes), cores);
}

absl::StatusOr<Problem> LoadProblem(const ProblemFlags& flags) {
  std::optional<GraphFormat> format;
  if (!flags.graph_format.empty()) {
    absl::StatusOr<GraphFormat> f = ParseGraphFormat(flags.graph_format);
    if (!f.ok()) return f.status();
    format = *f;
  }
  absl::StatusOr<std::shared_ptr<Machine>> machine = ParseMachineSpec(flags.machine);
  if (!machine.ok()) return machine.status();
  PrintWarnings(**machine);
  absl::StatusOr<TaskGraph> graph = ReadGraph(flags.graph, format);
  if (!graph.ok()) return graph.status();
  absl::StatusOr<Allocation> allocation = BuildAllocation(flags, *std::move(machine));
  if (!allocation.ok()) return allocation.status();
  Problem problem;
  problem.graph = *std::move(graph);
  problem.allocation.emplace(*std::move(allocation));
  return problem;
}

void PrintWarnings(const Machine& machine) {
  for (const std::string& warning : machine.warnings()) {
    std::cerr << "hopmap: warning: " << EscapeControlCharacters(warning) << "\n";
  }
}

absl::Status WriteOutput(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    if (!std::cout) return absl::DataLossError("cannot write to standard output");
    return absl::OkStatus();
  }
  return WriteFileAtomically(path, text);
}

namespace {

// Characters of UTF-8 text: every byte but continuation bytes (10xxxxxx).
size_t DisplayWidth(const std::string& text) {
  size_t width = 0;
  for (const char c : text) width += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return width;
}

}  // namespace

std::string FormatTable(const std::vector<std::vector<std::string>>& rows,
                        const std::vector<bool>& right_aligned) {
  std::vector<size_t> width;
  for (const std::vector<std::string>& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], DisplayWidth(row[c]));
  }
  std::string text;
  for (const std::vector<std::string>& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const bool last = c + 1 == width.size();
      const std::string pad(width[c] - DisplayWidth(row[c]), ' ');
      if (c > 0) line += "  ";
      if (c < right_aligned.size() && right_aligned[c]) {
        line += pad + row[c];
      } else {
        line += row[c];
        if (!last) line += pad;
      }
    }
    // A row shorter than the table, or an empty last cell, leaves no trailing blanks.
    while (!line.empty() && line.back() == ' ') line.pop_back();
    text += line + "\n";
  }
  return text;
}

}  // namespace hopmap::cli
