// AdmissionGate: at most `max_running` solves at once, at most `max_queued` callers
// waiting for a turn (first come, first served); anyone beyond is refused at once.
#ifndef HOPMAP_SERVER_ADMISSION_H_
#define HOPMAP_SERVER_ADMISSION_H_

#include <atomic>
#include <cstdint>
#include <set>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace hopmap::server {

class AdmissionGate {
 public:
  AdmissionGate(int max_running, int max_queued);
  AdmissionGate(const AdmissionGate&) = delete;
  AdmissionGate& operator=(const AdmissionGate&) = delete;

  // A running slot; given back when destroyed.
  class Ticket {
   public:
    Ticket() = default;
    Ticket(Ticket&& other) noexcept : gate_(other.gate_) { other.gate_ = nullptr; }
    Ticket& operator=(Ticket&& other) noexcept;
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    ~Ticket() { Release(); }
    void Release();
    [[nodiscard]] bool held() const { return gate_ != nullptr; }

   private:
    friend class AdmissionGate;
    explicit Ticket(AdmissionGate* gate) : gate_(gate) {}
    AdmissionGate* gate_ = nullptr;
  };

  // Takes a running slot, waiting in line for one if needed. Fails with
  // ResourceExhausted "server busy: N solves running, M queued" when every slot is
  // taken and the queue is full; with Cancelled when `*cancelled` turns true while
  // waiting (it is polled every `poll` interval; nullptr: never); with
  // DeadlineExceeded when `deadline` passes first.
  absl::StatusOr<Ticket> Acquire(absl::Time deadline, const std::atomic<bool>* cancelled,
                                 absl::Duration poll = absl::Milliseconds(20));

  [[nodiscard]] int running() const;
  [[nodiscard]] int queued() const;
  [[nodiscard]] int max_running() const { return max_running_; }
  [[nodiscard]] int max_queued() const { return max_queued_; }

 private:
  void ReleaseSlot();

  const int max_running_;
  const int max_queued_;
  mutable absl::Mutex mu_;
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t next_ticket_ ABSL_GUARDED_BY(mu_) = 0;
  std::set<uint64_t> waiting_ ABSL_GUARDED_BY(mu_);  // in arrival order
};

}  // namespace hopmap::server

#endif  // HOPMAP_SERVER_ADMISSION_H_
