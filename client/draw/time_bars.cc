#include "client/draw/time_bars.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/draw/canvas.h"
#include "client/draw/palette.h"

namespace hopmap::draw {

std::string FormatSeconds(double seconds) {
  if (seconds < 1e-6) return absl::StrFormat("%.0f ns", seconds * 1e9);
  if (seconds < 1e-3) return absl::StrFormat("%.3g us", seconds * 1e6);
  if (seconds < 1) return absl::StrFormat("%.3g ms", seconds * 1e3);
  return absl::StrFormat("%.3g s", seconds);
}

absl::Status DrawSimulationBars(const SimulationReport& report, const std::string& title,
                                const std::string& path) {
  constexpr double kWidth = 900, kMargin = 24, kBarHeight = 26, kGap = 14, kTextSize = 12;
  const int bars = static_cast<int>(report.simulations.size());
  const double top = 84;
  const double height = top + bars * (kBarHeight + kGap) + 56;
  absl::StatusOr<std::unique_ptr<Canvas>> opened = Canvas::Open(path, kWidth, height);
  if (!opened.ok()) return opened.status();
  const Canvas& canvas = **opened;
  canvas.FillRect(0, 0, kWidth, height, Rgb{1, 1, 1});
  canvas.Text(kMargin, 30, absl::StrCat("Predicted communication time per iteration: ", title), 16,
              kText, Align::kLeft, /*bold=*/true);
  canvas.Text(
      kMargin, 52,
      absl::StrFormat("%s, %d tasks, allocation of %d nodes, links %s/s and %s; %s; SimGrid",
                      report.machine, report.tasks, report.hosts,
                      absl::StrFormat("%.3g GB", report.link_bandwidth / 1e9),
                      FormatSeconds(report.link_latency), absl::StrJoin(report.patterns, " + ")),
      kTextSize);

  double label_width = 0;
  for (const SimulationResult& r : report.simulations) {
    label_width = std::max(label_width, canvas.TextWidth(r.mapping, kTextSize));
  }
  label_width = std::min(label_width, 260.0);
  const double bar_left = kMargin + label_width + 12;
  const double bar_space = kWidth - bar_left - 190;
  double longest = 0;
  for (const SimulationResult& r : report.simulations) longest = std::max(longest, r.time_s);
  const Rgb busiest_colour{0.35, 0.35, 0.35};
  for (int i = 0; i < bars; ++i) {
    const SimulationResult& r = report.simulations[i];
    const double y = top + i * (kBarHeight + kGap);
    const double w = longest > 0 ? bar_space * r.time_s / longest : 0;
    canvas.Text(bar_left - 12, y + kBarHeight * 0.68, r.mapping, kTextSize, kText, Align::kRight);
    canvas.FillRect(bar_left, y, std::max(w, 1.0), kBarHeight,
                    i == 0 ? kInOrderColour : kAnswerColour);
    // The busiest link's bytes at its bandwidth: what that link alone needs.
    const double busy =
        longest > 0 ? bar_space * std::min(r.busiest_link.busy_s, r.time_s) / longest : 0;
    canvas.FillRect(bar_left, y + kBarHeight - 5, busy, 5, busiest_colour);
    canvas.Text(bar_left + w + 8, y + kBarHeight * 0.68,
                i == 0 ? FormatSeconds(r.time_s)
                       : absl::StrFormat("%s (%.2fx in-order)", FormatSeconds(r.time_s),
                                         r.ratio_to_in_order),
                kTextSize);
  }
  const double legend_y = top + bars * (kBarHeight + kGap) + 20;
  canvas.FillRect(kMargin, legend_y - 9, 24, 5, busiest_colour);
  canvas.Text(kMargin + 32, legend_y - 3,
              "the busiest link's bytes at its bandwidth (the time that link alone needs)",
              kTextSize - 1);
  return opened->get()->Finish();
}

}  // namespace hopmap::draw
