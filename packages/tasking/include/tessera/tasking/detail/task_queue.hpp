#pragma once
// The scheduler's shared state (one per TaskScheduler and its copies) and the
// host driver that runs a DAG with the execution space's fork/join.
//
// Design (see packages/tasking/docs/README.md, "Inside the scheduler"):
//  * ready queues: per worker, three work-stealing deques (High, Regular,
//    Low; work_deque.hpp) for the tasks it makes ready, and three injection
//    stacks (lock-free LIFO, task_base.hpp) for the tasks host threads make
//    ready (a deque has a single pusher). A worker pops its own High (deque,
//    then injection stack), then Regular, then Low, newest first; when those
//    are empty it steals the oldest task of another worker's deques, or a
//    host task from another injection stack (High first). No queue is shared
//    by all. A push onto a deque is plain stores, a pop one store-load
//    barrier, a steal one CAS. With one thread the worker keeps its tasks
//    in plain lists instead (WorkerState::own): no atomic operation at all.
//  * termination: m_active = workers busy + tasks made ready by host threads
//    and not taken yet. A worker is busy from the start of the wait until
//    it finds no task in its own queues nor in any other worker's; it only
//    pushes onto its own queues while busy, so when m_active is 0 every
//    queue is empty and no task runs: no task can become ready any more
//    (only a completing task, or a host thread, which counts its task, makes
//    one ready). The idle worker that sees 0 first CLOSES the count (one CAS
//    from 0 to kClosed) and every worker leaves once it sees it closed: an
//    idle worker (or one that starts late) becomes busy only by a CAS that
//    fails on a closed count, so after the close no worker takes a task (a
//    team task would wait for members that left), and all leave
//    together (a task a host thread makes ready then waits for the next
//    wait). A non-zero number of incomplete tasks at that point is a
//    dependence cycle. The hot path (push, pop, run) touches no shared
//    counter: workers count themselves, not tasks.
//  * team tasks: the worker that pops one becomes its lead, claims the single
//    "forming" slot and publishes (generation, lead, size, joined) in one
//    64-bit word; idle workers join by a CAS on that word before looking for
//    work. Only one team forms at a time, so two half-formed teams can never
//    wait for each other; the members then run the functor together on a
//    core HostTeamShared (barrier, broadcast slots) and the lead completes.
//  * task records and when_all aggregates come from a tessera::MemoryPool.
//    Counters are per worker (no shared cache line on the hot path) and are
//    summed when the wait ends.
//  * lifetime: m_live counts the handles (one unit for all) and the live
//    records; the queue deletes itself when it reaches 0. Workers count
//    their allocations and frees in a per-worker delta folded in after the
//    wait, while host threads count theirs at once, so during a wait m_live
//    may run below the true count (a host thread freeing records workers
//    made). The wait therefore holds kWaitBias units of m_live from its start
//    until after the fold: m_live cannot reach 0 while a wait runs.
//  * dependence cycles: a cycle needs a respawn edge (a spawn or when_all
//    only waits on records that exist already, i.e. older ones), so every
//    task caught in one, or waiting on one, is reachable from a task that
//    respawned on an incomplete dependence. A worker keeps such tasks in its
//    `parked` list (holding a reference; pruned of completed ones when it
//    goes idle and when the list doubles). When the wait finds incomplete
//    records and nothing left to run, it takes the waiters off those tasks'
//    dependences and drains the DAG in cancel mode: every task caught is
//    completed as failed, and its record freed with its last reference.
#include <tessera/mempool.hpp>
#include <tessera/tasking/detail/task_base.hpp>
#include <tessera/tasking/detail/task_trace.hpp>
#include <tessera/tasking/detail/work_deque.hpp>
#include <tessera/tasking/statistics.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tessera {

template <class ExecSpace>
class TaskScheduler;

namespace detail::tasking {

// Out of line (src/tasking.cpp): cold paths and messages.
std::string demangle(const std::type_info& type);
std::string task_name(const TaskBase* t);
[[noreturn]] void throw_task_failure(const std::string& task, std::exception_ptr error, std::uint64_t cancelled);
[[noreturn]] void throw_dependence_cycle(std::uint64_t waiting);
[[noreturn]] void throw_pool_exhausted(const char* where, const std::string& what, std::size_t bytes,
                                       std::size_t capacity, std::size_t max_block);
[[noreturn]] void throw_task_too_large(const char* where, const std::string& what, std::size_t bytes,
                                       std::size_t max_block);

// What a thread is doing for the tasking runtime. Null queue: plain host code.
struct WorkerState;
struct WorkerContext {
  TaskQueueBase* queue = nullptr;  // the queue whose DAG this thread is running
  WorkerState* state = nullptr;    // its counters and caches there
  int worker = 0;                  // its worker index there
  int nthreads = 1;                // threads running that DAG
  int team_rank = 0;               // rank in the current task's team
  int depth = 0;                   // tasks run inline inside a spawn (one-thread runs)
  TaskBase* current = nullptr;     // task whose functor is running on this thread
  void* solo_member = nullptr;     // member_type of a one-thread team, for TaskSingle
};
inline thread_local WorkerContext t_worker;

// ---- test hooks ------------------------------------------------------------------

// Compiled only into tests that define TESSERA_TASKING_TEST_HOOKS (every
// tasking test, see tests/CMakeLists.txt): a callback at the points where a
// race of the worker loop can be widened deterministically
// (tests/test_task_concurrency.cpp). Elsewhere the macro expands to nothing.
#if defined(TESSERA_TASKING_TEST_HOOKS)
enum class TestPoint {
  WorkerStarting,        // a worker (several threads) is about to count itself busy for the first time
  IdleBeforeLeaveCheck,  // an idle worker (several threads) is about to decide whether the wait is over
  WorkerLeft,            // a worker left the wait's loop
};
using TestHook = void (*)(TestPoint, int worker);
inline std::atomic<TestHook> g_test_hook{nullptr};
#define TESSERA_TASKING_TEST_POINT(point, worker)                                                     \
  do {                                                                                                \
    if (auto tessera_hook_ = ::tessera::detail::tasking::g_test_hook.load(std::memory_order_acquire)) \
      tessera_hook_(::tessera::detail::tasking::TestPoint::point, (worker));                          \
  } while (0)
#else
#define TESSERA_TASKING_TEST_POINT(point, worker) ((void)0)
#endif

struct alignas(64) ReadyQueues {
  std::atomic<TaskBase*> head[kPriorities] = {};
};

// Record sizes up to 2^(kRecordCacheClasses - 1) bytes are cached per worker.
inline constexpr int kRecordCacheClasses = 17;
inline constexpr std::size_t kRecordCacheBytes = std::size_t(32) << 10;

// ceil(log2(bytes)) for bytes >= 1: two requests with the same value get
// the same pool block size.
inline int record_class(std::size_t bytes) noexcept { return bytes <= 1 ? 0 : int(std::bit_width(bytes - 1)); }
// Records a worker keeps per class: kRecordCacheBytes' worth, at least 4.
inline constexpr auto kRecordCacheLimit = [] {
  std::array<std::uint32_t, kRecordCacheClasses> n{};
  for (int c = 0; c < kRecordCacheClasses; ++c) n[std::size_t(c)] = std::max<std::uint32_t>(4, std::uint32_t(kRecordCacheBytes >> c));
  return n;
}();

struct alignas(64) WorkerState {
  // Written only by the owning worker during a wait; summed afterwards.
  std::uint64_t spawned = 0, executed = 0, respawned = 0, failed_spawns = 0, steals = 0, aggregates = 0,
                completed = 0, failed = 0, peak_ready = 0;
  std::int64_t live_delta = 0;  // records allocated minus freed
  // A worker running the DAG alone keeps the tasks it makes ready in these
  // plain LIFO lists (one per priority): nobody else pops them, so no atomic
  // operation is needed. Host threads still push onto the shared heads
  // (counted in m_active). own_active: tasks in these lists plus tasks
  // taken from them and running.
  TaskBase* own[kPriorities] = {};
  std::uint64_t own_active = 0;
  // With several threads: the tasks this worker made ready, one
  // work-stealing deque per priority (work_deque.hpp). Host threads' tasks
  // go to the queue's injection stacks instead (a deque has one pusher).
  WorkDeque deque[kPriorities];
  // Tasks this worker saw respawn on an incomplete dependence (each holds a
  // reference; see "dependence cycles" above). Pruned of completed tasks
  // when it reaches prune_parked_at and whenever the worker goes idle.
  std::vector<TaskBase*> parked;
  // This worker's injection stacks (set when it starts a wait).
  ReadyQueues* inject = nullptr;
  std::size_t prune_parked_at = 64;
  // Freed records kept for reuse by this worker, by ceil(log2(bytes)): a
  // pool block serves every request of the same rounded size, so a record
  // freed here is handed to the next spawn of that size without the pool's
  // bookkeeping (locating the block, its bitset or thread-cache handshake).
  // Linked through their first word; bounded (kRecordCacheBytes per size)
  // and returned to the pool whenever the worker finds no work, when an
  // allocation fails and when the wait ends, so the pool's statistics
  // between waits count only live records.
  void* cached[kRecordCacheClasses] = {};
  std::uint32_t cached_count[kRecordCacheClasses] = {};
  // Tasks in this worker's deques (owner only): at most that many (reads
  // no shared line), and the count as of now (reads `top`).
  std::int64_t ready_estimate() const noexcept {
    return deque[0].size_estimate() + deque[1].size_estimate() + deque[2].size_estimate();
  }
  std::int64_t ready_count() noexcept { return deque[0].size() + deque[1].size() + deque[2].size(); }
  bool has_cached() const noexcept {
    for (std::uint32_t n : cached_count)
      if (n != 0) return true;
    return false;
  }
  // Team leading: the task and team context members read after joining.
  TaskBase* team_task = nullptr;
  std::unique_ptr<HostTeamShared> team;
  alignas(64) std::atomic<int> members_out{0};
};

class TaskQueueBase {
 public:
  // A one-thread run may execute ready tasks inside a spawn; this bounds the
  // nesting so that the stack stays small.
  static constexpr int kMaxInlineDepth = 48;
  // m_active once the wait is over (workers leave); host threads' tasks
  // made ready afterwards still add to it, for the next wait.
  static constexpr std::int64_t kClosed = std::int64_t(1) << 62;
  // Units of m_live a wait holds (far more than records can exist).
  static constexpr std::int64_t kWaitBias = std::int64_t(1) << 48;

  TaskQueueBase(int nqueues, int default_team_size)
      : m_traced(profiling::trace_active()),
        m_nqueues(std::max(nqueues, 1)),
        m_queues(new ReadyQueues[std::size_t(m_nqueues)]),
        m_default_team_size(default_team_size) {
    m_workers.resize(std::size_t(m_nqueues));
    for (auto& w : m_workers) w = std::make_unique<WorkerState>();
    m_ready.kind = TaskKind::Aggregate;
    m_ready.queue = this;
    m_ready.alloc_bytes = 0;  // marks the ready record (every allocated record has a size)
    m_ready.refs.store(1, std::memory_order_relaxed);
    m_ready.wait_head.store(list_marker(), std::memory_order_relaxed);
  }
  TaskQueueBase(const TaskQueueBase&) = delete;
  TaskQueueBase& operator=(const TaskQueueBase&) = delete;
  virtual ~TaskQueueBase() = default;

  virtual void* pool_allocate(std::size_t bytes) = 0;
  virtual void pool_deallocate(void* p, std::size_t bytes) = 0;
  virtual std::size_t pool_capacity() const = 0;
  virtual std::size_t pool_max_block() const = 0;
  virtual void pool_usage(std::size_t& high_water, std::size_t& in_use) const = 0;

  // ---- lifetime: handles hold one unit of m_live, every record one more ----

  void add_handle() noexcept { m_handles.fetch_add(1, std::memory_order_relaxed); }
  void drop_handle() noexcept {
    if (m_handles.fetch_sub(1, std::memory_order_acq_rel) == 1) drop_live(1);
  }

  // ---- records ----

  // The record of every when_all that found nothing left to wait for: a
  // complete aggregate of no inputs, part of the queue, never freed and not
  // reference-counted (its futures are tagged, see future.hpp), so such a
  // when_all costs no allocation and no atomic operation. It is never kept
  // as anyone's dependence (spawn and respawn drop it: it is complete).
  TaskBase* ready_record() noexcept { return &m_ready; }
  static bool is_ready_record(const TaskBase* t) noexcept { return t->alloc_bytes == 0; }

  WorkerState* local() noexcept { return t_worker.queue == this ? t_worker.state : nullptr; }

  // Whether this scheduler records task timelines (it was made while a
  // trace was being recorded; task_trace.hpp). Its records then carry an id
  // in record_extra_bytes() more bytes.
  bool traced() const noexcept { return m_traced; }
  std::size_t record_extra_bytes() const noexcept { return m_traced ? trace::kIdBytes : 0; }

  // A block for a record: from the worker's cache (w: this queue's worker
  // running the caller, null on other threads), else from the pool. The
  // cache path is inlined (a handful of plain loads and stores); the rest
  // is out of line.
  [[gnu::always_inline]] void* allocate_record(WorkerState* w, std::size_t bytes) {
    if (w != nullptr) {
      const int c = record_class(bytes);
      if (c < kRecordCacheClasses) [[likely]]
        if (void* p = w->cached[c]) {
          w->cached[c] = *static_cast<void**>(p);
          --w->cached_count[c];
          ++w->live_delta;
          return p;
        }
    }
    return allocate_record_slow(w, bytes);
  }
  void* allocate_record(std::size_t bytes) { return allocate_record(local(), bytes); }

  [[gnu::noinline]] void* allocate_record_slow(WorkerState* w, std::size_t bytes) {
    if (w != nullptr) {
      void* p = pool_allocate(bytes);
      if (!p && w->has_cached()) {  // blocks of other sizes may be parked here
        flush_record_cache(*w);
        p = pool_allocate(bytes);
      }
      if (p) ++w->live_delta;
      return p;
    }
    void* p = pool_allocate(bytes);
    if (p) m_live.fetch_add(1, std::memory_order_relaxed);
    return p;
  }

  // Returns a worker's cached records to the pool.
  void flush_record_cache(WorkerState& w) {
    for (int c = 0; c < kRecordCacheClasses; ++c) {
      void* p = w.cached[c];
      const std::size_t bytes = std::size_t(1) << c;  // same block size as the requests cached here
      while (p != nullptr) {
        void* next = *static_cast<void**>(p);
        pool_deallocate(p, bytes);
        p = next;
      }
      w.cached[c] = nullptr;
      w.cached_count[c] = 0;
    }
  }

  // Frees a record whose last reference went away (destroys its result, or
  // drops an aggregate's dependences first).
  [[gnu::always_inline]] void free_record(TaskBase* t) {
    if (t->kind == TaskKind::Aggregate) {
      free_aggregate(static_cast<AggregateTask*>(t));
      return;
    }
    if (t->vt->destroy_value != nullptr) t->vt->destroy_value(t);
    const std::size_t bytes = t->alloc_bytes;
    t->~TaskBase();
    free_raw(t, bytes);  // may delete this queue: the last thing done here
  }
  [[gnu::noinline]] void free_aggregate(AggregateTask* a) {
    for (std::uint32_t i = 0; i < a->count; ++i) release(a->deps()[i]);
    const std::size_t bytes = a->alloc_bytes;
    a->~AggregateTask();
    free_raw(a, bytes);  // may delete this queue: the last thing done here
  }

  // Returns a block (a destroyed record, or one that never held one).
  [[gnu::always_inline]] void free_raw(void* p, std::size_t bytes) {
    if (WorkerState* w = local()) {
      const int c = record_class(bytes);
      if (c < kRecordCacheClasses && w->cached_count[c] < kRecordCacheLimit[c]) [[likely]] {
        *static_cast<void**>(p) = w->cached[c];
        w->cached[c] = p;
        ++w->cached_count[c];
        --w->live_delta;
        return;
      }
    }
    free_raw_slow(p, bytes);
  }
  [[gnu::noinline]] void free_raw_slow(void* p, std::size_t bytes) {
    if (WorkerState* w = local()) {
      --w->live_delta;
      pool_deallocate(p, bytes);
      return;
    }
    pool_deallocate(p, bytes);
    drop_live(1);
  }

  static void retain(TaskBase* t) noexcept {
    if (t) t->refs.fetch_add(1, std::memory_order_relaxed);
  }
  static void release(TaskBase* t) {
    if (t) release_n(t, 1);
  }
  // Drops n references held by the caller; whoever drops the last frees the
  // record. When the caller's n are all that is left, no other thread can
  // reach the record (making a reference needs one), so the count is read,
  // not decremented: an atomic read-modify-write costs more than the rest of
  // a release (about 10 ns each on the machines measured).
  [[gnu::always_inline]] static void release_n(TaskBase* t, std::int32_t n) {
    if (t->refs.load(std::memory_order_acquire) == n || t->refs.fetch_sub(n, std::memory_order_acq_rel) == n)
      last_reference_gone(t);
  }
  // Nobody references t any more. Complete: its completion is over (it
  // touches nothing after its exchange unless it held references, which
  // were counted), so free it. Not complete: leave the ORPHANED marker; the
  // completion frees it (its wait queue is empty: waiters hold references).
  [[gnu::always_inline]] static void last_reference_gone(TaskBase* t) {
    TaskBase* h = t->wait_head.load(std::memory_order_acquire);
    if (h == list_marker()) [[likely]] {
      t->queue->free_record(t);
      return;
    }
    orphan(t, h);
  }
  [[gnu::noinline]] static void orphan(TaskBase* t, TaskBase* h) {
    for (;;) {
      if (h == list_marker()) {
        t->queue->free_record(t);
        return;
      }
      if (t->wait_head.compare_exchange_weak(h, orphan_marker(), std::memory_order_acq_rel,
                                             std::memory_order_acquire))
        return;
    }
  }

  // ---- counters ----

  void count_spawn(WorkerState* w, bool aggregate) noexcept {
    if (w) ++(aggregate ? w->aggregates : w->spawned);
    else (aggregate ? m_host_aggregates : m_host_spawned).fetch_add(1, std::memory_order_relaxed);
  }
  void count_spawn(bool aggregate) noexcept { count_spawn(local(), aggregate); }
  void count_failed_spawn() noexcept {
    if (WorkerState* w = local()) ++w->failed_spawns;
    else m_host_failed_spawns.fetch_add(1, std::memory_order_relaxed);
  }
  void count_completed(WorkerState* w) noexcept {
    if (w) ++w->completed;
    else m_host_completed.fetch_add(1, std::memory_order_relaxed);
  }
  void count_completed() noexcept { count_completed(local()); }

  // ---- scheduling ----

  // Makes t ready (pushes it) unless its dependence is incomplete, in which
  // case t joins the dependence's wait queue.
  void schedule(TaskBase* t) { schedule(local(), t); }
  [[gnu::always_inline]] void schedule(WorkerState* w, TaskBase* t) {
    if (TaskBase* d = t->dep) {
      if (wait_queue_push(d, t)) return;  // t may already be running elsewhere: do not touch it
      t->dep = nullptr;
      release(d);
    }
    push_ready(w, t);
  }

  void push_ready(TaskBase* t) { push_ready(local(), t); }
  // w: local() (passed by callers that know it).
  [[gnu::always_inline]] void push_ready(WorkerState* w, TaskBase* t) {
    const int p = t->priority;
    if (w == nullptr) {
      // A host thread: the task counts in m_active until a worker takes it.
      // Host spawns are spread over the workers' queues so that a large
      // fan-out starts on every worker without stealing.
      t->counted = 1;
      const std::int64_t before = m_active.fetch_add(1, std::memory_order_acq_rel) & ~kClosed;
      const unsigned q = m_host_next.fetch_add(1, std::memory_order_relaxed) % unsigned(m_nqueues);
      update_host_peak(std::uint64_t(before + 1));
      queue_push(m_queues[q].head[p], t);
      return;
    }
    if (t_worker.nthreads == 1) {
      t->next = w->own[p];
      w->own[p] = t;
      ++w->own_active;
      w->peak_ready = std::max<std::uint64_t>(
          w->peak_ready, w->own_active + std::uint64_t(m_active.load(std::memory_order_relaxed)));
      return;
    }
    push_own(*w, t);
  }

  // Several threads: t goes onto this worker's deque of its priority.
  [[gnu::always_inline]] static void push_own(WorkerState& w, TaskBase* t) {
    const std::int64_t queued = w.deque[t->priority].push(t);
    w.peak_ready = std::max<std::uint64_t>(w.peak_ready, std::uint64_t(queued) + 1);
  }

  // A worker took t from a shared stack: a host thread's task stops
  // counting in m_active (the worker counts itself, or with one thread it
  // counts in own_active while it runs).
  void take(TaskBase* t) noexcept {
    if (t->counted) {
      t->counted = 0;
      m_active.fetch_sub(1, std::memory_order_acq_rel);
    }
    if (t_worker.nthreads == 1) ++t_worker.state->own_active;
  }

  // Continues a when_all aggregate: waits on its next incomplete dependence,
  // or completes it when none is left.
  void continue_aggregate(AggregateTask* a) {
    while (a->next_dep < a->count) {
      TaskBase* d = a->deps()[a->next_dep];
      if (d && wait_queue_push(d, a)) return;
      ++a->next_dep;
    }
    complete(a);
  }

  // Completion: the closure goes first (so futures it holds are released
  // before any dependent runs), then the waiters are woken. After the
  // exchange, t may be freed by another thread as soon as no reference is
  // left, so nothing here reads t except to drop the woken tasks'
  // references to it (which keep it alive until then).
  void complete(TaskBase* t) { complete(t, local()); }
  // ws: local() (passed by callers that know it).
  [[gnu::always_inline]] void complete(TaskBase* t, WorkerState* ws) {
    if (t->kind != TaskKind::Aggregate && t->vt->destroy_closure != nullptr) t->vt->destroy_closure(t);
    if (ws != nullptr) {
      ++ws->completed;
      if (t->failed) ++ws->failed;
    } else {
      m_host_completed.fetch_add(1, std::memory_order_relaxed);
      if (t->failed) m_host_failed.fetch_add(1, std::memory_order_relaxed);
    }
    TaskBase* w = t->wait_head.exchange(list_marker(), std::memory_order_acq_rel);
    if (w == nullptr) return;  // nobody waits
    wake_waiters(t, w);
  }
  // After t's completion: w is what its wait queue held.
  [[gnu::noinline]] void wake_waiters(TaskBase* t, TaskBase* w) {
    if (w == orphan_marker()) {  // no future, no waiter: nobody will look at it again
      free_record(t);
      return;
    }
    // One reference per woken task (its dependence was t), dropped together
    // at the end in one operation.
    std::int32_t held = 0;
    while (w != nullptr) {
      TaskBase* next = w->next;
      if (w->kind == TaskKind::Aggregate) {
        continue_aggregate(static_cast<AggregateTask*>(w));
      } else {
        w->dep = nullptr;
        ++held;
        push_ready(w);
      }
      w = next;
    }
    if (held != 0) release_n(t, held);
  }

  // After a task's functor returned (or threw): runs it again later if it
  // asked to respawn, otherwise completes it.
  // ws: this queue's worker running t.
  [[gnu::always_inline]] void finish(TaskBase* t, WorkerState* ws) {
    if (t->respawn_requested) [[unlikely]] {
      finish_respawn(t);
      return;
    }
    complete(t, ws);
  }
  [[gnu::noinline]] void finish_respawn(TaskBase* t) {
    if (!t->failed && !m_cancel.load(std::memory_order_relaxed)) {
      t->respawn_requested = 0;
      WorkerState* w = local();
      if (w) ++w->respawned;
      if (w && !t->parked && t->dep != nullptr && !t->dep->is_complete()) note_parked(*w, t);
      schedule(t);
      return;
    }
    if (t->respawn_requested) {
      t->respawn_requested = 0;
      TaskBase* d = t->dep;
      t->dep = nullptr;
      release(d);
    }
    complete(t);
  }

  // The next task of this worker's own queues, highest priority first:
  // its own lists or deques, and its injection stacks (host threads'
  // tasks). Inlined; what needs a loop with waiting is out of line.
  [[gnu::always_inline]] TaskBase* pop_local() noexcept {
    WorkerState& w = *t_worker.state;
    if (t_worker.nthreads == 1) {
      // With one thread m_active counts only host threads' tasks not taken
      // yet: at 0 the injection stacks are empty (a host thread counts its
      // task before pushing it; one pushed meanwhile is found next time).
      if (m_active.load(std::memory_order_relaxed) != 0) [[unlikely]]
        return pop_alone_with_host_tasks(w);
      for (int p = 0; p < kPriorities; ++p)
        if (TaskBase* t = w.own[p]) {  // counted in own_active since its push
          w.own[p] = t->next;
          return t;
        }
      return nullptr;
    }
    for (int p = 0; p < kPriorities; ++p) {
      if (TaskBase* t = w.deque[p].pop()) return t;  // never counted: host tasks are not in deques
      if (w.inject->head[p].load(std::memory_order_relaxed) != nullptr)
        if (TaskBase* t = pop_injected(w.inject->head[p])) return t;
    }
    return nullptr;
  }
  [[gnu::noinline]] TaskBase* pop_alone_with_host_tasks(WorkerState& w) noexcept {
    for (int p = 0; p < kPriorities; ++p) {
      if (TaskBase* t = w.own[p]) {
        w.own[p] = t->next;
        return t;
      }
      if (w.inject->head[p].load(std::memory_order_relaxed) != nullptr)
        if (TaskBase* t = pop_injected(w.inject->head[p])) return t;
    }
    return nullptr;
  }
  // A host thread's task from an injection stack (it stops counting in m_active).
  [[gnu::noinline]] TaskBase* pop_injected(std::atomic<TaskBase*>& head) noexcept {
    TaskBase* t = queue_pop(head);
    if (t) take(t);
    return t;
  }
  // Another worker's task (the oldest of its deque), or a host thread's
  // task from another injection stack; highest priority first.
  TaskBase* steal(int worker) noexcept {
    const int me = worker % m_nqueues;
    const int nt = t_worker.nthreads;
    for (int p = 0; p < kPriorities; ++p) {
      for (int k = 1; k < nt; ++k) {
        WorkDeque& d = m_workers[std::size_t((worker + k) % nt)]->deque[p];
        if (d.seems_empty()) continue;
        if (TaskBase* t = d.steal()) {
          ++m_workers[std::size_t(worker)]->steals;
          return t;
        }
      }
      for (int k = 1; k < m_nqueues; ++k) {
        const int v = (me + k) % m_nqueues;
        if (m_queues[v].head[p].load(std::memory_order_relaxed) == nullptr) continue;
        if (TaskBase* t = queue_pop(m_queues[v].head[p])) {
          ++m_workers[std::size_t(worker)]->steals;
          take(t);
          return t;
        }
      }
    }
    return nullptr;
  }

  // ---- errors ----

  void record_error(TaskBase* t, std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(m_error_mutex);
    t->failed = 1;  // under the lock: several members of a team may throw
    if (!m_error) {
      m_error = e;
      m_error_task = task_name(t);
    }
    m_cancel.store(true, std::memory_order_release);
  }
  bool cancelling() const noexcept { return m_cancel.load(std::memory_order_acquire); }

  // Whether waiting on d would make t wait on itself: d is t, or a when_all
  // (possibly nested) that contains t. Aggregates' dependence lists never
  // change, so this reads nothing another thread writes.
  static bool depends_on(TaskBase* d, const TaskBase* t) {
    if (d == t) return true;
    if (d == nullptr || d->kind != TaskKind::Aggregate || d->is_complete()) return false;
    auto* a = static_cast<AggregateTask*>(d);
    for (std::uint32_t i = 0; i < a->count; ++i)
      if (depends_on(a->deps()[i], t)) return true;
    return false;
  }

  // ---- statistics ----

  TaskStatistics statistics() const {
    TaskStatistics s = m_totals;
    s.spawned += m_host_spawned.load(std::memory_order_relaxed);
    s.aggregates += m_host_aggregates.load(std::memory_order_relaxed);
    s.failed_spawns += m_host_failed_spawns.load(std::memory_order_relaxed);
    s.completed += m_host_completed.load(std::memory_order_relaxed);
    s.failed += m_host_failed.load(std::memory_order_relaxed);
    s.peak_ready = std::max<std::uint64_t>(s.peak_ready, m_host_peak.load(std::memory_order_relaxed));
    s.team_size = m_default_team_size;
    s.pool_capacity_bytes = pool_capacity();
    s.pool_block_bytes_max = pool_max_block();
    pool_usage(s.pool_high_water_bytes, s.pool_in_use_bytes);
    return s;
  }
  void reset_statistics() {
    const std::uint64_t outstanding = incomplete();
    m_totals = TaskStatistics();
    m_host_spawned = 0;
    m_host_aggregates = 0;
    m_host_failed_spawns = 0;
    m_host_failed = 0;
    m_host_peak = 0;
    m_host_completed = 0;
    // Keep "created - completed" right for the cycle check of the next wait.
    m_totals.spawned = 0;
    m_outstanding_bias = outstanding;
  }

  int default_team_size() const noexcept { return m_default_team_size; }
  void set_default_team_size(int n) noexcept { m_default_team_size = n; }
  int nqueues() const noexcept { return m_nqueues; }

  // Whether any worker's deque or injection stack holds a task (plain
  // loads; for idle workers).
  bool work_visible() const noexcept {
    for (int v = 0; v < m_nqueues; ++v)
      for (int p = 0; p < kPriorities; ++p)
        if (m_queues[v].head[p].load(std::memory_order_relaxed) != nullptr) return true;
    const int nt = t_worker.nthreads;
    for (int v = 0; v < nt; ++v)
      for (int p = 0; p < kPriorities; ++p)
        if (!m_workers[std::size_t(v)]->deque[p].seems_empty()) return true;
    return false;
  }

  // A host thread creating a task or when_all node (between counting it and
  // pushing it or parking it on a wait queue): workers do not leave while
  // one is under way, and the cycle check does not count it.
  struct HostSpawning {
    TaskQueueBase* q;
    explicit HostSpawning(TaskQueueBase* queue) : q(queue) {
      if (q) q->m_host_spawning.fetch_add(1, std::memory_order_acq_rel);
    }
    ~HostSpawning() {
      if (q) q->m_host_spawning.fetch_sub(1, std::memory_order_release);
    }
    HostSpawning(const HostSpawning&) = delete;
    HostSpawning& operator=(const HostSpawning&) = delete;
  };
  // Called by an idle worker: whether the wait is over for every worker.
  // Closes it when nothing is left (no worker busy, no host thread's task
  // pending, no host thread inside a spawn).
  bool wait_over() noexcept {
    std::int64_t a = m_active.load(std::memory_order_acquire);
    if (a >= kClosed) return true;
    if (a != 0 || m_host_spawning.load(std::memory_order_acquire) != 0) return false;
    return m_active.compare_exchange_strong(a, kClosed, std::memory_order_acq_rel,
                                            std::memory_order_acquire) ||
           a >= kClosed;
  }
  // An idle worker that saw work counts itself busy again, unless the wait
  // was closed meanwhile (then it must leave with the others).
  bool reactivate() noexcept {
    std::int64_t a = m_active.load(std::memory_order_relaxed);
    while (a < kClosed)
      if (m_active.compare_exchange_weak(a, a + 1, std::memory_order_acq_rel, std::memory_order_relaxed))
        return true;
    return false;
  }

  // ---- parked tasks (see "dependence cycles" above) ----

  void note_parked(WorkerState& w, TaskBase* t) {
    w.parked.push_back(t);
    t->parked = 1;
    retain(t);
    if (w.parked.size() >= w.prune_parked_at) prune_parked(w);
  }
  // Drops the entries of completed tasks (which may free them: on a worker,
  // into its record cache).
  void prune_parked(WorkerState& w) {
    std::size_t kept = 0;
    for (TaskBase* t : w.parked) {
      if (t->is_complete()) release(t);
      else w.parked[kept++] = t;
    }
    w.parked.resize(kept);
    w.prune_parked_at = std::max<std::size_t>(64, 2 * kept);
  }

 protected:
  // Tasks and aggregates created and not yet complete.
  std::uint64_t incomplete() const {
    const TaskStatistics s = statistics();
    return m_outstanding_bias + s.spawned + s.aggregates - s.completed;
  }

  void drop_live(std::int64_t n) {
    if (m_live.fetch_sub(n, std::memory_order_acq_rel) == n) delete this;
  }
  // The wait's hold on m_live (see "lifetime" above), taken after the
  // one-wait-at-a-time check. Released last: it may delete the queue.
  void hold_for_wait() noexcept { m_live.fetch_add(kWaitBias, std::memory_order_relaxed); }
  void end_hold_for_wait() { drop_live(kWaitBias); }
  void update_host_peak(std::uint64_t v) noexcept {
    std::uint64_t cur = m_host_peak.load(std::memory_order_relaxed);
    while (v > cur && !m_host_peak.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
    }
  }

  // Sums the workers' counters into the totals (between waits only), and
  // prunes the parked lists of workers this wait did not run.
  void collect_workers(int threads) {
    for (auto& wp : m_workers)
      if (!wp->parked.empty()) prune_parked(*wp);  // here on the host: frees count in m_live at once
    std::int64_t live = 0;
    std::uint64_t peak = 0;  // one thread: the worker's exact peak; several: the sum of each worker's
    for (auto& wp : m_workers) {
      WorkerState& w = *wp;
      m_totals.spawned += w.spawned;
      m_totals.executed += w.executed;
      m_totals.respawned += w.respawned;
      m_totals.failed_spawns += w.failed_spawns;
      m_totals.steals += w.steals;
      m_totals.aggregates += w.aggregates;
      m_totals.completed += w.completed;
      m_totals.failed += w.failed;
      peak += w.peak_ready;
      live += w.live_delta;
      w.spawned = w.executed = w.respawned = w.failed_spawns = w.steals = w.aggregates = w.completed = w.failed =
          w.peak_ready = 0;
      w.live_delta = 0;
      for (WorkDeque& d : w.deque) d.reclaim();  // no thief runs between waits
    }
    m_totals.peak_ready = std::max(m_totals.peak_ready, peak);
    m_totals.threads = threads;
    // The wait holds kWaitBias units, so this never reaches 0.
    if (live > 0) m_live.fetch_add(live, std::memory_order_relaxed);
    else if (live < 0) m_live.fetch_sub(-live, std::memory_order_relaxed);
  }

  // Rethrows a task's exception, or reports tasks that can never run.
  void end_wait() {
    std::exception_ptr error;
    std::string task;
    {
      std::lock_guard<std::mutex> lock(m_error_mutex);
      error = m_error;
      task = m_error_task;
      m_error = nullptr;
      m_error_task.clear();
    }
    m_cancel.store(false, std::memory_order_release);
    if (error) throw_task_failure(task, error, m_totals.failed);
    // Host threads may spawn while the wait ends: what they spawned late is
    // counted as created but runs in the next wait, so it is no cycle. Read
    // in this order, a counted host task is still "spawning" or, pushed,
    // counted in m_active (workers are gone: nobody takes it); either way
    // the check waits for the next wait.
    const std::uint64_t waiting = incomplete();
    const bool host_work_left = m_host_spawning.load(std::memory_order_acquire) != 0 ||
                                (m_active.load(std::memory_order_acquire) & ~kClosed) != 0;
    if (waiting > 0 && !host_work_left) {
      cancel_cycles();
      // Whatever the drain could not reach (nothing, by the argument above)
      // is not reported again at the next wait.
      m_outstanding_bias -= incomplete();
      throw_dependence_cycle(waiting);
    }
  }

  // Nothing runs, nothing is ready, and `incomplete()` records wait on each
  // other. Every such record is reachable, through wait queues, from a task
  // in some worker's parked list that is still incomplete (it waits on its
  // dependence d); the waiters of each such d are made ready, and the DAG is
  // drained in cancel mode on this thread: each task caught completes as
  // failed without running, which makes its own waiters ready in turn, and
  // when_all nodes go on to their next input. Nothing else touches these
  // records meanwhile (host threads may still release futures: atomics).
  virtual void cancel_cycles() = 0;

  // Takes every waiter off d's wait queue (d is incomplete and referenced):
  // tasks become ready (and drop their reference to d), when_all nodes stay.
  void wake_waiters_of(TaskBase* d) {
    TaskBase* w = d->wait_head.exchange(nullptr, std::memory_order_acq_rel);
    std::int32_t held = 0;
    while (w != nullptr) {
      TaskBase* next = w->next;
      if (w->kind == TaskKind::Aggregate) {
        wait_queue_push(d, w);
      } else {
        w->dep = nullptr;
        ++held;
        push_ready(w);
      }
      w = next;
    }
    if (held != 0) release_n(d, held);
  }

  bool m_traced;
  int m_nqueues;
  std::unique_ptr<ReadyQueues[]> m_queues;
  AggregateTask m_ready;  // see ready_record()
  std::vector<std::unique_ptr<WorkerState>> m_workers;
  alignas(64) std::atomic<std::int64_t> m_active{0};  // busy workers + host threads' tasks not taken yet
  alignas(64) std::atomic<std::uint64_t> m_forming{0};  // generation:16 | lead:16 | size:16 | joined:16
  std::atomic<int> m_forming_owner{-1};
  alignas(64) std::atomic<bool> m_cancel{false};
  std::atomic<bool> m_waiting{false};  // a host thread is inside run()
  int m_default_team_size = 1;
  alignas(64) std::atomic<std::int64_t> m_live{1};  // the handles' unit + live records
  std::atomic<int> m_handles{1};
  std::atomic<int> m_host_spawning{0};  // host threads inside a spawn or when_all (see HostSpawning)
  // Host-side counters (host_spawn, futures released on the host, ...).
  alignas(64) std::atomic<unsigned> m_host_next{0};
  std::atomic<std::uint64_t> m_host_spawned{0}, m_host_aggregates{0}, m_host_failed_spawns{0},
      m_host_completed{0}, m_host_failed{0}, m_host_peak{0};
  TaskStatistics m_totals;
  std::uint64_t m_outstanding_bias = 0;
  std::mutex m_error_mutex;
  std::exception_ptr m_error;
  std::string m_error_task;
};

// The member_type of TaskScheduler<Exec>: a host team member (team_rank,
// team_size, team_barrier, team_broadcast/reduce/scan and the nested
// TeamThreadRange/ThreadVectorRange patterns of core) that also knows its
// scheduler. A TaskSingle task gets a team of one.
template <class Exec>
class TaskMember : public HostTeamMember<Exec> {
 public:
  using scheduler_type = TaskScheduler<Exec>;
  TaskMember(HostTeamShared& team, int rank, TaskQueueBase* queue)
      : HostTeamMember<Exec>(team, rank, 0, 1), m_queue(queue) {}
  // The scheduler running this task (a handle that does not keep it alive:
  // valid while the DAG runs).
  scheduler_type scheduler() const;
  TaskQueueBase* impl_queue() const noexcept { return m_queue; }

 private:
  TaskQueueBase* m_queue;
};

// The queue of one execution space: the pool and the driver.
template <class Exec>
class TaskQueue final : public TaskQueueBase {
 public:
  using memory_space = typename Exec::memory_space;
  using pool_type = MemoryPool<Device<Exec, memory_space>>;
  using member_type = TaskMember<Exec>;

  TaskQueue(const pool_type& pool, int nqueues, int team_size)
      : TaskQueueBase(nqueues, team_size), m_pool(pool) {}

  const pool_type& pool() const noexcept { return m_pool; }

  void* pool_allocate(std::size_t bytes) override { return m_pool.allocate(bytes); }
  void pool_deallocate(void* p, std::size_t bytes) override { m_pool.deallocate(p, bytes); }
  std::size_t pool_capacity() const override { return m_pool.capacity(); }
  std::size_t pool_max_block() const override { return m_pool.max_block_size(); }
  void pool_usage(std::size_t& high_water, std::size_t& in_use) const override {
    typename pool_type::usage_statistics u;
    m_pool.get_usage_statistics(u);
    high_water = u.high_water_bytes;
    in_use = u.consumed_bytes;
  }

  // wait(scheduler): runs the DAG on every thread of exec until nothing is
  // ready or running.
  void run(const Exec& exec) {
    if (t_worker.queue != nullptr)
      throw std::logic_error(
          "tessera::wait: called from inside a running task (" + task_name(t_worker.current) +
          "); a task never blocks: respawn it with the future as dependence instead");
    // One wait at a time: concurrent waits would share the per-worker state
    // (queues, counters) that a wait assumes it owns.
    if (m_waiting.exchange(true, std::memory_order_acq_rel))
      throw std::logic_error(
          "tessera::wait: another host thread is already waiting on this scheduler; wait from one thread "
          "(other threads may keep spawning), or give each thread its own scheduler");
    hold_for_wait();
    struct EndOfWait {
      TaskQueue& q;
      ~EndOfWait() {
        q.m_waiting.store(false, std::memory_order_release);
        q.end_hold_for_wait();  // last: may delete the queue
      }
    } end_of_wait{*this};
    // The last wait closed m_active; what host threads made ready since still counts.
    m_active.fetch_and(~kClosed, std::memory_order_acq_rel);
    const int pool = std::max(exec.impl_thread_pool_size(), 1);
    while (int(m_workers.size()) < pool) m_workers.push_back(std::make_unique<WorkerState>());
    std::atomic<int> threads{1};
    host_region(exec, [&](int tid, int nt) {
      if (tid == 0) threads.store(nt, std::memory_order_relaxed);
      worker_loop(tid, nt);
    });
    collect_workers(threads.load(std::memory_order_relaxed));
    end_wait();
  }

  // A spawn from a task on a one-thread run first runs what is ready, so
  // that the DAG is explored depth first and few records are alive at once.
  // On several threads it does so only while its deques hold more than
  // kInlineBacklog tasks per thread (a task spawning thousands: the newest
  // runs at once, while still in cache; thieves take the oldest).
  static constexpr std::int64_t kInlineBacklog = 32;
  [[gnu::always_inline]] void run_ready_inline() {
    const WorkerContext& ctx = t_worker;
    if (ctx.queue != this) return;
    const WorkerState& w = *ctx.state;
    if (ctx.nthreads != 1) {
      if (w.ready_estimate() > kInlineBacklog * ctx.nthreads) run_backlog();
      return;
    }
    if (w.own[0] == nullptr && w.own[1] == nullptr && w.own[2] == nullptr &&
        m_active.load(std::memory_order_relaxed) == 0)
      return;  // nothing ready (m_active: host threads' tasks, see pop_local)
    help([] { return true; });
  }
  [[gnu::noinline]] void run_backlog() {
    WorkerState& w = *t_worker.state;
    const std::int64_t most = kInlineBacklog * t_worker.nthreads;
    if (w.ready_count() > most) help([&w, most] { return w.ready_count() > most; });
  }

  // A when_all inside a task first runs this worker's ready tasks (the
  // inputs it just spawned, typically) until every input is complete or
  // nothing is ready here: the when_all then waits on nothing, which saves
  // the node's wait-queue traffic and the respawned task's trip through the
  // queues. Other workers still steal from this worker's stacks meanwhile.
  // input(i) is the i-th input's task (null for a null future).
  // Inputs before `first` are complete; returns how many at the front are
  // known complete now.
  template <class Input>
  std::size_t help_when_all(std::size_t first, std::size_t n, const Input& input) {
    // (completion is monotonic: an input once seen complete stays so)
    help([&] {
      for (; first < n; ++first) {
        const TaskBase* t = input(first);
        if (t && !t->is_complete()) return true;
      }
      return false;
    });
    return first;
  }

 private:
  // Runs ready tasks of this worker's own queues inside the running task
  // (depth first, at most kMaxInlineDepth levels) while more() says so.
  // With several threads only inside a single-thread task and only single-
  // thread tasks (a team needs other workers, which may be waiting for this
  // one), and never while a team is forming (it may need this worker).
  template <class More>
  void help(More&& more) {
    WorkerContext& ctx = t_worker;
    if (ctx.queue != this || ctx.depth >= kMaxInlineDepth) return;
    const bool alone = ctx.nthreads == 1;
    if (!alone && (ctx.current == nullptr || ctx.current->kind != TaskKind::Single)) return;
    ++ctx.depth;
    while (more()) {
      if (!alone && team_forming()) break;
      TaskBase* t = pop_local();
      if (t == nullptr) break;
      if (!alone && t->kind != TaskKind::Single) {
        push_own(*ctx.state, t);  // for the worker loop
        break;
      }
      execute(t);
    }
    --ctx.depth;
  }

  bool team_forming() const noexcept {
    const std::uint64_t w = m_forming.load(std::memory_order_relaxed);
    return joined_of(w) < size_of(w);
  }

  // After t's functor asked to respawn: whether it may run again at once,
  // without a trip through the queues. That is what the queues would do
  // when its dependence is complete and no ready task of this worker has a
  // higher priority (t is then the last-ready task of the highest
  // priority), and no team is forming (this worker may be needed there).
  bool rerun_at_once(const TaskBase* t) const noexcept {
    if (!t->respawn_requested || t->failed || t->kind != TaskKind::Single) return false;
    if (t->dep != nullptr && !t->dep->is_complete()) return false;
    if (m_cancel.load(std::memory_order_relaxed)) return false;
    const WorkerContext& ctx = t_worker;
    const WorkerState& ws = *ctx.state;
    for (int p = 0; p < t->priority; ++p) {
      if (ctx.nthreads == 1 ? ws.own[p] != nullptr : !ws.deque[p].empty_owner()) return false;
      if (ws.inject->head[p].load(std::memory_order_relaxed) != nullptr) return false;
    }
    return ctx.nthreads == 1 || !team_forming();
  }

  void worker_loop(int tid, int nt) {
    WorkerContext saved = t_worker;
    HostTeamShared solo(1);
    member_type solo_member(solo, 0, this);
    t_worker = WorkerContext{this, m_workers[std::size_t(tid)].get(), tid, nt, 0, 0, nullptr, &solo_member};
    WorkerState& ws = *m_workers[std::size_t(tid)];
    ws.inject = &m_queues[tid % m_nqueues];
    bool busy = false;
    try {
      if (nt == 1) run_alone(ws);
      else run_shared(ws, tid, busy);
      TESSERA_TASKING_TEST_POINT(WorkerLeft, tid);
    } catch (...) {
      if (busy) m_active.fetch_sub(1, std::memory_order_acq_rel);
      flush_record_cache(ws);
      t_worker = saved;
      throw;
    }
    // Nothing runs any more (all workers leave together): completed tasks
    // of the parked list are freed here, into the cache flushed next.
    if (!ws.parked.empty()) prune_parked(ws);
    flush_record_cache(ws);
    t_worker = saved;
  }

  void cancel_cycles() override {
    m_cancel.store(true, std::memory_order_release);
    m_active.fetch_and(~kClosed, std::memory_order_acq_rel);  // reopened for the drain
    for (auto& w : m_workers)
      for (TaskBase* t : w->parked)
        // Incomplete with a dependence: parked on it (nothing runs).
        if (!t->is_complete() && t->dep != nullptr) wake_waiters_of(t->dep);
    worker_loop(0, 1);  // this thread alone: every task it takes is cancelled
    m_cancel.store(false, std::memory_order_release);
    collect_workers(m_totals.threads);
  }

  // One thread: the worker's own lists, then host threads' tasks; it leaves
  // (closing m_active) when both are empty and no host thread's task is
  // pending.
  void run_alone(WorkerState& ws) {
    for (unsigned idle = 0;;) {
      TaskBase* t = pop_local();
      if (!t && m_nqueues > 1 && m_active.load(std::memory_order_relaxed) != 0) t = steal(0);
      if (t) {
        execute(t);
        idle = 0;
        continue;
      }
      if (idle == 0 && !ws.parked.empty()) prune_parked(ws);
      if (ws.has_cached()) flush_record_cache(ws);
      if (wait_over()) break;
      backoff(idle++);
    }
  }

  // Several threads: busy (counted in m_active) while it finds tasks; idle
  // once its own stacks and every other worker's are empty. An idle worker
  // counts itself again before it takes a task (or joins a team), and
  // leaves once m_active is closed (wait_over: all leave together).
  void run_shared(WorkerState& ws, int tid, bool& busy) {
    // A thread that starts after the others closed the wait must not take
    // what host threads made ready since (a team task would wait for
    // members that left).
    TESSERA_TASKING_TEST_POINT(WorkerStarting, tid);
    if (!reactivate()) return;
    busy = true;
    for (unsigned idle = 0;;) {
      if (try_join(busy)) {
        idle = 0;
        continue;
      }
      if (busy) {
        TaskBase* t = pop_local();
        if (!t) t = steal(tid);
        if (t) {
          execute(t);
          idle = 0;
          continue;
        }
        // Idle: completed tasks of the parked list are released, and records
        // kept in this worker's cache go back to the pool, where other
        // workers can use them.
        if (!ws.parked.empty()) prune_parked(ws);
        if (ws.has_cached()) flush_record_cache(ws);
        busy = false;
        m_active.fetch_sub(1, std::memory_order_acq_rel);
      }
      TESSERA_TASKING_TEST_POINT(IdleBeforeLeaveCheck, tid);
      if (wait_over()) break;
      if (work_visible() && reactivate()) {
        busy = true;
        continue;
      }
      backoff(idle++);
    }
  }

  static void backoff(unsigned idle) {
    if (idle < 64) host_cpu_relax();
    else std::this_thread::yield();
  }

  // Runs one popped task (with one thread it counts in own_active until
  // this returns; with several, the busy worker counts in m_active).
  void execute(TaskBase* t) {
    WorkerContext& ctx = t_worker;
    if (m_cancel.load(std::memory_order_acquire) || t->kind != TaskKind::Single) [[unlikely]] {
      execute_rare(t);
      return;
    }
    run_functor(t, ctx.solo_member, 0);
    while (t->respawn_requested && rerun_at_once(t)) {
      ++ctx.state->executed;
      ++ctx.state->respawned;
      t->respawn_requested = 0;
      TaskBase* d = t->dep;
      t->dep = nullptr;
      release(d);
      run_functor(t, ctx.solo_member, 0);
    }
    ++ctx.state->executed;
    finish(t, ctx.state);
    if (ctx.nthreads == 1) --ctx.state->own_active;
  }
  // execute() of a team task, or of any task while the DAG is cancelled.
  [[gnu::noinline]] void execute_rare(TaskBase* t) {
    WorkerContext& ctx = t_worker;
    if (m_cancel.load(std::memory_order_acquire)) {
      // Another task threw: the DAG drains without running anything more.
      t->failed = 1;
      t->respawn_requested = 0;
      TaskBase* d = t->dep;
      t->dep = nullptr;
      release(d);
      complete(t);
      if (ctx.nthreads == 1) --ctx.state->own_active;
      return;
    }
    int team = 1;
    if (t->kind == TaskKind::Team) {
      team = t->team_size > 0 ? t->team_size : m_default_team_size;
      team = std::min(team, ctx.nthreads);
    }
    if (team > 1) {
      if (!lead_team(t, team)) {
        // Another team is forming: put the task back (this worker stays
        // busy, so it is still accounted for) and go join that team.
        push_own(*ctx.state, t);
        return;
      }
    } else {
      run_functor(t, ctx.solo_member, 0);
      while (t->respawn_requested && rerun_at_once(t)) {
        ++ctx.state->executed;
        ++ctx.state->respawned;
        t->respawn_requested = 0;
        TaskBase* d = t->dep;
        t->dep = nullptr;
        release(d);
        run_functor(t, ctx.solo_member, 0);
      }
    }
    ++ctx.state->executed;
    finish(t, ctx.state);
    if (ctx.nthreads == 1) --ctx.state->own_active;
  }

  // Calls t's functor on this thread as team rank `rank`.
  [[gnu::always_inline]] void run_functor(TaskBase* t, void* member, int rank) {
    if (m_traced) [[unlikely]] {
      run_functor_traced(t, member, rank);
      return;
    }
    WorkerContext& ctx = t_worker;
    TaskBase* saved = ctx.current;
    const int saved_rank = ctx.team_rank;
    ctx.current = t;
    ctx.team_rank = rank;
    try {
      t->vt->run(t, member);
    } catch (...) {
      record_error(t, std::current_exception());
    }
    ctx.current = saved;
    ctx.team_rank = saved_rank;
  }

  [[gnu::noinline]] void run_functor_traced(TaskBase* t, void* member, int rank) {
    WorkerContext& ctx = t_worker;
    TaskBase* saved = ctx.current;
    const int saved_rank = ctx.team_rank;
    ctx.current = t;
    ctx.team_rank = rank;
    trace::run(t, rank, 1, [&] {
      try {
        t->vt->run(t, member);
      } catch (...) {
        record_error(t, std::current_exception());
      }
    });
    ctx.current = saved;
    ctx.team_rank = saved_rank;
  }

  static std::uint64_t pack(std::uint64_t gen, std::uint64_t lead, std::uint64_t size, std::uint64_t joined) {
    return (gen << 48) | (lead << 32) | (size << 16) | joined;
  }
  static int lead_of(std::uint64_t w) { return int((w >> 32) & 0xffff); }
  static int size_of(std::uint64_t w) { return int((w >> 16) & 0xffff); }
  static int joined_of(std::uint64_t w) { return int(w & 0xffff); }

  bool lead_team(TaskBase* t, int team) {
    const int me = t_worker.worker;
    int expected = -1;
    if (!m_forming_owner.compare_exchange_strong(expected, me, std::memory_order_acquire,
                                                 std::memory_order_relaxed))
      return false;
    WorkerState& ws = *m_workers[std::size_t(me)];
    ws.team_task = t;
    if (!ws.team || ws.team->team_size() != team) ws.team = std::make_unique<HostTeamShared>(team);
    ws.members_out.store(team - 1, std::memory_order_relaxed);
    const std::uint64_t gen = (m_forming.load(std::memory_order_relaxed) >> 48) + 1;
    m_forming.store(pack(gen & 0xffff, std::uint64_t(me), std::uint64_t(team), 1), std::memory_order_release);
    for (unsigned spin = 0; joined_of(m_forming.load(std::memory_order_acquire)) < team; ++spin) backoff(spin);
    m_forming_owner.store(-1, std::memory_order_release);
    run_team_member(t, *ws.team, 0);
    for (unsigned spin = 0; ws.members_out.load(std::memory_order_acquire) != 0; ++spin) backoff(spin);
    if (ws.team->aborted()) ws.team->reset_barrier();
    return true;
  }

  // Joins the forming team, if any. An idle worker becomes busy first (the
  // member may spawn, onto this worker's stacks); the lead, busy while it
  // waits, keeps m_active above 0 until then.
  bool try_join(bool& busy) {
    std::uint64_t w = m_forming.load(std::memory_order_acquire);
    while (joined_of(w) < size_of(w)) {
      if (m_forming.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel, std::memory_order_acquire)) {
        if (!busy) {
          m_active.fetch_add(1, std::memory_order_acq_rel);
          busy = true;
        }
        WorkerState& lead = *m_workers[std::size_t(lead_of(w))];
        run_team_member(lead.team_task, *lead.team, joined_of(w));
        lead.members_out.fetch_sub(1, std::memory_order_release);
        return true;
      }
    }
    return false;
  }

  void run_team_member(TaskBase* t, HostTeamShared& team, int rank) {
    member_type member(team, rank, this);
    WorkerContext& ctx = t_worker;
    TaskBase* saved = ctx.current;
    const int saved_rank = ctx.team_rank;
    ctx.current = t;
    ctx.team_rank = rank;
    try {
      if (m_traced) [[unlikely]]
        trace::run(t, rank, team.team_size(), [&] { t->vt->run(t, &member); });
      else
        t->vt->run(t, &member);
      team.barrier();  // the lead completes the task only after every member is done
    } catch (const HostTeamAborted&) {
      // Another member threw first; its exception is the one reported.
    } catch (...) {
      record_error(t, std::current_exception());
      team.abort();
    }
    ctx.current = saved;
    ctx.team_rank = saved_rank;
  }

  pool_type m_pool;
};

}  // namespace detail::tasking
}  // namespace tessera
