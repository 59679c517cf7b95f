// MappingReport: everything `hopmap map` and `hopmap eval` report, self-contained
// (no reference to the allocation), so the daemon can ship it and the client print
// it the same way.
#ifndef HOPMAP_CORE_SOLVE_REPORT_H_
#define HOPMAP_CORE_SOLVE_REPORT_H_

#include <optional>
#include <string>
#include <vector>

#include "core/mappers/mapper.h"
#include "core/metrics/link_loads.h"
#include "core/metrics/lower_bound.h"

namespace hopmap {

struct LinkLoadEntry {
  std::string link;  // the machine's name for the link
  double bytes = 0;
};

// An object that changed slot against the current placement.
struct ObjectMove {
  TaskId task = 0;
  SlotId from = 0;
  SlotId to = 0;
};

// What a balanced solve (many objects per slot, core/balance) adds to the report.
struct LoadBalanceReport {
  double imbalance = 0;  // the epsilon asked for
  double total_load = 0;
  double avg_load = 0;       // total / slots
  double max_load = 0;       // the most loaded slot's
  double requested_cap = 0;  // (1 + imbalance) x avg_load (whole loads: rounded up)
  double load_cap = 0;       // what the solve aimed at: requested_cap, or the heaviest object
  bool balanced = false;     // max_load <= requested_cap
  std::string note;          // why not balanced, or why the cap was raised; empty when balanced
  std::vector<double> load_of_slot;
  // With a current placement (has_current): the moves against it.
  bool has_current = false;
  std::vector<ObjectMove> moves;  // in task order
  int64_t migrated_objects = 0;
  Bytes migrated_bytes = 0;   // state bytes of the migrated objects
  double migration_cost = 0;  // the factor; objective = hop_bytes + factor x migrated bytes
  HopBytes current_hop_bytes = 0;
  double current_max_load = 0;
};

// With a node interior (machine spec node=...): the costs inside the nodes
// (docs/formats.md#inside-the-node).
struct NodeCostReport {
  int32_t hop_cost = 0;             // the cost of a unit per network hop
  HopBytes node_cost = 0;           // sum over the edges inside a node of w x node distance
  HopBytes full_cost = 0;           // hop_cost x hop_bytes + node_cost
  HopBytes baseline_full_cost = 0;  // the baseline's full cost
};

// Everything `hopmap map` reports, self-contained (no reference to the
// allocation), so the daemon can ship it and the client print it the same way.
struct MappingReport {
  TaskId tasks = 0;
  int64_t slots = 0;
  std::string machine;  // the machine's spec
  int32_t nodes = 0;    // allocated nodes
  int32_t cores_per_node = 0;
  std::string algorithm;  // the winner, e.g. "axis-order(ZYXT)"; "given" for eval
  std::vector<SlotId> slot_of_task;
  std::vector<NodeId> node_of_task;  // machine node ids
  std::vector<int32_t> core_of_task;

  HopBytes hop_bytes = 0;
  Bytes total_bytes = 0;
  Bytes self_bytes = 0;          // self traffic, not part of hop-bytes
  double avg_hops_per_byte = 0;  // hop_bytes / total_bytes (0 without traffic)
  int32_t max_dilation = 0;
  Routing routing = Routing::kDimensionOrder;
  LinkLoads link_loads;  // empty when the machine has no link model
  // Why link_loads is empty on a machine that has links (routes too long to walk).
  std::string link_loads_skipped;
  std::vector<LinkLoadEntry> busiest_links;  // filled by AddBusiestLinks
  // The estimated time of one exchange of the graph's messages
  // (core/metrics/exchange_time.h: what --objective time minimises), of this mapping
  // and of the baseline; unset without link loads.
  std::optional<double> exchange_seconds;
  std::optional<double> baseline_exchange_seconds;

  LowerBound lower_bound;
  std::optional<double> gap;        // hop_bytes / lower_bound; unset when the bound is 0
  HopBytes baseline_hop_bytes = 0;  // the in-order placement
  double improvement = 0;           // 1 - hop_bytes / baseline (0.25 = 25% fewer)
  double solve_seconds = 0;
  double time_limit_seconds = 0;  // the budget the solve had (after defaults and caps)
  std::vector<Candidate> candidates;
  std::vector<Statistic> stats;  // the winning candidate's (Candidate::stats)
  // Set by balanced solves (SolveBalancedMapping); then baseline_hop_bytes is the
  // current placement's, or a block distribution's without one.
  std::optional<LoadBalanceReport> balance;
  std::optional<NodeCostReport> node_cost;  // set when the machine has a node interior
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_SOLVE_REPORT_H_
