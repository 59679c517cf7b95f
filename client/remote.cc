#include "client/remote.h"

#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "core/io/graph_format.h"
#include "core/io/machine_kinds.h"
#include "core/io/machine_spec.h"
#include "core/topology/catalog.h"
#include "proto/convert/convert.h"

namespace hopmap::cli {
namespace {

// The kind of a spec that names a local file (a row of the kinds table that
// reads_file: slurm:, graph:, matrix:, ...), else null.
const MachineKind* FileKindOf(const std::string& spec) {
  const size_t colon = spec.find(':');
  if (colon == std::string::npos) return nullptr;
  const MachineKind* kind = FindMachineKind(std::string_view(spec).substr(0, colon));
  return kind != nullptr && kind->reads_file ? kind : nullptr;
}

absl::StatusOr<std::string> ReadText(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open ", what));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read failed"));
  return text.str();
}

// The machine of a file kind as the request carries it: the model parsed here when
// the kind sends one (a GPU cluster, a Slurm topology's switch graph or torus: the
// spec's options and choice decide them), else the file's text, which the daemon
// parses as the kind's reader does.
absl::StatusOr<MachineRef> FileMachineRef(const MachineKind& kind, const Machine& parsed) {
  if (kind.sends_model) {
    std::optional<MachineRef> model = ParsedMachineRef(parsed);
    if (!model.has_value()) {
      return absl::InternalError(absl::StrCat(kind.name, ": no model to send for ", parsed.Spec()));
    }
    if (parsed.node_interior() != nullptr && !model->machine->has_spec()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "machine spec '", parsed.Spec(),
          "': node= cannot travel to hopmapd with a switch graph (the request has no field "
          "for it); map with --local, or leave node= out"));
    }
    return *std::move(model);
  }
  // Spec() is "KIND:PATH", the options peeled off.
  const std::string spec = parsed.Spec();
  const std::string path = spec.substr(spec.find(':') + 1);
  absl::StatusOr<std::string> text = ReadText(path, "machine file");
  if (!text.ok()) return text.status();
  return MachineFileRef(kind.name, *std::move(text), parsed.cores_per_node());
}

// --nodes as one selection string: @FILE's lines without '#' comments and blank
// lines, joined with ','.
absl::StatusOr<std::string> NodeSelectionText(const std::string& arg) {
  if (arg.empty() || arg[0] != '@') return arg;
  absl::StatusOr<std::vector<NodeListItem>> items = ReadNodeListFile(arg.substr(1));
  if (!items.ok()) return items.status();
  std::vector<std::string> parts;
  for (NodeListItem& item : *items) parts.push_back(std::move(item.text));
  return absl::StrJoin(parts, ",");
}

}  // namespace

absl::Status OneLine(const absl::Status& status) {
  if (status.ok()) return status;
  std::string message(status.message());
  if (message.find_first_of("\r\n") == std::string::npos) return status;
  message = absl::StrReplaceAll(message, {{"\r\n", " "}, {"\n", " "}, {"\r", " "}});
  return absl::Status(status.code(), message);
}

absl::StatusOr<std::unique_ptr<client::HopmapClient>> ConnectRemote(const RemoteFlags& remote) {
  client::ConnectOptions options;
  options.address = remote.server;
  options.token = remote.token;
  options.tls_ca_file = remote.tls_ca;
  absl::StatusOr<std::unique_ptr<client::HopmapClient>> client =
      client::HopmapClient::Connect(options);
  if (!client.ok()) return OneLine(client.status());
  return client;
}

void RemoteProblem::FixReport(MappingReport& report) const {
  if (local_machine != nullptr) report.machine = local_machine->Spec();
}

absl::StatusOr<RemoteProblem> BuildRemoteProblem(const ProblemFlags& flags) {
  std::optional<GraphFormat> format;
  if (!flags.graph_format.empty()) {
    absl::StatusOr<GraphFormat> f = ParseGraphFormat(flags.graph_format);
    if (!f.ok()) return f.status();
    format = *f;
  }
  RemoteProblem problem;
  if (const MachineKind* file_kind = FileKindOf(flags.machine); file_kind != nullptr) {
    // Parsed here for its errors, warnings, options and path, as --local does.
    absl::StatusOr<std::shared_ptr<Machine>> parsed = ParseMachineSpec(flags.machine);
    if (!parsed.ok()) return parsed.status();
    PrintWarnings(**parsed);
    problem.local_machine = *std::move(parsed);
    absl::StatusOr<MachineRef> machine = FileMachineRef(*file_kind, *problem.local_machine);
    if (!machine.ok()) return machine.status();
    problem.machine = *std::move(machine);
  } else {
    problem.machine = MachineRefFromText(flags.machine);
  }

  absl::StatusOr<TaskGraph> graph = ReadGraph(flags.graph, format);
  if (!graph.ok()) return graph.status();
  problem.graph = *std::move(graph);

  if (!flags.nodes.empty()) {
    if (problem.local_machine != nullptr) {
      // The machine is at hand: the node list's errors as --local gives them (FILE:LINE).
      absl::StatusOr<std::vector<NodeId>> ids =
          ReadNodeSelection(flags.nodes, *problem.local_machine);
      if (!ids.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("--nodes: ", ids.status().message()));
      }
      if (problem.machine.send_node_ids) problem.node_ids = *std::move(ids);
    }
    if (!problem.machine.send_node_ids) {
      absl::StatusOr<std::string> nodes = NodeSelectionText(flags.nodes);
      if (!nodes.ok()) return nodes.status();
      problem.nodes = *std::move(nodes);
    }
  } else if (problem.machine.send_node_ids) {
    problem.node_ids = problem.local_machine->AllocatableNodes();
  }
  if (flags.cores > 0) problem.cores_per_node = flags.cores;
  return problem;
}

absl::StatusOr<Allocation> RemoteAllocation(const ProblemFlags& flags, const RemoteProblem& problem,
                                            client::HopmapClient& client) {
  if (problem.local_machine != nullptr) return BuildAllocation(flags, problem.local_machine);
  if (problem.machine.machine.has_value() || FindCatalogEntry(flags.machine) != nullptr) {
    return BuildAllocation(flags);
  }
  absl::StatusOr<v1::Machine> machine = client.GetMachine(flags.machine);
  if (!machine.ok()) return OneLine(machine.status());
  absl::StatusOr<std::shared_ptr<Machine>> model = MachineFromProto(*machine);
  if (!model.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("machine '", flags.machine, "' from hopmapd: ", model.status().message()));
  }
  return BuildAllocation(flags, *std::move(model));
}

}  // namespace hopmap::cli
