// hopmap eval: measure a given mapping (in this process or through hopmapd).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/balance_flags.h"
#include "client/cli_common.h"
#include "client/commands.h"
#include "client/remote.h"
#include "core/io/mapping_files.h"
#include "core/solve/report.h"
#include "core/solve/report_json.h"
#include "core/solve/solve.h"
#include "proto/convert/convert.h"

namespace hopmap::cli {
namespace {

struct EvalFlags {
  ProblemFlags problem;
  std::string mapping;
  std::string routing = "dimension-order";
  std::string format = "json";
  int busiest_links = 10;
  bool busiest_links_given = false;  // --busiest-links on the command line: text lists them too
  std::string output;
  BalanceFlags balance;
  std::string initial;  // with load balancing: the current placement
};

// How many busiest links the report should name: the JSON's default, or in text
// only when asked for with --busiest-links.
int BusiestLinksWanted(const EvalFlags& flags) {
  return flags.format == "text" && !flags.busiest_links_given ? 0 : flags.busiest_links;
}

std::string TextReport(const MappingReport& r) {
  std::string text = absl::StrFormat(
      "tasks              %d\nslots              %d\nhop_bytes          %d\n"
      "total_bytes        %d\navg_hops_per_byte  %.4f\nmax_dilation       %d\n"
      "lower_bound        %d (%s)\ngap                %s\nbaseline_hop_bytes %d (%s)\n"
      "improvement        %.2f%%\n",
      r.tasks, r.slots, r.hop_bytes, r.total_bytes, r.avg_hops_per_byte, r.max_dilation,
      r.lower_bound.value, r.lower_bound.method,
      r.gap ? absl::StrFormat("%.4f", *r.gap) : std::string("n/a"), r.baseline_hop_bytes,
      !r.balance.has_value()   ? "in-order"
      : r.balance->has_current ? "current"
                               : "block",
      100.0 * r.improvement);
  if (r.node_cost.has_value()) {
    absl::StrAppend(&text,
                    absl::StrFormat("hop_cost           %d\nnode_cost          %d\n"
                                    "full_cost          %d (baseline %d)\n",
                                    r.node_cost->hop_cost, r.node_cost->node_cost,
                                    r.node_cost->full_cost, r.node_cost->baseline_full_cost));
  }
  if (r.balance.has_value()) {
    const LoadBalanceReport& b = *r.balance;
    absl::StrAppend(
        &text,
        absl::StrFormat("avg_load           %.6g\nmax_load           %.6g "
                        "(max/avg %.4f, cap %.6g: %s)\n",
                        b.avg_load, b.max_load, b.avg_load > 0 ? b.max_load / b.avg_load : 0.0,
                        b.requested_cap, b.balanced ? "balanced" : "NOT balanced"));
    if (b.has_current) {
      absl::StrAppend(&text, absl::StrFormat("migrated_objects   %d (%d bytes)\n",
                                             b.migrated_objects, b.migrated_bytes));
    }
    if (!b.note.empty()) absl::StrAppend(&text, "note               ", b.note, "\n");
  }
  if (r.link_loads.available()) {
    absl::StrAppend(&text, absl::StrFormat("max_link_load      %.1f bytes (%s routing)\n"
                                           "avg_link_load      %.1f bytes over %d links used\n",
                                           r.link_loads.max_load, RoutingName(r.routing),
                                           r.link_loads.average_load, r.link_loads.links_used));
    if (r.exchange_seconds && r.baseline_exchange_seconds) {
      // What --objective time minimises (core/metrics/exchange_time.h).
      absl::StrAppend(
          &text, absl::StrFormat("exchange_time      %.3f us (baseline %.3f us)\n",
                                 *r.exchange_seconds * 1e6, *r.baseline_exchange_seconds * 1e6));
    }
  } else if (!r.link_loads_skipped.empty()) {
    absl::StrAppend(&text, "link_loads         not computed: ", r.link_loads_skipped, "\n");
  }
  if (!r.busiest_links.empty()) {
    absl::StrAppend(&text, "busiest_links      link, bytes, share of the busiest\n");
    const double top = r.busiest_links.front().bytes;
    // The empty first column indents the rows by FormatTable's two-blank gap.
    std::vector<std::vector<std::string>> rows;
    for (const LinkLoadEntry& l : r.busiest_links) {
      rows.push_back({"", l.link, absl::StrFormat("%.1f", l.bytes),
                      absl::StrFormat("%.1f%%", top > 0 ? 100.0 * l.bytes / top : 0)});
    }
    absl::StrAppend(&text, FormatTable(rows, {false, false, true, true}));
  }
  return text;
}

// Both modes end here.
absl::Status WriteEvalResult(const EvalFlags& flags, const MappingReport& report) {
  if (flags.format == "text") return WriteOutput(flags.output, TextReport(report));
  nlohmann::ordered_json j = ReportToJson(report);
  return WriteOutput(flags.output, j.dump(2) + "\n");
}

absl::Status RunEvalLocal(const EvalFlags& flags, Routing routing) {
  absl::StatusOr<Problem> problem = LoadProblem(flags.problem);
  if (!problem.ok()) return problem.status();
  EvaluateRequest request;
  request.graph = &problem->graph;
  request.allocation = &*problem->allocation;
  request.routing = routing;
  request.threads = flags.problem.threads;
  request.busiest_links = BusiestLinksWanted(flags);
  absl::StatusOr<std::vector<SlotId>> mapping =
      ReadMappingFile(flags.mapping, &*problem->allocation);
  if (!mapping.ok()) return mapping.status();
  request.slot_of_task = *std::move(mapping);
  if (flags.balance.active()) {
    absl::StatusOr<BalanceRequest> balance = LoadBalanceRequest(
        flags.balance, flags.initial, problem->graph.num_tasks(), &*problem->allocation);
    if (!balance.ok()) return balance.status();
    request.balance = *std::move(balance);
  }
  if (std::optional<RequestError> bad = CheckEvaluateRequest(request)) {
    if (bad->field == "slot_of_task") {
      return absl::Status(bad->status.code(), absl::StrCat("mapping: ", bad->status.message()));
    }
    return bad->status;
  }
  absl::StatusOr<MappingReport> report = Evaluate(request);
  if (!report.ok()) return report.status();
  return WriteEvalResult(flags, *report);
}

absl::Status RunEvalRemote(const EvalFlags& flags, Routing routing) {
  absl::StatusOr<RemoteProblem> problem = BuildRemoteProblem(flags.problem);
  if (!problem.ok()) return problem.status();
  absl::StatusOr<std::vector<SlotId>> mapping = ReadMappingFile(flags.mapping);
  if (!mapping.ok()) return mapping.status();
  absl::StatusOr<std::unique_ptr<client::HopmapClient>> client =
      ConnectRemote(flags.problem.remote);
  if (!client.ok()) return client.status();
  EvaluateRequest evaluate;
  evaluate.slot_of_task = *std::move(mapping);
  evaluate.routing = routing;
  evaluate.busiest_links = BusiestLinksWanted(flags);
  if (flags.balance.active()) {
    absl::StatusOr<BalanceRequest> balance =
        LoadBalanceRequest(flags.balance, flags.initial, problem->graph.num_tasks(), nullptr);
    if (!balance.ok()) return balance.status();
    evaluate.balance = *std::move(balance);
  }
  v1::EvaluateRequest request;
  problem->FillRequest(request);
  EvaluateRequestToProto(evaluate, &request);
  absl::StatusOr<MappingReport> report = (*client)->Evaluate(request);
  if (!report.ok()) return OneLine(report.status());
  problem->FixReport(*report);
  return WriteEvalResult(flags, *report);
}

absl::Status RunEval(EvalFlags& flags) {
  if (flags.format != "json" && flags.format != "text") {
    return absl::InvalidArgumentError(
        absl::StrCat("--format: unknown format '", flags.format, "' (known: json, text)"));
  }
  absl::StatusOr<Routing> routing = ParseRouting(flags.routing);
  if (!routing.ok()) return routing.status();
  absl::StatusOr<Mode> mode = ResolveMode(flags.problem.local, flags.problem.remote);
  if (!mode.ok()) return mode.status();
  return WithBalanceHint(
      *mode == Mode::kLocal ? RunEvalLocal(flags, *routing) : RunEvalRemote(flags, *routing),
      flags.balance, "");
}

}  // namespace

void AddEvalCommand(CLI::App& root, Action& run) {
  auto flags = std::make_shared<EvalFlags>();
  CLI::App* cmd = root.add_subcommand(
      "eval",
      "Measure a given mapping: hop-bytes, dilation, link loads, bound, baseline; in this "
      "process (--local) or through hopmapd (--server)");
  AddProblemFlags(*cmd, flags->problem);
  cmd->add_option("--mapping", flags->mapping,
                  "Mapping file: perm (line i: slot of task i) or the JSON of `hopmap map`")
      ->required();
  cmd->add_option("--routing", flags->routing,
                  "Link-load model: dimension-order or adaptive (split over minimal paths)")
      ->capture_default_str();
  cmd->add_option("--format", flags->format, "json or text")->capture_default_str();
  CLI::Option* busiest =
      cmd->add_option("--busiest-links", flags->busiest_links,
                      "List this many of the most loaded links (the JSON lists 10 unless told; "
                      "the text lists them when this is given)")
          ->capture_default_str()
          ->check(NonNegativeInteger());
  cmd->add_option("--output,-o", flags->output, "Write to FILE instead of standard output");
  AddBalanceFlags(*cmd, flags->balance, BalanceFlagsFor::kEval);
  cmd->add_option("--initial", flags->initial,
                  "With load balancing: the objects' current placement; the report counts the "
                  "moves against it")
      ->group("Load balancing (many objects per slot; any of these enables it)");
  cmd->callback([flags, busiest, &run] {
    flags->busiest_links_given = busiest->count() > 0;
    run = [flags] { return RunEval(*flags); };
  });
}

}  // namespace hopmap::cli
