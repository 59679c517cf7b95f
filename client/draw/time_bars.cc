#include "client/draw/time_bars.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

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
  constexpr double kTitleSize = 16, kLine = 1.35;  // line height, in font sizes
  const int bars = static_cast<int>(report.simulations.size());
  // The title and the subtitle wrapped to the page (a machine spec or a path can be
  // wider than it), the page as tall as they need.
  const double text_width = kWidth - 2 * kMargin;
  const std::vector<std::string> title_lines =
      WrapText(absl::StrCat("Predicted communication time per iteration: ", title), kTitleSize,
               text_width, /*bold=*/true);
  const std::vector<std::string> subtitle_lines = WrapText(
      absl::StrFormat("%s, %d tasks, allocation of %d nodes, links %s/s and %s; %s; SimGrid",
                      report.machine, report.tasks, report.hosts,
                      absl::StrFormat("%.3g GB", report.link_bandwidth / 1e9),
                      FormatSeconds(report.link_latency), absl::StrJoin(report.patterns, " + ")),
      kTextSize, text_width);
  const double subtitle_top = 30 + kTitleSize * kLine * (title_lines.size() - 1) + 22;
  const double top = subtitle_top + kTextSize * kLine * (subtitle_lines.size() - 1) + 32;
  const double height = top + bars * (kBarHeight + kGap) + 56;
  absl::StatusOr<std::unique_ptr<Canvas>> opened = Canvas::Open(path, kWidth, height);
  if (!opened.ok()) return opened.status();
  const Canvas& canvas = **opened;
  canvas.FillRect(0, 0, kWidth, height, Rgb{1, 1, 1});
  for (size_t i = 0; i < title_lines.size(); ++i) {
    canvas.Text(kMargin, 30 + kTitleSize * kLine * i, title_lines[i], kTitleSize, kText,
                Align::kLeft, /*bold=*/true);
  }
  for (size_t i = 0; i < subtitle_lines.size(); ++i) {
    canvas.Text(kMargin, subtitle_top + kTextSize * kLine * i, subtitle_lines[i], kTextSize);
  }

  // Mapping names (paths) up to 260 wide; a longer one keeps its end.
  constexpr double kMaxLabelWidth = 260;
  std::vector<std::string> labels;
  double label_width = 0;
  for (const SimulationResult& r : report.simulations) {
    labels.push_back(FitText(r.mapping, kTextSize, kMaxLabelWidth));
    label_width = std::max(label_width, canvas.TextWidth(labels.back(), kTextSize));
  }
  const double bar_left = kMargin + label_width + 12;
  const double bar_space = kWidth - bar_left - 190;
  double longest = 0;
  for (const SimulationResult& r : report.simulations) longest = std::max(longest, r.time_s);
  const Rgb busiest_colour{0.35, 0.35, 0.35};
  for (int i = 0; i < bars; ++i) {
    const SimulationResult& r = report.simulations[i];
    const double y = top + i * (kBarHeight + kGap);
    const double w = longest > 0 ? bar_space * r.time_s / longest : 0;
    canvas.Text(bar_left - 12, y + kBarHeight * 0.68, labels[i], kTextSize, kText, Align::kRight);
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
