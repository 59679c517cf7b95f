// ProgressBar: the one-line progress display of `hopmap map --server` on a terminal.
#ifndef HOPMAP_CLIENT_PROGRESS_BAR_H_
#define HOPMAP_CLIENT_PROGRESS_BAR_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace hopmap::cli {

// One line of the bar, at most `width` characters (<= 0: no limit): a bar filled
// by elapsed / budget, the elapsed time, the candidates finished and the best
// hop-bytes so far ("-" before the first candidate) with its algorithm when it
// fits, e.g.
//   [####............] 2.5/10 s  candidates 3  best hop-bytes 1234567 (axis-order(TZXY))
std::string FormatProgressLine(double elapsed_seconds, double budget_seconds, int candidates,
                               std::optional<int64_t> best_hop_bytes,
                               const std::string& best_algorithm, int width);

// Draws the line on file descriptor `fd` (a terminal), redrawn in place with '\r'
// on every Update and a few times a second (the elapsed time moves on while the
// daemon works); Finish() draws it a last time and ends it with a newline.
// Thread-safe.
class ProgressBar {
 public:
  ProgressBar(int fd, double budget_seconds);
  ~ProgressBar();  // Finish()
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // A candidate finished (`candidate_finished` non-empty) and/or a new best.
  void Update(bool candidate_finished, std::optional<int64_t> best_hop_bytes,
              const std::string& best_algorithm);
  void Finish();

 private:
  void DrawLocked();
  void Tick();

  const int fd_;
  const double budget_seconds_;
  const int width_;
  const std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool finished_ = false;
  int candidates_ = 0;
  std::optional<int64_t> best_;
  std::string best_algorithm_;
  std::thread ticker_;
};

}  // namespace hopmap::cli

#endif  // HOPMAP_CLIENT_PROGRESS_BAR_H_
