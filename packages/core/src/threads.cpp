// The Threads back-end's pool: fork/join over std::threads, pinned one per
// allowed CPU when the process has a CPU for each.
#include <tessera/config.hpp>
#if TESSERA_ENABLE_THREADS
#include <tessera/core/backends/threads/threads.hpp>
#include <tessera/core/detail/cpu_hints.hpp>
#include <tessera/core/detail/running_host_space.hpp>
#include <tessera/core/initialize.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <exception>
#include <mutex>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sched.h>

#if TESSERA_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace tessera::detail {
namespace {

// Spins before a worker goes to sleep: long enough to catch the next kernel
// of a typical loop of launches, short enough not to burn a core when idle.
constexpr int kSpinsBeforeYield = 1 << 14;
constexpr int kYieldsBeforeSleep = 64;

// The CPUs this process may run on: the calling thread's affinity mask,
// which a launcher (taskset, numactl, mpirun --bind-to, a Slurm or container
// cpuset) sets for the process. Empty if it cannot be read.
std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  for (int ncpu = 1024; ncpu <= (1 << 20) && cpus.empty(); ncpu *= 2) {
    cpu_set_t* set = CPU_ALLOC(ncpu);
    if (!set) break;
    const std::size_t bytes = CPU_ALLOC_SIZE(ncpu);
    CPU_ZERO_S(bytes, set);
    const bool ok = sched_getaffinity(0, bytes, set) == 0;
    if (ok)
      for (int c = 0; c < ncpu; ++c)
        if (CPU_ISSET_S(c, bytes, set)) cpus.push_back(c);
    CPU_FREE(set);
    if (!ok && errno != EINVAL) break;  // EINVAL: the kernel's mask is wider, try again
  }
  return cpus;
}

// The order workers take the allowed CPUs in: hwloc's logical order when
// hwloc is there (the processing units of one core, then of one cache, are
// neighbours), else by CPU number.
std::vector<int> placement_order(std::vector<int> cpus) {
#if TESSERA_HAVE_HWLOC
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return cpus;
  if (hwloc_topology_load(topo) == 0) {
    std::vector<int> ordered;
    const int npu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    for (int i = 0; i < npu; ++i) {
      hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, unsigned(i));
      if (pu && std::find(cpus.begin(), cpus.end(), int(pu->os_index)) != cpus.end())
        ordered.push_back(int(pu->os_index));
    }
    if (ordered.size() == cpus.size()) cpus = std::move(ordered);
  }
  hwloc_topology_destroy(topo);
#endif
  return cpus;
}

// The placement order turned so that it starts at the CPU the calling thread
// runs on now (pool rank 0, never pinned, takes cpus[0]). Workers are pinned
// to the others: the scheduler keeps a running thread where it is, so a
// worker pinned to the caller's CPU would share it with the caller while
// another CPU idles, until the load balancer moved the caller (milliseconds;
// a short kernel ran on one core). Rotating, not swapping, keeps hwloc's
// neighbours next to each other.
std::vector<int> leave_callers_cpu_first(std::vector<int> cpus) {
  const auto here = std::find(cpus.begin(), cpus.end(), sched_getcpu());
  if (here != cpus.end()) std::rotate(cpus.begin(), here, cpus.end());
  return cpus;
}

struct alignas(64) PaddedFlag {
  std::atomic<int> value{0};
};

class ThreadsPool {
 public:
  // Placement rule: worker i (i >= 1) is pinned to cpus[i] only when the
  // allowed set has a CPU for every pool thread (size <= cpus.size()); with
  // more threads than allowed CPUs nothing is pinned and the OS balances the
  // threads over the allowed set (pinning would stack two threads on one CPU
  // while another idles). The calling thread (pool rank 0) is never pinned:
  // threads it creates later inherit its CPU mask, and OpenMP's workers, a
  // user's std::threads or another runtime would all end up on one core. It
  // keeps cpus[0], the CPU it ran on when the pool was made, to itself in
  // practice, since no worker is placed there.
  ThreadsPool(int size, bool bind, std::vector<int> cpus) : m_size(size), m_allowed(int(cpus.size())) {
    if (bind && !cpus.empty() && std::size_t(size) <= cpus.size())
      m_cpus = leave_callers_cpu_first(placement_order(std::move(cpus)));
    m_workers.reserve(size - 1);
    for (int tid = 1; tid < size; ++tid) m_workers.emplace_back([this, tid] { worker_loop(tid); });
    // Return once every worker has placed itself, so that what the pool
    // reports (print_configuration, threads_pinned_workers) is settled.
    while (m_started.load(std::memory_order_acquire) != size - 1) std::this_thread::yield();
  }

  ~ThreadsPool() {
    m_stop.store(true, std::memory_order_seq_cst);
    m_generation.fetch_add(1, std::memory_order_seq_cst);
    m_generation.notify_all();
    for (auto& t : m_workers) t.join();
  }

  // CPUs in the process's allowed set (0 if unknown), and whether workers
  // were meant to be pinned (see the placement rule).
  int allowed() const { return m_allowed; }
  bool pinning() const { return !m_cpus.empty(); }
  // The CPU no worker is pinned to, left to the calling thread (-1: no pinning).
  int callers_cpu() const { return m_cpus.empty() ? -1 : m_cpus[0]; }

  int size() const { return m_size; }
  // Workers pinned to one processing unit each (the calling thread never is).
  int bound_threads() const { return m_bound.load(); }

  void run(ThreadsJob job, const void* context) {
    // One dispatch at a time: two host threads launching on the same pool take turns.
    std::lock_guard<std::mutex> guard(m_dispatch_mutex);
    m_job = job;
    m_context = context;
    m_error = nullptr;
    m_remaining.store(m_size - 1, std::memory_order_relaxed);
    m_generation.fetch_add(1, std::memory_order_seq_cst);
    if (m_sleepers.load(std::memory_order_seq_cst) > 0) m_generation.notify_all();

    execute(0);

    int spins = 0;
    while (m_remaining.load(std::memory_order_acquire) != 0) {
      if (++spins < kSpinsBeforeYield) {
        host_cpu_relax();
      } else {
        std::this_thread::yield();
      }
    }
    if (m_error) std::rethrow_exception(m_error);
  }

 private:
  void execute(int tid) {
    t_rank = tid;
    t_in_parallel = true;
    {
      const RunningHostSpace<Threads> running(tid);
      try {
        m_job(m_context, tid, m_size);
      } catch (...) {
        std::lock_guard<std::mutex> guard(m_error_mutex);
        if (!m_error) m_error = std::current_exception();
      }
    }
    t_in_parallel = false;
  }

  void worker_loop(int tid) {
    bind_current_thread(tid);
    m_started.fetch_add(1, std::memory_order_release);
    std::uint64_t seen = 0;
    for (;;) {
      std::uint64_t now = wait_for_change(seen);
      seen = now;
      if (m_stop.load(std::memory_order_acquire)) return;
      execute(tid);
      m_remaining.fetch_sub(1, std::memory_order_release);
    }
  }

  std::uint64_t wait_for_change(std::uint64_t seen) {
    for (int i = 0; i < kSpinsBeforeYield; ++i) {
      std::uint64_t g = m_generation.load(std::memory_order_acquire);
      if (g != seen) return g;
      host_cpu_relax();
    }
    for (int i = 0; i < kYieldsBeforeSleep; ++i) {
      std::uint64_t g = m_generation.load(std::memory_order_acquire);
      if (g != seen) return g;
      std::this_thread::yield();
    }
    for (;;) {
      m_sleepers.fetch_add(1, std::memory_order_seq_cst);
      m_generation.wait(seen, std::memory_order_seq_cst);
      m_sleepers.fetch_sub(1, std::memory_order_seq_cst);
      std::uint64_t g = m_generation.load(std::memory_order_acquire);
      if (g != seen) return g;
    }
  }

  void bind_current_thread(int tid) {
    if (m_cpus.empty()) return;
    const int cpu = m_cpus[std::size_t(tid)];
    cpu_set_t* set = CPU_ALLOC(cpu + 1);
    if (!set) return;
    const std::size_t bytes = CPU_ALLOC_SIZE(cpu + 1);
    CPU_ZERO_S(bytes, set);
    CPU_SET_S(cpu, bytes, set);
    if (pthread_setaffinity_np(pthread_self(), bytes, set) == 0) m_bound.fetch_add(1);
    CPU_FREE(set);
  }

  const int m_size;
  std::vector<std::thread> m_workers;
  std::mutex m_dispatch_mutex;
  ThreadsJob m_job = nullptr;
  const void* m_context = nullptr;
  alignas(64) std::atomic<std::uint64_t> m_generation{0};
  alignas(64) std::atomic<int> m_remaining{0};
  alignas(64) std::atomic<int> m_sleepers{0};
  std::atomic<bool> m_stop{false};
  std::atomic<int> m_bound{0};
  std::atomic<int> m_started{0};
  std::mutex m_error_mutex;
  std::exception_ptr m_error;
  const int m_allowed;
  std::vector<int> m_cpus;  // cpus[i] for worker i; empty: no pinning

 public:
  static thread_local int t_rank;
  static thread_local bool t_in_parallel;
};

thread_local int ThreadsPool::t_rank = 0;
thread_local bool ThreadsPool::t_in_parallel = false;

ThreadsPool* g_pool = nullptr;

ThreadsPool& pool() {
  if (!g_pool) detail::require_initialized("Threads execution space");
  return *g_pool;
}

}  // namespace

void threads_run(ThreadsJob job, const void* context) { pool().run(job, context); }
int threads_pool_size() { return g_pool ? g_pool->size() : 1; }
int threads_pinned_workers() { return g_pool ? g_pool->bound_threads() : 0; }
int threads_callers_cpu() { return g_pool ? g_pool->callers_cpu() : -1; }
int threads_pool_rank() { return ThreadsPool::t_rank; }
bool threads_in_parallel() { return ThreadsPool::t_in_parallel; }

}  // namespace tessera::detail

namespace tessera {

void Threads::impl_initialize(const InitializationSettings& settings) {
  // Default: one thread per CPU the process may use (not per CPU of the
  // machine: under taskset, a cpuset or a launcher's binding that is fewer).
  std::vector<int> cpus = detail::allowed_cpus();
  int n = settings.has_num_threads() ? settings.get_num_threads()
          : !cpus.empty()            ? static_cast<int>(cpus.size())
                                     : static_cast<int>(std::thread::hardware_concurrency());
  if (n < 1) n = 1;
  detail::g_pool = new detail::ThreadsPool(n, settings.get_bind_threads(), std::move(cpus));
}

void Threads::impl_finalize() {
  delete detail::g_pool;
  detail::g_pool = nullptr;
}

void Threads::print_configuration(std::ostream& out, bool) {
  out << "  Threads: " << detail::threads_pool_size() << " threads";
  if (detail::g_pool) {
    const auto& p = *detail::g_pool;
    if (p.allowed() > 0) out << " on " << p.allowed() << " allowed CPUs";
    if (p.bound_threads() > 0)
      out << ", " << p.bound_threads() << " workers pinned one per CPU (the calling thread is not pinned; CPU "
          << p.callers_cpu() << " is left to it)";
    else if (p.size() > 1)
      out << (p.allowed() > 0 && p.size() > p.allowed() ? ", not pinned (more threads than allowed CPUs)"
                                                         : ", not pinned");
  }
  out << "\n";
}

}  // namespace tessera
#endif
