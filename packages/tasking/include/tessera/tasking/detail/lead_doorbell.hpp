#pragma once
// Where the lead of a host team task waits for its members: first for them to
// join, then for them to leave. It spins for a few microseconds, then sleeps
// on a futex (std::atomic::wait) until a member rings.
//
// Why it sleeps, and why it does not yield. A team task is a rendezvous of
// workers, and on a machine whose cores other programs share, the member the
// lead waits for may not be running. A lead that spins and yields stays
// runnable: Linux's scheduler answers sched_yield beside a busy program by
// running that program for the rest of its time slice (milliseconds), and the
// member is no closer to running. A lead that sleeps gives the core back, and
// when the member rings, the wake-up puts the lead back ahead of programs
// that have run all along. Measured on 2 cores beside two busy loops (a
// host_spawn_for of 20,000 one-index team leaves, team of 2): 1.3-2.5 s when
// the lead spun and yielded, 0.02-0.3 s when it sleeps.
//
// The handshake (no lost wake-up): the lead reads the ring count, announces
// that it sleeps, checks its condition again and sleeps only while the count
// is still the one it read. A member changes the condition, then bumps the
// count, then wakes the lead if it announced a sleep. The count and the
// announcement are seq_cst: either the member sees the announcement and
// wakes the lead, or its bump comes before the lead's sleep in their single
// order and the count differs from the one the lead read.
#include <tessera/core/detail/cpu_hints.hpp>

#include <atomic>

namespace tessera::detail::tasking {

class LeadDoorbell {
 public:
  // Returns once done() holds. done() reads what the members change.
  template <class Done>
  void wait_until(const Done& done) {
    for (unsigned spin = 0; !done(); ++spin) {
      if (spin < kSpins) {
        host_cpu_relax();
        continue;
      }
      const unsigned seen = m_rings.load(std::memory_order_seq_cst);
      m_sleeping.store(true, std::memory_order_seq_cst);
      if (!done()) m_rings.wait(seen, std::memory_order_seq_cst);
      m_sleeping.store(false, std::memory_order_relaxed);
    }
  }
  // A member calls this after it changed what the lead's done() reads.
  void ring() {
    m_rings.fetch_add(1, std::memory_order_seq_cst);
    if (m_sleeping.load(std::memory_order_seq_cst)) m_rings.notify_one();
  }

 private:
  // About 10-50 us of pauses: an idle member that is running joins within a
  // microsecond, and most team tasks' members leave within this of the lead.
  // Past it the member is most likely not running, or busy for longer than
  // a futex wake-up costs.
  static constexpr unsigned kSpins = 2048;
  alignas(64) std::atomic<unsigned> m_rings{0};
  std::atomic<bool> m_sleeping{false};
};

}  // namespace tessera::detail::tasking
