// The JSON report of `hopmap map` / `hopmap eval` (and the daemon's, printed by the
// client).
#ifndef HOPMAP_CORE_SOLVE_REPORT_JSON_H_
#define HOPMAP_CORE_SOLVE_REPORT_JSON_H_

#include "core/solve/report.h"
#include "nlohmann/json.hpp"

namespace hopmap {

// One object with every field of the CLI contract (docs/cli.md): tasks, slots,
// algorithm, slot_of_task, node_of_task, core_of_task, hop_bytes, total_bytes,
// avg_hops_per_byte, lower_bound, lower_bound_method, gap, baseline_hop_bytes,
// improvement, max_dilation, max_link_load, solve_seconds, candidates, and more;
// `busiest_links` when the report has any (AddBusiestLinks).
nlohmann::ordered_json ReportToJson(const MappingReport& report);

}  // namespace hopmap

#endif  // HOPMAP_CORE_SOLVE_REPORT_JSON_H_
