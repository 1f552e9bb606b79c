// tessera::MemoryPool against glibc malloc, mimalloc, jemalloc and TBB's
// scalable_malloc, side by side in one program, on 1 and 2 host threads.
//
//   (a) fixed-size allocate/free pairs (64 B and 1 KiB)
//   (b) random sizes, 64 B - 4 KiB uniform, with a live set of 1024 blocks per thread
//       (each step frees a random live block and allocates a new one)
//   (c) producer/consumer: one thread allocates 64 B - 1 KiB blocks and passes
//       them through a ring buffer to another thread, which frees them
//
// An "operation" is one allocate or one deallocate. Every figure is the
// median over --repeats runs, with the spread (min and max) of those runs;
// the machine may be shared, so look at the spread before the median.
//
// Peers are called through their own entry points (__libc_malloc,
// mi_malloc, mallocx/sdallocx, scalable_malloc): linking mimalloc or
// jemalloc replaces the process's malloc, so "glibc" must not be plain malloc.
//
//   bench_mempool [--repeats R] [--ops N] [--quick] [--only NAME-PART] [--workloads abcm]
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

using Clock = std::chrono::steady_clock;

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
  if (p) *static_cast<volatile unsigned char*>(p) = static_cast<unsigned char>(i);
  else g_failures.fetch_add(1, std::memory_order_relaxed);
}

// Runs body(thread_index) on `threads` new threads released together;
// returns the seconds from release until the last one finished.
double run_threads(int threads, const std::function<void(int)>& body) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      body(t);
    });
  while (ready.load() != threads) std::this_thread::yield();
  const auto t0 = Clock::now();
  go.store(true, std::memory_order_release);
  for (auto& th : pool) th.join();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

template <class A>
double fixed_pairs(A& a, int threads, std::size_t bytes, std::size_t pairs) {
  const double s = run_threads(threads, [&](int) {
    for (std::size_t i = 0; i < pairs; ++i) {
      void* p = a.allocate(bytes);
      touch(p, i);
      a.deallocate(p, bytes);
    }
  });
  return 2.0 * double(pairs) / s;  // operations per second per thread
}

constexpr std::size_t kLive = 1024;

template <class A>
double random_live(A& a, int threads, std::size_t steps) {
  const double s = run_threads(threads, [&](int t) {
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
  return 2.0 * double(steps) / s;
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

template <class A>
double producer_consumer(A& a, std::size_t blocks) {
  auto ring = std::make_unique<Ring>();
  const double s = run_threads(2, [&](int t) {
    Ring& r = *ring;
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
  return 2.0 * double(blocks) / s / 2.0;  // 2 ops per block, spread over 2 threads
}

// ---- statistics and report ------------------------------------------------------------------

struct Result {
  double median = 0, min = 0, max = 0;
};

Result summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  Result r;
  r.min = v.front();
  r.max = v.back();
  r.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  return r;
}

struct Row {
  std::string name;
  Result r;
  bool is_pool;
};

void print_table(const char* title, const std::vector<Row>& rows) {
  double best_peer = 0;
  for (auto& row : rows)
    if (!row.is_pool) best_peer = std::max(best_peer, row.r.median);
  std::printf("\n%s\n\n", title);
  std::printf("| allocator | Mops/s per thread (median) | spread (min - max) | vs best peer |\n");
  std::printf("|---|---:|---:|---:|\n");
  for (auto& row : rows) {
    if (row.r.median == 0) continue;  // filtered out
    std::printf("| %s | %.1f | %.1f - %.1f | %.2fx |\n", row.name.c_str(), row.r.median / 1e6, row.r.min / 1e6,
                row.r.max / 1e6, best_peer > 0 ? row.r.median / best_peer : 0.0);
  }
  std::fflush(stdout);
}

struct Options {
  int repeats = 7;
  std::size_t ops = 4000000;  // per thread and run
  std::string only;           // run only allocators whose name contains this
  std::string workloads = "abcm";
};

template <class A, class Run>
Row measure(A& a, const Options& o, Run run, bool is_pool) {
  if (!o.only.empty() && std::string(A::name).find(o.only) == std::string::npos) return {A::name, {}, is_pool};
  run(a, o.ops / 20);  // warm up (thread caches, first touch)
  std::vector<double> v;
  for (int r = 0; r < o.repeats; ++r) v.push_back(run(a, o.ops));
  return {A::name, summarize(v), is_pool};
}

template <class Run>
std::vector<Row> all_allocators(const Options& o, Run run) {
  std::vector<Row> rows;
  {
    PoolCached a{make_pool(true)};
    rows.push_back(measure(a, o, run, true));
  }
  {
    PoolBitset a{make_pool(false)};
    rows.push_back(measure(a, o, run, true));
  }
  {
    Glibc a;
    rows.push_back(measure(a, o, run, false));
  }
#if TESSERA_BENCH_HAVE_MIMALLOC
  {
    Mimalloc a;
    rows.push_back(measure(a, o, run, false));
  }
#endif
#if TESSERA_BENCH_HAVE_JEMALLOC
  {
    Jemalloc a;
    rows.push_back(measure(a, o, run, false));
  }
#endif
#if TESSERA_BENCH_HAVE_TBBMALLOC
  {
    Tbb a;
    rows.push_back(measure(a, o, run, false));
  }
#endif
  return rows;
}

// Pool footprint under workload (b): live bytes requested, block bytes in
// use, superblocks consumed at the high-water mark, metadata.
void memory_overhead(int threads, std::size_t superblock) {
  Pool pool = make_pool(true, superblock);
  std::atomic<std::size_t> requested{0};
  Pool::usage_statistics at_peak;
  std::atomic<int> done{0};
  run_threads(threads, [&](int t) {
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
  std::printf("\nMemory, workload (b) with %d thread(s), live set %zu blocks per thread, superblocks of %zu KiB:\n\n",
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
              at_peak.metadata_bytes, 100.0 * double(at_peak.metadata_bytes) / double(at_peak.capacity_bytes));
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeats" && i + 1 < argc) o.repeats = std::atoi(argv[++i]);
    else if (a == "--ops" && i + 1 < argc) o.ops = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--only" && i + 1 < argc) o.only = argv[++i];
    else if (a == "--workloads" && i + 1 < argc) o.workloads = argv[++i];
    else if (a == "--quick") {
      o.repeats = 3;
      o.ops = 400000;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--repeats R] [--ops N] [--quick] [--only NAME-PART] [--workloads abcm]\n"
                   "  workloads: a fixed pairs, b random sizes with live set, c producer/consumer, m memory\n",
                   argv[0]);
      return 2;
    }
  }
  // The benchmark runs its own std::threads; Tessera's back-ends stay at one thread.
  tessera::ScopeGuard guard(tessera::InitializationSettings().set_num_threads(1));
  std::printf("tessera::MemoryPool benchmark: %d repeats of %zu operations per thread; %u hardware threads\n",
              o.repeats, o.ops, std::thread::hardware_concurrency());

  auto wants = [&](char w) { return o.workloads.find(w) != std::string::npos; };
  for (int threads : {1, 2}) {
    for (std::size_t bytes : {std::size_t(64), std::size_t(1024)}) {
      if (!wants('a')) break;
      char title[160];
      std::snprintf(title, sizeof title, "(a) fixed-size allocate/free pairs, %zu B, %d thread(s)", bytes, threads);
      print_table(title, all_allocators(o, [&](auto& a, std::size_t ops) {
                    return fixed_pairs(a, threads, bytes, ops / 2);
                  }));
    }
    if (wants('b')) {
      char title[160];
      std::snprintf(title, sizeof title, "(b) random sizes 64 B - 4 KiB, live set %zu per thread, %d thread(s)",
                    kLive, threads);
      print_table(title,
                  all_allocators(o, [&](auto& a, std::size_t ops) { return random_live(a, threads, ops / 2); }));
    }
  }
  if (wants('c'))
    print_table("(c) producer/consumer, 64 B - 1 KiB, freed by the other thread, 2 threads",
                all_allocators(o, [&](auto& a, std::size_t ops) { return producer_consumer(a, ops); }));
  if (wants('m')) {
    for (std::size_t sb : {std::size_t(0), std::size_t(64) << 10}) {
      memory_overhead(1, sb);
      memory_overhead(2, sb);
    }
  }
  if (g_failures.load() != 0) {
    std::printf("\nWARNING: %zu allocations returned nullptr\n", g_failures.load());
    return 1;
  }
  return 0;
}
