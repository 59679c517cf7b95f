// hopmap simulate --draw: the predicted communication time of each placement as
// bars, in-order first, with the part of it the busiest link alone accounts for.
#ifndef HOPMAP_CLIENT_DRAW_TIME_BARS_H_
#define HOPMAP_CLIENT_DRAW_TIME_BARS_H_

#include <string>

#include "absl/status/status.h"
#include "core/solve/simulate.h"

namespace hopmap::draw {

// "850 ns", "12.3 us", "4.56 ms", "1.23 s".
std::string FormatSeconds(double seconds);

// Writes the bars to `path` (SVG, PNG or PDF by its extension; atomically, as
// DrawPicture does). `title` heads the picture (e.g. the graph file's name).
absl::Status DrawSimulationBars(const SimulationReport& report, const std::string& title,
                                const std::string& path);

}  // namespace hopmap::draw

#endif  // HOPMAP_CLIENT_DRAW_TIME_BARS_H_
