#pragma once
// BasicFuture<T, Scheduler> (alias Future<T, Scheduler>): a reference-counted
// handle to a task's result, or to a when_all aggregate (T = void).
//
// A when_all that found every input complete refers to its scheduler's
// ready record (TaskQueueBase::ready_record: complete, never freed, not
// counted). Such a future keeps the record's address with the low bit set
// (records are aligned), so that copying, destroying, is_ready() and get()
// never touch the record: they stay valid after the scheduler is gone, as
// they do for a task's future.
#include <tessera/tasking/detail/task_backend.hpp>

#include <cstdint>
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
  BasicFuture(const BasicFuture& o) noexcept : m_task(o.m_task) { retain(m_task); }
  BasicFuture(BasicFuture&& o) noexcept : m_task(o.m_task) { o.m_task = nullptr; }
  // Any future converts to a future of void on the same scheduler (to mix
  // result types in one when_all).
  template <class U>
    requires(std::is_void_v<T> && !std::is_void_v<U>)
  BasicFuture(const BasicFuture<U, Scheduler>& o) noexcept : m_task(o.impl_raw()) {
    retain(m_task);
  }
  BasicFuture& operator=(const BasicFuture& o) {
    retain(o.m_task);  // first: o may be owned by what the release frees
    release(m_task);
    m_task = o.m_task;
    return *this;
  }
  BasicFuture& operator=(BasicFuture&& o) {
    if (this != &o) {
      release(m_task);
      m_task = o.m_task;
      o.m_task = nullptr;
    }
    return *this;
  }
  ~BasicFuture() { release(m_task); }

  // Drops the reference (the future becomes null).
  void clear() {
    release(m_task);
    m_task = nullptr;
  }

  bool is_null() const noexcept { return m_task == nullptr; }
  // Complete (a null future counts as ready, as in Kokkos: it is "no dependence").
  bool is_ready() const noexcept { return m_task == nullptr || is_ready_tag(m_task) || m_task->is_complete(); }
  // References to the task held by futures and by the scheduler (0 when
  // null): the scheduler holds one while the task is not complete. (During
  // a wait, a task that respawned on an incomplete dependence counts one
  // more, held by the worker that saw it park until that worker next prunes
  // its list; none is left between waits.)
  // A when_all that was complete when made reports 1 (its record is shared
  // and not counted).
  int reference_count() const noexcept {
    if (m_task == nullptr) return 0;
    if (is_ready_tag(m_task)) return 1;
    return detail::tasking::atomic_field(m_task->refs).load(std::memory_order_relaxed) + (m_task->is_complete() ? 0 : 1);
  }

  // The result, once the task has completed. Throws std::logic_error for a
  // null future or a task that has not completed yet, std::runtime_error for
  // a task that threw or was cancelled (wait() reported why).
  decltype(auto) get() const {
    if (m_task == nullptr) detail::tasking::throw_future_error("null", nullptr);
    if constexpr (std::is_void_v<T>)
      if (is_ready_tag(m_task)) return;
    if (!m_task->is_complete()) detail::tasking::throw_future_error("early", m_task);
    if (m_task->failed) detail::tasking::throw_future_error("failed", m_task);
    if constexpr (!std::is_void_v<T>) return static_cast<const detail::tasking::ResultTask<T>*>(m_task)->value.get();
  }

  friend bool operator==(const BasicFuture& a, const BasicFuture& b) noexcept { return a.m_task == b.m_task; }

  // ---- implementation ----
  BasicFuture(detail::tasking::TaskBase* t, detail::tasking::adopt_t) noexcept : m_task(t) {}
  // A future of q's ready record (a when_all with nothing to wait for).
  static BasicFuture impl_ready(Queue* q) noexcept {
    static_assert(std::is_void_v<T>);
    return BasicFuture(tag(q->ready_record()), detail::tasking::adopt_t{});
  }
  // The record (untagged), and the stored pointer (tagged for the ready record).
  detail::tasking::TaskBase* impl_task() const noexcept { return untag(m_task); }
  detail::tasking::TaskBase* impl_raw() const noexcept { return m_task; }
  detail::tasking::TaskBase* impl_release() noexcept {
    auto* t = m_task;
    m_task = nullptr;
    return untag(t);
  }

 private:
  using TaskBase = detail::tasking::TaskBase;
  static bool is_ready_tag(const TaskBase* t) noexcept { return (reinterpret_cast<std::uintptr_t>(t) & 1) != 0; }
  static TaskBase* tag(TaskBase* t) noexcept {
    return reinterpret_cast<TaskBase*>(reinterpret_cast<std::uintptr_t>(t) | 1);
  }
  static TaskBase* untag(TaskBase* t) noexcept {
    return reinterpret_cast<TaskBase*>(reinterpret_cast<std::uintptr_t>(t) & ~std::uintptr_t(1));
  }
  static void retain(TaskBase* t) noexcept {
    if (!is_ready_tag(t)) Queue::retain(t);
  }
  static void release(TaskBase* t) {
    if (!is_ready_tag(t)) Queue::release(t);
  }

  detail::tasking::TaskBase* m_task = nullptr;
};

}  // namespace tessera
