// The JSON report of `hopmap map` / `hopmap eval`, and reading mappings back.
#ifndef HOPMAP_CORE_IO_REPORT_JSON_H_
#define HOPMAP_CORE_IO_REPORT_JSON_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/analysis/graph_stats.h"
#include "core/analysis/pattern.h"
#include "core/mappers/solve.h"
#include "core/topology/allocation.h"
#include "nlohmann/json.hpp"

namespace hopmap {

// One object with every field of the CLI contract (docs/cli.md): tasks, slots,
// algorithm, slot_of_task, node_of_task, core_of_task, hop_bytes, total_bytes,
// avg_hops_per_byte, lower_bound, lower_bound_method, gap, baseline_hop_bytes,
// improvement, max_dilation, max_link_load, solve_seconds, candidates, and more;
// `busiest_links` when the report has any (AddBusiestLinks).
nlohmann::ordered_json ReportToJson(const MappingReport& report);

// The report of `hopmap analyze`: the graph's statistics and its pattern.
nlohmann::ordered_json AnalysisToJson(const GraphStatistics& stats, const PatternReport& pattern);

// Reads a mapping: the JSON report (its slot_of_task) or the perm format (line i:
// the slot of task i; '#' comments and blank lines skipped). Errors name the file
// and line. With `allocation`, a JSON report made for another shape (its "nodes"
// and "cores_per_node") is refused: its slot numbers would mean other cores.
absl::StatusOr<std::vector<SlotId>> ReadMappingFile(const std::string& path,
                                                    const Allocation* allocation = nullptr);
absl::StatusOr<std::vector<SlotId>> ParseMapping(const std::string& text,
                                                 const std::string& source_name,
                                                 const Allocation* allocation = nullptr);

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_REPORT_JSON_H_
