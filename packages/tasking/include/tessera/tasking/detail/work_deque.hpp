#pragma once
// WorkDeque: a worker's ready tasks of one priority, a work-stealing deque
// after Chase and Lev, "Dynamic circular work-stealing deque" (SPAA 2005),
// with the memory orders of Lê, Pop, Cohen and Zappa Nardelli, "Correct and
// efficient work-stealing for weak memory models" (PPoPP 2013).
//
// The owner pushes and pops at the bottom (newest first), thieves take from
// the top (oldest first: in a recursive DAG the largest piece of work). A
// push is plain stores; a pop is one store-load barrier (the seq_cst store
// of `bottom`, an xchg on x86) and a compare-and-swap only when it races a
// thief for the last task. A steal is one compare-and-swap on `top`.
//
// Why it is safe (the invariant, not the steps): a task at index i is taken
// by whoever moves `top` past i (a thief's CAS, or the owner's CAS on the
// last task), or by the owner's pop when it finds top <= i after publishing
// bottom = i. The seq_cst store of `bottom` in pop and the seq_cst loads of
// `top` then `bottom` in steal are in one total order, so a thief that read
// a `top` older than the owner's pop of index i also sees bottom <= i, or the
// owner sees its `top`; two takers of one index always meet on the CAS of
// `top`. No fence is standalone (ThreadSanitizer models orders on atomics,
// not fences). Every store of `bottom` releases what the owner wrote to the
// tasks before it; a thief's load of `bottom` acquires it.
//
// The ring grows (doubles) when full and never shrinks; a thief may still
// read the ring it loaded before a growth, so retired rings are kept until
// reclaim(), called between waits when no thief runs. A slot of the old
// ring keeps its task: the owner writes only to the new one.
#include <tessera/tasking/detail/task_record.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace tessera::detail::tasking {

class WorkDeque {
 public:
  static constexpr int kInitialLog = 8;  // 256 tasks before the first growth

  WorkDeque() : m_ring(new Ring(kInitialLog)) {}
  ~WorkDeque() { delete m_ring.load(std::memory_order_relaxed); }
  WorkDeque(const WorkDeque&) = delete;
  WorkDeque& operator=(const WorkDeque&) = delete;

  // ---- owner ----

  // Pushes t; returns about the number of tasks the deque holds now (for
  // the peak statistic: at least that, thieves may have taken some).
  [[gnu::always_inline]] std::int64_t push(TaskBase* t) {
    const std::int64_t b = m_bottom.load(std::memory_order_relaxed);
    Ring* r = m_ring.load(std::memory_order_relaxed);
    // `top` only grows: an old value underestimates the room, so the line
    // thieves write is read only when the ring looks full (and every 64
    // pushes, for the statistic).
    if (b - m_top_seen > r->mask || (b & 63) == 0) {
      m_top_seen = m_top.load(std::memory_order_acquire);
      if (b - m_top_seen > r->mask) r = grow(r, m_top_seen, b);
    }
    r->slot(b).store(t, std::memory_order_relaxed);
    m_bottom.store(b + 1, std::memory_order_release);
    return b + 1 - m_top_seen;
  }

  // The newest task, or null when empty (or a thief took the last one).
  [[gnu::always_inline]] TaskBase* pop() {
    const std::int64_t b = m_bottom.load(std::memory_order_relaxed) - 1;
    // top only grows: seen at or past bottom, the deque is empty without a barrier.
    if (m_top.load(std::memory_order_relaxed) > b) return nullptr;
    Ring* r = m_ring.load(std::memory_order_relaxed);
    m_bottom.store(b, std::memory_order_seq_cst);
    std::int64_t top = m_top.load(std::memory_order_seq_cst);
    if (top > b) {  // a thief took the last one
      m_bottom.store(b + 1, std::memory_order_release);
      return nullptr;
    }
    TaskBase* t = r->slot(b).load(std::memory_order_relaxed);
    if (top == b) {  // the last task: race the thieves for it
      if (!m_top.compare_exchange_strong(top, top + 1, std::memory_order_seq_cst, std::memory_order_relaxed))
        t = nullptr;
      m_bottom.store(b + 1, std::memory_order_release);
    }
    return t;
  }

  // Whether the deque is empty, as its owner sees it (a thief may empty it
  // further, never fill it).
  bool empty_owner() const noexcept {
    return m_top.load(std::memory_order_relaxed) >= m_bottom.load(std::memory_order_relaxed);
  }

  // Tasks in the deque: at most that many (thieves may have taken some
  // since the owner last read `top`; no shared line is read), and as of now.
  std::int64_t size_estimate() const noexcept { return m_bottom.load(std::memory_order_relaxed) - m_top_seen; }
  std::int64_t size() noexcept {
    m_top_seen = m_top.load(std::memory_order_acquire);
    return m_bottom.load(std::memory_order_relaxed) - m_top_seen;
  }

  // Frees the rings retired by growths. Only while no thief runs (between waits).
  void reclaim() { m_retired.clear(); }

  // ---- any thread ----

  // The oldest task, or null when empty or when another taker won it.
  TaskBase* steal() {
    std::int64_t top = m_top.load(std::memory_order_seq_cst);
    const std::int64_t b = m_bottom.load(std::memory_order_seq_cst);
    if (top >= b) return nullptr;
    Ring* r = m_ring.load(std::memory_order_acquire);
    TaskBase* t = r->slot(top).load(std::memory_order_relaxed);
    if (!m_top.compare_exchange_strong(top, top + 1, std::memory_order_seq_cst, std::memory_order_relaxed))
      return nullptr;
    return t;
  }

  // Whether it looks empty (plain loads; for idle workers' polling).
  bool seems_empty() const noexcept {
    return m_top.load(std::memory_order_relaxed) >= m_bottom.load(std::memory_order_relaxed);
  }

 private:
  struct Ring {
    explicit Ring(int log) : mask((std::int64_t(1) << log) - 1), log2(log), slots(new std::atomic<TaskBase*>[std::size_t(1) << log]) {}
    std::atomic<TaskBase*>& slot(std::int64_t i) noexcept { return slots[std::size_t(i & mask)]; }
    std::int64_t mask;
    int log2;
    std::unique_ptr<std::atomic<TaskBase*>[]> slots;
  };

  // Doubles the ring, copying the tasks in [top, b); the old ring is retired.
  Ring* grow(Ring* old, std::int64_t top, std::int64_t b) {
    auto* r = new Ring(old->log2 + 1);
    for (std::int64_t i = top; i < b; ++i) r->slot(i).store(old->slot(i).load(std::memory_order_relaxed), std::memory_order_relaxed);
    m_retired.emplace_back(old);
    m_ring.store(r, std::memory_order_release);
    return r;
  }

  alignas(64) std::atomic<std::int64_t> m_top{0};     // thieves' CAS
  alignas(64) std::atomic<std::int64_t> m_bottom{0};  // owner's stores
  std::int64_t m_top_seen = 0;                        // owner: a past value of m_top
  std::atomic<Ring*> m_ring;
  std::vector<std::unique_ptr<Ring>> m_retired;  // owner only
};

}  // namespace tessera::detail::tasking
