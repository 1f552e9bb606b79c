// The dynamic task DAG on the GPU (TaskScheduler<Cuda>, issue gpu-tasking
// part 6): what one wait of the CUDA task driver costs, per task. Rows
// (`--only NAME`):
//
//   fib        naive Fibonacci(n) for each --fib n (default 27,30) by spawn +
//              when_all(f1, f2) + respawn, the form of the host benchmark
//              (bench_task_overhead) and of the portable test: 2 F(n+1) - 1
//              tasks, plus F(n+1) - 1 when_all nodes. Mtasks/s counts the
//              tasks only, as the host benchmark does. The answer is checked
//              against Binet's closed form. Also with the driver's surplus
//              sharing off (cuda_warp_queues.hpp), interleaved, as the
//              empty Cholesky DAG below.
//   fanout     --fanout N (10^6) tasks that each mark their own slot of a
//              device array, spawned three ways:
//                host     N host_spawns, then wait (the host staging and the
//                         wait are also reported apart: staging is host work,
//                         the wait uploads the records and runs them);
//                spawner  one task spawns all N, respawning itself every
//                         --spawner-chunk spawns so that its children run on
//                         other warps meanwhile (a lane spawns serially; the
//                         chunk only lets the rest of the GPU start);
//                tree     a tree of spawners, 32 children per node, leaves
//                         spawning the marking tasks (N + about N/31 tasks);
//                bulk     one host_spawn_for of N indices (spawn_for.hpp):
//                         the host stages one task, the GPU makes the tree
//                         of leaves of --bulk-grain indices (0: the default,
//                         four leaves per warp), single leaves (an index
//                         range per lane) and team leaves (per warp).
//              Checked: every slot marked exactly once.
//   cholesky   the task DAG of a right-looking tiled Cholesky on --tiles T
//              tiles per side (default 128: n = 16384 with 128-wide tiles, the
//              issue's case), built from the host as bench_tiled_cholesky
//              builds it (each task after a when_all of the last writers of
//              the tiles it touches; POTRF and TRSM High), with empty tile
//              bodies: the scheduling cost alone. Each task checks, on a
//              per-tile version counter, that the DAG ran its tile updates in
//              the order the factorization needs (brute-force expectation:
//              tile (i, j) sees k updates before step k); any violation fails
//              the run. T^3/6 + O(T^2) tasks, as many when_all nodes.
//   potrf      the same DAG with real tile bodies: warp-team tasks doing
//              POTRF/TRSM/SYRK/GEMM of 128-wide tiles through the team's
//              level-0 scratch (shared memory), on an SPD matrix of order
//              n = 128 T in device memory (LayoutLeft), against
//              cusolverDnDpotrf on the same matrix. Both timed with CUDA
//              events after a warm-up run (Tessera: the wait, the DAG being
//              staged on the host beforehand, reported apart); medians,
//              GFLOP/s of n^3/3 flops, and cuSOLVER time / Tessera time.
//              Also with the driver's surplus sharing off (the team tasks a
//              completed tile makes ready stay on its warp), interleaved.
//              Checked, for both: ||L - L_cusolver||_F / ||L_cusolver||_F
//              <= 1e-10 over the lower triangles; cuSOLVER's info 0.
//
// Goals on an H100 (issue gpu-tasking part 6): Fibonacci >= 100 M tasks/s;
// 10^6 tasks fanned out from the host <= 5 ms; the tiled Cholesky at >= 0.3
// of cuSOLVER's speed; every figure ahead of the 16-core host scheduler.
// The host scheduler on the default host back-end (Threads in the GPU pack:
// every core of the GPU machine) runs fib and the host-spawned and tree
// fan-outs in the same program, interleaved, as each GPU row's reference; a
// build whose host back-end is Serial has no host column. oneTBB and
// Taskflow are not in this program (bench_task_overhead has them, on a host
// build).
//
// Method: wait() is synchronous (it launches the persistent kernel and polls
// it to its end), so each run is timed with the host clock around the spawns
// and the wait; that includes the upload of host-staged records, the launch
// and the read-back of the control block, which a user pays too. Answers are
// checked after each run, outside the timing; arrays are cleared before each
// run (untimed). Warm-up runs first (module load, first-use costs), then
// --repeats runs; reported: median (min - max). One scheduler per row, made
// before its runs: its deques, arena and pool are allocated once.
//
//   bench_task_cuda [--repeats N] [--quick] [--only fib,fanout,cholesky,potrf] [--fib 27,30] [--fanout N]
//                   [--tiles T] [--json]
//
// --quick: fib(20), 10^5 fan-out, 32 tiles (n = 4096 for potrf), 3 repeats (a smoke test). On a
// machine without a usable GPU the program prints "no CUDA device: <reason>"
// and exits 0.
#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/report.hpp>
#include <tessera/tasking.hpp>

#include "cholesky_tiles_cuda.hpp"

#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#if !TESSERA_ENABLE_CUDA
#error "bench_task_cuda.cpp needs Tessera's CUDA back-end (Tessera_ENABLE_CUDA=ON)"
#endif

// The functors are __host__ __device__ (TESSERA_FUNCTION); those
// instantiated for the host scheduler (FibOn<HostSched>, ...) call its
// host-only API and run on the host only (warning 20011, silenced here;
// warning 20014, which the pragma does not reach under nvcc 13, is silenced
// by the target's -diag-suppress in CMakeLists.txt).
#if defined(__NVCC__)
#pragma nv_diag_suppress 20011
#endif

namespace tessera_bench_task_cuda {

using tessera::Cuda;
using Sched = tessera::TaskScheduler<Cuda>;
using Member = Sched::member_type;
namespace bench = tessera::bench;
using clock_type = std::chrono::steady_clock;
// The CPU peer (issue gpu-tasking part 6: the GPU machine's 16 cores): the
// host scheduler on the default host back-end, in the same program, its runs
// interleaved with the GPU's. A build without a parallel host back-end
// (Serial) has no host column.
using Host = tessera::DefaultHostExecutionSpace;
using HostSched = tessera::TaskScheduler<Host>;
constexpr bool kHostColumn = !std::is_same_v<Host, tessera::Serial>;

struct Setup {
  bool json = false;
  bool quick = false;
  int repeats = 7;
};

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}
#define CK(call) check((call), #call)

std::vector<std::string> g_failures;
void verify(const Setup& S, bool ok, const std::string& what) {
  if (!ok) {
    g_failures.push_back(what);
    std::fprintf(stderr, "bench_task_cuda: CHECK FAILED: %s\n", what.c_str());
  } else if (!S.json) {
    std::printf("  check: %s: ok\n", what.c_str());
  }
}

double seconds_since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }
double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

bench::InterleaveOptions options(const Setup& S) {
  bench::InterleaveOptions o;
  o.warmup = 1;
  o.repeats = S.repeats;
  o.pause_ms = 0;  // nothing on the host spins between runs
  return o;
}

// Records and closures are small and trivially destructible here on purpose:
// raw device pointers, not Views (a View in a functor makes the task carry a
// destructor the device calls at completion and the host calls on its copy).
template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  std::size_t n = 0;
  explicit DeviceArray(std::size_t n_) : n(n_) { CK(cudaMalloc(reinterpret_cast<void**>(&ptr), n * sizeof(T))); }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  void clear() const { CK(cudaMemset(ptr, 0, n * sizeof(T))); }
  std::vector<T> to_host() const {
    std::vector<T> h(n);
    CK(cudaMemcpy(h.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
};

// ---- fib -------------------------------------------------------------------------

// On either scheduler: TaskScheduler<Cuda>, and the host's for its column.
template <class S>
struct FibOn {
  using value_type = long long;
  S sched;
  int n;
  tessera::BasicFuture<long long, S> f1, f2;

  TESSERA_FUNCTION FibOn(const S& s, int n_) : sched(s), n(n_) {}

  TESSERA_FUNCTION void operator()(typename S::member_type&, long long& result) {
    if (n < 2) {
      result = n;
      return;
    }
    if (!f1.is_null() && !f2.is_null()) {
      result = f1.get() + f2.get();
      return;
    }
    // A spawn that finds the pool full gives a null future: respawn at Low
    // priority and try again once other tasks have completed.
    if (f1.is_null()) f1 = tessera::task_spawn(tessera::TaskSingle(sched), FibOn(sched, n - 1));
    if (f2.is_null())
      f2 = tessera::task_spawn(tessera::TaskSingle(sched, tessera::TaskPriority::High), FibOn(sched, n - 2));
    if (f1.is_null() || f2.is_null()) {
      tessera::respawn(this, sched, tessera::TaskPriority::Low);
      return;
    }
    auto all = sched.when_all(f1, f2);
    if (all.is_null()) tessera::respawn(this, sched, tessera::TaskPriority::Low);
    else tessera::respawn(this, all);
  }
};

// F(n) by Binet's formula, exact in double for n <= 70.
long long fibonacci_closed_form(int n) {
  const double s5 = std::sqrt(5.0), phi = (1.0 + s5) / 2.0;
  return std::llround(std::pow(phi, n) / s5);
}

// What the driver counted over a row's runs (warm-up included), per run: the
// steals and the spawns that found the pool full, for the note under the table.
struct DriverCounts {
  double steals_per_run = 0, failed_spawns_per_run = 0;
};
DriverCounts driver_counts(const Sched& sched, int runs) {
  const tessera::TaskStatistics st = sched.statistics();
  return {double(st.steals) / runs, double(st.failed_spawns) / runs};
}
int runs_of(const Setup& S) { return options(S).warmup + options(S).repeats; }

// The driver's account of one wait (TaskScheduler<Cuda>::last_wait_profile),
// as a note under the table and a line of the text output: where the wait's
// time went on the host, and how the warps spent the kernel (running tasks,
// taking work, idle). `who` names the contender it belongs to.
void note_profile(const Setup& S, const bench::Report& report, const std::string& case_name, const std::string& who,
                  const tessera::TaskWaitProfile& p) {
  const double per_batch = p.batches ? double(p.lanes_used) / double(p.batches) : 0.0;
  report.note(case_name, {{"profile_of", who},
                          {"wait_ms", p.total_ms},
                          {"upload_ms", p.upload_ms},
                          {"kernel_ms", p.kernel_ms},
                          {"finish_ms", p.finish_ms},
                          {"warp_running_fraction", p.running_fraction},
                          {"warp_taking_fraction", p.taking_fraction},
                          {"warp_idle_fraction", p.idle_fraction},
                          {"batches", double(p.batches)},
                          {"tasks_per_batch", per_batch},
                          {"idle_steps", double(p.idle_steps)},
                          {"warps", p.warps}});
  if (!S.json)
    std::printf("  # %s, last wait: %.3f ms = upload %.3f + kernel %.3f + finish %.3f; warps running %.1f%%, "
                "taking work %.1f%%, idle %.1f%%; %llu batches of %.2f tasks\n",
                who.c_str(), p.total_ms, p.upload_ms, p.kernel_ms, p.finish_ms, 100 * p.running_fraction,
                100 * p.taking_fraction, 100 * p.idle_fraction, (unsigned long long)p.batches, per_batch);
}

void row_fib(const Setup& S, const bench::Report& report, const std::vector<int>& ns) {
  // Fib(30) makes 2.7 M tasks and 1.3 M when_all nodes; a GPU running them
  // breadth-first can hold a large part of them at once. Spawns that find the
  // pool full retry, so the size bounds memory, not correctness.
  Sched sched(Sched::memory_space(), std::size_t(2) << 30);
  std::optional<HostSched> host_sched;
  if constexpr (kHostColumn) host_sched.emplace(HostSched::memory_space(), std::size_t(2) << 30);
  for (int n : ns) {
    const long long want = fibonacci_closed_form(n);
    const double calls = 2.0 * double(fibonacci_closed_form(n + 1)) - 1.0;
    const double nodes = double(fibonacci_closed_form(n + 1)) - 1.0;
    if (!S.json)
      std::printf("\n# fib(%d): %.0f tasks + %.0f when_all nodes, %d warps\n", n, calls, nodes, sched.workers());
    bool all_ok = true, host_ok = true;
    std::vector<bench::Contender> cs;
    if (host_sched) {
      bench::Contender h;
      h.name = std::string("tessera TaskScheduler<") + Host::name() + "> (host cores)";
      h.run = [&] {
        auto f = tessera::host_spawn(tessera::TaskSingle(*host_sched), FibOn<HostSched>(*host_sched, n));
        tessera::wait(*host_sched);
        host_ok = host_ok && f.get() == want;
      };
      h.threads_ran = [] { return Host().concurrency(); };
      cs.push_back(h);
    }
    bench::Contender c;
    c.name = "tessera TaskScheduler<Cuda>";
    c.prepare = [&] { sched.impl_set_surplus_sharing(true); };
    c.run = [&] {
      auto f = tessera::host_spawn(tessera::TaskSingle(sched), FibOn<Sched>(sched, n));
      tessera::wait(sched);
      all_ok = all_ok && static_cast<long long>(f.get()) == want;
    };
    c.reference = host_sched ? 0 : -1;
    // The same driver without surplus sharing (cuda_warp_queues.hpp).
    bench::Contender off = c;
    off.name = "tessera TaskScheduler<Cuda>, surplus sharing off";
    off.prepare = [&] { sched.impl_set_surplus_sharing(false); };
    cs.push_back(off);
    cs.push_back(c);
    sched.reset_statistics();
    const auto rs = bench::run_interleaved(cs, options(S));
    sched.impl_set_surplus_sharing(true);
    const DriverCounts dc = driver_counts(sched, 2 * runs_of(S));
    verify(S, all_ok, "fib(" + std::to_string(n) + ") = " + std::to_string(want) + " (Binet) in every run");
    if (host_sched) verify(S, host_ok, "fib(" + std::to_string(n) + ") on the host scheduler, every run");
    report.add("fib(" + std::to_string(n) + ")", bench::Measure{"Mtasks/s", calls, 1e-6, false, false}, cs, rs);
    report.note("fib(" + std::to_string(n) + ")", {{"tasks", calls}, {"when_all_nodes", nodes}, {"warps", sched.workers()},
                                                    {"last_batch_width", sched.last_batch_width()},
                                                    {"steals_per_run_both_ways", dc.steals_per_run},
                                                    {"failed_spawns_per_run_both_ways", dc.failed_spawns_per_run}});
    if (!S.json)
      std::printf("  # single tasks per warp pop (last run): %.2f; per run, sharing on and off: %.0f steals, %.0f "
                  "spawns found the pool full\n",
                  sched.last_batch_width(), dc.steals_per_run, dc.failed_spawns_per_run);
    note_profile(S, report, "fib(" + std::to_string(n) + ")", c.name, sched.last_wait_profile());
  }
}

// ---- fan-out ---------------------------------------------------------------------

template <class S>
struct MarkOn {
  int* hits;
  int i;
  TESSERA_FUNCTION void operator()(typename S::member_type&) { hits[i] += 1; }  // its own slot: no other task writes it
};
using Mark = MarkOn<Sched>;

struct Spawner {
  Sched sched;
  int* hits;
  int n, chunk;
  int next = 0;
  TESSERA_FUNCTION void operator()(Member&) {
    const int stop = next + chunk < n ? next + chunk : n;
    for (; next < stop; ++next)
      if (tessera::task_spawn(tessera::TaskSingle(sched), Mark{hits, next}).is_null()) break;  // pool full
    // Pool full: Low, after the children that free it. Chunk done: Regular,
    // so that the warp's next batch pop takes it with 31 of its children.
    if (next < n) tessera::respawn(this, sched, next < stop ? tessera::TaskPriority::Low : tessera::TaskPriority::Regular);
  }
};

// Covers [lo, hi): up to 32 children, each a subrange, or (a leaf) a Mark per index.
template <class S>
struct TreeNodeOn {
  static constexpr int kFan = 32;
  S sched;
  int* hits;
  int lo, hi;
  int next = 0;  // children spawned so far (a respawn after a full pool resumes here)
  TESSERA_FUNCTION void operator()(typename S::member_type&) {
    const int len = hi - lo;
    if (len <= kFan) {
      for (; next < len; ++next)
        if (tessera::task_spawn(tessera::TaskSingle(sched), MarkOn<S>{hits, lo + next}).is_null()) break;
    } else {
      const int step = (len + kFan - 1) / kFan;
      for (; next < kFan && lo + next * step < hi; ++next) {
        const int a = lo + next * step, b = a + step < hi ? a + step : hi;
        if (tessera::task_spawn(tessera::TaskSingle(sched), TreeNodeOn{sched, hits, a, b}).is_null()) break;
      }
      if (next < kFan && lo + next * step >= hi) next = kFan;
    }
    const bool done = len <= kFan ? next >= len : next >= kFan;
    if (!done) tessera::respawn(this, sched, tessera::TaskPriority::Low);
  }
};

using TreeNode = TreeNodeOn<Sched>;

// The bulk form's body: the mark of index i (as Mark, one slot each).
struct MarkIndex {
  int* hits;
  TESSERA_FUNCTION void operator()(int i) const { hits[i] += 1; }
};

// Tree nodes of TreeNode over n indices (closed count, for tasks/s).
double tree_nodes(int n) {
  if (n <= TreeNode::kFan) return 1.0;
  const int step = (n + TreeNode::kFan - 1) / TreeNode::kFan;
  double total = 1.0;
  for (int a = 0; a < n; a += step) total += tree_nodes(std::min(step, n - a));
  return total;
}

void row_fanout(const Setup& S, const bench::Report& report, int n, int chunk, int bulk_grain) {
  // Records of about 128 bytes: n of them in the host arena (a quarter of the
  // pool) for the host case, in the pool for the others.
  const std::size_t need = std::size_t(n) * 128 * 4;
  Sched sched(Sched::memory_space(), std::max(need, std::size_t(256) << 20));
  DeviceArray<int> hits{std::size_t(n)};
  auto all_once = [&] {
    const auto h = hits.to_host();
    return std::all_of(h.begin(), h.end(), [](int v) { return v == 1; });
  };
  if (!S.json) std::printf("\n# fan-out of %d tasks, %d warps\n", n, sched.workers());

  std::vector<double> stage_s, wait_s;
  bool host_ok = true, spawner_ok = true, tree_ok = true, bulk_ok = true;
  tessera::TaskWaitProfile host_profile, spawner_profile, tree_profile, bulk_profile, bulk_team_profile;
  bench::Contender host;
  host.name = "host_spawn x N + wait";
  host.prepare = [&] { hits.clear(); };
  host.run = [&] {
    const auto t0 = clock_type::now();
    for (int i = 0; i < n; ++i) tessera::host_spawn(tessera::TaskSingle(sched), Mark{hits.ptr, i});
    const auto t1 = clock_type::now();
    tessera::wait(sched);
    host_profile = sched.last_wait_profile();
    stage_s.push_back(std::chrono::duration<double>(t1 - t0).count());
    wait_s.push_back(seconds_since(t1));
  };
  host.check = [&] { host_ok = host_ok && all_once(); };
  bench::Contender spawner;
  spawner.name = "one spawner task";
  spawner.prepare = [&] { hits.clear(); };
  spawner.run = [&] {
    tessera::host_spawn(tessera::TaskSingle(sched), Spawner{sched, hits.ptr, n, chunk});
    tessera::wait(sched);
    spawner_profile = sched.last_wait_profile();
  };
  spawner.check = [&] { spawner_ok = spawner_ok && all_once(); };
  bench::Contender tree;
  tree.name = "tree of spawners (32-way)";
  tree.prepare = [&] { hits.clear(); };
  tree.run = [&] {
    tessera::host_spawn(tessera::TaskSingle(sched), TreeNode{sched, hits.ptr, 0, n});
    tessera::wait(sched);
    tree_profile = sched.last_wait_profile();
  };
  tree.check = [&] { tree_ok = tree_ok && all_once(); };
  bench::Contender bulk;
  bulk.name = "host_spawn_for, single leaves";
  bulk.prepare = [&] { hits.clear(); };
  bulk.run = [&] {
    tessera::host_spawn_for(tessera::TaskSingle(sched), n, MarkIndex{hits.ptr}, bulk_grain);
    tessera::wait(sched);
    bulk_profile = sched.last_wait_profile();
  };
  bulk.check = [&] { bulk_ok = bulk_ok && all_once(); };
  bench::Contender bulk_team = bulk;
  bulk_team.name = "host_spawn_for, warp-team leaves";
  bulk_team.run = [&] {
    tessera::host_spawn_for(tessera::TaskTeam(sched), n, MarkIndex{hits.ptr}, bulk_grain);
    tessera::wait(sched);
    bulk_team_profile = sched.last_wait_profile();
  };
  // The host scheduler's column: the host-spawned, tree and bulk fan-outs
  // (the same tasks, on host memory), each the reference of its GPU row.
  std::vector<bench::Contender> cs;
  std::optional<HostSched> hsched;
  std::vector<int> host_hits(std::size_t(n), 0);
  bool host_column_ok = true;
  auto host_all_once = [&] { return std::all_of(host_hits.begin(), host_hits.end(), [](int v) { return v == 1; }); };
  if constexpr (kHostColumn) {
    hsched.emplace(HostSched::memory_space(), std::max(need, std::size_t(256) << 20));
    const std::string who = std::string("host scheduler (") + Host::name() + "): ";
    bench::Contender hh;
    hh.name = who + "host_spawn x N + wait";
    hh.prepare = [&] { std::fill(host_hits.begin(), host_hits.end(), 0); };
    hh.run = [&] {
      for (int i = 0; i < n; ++i) tessera::host_spawn(tessera::TaskSingle(*hsched), MarkOn<HostSched>{host_hits.data(), i});
      tessera::wait(*hsched);
    };
    hh.check = [&] { host_column_ok = host_column_ok && host_all_once(); };
    hh.threads_ran = [] { return Host().concurrency(); };
    bench::Contender ht = hh;
    ht.name = who + "tree of spawners (32-way)";
    ht.run = [&] {
      tessera::host_spawn(tessera::TaskSingle(*hsched), TreeNodeOn<HostSched>{*hsched, host_hits.data(), 0, n});
      tessera::wait(*hsched);
    };
    bench::Contender hb = hh;
    hb.name = who + "host_spawn_for";
    hb.run = [&] {
      tessera::host_spawn_for(tessera::TaskSingle(*hsched), n,
                              [h = host_hits.data()](int i) { h[i] += 1; }, bulk_grain);
      tessera::wait(*hsched);
    };
    cs = {hh, ht, hb};
    host.reference = 0;
    tree.reference = 1;
    bulk.reference = 2;
    bulk_team.reference = 2;
  }
  cs.insert(cs.end(), {host, spawner, tree, bulk, bulk_team});
  // Each way its own report row: they count different tasks.
  const std::string name = "fan-out " + std::to_string(n);
  sched.reset_statistics();
  const auto rs = bench::run_interleaved(cs, options(S));
  const DriverCounts dc = driver_counts(sched, runs_of(S));
  verify(S, host_ok, name + " from the host: every task ran exactly once, every run");
  verify(S, spawner_ok, name + " from one spawner: every task ran exactly once, every run");
  verify(S, tree_ok, name + " from a tree of spawners: every task ran exactly once, every run");
  verify(S, bulk_ok, name + " by host_spawn_for: every index ran exactly once, every run");
  if (hsched) verify(S, host_column_ok, name + " on the host scheduler: every task ran exactly once, every run");
  const bench::Measure ms{"ms", 1.0, 1e3, true, true};
  report.add(name, ms, cs, rs);
  report.note(name, {{"host_staging_ms_median", median(stage_s) * 1e3},
                     {"host_wait_ms_median", median(wait_s) * 1e3},
                     {"spawner_chunk", chunk},
                     {"tree_tasks", double(n) + tree_nodes(n)},
                     {"bulk_grain", double(tessera::detail::tasking::spawn_for_grain(tessera::TaskSingle(sched), n,
                                                                                      bulk_grain))},
                     {"warps", sched.workers()},
                     {"steals_per_run_all_three", dc.steals_per_run},
                     {"failed_spawns_per_run_all_three", dc.failed_spawns_per_run}});
  note_profile(S, report, name, host.name, host_profile);
  note_profile(S, report, name, spawner.name, spawner_profile);
  note_profile(S, report, name, tree.name, tree_profile);
  note_profile(S, report, name, bulk.name, bulk_profile);
  note_profile(S, report, name, bulk_team.name, bulk_team_profile);
  if (!S.json) {
    std::printf("  # host case split: host_spawn staging %.3f ms, wait (upload + run) %.3f ms (medians)\n",
                median(stage_s) * 1e3, median(wait_s) * 1e3);
    std::printf("  # tasks: host %d, spawner %d + 1, tree %.0f (%d marks + %.0f spawners); goal from the host: <= 5 ms\n",
                n, n, double(n) + tree_nodes(n), n, tree_nodes(n));
  }
}

// ---- tiled Cholesky DAG, empty bodies -----------------------------------------------


// One tile update with an empty body. ver(i, j) counts the updates tile
// (i, j) has had; the right-looking order gives tile (i, j), i >= j, one
// update per step k < j (SYRK or GEMM) and its last at step j (POTRF or
// TRSM), so a task of step k must find its written tile at version k and the
// tiles it reads (column k, final after step k) at version k + 1.
struct TileTask {
  int* ver;   // nt x nt, column-major
  int* bad;   // violations found
  int nt, op, k, i, j;
  TESSERA_FUNCTION int& v(int r, int c) const { return ver[std::size_t(c) * std::size_t(nt) + std::size_t(r)]; }
  TESSERA_FUNCTION void operator()(Member&) {
    int ok = 1;
    switch (op) {
      case kPotrf: ok = v(k, k) == k; break;
      case kTrsm: ok = v(k, k) == k + 1 && v(i, k) == k; break;
      case kSyrk: ok = v(i, k) == k + 1 && v(i, i) == k; break;
      default: ok = v(i, k) == k + 1 && v(j, k) == k + 1 && v(i, j) == k; break;
    }
    if (!ok) tessera::atomic_add(bad, 1);
    v(i, j) = k + 1;  // the only writer of tile (i, j) now: the DAG orders the others
  }
};

double cholesky_tasks(int nt) {
  double t = 0;
  for (int k = 0; k < nt; ++k) {
    const double m = nt - k - 1;
    t += 1 + m + m + m * (m - 1) / 2;  // POTRF, TRSM, SYRK, GEMM of step k
  }
  return t;
}

// Builds the DAG from the host; returns the number of tasks spawned.
long long spawn_cholesky_dag(Sched& sched, int nt, int* ver, int* bad) {
  using Future = tessera::BasicFuture<void, Sched>;
  std::vector<Future> last(std::size_t(nt) * std::size_t(nt));
  auto at = [&](int r, int c) -> Future& { return last[std::size_t(c) * std::size_t(nt) + std::size_t(r)]; };
  long long spawned = 0;
  auto spawn = [&](std::initializer_list<Future> deps, tessera::TaskPriority p, const TileTask& body) {
    std::vector<Future> v;
    for (const Future& d : deps)
      if (!d.is_null()) v.push_back(d);
    ++spawned;
    if (v.empty()) return Future(tessera::host_spawn(tessera::TaskSingle(sched, p), body));
    const Future all = v.size() == 1 ? v[0] : sched.when_all(v.data(), int(v.size()));
    return Future(tessera::host_spawn(tessera::TaskSingle(all, p), body));
  };
  const auto High = tessera::TaskPriority::High, Regular = tessera::TaskPriority::Regular;
  for (int k = 0; k < nt; ++k) {
    at(k, k) = spawn({at(k, k)}, High, TileTask{ver, bad, nt, kPotrf, k, k, k});
    for (int i = k + 1; i < nt; ++i) at(i, k) = spawn({at(k, k), at(i, k)}, High, TileTask{ver, bad, nt, kTrsm, k, i, k});
    for (int i = k + 1; i < nt; ++i)
      for (int j = k + 1; j <= i; ++j) {
        if (i == j) at(i, i) = spawn({at(i, k), at(i, i)}, Regular, TileTask{ver, bad, nt, kSyrk, k, i, i});
        else at(i, j) = spawn({at(i, k), at(j, k), at(i, j)}, Regular, TileTask{ver, bad, nt, kGemm, k, i, j});
      }
  }
  return spawned;
}

void row_cholesky(const Setup& S, const bench::Report& report, int nt) {
  const double tasks = cholesky_tasks(nt);
  // Host-staged: a task record and a when_all node (about 128 bytes each) per
  // task in the arena, a quarter of the pool.
  const std::size_t need = std::size_t(tasks) * 256 * 4;
  Sched sched(Sched::memory_space(), std::max(need, std::size_t(256) << 20));
  DeviceArray<int> ver{std::size_t(nt) * std::size_t(nt)};
  DeviceArray<int> bad{1};
  if (!S.json)
    std::printf("\n# tiled Cholesky DAG, %d x %d tiles (n = %d with 128-wide tiles), empty bodies: %.0f tasks, %d warps\n",
                nt, nt, nt * 128, tasks, sched.workers());
  std::vector<double> build_s, wait_s, off_wait_s;
  bool ok = true;
  long long counted = 0;
  tessera::TaskWaitProfile profile, off_profile;
  // One run: the DAG built from the host (its time in build_s, whichever
  // driver setting runs it), the wait timed into `waits`, its profile kept.
  auto run_dag = [&](std::vector<double>& waits, tessera::TaskWaitProfile& run_profile) {
    const auto t0 = clock_type::now();
    counted = spawn_cholesky_dag(sched, nt, ver.ptr, bad.ptr);
    const auto t1 = clock_type::now();
    tessera::wait(sched);
    run_profile = sched.last_wait_profile();
    build_s.push_back(std::chrono::duration<double>(t1 - t0).count());
    waits.push_back(seconds_since(t1));
    // Every tile ends at version j + 1 (its j updates and its last); no task saw a wrong version.
    const auto v = ver.to_host();
    bool run_ok = bad.to_host()[0] == 0;
    for (int j = 0; j < nt && run_ok; ++j)
      for (int i = j; i < nt; ++i) run_ok = run_ok && v[std::size_t(j) * std::size_t(nt) + std::size_t(i)] == j + 1;
    ok = ok && run_ok;
  };
  // Untimed before each run: clear the tile versions, set the driver.
  auto prepare_with_sharing = [&](bool sharing) {
    return [&, sharing] {
      ver.clear();
      bad.clear();
      sched.impl_set_surplus_sharing(sharing);
    };
  };
  bench::Contender c;
  c.name = "tessera TaskScheduler<Cuda>";
  c.prepare = prepare_with_sharing(true);
  c.run = [&] { run_dag(wait_s, profile); };
  c.reference = 0;
  // The same driver without surplus sharing (cuda_warp_queues.hpp): what
  // sharing a completing warp's surplus through the overflow stack changes.
  bench::Contender off;
  off.name = "tessera TaskScheduler<Cuda>, surplus sharing off";
  off.prepare = prepare_with_sharing(false);
  off.run = [&] { run_dag(off_wait_s, off_profile); };
  const std::vector<bench::Contender> cs{off, c};
  const auto rs = bench::run_interleaved(cs, options(S));
  sched.impl_set_surplus_sharing(true);
  verify(S, ok && double(counted) == tasks,
         "Cholesky DAG: " + std::to_string(counted) + " tasks, every tile update in dependence order, every run");
  const std::string name = "cholesky DAG " + std::to_string(nt) + "x" + std::to_string(nt) + " empty";
  report.add(name, bench::Measure{"Mtasks/s", tasks, 1e-6, false, false}, cs, rs);
  report.note(name, {{"tasks", tasks},
                     {"host_build_ms_median", median(build_s) * 1e3},
                     {"wait_ms_median", median(wait_s) * 1e3},
                     {"wait_ns_per_task", median(wait_s) / tasks * 1e9},
                     {"warps", sched.workers()}});
  if (!S.json)
    std::printf("  # host DAG build %.3f ms, wait %.3f ms (%.1f ns per task) (medians)\n", median(build_s) * 1e3,
                median(wait_s) * 1e3, median(wait_s) / tasks * 1e9);
  note_profile(S, report, name, c.name, profile);
  report.note(name, {{"sharing_off_wait_ms_median", median(off_wait_s) * 1e3}});
  note_profile(S, report, name, off.name, off_profile);
}

// ---- tiled Cholesky with real tile bodies, against cuSOLVER ---------------------------
//
// The same right-looking DAG as above, but each task is a warp team (32
// members, one lane each) doing its tile's POTRF, TRSM, SYRK or GEMM on the
// matrix in device memory (LayoutLeft, lower triangle), through 16 KiB of
// level-0 team scratch: the kernels and their blocking are in
// cholesky_tiles_cuda.hpp (checked on the host by
// tests/test_task_cholesky_tiles.cpp).

// One tile task of the factorization of A (n x n, column-major, lda = n):
// the tile kernels of cholesky_tiles_cuda.hpp on the team's scratch.
struct TileBody {
  double* a;
  int n, op, k, i, j;
  TESSERA_FUNCTION void operator()(Member& m) {
    double* S = static_cast<double*>(m.team_scratch(0).get_shmem_aligned(kTileScratch, 16));
    tile_task(m, S, a, n, op, k, i, j);
  }
};

// The DAG of spawn_cholesky_dag with real bodies: warp-team tasks.
long long spawn_potrf_dag(Sched& sched, int nt, double* a) {
  using Future = tessera::BasicFuture<void, Sched>;
  const int n = nt * kNb;
  std::vector<Future> last(std::size_t(nt) * std::size_t(nt));
  auto at = [&](int r, int c) -> Future& { return last[std::size_t(c) * std::size_t(nt) + std::size_t(r)]; };
  long long spawned = 0;
  auto spawn = [&](std::initializer_list<Future> deps, tessera::TaskPriority p, const TileBody& body) {
    std::vector<Future> v;
    for (const Future& d : deps)
      if (!d.is_null()) v.push_back(d);
    ++spawned;
    if (v.empty()) return Future(tessera::host_spawn(tessera::TaskTeam(sched, p), body));
    const Future all = v.size() == 1 ? v[0] : sched.when_all(v.data(), int(v.size()));
    return Future(tessera::host_spawn(tessera::TaskTeam(all, p), body));
  };
  const auto High = tessera::TaskPriority::High, Regular = tessera::TaskPriority::Regular;
  for (int k = 0; k < nt; ++k) {
    at(k, k) = spawn({at(k, k)}, High, TileBody{a, n, kPotrf, k, k, k});
    for (int i = k + 1; i < nt; ++i) at(i, k) = spawn({at(k, k), at(i, k)}, High, TileBody{a, n, kTrsm, k, i, k});
    for (int i = k + 1; i < nt; ++i)
      for (int j = k + 1; j <= i; ++j) {
        if (i == j) at(i, i) = spawn({at(i, k), at(i, i)}, Regular, TileBody{a, n, kSyrk, k, i, i});
        else at(i, j) = spawn({at(i, k), at(j, k), at(i, j)}, Regular, TileBody{a, n, kGemm, k, i, j});
      }
  }
  return spawned;
}

// A symmetric, strictly diagonally dominant (so SPD) matrix: off-diagonal
// entries from a hash of (min, max) in [-0.5, 0.5), diagonal n.
__global__ void make_spd(double* a, int n, unsigned seed) {
  const std::size_t total = std::size_t(n) * std::size_t(n);
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += std::size_t(gridDim.x) * blockDim.x) {
    const unsigned r = unsigned(e % std::size_t(n)), c = unsigned(e / std::size_t(n));
    unsigned h = (r < c ? r : c) * 0x9e3779b1u ^ (r < c ? c : r) * 0x85ebca77u ^ seed;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    a[e] = r == c ? double(n) : double(h) / 4294967296.0 - 0.5;
  }
}

// sums[0] += sum over the lower triangle of (x - ref)^2, sums[1] += ref^2;
// sums[2] += entries of x that are not finite.
__global__ void lower_difference(const double* x, const double* ref, int n, double* sums) {
  const std::size_t total = std::size_t(n) * std::size_t(n);
  double d = 0, s = 0, bad = 0;
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t r = e % std::size_t(n), c = e / std::size_t(n);
    if (r < c) continue;
    const double diff = x[e] - ref[e];
    d += diff * diff;
    s += ref[e] * ref[e];
    if (!isfinite(x[e])) bad += 1;
  }
  for (int o = 16; o > 0; o /= 2) {
    d += __shfl_down_sync(0xffffffffu, d, o);
    s += __shfl_down_sync(0xffffffffu, s, o);
    bad += __shfl_down_sync(0xffffffffu, bad, o);
  }
  if ((threadIdx.x & 31u) == 0) {
    atomicAdd(&sums[0], d);
    atomicAdd(&sums[1], s);
    atomicAdd(&sums[2], bad);
  }
}

void cusolver_check(cusolverStatus_t st, const char* what) {
  if (st != CUSOLVER_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuSOLVER status " + std::to_string(int(st)));
}

void row_potrf(const Setup& S, const bench::Report& report, int nt, const char* card) {
  const int n = nt * kNb;
  const double flops = double(n) * double(n) * double(n) / 3.0;
  const double tasks = cholesky_tasks(nt);
  const std::size_t bytes = std::size_t(n) * std::size_t(n) * sizeof(double);
  DeviceArray<double> a0{std::size_t(n) * std::size_t(n)}, at{std::size_t(n) * std::size_t(n)},
      aoff{std::size_t(n) * std::size_t(n)}, ac{std::size_t(n) * std::size_t(n)};
  make_spd<<<1024, 256>>>(a0.ptr, n, 20261128u);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  const std::size_t need = std::size_t(tasks) * 256 * 4;
  Sched sched(Sched::memory_space(), std::max(need, std::size_t(256) << 20));
  sched.set_team_scratch_size(kTileScratch);
  sched.set_team_size(32);

  cusolverDnHandle_t handle = nullptr;
  cusolver_check(cusolverDnCreate(&handle), "cusolverDnCreate");
  std::unique_ptr<cusolverDnContext, decltype(&cusolverDnDestroy)> handle_guard(handle, cusolverDnDestroy);
  int lwork = 0;
  cusolver_check(cusolverDnDpotrf_bufferSize(handle, CUBLAS_FILL_MODE_LOWER, n, ac.ptr, n, &lwork),
                 "cusolverDnDpotrf_bufferSize");
  DeviceArray<double> work{std::size_t(std::max(lwork, 1))};
  DeviceArray<int> info{1};

  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  auto elapsed = [&] {
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return double(ms) * 1e-3;
  };
  if (!S.json)
    std::printf("\n# tiled Cholesky, n = %d (%d x %d tiles of %d), real tile bodies (warp teams, %zu B of team "
                "scratch each) vs cusolverDnDpotrf, %s: %.0f tasks, %d warps\n",
                n, nt, nt, kNb, kTileScratch, card, tasks, sched.workers());
  std::vector<double> tessera_s, off_s, cusolver_s, build_s;
  tessera::TaskWaitProfile profile, off_profile;
  int info_host = 0;
  // One factorization by tasks into `x`: its event time. The DAG is staged
  // on the host (host work, reported apart); the events enclose the wait:
  // the upload of the staged records, the driver's run and the read-back
  // of its control block.
  auto tessera_run = [&](double* x, bool sharing, double& build, tessera::TaskWaitProfile& run_profile) {
    CK(cudaMemcpy(x, a0.ptr, bytes, cudaMemcpyDeviceToDevice));
    CK(cudaDeviceSynchronize());
    sched.impl_set_surplus_sharing(sharing);
    const auto t0 = clock_type::now();
    const long long spawned = spawn_potrf_dag(sched, nt, x);
    build = seconds_since(t0);
    CK(cudaEventRecord(e0));
    tessera::wait(sched);
    CK(cudaEventRecord(e1));
    const double ts = elapsed();
    run_profile = sched.last_wait_profile();
    if (double(spawned) != tasks) throw std::runtime_error("potrf DAG: wrong task count");
    return ts;
  };
  // Run 0 is the warm-up of all (module load, cuSOLVER's first call). Each
  // repeat runs the driver without surplus sharing (cuda_warp_queues.hpp:
  // a completed tile's ready team tasks stay on its warp) into `aoff`, then
  // with it into `at`, then cuSOLVER into `ac`.
  for (int rep = 0; rep <= S.repeats; ++rep) {
    double build = 0, off_build = 0;
    const double ts_off = tessera_run(aoff.ptr, false, off_build, off_profile);
    const double ts = tessera_run(at.ptr, true, build, profile);

    CK(cudaMemcpy(ac.ptr, a0.ptr, bytes, cudaMemcpyDeviceToDevice));
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(e0));
    cusolver_check(cusolverDnDpotrf(handle, CUBLAS_FILL_MODE_LOWER, n, ac.ptr, n, work.ptr, lwork, info.ptr),
                   "cusolverDnDpotrf");
    CK(cudaEventRecord(e1));
    const double cs = elapsed();
    CK(cudaGetLastError());
    info_host = info.to_host()[0];
    if (rep > 0) {
      tessera_s.push_back(ts);
      off_s.push_back(ts_off);
      cusolver_s.push_back(cs);
      build_s.push_back(build);
    }
  }
  sched.impl_set_surplus_sharing(true);
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));

  // L (lower triangle) of the last runs of each, against cuSOLVER's.
  const double tol = 1e-10;  // both in double; FMA contraction and summation order differ
  verify(S, info_host == 0, "cusolverDnDpotrf info = " + std::to_string(info_host));
  auto check_against_cusolver = [&](const double* x, const std::string& which) {
    DeviceArray<double> sums{3};
    sums.clear();
    lower_difference<<<1024, 256>>>(x, ac.ptr, n, sums.ptr);
    CK(cudaGetLastError());
    const auto sh = sums.to_host();
    const double rel = std::sqrt(sh[0] / sh[1]);
    verify(S, sh[2] == 0 && rel <= tol,
           "tiled Cholesky" + which + ": ||L - L_cusolver||_F / ||L_cusolver||_F = " + std::to_string(rel) +
               " <= " + std::to_string(tol) + ", " + std::to_string((long long)sh[2]) + " non-finite entries");
    return rel;
  };
  const double rel = check_against_cusolver(at.ptr, "");
  check_against_cusolver(aoff.ptr, " (surplus sharing off)");

  const double tm = median(tessera_s), cm = median(cusolver_s);
  const double ratio = cm / tm;
  const std::string name = "tiled cholesky n=" + std::to_string(n) + " nb=" + std::to_string(kNb);
  // The table's rows (GFLOP/s of n^3/3, cuSOLVER the reference): the event
  // times of each repeat, paired as they ran.
  {
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, Cuda().cuda_device()));
    bench::Contender cref, ctes, coff;
    cref.name = "cusolverDnDpotrf";
    ctes.name = "tessera TaskScheduler<Cuda>, warp-team tile tasks";
    ctes.reference = 0;
    coff.name = "tessera TaskScheduler<Cuda>, warp-team tile tasks, surplus sharing off";
    coff.reference = 0;
    bench::Result rref, rtes, roff;
    rref.seconds = cusolver_s;
    rtes.seconds = tessera_s;
    roff.seconds = off_s;
    rref.threads = rtes.threads = roff.threads = sms;
    for (std::size_t r = 0; r < tessera_s.size(); ++r) {
      rtes.ratio.push_back(cusolver_s[r] / tessera_s[r]);
      roff.ratio.push_back(cusolver_s[r] / off_s[r]);
    }
    report.add(name, bench::Measure{"GFLOP/s", flops, 1e-9, false, false}, {cref, ctes, coff}, {rref, rtes, roff});
  }
  report.note(name, {{"card", card},
                     {"n", n},
                     {"tile", kNb},
                     {"tasks", tasks},
                     {"tessera_ms_median", tm * 1e3},
                     {"cusolver_ms_median", cm * 1e3},
                     {"tessera_gflops", flops / tm * 1e-9},
                     {"cusolver_gflops", flops / cm * 1e-9},
                     {"ratio_cusolver_over_tessera", ratio},
                     {"goal_ratio", 0.3},
                     {"sharing_off_ms_median", median(off_s) * 1e3},
                     {"host_build_ms_median", median(build_s) * 1e3},
                     {"rel_diff", rel},
                     {"warps", sched.workers()}});
  note_profile(S, report, name, "tessera TaskScheduler<Cuda>, warp-team tile tasks", profile);
  note_profile(S, report, name, "tessera TaskScheduler<Cuda>, warp-team tile tasks, surplus sharing off",
               off_profile);
  if (!S.json) {
    auto span = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return std::make_pair(v.front() * 1e3, v.back() * 1e3);
    };
    const auto [tmin, tmax] = span(tessera_s);
    const auto [omin, omax] = span(off_s);
    const auto [cmin, cmax] = span(cusolver_s);
    std::printf("  %-34s %10.3f ms (%9.3f - %9.3f) %9.1f GFLOP/s\n", "tessera TaskScheduler<Cuda>", tm * 1e3, tmin,
                tmax, flops / tm * 1e-9);
    std::printf("  %-34s %10.3f ms (%9.3f - %9.3f) %9.1f GFLOP/s\n", "  the same, surplus sharing off",
                median(off_s) * 1e3, omin, omax, flops / median(off_s) * 1e-9);
    std::printf("  %-34s %10.3f ms (%9.3f - %9.3f) %9.1f GFLOP/s\n", "cusolverDnDpotrf", cm * 1e3, cmin, cmax,
                flops / cm * 1e-9);
    std::printf("  # cuSOLVER time / Tessera time = %.3f (goal >= 0.3) on %s; host DAG build %.3f ms (median, "
                "outside the events); flops n^3/3 = %.3g\n",
                ratio, card, median(build_s) * 1e3, flops);
  }
}

// ---- main ------------------------------------------------------------------------

int run(int argc, char* argv[]) {
  bench::Cli cli("bench_task_cuda",
                 "The dynamic task DAG on the GPU (TaskScheduler<Cuda>): Fibonacci, 10^6-task fan-outs, the tiled "
                 "Cholesky DAG with empty bodies, the tiled Cholesky with real tile bodies vs cuSOLVER.\nrows: fib, "
                 "fanout, cholesky, potrf",
                 7);
  Setup S;
  std::vector<std::string> only;
  std::vector<int> fib_ns{27, 30};
  int fanout = 1000000, chunk = 1024, tiles = 128;
  cli.app().add_flag("--quick", S.quick, "small sizes and 3 repeats (unless --repeats)");
  cli.app()
      .add_option("--only", only, "the rows to run, comma-separated (default: all)")
      ->delimiter(',')
      ->check(tessera::tools::one_of({"fib", "fanout", "cholesky", "potrf"}));
  cli.app().add_option("--fib", fib_ns, "Fibonacci arguments, comma-separated")->delimiter(',')->check(
      tessera::tools::integer(0, 40));
  cli.app().add_option("--fanout", fanout, "tasks of the fan-out row")->check(tessera::tools::integer(1, 1 << 26));
  cli.app()
      .add_option("--spawner-chunk", chunk, "spawns of the one-spawner case between its respawns")
      ->check(tessera::tools::integer(1, 1 << 30));
  int bulk_grain = 0;
  cli.app()
      .add_option("--bulk-grain", bulk_grain, "indices per leaf of the host_spawn_for case (0: four leaves per warp)")
      ->check(tessera::tools::integer(0, 1 << 30));
  cli.app().add_option("--tiles", tiles, "tiles per side of the Cholesky DAGs (potrf: n = 128 x tiles)")->check(tessera::tools::integer(1, 1024));
  if (auto status = cli.parse(argc, argv)) return *status;
  S.json = cli.json;
  const bool repeats_given = cli.app().get_option("--repeats")->count() != 0;
  S.repeats = S.quick && !repeats_given ? 3 : cli.repeats;
  if (S.quick) {
    if (cli.app().get_option("--fib")->count() == 0) fib_ns = {20};
    if (cli.app().get_option("--fanout")->count() == 0) fanout = 100000;
    if (cli.app().get_option("--tiles")->count() == 0) tiles = 32;
  }
  tessera::ScopeGuard guard(cli.settings());
  auto selected = [&](const char* name) { return only.empty() || std::find(only.begin(), only.end(), name) != only.end(); };

  if (!Cuda::impl_is_available()) {
    const std::string msg = "no CUDA device: " + Cuda::impl_unavailable_reason();
    if (S.json) tessera::tools::print_line({{"bench", "task_cuda"}, {"case", "device"}, {"skipped", msg}});
    else std::printf("%s\n", msg.c_str());
    return 0;
  }
  try {
    const int dev = Cuda().cuda_device();
    cudaDeviceProp p{};
    CK(cudaGetDeviceProperties(&p, dev));
    const bench::Report report("task_cuda", S.json);
    if (S.json)
      tessera::tools::print_line({{"bench", "task_cuda"}, {"case", "device"}, {"device", p.name},
                                  {"sm_count", p.multiProcessorCount}, {"repeats", S.repeats},
                                  {"mode", S.quick ? "quick" : "full"}});
    else
      std::printf("# device %d: %s, %d SMs, compute capability %d.%d; %d repeats%s, host clock around spawn + wait\n",
                  dev, p.name, p.multiProcessorCount, p.major, p.minor, S.repeats, S.quick ? " (--quick sizes)" : "");
    // The fan-out last: its one-spawner case took 60 of the 100 s the rows
    // took on an H200 (7 repeats), and a run cut at its time limit still
    // reports the Cholesky DAGs (each row's lines are out when it ends).
    if (selected("fib")) row_fib(S, report, fib_ns);
    if (selected("potrf")) row_potrf(S, report, tiles, p.name);
    if (selected("cholesky")) row_cholesky(S, report, tiles);
    if (selected("fanout")) row_fanout(S, report, fanout, chunk, bulk_grain);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_task_cuda: error: %s\n", e.what());
    return 1;
  }
  if (!g_failures.empty()) {
    std::fprintf(stderr, "bench_task_cuda: %zu answer check(s) failed\n", g_failures.size());
    return 1;
  }
  return 0;
}

}  // namespace tessera_bench_task_cuda

int main(int argc, char* argv[]) { return tessera_bench_task_cuda::run(argc, argv); }
