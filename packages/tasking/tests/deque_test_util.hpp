#pragma once
// What the deque stress tests share (test_task_deque_concurrency.cpp for the
// host scheduler's deque, test_task_cuda_deque_concurrency.cpp and
// test_task_cuda_termination_concurrency.cpp for the CUDA driver's): the
// test threads' own bounded spin, a tally that checks every record is taken
// exactly once and read after its pusher's writes, and an interleaving
// staged at a test point.
#include "tasking_test_util.hpp"

#include <tessera/core/detail/host_team.hpp>
#include <tessera/tasking/detail/test_points.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

namespace tessera::test {

// Bounded spinning for the test's own waits: pause, then yield.
inline void spin_then_yield(unsigned& idle) {
  if (idle++ < 64) tessera::detail::host_cpu_relax();
  else std::this_thread::yield();
}

// `n` records, each with a field the pusher sets to its index before the
// push (`Id`, a pointer to that member): take() counts a taker and checks
// the field, which ThreadSanitizer also checks for order; wrong() counts the
// records taken zero or several times.
template <class Record, auto Id>
struct TakenOnceTally {
  explicit TakenOnceTally(std::size_t n) : taken(new std::atomic<int>[n]), records(n), count(n) {
    for (std::size_t i = 0; i < n; ++i) taken[i].store(0, std::memory_order_relaxed);
  }
  Record* stamped(std::size_t i) {
    records[i].*Id = static_cast<std::remove_reference_t<decltype(records[i].*Id)>>(i);
    return &records[i];
  }
  void take(const Record* r) {
    ASSERT_NE(r, nullptr);
    const std::size_t i = std::size_t(r - records.data());
    ASSERT_LT(i, count) << "a pointer that was never pushed";
    taken[i].fetch_add(1, std::memory_order_relaxed);
    EXPECT_EQ(std::size_t(r->*Id), i) << "the taker read the record before its pusher's writes";
  }
  std::size_t wrong(std::size_t upto) const {
    std::size_t w = 0;
    for (std::size_t i = 0; i < upto; ++i) w += taken[i].load() != 1;
    return w;
  }
  std::size_t wrong() const { return wrong(count); }
  std::unique_ptr<std::atomic<int>[]> taken;
  std::vector<Record> records;
  std::size_t count;
};

// `k` thief threads calling try_take() (true: it took a task) until stop()
// or destruction; all are running when the constructor returns. After a
// miss a thief pauses and then yields more and more, or, keep_racing, only
// briefly before it tries again (to race the owner for the last tasks).
class Thieves {
 public:
  template <class TryTake>
  Thieves(int k, TryTake try_take, bool keep_racing = false) {
    for (int i = 0; i < k; ++i)
      m_threads.emplace_back([this, try_take, keep_racing] {
        m_started.fetch_add(1);
        unsigned idle = 0;
        while (!m_done.load(std::memory_order_acquire)) {
          if (try_take()) {
            idle = 0;
            continue;
          }
          spin_then_yield(idle);
          if (keep_racing && idle > 64) idle = 0;
        }
      });
    EXPECT_TRUE(wait_until([&] { return m_started.load() == k; }, 30.0)) << "thief threads did not start";
  }
  ~Thieves() { stop(); }
  void stop() {
    m_done.store(true, std::memory_order_release);
    for (auto& t : m_threads)
      if (t.joinable()) t.join();
  }
  Thieves(const Thieves&) = delete;
  Thieves& operator=(const Thieves&) = delete;

 private:
  std::atomic<bool> m_done{false};
  std::atomic<int> m_started{0};
  std::vector<std::thread> m_threads;
};

// Runs `action` once, the first time the calling code reaches `point` of
// detail/test_points.hpp: another warp's operation placed inside the window
// (on the same thread, which is enough to fix the interleaving). Operations
// run by the action pass the test points too; they do not fire again.
class InterleaveAt {
 public:
  using Point = tessera::detail::tasking::TestPoint;
  InterleaveAt(Point point, std::function<void()> action) {
    s_point = point;
    s_action = std::move(action);
    s_fired = false;
    tessera::detail::tasking::g_test_hook.store(&hook);
  }
  ~InterleaveAt() { tessera::detail::tasking::g_test_hook.store(nullptr); }
  InterleaveAt(const InterleaveAt&) = delete;
  InterleaveAt& operator=(const InterleaveAt&) = delete;
  bool fired() const { return s_fired; }

 private:
  static void hook(Point p, int) {
    if (p != s_point || s_fired) return;
    s_fired = true;
    s_action();
  }
  static inline Point s_point{};
  static inline std::function<void()> s_action;
  static inline bool s_fired = false;
};

}  // namespace tessera::test
