#pragma once
// Task timelines in the TESSERA_TRACE file (core/trace_sink.hpp).
//
// A scheduler created while a trace is being recorded is traced for its
// whole life (TaskQueueBase::traced(); one predictable branch where it is
// read, nothing else when it is false). Then:
//  * every task record and every when_all node the user can name carries an
//    8-byte id after its own bytes (allocated with it: traced records are 8
//    bytes larger), so that events can name tasks whose records are reused;
//  * each thread appends fixed-size events to its own log (chunks of
//    kChunkEvents, no lock, no shared write): a Run per execution of a task
//    (per team member), a Wait per declared dependence (spawn with a
//    dependence, respawn on a future), an Input per input of a when_all;
//  * when the trace closes, the flush (src/task_trace.cpp) turns them into
//    slices and flow arrows: each Wait binds to the waiter's next run (the
//    first of its runs that starts after the run that declared it), its
//    dependence is flattened through when_all Inputs to tasks, and each such
//    task's last run is where the arrow starts.
// Ids: the thread's log number in the high bits, a counter in the low ones.
// Clock: reading the time is most of what a traced run costs. Where Linux
// itself keeps time with the TSC (its clocksource is "tsc": the counters of
// all cores run at one rate and agree, which the kernel checks at boot), a
// run reads the TSC (rdtsc) and the flush converts ticks to the trace's
// nanoseconds from two (ticks, ns) pairs taken when the first log was made
// and when the trace closes; elsewhere it reads profiling::trace_clock_ns().
#include <tessera/core/detail/cpu_hints.hpp>
#include <tessera/core/trace_sink.hpp>
#include <tessera/tasking/detail/task_record.hpp>

#include <cstdint>
#include <new>
#include <typeinfo>

namespace tessera::detail::tasking::trace {

inline constexpr std::size_t kIdBytes = sizeof(std::uint64_t);
inline constexpr int kIdCounterBits = 40;

enum class EventKind : std::uint8_t { Run, Wait, Input };

struct Event {
  std::uint64_t id;     // Run: the task; Wait: the waiting task; Input: the when_all
  std::uint64_t other;  // Run: its functor's std::type_info*; Wait: the dependence; Input: one input
  std::int64_t start;   // Run: start (now()); Wait: start of the declaring run of the waiter (0: its spawn)
  std::int64_t end;     // Run: end
  EventKind kind;
  std::uint8_t priority;  // Run: the priority it ran at
  std::uint16_t team_rank, team_size;  // Run: member of a team task (0, 1 for single tasks)
};

inline constexpr std::size_t kChunkEvents = 4096;

// One thread's events since the trace started (owned by the registry in
// src/task_trace.cpp; a thread reaches its own through t_log).
struct ThreadLog {
  Event* cursor = nullptr;  // next free event of the current chunk
  Event* limit = nullptr;
  std::uint64_t next_id = 0;    // (log number << kIdCounterBits) + counter
  std::int64_t run_start = 0;   // start of the run this thread is inside (0: none)
};

// Whether events carry TSC ticks (set once, before the first event).
inline bool g_use_tsc = false;
inline std::int64_t now() noexcept {
  if (g_use_tsc) return static_cast<std::int64_t>(host_cycle_counter());
  return profiling::trace_clock_ns();
}

// Trace generations: a log belongs to the trace that was open when it was
// made; a thread whose t_log_generation is stale asks for a new one.
inline std::atomic<unsigned> g_generation{1};
inline thread_local ThreadLog* t_log = nullptr;
inline thread_local unsigned t_log_generation = 0;

// Out of line: a new log for this thread (registers it), and a new chunk
// for a full one (or a scratch chunk once the event budget is spent).
ThreadLog* new_thread_log();
void grow(ThreadLog& log);

inline ThreadLog& log() {
  if (t_log_generation != g_generation.load(std::memory_order_relaxed)) [[unlikely]]
    t_log = new_thread_log();
  return *t_log;
}
inline Event& next_event(ThreadLog& l) {
  if (l.cursor == l.limit) [[unlikely]]
    grow(l);
  return *l.cursor++;
}

// The id slot of a traced record: its last 8 bytes (alloc_bytes includes them).
inline std::uint64_t* id_slot(TaskBase* t) noexcept {
  return std::launder(reinterpret_cast<std::uint64_t*>(reinterpret_cast<char*>(t) + t->alloc_bytes - kIdBytes));
}
// The id of a dependence or input (0 for none, and for the queue's ready record).
inline std::uint64_t id_of(TaskBase* t) noexcept { return t == nullptr || t->alloc_bytes == 0 ? 0 : *id_slot(t); }

// Gives a new traced record (alloc_bytes set) its id.
inline std::uint64_t assign_id(TaskBase* t) {
  const std::uint64_t id = ++log().next_id;
  new (id_slot(t)) std::uint64_t(id);
  return id;
}

// A task was spawned (dep: the policy's dependence, complete or not).
inline void on_spawn(TaskBase* t, TaskBase* dep) {
  const std::uint64_t id = assign_id(t);
  if (const std::uint64_t d = id_of(dep)) next_event(log()) = Event{id, d, 0, 0, EventKind::Wait, 0, 0, 0};
}

// The running task t asked to respawn on dep (null: no dependence).
inline void on_respawn(TaskBase* t, TaskBase* dep) {
  if (const std::uint64_t d = id_of(dep)) {
    ThreadLog& l = log();
    next_event(l) = Event{id_of(t), d, l.run_start, 0, EventKind::Wait, 0, 0, 0};
  }
}

// Input `in` of when_all node `all`.
inline void on_input(TaskBase* all, TaskBase* in) {
  if (const std::uint64_t i = id_of(in)) next_event(log()) = Event{id_of(all), i, 0, 0, EventKind::Input, 0, 0, 0};
}

// Runs call() (one execution of t's functor on this thread) as a traced run.
template <class Call>
void run(TaskBase* t, int rank, int team_size, Call&& call) {
  ThreadLog& l = log();
  const std::uint8_t priority = t->priority;  // a respawn may change it while the functor runs
  const std::int64_t saved = l.run_start;
  const std::int64_t start = now();
  l.run_start = start;
  // Recorded however the functor ends (a team member may leave by an exception).
  struct Record {
    ThreadLog& l;
    TaskBase* t;
    std::int64_t saved, start;
    int rank, team_size;
    std::uint8_t priority;
    ~Record() {
      const std::int64_t end = now();
      l.run_start = saved;
      next_event(l) = Event{id_of(t),
                            reinterpret_cast<std::uintptr_t>(t->vt->functor_type),
                            start,
                            end,
                            EventKind::Run,
                            priority,
                            static_cast<std::uint16_t>(rank),
                            static_cast<std::uint16_t>(team_size)};
    }
  } record{l, t, saved, start, rank, team_size, priority};
  call();
}

}  // namespace tessera::detail::tasking::trace
