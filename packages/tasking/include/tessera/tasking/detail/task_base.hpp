#pragma once
// The task record every task and when_all aggregate starts with, the two
// intrusive lists built from it (ready queues and wait queues), and the
// typed task that holds a functor and its result.
//
// Lists (all intrusive through TaskBase::next; a task is in at most one list
// at a time):
//  * ready queue: a LIFO stack with lock-free push (one CAS) and an
//    "almost atomic" pop: the popper swaps the head for a LOCKED marker, reads
//    head->next and stores it back. Holding the marker for those two
//    instructions is what makes the pop immune to ABA without tags or hazard
//    pointers; pushers and poppers that see the marker wait (SpinWait: a
//    holder preempted between the two instructions must get a core back).
//  * wait queue: the tasks and aggregates waiting for this task. Push is one
//    CAS; completion swaps the head for a CLOSED marker, after which every
//    push fails and the pusher knows the dependence is already complete.
//
// Lifetime: `refs` counts futures, waiters' dependences, when_all nodes'
// inputs and the entry of a worker's parked list (task_queue.hpp: a task
// that respawned on an incomplete dependence), not the task's own
// incompleteness. A record is freed once it is
// complete and refs is 0, by whichever comes last: the completion (its
// exchange on wait_head finds the ORPHANED marker a last release left) or
// the last release (it finds wait_head CLOSED). So a task completes with one
// atomic read-modify-write (the exchange), and the last future released
// after completion frees the record with plain loads.
#include <tessera/core.hpp>
#include <tessera/core/detail/host_team.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <typeinfo>
#include <utility>

namespace tessera {

// Priority of a ready task: a worker runs its High tasks first, then
// Regular, then Low; among tasks of equal priority the last to become ready
// runs first.
enum class TaskPriority : int { High = 0, Regular = 1, Low = 2 };

// Thrown by wait() when a task threw: names the task's functor type; the
// original exception is nested (std::rethrow_if_nested).
class TaskFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};


namespace detail::tasking {

inline constexpr int kPriorities = 3;

enum class TaskKind : std::uint8_t { Single = 0, Team = 1, Aggregate = 2 };

struct TaskBase;
class TaskQueueBase;

// Marker values of list heads; never dereferenced. list_marker(): complete
// (CLOSED). orphan_marker(): not complete, and no reference is left (so no
// waiter either): the completion frees the record.
inline TaskBase* list_marker() noexcept { return reinterpret_cast<TaskBase*>(std::uintptr_t(1)); }
inline TaskBase* orphan_marker() noexcept { return reinterpret_cast<TaskBase*>(std::uintptr_t(2)); }

// What the scheduler needs to know about a task's functor type.
struct TaskVTable {
  void (*run)(TaskBase*, void* member);  // calls the functor (member is the scheduler's member_type)
  void (*destroy_closure)(TaskBase*);    // destroys the functor, at completion (null: trivial)
  void (*destroy_value)(TaskBase*);      // destroys the result, when the record is freed (null: trivial)
  const std::type_info* functor_type;    // for error messages
  void* (*closure)(TaskBase*);           // where the functor lives (respawn(this) checks it)
  void* (*value)(TaskBase*);             // where the result lives (null result for void)
};

struct TaskBase {
  TaskBase* next = nullptr;                       // link in a ready or wait queue
  std::atomic<TaskBase*> wait_head{nullptr};      // waiters; list_marker() once complete
  std::atomic<std::int32_t> refs{0};              // futures + waiters' dependences + when_all inputs
  std::uint32_t alloc_bytes = 0;                  // what was taken from the pool
  TaskQueueBase* queue = nullptr;
  TaskBase* dep = nullptr;                        // dependence while waiting (holds a reference)
  const TaskVTable* vt = nullptr;                 // null for aggregates
  TaskKind kind = TaskKind::Single;
  std::uint8_t priority = 1;
  std::uint8_t respawn_requested = 0;
  std::uint8_t failed = 0;                        // threw, or was cancelled after another task threw
  std::uint8_t counted = 0;                       // made ready by a host thread: counts in the queue's m_active
  std::uint8_t parked = 0;                        // in a worker's parked list (written only by its runner)
  std::uint16_t team_size = 0;                    // requested team size of a Team task (0: scheduler default)

  bool is_complete() const noexcept { return wait_head.load(std::memory_order_acquire) == list_marker(); }
  void* closure() noexcept { return vt->closure(this); }
};

// A when_all aggregate: completes when its `count` dependences have. It waits
// on one incomplete dependence at a time (it has a single `next` link), so
// the work is O(count) in total.
struct AggregateTask : TaskBase {
  std::uint32_t count = 0;
  std::uint32_t next_dep = 0;
  TaskBase** deps() noexcept { return reinterpret_cast<TaskBase**>(this + 1); }
};
static_assert(sizeof(AggregateTask) % alignof(TaskBase*) == 0);

// ---- list primitives -----------------------------------------------------------

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
  TaskBase* h = d->wait_head.load(std::memory_order_acquire);
  for (;;) {
    if (h == list_marker()) return false;
    w->next = h;
    if (d->wait_head.compare_exchange_weak(h, w, std::memory_order_acq_rel, std::memory_order_acquire)) return true;
  }
}

// ---- typed tasks ---------------------------------------------------------------

// A task functor's result type: F::value_type if declared; otherwise, for a
// lambda (member_type&, T&), T; otherwise void.
template <class M>
struct second_parameter {
  using type = void;
};
template <class C, class R, class A1, class A2>
struct second_parameter<R (C::*)(A1, A2) const> {
  using type = std::remove_cvref_t<A2>;
};
template <class C, class R, class A1, class A2>
struct second_parameter<R (C::*)(A1, A2)> {
  using type = std::remove_cvref_t<A2>;
};
template <class F, class = void>
struct lambda_value {
  using type = void;
};
template <class F>
struct lambda_value<F, std::void_t<decltype(&F::operator())>> {
  using type = typename second_parameter<decltype(&F::operator())>::type;
};
template <class F, class = void>
struct task_value {
  using type = typename lambda_value<F>::type;
};
template <class F>
struct task_value<F, std::void_t<typename F::value_type>> {
  using type = typename F::value_type;
};
template <class F>
using task_value_t = typename task_value<std::remove_cvref_t<F>>::type;

template <class T>
struct ValueSlot {
  alignas(T) unsigned char bytes[sizeof(T)];
  T& get() noexcept { return *std::launder(reinterpret_cast<T*>(bytes)); }
  const T& get() const noexcept { return *std::launder(reinterpret_cast<const T*>(bytes)); }
};
template <>
struct ValueSlot<void> {};

// The part of a task record that holds its result: a future of T reaches it
// by a static cast, without knowing the functor's type.
template <class T>
struct ResultTask : TaskBase {
  ValueSlot<T> value;
};

template <class Member, class F>
struct Task final : ResultTask<task_value_t<F>> {
  using value_type = task_value_t<F>;
  alignas(F) unsigned char closure_bytes[sizeof(F)];

  F& functor() noexcept { return *std::launder(reinterpret_cast<F*>(closure_bytes)); }

  static void run(TaskBase* b, void* m) {
    auto* t = static_cast<Task*>(b);
    Member& member = *static_cast<Member*>(m);
    if constexpr (std::is_void_v<value_type>) {
      t->functor()(member);
    } else {
      t->functor()(member, t->value.get());
    }
  }
  static void destroy_closure(TaskBase* b) { static_cast<Task*>(b)->functor().~F(); }
  static void destroy_value(TaskBase* b) {
    if constexpr (!std::is_void_v<value_type>) static_cast<Task*>(b)->value.get().~value_type();
  }
  static void* closure_of(TaskBase* b) noexcept { return &static_cast<Task*>(b)->functor(); }
  static void* value_of(TaskBase* b) noexcept {
    if constexpr (std::is_void_v<value_type>) return nullptr;
    else return &static_cast<Task*>(b)->value.get();
  }
  static const TaskVTable vtable;
};

template <class Member, class F>
const TaskVTable Task<Member, F>::vtable = {
    &Task::run, std::is_trivially_destructible_v<F> ? nullptr : &Task::destroy_closure,
    std::is_void_v<value_type> || std::is_trivially_destructible_v<value_type> ? nullptr : &Task::destroy_value,
    &typeid(F), &Task::closure_of, &Task::value_of};

}  // namespace detail::tasking
}  // namespace tessera
