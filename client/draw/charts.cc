#include "client/draw/charts.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hopmap::draw {

std::string FormatCount(int64_t value) {
  std::string digits = absl::StrCat(value < 0 ? -value : value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string FormatBytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  int unit = 0;
  double v = bytes;
  while (std::fabs(v) >= 1000 && unit < 6) {
    v /= 1000;
    ++unit;
  }
  if (unit == 0) return absl::StrFormat("%.0f B", v);
  return absl::StrFormat(
      std::fabs(v) < 10 ? "%.2f %s" : (std::fabs(v) < 100 ? "%.1f %s" : "%.0f %s"), v,
      kUnits[unit]);
}

void DrawHopsChart(const Canvas& canvas, double x, double y, double w, double h,
                   const std::vector<HopSeries>& series) {
  size_t bins = 1;
  double max_bytes = 0;
  for (const HopSeries& s : series) {
    for (size_t i = 0; i < s.bytes_at_hops.size(); ++i) {
      if (s.bytes_at_hops[i] > 0) bins = std::max(bins, i + 1);
      max_bytes = std::max(max_bytes, static_cast<double>(s.bytes_at_hops[i]));
    }
  }
  if (max_bytes <= 0) max_bytes = 1;
  // Legend row, then the plot area with room for both axes' labels.
  double lx = x;
  const double dash[] = {6, 3};  // the second series' curve is dashed
  for (size_t si = 0; si < series.size(); ++si) {
    const HopSeries& s = series[si];
    lx += Swatch(canvas, lx, y + 10, s.colour, absl::StrCat("bytes, ", s.name)) + 16;
    if (si > 0) cairo_set_dash(canvas.cr(), dash, 2, 0);
    lx += LineSwatch(canvas, lx, y + 10, s.colour, absl::StrCat("cumulative share, ", s.name)) + 24;
    cairo_set_dash(canvas.cr(), nullptr, 0, 0);
  }
  const double px = x + 72, py = y + 30, pw = w - 72 - 56, ph = h - 30 - 40;
  canvas.StrokeRect(px, py, pw, ph, kFrame, 1);
  for (int t = 0; t <= 4; ++t) {
    const double ty = py + ph - ph * t / 4.0;
    canvas.Line(px - 4, ty, px, ty, kFrame, 1);
    canvas.Line(px + pw, ty, px + pw + 4, ty, kFrame, 1);
    canvas.Text(px - 6, ty + 3.5, FormatBytes(max_bytes * t / 4.0), 9, kText, Align::kRight);
    canvas.Text(px + pw + 6, ty + 3.5, absl::StrCat(25 * t, "%"), 9);
  }
  const double group = pw / static_cast<double>(bins);
  const size_t label_every = static_cast<size_t>(std::ceil(28.0 / group));
  for (size_t b = 0; b < bins; ++b) {
    if (b % label_every == 0) {
      canvas.Text(px + (b + 0.5) * group, py + ph + 13, absl::StrCat(b), 9, kText, Align::kCentre);
    }
  }
  canvas.Text(px + pw / 2, py + ph + 30, "hops between the two tasks of a message", 10, kText,
              Align::kCentre);
  cairo_t* cr = canvas.cr();
  cairo_save(cr);
  cairo_translate(cr, x + 12, py + ph / 2);
  cairo_rotate(cr, -M_PI / 2);
  canvas.Text(0, 0, "bytes", 10, kText, Align::kCentre);
  cairo_restore(cr);
  const double bar = 0.8 * group / static_cast<double>(std::max<size_t>(series.size(), 1));
  for (size_t si = 0; si < series.size(); ++si) {  // every series' bars, then the curves
    const HopSeries& s = series[si];
    for (size_t b = 0; b < bins && b < s.bytes_at_hops.size(); ++b) {
      const double bh = ph * static_cast<double>(s.bytes_at_hops[b]) / max_bytes;
      canvas.FillRect(px + b * group + 0.1 * group + si * bar, py + ph - bh, bar, bh, s.colour);
    }
  }
  for (size_t si = 0; si < series.size(); ++si) {
    const HopSeries& s = series[si];
    double total = 0;
    for (Bytes b : s.bytes_at_hops) total += static_cast<double>(b);
    if (total <= 0) continue;
    double cumulative = 0;
    if (si > 0) cairo_set_dash(cr, dash, 2, 0);
    for (size_t b = 0; b < bins; ++b) {
      if (b < s.bytes_at_hops.size()) cumulative += static_cast<double>(s.bytes_at_hops[b]);
      const double cx = px + (b + 0.5) * group, cy = py + ph - ph * cumulative / total;
      if (b == 0) {
        cairo_move_to(cr, cx, cy);
      } else {
        cairo_line_to(cr, cx, cy);
      }
    }
    // A white casing keeps the curve visible where it crosses its own bars.
    canvas.SetColour({1, 1, 1});
    cairo_set_line_width(cr, 5);
    cairo_stroke_preserve(cr);
    canvas.SetColour(s.colour);
    cairo_set_line_width(cr, 2);
    cairo_stroke(cr);
    cairo_set_dash(cr, nullptr, 0, 0);
  }
}

std::vector<std::string> ByteTicks(double max_bytes) {
  std::vector<std::string> ticks;
  for (int t = 0; t <= 4; ++t) ticks.push_back(FormatBytes(max_bytes * t / 4.0));
  return ticks;
}

void DrawColourBar(const Canvas& canvas, double x, double y, double w, const std::string& label,
                   const std::vector<std::string>& ticks) {
  canvas.Text(x, y, label, 10);
  const double top = y + 6, height = 12;
  cairo_pattern_t* gradient = cairo_pattern_create_linear(x, 0, x + w, 0);
  for (int i = 0; i <= 16; ++i) {
    const Rgb c = Viridis(i / 16.0);
    cairo_pattern_add_color_stop_rgb(gradient, i / 16.0, c.r, c.g, c.b);
  }
  cairo_rectangle(canvas.cr(), x, top, w, height);
  cairo_set_source(canvas.cr(), gradient);
  cairo_fill(canvas.cr());
  cairo_pattern_destroy(gradient);
  canvas.StrokeRect(x, top, w, height, kFrame, 0.8);
  const size_t n = ticks.size();
  for (size_t t = 0; t < n; ++t) {
    const double tx = n == 1 ? x : x + w * static_cast<double>(t) / static_cast<double>(n - 1);
    canvas.Line(tx, top + height, tx, top + height + 4, kFrame, 1);
    canvas.Text(tx, top + height + 15, ticks[t], 9, kText,
                t == 0 ? Align::kLeft : (t + 1 == n ? Align::kRight : Align::kCentre));
  }
}

double Swatch(const Canvas& canvas, double x, double y, const Rgb& colour, const std::string& label,
              bool outline) {
  canvas.FillRect(x, y - 9, 10, 10, colour);
  if (outline) canvas.StrokeRect(x, y - 9, 10, 10, kFrame, 0.8);
  return 14 + canvas.Text(x + 14, y, label, 10);
}

double LineSwatch(const Canvas& canvas, double x, double y, const Rgb& colour,
                  const std::string& label, double width) {
  canvas.Line(x, y - 4, x + 18, y - 4, colour, width);
  return 22 + canvas.Text(x + 22, y, label, 10);
}

}  // namespace hopmap::draw
