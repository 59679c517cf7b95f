// hopmap convert: rewrite a graph file in another format (e.g. a profiler's edge list
// as a Scotch .grf for a side-by-side run).
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "client/cli_common.h"
#include "client/commands.h"
#include "core/io/graph_format.h"

namespace hopmap::cli {
namespace {

struct ConvertFlags {
  std::string input;
  std::string input_format;
  std::string output;
  std::string output_format;
};

absl::Status RunConvert(const ConvertFlags& flags) {
  std::optional<GraphFormat> in_format;
  if (!flags.input_format.empty()) {
    absl::StatusOr<GraphFormat> f = ParseGraphFormat(flags.input_format);
    if (!f.ok()) return f.status();
    in_format = *f;
  }
  GraphFormat out_format = GraphFormat::kEdgeList;
  if (!flags.output_format.empty()) {
    absl::StatusOr<GraphFormat> f = ParseGraphFormat(flags.output_format);
    if (!f.ok()) return f.status();
    out_format = *f;
  } else if (!flags.output.empty() && flags.output != "-") {
    absl::StatusOr<GraphFormat> f = GraphFormatFromPath(flags.output);
    if (!f.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(f.status().message(), " (name the output format with --to)"));
    }
    out_format = *f;
  }
  absl::StatusOr<TaskGraph> graph = ReadGraph(flags.input, in_format);
  if (!graph.ok()) return graph.status();
  return WriteOutput(flags.output, FormatGraph(*graph, out_format));
}

}  // namespace

void AddConvertCommand(CLI::App& root, Action& run) {
  auto flags = std::make_shared<ConvertFlags>();
  CLI::App* cmd = root.add_subcommand("convert",
                                      "Rewrite a graph file in another format (directions merged; "
                                      "self traffic kept as the format allows)");
  cmd->add_option("input", flags->input, "Graph file to read")->required();
  cmd->add_option("--from", flags->input_format,
                  "Input format: mm, metis, scotch, edgelist, dense (default: by extension)");
  cmd->add_option("--output,-o", flags->output,
                  "Output file; its extension picks the format (default: edge list on stdout)");
  cmd->add_option("--to", flags->output_format,
                  "Output format: mm, metis, scotch, edgelist, dense");
  cmd->callback([flags, &run] { run = [flags] { return RunConvert(*flags); }; });
}

}  // namespace hopmap::cli
