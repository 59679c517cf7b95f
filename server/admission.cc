#include "server/admission.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace hopmap::server {

AdmissionGate::AdmissionGate(int max_running, int max_queued)
    : max_running_(std::max(max_running, 1)), max_queued_(std::max(max_queued, 0)) {}

AdmissionGate::Ticket& AdmissionGate::Ticket::operator=(Ticket&& other) noexcept {
  if (this != &other) {
    Release();
    gate_ = other.gate_;
    other.gate_ = nullptr;
  }
  return *this;
}

void AdmissionGate::Ticket::Release() {
  if (gate_ != nullptr) {
    gate_->ReleaseSlot();
    gate_ = nullptr;
  }
}

void AdmissionGate::ReleaseSlot() {
  absl::MutexLock lock(&mu_);
  --running_;
}

absl::StatusOr<AdmissionGate::Ticket> AdmissionGate::Acquire(absl::Time deadline,
                                                             const std::atomic<bool>* cancelled,
                                                             absl::Duration poll) {
  auto is_cancelled = [cancelled] { return cancelled != nullptr && cancelled->load(); };
  absl::MutexLock lock(&mu_);
  if (waiting_.empty() && running_ < max_running_) {
    ++running_;
    return Ticket(this);
  }
  if (static_cast<int>(waiting_.size()) >= max_queued_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("server busy: ", running_, " solves running, ", waiting_.size(),
                     " queued (limits: hopmapd --max-concurrent ", max_running_, ", --max-queued ",
                     max_queued_, "); retry later"));
  }
  const uint64_t me = next_ticket_++;
  waiting_.insert(me);
  auto my_turn = [this, me]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return running_ < max_running_ && *waiting_.begin() == me;
  };
  while (!my_turn()) {
    if (is_cancelled()) {
      waiting_.erase(me);
      return absl::CancelledError("call cancelled while waiting for a solve slot");
    }
    const absl::Time now = absl::Now();
    if (now >= deadline) {
      waiting_.erase(me);
      return absl::DeadlineExceededError(
          absl::StrCat("deadline passed while waiting for a solve slot (", running_,
                       " solves running, ", waiting_.size(), " queued)"));
    }
    mu_.AwaitWithDeadline(absl::Condition(&my_turn), std::min(deadline, now + poll));
  }
  waiting_.erase(me);
  ++running_;
  return Ticket(this);
}

int AdmissionGate::running() const {
  absl::MutexLock lock(&mu_);
  return running_;
}

int AdmissionGate::queued() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(waiting_.size());
}

}  // namespace hopmap::server
