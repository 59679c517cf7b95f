// hopmap machines / hopmap algorithms: what this hopmap knows.
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/cli_common.h"
#include "client/commands.h"
#include "core/io/machine_spec.h"
#include "core/mappers/mapper.h"
#include "core/topology/catalog.h"

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

absl::Status RunMachines(const std::string& spec) {
  if (!spec.empty()) {
    absl::StatusOr<std::shared_ptr<Machine>> m = ParseMachineSpec(spec);
    if (!m.ok()) return m.status();
    return WriteOutput("", Describe(spec, **m));
  }
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

absl::Status RunAlgorithms() {
  std::string text;
  for (const MapperInfo& info : BuiltinMappers().mappers()) {
    absl::StrAppend(&text, absl::StrFormat("%-12s %s\n", info.name, info.description));
  }
  return WriteOutput("", text);
}

}  // namespace

void AddMachinesCommand(CLI::App& root, Action& run) {
  auto spec = std::make_shared<std::string>();
  CLI::App* cmd = root.add_subcommand(
      "machines", "List the built-in machine catalog, or describe one machine spec");
  cmd->add_option("spec", *spec, "A catalog name or machine spec to describe");
  cmd->callback([spec, &run] { run = [spec] { return RunMachines(*spec); }; });
}

void AddAlgorithmsCommand(CLI::App& root, Action& run) {
  CLI::App* cmd = root.add_subcommand("algorithms", "List the mapping algorithms");
  cmd->callback([&run] { run = [] { return RunAlgorithms(); }; });
}

}  // namespace hopmap::cli
