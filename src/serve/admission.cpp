#include "modelkit/serve/admission.h"

#include <algorithm>

namespace modelkit::serve {

Admission::Admission(int slots, int queue)
    : busy_(static_cast<size_t>(std::max(slots, 1)), false), queue_limit_(queue) {}

Admission::Ticket::~Ticket() {
  if (admission_ != nullptr) admission_->Release(slot_);
}

Admission::Result Admission::Enter() {
  std::unique_lock lock(mutex_);
  if (draining_) return {std::nullopt, Refusal::kDraining};
  const auto free_slot = [&] { return std::find(busy_.begin(), busy_.end(), false); };
  // A free slot goes to the first in line; a newcomer takes one at once only when nobody waits.
  if (waiting_.empty() && free_slot() != busy_.end()) {
    auto slot = free_slot();
    *slot = true;
    return {Ticket(this, static_cast<int>(slot - busy_.begin())), Refusal::kQueueFull};
  }
  if (static_cast<int>(waiting_.size()) >= queue_limit_) return {std::nullopt, Refusal::kQueueFull};
  const uint64_t ticket = next_ticket_++;
  waiting_.push_back(ticket);
  changed_.wait(lock, [&] { return draining_ || (waiting_.front() == ticket && free_slot() != busy_.end()); });
  waiting_.erase(std::find(waiting_.begin(), waiting_.end(), ticket));
  if (draining_) {
    changed_.notify_all();
    return {std::nullopt, Refusal::kDraining};
  }
  auto slot = free_slot();
  *slot = true;
  changed_.notify_all();  // the next in line may find another free slot
  return {Ticket(this, static_cast<int>(slot - busy_.begin())), Refusal::kQueueFull};
}

void Admission::Release(int slot) {
  {
    std::lock_guard lock(mutex_);
    busy_[static_cast<size_t>(slot)] = false;
  }
  changed_.notify_all();
}

void Admission::Drain() {
  {
    std::lock_guard lock(mutex_);
    draining_ = true;
  }
  changed_.notify_all();
}

int Admission::running() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(std::count(busy_.begin(), busy_.end(), true));
}

int Admission::waiting() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(waiting_.size());
}

}  // namespace modelkit::serve
