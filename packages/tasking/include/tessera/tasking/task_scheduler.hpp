#pragma once
// TaskScheduler<ExecSpace>, the spawn policies TaskSingle / TaskTeam,
// host_spawn, task_spawn, respawn, when_all and wait: Kokkos' task-DAG API.
//
//   using Sched = tessera::TaskScheduler<tessera::Threads>;
//   Sched sched(Sched::memory_space(), 1 << 20);            // a 1 MiB task pool
//   auto f = tessera::host_spawn(tessera::TaskSingle(sched), Fib{sched, 20});
//   tessera::wait(sched);
//   long r = f.get();
//
// A task is a functor with `using value_type = T;` (or void) and
// `void operator()(typename Sched::member_type&, value_type&)` (or
// `operator()(member_type&)` for void); lambdas taking (member_type&, T&)
// or (member_type&) work too. A task never blocks: to wait for other tasks
// it calls respawn(this, future) and returns, and runs again once the
// future is ready.
#include <tessera/tasking/future.hpp>

#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tessera {

template <class ExecSpace>
class TaskScheduler;

template <class ExecSpace>
class TaskPolicy;

namespace detail::tasking {

template <class S>
struct is_task_scheduler : std::false_type {};
template <class E>
struct is_task_scheduler<TaskScheduler<E>> : std::true_type {};

// Future<T, X>: X may be the scheduler or its execution space.
template <class X, class = void>
struct scheduler_of {
  using type = X;
};
template <class X>
struct scheduler_of<X, std::enable_if_t<is_execution_space_v<X>>> {
  using type = TaskScheduler<X>;
};

// Default TaskTeam size: threads that usually share a cache domain, at most
// the pool.
inline int default_task_team_size(int pool) { return std::max(1, std::min(pool, 4)); }

[[noreturn]] void throw_bad_policy(const std::string& message);
[[noreturn]] void throw_bad_respawn(const std::string& message);

}  // namespace detail::tasking

template <class T, class X>
using Future = BasicFuture<T, typename detail::tasking::scheduler_of<X>::type>;

template <class ExecSpace>
class TaskScheduler {
  // The driver of ExecSpace (task_backend.hpp; a compile-time error names
  // the spaces that have none).
  using Backend = detail::tasking::TaskBackend<ExecSpace>;
  using Queue = typename Backend::queue_type;

 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using device_type = Device<ExecSpace, memory_space>;
  using memory_pool = MemoryPool<device_type>;
  using member_type = typename Backend::member_type;
  using scheduler_type = TaskScheduler;
  template <class T>
  using future_type = BasicFuture<T, TaskScheduler>;

  TaskScheduler() noexcept = default;

  // A scheduler with its own pool (Kokkos' constructor): capacity in bytes,
  // then the pool's smallest block, largest block and superblock (0: the
  // MemoryPool defaults, 64 B / 4 KiB, and a superblock of capacity / 32
  // clamped to [largest block, 1 MiB]). The largest block bounds the
  // size of one task record (functor + result + 56 bytes) and of one when_all
  // node (larger when_alls become a tree of nodes).
  TaskScheduler(const memory_space& space, std::size_t pool_capacity_bytes, std::size_t min_block_bytes = 0,
                std::size_t max_block_bytes = 0, std::size_t superblock_bytes = 0)
      : TaskScheduler(space, pool_capacity_bytes, min_block_bytes, max_block_bytes,
                      superblock_bytes ? superblock_bytes : default_superblock(pool_capacity_bytes, max_block_bytes),
                      0) {}

  // A superblock serves one block size at a time, and task records, when_all
  // nodes and results come in several sizes: by default the pool gets at
  // least 32 superblocks (at most 1 MiB each, at least one largest block),
  // and never fewer than kMinSuperblocks, whatever capacity was asked: a
  // pool of one superblock holds records of one size only, and a DAG whose
  // tasks need two sizes (a 64-byte one-pointer task beside a 128-byte one)
  // could then never run its next task, though the pool looked empty.
  static constexpr std::size_t kMinSuperblocks = 4;
  static std::size_t default_superblock(std::size_t capacity, std::size_t max_block) {
    const std::size_t largest = max_block ? max_block : 4096;
    std::size_t sb = std::size_t(1) << 20;
    while (sb > largest && sb * 32 > capacity) sb /= 2;
    return sb;
  }

 private:
  // The own-pool constructor's body: the capacity raised to at least
  // kMinSuperblocks superblocks (0 stays 0: the pool refuses it by name).
  TaskScheduler(const memory_space& space, std::size_t capacity, std::size_t min_block, std::size_t max_block,
                std::size_t superblock, int)
      : TaskScheduler(memory_pool(space, capacity == 0 ? 0 : std::max(capacity, kMinSuperblocks * superblock),
                                  min_block, max_block, superblock)) {}

 public:

  // A scheduler on an existing pool (shared with whoever else holds it).
  // (Such a pool is the caller's: its geometry is taken as it is.)
  explicit TaskScheduler(const memory_pool& pool) {
    if (pool.capacity() == 0)
      detail::tasking::throw_bad_policy("tessera::TaskScheduler: the memory pool is empty (default-constructed)");
    const int pool_threads = std::max(ExecSpace().concurrency(), 1);
    m_queue = new Queue(pool, pool_threads, detail::tasking::default_task_team_size(pool_threads));
    m_counted = true;  // the queue starts with one handle
  }

  // Copies made on the host keep the scheduler alive; copies made inside a
  // running task do not (like View copies inside kernels): they are valid
  // while the DAG runs, and cost no shared atomic in the hot path.
  TaskScheduler(const TaskScheduler& o) noexcept : m_queue(o.m_queue) { count(); }
  TaskScheduler(TaskScheduler&& o) noexcept : m_queue(o.m_queue), m_counted(o.m_counted) {
    o.m_queue = nullptr;
    o.m_counted = false;
  }
  TaskScheduler& operator=(const TaskScheduler& o) noexcept {
    if (this != &o) {
      TaskScheduler tmp(o);
      swap(tmp);
    }
    return *this;
  }
  TaskScheduler& operator=(TaskScheduler&& o) noexcept {
    if (this != &o) {
      TaskScheduler tmp(std::move(o));
      swap(tmp);
    }
    return *this;
  }
  ~TaskScheduler() {
    if (m_counted) m_queue->drop_handle();
  }

  explicit operator bool() const noexcept { return m_queue != nullptr; }
  friend bool operator==(const TaskScheduler& a, const TaskScheduler& b) noexcept { return a.m_queue == b.m_queue; }

  const memory_pool& memory() const { return queue("memory").pool(); }
  execution_space get_execution_space() const { return execution_space(); }

  // Default team size of TaskTeam tasks (a TaskTeam policy may override it).
  // At run time a team never exceeds the threads running the DAG.
  void set_team_size(int n) {
    check_team_size(n, "TaskScheduler::set_team_size");
    queue("set_team_size").set_default_team_size(n);
  }
  int team_size() const { return queue("team_size").default_team_size(); }

  // Level-0 scratch of every TaskTeam task: `bytes` per team, reached
  // through member.team_scratch(0) (or team_shmem()), as a kernel team's
  // is. Set between waits; it applies from the next wait on. On host spaces
  // each worker keeps a buffer for the teams it leads; on Cuda it is shared
  // memory, one slice per warp of the persistent kernel. Single tasks get
  // none (on Cuda 32 of them share a warp). Refused above what a kernel
  // team may have, TeamPolicy<Exec>::scratch_size_max(0).
  void set_team_scratch_size(std::size_t bytes) {
    const std::size_t max = TeamPolicy<ExecSpace>::scratch_size_max(0);
    if (bytes > max)
      detail::tasking::throw_bad_policy(
          "tessera::TaskScheduler::set_team_scratch_size: requested " + std::to_string(bytes) +
          " bytes of level-0 team scratch per team task, but " + std::string(ExecSpace::name()) +
          " allows at most " + std::to_string(max) +
          " (TeamPolicy::scratch_size_max(0)); ask for less, e.g. by staging smaller tiles");
    queue("set_team_scratch_size").set_team_scratch_bytes(bytes);
  }
  std::size_t team_scratch_size() const { return queue("team_scratch_size").team_scratch_bytes(); }

  // Bytes one task of functor type F takes from the pool (a block size;
  // 8 bytes more are asked for when the scheduler is traced).
  template <class F>
  std::size_t spawn_allocation_size() const {
    return memory().allocate_block_size(sizeof(detail::tasking::Task<member_type, F>) +
                                        queue("spawn_allocation_size").record_extra_bytes());
  }
  // Bytes a when_all of n futures takes from the pool (all nodes of its tree).
  std::size_t when_all_allocation_size(std::size_t n) const {
    std::size_t total = 0;
    const std::size_t cap = when_all_fanout();
    if (n == 0) return 0;
    while (n > cap) {
      const std::size_t nodes = (n + cap - 1) / cap;
      total += (nodes - 1) * node_bytes(cap) + node_bytes(n - (nodes - 1) * cap);
      n = nodes;
    }
    return total + node_bytes(n);
  }

  // A future that completes when every future in [futures, futures + n) has.
  // Null futures are ignored; with nothing to wait for the result is a null
  // future (which counts as ready). When the pool is full: from host code
  // this throws; inside a task it returns a null future and counts a failed
  // spawn (respawn and try again, as with task_spawn).
  template <class T>
  future_type<void> when_all(const future_type<T>* futures, int n) const {
    if (n < 0)
      detail::tasking::throw_bad_policy("tessera::TaskScheduler::when_all: negative count n = " +
                                        std::to_string(n));
    return when_all_of(std::size_t(n), [futures](std::size_t i) { return futures[i].impl_task(); });
  }
  // when_all(f1, f2, ...): the same for futures named one by one (of any
  // result types), without first copying them into an array: each copy
  // of a future costs two atomic operations (here the array's would be the
  // only ones on the inputs).
  template <class... T>
    requires(sizeof...(T) >= 1)
  future_type<void> when_all(const future_type<T>&... futures) const {
    detail::tasking::TaskBase* const tasks[] = {futures.impl_task()...};
    return when_all_of(sizeof...(T), [&tasks](std::size_t i) { return tasks[i]; });
  }
  template <class T>
  future_type<void> when_all(std::span<const future_type<T>> futures) const {
    return when_all(futures.data(), int(futures.size()));
  }
  template <class T>
  future_type<void> when_all(const std::vector<future_type<T>>& futures) const {
    return when_all(futures.data(), int(futures.size()));
  }
  // Kokkos' generator form: the futures are func(0), ..., func(n - 1).
  template <class F>
    requires std::is_invocable_v<const F&, int>
  future_type<void> when_all(int n, const F& func) const {
    std::vector<future_type<void>> fs;
    fs.reserve(std::size_t(std::max(n, 0)));
    for (int i = 0; i < n; ++i) fs.push_back(func(i));
    return when_all(fs.data(), n);
  }

  TaskStatistics statistics() const { return queue("statistics").statistics(); }
  void reset_statistics() { queue("reset_statistics").reset_statistics(); }

  // ---- implementation ----
  explicit TaskScheduler(detail::tasking::TaskQueueBase* q) noexcept : m_queue(static_cast<Queue*>(q)) { count(); }
  Queue* impl_queue() const noexcept { return m_queue; }
  Queue& queue(const char* what) const {
    if (!m_queue)
      detail::tasking::throw_bad_policy(std::string("tessera::TaskScheduler::") + what +
                                        ": the scheduler is null (default-constructed or moved from)");
    return *m_queue;
  }
  static void check_team_size(int n, const char* where) {
    if (n < 1 || n > 0xffff)
      detail::tasking::throw_bad_policy(std::string("tessera::") + where + ": team size " + std::to_string(n) +
                                        " is not in [1, 65535]");
  }

 private:
  void count() noexcept {
    m_counted = m_queue != nullptr && detail::tasking::t_worker.queue == nullptr;
    if (m_counted) m_queue->add_handle();
  }
  void swap(TaskScheduler& o) noexcept {
    std::swap(m_queue, o.m_queue);
    std::swap(m_counted, o.m_counted);
  }

  // Inputs one node holds (traced: its id takes room too).
  std::size_t when_all_fanout(bool traced) const {
    const std::size_t max = memory().max_block_size();
    return (max - node_request(0, traced)) / sizeof(detail::tasking::TaskBase*);
  }
  std::size_t when_all_fanout() const { return when_all_fanout(m_queue->traced()); }
  // Bytes asked of the pool for a node of `count` inputs, and the block it takes.
  static constexpr std::size_t node_request(std::size_t count, bool traced) {
    return sizeof(detail::tasking::AggregateTask) + count * sizeof(detail::tasking::TaskBase*) +
           (traced ? detail::tasking::trace::kIdBytes : 0);
  }
  std::size_t node_bytes(std::size_t count) const {
    return memory().allocate_block_size(node_request(count, m_queue->traced()));
  }

  // when_all over input(0), ..., input(n - 1) (tasks, null for null futures).
  // Two instantiations: the untraced one knows at compile time that records
  // carry no id (it is what it was before tracing existed).
  template <class Input>
  future_type<void> when_all_of(std::size_t n, const Input& input) const {
    if (queue("when_all").traced()) [[unlikely]]
      return when_all_as<true>(n, input);
    return when_all_as<false>(n, input);
  }
  template <bool Traced, class Input>
  future_type<void> when_all_as(std::size_t n, const Input& input) const {
    using namespace detail::tasking;
    Queue& q = *m_queue;
    // One pass over the inputs checks them and finds the first incomplete
    // one (a large when_all reads each record once here).
    std::size_t live = 0, first = n;
    for (std::size_t i = 0; i < n; ++i) {
      TaskBase* t = input(i);
      if (t == nullptr) continue;
      if (t->queue != m_queue) [[unlikely]]
        throw_bad_policy("tessera::TaskScheduler::when_all: future " + std::to_string(i) +
                         " belongs to another scheduler");
      ++live;
      if (first == n && !t->is_complete()) first = i;
    }
    if (live == 0) return future_type<void>();
    const bool in_task = t_worker_in(q);
    TaskQueueBase::HostSpawning host_spawning(in_task ? nullptr : &q);
    // Inside a task, this worker's ready tasks run first (see
    // TaskQueue::help_when_all), so the inputs a task just spawned are
    // usually complete and the when_all waits on nothing: it is then the
    // scheduler's ready record (no allocation, no atomic operation). A node
    // keeps (and references) only inputs still incomplete: a complete one
    // is never looked at again. Inputs before `first` are complete.
    if (in_task && first < n) first = q.help_when_all(first, n, input);
    std::size_t pending = 0;
    for (std::size_t i = first; i < n; ++i)
      if (TaskBase* t = input(i); t && !t->is_complete()) ++pending;
    // (A traced scheduler makes a complete node instead, which has an id:
    // the trace draws the arrows from the inputs to whoever waits on it.)
    if (pending == 0 && !Traced) {
      WorkerState* w = in_task ? q.local() : nullptr;
      q.count_spawn(w, true);
      q.count_completed(w);
      return future_type<void>::impl_ready(&q);
    }
    if (pending <= when_all_fanout(Traced)) {
      // The common case: one node, no temporary storage.
      const std::size_t bytes = node_request(pending, Traced);
      void* mem = q.allocate_record(bytes);
      if (!mem) return when_all_failed(q, live);
      auto* a = new (mem) AggregateTask;
      std::size_t k = 0;
      // Completion is monotonic: an input incomplete now was incomplete in
      // the count above, so at most `pending` are kept.
      for (std::size_t i = first; i < n; ++i)
        if (TaskBase* t = input(i); t && !t->is_complete()) {
          TaskQueueBase::retain(t);
          a->deps()[k++] = t;
        }
      init_node(a, bytes, k);
      if constexpr (Traced) trace_inputs(a, n, input);
      q.count_spawn(true);
      if (k == 0) return complete_node(q, a);
      q.continue_aggregate(a);
      return future_type<void>(a, adopt_t{});
    }
    std::vector<TaskBase*> items;
    items.reserve(pending);
    for (std::size_t i = first; i < n; ++i)
      if (TaskBase* t = input(i); t && !t->is_complete()) items.push_back(t);
    future_type<void> all = make_when_all(items, Traced);
    if constexpr (Traced)
      if (!all.is_null()) trace_inputs(all.impl_task(), n, input);
    return all;
  }

  // A traced when_all: its id, and every input (complete or not).
  template <class Input>
  void trace_inputs(detail::tasking::TaskBase* all, std::size_t n, const Input& input) const {
    detail::tasking::trace::assign_id(all);
    for (std::size_t i = 0; i < n; ++i)
      if (detail::tasking::TaskBase* t = input(i)) detail::tasking::trace::on_input(all, t);
  }

  // A when_all node over `items`, or a tree of nodes when they do not fit
  // one pool block. Every block is obtained before anything is built, so a
  // full pool leaves nothing behind.
  future_type<void> make_when_all(const std::vector<detail::tasking::TaskBase*>& items, bool traced) const {
    using namespace detail::tasking;
    Queue& q = queue("when_all");
    const std::size_t cap = when_all_fanout(traced);
    // Child counts of the nodes, level by level (leaves first).
    std::vector<std::size_t> counts;
    for (std::size_t n = items.size();;) {
      const std::size_t nodes = (n + cap - 1) / cap;
      for (std::size_t k = 0; k < nodes; ++k) counts.push_back(std::min(cap, n - k * cap));
      if (nodes == 1) break;
      n = nodes;
    }
    std::vector<void*> blocks(counts.size(), nullptr);
    for (std::size_t i = 0; i < counts.size(); ++i) {
      blocks[i] = q.allocate_record(node_request(counts[i], traced));
      if (blocks[i] == nullptr) {
        for (std::size_t j = 0; j < i; ++j) q.free_raw(blocks[j], node_request(counts[j], traced));
        return when_all_failed(q, items.size());
      }
    }
    std::vector<TaskBase*> level(items.begin(), items.end());
    std::vector<TaskBase*> parents;
    std::vector<AggregateTask*> built;
    built.reserve(counts.size());
    std::size_t node = 0;
    bool leaves = true;
    for (;;) {
      parents.clear();
      for (std::size_t b = 0; b < level.size(); b += cap, ++node) {
        const std::size_t n = counts[node];
        auto* a = new (blocks[node]) AggregateTask;
        init_node(a, node_request(n, traced), n);
        for (std::size_t i = 0; i < n; ++i) {
          if (leaves) TaskQueueBase::retain(level[b + i]);  // inner nodes adopt their children's reference
          a->deps()[i] = level[b + i];
        }
        q.count_spawn(true);
        built.push_back(a);
        parents.push_back(a);
      }
      leaves = false;
      if (parents.size() == 1) break;
      level.swap(parents);
    }
    // Children were built before their parents, so a parent always finds a
    // child complete or waitable.
    for (AggregateTask* a : built) q.continue_aggregate(a);
    return future_type<void>(built.back(), adopt_t{});
  }

  // A when_all node with nothing left to wait for: complete at once (its
  // future is the only reference).
  future_type<void> complete_node(Queue& q, detail::tasking::AggregateTask* a) const {
    detail::tasking::atomic_field(a->refs).store(1, std::memory_order_relaxed);
    detail::tasking::atomic_field(a->wait_head).store(detail::tasking::list_marker(), std::memory_order_release);
    q.count_completed();
    return future_type<void>(a, detail::tasking::adopt_t{});
  }

  void init_node(detail::tasking::AggregateTask* a, std::size_t bytes, std::size_t count) const {
    a->kind = detail::tasking::TaskKind::Aggregate;
    a->queue = m_queue;
    a->alloc_bytes = static_cast<std::uint32_t>(bytes);
    a->count = static_cast<std::uint32_t>(count);
    detail::tasking::atomic_field(a->refs).store(1, std::memory_order_relaxed);  // its future, or its parent node
  }

  // Pool full: a null future inside a task (respawn and retry), an
  // exception naming the sizes on the host.
  future_type<void> when_all_failed(Queue& q, std::size_t count) const {
    q.count_failed_spawn();
    if (t_worker_in(q)) return future_type<void>();
    detail::tasking::throw_pool_exhausted("tessera::TaskScheduler::when_all", std::to_string(count) + " futures",
                                          when_all_allocation_size(count), q.pool_capacity(), q.pool_max_block());
  }

  static bool t_worker_in(const Queue& q) { return detail::tasking::t_worker.queue == &q; }

  Queue* m_queue = nullptr;
  bool m_counted = false;
};

// ---- spawn policies -------------------------------------------------------------

// What to spawn: single-thread or team task, on which scheduler, after which
// dependence (optional), at which priority. Made by TaskSingle / TaskTeam.
template <class ExecSpace>
class TaskPolicy {
 public:
  using scheduler_type = TaskScheduler<ExecSpace>;

  TaskPolicy(detail::tasking::TaskKind kind, detail::tasking::TaskQueueBase* queue, detail::tasking::TaskBase* dep,
             TaskPriority priority)
      : m_kind(kind), m_queue(queue), m_dep(dep), m_priority(priority) {
    const int p = static_cast<int>(priority);
    if (p < 0 || p > 2)
      detail::tasking::throw_bad_policy("tessera::TaskSingle/TaskTeam: priority " + std::to_string(p) +
                                        " is not TaskPriority::High, Regular or Low");
  }

  // Team size of this TaskTeam task (the scheduler's team_size() otherwise).
  // A team never has more threads than the DAG runs on: larger requests get
  // all of them.
  TaskPolicy& set_team_size(int n) {
    if (m_kind != detail::tasking::TaskKind::Team)
      detail::tasking::throw_bad_policy("tessera::TaskSingle(...).set_team_size(" + std::to_string(n) +
                                        "): only TaskTeam tasks have a team size");
    scheduler_type::check_team_size(n, "TaskTeam(...).set_team_size");
    m_team_size = n;
    return *this;
  }
  int team_size() const noexcept { return m_team_size; }
  TaskPriority priority() const noexcept { return m_priority; }
  bool is_team() const noexcept { return m_kind == detail::tasking::TaskKind::Team; }

  detail::tasking::TaskKind impl_kind() const noexcept { return m_kind; }
  typename detail::tasking::TaskBackend<ExecSpace>::queue_type* impl_queue() const noexcept {
    return static_cast<typename detail::tasking::TaskBackend<ExecSpace>::queue_type*>(m_queue);
  }
  detail::tasking::TaskBase* impl_dependence() const noexcept { return m_dep; }

 private:
  detail::tasking::TaskKind m_kind;
  detail::tasking::TaskQueueBase* m_queue;
  detail::tasking::TaskBase* m_dep;  // not owned: the future outlives the spawn call
  TaskPriority m_priority;
  int m_team_size = 0;
};

namespace detail::tasking {
template <class E>
TaskPolicy<E> make_policy(TaskKind kind, const TaskScheduler<E>& s, TaskPriority p, const char* what) {
  return TaskPolicy<E>(kind, &s.queue(what), nullptr, p);
}
template <class T, class E>
TaskPolicy<E> make_policy(TaskKind kind, const BasicFuture<T, TaskScheduler<E>>& dep, TaskPriority p,
                          const char* what) {
  if (dep.is_null())
    throw_bad_policy(std::string("tessera::") + what +
                     "(future): the future is null, so it names no scheduler; pass the scheduler instead");
  return TaskPolicy<E>(kind, dep.impl_task()->queue, dep.impl_task(), p);
}
}  // namespace detail::tasking

// A task run by one thread.
template <class E>
TaskPolicy<E> TaskSingle(const TaskScheduler<E>& s, TaskPriority p = TaskPriority::Regular) {
  return detail::tasking::make_policy(detail::tasking::TaskKind::Single, s, p, "TaskSingle");
}
// A task run by one thread once `dep` is ready (on dep's scheduler).
template <class T, class E>
TaskPolicy<E> TaskSingle(const BasicFuture<T, TaskScheduler<E>>& dep, TaskPriority p = TaskPriority::Regular) {
  return detail::tasking::make_policy(detail::tasking::TaskKind::Single, dep, p, "TaskSingle");
}
// A task run by a team of threads (see TaskPolicy::set_team_size).
template <class E>
TaskPolicy<E> TaskTeam(const TaskScheduler<E>& s, TaskPriority p = TaskPriority::Regular) {
  return detail::tasking::make_policy(detail::tasking::TaskKind::Team, s, p, "TaskTeam");
}
template <class T, class E>
TaskPolicy<E> TaskTeam(const BasicFuture<T, TaskScheduler<E>>& dep, TaskPriority p = TaskPriority::Regular) {
  return detail::tasking::make_policy(detail::tasking::TaskKind::Team, dep, p, "TaskTeam");
}

namespace detail::tasking {

// traced: the scheduler records task timelines (its records carry an id).
template <bool from_host, bool traced, class E, class F>
auto spawn_as(const TaskPolicy<E>& policy, F&& functor) {
  using Functor = std::decay_t<F>;
  using Scheduler = TaskScheduler<E>;
  using Member = typename Scheduler::member_type;
  using TaskT = Task<Member, Functor>;
  using V = typename TaskT::value_type;
  using Future = BasicFuture<V, Scheduler>;
  static_assert(alignof(TaskT) <= 64, "tessera: a task functor may not need more than 64-byte alignment");
  static_assert(std::is_void_v<V> || std::is_default_constructible_v<V>,
                "tessera: a task's value_type must be default-constructible (the result starts value-initialized)");
  if constexpr (std::is_void_v<V>) {
    static_assert(std::is_invocable_v<Functor&, Member&>,
                  "tessera: a task functor with value_type void must be callable as f(member_type&)");
  } else {
    static_assert(std::is_invocable_v<Functor&, Member&, V&>,
                  "tessera: a task functor must be callable as f(member_type&, value_type&)");
  }
  const char* where = from_host ? "tessera::host_spawn" : "tessera::task_spawn";
  auto* q = policy.impl_queue();
  const WorkerContext& ctx = t_worker;
  if (from_host ? ctx.queue != nullptr : ctx.queue == nullptr) [[unlikely]] {
    if (!from_host)
      throw_bad_policy("tessera::task_spawn: called outside a running task; use host_spawn from host code");
    throw_bad_policy("tessera::host_spawn: called inside a running task (" + task_name(ctx.current) +
                     "); use task_spawn, which returns a null future instead of throwing when the pool is full");
  }
  TaskBase* dep = policy.impl_dependence();
  if (dep && dep->queue != q) [[unlikely]]
    throw_bad_policy(std::string(where) + ": the dependence belongs to another scheduler");
  if (dep && dep->is_complete()) dep = nullptr;  // nothing to wait for (and no reference to take)
  // A traced scheduler's records hold their id after the task (task_trace.hpp).
  constexpr std::size_t bytes = sizeof(TaskT) + (traced ? trace::kIdBytes : 0);
  if (bytes > q->pool_max_block()) [[unlikely]]
    throw_task_too_large(where, demangle(typeid(Functor)), bytes, q->pool_max_block());
  if (!from_host) q->run_ready_inline();
  // This queue's worker (null on host threads, and on workers of another
  // scheduler, which spawn here as host threads do).
  WorkerState* const w = from_host ? nullptr : q->local();
  void* mem = q->allocate_record(w, bytes);
  if (!mem) [[unlikely]] {
    q->count_failed_spawn();
    if (!from_host) return Future();
    throw_pool_exhausted(where, demangle(typeid(Functor)), bytes, q->pool_capacity(), q->pool_max_block());
  }
  auto* t = new (mem) TaskT;  // default-initialized: the result and closure bytes are constructed below
  try {
    if constexpr (!std::is_void_v<V>) new (t->value.bytes) V();
    try {
      new (t->closure_bytes) Functor(std::forward<F>(functor));
    } catch (...) {
      if constexpr (!std::is_void_v<V>) t->value.get().~V();
      throw;
    }
  } catch (...) {
    t->~TaskT();
    q->free_raw(mem, bytes);
    throw;
  }
  t->kind = policy.impl_kind();
  t->priority = static_cast<std::uint8_t>(policy.priority());
  t->team_size = static_cast<std::uint16_t>(policy.team_size());  // checked: at most 65535
  t->queue = q;
  t->vt = &TaskT::vtable;
  t->alloc_bytes = static_cast<std::uint32_t>(bytes);
  detail::tasking::atomic_field(t->refs).store(1, std::memory_order_relaxed);  // the future
  t->dep = dep;
  if constexpr (traced) trace::on_spawn(t, policy.impl_dependence());
  TaskQueueBase::retain(dep);
  TaskQueueBase::HostSpawning host_spawning(w == nullptr ? q : nullptr);
  q->count_spawn(w, false);
  q->schedule(w, t);
  return Future(t, adopt_t{});
}

template <bool from_host, class E, class F>
[[gnu::noinline]] auto spawn_traced(const TaskPolicy<E>& policy, F&& functor) {
  return spawn_as<from_host, true>(policy, std::forward<F>(functor));
}

// Two instantiations: the untraced one is what spawn was before tracing
// existed (a record size known at compile time); one branch chooses.
template <bool from_host, class E, class F>
auto spawn(const TaskPolicy<E>& policy, F&& functor) {
  if (policy.impl_queue()->traced()) [[unlikely]]
    return spawn_traced<from_host>(policy, std::forward<F>(functor));
  return spawn_as<from_host, false>(policy, std::forward<F>(functor));
}

}  // namespace detail::tasking

// Spawns a task from host code (outside wait). Throws tessera::allocation_error
// naming the pool's capacity when the pool cannot hold the task.
template <class E, class F>
auto host_spawn(const TaskPolicy<E>& policy, F&& functor) {
  return detail::tasking::spawn<true>(policy, std::forward<F>(functor));
}

// Spawns a task from inside a running task. Returns a null future when the
// pool is full: the caller may respawn itself (at TaskPriority::Low, say) and
// try again once running tasks have freed memory.
template <class E, class F>
auto task_spawn(const TaskPolicy<E>& policy, F&& functor) {
  return detail::tasking::spawn<false>(policy, std::forward<F>(functor));
}

namespace detail::tasking {
template <class Member, class F>
TaskBase* respawn_target(F* self, TaskBase* dep, const char* dep_kind) {
  TaskBase* t = t_worker.current;
  if (t == nullptr)
    throw_bad_respawn("tessera::respawn: called outside a running task (from " + demangle(typeid(F)) + ")");
  // The common case without an indirect call: the running task's functor is
  // an F (compared by type_info address: a miss only takes the general path).
  using Own = Task<Member, std::remove_cv_t<F>>;
  const bool is_self = t->vt->functor_type == &typeid(std::remove_cv_t<F>)
                           ? &static_cast<Own*>(t)->functor() == self
                           : t->closure() == static_cast<const void*>(self);
  if (!is_self)
    throw_bad_respawn("tessera::respawn: the pointer (a " + demangle(typeid(F)) +
                      ") is not the running task's functor (a " + task_name(t) + "); pass `this` from its operator()");
  if (dep != nullptr) {
    if (dep->queue != t->queue) throw_bad_respawn("tessera::respawn: the dependence belongs to another scheduler");
    if (dep == t)
      throw_bad_respawn("tessera::respawn: task " + task_name(t) +
                        " would depend on itself (its own future as dependence): a cycle that never completes");
    if (TaskQueueBase::depends_on(dep, t))
      throw_bad_respawn("tessera::respawn: task " + task_name(t) + " would depend on itself through the " +
                        dep_kind + " it waits on: a cycle that never completes");
  }
  return t;
}
// Records the respawn; false when the call does not count (team rank > 0).
// `adopt`: the caller hands over its reference to dep instead of sharing it.
inline bool request_respawn(TaskBase* t, TaskBase* dep, TaskPriority p, bool adopt) {
  const int pi = static_cast<int>(p);
  if (pi < 0 || pi > 2) throw_bad_respawn("tessera::respawn: priority " + std::to_string(pi) + " is not valid");
  // In a team task only rank 0's call counts, so every rank may call it.
  if (t_worker.team_rank != 0) return false;
  if (t->queue->traced()) [[unlikely]]
    trace::on_respawn(t, dep);
  if (dep && TaskQueueBase::is_ready_record(dep)) dep = nullptr;  // complete, and not reference-counted
  TaskBase* old = t->dep;
  if (!adopt) TaskQueueBase::retain(dep);
  t->dep = dep;
  t->priority = static_cast<std::uint8_t>(pi);
  t->respawn_requested = 1;
  TaskQueueBase::release(old);
  return true;
}
}  // namespace detail::tasking

// From inside a running task (`self` = this): once the functor returns, the
// task is not complete but runs again when `dependence` is ready, at
// `priority`. It keeps its kind (single or team) and its result.
template <class F, class T, class E>
void respawn(F* self, const BasicFuture<T, TaskScheduler<E>>& dependence,
             TaskPriority priority = TaskPriority::Regular) {
  using namespace detail::tasking;
  TaskBase* d = dependence.impl_task();
  TaskBase* t = respawn_target<TaskMember<E>>(self, d, d && d->kind == TaskKind::Aggregate ? "when_all" : "dependence");
  request_respawn(t, d, priority, false);
}
// The same with a temporary (`respawn(this, sched.when_all(...))`): the
// task takes over the future's reference instead of making another.
template <class F, class T, class E>
void respawn(F* self, BasicFuture<T, TaskScheduler<E>>&& dependence, TaskPriority priority = TaskPriority::Regular) {
  using namespace detail::tasking;
  TaskBase* d = dependence.impl_task();
  TaskBase* t = respawn_target<TaskMember<E>>(self, d, d && d->kind == TaskKind::Aggregate ? "when_all" : "dependence");
  if (request_respawn(t, d, priority, true)) (void)dependence.impl_release();
}
// Respawn with no dependence: the task is ready again at once (at
// `priority`; TaskPriority::Low lets other ready work go first).
template <class F, class E>
void respawn(F* self, const TaskScheduler<E>& /*scheduler*/, TaskPriority priority = TaskPriority::Regular) {
  using namespace detail::tasking;
  request_respawn(respawn_target<TaskMember<E>>(self, nullptr, ""), nullptr, priority, false);
}

// Runs the scheduler's DAG to completion on its execution space (every
// thread of the pool). Rethrows (as tessera::TaskFailure, which nests the
// original) an exception a task threw, after the remaining tasks were
// cancelled; reports tasks left waiting on a dependence cycle.
template <class E>
void wait(const TaskScheduler<E>& scheduler) {
  scheduler.queue("wait").run(E());
}

template <class E>
TaskScheduler<E> detail::tasking::TaskMember<E>::scheduler() const {
  return TaskScheduler<E>(m_queue);
}

// Fails the running task with `message`: wait() then throws
// tessera::TaskFailure naming the task's functor type and the message, after
// the rest of the DAG was cancelled. Return from the functor after calling
// it: on the host back-ends it throws (the message is the nested exception),
// on Cuda, where device code cannot throw, it records the failure and
// returns (detail/cuda_api.hpp).
template <class Member>
void task_fail(const Member& /*member*/, const char* message) {
  throw TaskFailure(message);
}

}  // namespace tessera

#if TESSERA_ENABLE_CUDA && defined(__CUDACC__)
#include <tessera/tasking/detail/cuda_api.hpp>
#endif
