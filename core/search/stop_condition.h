// StopCondition: when a search must stop (its deadline, or a caller's cancellation),
// shared by the mappers and the balancers.
#ifndef HOPMAP_CORE_SEARCH_STOP_CONDITION_H_
#define HOPMAP_CORE_SEARCH_STOP_CONDITION_H_

#include <algorithm>
#include <atomic>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace hopmap {

// When a solve must stop: its deadline, or a caller's cancellation.
class StopCondition {
 public:
  StopCondition(absl::Time deadline, const std::atomic<bool>* cancelled = nullptr)
      : deadline_(deadline), cancelled_(cancelled) {}
  [[nodiscard]] bool ShouldStop() const {
    return (cancelled_ != nullptr && cancelled_->load(std::memory_order_relaxed)) ||
           (also_cancelled_ != nullptr && also_cancelled_->load(std::memory_order_relaxed)) ||
           absl::Now() >= deadline_;
  }
  [[nodiscard]] absl::Time deadline() const { return deadline_; }
  // The same cancellation with a deadline no later than `deadline` (a portfolio's
  // share of its budget for one candidate).
  [[nodiscard]] StopCondition Until(absl::Time deadline) const {
    StopCondition out = *this;
    out.deadline_ = std::min(deadline, deadline_);
    return out;
  }
  // The same cancellation without the deadline: for work whose half-done result is
  // worse than late (a first placement that the refinement after it needs whole).
  [[nodiscard]] StopCondition WithoutDeadline() const {
    StopCondition out = *this;
    out.deadline_ = absl::InfiniteFuture();
    return out;
  }
  // This condition, also stopped by `flag` (a portfolio stopping one candidate).
  // Replaces an earlier Or's flag.
  [[nodiscard]] StopCondition Or(const std::atomic<bool>* flag) const {
    StopCondition out = *this;
    out.also_cancelled_ = flag;
    return out;
  }

 private:
  absl::Time deadline_;
  const std::atomic<bool>* cancelled_;
  const std::atomic<bool>* also_cancelled_ = nullptr;
};

}  // namespace hopmap

#endif  // HOPMAP_CORE_SEARCH_STOP_CONDITION_H_
