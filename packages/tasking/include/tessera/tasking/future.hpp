#pragma once
// BasicFuture<T, Scheduler> (alias Future<T, Scheduler>): a reference-counted
// handle to a task's result, or to a when_all aggregate (T = void).
#include <tessera/tasking/detail/task_queue.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace tessera {

template <class T, class Scheduler>
class BasicFuture;

namespace detail::tasking {
struct adopt_t {};
[[noreturn]] void throw_future_error(const char* what, const TaskBase* t);
}  // namespace detail::tasking

template <class T, class Scheduler>
class BasicFuture {
  using Queue = detail::tasking::TaskQueueBase;

 public:
  using value_type = T;
  using scheduler_type = Scheduler;
  using execution_space = typename Scheduler::execution_space;

  BasicFuture() noexcept = default;
  BasicFuture(const BasicFuture& o) noexcept : m_task(o.m_task) { Queue::retain(m_task); }
  BasicFuture(BasicFuture&& o) noexcept : m_task(o.m_task) { o.m_task = nullptr; }
  // Any future converts to a future of void on the same scheduler (to mix
  // result types in one when_all).
  template <class U>
    requires(std::is_void_v<T> && !std::is_void_v<U>)
  BasicFuture(const BasicFuture<U, Scheduler>& o) noexcept : m_task(o.impl_task()) {
    Queue::retain(m_task);
  }
  BasicFuture& operator=(const BasicFuture& o) {
    Queue::retain(o.m_task);  // first: o may be owned by what the release frees
    Queue::release(m_task);
    m_task = o.m_task;
    return *this;
  }
  BasicFuture& operator=(BasicFuture&& o) {
    if (this != &o) {
      Queue::release(m_task);
      m_task = o.m_task;
      o.m_task = nullptr;
    }
    return *this;
  }
  ~BasicFuture() { Queue::release(m_task); }

  // Drops the reference (the future becomes null).
  void clear() {
    Queue::release(m_task);
    m_task = nullptr;
  }

  bool is_null() const noexcept { return m_task == nullptr; }
  // Complete (a null future counts as ready, as in Kokkos: it is "no dependence").
  bool is_ready() const noexcept { return m_task == nullptr || m_task->is_complete(); }
  // References to the task held by futures and by the scheduler (0 when
  // null): the scheduler holds one while the task is not complete. (During
  // a wait, a task that respawned on an incomplete dependence counts one
  // more, held by the worker that saw it park until that worker next prunes
  // its list; none is left between waits.)
  int reference_count() const noexcept {
    if (m_task == nullptr) return 0;
    return m_task->refs.load(std::memory_order_relaxed) + (m_task->is_complete() ? 0 : 1);
  }

  // The result, once the task has completed. Throws std::logic_error for a
  // null future or a task that has not completed yet, std::runtime_error for
  // a task that threw or was cancelled (wait() reported why).
  decltype(auto) get() const {
    if (m_task == nullptr) detail::tasking::throw_future_error("null", nullptr);
    if (!m_task->is_complete()) detail::tasking::throw_future_error("early", m_task);
    if (m_task->failed) detail::tasking::throw_future_error("failed", m_task);
    if constexpr (!std::is_void_v<T>) return *static_cast<const T*>(m_task->vt->value(m_task));
  }

  friend bool operator==(const BasicFuture& a, const BasicFuture& b) noexcept { return a.m_task == b.m_task; }

  // ---- implementation ----
  BasicFuture(detail::tasking::TaskBase* t, detail::tasking::adopt_t) noexcept : m_task(t) {}
  detail::tasking::TaskBase* impl_task() const noexcept { return m_task; }
  detail::tasking::TaskBase* impl_release() noexcept {
    auto* t = m_task;
    m_task = nullptr;
    return t;
  }

 private:
  detail::tasking::TaskBase* m_task = nullptr;
};

}  // namespace tessera
