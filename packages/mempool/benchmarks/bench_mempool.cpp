// tessera::MemoryPool against glibc malloc, mimalloc, jemalloc and TBB's
// scalable_malloc, side by side in one program, on 1 and 2 host threads.
//
//   (a) fixed-size allocate/free pairs (64 B and 1 KiB)
//   (b) random sizes, 64 B - 4 KiB uniform, with a live set of 1024 blocks per thread
//       (each step frees a random live block and allocates a new one)
//   (c) producer/consumer: one thread allocates 64 B - 1 KiB blocks and passes
//       them through a ring buffer to another thread, which frees them
//
// An "operation" is one allocate or one deallocate; figures are millions of
// operations per second per thread. The allocators are timed in turn within
// each repeat (tessera::bench::run_interleaved), and every figure is the
// median over --repeats repeats with its spread (min and max); the ratio is
// the pool's time / the peer's time in the same repeat (<= 1: the pool took
// at most the peer's time).
//
// Every contender runs on the same --threads worker threads, created once
// before any timing and kept until the end: no timed run includes thread
// creation or teardown, and every allocator's per-thread state (the pool's
// thread cache, glibc's tcache, mimalloc's heaps, jemalloc's tcache) lives
// on from one run to the next alike.
//
// Peers are called through their own entry points (__libc_malloc,
// mi_malloc, mallocx/sdallocx, scalable_malloc): linking mimalloc or
// jemalloc replaces the process's malloc, so "glibc" must not be plain malloc.
//
//   bench_mempool [--threads T] [--repeats R] [--ops N] [--quick] [--only NAME-PART] [--workloads abcm]
//   [--json] (c) needs 2 threads; memory (m) is a table for people, printed without --json only.
#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/report.hpp>
#include <tessera/mempool.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#if TESSERA_BENCH_HAVE_MIMALLOC
#include <mimalloc.h>
#endif
#if TESSERA_BENCH_HAVE_TBBMALLOC
#include <tbb/scalable_allocator.h>
#endif

extern "C" void* __libc_malloc(std::size_t);
extern "C" void __libc_free(void*);
#if TESSERA_BENCH_HAVE_JEMALLOC
// Debian's jemalloc exports the non-standard API unprefixed.
extern "C" void* mallocx(std::size_t size, int flags);
extern "C" void sdallocx(void* ptr, std::size_t size, int flags);
#endif

namespace {

// ---- allocators ---------------------------------------------------------------------------

struct Glibc {
  static constexpr const char* name = "glibc malloc";
  void* allocate(std::size_t n) { return __libc_malloc(n); }
  void deallocate(void* p, std::size_t) { __libc_free(p); }
};
#if TESSERA_BENCH_HAVE_MIMALLOC
struct Mimalloc {
  static constexpr const char* name = "mimalloc";
  void* allocate(std::size_t n) { return mi_malloc(n); }
  void deallocate(void* p, std::size_t) { mi_free(p); }
};
#endif
#if TESSERA_BENCH_HAVE_JEMALLOC
struct Jemalloc {
  static constexpr const char* name = "jemalloc";
  void* allocate(std::size_t n) { return mallocx(n, 0); }
  void deallocate(void* p, std::size_t n) { sdallocx(p, n, 0); }
};
#endif
#if TESSERA_BENCH_HAVE_TBBMALLOC
struct Tbb {
  static constexpr const char* name = "TBB scalable_malloc";
  void* allocate(std::size_t n) { return scalable_malloc(n); }
  void deallocate(void* p, std::size_t) { scalable_free(p); }
};
#endif

using Pool = tessera::MemoryPool<tessera::HostSpace>;

struct PoolCached {
  static constexpr const char* name = "tessera::MemoryPool";
  Pool pool;
  void* allocate(std::size_t n) { return pool.allocate(n); }
  void deallocate(void* p, std::size_t n) { pool.deallocate(p, n); }
};
struct PoolBitset {
  static constexpr const char* name = "tessera::MemoryPool, bitsets only";
  Pool pool;
  void* allocate(std::size_t n) { return pool.allocate(n); }
  void deallocate(void* p, std::size_t n) { pool.deallocate(p, n); }
};

constexpr std::size_t kPoolBytes = std::size_t(512) << 20;

Pool make_pool(bool cache, std::size_t superblock = 0) {
  tessera::MemoryPoolOptions o;
  o.thread_cache = cache;
  return Pool(tessera::HostSpace(), kPoolBytes, 64, 4096, superblock, o);
}

// ---- workloads ----------------------------------------------------------------------------

std::atomic<std::size_t> g_failures{0};  // nullptr results (the pool is sized so there are none)

inline std::uint64_t xorshift(std::uint64_t& s) {
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return s;
}

inline void touch(void* p, std::size_t i) {
  if (p)
    *static_cast<volatile unsigned char*>(p) = static_cast<unsigned char>(i);
  else
    g_failures.fetch_add(1, std::memory_order_relaxed);
}

// `size` worker threads created once; run(body) releases them together with
// body(thread_index) and returns when the last one has finished. Idle
// workers sleep in std::atomic::wait, so they take no CPU between runs.
class Team {
 public:
  explicit Team(int size) {
    for (int t = 0; t < size; ++t) m_threads.emplace_back([this, t] { work(t); });
  }
  ~Team() {
    m_stop.store(true);
    m_generation.fetch_add(1);
    m_generation.notify_all();
    for (auto& th : m_threads) th.join();
  }
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;
  int size() const { return int(m_threads.size()); }

  void run(const std::function<void(int)>& body) {
    m_body = &body;
    m_done.store(0);
    m_generation.fetch_add(1, std::memory_order_release);
    m_generation.notify_all();
    for (int d = m_done.load(std::memory_order_acquire); d != size();
         d = m_done.load(std::memory_order_acquire))
      m_done.wait(d);
  }

 private:
  void work(int t) {
    unsigned seen = 0;
    for (;;) {
      m_generation.wait(seen);
      seen = m_generation.load(std::memory_order_acquire);
      if (m_stop.load()) return;
      (*m_body)(t);
      m_done.fetch_add(1, std::memory_order_release);
      m_done.notify_one();
    }
  }
  std::vector<std::thread> m_threads;
  const std::function<void(int)>* m_body = nullptr;
  std::atomic<unsigned> m_generation{0};
  std::atomic<int> m_done{0};
  std::atomic<bool> m_stop{false};
};

template <class A>
void fixed_pairs(A& a, Team& team, std::size_t bytes, std::size_t pairs) {
  team.run([&](int) {
    for (std::size_t i = 0; i < pairs; ++i) {
      void* p = a.allocate(bytes);
      touch(p, i);
      a.deallocate(p, bytes);
    }
  });
}

constexpr std::size_t kLive = 1024;

template <class A>
void random_live(A& a, Team& team, std::size_t steps) {
  team.run([&](int t) {
    std::uint64_t rng = 0x9e3779b97f4a7c15ull * std::uint64_t(t + 1);
    std::vector<void*> live(kLive);
    std::vector<std::size_t> size(kLive);
    for (std::size_t k = 0; k < kLive; ++k) {
      size[k] = 64 + xorshift(rng) % 4033;
      live[k] = a.allocate(size[k]);
      touch(live[k], k);
    }
    for (std::size_t i = 0; i < steps; ++i) {
      const std::size_t k = xorshift(rng) % kLive;
      a.deallocate(live[k], size[k]);
      size[k] = 64 + xorshift(rng) % 4033;
      live[k] = a.allocate(size[k]);
      touch(live[k], i);
    }
    for (std::size_t k = 0; k < kLive; ++k) a.deallocate(live[k], size[k]);
  });
}

// Single-producer single-consumer ring of (pointer, size).
struct Ring {
  static constexpr std::size_t kCap = 4096;
  struct Item {
    void* p;
    std::size_t n;
  };
  Item items[kCap];
  alignas(64) std::atomic<std::size_t> head{0};
  alignas(64) std::atomic<std::size_t> tail{0};
};

// Threads 0 and 1 of the team; any others stay idle.
template <class A>
void producer_consumer(A& a, Team& team, std::size_t blocks) {
  auto ring = std::make_unique<Ring>();
  team.run([&](int t) {
    Ring& r = *ring;
    if (t > 1) return;
    if (t == 0) {
      std::uint64_t rng = 0x2545f4914f6cdd1dull;
      std::size_t tail = 0;
      for (std::size_t i = 0; i < blocks; ++i) {
        const std::size_t n = 64 + xorshift(rng) % 961;
        void* p = a.allocate(n);
        touch(p, i);
        while (tail - r.head.load(std::memory_order_acquire) == Ring::kCap) std::this_thread::yield();
        r.items[tail % Ring::kCap] = {p, n};
        r.tail.store(++tail, std::memory_order_release);
      }
    } else {
      std::size_t head = 0;
      while (head < blocks) {
        const std::size_t avail = r.tail.load(std::memory_order_acquire);
        if (avail == head) {
          std::this_thread::yield();
          continue;
        }
        for (; head < avail; ++head) {
          const Ring::Item it = r.items[head % Ring::kCap];
          a.deallocate(it.p, it.n);
        }
        r.head.store(head, std::memory_order_release);
      }
    }
  });
}

// ---- contenders --------------------------------------------------------------------------

struct Options {
  int threads = 1;
  int repeats = 7;
  std::size_t ops = 4000000;  // per thread and run
  std::string only;           // run only allocators whose name contains this
  std::string workloads = "abcm";
  bool json = false;
};

// Every allocator of one case, alive from the first warm-up run to the last
// timed one (and destroyed before the next case's are made).
struct Allocators {
  PoolCached pool_cached{make_pool(true)};
  PoolBitset pool_bitset{make_pool(false)};
  Glibc glibc;
#if TESSERA_BENCH_HAVE_MIMALLOC
  Mimalloc mimalloc;
#endif
#if TESSERA_BENCH_HAVE_JEMALLOC
  Jemalloc jemalloc;
#endif
#if TESSERA_BENCH_HAVE_TBBMALLOC
  Tbb tbb;
#endif
};

// One contender per allocator running `work(allocator, ops)`; the cached
// pool is the reference of every other row (--only may leave it out: then
// no ratios).
template <class Work>
std::vector<tessera::bench::Contender> contenders(Allocators& all, const Options& o, Team& team, Work work) {
  std::vector<tessera::bench::Contender> cs;
  const auto ran = [&team] { return team.size(); };
  auto add = [&](auto& a) {
    using A = std::decay_t<decltype(a)>;
    if (!o.only.empty() && std::string(A::name).find(o.only) == std::string::npos) return;
    const bool has_reference = !cs.empty() && cs[0].name == PoolCached::name;
    cs.push_back({A::name, [&a, work, ops = o.ops] { work(a, ops); }, ran, has_reference ? 0 : -1});
  };
  add(all.pool_cached);
  add(all.pool_bitset);
  add(all.glibc);
#if TESSERA_BENCH_HAVE_MIMALLOC
  add(all.mimalloc);
#endif
#if TESSERA_BENCH_HAVE_JEMALLOC
  add(all.jemalloc);
#endif
#if TESSERA_BENCH_HAVE_TBBMALLOC
  add(all.tbb);
#endif
  return cs;
}

// Times one workload for every allocator, interleaved, and reports it.
// ops_per_thread: operations each thread performs in one run.
template <class Work>
void run_case(const tessera::bench::Report& report, const std::string& name, const Options& o, Team& team,
              double ops_per_thread, Work work) {
  Allocators all;
  auto cs = contenders(all, o, team, work);
  if (cs.empty()) return;
  tessera::bench::InterleaveOptions opt;
  opt.repeats = o.repeats;
  const tessera::bench::Measure rate{"Mops/s per thread", ops_per_thread, 1e-6, false, false};
  report.add(name, rate, cs, tessera::bench::run_interleaved(cs, opt));
}

// Pool footprint under workload (b): live bytes requested, block bytes in
// use, superblocks consumed at the high-water mark, metadata.
void memory_overhead(Team& team, std::size_t superblock) {
  const int threads = team.size();
  Pool pool = make_pool(true, superblock);
  std::atomic<std::size_t> requested{0};
  Pool::usage_statistics at_peak;
  std::atomic<int> done{0};
  team.run([&](int t) {
    std::uint64_t rng = 0x9e3779b97f4a7c15ull * std::uint64_t(t + 1);
    std::vector<void*> live(kLive);
    std::vector<std::size_t> size(kLive);
    std::size_t mine = 0;
    for (std::size_t k = 0; k < kLive; ++k) {
      size[k] = 64 + xorshift(rng) % 4033;
      mine += size[k];
      live[k] = pool.allocate(size[k]);
    }
    for (std::size_t i = 0; i < 200000; ++i) {
      const std::size_t k = xorshift(rng) % kLive;
      pool.deallocate(live[k], size[k]);
      mine -= size[k];
      size[k] = 64 + xorshift(rng) % 4033;
      mine += size[k];
      live[k] = pool.allocate(size[k]);
    }
    requested.fetch_add(mine);
    // Statistics with every thread's live set still allocated.
    done.fetch_add(1);
    while (done.load() < threads) std::this_thread::yield();
    if (t == 0) pool.get_usage_statistics(at_peak);
    done.fetch_add(1);
    while (done.load() < 2 * threads) std::this_thread::yield();
    for (std::size_t k = 0; k < kLive; ++k) pool.deallocate(live[k], size[k]);
  });
  const double req = double(requested.load());
  std::printf(
      "\nMemory, workload (b) with %d thread(s), live set %zu blocks per thread, superblocks of %zu KiB:\n\n",
      threads, kLive, pool.superblock_size() >> 10);
  std::printf("| quantity | bytes | relative |\n|---|---:|---:|\n");
  std::printf("| requested bytes live | %.0f | 1.00 |\n", req);
  std::printf("| block bytes in use (power-of-two rounding) | %zu | %.2f |\n", at_peak.consumed_bytes,
              double(at_peak.consumed_bytes) / req);
  std::printf("| + free blocks parked in thread caches | %zu | %.2f |\n", at_peak.cached_bytes,
              double(at_peak.cached_bytes) / req);
  std::printf("| footprint at the high-water mark (%zu superblocks of %zu) | %zu | %.2f |\n",
              at_peak.high_water_superblocks, at_peak.superblock_bytes, at_peak.high_water_bytes,
              double(at_peak.high_water_bytes) / req);
  std::printf("| pool metadata (whole %zu MiB pool) | %zu | %.3f%% of capacity |\n", kPoolBytes >> 20,
              at_peak.metadata_bytes,
              100.0 * double(at_peak.metadata_bytes) / double(at_peak.capacity_bytes));
}

}  // namespace

int main(int argc, char** argv) {
  namespace tools = tessera::tools;
  Options o;
  tessera::bench::Cli cli("bench_mempool",
                          "tessera::MemoryPool against glibc malloc, mimalloc, jemalloc and TBB scalable_malloc.\n"
                          "  workloads: a fixed pairs, b random sizes with live set, c producer/consumer (2 threads),\n"
                          "  m memory (a table, without --json only)",
                          o.repeats);
  bool quick = false;
  cli.app().add_option("--threads", o.threads, "worker threads (the benchmark's own std::threads)")
      ->check(tools::integer(1, 4096));
  cli.app().add_option("--ops", o.ops, "operations per thread and run")->check(tools::integer(40, std::int64_t(1) << 40));
  cli.app().add_flag("--quick", quick, "3 repeats of 400000 operations (unless --repeats, --ops)");
  cli.app().add_option("--only", o.only, "run only the allocators whose name contains this");
  cli.app().add_option("--workloads", o.workloads, "the workloads to run (letters of abcm)");
  if (auto status = cli.parse(argc, argv)) return *status;
  o.repeats = cli.repeats;
  o.json = cli.json;
  if (quick) {
    if (cli.app().get_option("--repeats")->count() == 0) o.repeats = 3;
    if (cli.app().get_option("--ops")->count() == 0) o.ops = 400000;
  }
  // The benchmark runs its own std::threads; Tessera's back-ends stay at one
  // thread unless --tessera-num-threads says otherwise.
  if (!cli.settings().has_num_threads()) cli.settings().set_num_threads(1);
  tessera::ScopeGuard guard(cli.settings());
  if (!o.json)
    std::printf(
        "# tessera::MemoryPool benchmark: %d worker thread(s), %d repeats of %zu operations per thread, "
        "allocators interleaved\n",
        o.threads, o.repeats, o.ops);
  const tessera::bench::Report report("mempool", o.json);
  Team team(o.threads);
  const double ops = double(o.ops);
  auto wants = [&](char w) { return o.workloads.find(w) != std::string::npos; };
  if (wants('a'))
    for (std::size_t bytes : {std::size_t(64), std::size_t(1024)})
      run_case(report, "(a) alloc/free pairs, " + std::to_string(bytes) + " B", o, team, ops,
               [&team, bytes](auto& a, std::size_t n) { fixed_pairs(a, team, bytes, n / 2); });
  if (wants('b'))
    run_case(report, "(b) random 64 B - 4 KiB, live set " + std::to_string(kLive), o, team, ops,
             [&team](auto& a, std::size_t n) { random_live(a, team, n / 2); });
  if (wants('c')) {
    // 2 operations per block, shared by the producer and the consumer: o.ops / 2 operations each.
    if (o.threads >= 2)
      run_case(report, "(c) producer/consumer, 64 B - 1 KiB", o, team, ops / 2.0,
               [&team](auto& a, std::size_t n) { producer_consumer(a, team, n / 2); });
    else if (!o.json)
      std::printf("# (c) producer/consumer needs --threads 2 or more; skipped\n");
  }
  if (wants('m') && !o.json)
    for (std::size_t sb : {std::size_t(0), std::size_t(64) << 10}) memory_overhead(team, sb);
  if (g_failures.load() != 0) {
    std::fprintf(stderr, "\nbench_mempool: %zu allocations returned nullptr\n", g_failures.load());
    return 1;
  }
  return 0;
}
