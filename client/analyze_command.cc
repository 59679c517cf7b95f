// hopmap analyze: the graph's statistics and the regular pattern it follows.
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/cli_common.h"
#include "client/commands.h"
#include "client/remote.h"
#include "core/analysis/graph_stats.h"
#include "core/analysis/pattern.h"
#include "core/io/analysis_json.h"
#include "core/io/graph_format.h"
#include "proto/convert/convert.h"

namespace hopmap::cli {
namespace {

struct AnalyzeFlags {
  bool local = false;
  RemoteFlags remote;
  std::string graph;
  std::string graph_format;
  double weight_threshold = 0.2;
  bool keep_hubs = false;
  std::string format = "json";
  std::string output;
};

std::string TextReport(const GraphStatistics& s, const PatternReport& p) {
  std::string text = absl::StrFormat(
      "tasks            %d\nedges            %d\ntotal_bytes      %d\nself_bytes       %d\n"
      "degree           max %d, mean %.2f\nmax_edge_bytes   %d\npattern          %s\n",
      s.tasks, s.edges, s.total_bytes, s.self_bytes, s.max_degree, s.mean_degree, s.max_edge_bytes,
      p.kind);
  if (p.kind != "none") {
    absl::StrAppend(
        &text, absl::StrFormat("dims             %s%s (%s)\nexplained        %.2f%% of bytes\n"
                               "left out         %d edges, %d bytes\n",
                               absl::StrJoin(p.dims, "x"), p.wrap ? " periodic" : "", p.rank_order,
                               100.0 * p.explained_share, p.edges_left_out, p.bytes_left_out));
  }
  if (!p.hubs.empty())
    absl::StrAppend(&text, "hubs ignored     ", absl::StrJoin(p.hubs, ","), "\n");
  return text;
}

absl::Status RunAnalyze(AnalyzeFlags flags) {
  if (flags.format != "json" && flags.format != "text") {
    return absl::InvalidArgumentError(
        absl::StrCat("--format: unknown format '", flags.format, "' (known: json, text)"));
  }
  AnalyzerOptions options;
  options.weight_threshold = flags.weight_threshold;
  options.ignore_hubs = !flags.keep_hubs;
  if (absl::Status s = options.Validate(); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--threshold: ", s.message()));
  }
  absl::StatusOr<Mode> mode = ResolveMode(flags.local, flags.remote);
  if (!mode.ok()) return mode.status();
  std::optional<GraphFormat> format;
  if (!flags.graph_format.empty()) {
    absl::StatusOr<GraphFormat> f = ParseGraphFormat(flags.graph_format);
    if (!f.ok()) return f.status();
    format = *f;
  }
  absl::StatusOr<TaskGraph> graph = ReadGraph(flags.graph, format);
  if (!graph.ok()) return graph.status();
  GraphStatistics stats;
  PatternReport pattern;
  if (*mode == Mode::kLocal) {
    absl::StatusOr<PatternReport> found = AnalyzePattern(*graph, options);
    if (!found.ok()) return found.status();
    stats = ComputeGraphStatistics(*graph);
    pattern = *std::move(found);
  } else {
    absl::StatusOr<std::unique_ptr<client::HopmapClient>> client = ConnectRemote(flags.remote);
    if (!client.ok()) return client.status();
    v1::AnalyzeRequest request;
    AnalyzeRequestToProto(*graph, options, &request);
    absl::StatusOr<v1::AnalyzeReply> reply = (*client)->Analyze(request);
    if (!reply.ok()) return OneLine(reply.status());
    AnalysisFromProto(*reply, &stats, &pattern);
  }
  if (flags.format == "text") return WriteOutput(flags.output, TextReport(stats, pattern));
  return WriteOutput(flags.output, AnalysisToJson(stats, pattern).dump(2) + "\n");
}

}  // namespace

void AddAnalyzeCommand(CLI::App& root, Action& run) {
  auto flags = std::make_shared<AnalyzeFlags>();
  CLI::App* cmd = root.add_subcommand(
      "analyze",
      "Find the regular pattern of a communication graph (grid stencil, ring, FFT transpose, "
      "collective) and print its statistics, in this process (--local) or through hopmapd");
  CLI::Option* local = cmd->add_flag("--local", flags->local, "Run in this process");
  AddRemoteFlags(*cmd, flags->remote, local);
  cmd->add_option("--graph", flags->graph, "Task graph file (see `hopmap map --help`)")->required();
  cmd->add_option("--graph-format", flags->graph_format,
                  "Graph format when the extension does not say: mm, metis, scotch, edgelist, "
                  "dense");
  cmd->add_option("--threshold", flags->weight_threshold,
                  "Edges lighter than this fraction of the mean edge weight are noise")
      ->capture_default_str();
  cmd->add_flag("--keep-hubs", flags->keep_hubs,
                "Keep the edges of hub ranks (e.g. a rank-0 reduction root) in the search");
  cmd->add_option("--format", flags->format, "json or text")->capture_default_str();
  cmd->add_option("--output,-o", flags->output, "Write to FILE instead of standard output");
  cmd->callback([flags, &run] { run = [flags] { return RunAnalyze(*flags); }; });
}

}  // namespace hopmap::cli
