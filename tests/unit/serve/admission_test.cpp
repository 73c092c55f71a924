// Admission: slots go to requests in arrival order, the queue bound refuses the next one at once, and draining wakes
// every waiting request with a refusal.
#include "modelkit/serve/admission.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace modelkit::serve {
namespace {

using namespace std::chrono_literals;

// Waits until `condition` holds (a bounded spin: the test fails rather than hangs).
template <typename Condition>
bool Eventually(Condition condition) {
  for (int i = 0; i < 2000 && !condition(); ++i) std::this_thread::sleep_for(1ms);
  return condition();
}

TEST(AdmissionTest, SlotsGoInArrivalOrderAndTheQueueIsBounded) {
  Admission admission(/*slots=*/1, /*queue=*/3);
  std::optional<Admission::Ticket> first = std::move(admission.Enter().ticket);
  ASSERT_TRUE(first);
  std::mutex mutex;
  std::vector<int> order;
  std::vector<std::thread> waiters;
  for (int i = 0; i < 3; ++i) {
    waiters.emplace_back([&, i] {
      Admission::Result result = admission.Enter();
      ASSERT_TRUE(result.ticket);
      std::lock_guard lock(mutex);
      order.push_back(i);
      std::this_thread::sleep_for(2ms);  // holds the slot a little
    });
    ASSERT_TRUE(Eventually([&] { return admission.waiting() == i + 1; }));  // arrival order is known
  }
  // The queue is full: the next request is refused at once.
  const Admission::Result refused = admission.Enter();
  EXPECT_FALSE(refused.ticket);
  EXPECT_EQ(refused.refusal, Admission::Refusal::kQueueFull);
  EXPECT_EQ(admission.running(), 1);
  first.reset();
  for (std::thread& waiter : waiters) waiter.join();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(admission.running(), 0);
  EXPECT_EQ(admission.waiting(), 0);
}

TEST(AdmissionTest, TwoSlotsRunTwoAtOnce) {
  Admission admission(2, 0);
  Admission::Result a = admission.Enter();
  Admission::Result b = admission.Enter();
  ASSERT_TRUE(a.ticket && b.ticket);
  EXPECT_NE(a.ticket->slot(), b.ticket->slot());
  EXPECT_FALSE(admission.Enter().ticket);  // no queue
}

TEST(AdmissionTest, DrainingRefusesNewAndWaitingRequests) {
  Admission admission(1, 4);
  std::optional<Admission::Ticket> held = std::move(admission.Enter().ticket);
  std::atomic<int> refused{0};
  std::thread waiter([&] {
    const Admission::Result result = admission.Enter();
    if (!result.ticket && result.refusal == Admission::Refusal::kDraining) ++refused;
  });
  ASSERT_TRUE(Eventually([&] { return admission.waiting() == 1; }));
  admission.Drain();
  waiter.join();
  EXPECT_EQ(refused, 1);
  EXPECT_EQ(admission.Enter().refusal, Admission::Refusal::kDraining);
  EXPECT_EQ(admission.running(), 1);  // the admitted request runs on
}

}  // namespace
}  // namespace modelkit::serve
