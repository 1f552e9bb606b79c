#pragma once
// The task record every task and when_all aggregate starts with: plain
// fields (the two that other threads update, wait_head and refs, are
// accessed through atomic_field(): record_atomics.hpp), the markers of its wait queue, the vtable of a task's
// functor type, and the public enums of priorities and failures.
//
// Lifetime: `refs` counts futures, waiters' dependences, when_all nodes'
// inputs and the entry of a worker's parked list (task_queue.hpp: a task
// that respawned on an incomplete dependence), not the task's own
// incompleteness. A record is freed once it is complete and refs is 0, by
// whichever comes last: the completion (its exchange on wait_head finds the
// ORPHANED marker a last release left) or the last release (it finds
// wait_head CLOSED). So a task completes with one atomic read-modify-write
// (the exchange), and the last future released after completion frees the
// record with plain loads.
#include <tessera/tasking/detail/record_atomics.hpp>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <typeinfo>

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
  TaskBase* wait_head = nullptr;                  // waiters; list_marker() once complete (atomic_field)
  std::int32_t refs = 0;                          // futures + waiters' dependences + when_all inputs (atomic_field)
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

  bool is_complete() const noexcept {
    return atomic_field(wait_head).load(std::memory_order_acquire) == list_marker();
  }
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
}  // namespace detail::tasking
}  // namespace tessera
