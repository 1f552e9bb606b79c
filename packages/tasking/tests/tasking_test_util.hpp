#pragma once
// Helpers shared by the tasking tests: the execution spaces that have a task
// driver (tessera::test::ExecutionSpaces without those that do not yet), and
// a few reference values.
#include "tessera_test_spaces.hpp"

#include <tessera/tasking.hpp>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>

namespace tessera::test {

template <class Space>
inline constexpr bool has_task_driver = tessera::is_host_execution_space<Space>::value;

template <class Tuple>
struct tuple_to_types;
template <class... T>
struct tuple_to_types<std::tuple<T...>> {
  using type = ::testing::Types<T...>;
};
template <class List>
struct task_spaces_of;
template <class... T>
struct task_spaces_of<::testing::Types<T...>> {
  using tuple = decltype(std::tuple_cat(std::conditional_t<has_task_driver<T>, std::tuple<T>, std::tuple<>>()...));
  using type = typename tuple_to_types<tuple>::type;
};
// Every enabled back-end that TaskScheduler supports.
using TaskSpaces = typename task_spaces_of<ExecutionSpaces>::type;

// Fibonacci from the closed form (exact in double up to n = 70).
inline std::int64_t fibonacci_closed_form(int n) {
  const double phi = (1.0 + std::sqrt(5.0)) / 2.0;
  return static_cast<std::int64_t>(std::llround(std::pow(phi, n) / std::sqrt(5.0)));
}

// Naive Fibonacci on the task DAG: spawn fib(n-1), fib(n-2), respawn on
// their when_all, add the two results on the second run.
template <class Sched>
struct Fib {
  using value_type = std::int64_t;
  using future_type = tessera::BasicFuture<std::int64_t, Sched>;
  Sched sched;
  int n;
  future_type f1, f2;

  Fib(const Sched& s, int n_) : sched(s), n(n_) {}

  void operator()(typename Sched::member_type&, std::int64_t& result) {
    if (n < 2) {
      result = n;
      return;
    }
    if (!f1.is_null() && !f2.is_null()) {
      result = f1.get() + f2.get();
      return;
    }
    // First run, or a retry after the pool was full (the futures that did
    // spawn are kept).
    if (f1.is_null()) f1 = tessera::task_spawn(tessera::TaskSingle(sched), Fib(sched, n - 1));
    if (f2.is_null()) f2 = tessera::task_spawn(tessera::TaskSingle(sched, tessera::TaskPriority::High), Fib(sched, n - 2));
    if (f1.is_null() || f2.is_null()) {
      tessera::respawn(this, sched, tessera::TaskPriority::Low);
      return;
    }
    const future_type deps[2] = {f1, f2};
    auto all = sched.when_all(deps, 2);
    if (all.is_null()) tessera::respawn(this, sched, tessera::TaskPriority::Low);
    else tessera::respawn(this, all);
  }
};

// Fibonacci written with when_all(f1, f2) (no array of copies); a pool too
// small for the DAG throws (tests that use it size their pool).
template <class Sched>
struct FibPair {
  using value_type = std::int64_t;
  Sched sched;
  int n;
  tessera::BasicFuture<std::int64_t, Sched> f1, f2;
  FibPair(const Sched& s, int n_) : sched(s), n(n_) {}
  void operator()(typename Sched::member_type&, std::int64_t& result) {
    if (n < 2) {
      result = n;
      return;
    }
    if (!f1.is_null()) {
      result = f1.get() + f2.get();
      return;
    }
    f1 = tessera::task_spawn(tessera::TaskSingle(sched), FibPair(sched, n - 1));
    f2 = tessera::task_spawn(tessera::TaskSingle(sched, tessera::TaskPriority::High), FibPair(sched, n - 2));
    if (f1.is_null() || f2.is_null()) throw std::runtime_error("pool too small for FibPair");
    tessera::respawn(this, sched.when_all(f1, f2));
  }
};

// Ends the whole test program with a message when the scope it guards is
// still running after `seconds`: a test that provokes a hang fails in
// seconds instead of running into ctest's TIMEOUT (which would also hide
// which test hung).
class Watchdog {
 public:
  Watchdog(std::string what, int seconds) : m_what(std::move(what)) {
    m_thread = std::thread([this, seconds] {
      std::unique_lock<std::mutex> lock(m_mutex);
      if (!m_cv.wait_for(lock, std::chrono::seconds(seconds), [this] { return m_done; })) {
        std::fprintf(stderr, "\nWATCHDOG: %s still running after %d s: hung\n", m_what.c_str(), seconds);
        std::fflush(stderr);
        std::_Exit(3);
      }
    });
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_done = true;
    }
    m_cv.notify_all();
    m_thread.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::string m_what;
  std::mutex m_mutex;
  std::condition_variable m_cv;
  bool m_done = false;
  std::thread m_thread;
};

// Polls `done` (yielding) until it holds or `seconds` have passed; returns done().
template <class Pred>
bool wait_until(const Pred& done, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::yield();
  }
  return true;
}

}  // namespace tessera::test
