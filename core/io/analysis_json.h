// The report of `hopmap analyze` as JSON.
#ifndef HOPMAP_CORE_IO_ANALYSIS_JSON_H_
#define HOPMAP_CORE_IO_ANALYSIS_JSON_H_

#include "core/analysis/graph_stats.h"
#include "core/analysis/pattern.h"
#include "nlohmann/json.hpp"

namespace hopmap {

// The graph's statistics and its pattern (docs/cli.md, `hopmap analyze`).
nlohmann::ordered_json AnalysisToJson(const GraphStatistics& stats, const PatternReport& pattern);

}  // namespace hopmap

#endif  // HOPMAP_CORE_IO_ANALYSIS_JSON_H_
