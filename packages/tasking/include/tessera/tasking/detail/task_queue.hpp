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
//
// Where each concept lives: records (task_record.hpp) and the lists built
// from them (task_lists.hpp); typed tasks (typed_task.hpp); per-worker state
// (worker_state.hpp); this class's members by concept: records and lifetime
// (queue_records.hpp), dependences and completion (queue_dependences.hpp),
// ready queues (queue_ready.hpp), termination (queue_termination.hpp),
// statistics (queue_statistics.hpp), errors and cycles (queue_errors.hpp);
// the host driver, TaskQueue<Exec> (host_driver.hpp); which driver an
// execution space gets (task_backend.hpp).
#include <tessera/mempool.hpp>
#include <tessera/tasking/detail/task_errors.hpp>
#include <tessera/tasking/detail/task_lists.hpp>
#include <tessera/tasking/detail/task_record.hpp>
#include <tessera/tasking/detail/task_trace.hpp>
#include <tessera/tasking/detail/worker_state.hpp>
#include <tessera/tasking/statistics.hpp>

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tessera {

template <class ExecSpace>
class TaskScheduler;

namespace detail::tasking {

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
    atomic_field(m_ready.refs).store(1, std::memory_order_relaxed);
    atomic_field(m_ready.wait_head).store(list_marker(), std::memory_order_relaxed);
  }
  TaskQueueBase(const TaskQueueBase&) = delete;
  TaskQueueBase& operator=(const TaskQueueBase&) = delete;
  virtual ~TaskQueueBase() = default;

  virtual void* pool_allocate(std::size_t bytes) = 0;
  virtual void pool_deallocate(void* p, std::size_t bytes) = 0;
  // Batches of blocks of one size (MemoryPool::allocate_batch /
  // deallocate_batch): how a worker's record cache refills and drains.
  virtual std::uint32_t pool_allocate_batch(std::size_t bytes, void** out, std::uint32_t n) = 0;
  virtual void pool_deallocate_batch(void* const* blocks, std::uint32_t n, std::size_t bytes) = 0;
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
  [[gnu::always_inline]] void* allocate_record(WorkerState* w, std::size_t bytes);
  void* allocate_record(std::size_t bytes) { return allocate_record(local(), bytes); }

  void* allocate_record_slow(WorkerState* w, std::size_t bytes);  // [[gnu::noinline]] at its definition

  // Returns a worker's cached records to the pool.
  void flush_record_cache(WorkerState& w);
  // The record cache of class c holds more than its limit: a batch of its
  // most recent records goes back to the pool.
  void trim_record_cache(WorkerState& w, int c);  // [[gnu::noinline]] at its definition
  // Records of class c taken from the pool at once when the cache of that
  // class is empty: up to kRecordBatch, fewer in a small pool (so that one
  // worker's cache cannot hold much of it while another worker's spawn
  // finds the pool full).
  std::uint32_t record_batch(int c) const noexcept;

  // Frees a record whose last reference went away (destroys its result, or
  // drops an aggregate's dependences first).
  [[gnu::always_inline]] void free_record(TaskBase* t);
  void free_aggregate(AggregateTask* a);  // [[gnu::noinline]] at its definition

  // Returns a block (a destroyed record, or one that never held one).
  [[gnu::always_inline]] void free_raw(void* p, std::size_t bytes);
  void free_raw_slow(void* p, std::size_t bytes);  // [[gnu::noinline]] at its definition

  static void retain(TaskBase* t) noexcept;
  static void release(TaskBase* t);
  // Drops n references held by the caller; whoever drops the last frees the
  // record. When the caller's n are all that is left, no other thread can
  // reach the record (making a reference needs one), so the count is read,
  // not decremented: an atomic read-modify-write costs more than the rest of
  // a release (about 10 ns each on the machines measured).
  [[gnu::always_inline]] static void release_n(TaskBase* t, std::int32_t n);
  // Nobody references t any more. Complete: its completion is over (it
  // touches nothing after its exchange unless it held references, which
  // were counted), so free it. Not complete: leave the ORPHANED marker; the
  // completion frees it (its wait queue is empty: waiters hold references).
  [[gnu::always_inline]] static void last_reference_gone(TaskBase* t);
  static void orphan(TaskBase* t, TaskBase* h);  // [[gnu::noinline]] at its definition

  // ---- counters ----

  void count_spawn(WorkerState* w, bool aggregate) noexcept;
  void count_spawn(bool aggregate) noexcept { count_spawn(local(), aggregate); }
  void count_failed_spawn() noexcept;
  void count_completed(WorkerState* w) noexcept;
  void count_completed() noexcept { count_completed(local()); }

  // ---- scheduling ----

  // Makes t ready (pushes it) unless its dependence is incomplete, in which
  // case t joins the dependence's wait queue.
  void schedule(TaskBase* t) { schedule(local(), t); }
  [[gnu::always_inline]] void schedule(WorkerState* w, TaskBase* t);

  void push_ready(TaskBase* t) { push_ready(local(), t); }
  // w: local() (passed by callers that know it).
  [[gnu::always_inline]] void push_ready(WorkerState* w, TaskBase* t);

  // Several threads: t goes onto this worker's deque of its priority.
  [[gnu::always_inline]] static void push_own(WorkerState& w, TaskBase* t);

  // A worker took t from a shared stack: a host thread's task stops
  // counting in m_active (the worker counts itself, or with one thread it
  // counts in own_active while it runs).
  void take(TaskBase* t) noexcept;

  // Continues a when_all aggregate: waits on its next incomplete dependence,
  // or completes it when none is left.
  void continue_aggregate(AggregateTask* a);

  // Completion: the closure goes first (so futures it holds are released
  // before any dependent runs), then the waiters are woken. After the
  // exchange, t may be freed by another thread as soon as no reference is
  // left, so nothing here reads t except to drop the woken tasks'
  // references to it (which keep it alive until then).
  void complete(TaskBase* t) { complete(t, local()); }
  // ws: local() (passed by callers that know it).
  [[gnu::always_inline]] void complete(TaskBase* t, WorkerState* ws);
  // After t's completion: w is what its wait queue held.
  void wake_waiters(TaskBase* t, TaskBase* w);  // [[gnu::noinline]] at its definition

  // After a task's functor returned (or threw): runs it again later if it
  // asked to respawn, otherwise completes it.
  // ws: this queue's worker running t.
  [[gnu::always_inline]] void finish(TaskBase* t, WorkerState* ws);
  void finish_respawn(TaskBase* t);  // [[gnu::noinline]] at its definition

  // The next task of this worker's own queues, highest priority first:
  // its own lists or deques, and its injection stacks (host threads'
  // tasks). Inlined; what needs a loop with waiting is out of line.
  [[gnu::always_inline]] TaskBase* pop_local() noexcept;
  TaskBase* pop_alone_with_host_tasks(WorkerState& w) noexcept;  // [[gnu::noinline]] at its definition
  // A host thread's task from an injection stack (it stops counting in m_active).
  TaskBase* pop_injected(std::atomic<TaskBase*>& head) noexcept;  // [[gnu::noinline]] at its definition
  // Another worker's task (the oldest of its deque), or a host thread's
  // task from another injection stack; highest priority first.
  TaskBase* steal(int worker) noexcept;

  // ---- errors ----

  void record_error(TaskBase* t, std::exception_ptr e);
  bool cancelling() const noexcept { return m_cancel.load(std::memory_order_acquire); }

  // Whether waiting on d would make t wait on itself: d is t, or a when_all
  // (possibly nested) that contains t. Aggregates' dependence lists never
  // change, so this reads nothing another thread writes.
  static bool depends_on(TaskBase* d, const TaskBase* t);

  // ---- statistics ----

  TaskStatistics statistics() const;
  void reset_statistics();

  int default_team_size() const noexcept { return m_default_team_size; }
  void set_default_team_size(int n) noexcept { m_default_team_size = n; }
  // Level-0 scratch bytes of every team task (TaskScheduler::set_team_scratch_size).
  std::size_t team_scratch_bytes() const noexcept { return m_team_scratch_bytes; }
  void set_team_scratch_bytes(std::size_t n) noexcept { m_team_scratch_bytes = n; }
  int nqueues() const noexcept { return m_nqueues; }

  // Whether any worker's deque or injection stack holds a task (plain
  // loads; for idle workers).
  bool work_visible() const noexcept;

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
  bool wait_over() noexcept;
  // An idle worker that saw work counts itself busy again, unless the wait
  // was closed meanwhile (then it must leave with the others).
  bool reactivate() noexcept;

  // ---- parked tasks (see "dependence cycles" above) ----

  void note_parked(WorkerState& w, TaskBase* t);
  // Drops the entries of completed tasks (which may free them: on a worker,
  // into its record cache).
  void prune_parked(WorkerState& w);

 protected:
  // Tasks and aggregates created and not yet complete.
  std::uint64_t incomplete() const;

  void drop_live(std::int64_t n);
  // The wait's hold on m_live (see "lifetime" above), taken after the
  // one-wait-at-a-time check. Released last: it may delete the queue.
  void hold_for_wait() noexcept { m_live.fetch_add(kWaitBias, std::memory_order_relaxed); }
  void end_hold_for_wait() { drop_live(kWaitBias); }
  void update_host_peak(std::uint64_t v) noexcept;

  // Sums the workers' counters into the totals (between waits only), and
  // prunes the parked lists of workers this wait did not run.
  void collect_workers(int threads);

  // Rethrows a task's exception, or reports tasks that can never run.
  void end_wait();

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
  void wake_waiters_of(TaskBase* d);

  bool m_traced;
  // pool capacity / 256: the most a refill takes from the pool at once.
  std::size_t m_record_batch_bytes = 0;
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
  std::size_t m_team_scratch_bytes = 0;
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

}  // namespace detail::tasking
}  // namespace tessera
