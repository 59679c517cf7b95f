#include "server/admission.h"

#include <atomic>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopmap::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Waits up to 30 s for `done`; false if it never held.
template <typename F>
bool Eventually(F done) {
  const absl::Time until = absl::Now() + absl::Seconds(30);
  while (!done()) {
    if (absl::Now() > until) return false;
    absl::SleepFor(absl::Milliseconds(5));
  }
  return true;
}

TEST(AdmissionGateTest, RefusesBeyondRunningPlusQueued) {
  AdmissionGate gate(2, 0);
  absl::StatusOr<AdmissionGate::Ticket> a = gate.Acquire(absl::InfiniteFuture(), nullptr);
  absl::StatusOr<AdmissionGate::Ticket> b = gate.Acquire(absl::InfiniteFuture(), nullptr);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(gate.running(), 2);
  absl::StatusOr<AdmissionGate::Ticket> c = gate.Acquire(absl::InfiniteFuture(), nullptr);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(c.status().message()),
              HasSubstr("server busy: 2 solves running, 0 queued"));
  a->Release();
  EXPECT_FALSE(a->held());
  EXPECT_EQ(gate.running(), 1);
  absl::StatusOr<AdmissionGate::Ticket> d = gate.Acquire(absl::InfiniteFuture(), nullptr);
  EXPECT_TRUE(d.ok());
}

TEST(AdmissionGateTest, TicketsReleaseOnDestructionAndMove) {
  AdmissionGate gate(1, 0);
  {
    absl::StatusOr<AdmissionGate::Ticket> a = gate.Acquire(absl::InfiniteFuture(), nullptr);
    ASSERT_TRUE(a.ok());
    AdmissionGate::Ticket moved = *std::move(a);
    EXPECT_TRUE(moved.held());
    EXPECT_EQ(gate.running(), 1);
    AdmissionGate::Ticket other;
    other = std::move(moved);
    EXPECT_EQ(gate.running(), 1);
  }
  EXPECT_EQ(gate.running(), 0);
}

TEST(AdmissionGateTest, WaitersGoInArrivalOrder) {
  AdmissionGate gate(1, 3);
  absl::StatusOr<AdmissionGate::Ticket> held = gate.Acquire(absl::InfiniteFuture(), nullptr);
  ASSERT_TRUE(held.ok());
  absl::Mutex mu;
  std::vector<int> order;
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&, i] {
      absl::StatusOr<AdmissionGate::Ticket> t = gate.Acquire(absl::InfiniteFuture(), nullptr);
      ASSERT_TRUE(t.ok());
      absl::MutexLock lock(&mu);
      order.push_back(i);
    });
    ASSERT_TRUE(Eventually([&] { return gate.queued() == i + 1; }));
  }
  // The queue is full now.
  absl::StatusOr<AdmissionGate::Ticket> refused = gate.Acquire(absl::InfiniteFuture(), nullptr);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("1 solves running, 3 queued"));
  held->Release();
  for (std::thread& t : threads) t.join();
  EXPECT_THAT(order, ElementsAre(0, 1, 2));
  EXPECT_EQ(gate.running(), 0);
  EXPECT_EQ(gate.queued(), 0);
}

TEST(AdmissionGateTest, CancellationAbandonsTheWait) {
  AdmissionGate gate(1, 1);
  absl::StatusOr<AdmissionGate::Ticket> held = gate.Acquire(absl::InfiniteFuture(), nullptr);
  ASSERT_TRUE(held.ok());
  std::atomic<bool> cancelled{false};
  absl::Status status;
  std::thread waiter([&] { status = gate.Acquire(absl::InfiniteFuture(), &cancelled).status(); });
  ASSERT_TRUE(Eventually([&] { return gate.queued() == 1; }));
  cancelled = true;
  waiter.join();
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(std::string(status.message()), HasSubstr("cancelled while waiting"));
  EXPECT_EQ(gate.queued(), 0);
  EXPECT_EQ(gate.running(), 1);
}

TEST(AdmissionGateTest, DeadlineAbandonsTheWait) {
  AdmissionGate gate(1, 1);
  absl::StatusOr<AdmissionGate::Ticket> held = gate.Acquire(absl::InfiniteFuture(), nullptr);
  ASSERT_TRUE(held.ok());
  absl::StatusOr<AdmissionGate::Ticket> late =
      gate.Acquire(absl::Now() + absl::Milliseconds(30), nullptr);
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(gate.queued(), 0);
  // An abandoned waiter does not block the next one.
  held->Release();
  EXPECT_TRUE(gate.Acquire(absl::InfiniteFuture(), nullptr).ok());
}

}  // namespace
}  // namespace hopmap::server
