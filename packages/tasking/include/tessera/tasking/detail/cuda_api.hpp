#pragma once
// The task-DAG API on Cuda: TaskScheduler<Cuda>, TaskPolicy<Cuda>,
// BasicFuture<T, TaskScheduler<Cuda>>, and the spawn, respawn, when_all,
// task_fail and wait overloads that reach the CUDA driver (cuda_driver.hpp).
//
// The host API's classes are host code through and through (exceptions,
// thread-local worker state, std::vector, a virtual queue), so Cuda gets
// its own specializations with the same names and semantics, usable in
// device code (TESSERA_INLINE_FUNCTION): a functor written once runs on
// every back-end. What differs, and why:
//  * Handles copied on the host count on the host (schedulers keep the host
//    queue alive, futures add a reference delta the next wait applies);
//    copies made in device code count on the device (futures, with one
//    atomic on the record) or not at all (schedulers, as inside host tasks).
//  * host_spawn copies the functor into the pinned staging mirror; that host
//    copy is the one uploaded, and the host destroys it after the wait has
//    run the task (the device destroys its own image at completion).
//  * Future<T>::get() returns the result by value (on the host it is read
//    from device memory), so results must be trivially copyable.
//  * A task spawned on the device that does not fit the pool gets a null
//    future, as inside host tasks; respawn and retry. A DAG that can never
//    fit ends with the watchdog's error instead of spinning.
#include <tessera/tasking/detail/cuda_driver.hpp>
// The host API this specializes. task_scheduler.hpp includes this file at
// its end, so either order of inclusion sees the primary templates first.
#include <tessera/tasking/task_scheduler.hpp>

#include <string>
#include <type_traits>
#include <utility>

#if defined(__CUDACC__)

namespace tessera {

namespace detail::tasking {
template <>
struct TaskBackend<Cuda, void> {
  using queue_type = CudaTaskQueue;
  using member_type = CudaTaskMember;
};

// Device function pointers and the module marker of this TU, read on the
// host once per type. Internal linkage, as what they read
// (cuda_task_record.hpp): each TU's host_spawn must stamp its own module's.
namespace {
template <class F>
CudaRunFn cuda_host_run_fn() {
  static const CudaRunFn fn = [] {
    CudaRunFn v = nullptr;
    cuda_check(cudaMemcpyFromSymbol(&v, cuda_run_fn<F>, sizeof v), "tessera::host_spawn (Cuda): task entry point");
    return v;
  }();
  return fn;
}
template <class F>
CudaDestroyFn cuda_host_destroy_fn() {
  static const CudaDestroyFn fn = [] {
    CudaDestroyFn v = nullptr;
    cuda_check(cudaMemcpyFromSymbol(&v, cuda_destroy_fn<F>, sizeof v), "tessera::host_spawn (Cuda): task destructor");
    return v;
  }();
  return fn;
}
inline const void* cuda_host_module() {
  static const void* m = [] {
    void* p = nullptr;
    cuda_check(cudaGetSymbolAddress(&p, cuda_module_marker), "tessera::host_spawn (Cuda): module marker");
    return static_cast<const void*>(p);
  }();
  return m;
}
}  // namespace
// Members M of a team task asked for n: a power of two up to 32 (the warp
// splits into M x V lanes, M * V = 32); larger requests get 32, as a host
// scheduler gives larger requests all its threads. 0: n cannot be served.
TESSERA_INLINE_FUNCTION int cuda_team_members(int n) {
  if (n > 32) return 32;
  return n >= 1 && (n & (n - 1)) == 0 ? n : 0;
}
[[noreturn]] inline void throw_cuda_team_size(int n, const char* where) {
  throw_bad_policy(std::string("tessera::") + where + "(" + std::to_string(n) +
                   ") on Cuda: a team task runs on one warp split into M members x V vector lanes with M * V = 32, "
                   "so the team size must be 1, 2, 4, 8, 16 or 32 (larger requests get 32); ask for the power of two "
                   "below it, or 32");
}
// The inputs of a device when_all, read one by one (no copy into an array).
template <class Future>
struct CudaFutureInputs {
  const Future* futures;
  TESSERA_INLINE_FUNCTION CudaTaskRecord* operator()(int i) const { return futures[i].impl_record(); }
};
struct CudaRecordInputs {
  CudaTaskRecord* const* records;
  TESSERA_INLINE_FUNCTION CudaTaskRecord* operator()(int i) const { return records[i]; }
};
}  // namespace detail::tasking

// ---- futures -----------------------------------------------------------------------

template <class T>
class BasicFuture<T, TaskScheduler<Cuda>> {
  using Record = detail::tasking::CudaTaskRecord;
  using HostQueue = detail::tasking::CudaTaskQueue;

 public:
  using value_type = T;
  using scheduler_type = TaskScheduler<Cuda>;
  using execution_space = Cuda;

  TESSERA_INLINE_FUNCTION BasicFuture() {}
  TESSERA_INLINE_FUNCTION BasicFuture(const BasicFuture& o) : m_rec(o.m_rec), m_host(o.m_host) { retain(); }
  TESSERA_INLINE_FUNCTION BasicFuture(BasicFuture&& o) : m_rec(o.m_rec), m_host(o.m_host) {
    o.m_rec = nullptr;
    o.m_host = nullptr;
  }
  template <class U>
    requires(std::is_void_v<T> && !std::is_void_v<U>)
  TESSERA_INLINE_FUNCTION BasicFuture(const BasicFuture<U, TaskScheduler<Cuda>>& o)
      : m_rec(o.impl_record()), m_host(o.impl_host()) {
    retain();
  }
  TESSERA_INLINE_FUNCTION BasicFuture& operator=(const BasicFuture& o) {
    if (this != &o) {
      BasicFuture tmp(o);
      swap(tmp);
    }
    return *this;
  }
  TESSERA_INLINE_FUNCTION BasicFuture& operator=(BasicFuture&& o) {
    if (this != &o) {
      BasicFuture tmp(static_cast<BasicFuture&&>(o));
      swap(tmp);
    }
    return *this;
  }
  TESSERA_INLINE_FUNCTION ~BasicFuture() { release(); }

  TESSERA_INLINE_FUNCTION void clear() {
    release();
    m_rec = nullptr;
    m_host = nullptr;
  }
  TESSERA_INLINE_FUNCTION bool is_null() const { return m_rec == nullptr; }
  TESSERA_INLINE_FUNCTION bool is_ready() const {
    if (m_rec == nullptr) return true;
#if TESSERA_IMPL_ON_DEVICE
    return m_rec->is_complete();
#else
    return host_wait_head() == detail::tasking::cuda_closed_marker();
#endif
  }

  // The result, by value. In device code: once the task completed (as a
  // respawned task knows of its dependences). On the host: after the wait;
  // throws for a null future, a task not complete yet, or one that failed.
  TESSERA_INLINE_FUNCTION auto get() const {
#if TESSERA_IMPL_ON_DEVICE
    if constexpr (!std::is_void_v<T>) return detail::tasking::cuda_result_of<T>(m_rec);
#else
    if (m_rec == nullptr) detail::tasking::throw_cuda_tasking("tessera::Future<Cuda>::get: the future is null");
    if (host_wait_head() != detail::tasking::cuda_closed_marker())
      detail::tasking::throw_cuda_tasking(
          "tessera::Future<Cuda>::get: the task has not completed; call tessera::wait(scheduler) first");
    std::uint8_t failed = 0;
    m_host->read_record(m_rec, &failed, offsetof(Record, failed), 1);
    if (failed)
      detail::tasking::throw_cuda_tasking(
          "tessera::Future<Cuda>::get: the task failed or was cancelled (wait() reported why)");
    if constexpr (!std::is_void_v<T>) {
      T v;
      m_host->read_record(m_rec, &v, offsetof(detail::tasking::CudaResultLayout<T>, value), sizeof(T));
      return v;
    }
#endif
  }

  TESSERA_INLINE_FUNCTION friend bool operator==(const BasicFuture& a, const BasicFuture& b) {
    return a.m_rec == b.m_rec;
  }

  // ---- implementation ----
  // Adopts the reference the spawn made (on the host: also a handle).
  TESSERA_INLINE_FUNCTION BasicFuture(Record* r, HostQueue* host, detail::tasking::adopt_t) : m_rec(r), m_host(host) {
#if !TESSERA_IMPL_ON_DEVICE
    if (m_rec) m_host->add_handle();
#endif
  }
  TESSERA_INLINE_FUNCTION Record* impl_record() const { return m_rec; }
  TESSERA_INLINE_FUNCTION HostQueue* impl_host() const { return m_host; }

 private:
  static_assert(std::is_void_v<T> || std::is_trivially_copyable_v<T>,
                "tessera::Future<T, Cuda>: a task's result on Cuda must be trivially copyable (the host reads it "
                "from device memory)");

  TESSERA_INLINE_FUNCTION void swap(BasicFuture& o) {
    Record* r = m_rec;
    HostQueue* h = m_host;
    m_rec = o.m_rec;
    m_host = o.m_host;
    o.m_rec = r;
    o.m_host = h;
  }
  TESSERA_INLINE_FUNCTION void retain() const {
    if (m_rec == nullptr) return;
#if TESSERA_IMPL_ON_DEVICE
    detail::tasking::cuda_retain(m_rec);
#else
    m_host->delta(m_rec, +1);
    m_host->add_handle();
#endif
  }
  TESSERA_INLINE_FUNCTION void release() {
    if (m_rec == nullptr) return;
#if TESSERA_IMPL_ON_DEVICE
    detail::tasking::cuda_release(m_rec->queue, m_rec);
#else
    m_host->delta(m_rec, -1);
    m_host->drop_handle();  // last: may delete the queue
#endif
  }
#if !TESSERA_IMPL_ON_DEVICE
  Record* host_wait_head() const {
    Record* h = nullptr;
    m_host->read_record(m_rec, &h, offsetof(Record, wait_head), sizeof h);
    return h;
  }
#endif

  Record* m_rec = nullptr;
  HostQueue* m_host = nullptr;
};

// ---- the scheduler -------------------------------------------------------------------

template <>
class TaskScheduler<Cuda> {
  using HostQueue = detail::tasking::CudaTaskQueue;
  using State = detail::tasking::CudaQueueState;
  using Record = detail::tasking::CudaTaskRecord;

 public:
  using execution_space = Cuda;
  using memory_space = CudaSpace;
  using device_type = Device<Cuda, CudaSpace>;
  using memory_pool = MemoryPool<device_type>;
  using member_type = detail::tasking::CudaTaskMember;
  using scheduler_type = TaskScheduler;
  template <class T>
  using future_type = BasicFuture<T, TaskScheduler>;

  TESSERA_INLINE_FUNCTION TaskScheduler() {}

  // A scheduler with its own CudaSpace pool (the host constructor's
  // parameters). The host_spawn staging area takes a quarter of the
  // capacity more (at least 1 MiB), in device memory and pinned host memory.
  TaskScheduler(const memory_space& space, std::size_t pool_capacity_bytes, std::size_t min_block_bytes = 0,
                std::size_t max_block_bytes = 0, std::size_t superblock_bytes = 0)
      : TaskScheduler(memory_pool(space, pool_capacity_bytes, min_block_bytes, max_block_bytes,
                                  superblock_bytes ? superblock_bytes
                                                   : default_superblock(pool_capacity_bytes, max_block_bytes))) {}
  static std::size_t default_superblock(std::size_t capacity, std::size_t max_block) {
    const std::size_t largest = max_block ? max_block : 4096;
    std::size_t sb = std::size_t(1) << 20;
    while (sb > largest && sb * 32 > capacity) sb /= 2;
    return sb;
  }
  explicit TaskScheduler(const memory_pool& pool) {
    if (pool.capacity() == 0)
      detail::tasking::throw_bad_policy("tessera::TaskScheduler<Cuda>: the memory pool is empty (default-constructed)");
    m_host = new HostQueue(pool);
    m_dev = m_host->device_state();
    m_counted = true;  // the queue starts with one handle
  }

  TESSERA_INLINE_FUNCTION TaskScheduler(const TaskScheduler& o) : m_host(o.m_host), m_dev(o.m_dev) { count(); }
  TESSERA_INLINE_FUNCTION TaskScheduler(TaskScheduler&& o) : m_host(o.m_host), m_dev(o.m_dev), m_counted(o.m_counted) {
    o.m_host = nullptr;
    o.m_dev = nullptr;
    o.m_counted = false;
  }
  TESSERA_INLINE_FUNCTION TaskScheduler& operator=(const TaskScheduler& o) {
    if (this != &o) {
      TaskScheduler tmp(o);
      swap(tmp);
    }
    return *this;
  }
  TESSERA_INLINE_FUNCTION TaskScheduler& operator=(TaskScheduler&& o) {
    if (this != &o) {
      TaskScheduler tmp(static_cast<TaskScheduler&&>(o));
      swap(tmp);
    }
    return *this;
  }
  TESSERA_INLINE_FUNCTION ~TaskScheduler() {
#if !TESSERA_IMPL_ON_DEVICE
    if (m_counted) m_host->drop_handle();
#endif
  }

  TESSERA_INLINE_FUNCTION explicit operator bool() const { return m_dev != nullptr; }
  TESSERA_INLINE_FUNCTION friend bool operator==(const TaskScheduler& a, const TaskScheduler& b) {
    return a.m_dev == b.m_dev;
  }

  const memory_pool& memory() const { return queue("memory").pool(); }
  execution_space get_execution_space() const { return execution_space(); }
  // Members of a TaskTeam task whose policy does not set one (default 32:
  // the whole warp, vector length 1). A power of two up to 32; larger
  // requests get 32.
  void set_team_size(int n) {
    const int m = detail::tasking::cuda_team_members(n);
    if (m == 0) detail::tasking::throw_cuda_team_size(n, "TaskScheduler::set_team_size");
    queue("set_team_size").set_default_team_size(m);
  }
  TESSERA_INLINE_FUNCTION int team_size() const {
#if TESSERA_IMPL_ON_DEVICE
    return m_dev->default_team_size;
#else
    return queue("team_size").default_team_size();
#endif
  }
  // Level-0 scratch of every TaskTeam task (member.team_scratch(0)): a
  // slice of the persistent kernel's shared memory per warp. Set between
  // waits; refused, with the sizes, above what a block of the driver may
  // have; a larger size may launch fewer blocks (workers() says how many
  // warps). See the host TaskScheduler for the portable contract.
  void set_team_scratch_size(std::size_t bytes) {
    queue("set_team_scratch_size").set_team_scratch_bytes(bytes);
  }
  std::size_t team_scratch_size() const { return queue("team_scratch_size").team_scratch_bytes(); }
  // The watchdog: a wait in which no task completes for this long fails
  // (default 30 s).
  void set_watchdog_seconds(double seconds) { queue("set_watchdog_seconds").set_stall_seconds(seconds); }
  double watchdog_seconds() const { return queue("watchdog_seconds").stall_seconds(); }
  // Not API: turns the driver's surplus sharing off and on (the task
  // benchmark times the driver both ways; see cuda_warp_queues.hpp).
  void impl_set_surplus_sharing(bool on) { queue("impl_set_surplus_sharing").set_surplus_sharing(on); }
  // Warps the driver runs (each one a worker).
  int workers() const { return queue("workers").warps(); }
  // Single tasks run per batch pop in the last wait, on average (1 to 32).
  double last_batch_width() const { return queue("last_batch_width").last_batch_width(); }
  // Where the last wait spent its time: host phases, the driver kernel, and
  // its warps' loop split into running, taking work and idle (statistics.hpp).
  TaskWaitProfile last_wait_profile() const { return queue("last_wait_profile").last_wait_profile(); }

  template <class F>
  std::size_t spawn_allocation_size() const {
    return memory().allocate_block_size(sizeof(detail::tasking::CudaTask<F>));
  }

  TaskStatistics statistics() const {
    TaskStatistics s = queue("statistics").statistics();
    s.threads = queue("statistics").warps();
    s.team_size = team_size();
    s.pool_capacity_bytes = memory().capacity();
    s.pool_block_bytes_max = memory().max_block_size();
    return s;
  }
  void reset_statistics() { queue("reset_statistics").reset_statistics(); }

  // ---- when_all: in device code nodes from the pool (a tree of nodes of at
  // most 32 inputs for larger ones; a null future when the pool cannot
  // supply them all: respawn and retry), on the host a staged node ----
  template <class T>
  TESSERA_INLINE_FUNCTION future_type<void> when_all(const future_type<T>* futures, int n) const {
#if TESSERA_IMPL_ON_DEVICE
    return when_all_device(detail::tasking::CudaFutureInputs<future_type<T>>{futures}, n);
#else
    constexpr int kChunk = 32;
    Record* recs[kChunk];
    if (n <= kChunk) {
      for (int i = 0; i < n; ++i) recs[i] = futures[i].impl_record();
      return when_all_records(recs, n);
    }
    std::vector<Record*> all(std::size_t(n > 0 ? n : 0));
    for (int i = 0; i < n; ++i) all[std::size_t(i)] = futures[i].impl_record();
    return when_all_records(all.data(), n);
#endif
  }
  template <class... T>
    requires(sizeof...(T) >= 1)
  TESSERA_INLINE_FUNCTION future_type<void> when_all(const future_type<T>&... futures) const {
    Record* recs[] = {futures.impl_record()...};
    return when_all_records(recs, int(sizeof...(T)));
  }

  // ---- implementation ----
  TESSERA_INLINE_FUNCTION State* impl_state() const { return m_dev; }
  TESSERA_INLINE_FUNCTION HostQueue* impl_queue() const { return m_host; }
  // An uncounted handle (device code: member.scheduler()).
  TESSERA_INLINE_FUNCTION TaskScheduler(HostQueue* h, State* d, bool) : m_host(h), m_dev(d) {}
  HostQueue& queue(const char* what) const {
    if (!m_host)
      detail::tasking::throw_bad_policy(std::string("tessera::TaskScheduler<Cuda>::") + what +
                                        ": the scheduler is null (default-constructed or moved from)");
    return *m_host;
  }

 private:
  TESSERA_INLINE_FUNCTION void count() {
#if TESSERA_IMPL_ON_DEVICE
    m_counted = false;
#else
    m_counted = m_host != nullptr;
    if (m_counted) m_host->add_handle();
#endif
  }
  TESSERA_INLINE_FUNCTION void swap(TaskScheduler& o) {
    HostQueue* h = m_host;
    State* d = m_dev;
    const bool c = m_counted;
    m_host = o.m_host;
    m_dev = o.m_dev;
    m_counted = o.m_counted;
    o.m_host = h;
    o.m_dev = d;
    o.m_counted = c;
  }

#if defined(__CUDA_ARCH__)
  // when_all in device code over input(0), ..., input(n - 1) (records, null
  // for null futures), with the host's semantics: null inputs are ignored
  // and nothing but null inputs gives a null future; a node keeps only the
  // inputs still incomplete. The pending inputs that fit one node (32, or
  // what the pool's largest block holds) take one node; more take a tree.
  template <class Input>
  __device__ future_type<void> when_all_device(const Input& input, int n) const {
    using namespace detail::tasking;
    int live = 0, pending = 0;
    for (int i = 0; i < n; ++i)
      if (Record* r = input(i)) {
        ++live;
        if (!r->is_complete()) ++pending;
      }
    if (live == 0) return future_type<void>();
    const int fan = cuda_when_all_fan_in(m_dev->pool().max_block_size());
    if (fan < 2) {
      cuda_record_error(m_dev, CudaError::WhenAllTooLarge,
                        "the pool's largest block cannot hold a when_all node of two inputs", nullptr,
                        (long long)m_dev->pool().max_block_size());
      return future_type<void>();
    }
    if (pending > fan) return when_all_tree(input, n, pending, fan);
    // The common case: one node.
    const std::size_t bytes = cuda_when_all_node_bytes(pending);
    void* mem = cuda_allocate_record(m_dev, bytes);
    if (mem == nullptr) return future_type<void>();
    Record* a = new (mem) Record;
    int k = 0;
    // Completion is monotonic: an input incomplete now was incomplete in
    // the count above, so at most `pending` are kept.
    for (int i = 0; i < n && k < pending; ++i)
      if (Record* r = input(i); r && !r->is_complete()) {
        cuda_retain(r);
        a->deps()[k++] = r;
      }
    init_node(a, bytes, k);
    cuda_add(m_dev->counters[cuda_warp_index()].spawned, 1ull);
    cuda_continue_aggregate(m_dev, a);
    return future_type<void>(a, static_cast<HostQueue*>(m_dev->host_queue), adopt_t{});
  }

  // More pending inputs than one node holds: a tree, leaves first, each node
  // of at most `fan` inputs (the host's make_when_all, without a vector).
  // Every block is taken before anything is built, so a full pool leaves
  // nothing behind (the blocks taken so far go back) and the caller gets a
  // null future. Until they are scheduled, the nodes are chained through
  // `next` in creation order: level by level, the root last. An inner node's
  // inputs are the nodes of the level below, in that order, so one cursor
  // walking the chain from the first leaf hands each node to its parent.
  template <class Input>
  __device__ __noinline__ future_type<void> when_all_tree(const Input& input, int n, int pending, int fan) const {
    using namespace detail::tasking;
    Record* head = nullptr;
    Record* tail = nullptr;
    int nodes = 0, leaves = 0;
    for (int width = pending;;) {
      const int level = (width + fan - 1) / fan;
      for (int k = 0; k < level; ++k) {
        const int inputs = width - k * fan < fan ? width - k * fan : fan;
        const std::size_t bytes = cuda_when_all_node_bytes(inputs);
        void* mem = cuda_allocate_record(m_dev, bytes);
        if (mem == nullptr) {
          while (head != nullptr) {
            Record* next = head->next;
            m_dev->pool().deallocate(head, head->alloc_bytes);
            head = next;
          }
          return future_type<void>();
        }
        Record* a = new (mem) Record;
        init_node(a, bytes, inputs);  // count: the room for now
        if (tail) tail->next = a;
        else head = a;
        tail = a;
        ++nodes;
      }
      if (leaves == 0) leaves = level;
      if (level == 1) break;
      width = level;
    }
    // The leaves take the inputs still incomplete (no more than counted).
    Record* node = head;
    int i = 0;
    for (int l = 0; l < leaves; ++l, node = node->next) {
      std::uint32_t k = 0;
      for (; i < n && k < node->count; ++i)
        if (Record* r = input(i); r && !r->is_complete()) {
          cuda_retain(r);
          node->deps()[k++] = r;
        }
      node->count = k;
    }
    // Inner nodes adopt their children's reference (refs = 1 each).
    Record* child = head;
    for (; node != nullptr; node = node->next)
      for (std::uint32_t k = 0; k < node->count; ++k, child = child->next) node->deps()[k] = child;
    // Children before parents: a parent finds each child complete or waitable.
    cuda_add(m_dev->counters[cuda_warp_index()].spawned, (unsigned long long)nodes);
    for (Record* a = head; a != nullptr;) {
      Record* next = a->next;  // continuing a node may queue it (its `next` becomes a wait-queue link)
      a->next = nullptr;
      cuda_continue_aggregate(m_dev, a);
      a = next;
    }
    return future_type<void>(tail, static_cast<HostQueue*>(m_dev->host_queue), adopt_t{});
  }

  __device__ void init_node(Record* a, std::size_t bytes, int count) const {
    a->kind = std::uint8_t(detail::tasking::TaskKind::Aggregate);
    a->queue = m_dev;
    a->module = &detail::tasking::cuda_module_marker;
    a->alloc_bytes = std::uint32_t(bytes);
    a->refs = 1;  // the future, or the parent node
    a->count = std::uint32_t(count);
  }
#endif

  TESSERA_INLINE_FUNCTION future_type<void> when_all_records(Record* const* recs, int n) const {
    using namespace detail::tasking;
#if TESSERA_IMPL_ON_DEVICE
    return when_all_device(CudaRecordInputs{recs}, n);
#else
    HostQueue& q = queue("when_all");
    int live = 0;
    for (int i = 0; i < n; ++i) live += recs[i] != nullptr;
    if (live == 0) return future_type<void>();
    const std::size_t bytes = sizeof(Record) + std::size_t(live) * sizeof(Record*);
    std::lock_guard<std::mutex> lock(q.staging_mutex());
    Record* dev = nullptr;
    void* img = q.stage(bytes, dev, "tessera::TaskScheduler<Cuda>::when_all",
                        [live] { return std::to_string(live) + " futures"; });
    Record* a = new (img) Record;
    int k = 0;
    for (int i = 0; i < n; ++i)
      if (recs[i]) {
        q.delta(recs[i], +1);
        a->deps()[k++] = recs[i];
      }
    a->kind = std::uint8_t(TaskKind::Aggregate);
    a->queue = m_dev;
    a->module = nullptr;  // a node runs no code: any module's driver may step it
    a->alloc_bytes = 0;   // an arena record
    a->refs = 1;
    a->count = std::uint32_t(k);
    q.staged(dev, img, nullptr, nullptr);
    return future_type<void>(dev, m_host, adopt_t{});
#endif
  }

  HostQueue* m_host = nullptr;
  State* m_dev = nullptr;
  bool m_counted = false;
};

TESSERA_INLINE_FUNCTION TaskScheduler<Cuda> detail::tasking::CudaTaskMember::scheduler() const {
  return TaskScheduler<Cuda>(static_cast<CudaTaskQueue*>(m_state->host_queue), m_state, true);
}

// ---- policies --------------------------------------------------------------------------

template <>
class TaskPolicy<Cuda> {
  using Record = detail::tasking::CudaTaskRecord;

 public:
  using scheduler_type = TaskScheduler<Cuda>;

  TESSERA_INLINE_FUNCTION TaskPolicy(detail::tasking::TaskKind kind, detail::tasking::CudaTaskQueue* host,
                                     detail::tasking::CudaQueueState* dev, Record* dep, TaskPriority priority)
      : m_kind(kind), m_host(host), m_dev(dev), m_dep(dep), m_priority(priority) {}

  // Members M of this TaskTeam task: the warp runs it as M members x 32/M
  // vector lanes (see cuda_member.hpp). A power of two up to 32; larger
  // requests get 32. In device code a bad size fails the wait (the same
  // message), and the task runs with the scheduler's team size.
  TESSERA_INLINE_FUNCTION TaskPolicy& set_team_size(int n) {
    const int m = detail::tasking::cuda_team_members(n);
#if TESSERA_IMPL_ON_DEVICE
    if (m_dev == nullptr) return *this;  // from a null future: task_spawn returns a null future
    if (m_kind != detail::tasking::TaskKind::Team || m == 0)
      detail::tasking::cuda_record_error(m_dev, detail::tasking::CudaError::BadTeamSize,
                                         m == 0 ? "set_team_size: not 1, 2, 4, 8, 16 or 32 (M x V = 32 lanes)"
                                                : "set_team_size on a TaskSingle policy (only TaskTeam tasks have a team size)",
                                         nullptr, n);
    else
      m_team_size = m;
#else
    if (m_kind != detail::tasking::TaskKind::Team)
      detail::tasking::throw_bad_policy("tessera::TaskSingle(...).set_team_size(" + std::to_string(n) +
                                        "): only TaskTeam tasks have a team size");
    if (m == 0) detail::tasking::throw_cuda_team_size(n, "TaskTeam(...).set_team_size");
    m_team_size = m;
#endif
    return *this;
  }
  TESSERA_INLINE_FUNCTION int team_size() const { return m_team_size; }
  TESSERA_INLINE_FUNCTION TaskPriority priority() const { return m_priority; }
  TESSERA_INLINE_FUNCTION bool is_team() const { return m_kind == detail::tasking::TaskKind::Team; }
  TESSERA_INLINE_FUNCTION detail::tasking::TaskKind impl_kind() const { return m_kind; }
  TESSERA_INLINE_FUNCTION detail::tasking::CudaTaskQueue* impl_host() const { return m_host; }
  TESSERA_INLINE_FUNCTION detail::tasking::CudaQueueState* impl_state() const { return m_dev; }
  TESSERA_INLINE_FUNCTION Record* impl_dependence() const { return m_dep; }

 private:
  detail::tasking::TaskKind m_kind;
  detail::tasking::CudaTaskQueue* m_host;
  detail::tasking::CudaQueueState* m_dev;
  Record* m_dep;
  TaskPriority m_priority;
  int m_team_size = 0;
};

TESSERA_INLINE_FUNCTION TaskPolicy<Cuda> TaskSingle(const TaskScheduler<Cuda>& s,
                                                    TaskPriority p = TaskPriority::Regular) {
  return TaskPolicy<Cuda>(detail::tasking::TaskKind::Single, s.impl_queue(), s.impl_state(), nullptr, p);
}
namespace detail::tasking {
// The device state of the scheduler a future belongs to. In device code the
// record names it; on the host the record is device memory, which the host
// may not read, so the host queue names it.
template <class T>
TESSERA_INLINE_FUNCTION CudaQueueState* cuda_state_of(const BasicFuture<T, TaskScheduler<Cuda>>& dep) {
#if TESSERA_IMPL_ON_DEVICE
  const CudaTaskRecord* r = dep.impl_record();
  return r ? r->queue : nullptr;
#else
  return dep.impl_host() ? dep.impl_host()->device_state() : nullptr;
#endif
}
}  // namespace detail::tasking

template <class T>
TESSERA_INLINE_FUNCTION TaskPolicy<Cuda> TaskSingle(const BasicFuture<T, TaskScheduler<Cuda>>& dep,
                                                    TaskPriority p = TaskPriority::Regular) {
  return TaskPolicy<Cuda>(detail::tasking::TaskKind::Single, dep.impl_host(), detail::tasking::cuda_state_of(dep),
                          dep.impl_record(), p);
}
TESSERA_INLINE_FUNCTION TaskPolicy<Cuda> TaskTeam(const TaskScheduler<Cuda>& s, TaskPriority p = TaskPriority::Regular) {
  return TaskPolicy<Cuda>(detail::tasking::TaskKind::Team, s.impl_queue(), s.impl_state(), nullptr, p);
}
template <class T>
TESSERA_INLINE_FUNCTION TaskPolicy<Cuda> TaskTeam(const BasicFuture<T, TaskScheduler<Cuda>>& dep,
                                                  TaskPriority p = TaskPriority::Regular) {
  return TaskPolicy<Cuda>(detail::tasking::TaskKind::Team, dep.impl_host(), detail::tasking::cuda_state_of(dep),
                          dep.impl_record(), p);
}

// ---- spawn -----------------------------------------------------------------------------

namespace detail::tasking {
template <class Functor>
constexpr void check_cuda_task() {
  using TaskT = CudaTask<Functor>;
  using V = typename TaskT::value_type;
  using Member = CudaTaskMember;
  static_assert(std::is_standard_layout_v<TaskT>);
  static_assert(alignof(TaskT) <= 64, "tessera: a task functor may not need more than 64-byte alignment");
  static_assert(std::is_void_v<V> || (std::is_default_constructible_v<V> && std::is_trivially_copyable_v<V>),
                "tessera: a task's value_type on Cuda must be default-constructible and trivially copyable");
  if constexpr (std::is_void_v<V>) {
    static_assert(std::is_invocable_v<Functor&, Member&>,
                  "tessera: a task functor with value_type void must be callable as f(member_type&)");
  } else {
    static_assert(std::is_invocable_v<Functor&, Member&, V&>,
                  "tessera: a task functor must be callable as f(member_type&, value_type&)");
  }
}
template <class Functor>
void cuda_destroy_host_copy(void* image) {
  static_cast<CudaTask<Functor>*>(image)->functor().~Functor();
}
}  // namespace detail::tasking

// From host code: the task is staged and runs in the next wait. Static (one
// per TU): it stamps the record with its own TU's module and function
// pointers, which only that TU's wait may run.
template <class F>
static auto host_spawn(const TaskPolicy<Cuda>& policy, F&& functor) {
  using namespace detail::tasking;
  using Functor = std::decay_t<F>;
  using TaskT = CudaTask<Functor>;
  using V = typename TaskT::value_type;
  using Future = BasicFuture<V, TaskScheduler<Cuda>>;
  check_cuda_task<Functor>();
  CudaTaskQueue* q = policy.impl_host();
  if (q == nullptr) throw_bad_policy("tessera::host_spawn (Cuda): the policy names no scheduler (a null future?)");
  const CudaRunFn run = cuda_host_run_fn<Functor>();
  const CudaDestroyFn destroy = cuda_host_destroy_fn<Functor>();
  const void* module = cuda_host_module();
  std::lock_guard<std::mutex> lock(q->staging_mutex());
  q->check_module(module);
  CudaTaskRecord* dev = nullptr;
  void* img = q->stage(sizeof(TaskT), dev, "tessera::host_spawn", [] { return demangle(typeid(Functor)); });
  auto* t = new (img) TaskT;
  if constexpr (!std::is_void_v<V>) new (t->value.bytes) V();
  new (t->closure_bytes) Functor(std::forward<F>(functor));
  t->rec.kind = std::uint8_t(policy.impl_kind());
  t->rec.priority = std::uint8_t(policy.priority());
  t->rec.queue = policy.impl_state();
  t->rec.run = run;
  t->rec.destroy = destroy;
  t->rec.module = module;
  t->rec.alloc_bytes = 0;  // an arena record
  t->rec.refs = 1;         // the future
  if (policy.is_team())
    t->rec.team_size = std::uint16_t(policy.team_size() ? policy.team_size() : q->default_team_size());
  if (CudaTaskRecord* d = policy.impl_dependence()) {
    q->delta(d, +1);
    t->rec.dep = d;
  }
  q->staged(dev, img, std::is_trivially_destructible_v<Functor> ? nullptr : &cuda_destroy_host_copy<Functor>, module);
  return Future(dev, q, adopt_t{});
}

// From a running task (device code). A null future when the pool is full.
// (The return type is spelled out: nvcc's host pass sees only the host branch.)
template <class F>
TESSERA_INLINE_FUNCTION auto task_spawn(const TaskPolicy<Cuda>& policy, F&& functor)
    -> BasicFuture<detail::tasking::task_value_t<std::decay_t<F>>, TaskScheduler<Cuda>> {
  using namespace detail::tasking;
  using Functor = std::decay_t<F>;
  using TaskT = CudaTask<Functor>;
  using V = typename TaskT::value_type;
  using Future = BasicFuture<V, TaskScheduler<Cuda>>;
  check_cuda_task<Functor>();
#if TESSERA_IMPL_ON_DEVICE
  CudaQueueState* s = policy.impl_state();
  // A policy made from a null future (a spawn that found the pool full)
  // names no scheduler: spawning on it gives a null future too.
  if (s == nullptr) return Future();
  constexpr std::size_t bytes = sizeof(TaskT);
  if (bytes > s->pool().max_block_size()) {
    cuda_record_error(s, CudaError::TaskTooLarge, "a task record larger than the pool's largest block", nullptr,
                      (long long)bytes);
    return Future();
  }
  void* mem = cuda_allocate_record(s, bytes);
  if (mem == nullptr) return Future();
  auto* t = new (mem) TaskT;
  if constexpr (!std::is_void_v<V>) new (t->value.bytes) V();
  new (t->closure_bytes) Functor(static_cast<F&&>(functor));
  t->rec.kind = std::uint8_t(policy.impl_kind());
  t->rec.priority = std::uint8_t(policy.priority());
  t->rec.queue = s;
  t->rec.run = &TaskT::run;
  if constexpr (!std::is_trivially_destructible_v<Functor>) t->rec.destroy = &TaskT::destroy_closure;
  t->rec.module = &cuda_module_marker;
  t->rec.alloc_bytes = std::uint32_t(bytes);
  t->rec.refs = 1;  // the future
  if (policy.is_team())
    t->rec.team_size = std::uint16_t(policy.team_size() ? policy.team_size() : s->default_team_size);
  if (CudaTaskRecord* d = policy.impl_dependence(); d && !d->is_complete()) {
    cuda_retain(d);
    t->rec.dep = d;
  }
  cuda_add(s->counters[cuda_warp_index()].spawned, 1ull);
  cuda_schedule(s, &t->rec);
  return Future(&t->rec, static_cast<CudaTaskQueue*>(s->host_queue), adopt_t{});
#else
  (void)policy;
  (void)functor;
  throw_bad_policy("tessera::task_spawn (Cuda): called outside a running task; use host_spawn from host code");
  return Future();
#endif
}

// ---- respawn ------------------------------------------------------------------------------

namespace detail::tasking {
template <class F>
TESSERA_INLINE_FUNCTION void cuda_respawn(F* self, CudaTaskRecord* dep, TaskPriority priority) {
#if TESSERA_IMPL_ON_DEVICE
  using TaskT = CudaTask<std::remove_cv_t<F>>;
  CudaTaskRecord* t = &TaskT::of_functor(self)->rec;
  CudaQueueState* s = t->queue;
  if (t->kind == std::uint8_t(TaskKind::Team) && cuda_lane() != 0) return;  // rank 0's call counts
  if (cuda_depends_on(dep, t)) {
    cuda_record_error(s, CudaError::BadRespawn,
                      dep == t ? "respawn: the task would depend on itself (its own future as dependence): a cycle "
                                 "that never completes"
                               : "respawn: the task would depend on itself through the when_all it waits on: a "
                                 "cycle that never completes",
                      t);
    return;
  }
  if (dep && dep->is_complete()) dep = nullptr;
  cuda_retain(dep);
  CudaTaskRecord* old = t->dep;
  t->dep = dep;
  t->priority = std::uint8_t(static_cast<int>(priority));
  t->respawn_requested = 1;
  cuda_release(s, old);
#else
  (void)self;
  (void)dep;
  (void)priority;
  throw_bad_respawn("tessera::respawn (Cuda): called outside a running task");
#endif
}
}  // namespace detail::tasking

template <class F, class T>
TESSERA_INLINE_FUNCTION void respawn(F* self, const BasicFuture<T, TaskScheduler<Cuda>>& dependence,
                                     TaskPriority priority = TaskPriority::Regular) {
  detail::tasking::cuda_respawn(self, dependence.impl_record(), priority);
}
// (Also for temporaries: the host API's rvalue overload must not be chosen.)
template <class F, class T>
TESSERA_INLINE_FUNCTION void respawn(F* self, BasicFuture<T, TaskScheduler<Cuda>>&& dependence,
                                     TaskPriority priority = TaskPriority::Regular) {
  detail::tasking::cuda_respawn(self, dependence.impl_record(), priority);
}
template <class F>
TESSERA_INLINE_FUNCTION void respawn(F* self, const TaskScheduler<Cuda>&, TaskPriority priority = TaskPriority::Regular) {
  detail::tasking::cuda_respawn(self, nullptr, priority);
}

// ---- failure and wait ---------------------------------------------------------------------

// Records the first failure of the DAG (this task's type and `message`) and
// cancels the rest; wait() throws it as tessera::TaskFailure.
TESSERA_INLINE_FUNCTION void task_fail(detail::tasking::CudaTaskMember& member, const char* message) {
#if TESSERA_IMPL_ON_DEVICE
  detail::tasking::cuda_record_error(member.impl_state(), detail::tasking::CudaError::TaskFail, message,
                                     member.impl_task());
#else
  (void)member;
  (void)message;
#endif
}

// Runs the staged tasks and everything they spawn to completion on the GPU,
// with this TU's driver kernel. Static (one per TU), like host_spawn: a wait
// over tasks staged by another TU's host_spawn is refused before anything
// runs (see CudaTaskQueue::run).
static inline void wait(const TaskScheduler<Cuda>& scheduler) {
  scheduler.queue("wait").run(detail::tasking::cuda_this_module_driver(), detail::tasking::cuda_host_module());
}

}  // namespace tessera

#endif  // __CUDACC__
