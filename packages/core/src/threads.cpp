// The Threads back-end's pool: fork/join over pinned std::threads.
#include <tessera/config.hpp>
#if TESSERA_ENABLE_THREADS
#include <tessera/core/backends/threads/threads.hpp>
#include <tessera/core/initialize.hpp>

#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if TESSERA_HAVE_HWLOC
#include <hwloc.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TESSERA_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define TESSERA_CPU_RELAX() asm volatile("yield" ::: "memory")
#else
#define TESSERA_CPU_RELAX() ((void)0)
#endif

namespace tessera::detail {
namespace {

// Spins before a worker goes to sleep: long enough to catch the next kernel
// of a typical loop of launches, short enough not to burn a core when idle.
constexpr int kSpinsBeforeYield = 1 << 14;
constexpr int kYieldsBeforeSleep = 64;

struct alignas(64) PaddedFlag {
  std::atomic<int> value{0};
};

class ThreadsPool {
 public:
  explicit ThreadsPool(int size, bool bind) : m_size(size) {
#if TESSERA_HAVE_HWLOC
    if (bind) {
      hwloc_topology_init(&m_topology);
      if (hwloc_topology_load(m_topology) == 0) {
        m_have_topology = true;
      } else {
        hwloc_topology_destroy(m_topology);
      }
    }
#else
    (void)bind;
#endif
    // The calling thread (pool rank 0) is deliberately not pinned: threads it
    // creates later inherit its CPU mask, and OpenMP's workers, a user's
    // std::threads or another runtime would all end up on one core.
    m_workers.reserve(size - 1);
    for (int tid = 1; tid < size; ++tid) m_workers.emplace_back([this, tid] { worker_loop(tid); });
  }

  ~ThreadsPool() {
    m_stop.store(true, std::memory_order_seq_cst);
    m_generation.fetch_add(1, std::memory_order_seq_cst);
    m_generation.notify_all();
    for (auto& t : m_workers) t.join();
#if TESSERA_HAVE_HWLOC
    if (m_have_topology) hwloc_topology_destroy(m_topology);
#endif
  }

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
        TESSERA_CPU_RELAX();
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
    try {
      m_job(m_context, tid, m_size);
    } catch (...) {
      std::lock_guard<std::mutex> guard(m_error_mutex);
      if (!m_error) m_error = std::current_exception();
    }
    t_in_parallel = false;
  }

  void worker_loop(int tid) {
    bind_current_thread(tid);
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
      TESSERA_CPU_RELAX();
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
#if TESSERA_HAVE_HWLOC
    if (!m_have_topology) return;
    int npu = hwloc_get_nbobjs_by_type(m_topology, HWLOC_OBJ_PU);
    if (npu <= 0) return;
    hwloc_obj_t pu = hwloc_get_obj_by_type(m_topology, HWLOC_OBJ_PU, tid % npu);
    if (pu && hwloc_set_cpubind(m_topology, pu->cpuset, HWLOC_CPUBIND_THREAD) == 0) m_bound.fetch_add(1);
#else
    (void)tid;
#endif
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
  std::mutex m_error_mutex;
  std::exception_ptr m_error;
#if TESSERA_HAVE_HWLOC
  hwloc_topology_t m_topology{};
  bool m_have_topology = false;
#endif

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
int threads_pool_rank() { return ThreadsPool::t_rank; }
bool threads_in_parallel() { return ThreadsPool::t_in_parallel; }

}  // namespace tessera::detail

namespace tessera {

void Threads::impl_initialize(const InitializationSettings& settings) {
  int n = settings.has_num_threads() ? settings.get_num_threads()
                                     : static_cast<int>(std::thread::hardware_concurrency());
  if (n < 1) n = 1;
  detail::g_pool = new detail::ThreadsPool(n, settings.get_bind_threads());
}

void Threads::impl_finalize() {
  delete detail::g_pool;
  detail::g_pool = nullptr;
}

void Threads::print_configuration(std::ostream& out, bool) {
  out << "  Threads: " << detail::threads_pool_size() << " threads";
  if (detail::g_pool) out << ", " << detail::g_pool->bound_threads() << " workers pinned with hwloc (the calling thread is not pinned)";
  out << "\n";
}

}  // namespace tessera
#endif
