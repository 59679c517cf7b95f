// hopmap machines / hopmap algorithms: what this hopmap (or a hopmapd) knows;
// hopmap machines add|remove: change a hopmapd's catalog.
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/cli_common.h"
#include "client/commands.h"
#include "client/remote.h"
#include "core/balance/balancers.h"
#include "core/io/machine_spec.h"
#include "core/mappers/mapper.h"
#include "core/topology/catalog.h"
#include "proto/convert/convert.h"

namespace hopmap::cli {
namespace {

std::string Describe(const std::string& name, const Machine& m) {
  std::string text = absl::StrFormat(
      "name         %s\nspec         %s\nkind         %s\nnodes        %d\n"
      "cores/node   %d\ndiameter     %d hops\nmin hops     %d\nlinks        %d\n",
      name, m.Spec(), std::string(m.kind()), m.num_nodes(), m.cores_per_node(), m.max_hops(),
      m.min_hops(), m.num_links());
  if (!m.dims().empty()) {
    absl::StrAppend(&text, "dims         ", absl::StrJoin(m.dim_names(), "x"), " = ",
                    absl::StrJoin(m.dims(), "x"), "\n");
  }
  if (m.num_nodes() > 0) {
    absl::StrAppend(&text, "node names   ", m.NodeName(0), " .. ", m.NodeName(m.num_nodes() - 1),
                    "\n");
  }
  return text;
}

absl::Status ListBuiltinMachines() {
  std::string text =
      absl::StrFormat("%-15s %-28s %7s %5s  %s\n", "NAME", "SPEC", "NODES", "CORES", "DESCRIPTION");
  for (const CatalogEntry& e : BuiltinCatalog()) {
    absl::StatusOr<std::shared_ptr<Machine>> m = ParseMachineSpec(e.spec);
    if (!m.ok()) return m.status();
    absl::StrAppend(&text,
                    absl::StrFormat("%-15s %-28s %7d %5d  %s\n", e.name, e.spec, (*m)->num_nodes(),
                                    (*m)->cores_per_node(), e.description));
  }
  return WriteOutput("", text);
}

absl::Status DescribeLocal(const std::string& spec) {
  absl::StatusOr<std::shared_ptr<Machine>> m = ParseMachineSpec(spec);
  if (!m.ok()) return m.status();
  return WriteOutput("", Describe(spec, **m));
}

struct MachinesFlags {
  bool local = false;
  RemoteFlags remote;
  std::string spec;         // machines [SPEC]
  std::string file;         // machines add --file
  std::string remove_name;  // machines remove NAME
};

absl::Status ListRemoteMachines(client::HopmapClient& client) {
  absl::StatusOr<std::vector<v1::MachineSummary>> machines = client.ListMachines();
  if (!machines.ok()) return OneLine(machines.status());
  std::string text = absl::StrFormat("%-15s %-28s %7s %5s  %-7s  %s\n", "NAME", "SPEC", "NODES",
                                     "CORES", "ORIGIN", "DESCRIPTION");
  for (const v1::MachineSummary& m : *machines) {
    absl::StrAppend(
        &text, absl::StrFormat("%-15s %-28s %7d %5d  %-7s  %s\n", m.name(), m.spec(), m.num_nodes(),
                               m.cores_per_node(), m.origin(), m.description()));
  }
  return WriteOutput("", text);
}

// A name is the daemon's (GetMachine); a spec with ':' is the same here as there.
absl::Status DescribeRemote(client::HopmapClient& client, const std::string& spec) {
  if (spec.find(':') != std::string::npos) return DescribeLocal(spec);
  absl::StatusOr<v1::Machine> machine = client.GetMachine(spec);
  if (!machine.ok()) return OneLine(machine.status());
  absl::StatusOr<std::shared_ptr<Machine>> model = MachineFromProto(*machine);
  if (!model.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("machine '", spec, "' from hopmapd: ", model.status().message()));
  }
  std::string text = Describe(spec, **model);
  if (!machine->description().empty()) {
    absl::StrAppend(&text, "description  ", machine->description(), "\n");
  }
  return WriteOutput("", text);
}

absl::StatusOr<std::unique_ptr<client::HopmapClient>> ConnectForChange(MachinesFlags& flags,
                                                                       const char* command) {
  ApplyRemoteEnvironment(flags.remote);
  if (flags.remote.server.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("machines ", command,
                     " changes a daemon's catalog: give --server ADDR (or set HOPMAP_SERVER)"));
  }
  return ConnectRemote(flags.remote);
}

absl::Status RunMachinesAdd(MachinesFlags& flags) {
  std::ifstream in(flags.file, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(flags.file, ": cannot open machine file"));
  std::stringstream json;
  json << in.rdbuf();
  absl::StatusOr<v1::Machine> machine = MachineFromJson(json.str(), flags.file);
  if (!machine.ok()) return OneLine(machine.status());
  absl::StatusOr<std::unique_ptr<client::HopmapClient>> client = ConnectForChange(flags, "add");
  if (!client.ok()) return client.status();
  absl::StatusOr<v1::Machine> stored = (*client)->PutMachine(*machine);
  if (!stored.ok()) return OneLine(stored.status());
  return WriteOutput("", absl::StrCat("stored machine '", stored->name(), "' on hopmapd at ",
                                      (*client)->address(), "\n"));
}

absl::Status RunMachinesRemove(MachinesFlags& flags) {
  absl::StatusOr<std::unique_ptr<client::HopmapClient>> client = ConnectForChange(flags, "remove");
  if (!client.ok()) return client.status();
  if (absl::Status s = (*client)->DeleteMachine(flags.remove_name); !s.ok()) return OneLine(s);
  return WriteOutput("", absl::StrCat("removed machine '", flags.remove_name, "' from hopmapd at ",
                                      (*client)->address(), "\n"));
}

// machines [SPEC]: the daemon's catalog with --server (or HOPMAP_SERVER, unless
// --local), else the built-in one.
absl::Status RunMachines(MachinesFlags& flags) {
  if (!flags.local) ApplyRemoteEnvironment(flags.remote);
  if (flags.local || flags.remote.server.empty()) {
    return flags.spec.empty() ? ListBuiltinMachines() : DescribeLocal(flags.spec);
  }
  absl::StatusOr<std::unique_ptr<client::HopmapClient>> client = ConnectRemote(flags.remote);
  if (!client.ok()) return client.status();
  return flags.spec.empty() ? ListRemoteMachines(**client) : DescribeRemote(**client, flags.spec);
}

absl::Status RunAlgorithms() {
  std::string text;
  for (const MapperInfo& info : BuiltinMappers().mappers()) {
    absl::StrAppend(&text, absl::StrFormat("%-12s %s\n", info.name, info.description));
  }
  absl::StrAppend(&text,
                  "\nLoad balancing (map --balance, --loads, ...: many objects per slot):\n");
  for (const BalancerInfo& info : BuiltinBalancers()) {
    absl::StrAppend(&text, absl::StrFormat("%-12s %s\n", info.name, info.description));
  }
  return WriteOutput("", text);
}

}  // namespace

void AddMachinesCommand(CLI::App& root, Action& run) {
  auto flags = std::make_shared<MachinesFlags>();
  CLI::App* cmd = root.add_subcommand(
      "machines",
      "List the machine catalog (built-in, or hopmapd's with --server), or describe one "
      "machine; `machines add` / `machines remove` change hopmapd's catalog");
  CLI::Option* local =
      cmd->add_flag("--local", flags->local, "The built-in catalog even when HOPMAP_SERVER is set");
  AddRemoteFlags(*cmd, flags->remote, local);
  cmd->add_option("spec", flags->spec,
                  "A catalog name or machine spec to describe (with --server, a name is looked "
                  "up in hopmapd's catalog)");

  CLI::App* add = cmd->add_subcommand(
      "add",
      "Add or replace a machine in hopmapd's catalog (stored by the daemon; needs --server, "
      "and the admin token when hopmapd has one)");
  add->add_option("--file", flags->file,
                  "The machine as JSON of hopmap.v1.Machine (the format of hopmapd's config "
                  "and state files), e.g. {\"name\": \"lab\", \"spec\": \"torus:8x8x8\"}")
      ->required();
  AddRemoteFlags(*add, flags->remote, nullptr);

  CLI::App* remove = cmd->add_subcommand(
      "remove", "Remove a machine that was added to hopmapd's catalog (needs --server)");
  remove->add_option("name", flags->remove_name, "The machine's name")->required();
  AddRemoteFlags(*remove, flags->remote, nullptr);

  cmd->callback([flags, add, remove, &run] {
    if (add->parsed()) {
      run = [flags] { return RunMachinesAdd(*flags); };
    } else if (remove->parsed()) {
      run = [flags] { return RunMachinesRemove(*flags); };
    } else {
      run = [flags] { return RunMachines(*flags); };
    }
  });
}

void AddAlgorithmsCommand(CLI::App& root, Action& run) {
  CLI::App* cmd =
      root.add_subcommand("algorithms", "List the mapping algorithms and the load balancers");
  cmd->callback([&run] { run = [] { return RunAlgorithms(); }; });
}

}  // namespace hopmap::cli
