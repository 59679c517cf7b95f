#include "client/cli_common.h"

#include <cstdio>
#include <fstream>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "core/io/graph_format.h"
#include "core/io/machine_spec.h"

namespace hopmap::cli {

void AddProblemFlags(CLI::App& app, ProblemFlags& flags) {
  app.add_flag("--local", flags.local,
               "Run in this process (required for now: the daemon client comes with hopmapd)");
  app.add_option("--machine", flags.machine,
                 "Machine: a catalog name (see `hopmap machines`) or a spec such as "
                 "torus:25x16x24:cores=12, mesh:32x32, fattree:64x64, chipmesh:4x4, "
                 "dragonfly:G,A,P, slurm:FILE, graph:FILE, matrix:FILE")
      ->required();
  app.add_option("--nodes", flags.nodes,
                 "Allocated nodes in order: ids and ranges (0-99,200-299), a Slurm hostlist "
                 "(nid[00012-00100,00200]) or @FILE with one per line; default: the whole "
                 "machine");
  app.add_option("--cores", flags.cores, "Cores (slots) per node; default: the machine's")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--graph", flags.graph,
                 "Task graph file: Matrix Market (.mtx), METIS (.graph), Scotch (.grf), edge "
                 "list (.edgelist/.txt) or dense matrix (.csv)")
      ->required();
  app.add_option("--graph-format", flags.graph_format,
                 "Graph format when the extension does not say: mm, metis, scotch, edgelist, "
                 "dense");
  app.add_option("--threads", flags.threads, "Worker threads; 0 = all hardware threads")
      ->check(CLI::NonNegativeNumber);
}

absl::StatusOr<Problem> LoadProblem(const ProblemFlags& flags) {
  if (!flags.local) {
    return absl::FailedPreconditionError(
        "--local is required: this build of hopmap runs mappings in-process only (the "
        "hopmapd daemon client is not available yet)");
  }
  std::optional<GraphFormat> format;
  if (!flags.graph_format.empty()) {
    absl::StatusOr<GraphFormat> f = ParseGraphFormat(flags.graph_format);
    if (!f.ok()) return f.status();
    format = *f;
  }
  absl::StatusOr<std::shared_ptr<Machine>> machine = ParseMachineSpec(flags.machine);
  if (!machine.ok()) return machine.status();
  for (const std::string& warning : (*machine)->warnings()) {
    std::cerr << "hopmap: warning: " << warning << "\n";
  }
  absl::StatusOr<TaskGraph> graph = ReadGraph(flags.graph, format);
  if (!graph.ok()) return graph.status();
  const int32_t cores = flags.cores > 0 ? flags.cores : (*machine)->cores_per_node();
  absl::StatusOr<Allocation> allocation;
  if (flags.nodes.empty()) {
    std::vector<NodeId> all((*machine)->num_nodes());
    for (NodeId i = 0; i < (*machine)->num_nodes(); ++i) all[i] = i;
    allocation = Allocation::Create(*machine, std::move(all), cores);
  } else {
    absl::StatusOr<std::vector<NodeId>> nodes = ReadNodeSelection(flags.nodes, **machine);
    if (!nodes.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--nodes: ", nodes.status().message()));
    }
    allocation = Allocation::Create(*machine, *std::move(nodes), cores);
  }
  if (!allocation.ok()) return allocation.status();
  Problem problem;
  problem.graph = *std::move(graph);
  problem.allocation.emplace(*std::move(allocation));
  return problem;
}

absl::Status WriteOutput(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    if (!std::cout) return absl::DataLossError("cannot write to standard output");
    return absl::OkStatus();
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return absl::PermissionDeniedError(absl::StrCat(path, ": cannot open for writing"));
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return absl::DataLossError(absl::StrCat(path, ": write failed"));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return absl::PermissionDeniedError(absl::StrCat(path, ": cannot rename into place"));
  }
  return absl::OkStatus();
}

}  // namespace hopmap::cli
