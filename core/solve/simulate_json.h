// The JSON of `hopmap simulate` (and of hopmapd's Simulate, printed by the client).
#ifndef HOPMAP_CORE_SOLVE_SIMULATE_JSON_H_
#define HOPMAP_CORE_SOLVE_SIMULATE_JSON_H_

#include "core/solve/simulate.h"
#include "nlohmann/json.hpp"

namespace hopmap {

// {"machine", "tasks", "hosts", "link_bandwidth", "link_latency", "patterns",
//  "iterations", "flows_per_iteration", "simulator",
//  "simulations": [{"mapping", "time_s", "total_time_s", "ratio_to_in_order",
//  "hop_bytes", "busiest_link": {"name", "bytes", "busy_s", "share"}}, ...]}, the
// in-order placement first (docs/simulate.md).
nlohmann::ordered_json SimulationReportToJson(const SimulationReport& report);

}  // namespace hopmap

#endif  // HOPMAP_CORE_SOLVE_SIMULATE_JSON_H_
