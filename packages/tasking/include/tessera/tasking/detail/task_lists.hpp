#pragma once
// The two intrusive lists built from task records (through TaskBase::next; a
// task is in at most one list at a time):
//  * ready stack (the injection stacks of host threads' tasks): a LIFO
//    stack with lock-free push (one CAS) and an "almost atomic" pop: the
//    popper swaps the head for a LOCKED marker, reads head->next and stores
//    it back. Holding the marker for those two instructions is what makes
//    the pop immune to ABA without tags or hazard pointers; pushers and
//    poppers that see the marker wait (SpinWait: a holder preempted between
//    the two instructions must get a core back).
//  * wait queue: the tasks and aggregates waiting for this task. Push is one
//    CAS; completion swaps the head for a CLOSED marker, after which every
//    push fails and the pusher knows the dependence is already complete.
#include <tessera/core.hpp>
#include <tessera/tasking/detail/task_record.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace tessera {
namespace detail::tasking {


// Waiting for another thread to end a step of a few instructions (a pop
// holding a ready queue's LOCKED marker). The step is normally over after a
// few pauses; but a holder preempted inside it (more runnable threads than
// cores) needs a core to finish, and waiters that keep spinning on theirs
// stall it and each other for whole time slices. So a waiter spins a
// bounded number of times, then yields, then sleeps for short, growing
// periods (up to 256 us): the wait is bounded by the holder's return to a
// core, not by the scheduler's next preemption of the spinners.
class SpinWait {
 public:
  static constexpr unsigned kSpins = 64, kYields = 16;
  void operator()() {
    if (m_rounds < kSpins) {
      host_cpu_relax();
    } else if (m_rounds < kSpins + kYields) {
      std::this_thread::yield();
    } else {
      const unsigned k = std::min(m_rounds - (kSpins + kYields), 8u);
      std::this_thread::sleep_for(std::chrono::microseconds(1u << k));
    }
    if (m_rounds < kSpins + kYields + 8) ++m_rounds;
  }

 private:
  unsigned m_rounds = 0;
};

inline void queue_push(std::atomic<TaskBase*>& head, TaskBase* t) noexcept {
  TaskBase* h = head.load(std::memory_order_relaxed);
  SpinWait wait;
  for (;;) {
    if (h == list_marker()) {  // a pop holds the queue for two instructions
      wait();
      h = head.load(std::memory_order_relaxed);
      continue;
    }
    t->next = h;
    if (head.compare_exchange_weak(h, t, std::memory_order_release, std::memory_order_relaxed)) return;
  }
}

inline TaskBase* queue_pop(std::atomic<TaskBase*>& head) noexcept {
  TaskBase* h = head.load(std::memory_order_acquire);
  SpinWait wait;
  for (;;) {
    if (h == nullptr) return nullptr;
    if (h == list_marker()) {
      wait();
      h = head.load(std::memory_order_acquire);
      continue;
    }
    if (head.compare_exchange_weak(h, list_marker(), std::memory_order_acquire, std::memory_order_acquire)) {
      head.store(h->next, std::memory_order_release);
      h->next = nullptr;
      return h;
    }
  }
}

// Adds w to d's wait queue; false when d is already complete.
// (w holds a reference to d, so d is never ORPHANED here.)
inline bool wait_queue_push(TaskBase* d, TaskBase* w) noexcept {
  TaskBase* h = atomic_field(d->wait_head).load(std::memory_order_acquire);
  for (;;) {
    if (h == list_marker()) return false;
    w->next = h;
    if (atomic_field(d->wait_head).compare_exchange_weak(h, w, std::memory_order_acq_rel, std::memory_order_acquire))
      return true;
  }
}

}  // namespace detail::tasking
}  // namespace tessera
