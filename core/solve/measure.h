// Measuring a mapping into a report: hop-bytes, dilation, link loads, bound, baseline.
#ifndef HOPMAP_CORE_SOLVE_MEASURE_H_
#define HOPMAP_CORE_SOLVE_MEASURE_H_

#include <optional>
#include <span>

#include "core/graph/task_graph.h"
#include "core/metrics/lower_bound.h"
#include "core/solve/report.h"
#include "core/topology/allocation.h"

namespace hopmap {

// Fills every measured field of `report` from report.slot_of_task (which may hold
// several tasks per slot): hop-bytes, dilation, link loads, the lower bound
// (`known_bound` when the caller has one), and the baseline (`baseline`'s
// hop-bytes; empty: the in-order mapping).
void MeasureMapping(const TaskGraph& graph, const Allocation& allocation, Routing routing,
                    MappingReport& report, const std::optional<LowerBound>& known_bound,
                    std::span<const SlotId> baseline = {});

// Lists the `count` most loaded links of report.link_loads, heaviest first (ties by
// link id), with the machine's names for them.
void AddBusiestLinks(const Allocation& allocation, int count, MappingReport& report);

}  // namespace hopmap

#endif  // HOPMAP_CORE_SOLVE_MEASURE_H_
