// hopmap gen: write a communication pattern as a graph file.
#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/cli_common.h"
#include "client/commands.h"
#include "core/graph/generators.h"
#include "core/io/graph_format.h"

namespace hopmap::cli {
namespace {

struct GenFlags {
  GeneratorOptions options;
  std::string dims;
  std::string output;
  std::string graph_format;
};

absl::Status RunGen(GenFlags flags) {
  if (!flags.dims.empty()) {
    for (absl::string_view part : absl::StrSplit(flags.dims, 'x')) {
      int32_t d = 0;
      if (!absl::SimpleAtoi(part, &d) || d < 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("--dims: expected sizes like 64x64 or 16x16x16, got '", flags.dims, "'"));
      }
      flags.options.dims.push_back(d);
    }
  }
  GraphFormat format = GraphFormat::kEdgeList;
  if (!flags.graph_format.empty()) {
    absl::StatusOr<GraphFormat> f = ParseGraphFormat(flags.graph_format);
    if (!f.ok()) return f.status();
    format = *f;
  } else if (!flags.output.empty() && flags.output != "-") {
    absl::StatusOr<GraphFormat> f = GraphFormatFromPath(flags.output);
    if (!f.ok()) return f.status();
    format = *f;
  }
  absl::StatusOr<TaskGraph> graph = GenerateGraph(flags.options);
  if (!graph.ok()) return graph.status();
  return WriteOutput(flags.output, FormatGraph(*graph, format));
}

}  // namespace

void AddGenCommand(CLI::App& root, Action& run) {
  auto flags = std::make_shared<GenFlags>();
  std::string kinds;
  for (const GeneratorKind& k : GeneratorKinds()) {
    absl::StrAppend(&kinds, "\n  ", k.name, ": ", k.help);
  }
  CLI::App* cmd = root.add_subcommand(
      "gen", "Generate a communication graph (a stencil, a collective, ...) as a graph file");
  cmd->footer(absl::StrCat("KIND is one of:", kinds));
  cmd->add_option("kind", flags->options.kind, "Pattern to generate (listed above)")->required();
  cmd->add_option("--dims", flags->dims, "Grid dims for stencils and fft2d, e.g. 64x64");
  cmd->add_flag("--wrap", flags->options.wrap, "Stencils: periodic boundaries");
  cmd->add_option("--bytes", flags->options.bytes,
                  "Bytes per message (not training: its bytes are per step, from the job)")
      ->capture_default_str();
  cmd->add_option("--tasks", flags->options.tasks,
                  "Number of tasks (ring, recursive-doubling, binomial-tree, bruck, "
                  "random-geometric); training: the GPU count the job must fill");
  cmd->add_option("--job", flags->options.job,
                  "training: the job, KEY=VALUE,... with keys tp pp dp cp ep gpus hidden layers "
                  "seq micro-batch-size micro-batches vocab dtype grad-dtype experts moe-topk "
                  "moe-ffn-hidden (docs/gpu.md)");
  cmd->add_option("--radius", flags->options.radius,
                  "random-geometric: connection radius in the unit square (0: mean degree ~8)")
      ->capture_default_str();
  cmd->add_option("--seed", flags->options.seed, "random-geometric: seed")->capture_default_str();
  cmd->add_option("--output,-o", flags->output,
                  "Output file; its extension picks the format (default: edge list on stdout)");
  cmd->add_option("--graph-format", flags->graph_format,
                  "Output format: mm, metis, scotch, edgelist, dense");
  cmd->callback([flags, &run] { run = [flags] { return RunGen(*flags); }; });
}

}  // namespace hopmap::cli
