#include "client/progress_bar.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hopmap::cli {
namespace {

constexpr int kBarCells = 16;

int TerminalWidth(int fd) {
  winsize size{};
  if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;  // the display is best effort
    done += static_cast<size_t>(n);
  }
}

}  // namespace

std::string FormatProgressLine(double elapsed_seconds, double budget_seconds, int candidates,
                               std::optional<int64_t> best_hop_bytes,
                               const std::string& best_algorithm, int width) {
  const double fraction =
      budget_seconds > 0 ? std::clamp(elapsed_seconds / budget_seconds, 0.0, 1.0) : 0.0;
  const int filled = static_cast<int>(fraction * kBarCells);
  std::string line =
      absl::StrCat("[", std::string(filled, '#'), std::string(kBarCells - filled, '.'), "] ");
  if (budget_seconds > 0) {
    absl::StrAppend(&line, absl::StrFormat("%.1f/%g s", elapsed_seconds, budget_seconds));
  } else {
    absl::StrAppend(&line, absl::StrFormat("%.1f s", elapsed_seconds));
  }
  absl::StrAppend(&line, "  candidates ", candidates, "  best hop-bytes ");
  if (best_hop_bytes.has_value()) {
    absl::StrAppend(&line, *best_hop_bytes);
    // The algorithm only when it fits whole.
    const std::string by = absl::StrCat(" (", best_algorithm, ")");
    if (!best_algorithm.empty() &&
        (width <= 0 || line.size() + by.size() <= static_cast<size_t>(width))) {
      line += by;
    }
  } else {
    absl::StrAppend(&line, "-");
  }
  if (width > 0 && static_cast<int>(line.size()) > width) line.resize(width);
  return line;
}

ProgressBar::ProgressBar(int fd, double budget_seconds)
    : fd_(fd),
      budget_seconds_(budget_seconds),
      width_(TerminalWidth(fd) - 1),  // the last column would wrap on some terminals
      start_(std::chrono::steady_clock::now()) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    DrawLocked();
  }
  ticker_ = std::thread([this] { Tick(); });
}

ProgressBar::~ProgressBar() { Finish(); }

void ProgressBar::Update(bool candidate_finished, std::optional<int64_t> best_hop_bytes,
                         const std::string& best_algorithm) {
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return;
  if (candidate_finished) ++candidates_;
  if (best_hop_bytes.has_value()) {
    best_ = best_hop_bytes;
    best_algorithm_ = best_algorithm;
  }
  DrawLocked();
}

void ProgressBar::Finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_) return;
    finished_ = true;
    DrawLocked();
    WriteAll(fd_, "\n");
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

void ProgressBar::DrawLocked() {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // "\x1b[K" clears what a longer previous line left behind.
  WriteAll(fd_, absl::StrCat("\r",
                             FormatProgressLine(elapsed, budget_seconds_, candidates_, best_,
                                                best_algorithm_, width_),
                             "\x1b[K"));
}

void ProgressBar::Tick() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!finished_) {
    wake_.wait_for(lock, std::chrono::milliseconds(250));
    if (!finished_) DrawLocked();
  }
}

}  // namespace hopmap::cli
