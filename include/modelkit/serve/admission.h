// Who runs next: requests for one model take one of its `slots` (sessions) in arrival order (FIFO); at most `queue`
// wait; one more is refused (the server answers 429). Draining refuses every new request and lets the admitted ones
// finish.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

namespace modelkit::serve {

class Admission {
 public:
  Admission(int slots, int queue);

  // Holds a slot until destroyed.
  class Ticket {
   public:
    Ticket(Admission* admission, int slot) : admission_(admission), slot_(slot) {}
    Ticket(Ticket&& other) noexcept : admission_(other.admission_), slot_(other.slot_) { other.admission_ = nullptr; }
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    Ticket& operator=(Ticket&&) = delete;
    ~Ticket();
    int slot() const { return slot_; }

   private:
    Admission* admission_;
    int slot_;
  };

  enum class Refusal { kQueueFull, kDraining };
  struct Result {
    std::optional<Ticket> ticket;
    Refusal refusal = Refusal::kQueueFull;  // when no ticket
  };

  // Waits for a free slot in arrival order; refuses at once when `queue` requests already wait or when draining.
  Result Enter();
  // Refuses new requests from now on and wakes the waiting ones with kDraining.
  void Drain();
  // Requests holding a slot, and waiting for one.
  int running() const;
  int waiting() const;

 private:
  void Release(int slot);

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<bool> busy_;
  int queue_limit_;
  std::deque<uint64_t> waiting_;  // tickets in arrival order
  uint64_t next_ticket_ = 0;
  bool draining_ = false;
};

}  // namespace modelkit::serve
