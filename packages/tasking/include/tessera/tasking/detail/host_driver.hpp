#pragma once
// The host driver: TaskQueue<Exec> runs a DAG with a host execution space's
// fork/join (one worker per thread of the space; worker loop, helping,
// team formation), and TaskMember<Exec> is the member_type its tasks get.
#include <tessera/tasking/detail/queue_dependences.hpp>
#include <tessera/tasking/detail/queue_errors.hpp>
#include <tessera/tasking/detail/queue_ready.hpp>
#include <tessera/tasking/detail/queue_records.hpp>
#include <tessera/tasking/detail/queue_statistics.hpp>
#include <tessera/tasking/detail/queue_termination.hpp>

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

namespace tessera {

template <class ExecSpace>
class TaskScheduler;

namespace detail::tasking {

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
      : TaskQueueBase(nqueues, team_size), m_pool(pool) {
    m_record_batch_bytes = pool.capacity() / 256;
  }

  const pool_type& pool() const noexcept { return m_pool; }

  void* pool_allocate(std::size_t bytes) override { return m_pool.allocate(bytes); }
  void pool_deallocate(void* p, std::size_t bytes) override { m_pool.deallocate(p, bytes); }
  std::uint32_t pool_allocate_batch(std::size_t bytes, void** out, std::uint32_t n) override {
    return static_cast<std::uint32_t>(m_pool.allocate_batch(bytes, out, n));
  }
  void pool_deallocate_batch(void* const* blocks, std::uint32_t n, std::size_t bytes) override {
    m_pool.deallocate_batch(blocks, n, bytes);
  }
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
    run_single(t);
    ++ctx.state->executed;
    finish(t, ctx.state);
    if (ctx.nthreads == 1) --ctx.state->own_active;
  }

  // Runs single task t's functor, and again at once while it respawns and
  // rerun_at_once allows (each rerun counted as an execution and a respawn).
  [[gnu::always_inline]] void run_single(TaskBase* t) {
    WorkerContext& ctx = t_worker;
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
    } else if (t->kind == TaskKind::Team) {
      // A team of one: it still gets its level-0 scratch (a single task's
      // member has none, as on Cuda where 32 of them share a warp).
      WorkerState& ws = *ctx.state;
      if (!ws.solo_team) ws.solo_team = std::make_unique<HostTeamShared>(1);
      ws.solo_team->set_scratch(0, ws.team_scratch(team_scratch_bytes()), team_scratch_bytes(), 0);
      member_type member(*ws.solo_team, 0, this);
      run_functor(t, &member, 0);
    } else {
      run_single(t);
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
    ws.team->set_scratch(0, ws.team_scratch(team_scratch_bytes()), team_scratch_bytes(), 0);
    ws.members_out.store(team - 1, std::memory_order_relaxed);
    const std::uint64_t gen = (m_forming.load(std::memory_order_relaxed) >> 48) + 1;
    m_forming.store(pack(gen & 0xffff, std::uint64_t(me), std::uint64_t(team), 1), std::memory_order_release);
    ws.doorbell.wait_until([&] { return joined_of(m_forming.load(std::memory_order_acquire)) >= team; });
    m_forming_owner.store(-1, std::memory_order_release);
    run_team_member(t, *ws.team, 0);
    // The task is complete once every member has returned from it (there is
    // no closing team barrier: the members need not wait for the lead).
    ws.doorbell.wait_until([&] { return ws.members_out.load(std::memory_order_acquire) == 0; });
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
        lead.doorbell.ring();
        run_team_member(lead.team_task, *lead.team, joined_of(w));
        // The lead may complete the task and lead another team as soon as it
        // sees members_out fall to 0; this ring may then wake it early from
        // its next wait, which checks again (the doorbell lives as long as
        // the queue).
        lead.members_out.fetch_sub(1, std::memory_order_release);
        lead.doorbell.ring();
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
