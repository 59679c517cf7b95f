// Charts and legend pieces: the bytes-by-hops histogram with its cumulative
// curve, colour bars, swatches, and number formats.
#ifndef HOPMAP_CLIENT_DRAW_CHARTS_H_
#define HOPMAP_CLIENT_DRAW_CHARTS_H_

#include <string>
#include <vector>

#include "client/draw/canvas.h"
#include "core/types.h"

namespace hopmap::draw {

// "1,234,567".
std::string FormatCount(int64_t value);
// "950 B", "12.3 kB", "4.56 MB", "7.89 GB" (powers of 1000).
std::string FormatBytes(double bytes);

struct HopSeries {
  std::string name;  // "in-order", "answer"
  Rgb colour;
  std::vector<Bytes> bytes_at_hops;  // index = hops
};

// Bars of bytes per hop count (series side by side) on the left axis, and each
// series' cumulative share of bytes within h hops (0-100%) on the right axis.
void DrawHopsChart(const Canvas& canvas, double x, double y, double w, double h,
                   const std::vector<HopSeries>& series);

// A horizontal viridis bar with `label` above and the tick labels spread evenly
// below it (the first at the left end, the last at the right end).
void DrawColourBar(const Canvas& canvas, double x, double y, double w, const std::string& label,
                   const std::vector<std::string>& ticks);
// Ticks 0, 1/4, ..., 1 of `max_bytes`, as bytes.
std::vector<std::string> ByteTicks(double max_bytes);

// A small square of `colour` and its label; returns the width used.
double Swatch(const Canvas& canvas, double x, double y, const Rgb& colour, const std::string& label,
              bool outline = false);
// A short line of `colour` and its label; returns the width used.
double LineSwatch(const Canvas& canvas, double x, double y, const Rgb& colour,
                  const std::string& label, double width = 2.5);

}  // namespace hopmap::draw

#endif  // HOPMAP_CLIENT_DRAW_CHARTS_H_
