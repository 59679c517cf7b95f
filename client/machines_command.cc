// hopmap machines / hopmap algorithms: what this hopmap (or a hopmapd) knows;
// hopmap machines add|remove: change a hopmapd's catalog.
#include <algorithm>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/cli_common.h"
#include "client/commands.h"
#include "client/remote.h"
#include "core/balance/balancers.h"
#include "core/io/machine_spec.h"
#include "core/io/slurm_topology_machine.h"
#include "core/mappers/mapper.h"
#include "core/simulate/network_model.h"
#include "core/topology/catalog.h"
#include "nlohmann/json.hpp"
#include "proto/convert/convert.h"

namespace hopmap::cli {
namespace {

// --format of machines and algorithms: text (tables for people) or json (for scripts).
absl::Status CheckListingFormat(const std::string& format) {
  if (format == "text" || format == "json") return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--format: unknown format '", format, "' (known: text, json)"));
}

// The figures of each link class (a GPU cluster's nvlink, rail, spine), in the
// order the classes first appear; empty when the machine's links are all alike.
struct LinkClassFigures {
  std::string link_class;
  int64_t links = 0;
  double min_bandwidth = 0, max_bandwidth = 0;  // bytes/s per direction
  double latency = 0;                           // seconds, the first link's
};
std::vector<LinkClassFigures> FiguresByLinkClass(const Machine& m) {
  std::vector<LinkClassFigures> figures;
  for (int64_t link = 0; link < m.num_links(); ++link) {
    const std::string link_class = m.LinkClass(link);
    if (link_class.empty()) continue;
    const double bandwidth = m.LinkBandwidthOf(link).value_or(kDefaultLinkBandwidth);
    auto it = std::find_if(figures.begin(), figures.end(),
                           [&](const LinkClassFigures& f) { return f.link_class == link_class; });
    if (it == figures.end()) {
      figures.push_back({link_class, 0, bandwidth, bandwidth,
                         m.LinkLatencyOf(link).value_or(kDefaultLinkLatency)});
      it = figures.end() - 1;
    }
    ++it->links;
    it->min_bandwidth = std::min(it->min_bandwidth, bandwidth);
    it->max_bandwidth = std::max(it->max_bandwidth, bandwidth);
  }
  return figures;
}

std::string DescribeLinkClasses(const std::vector<LinkClassFigures>& figures) {
  std::string text;
  for (const LinkClassFigures& f : figures) {
    const std::string bandwidth =
        f.min_bandwidth == f.max_bandwidth
            ? absl::StrFormat("%.4g GB/s", f.min_bandwidth / 1e9)
            : absl::StrFormat("%.4g to %.4g GB/s", f.min_bandwidth / 1e9, f.max_bandwidth / 1e9);
    absl::StrAppend(&text, absl::StrFormat("  %-10s %d links, %s per direction, %.4g ns\n",
                                           f.link_class, f.links, bandwidth, f.latency * 1e9));
  }
  return text;
}

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
  const std::vector<LinkClassFigures> by_class = FiguresByLinkClass(m);
  if (!by_class.empty()) {
    // Each class its own figures (docs/simulate.md, "Link classes").
    absl::StrAppend(&text, "link classes\n", DescribeLinkClasses(by_class));
  } else if (m.num_links() > 0) {
    // What hopmap simulate builds the network from (docs/simulate.md).
    absl::StrAppend(
        &text, absl::StrFormat("link speed   %.4g GB/s per direction%s\nlink delay   %.4g ns%s\n",
                               m.link_bandwidth().value_or(kDefaultLinkBandwidth) / 1e9,
                               m.link_bandwidth() ? "" : " (simulate's default)",
                               m.link_latency().value_or(kDefaultLinkLatency) * 1e9,
                               m.link_latency() ? "" : " (simulate's default)"));
  }
  if (const std::vector<NodeId> nodes = m.AllocatableNodes(); !nodes.empty()) {
    absl::StrAppend(&text, "node names   ", m.NodeName(nodes.front()), " .. ",
                    m.NodeName(nodes.back()), "\n");
  }
  if (const NodeInterior* n = m.node_interior().get()) {
    // The levels inside a node, lowest first, and what a unit costs across each.
    absl::StrAppend(&text,
                    absl::StrFormat("inside node  %d PEs in %d package%s%s%s\n", n->num_pes(),
                                    n->num_packages(), n->num_packages() == 1 ? "" : "s",
                                    n->source().empty() ? "" : ", from ", n->source()));
    for (size_t i = 0; i < n->arities().size(); ++i) {
      absl::StrAppend(&text, absl::StrFormat("  level %d    %-8s x%-5d distance %d\n", i + 1,
                                             n->names()[i], n->arities()[i], n->distances()[i]));
    }
    absl::StrAppend(&text,
                    absl::StrFormat("os cpus      %s (map-cpu binds to these)\n", n->OsCpuList()));
    absl::StrAppend(&text, absl::StrFormat("hop cost     %d per network hop\n", n->hop_cost()));
  }
  return text;
}

std::vector<int32_t> OsCpusOf(const NodeInterior& n) {
  std::vector<int32_t> cpus;
  for (int32_t pe = 0; pe < n.num_pes(); ++pe) cpus.push_back(n.OsCpuOf(pe));
  return cpus;
}

// The same fields as the text, by name; `description` only where there is one.
nlohmann::ordered_json DescribeJson(const std::string& name, const Machine& m,
                                    const std::string& description) {
  nlohmann::ordered_json j;
  j["name"] = name;
  j["spec"] = m.Spec();
  j["kind"] = std::string(m.kind());
  j["nodes"] = m.num_nodes();
  j["cores_per_node"] = m.cores_per_node();
  j["diameter_hops"] = m.max_hops();
  j["min_hops"] = m.min_hops();
  j["links"] = m.num_links();
  const std::vector<LinkClassFigures> by_class = FiguresByLinkClass(m);
  if (!by_class.empty()) {
    nlohmann::ordered_json classes = nlohmann::ordered_json::array();
    for (const LinkClassFigures& f : by_class) {
      classes.push_back({{"class", f.link_class},
                         {"links", f.links},
                         {"min_bandwidth", f.min_bandwidth},
                         {"max_bandwidth", f.max_bandwidth},
                         {"latency", f.latency}});
    }
    j["link_classes"] = std::move(classes);
  } else if (m.num_links() > 0) {
    j["link_bandwidth"] = m.link_bandwidth().value_or(kDefaultLinkBandwidth);
    j["link_latency"] = m.link_latency().value_or(kDefaultLinkLatency);
    j["link_parameters"] = m.link_bandwidth() && m.link_latency() ? "spec" : "default";
  }
  if (!m.dims().empty()) {
    j["dims"] = m.dims();
    j["dim_names"] = m.dim_names();
  }
  if (const std::vector<NodeId> nodes = m.AllocatableNodes(); !nodes.empty()) {
    j["first_node"] = m.NodeName(nodes.front());
    j["last_node"] = m.NodeName(nodes.back());
  }
  if (const NodeInterior* n = m.node_interior().get()) {
    nlohmann::ordered_json levels = nlohmann::ordered_json::array();
    for (size_t i = 0; i < n->arities().size(); ++i) {
      levels.push_back(
          {{"name", n->names()[i]}, {"arity", n->arities()[i]}, {"distance", n->distances()[i]}});
    }
    j["node_interior"] = {{"pes", n->num_pes()},         {"packages", n->num_packages()},
                          {"levels", std::move(levels)}, {"hop_cost", n->hop_cost()},
                          {"os_cpus", OsCpusOf(*n)},     {"source", n->source()}};
  }
  if (!description.empty()) j["description"] = description;
  return j;
}

// What a machine read from a Slurm topology adds: the topology, its network piece by
// piece, its hosts.
std::string DescribeSlurm(const SlurmTopologySummary& s) {
  std::string text = absl::StrFormat("topology     %s (%s plugin) of %s %s%s\nnetwork      %s\n",
                                     s.topology, SlurmTopologyKindName(s.plugin), s.format, s.path,
                                     s.cluster_default ? ", the file's default" : "", s.network);
  for (const SlurmTopologyPart& part : s.parts) {
    std::vector<std::string> cells;
    for (const std::string* cell : {&part.name, &part.detail, &part.nodes}) {
      if (!cell->empty()) cells.push_back(*cell);
    }
    absl::StrAppend(&text, absl::StrFormat("%-12s %s\n", part.what, absl::StrJoin(cells, "  ")));
  }
  absl::StrAppend(&text, absl::StrFormat("hosts        %d: %s\n", s.hosts, s.host_names));
  if (s.vacant_cells > 0) {
    absl::StrAppend(&text, absl::StrFormat("vacant       %d cells without a host (not allocated)\n",
                                           s.vacant_cells));
  }
  return text;
}

nlohmann::ordered_json DescribeSlurmJson(const SlurmTopologySummary& s) {
  nlohmann::ordered_json parts = nlohmann::ordered_json::array();
  for (const SlurmTopologyPart& part : s.parts) {
    parts.push_back(
        {{"what", part.what}, {"name", part.name}, {"detail", part.detail}, {"nodes", part.nodes}});
  }
  return {{"file", s.path},
          {"format", s.format},
          {"topology", s.topology},
          {"plugin", std::string(SlurmTopologyKindName(s.plugin))},
          {"cluster_default", s.cluster_default},
          {"network", s.network},
          {"parts", std::move(parts)},
          {"hosts", s.hosts},
          {"host_names", s.host_names},
          {"vacant_cells", s.vacant_cells}};
}

// `slurm`: the Slurm topology the machine was read from, or null.
absl::Status WriteDescription(const std::string& name, const Machine& m,
                              const std::string& description, const std::string& format,
                              const SlurmTopologySummary* slurm = nullptr) {
  if (format == "json") {
    nlohmann::ordered_json j = DescribeJson(name, m, description);
    if (slurm != nullptr) j["slurm_topology"] = DescribeSlurmJson(*slurm);
    return WriteOutput("", j.dump(2) + "\n");
  }
  std::string text = Describe(name, m);
  if (slurm != nullptr) absl::StrAppend(&text, DescribeSlurm(*slurm));
  if (!description.empty()) absl::StrAppend(&text, "description  ", description, "\n");
  return WriteOutput("", text);
}

// One listing for the built-in catalog and a daemon's, in the daemon's order (by
// name), so --local and --server print the same: a table, or
// {"machines": [{"name", "spec", "nodes", "cores_per_node", "origin", "description"}]}.
absl::Status WriteMachineList(std::vector<v1::MachineSummary> machines, const std::string& format) {
  std::sort(
      machines.begin(), machines.end(),
      [](const v1::MachineSummary& a, const v1::MachineSummary& b) { return a.name() < b.name(); });
  if (format == "json") {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const v1::MachineSummary& m : machines) {
      list.push_back({{"name", m.name()},
                      {"spec", m.spec()},
                      {"nodes", m.num_nodes()},
                      {"cores_per_node", m.cores_per_node()},
                      {"origin", m.origin()},
                      {"description", m.description()}});
    }
    nlohmann::ordered_json j;
    j["machines"] = std::move(list);
    return WriteOutput("", j.dump(2) + "\n");
  }
  // Columns as wide as their widest cell, every cell left-aligned: a long spec
  // pushes the columns after it right, and each value still starts under its header.
  std::vector<std::vector<std::string>> rows = {
      {"NAME", "SPEC", "NODES", "CORES", "ORIGIN", "DESCRIPTION"}};
  for (const v1::MachineSummary& m : machines) {
    rows.push_back({m.name(), m.spec(), absl::StrCat(m.num_nodes()),
                    absl::StrCat(m.cores_per_node()), m.origin(), m.description()});
  }
  const std::string text = FormatTable(rows);
  return WriteOutput("", text);
}

absl::Status ListBuiltinMachines(const std::string& format) {
  std::vector<v1::MachineSummary> machines;
  for (const CatalogEntry& e : BuiltinCatalog()) {
    absl::StatusOr<std::shared_ptr<Machine>> m = ParseMachineSpec(e.spec);
    if (!m.ok()) return m.status();
    // The machine's own spec, as hopmapd lists it (the entry's may be written
    // differently: 425e6 for 4.25e+08).
    machines.push_back(MachineSummaryToProto(e.name, e.description, "builtin", **m));
  }
  return WriteMachineList(std::move(machines), format);
}

absl::Status DescribeLocal(const std::string& spec, const std::string& format) {
  absl::StatusOr<std::shared_ptr<Machine>> m = ParseMachineSpec(spec);
  if (!m.ok()) return m.status();
  // A catalog name is described with its entry's description, as hopmapd does.
  const CatalogEntry* entry = FindCatalogEntry(spec);
  absl::StatusOr<std::optional<SlurmTopologySummary>> slurm = DescribeSlurmTopologySpec(spec);
  if (!slurm.ok()) return slurm.status();
  return WriteDescription(spec, **m, entry != nullptr ? entry->description : "", format,
                          slurm->has_value() ? &**slurm : nullptr);
}

struct MachinesFlags {
  bool local = false;
  RemoteFlags remote;
  std::string spec;         // machines [SPEC]
  std::string file;         // machines add --file
  std::string remove_name;  // machines remove NAME
  std::string format = "text";
};

absl::Status ListRemoteMachines(client::HopmapClient& client, const std::string& format) {
  absl::StatusOr<std::vector<v1::MachineSummary>> machines = client.ListMachines();
  if (!machines.ok()) return OneLine(machines.status());
  return WriteMachineList(*std::move(machines), format);
}

// A name is the daemon's (GetMachine); a spec with ':' is the same here as there.
absl::Status DescribeRemote(client::HopmapClient& client, const std::string& spec,
                            const std::string& format) {
  if (spec.find(':') != std::string::npos) return DescribeLocal(spec, format);
  absl::StatusOr<v1::Machine> machine = client.GetMachine(spec);
  if (!machine.ok()) return OneLine(machine.status());
  absl::StatusOr<std::shared_ptr<Machine>> model = MachineFromProto(*machine);
  if (!model.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("machine '", spec, "' from hopmapd: ", model.status().message()));
  }
  return WriteDescription(spec, **model, machine->description(), format);
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
  if (absl::Status s = CheckListingFormat(flags.format); !s.ok()) return s;
  if (!flags.local) ApplyRemoteEnvironment(flags.remote);
  if (flags.local || flags.remote.server.empty()) {
    return flags.spec.empty() ? ListBuiltinMachines(flags.format)
                              : DescribeLocal(flags.spec, flags.format);
  }
  absl::StatusOr<std::unique_ptr<client::HopmapClient>> client = ConnectRemote(flags.remote);
  if (!client.ok()) return client.status();
  return flags.spec.empty() ? ListRemoteMachines(**client, flags.format)
                            : DescribeRemote(**client, flags.spec, flags.format);
}

struct AlgorithmsFlags {
  bool local = false;
  RemoteFlags remote;
  std::string format = "text";
};

// This hopmap's algorithms, or hopmapd's with --server (or HOPMAP_SERVER, unless
// --local): a table, or {"algorithms": [{"name", "kind", "applies_to", "description"}]}.
absl::Status RunAlgorithms(AlgorithmsFlags& flags) {
  if (absl::Status s = CheckListingFormat(flags.format); !s.ok()) return s;
  if (!flags.local) ApplyRemoteEnvironment(flags.remote);
  std::vector<v1::AlgorithmSummary> algorithms;
  if (flags.local || flags.remote.server.empty()) {
    const v1::ListAlgorithmsReply builtin = BuiltinAlgorithms();
    algorithms.assign(builtin.algorithms().begin(), builtin.algorithms().end());
  } else {
    absl::StatusOr<std::unique_ptr<client::HopmapClient>> client = ConnectRemote(flags.remote);
    if (!client.ok()) return client.status();
    absl::StatusOr<std::vector<v1::AlgorithmSummary>> listed = (*client)->ListAlgorithms();
    if (!listed.ok()) return OneLine(listed.status());
    algorithms = *std::move(listed);
  }
  if (flags.format == "json") {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const v1::AlgorithmSummary& a : algorithms) {
      list.push_back({{"name", a.name()},
                      {"kind", a.kind()},
                      {"applies_to", a.applies_to()},
                      {"description", a.description()}});
    }
    nlohmann::ordered_json j;
    j["algorithms"] = std::move(list);
    return WriteOutput("", j.dump(2) + "\n");
  }
  std::string text;
  bool balancers_started = false;
  for (const v1::AlgorithmSummary& a : algorithms) {
    if (a.kind() == "balancer" && !balancers_started) {
      balancers_started = true;
      absl::StrAppend(&text,
                      "\nLoad balancing (map --balance, --loads, ...: many objects per slot):\n");
    }
    absl::StrAppend(&text, absl::StrFormat("%-12s %s\n", a.name(), a.description()));
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
  cmd->add_option("--format", flags->format,
                  "text (a table or a description) or json (the same fields, for scripts)")
      ->default_str("text");
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
  auto flags = std::make_shared<AlgorithmsFlags>();
  CLI::App* cmd = root.add_subcommand(
      "algorithms",
      "List the mapping algorithms and the load balancers (this hopmap's, or hopmapd's with "
      "--server)");
  CLI::Option* local = cmd->add_flag("--local", flags->local,
                                     "This hopmap's algorithms even when HOPMAP_SERVER is set");
  AddRemoteFlags(*cmd, flags->remote, local);
  cmd->add_option("--format", flags->format,
                  "text (a table) or json: name, kind (mapper or balancer), applies_to "
                  "(any-graph, grid, grid2d-on-mesh, small-graph or balance), description")
      ->default_str("text");
  cmd->callback([flags, &run] { run = [flags] { return RunAlgorithms(*flags); }; });
}

}  // namespace hopmap::cli
