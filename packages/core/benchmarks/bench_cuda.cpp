// Tessera's CUDA back-end against the CUDA toolkit's own libraries and
// hand-written kernels, in one process, on the same device arrays. Rows
// (`--only NAME`, floors are the bytes a kernel must move at least):
//
//   triad     a = b + s*c over 2^27 doubles: parallel_for(RangePolicy<Cuda>)
//             vs a raw kernel vs cudaMemcpyAsync D2D of as many bytes.
//             Floor 3 x 8 B per element (memcpy: read + write of 12 B/elem).
//   reduce    sum of 2^27 doubles: parallel_reduce (into a device View, and
//             into a host double) vs cub::DeviceReduce::Sum. Floor 8 B/elem.
//   scan      exclusive scan of 2^27 long long, then of 2^27 doubles:
//             parallel_scan (functor form (i, update, final)) vs
//             cub::DeviceScan::ExclusiveSum. Floor 16 B/elem (read + write).
//   sort      2^26 random ints: tessera::sort vs cub::DeviceRadixSort::
//             SortKeys; sort_by_key (int, int) vs SortPairs. Keys/s (a radix
//             sort moves the keys several times; no single floor).
//   gemv      y = A x, A 16384 x 8192 doubles (LayoutLeft, column-major):
//             TeamPolicy (a team per row; a team per 32 rows) vs cublasDgemv.
//             Floor 8 B per matrix entry (+ x and y).
//   stencil   7-point stencil over the interior of 256^3 doubles:
//             MDRangePolicy<Cuda, Rank<3>> vs a raw kernel (a thread per
//             point, x fastest). Floor 16 B per interior point (read in and
//             write out once; neighbours from cache).
//   dispatch  empty parallel_for of one index + fence() vs an empty kernel
//             launch + cudaStreamSynchronize: microseconds per dispatch.
//   scan-probe (only when named in --only) the library's scan rebuilt with
//             plain pointers, one design choice switched at a time
//             (scan_probe.cuh), beside CUB and parallel_scan: which choice
//             holds parallel_scan at 0.2 of CUB. Not in docs/performance.md.
//   mempool   tessera::MemoryPool<Cuda> vs device malloc/free, 64-byte blocks,
//             2^20 threads: (a) all allocate and hold (live set 80% of the
//             pool), a second kernel frees; (b) allocate + free at once.
//             Millions of allocations per second; nullptr returns counted.
//
// Method: every contender's answer is checked against another's (and a host
// reference where it is cheap) outside the timing; then warm-up runs, then
// --repeats repetitions (default 11) in which the contenders of a row run in
// turn. Each run is timed by two CUDA events on the stream the work runs on,
// Tessera's default instance stream (tessera::Cuda().cuda_stream()), which
// every peer is given too. Reported: median (min - max) per contender and
// the per-repetition time ratio peer / Tessera (>= 1: Tessera at least as
// fast), printed on the Tessera rows; the achieved GB/s as a fraction of the
// DRAM peak (memory clock x bus width) in a note under each bandwidth case.
// The "threads" column is the device's resident-thread capacity
// (tessera::Cuda().concurrency()). Tessera calls that synchronize the host
// (sort, a reduction into a host double) are timed the same way: their
// events bracket everything they queue.
//
//   tessera_bench_cuda [--repeats N] [--quick] [--only ROW[,ROW...]] [--json] [--tessera-...]
//
// --quick: small sizes and 3 repeats (a smoke test). On a machine without a
// usable GPU the program prints "no CUDA device: <reason>" and exits 0.
#include <tessera/bench/cli.hpp>
#include <tessera/bench/cuda_events.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/report.hpp>
#include <tessera/core.hpp>
#if TESSERA_BENCH_HAVE_MEMPOOL
#include <tessera/mempool.hpp>
#endif

#include "scan_probe.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#if !TESSERA_ENABLE_CUDA
#error "bench_cuda.cpp needs Tessera's CUDA back-end (Tessera_ENABLE_CUDA=ON)"
#endif

// A named namespace: nvcc refuses extended (__host__ __device__) lambdas in
// functions with internal linkage.
namespace tessera_bench_cuda {

using tessera::Cuda;
namespace bench = tessera::bench;
template <class T>
using DView = tessera::View<T, Cuda>;

// ---- setup, errors, output ------------------------------------------------------

struct Setup {
  bool json = false;
  bool quick = false;
  int repeats = 11;
  cudaStream_t stream = nullptr;  // Tessera's default instance stream: every contender runs on it
  int threads = 0;                // Cuda().concurrency(), the "threads" column
  double peak_gbs = 0;            // DRAM peak, GB/s (0: unknown)
};

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(int(s)));
}
#define CK(call) check((call), #call)

// Failed answer checks; any makes the program exit 1 after all rows.
std::vector<std::string> g_failures;

void verify(const Setup& S, bool ok, const std::string& what) {
  if (!ok) {
    g_failures.push_back(what);
    std::fprintf(stderr, "bench_cuda: CHECK FAILED: %s\n", what.c_str());
  } else if (!S.json) {
    std::printf("  check: %s: ok\n", what.c_str());
  }
}

// A field of a case note: a number or a string.
struct Field {
  std::string key, text;
  bool number;
};
Field num(const std::string& key, double v, const char* fmt = "%.6g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return {key, buf, true};
}
Field str(const std::string& key, const std::string& v) { return {key, v, false}; }

// A case note: with --json one line without a contender (ci/perf_report.py
// shows it under its case), otherwise "  # key = value, ...".
void note(const Setup& S, const std::string& case_name, const std::vector<Field>& fields) {
  if (S.json) {
    tessera::tools::json line = {{"bench", "cuda"}, {"case", case_name}};
    for (const auto& f : fields) {
      if (!f.number) line[f.key] = f.text;
      else if (f.text == "nan" || f.text == "-nan" || f.text == "inf" || f.text == "-inf") line[f.key] = nullptr;
      else line[f.key] = tessera::tools::json::parse(f.text);  // the value as printed
    }
    tessera::tools::print_line(line);
  } else {
    // Up to three fields on one line; more, one per line.
    const bool one_line = fields.size() <= 3;
    std::printf("  #");
    for (std::size_t i = 0; i < fields.size(); ++i)
      std::printf("%s %s = %s", i == 0 ? "" : one_line ? "," : "\n  #", fields[i].key.c_str(), fields[i].text.c_str());
    std::printf("\n");
  }
  std::fflush(stdout);
}

// The median GB/s of each contender as a fraction of the DRAM peak.
void bandwidth_note(const Setup& S, const std::string& case_name, double bytes, const std::vector<bench::Contender>& cs,
                    const std::vector<bench::Result>& rs, std::vector<Field> extra = {}) {
  std::vector<Field> f{num("bytes per run", bytes, "%.4g"), num("peak GB/s", S.peak_gbs, "%.0f")};
  if (S.peak_gbs > 0)
    for (std::size_t i = 0; i < cs.size(); ++i) {
      const double gbs = bytes / bench::summarize(rs[i].seconds).median * 1e-9;
      f.push_back(num(cs[i].name + ": fraction of peak", gbs / S.peak_gbs, "%.3f"));
    }
  f.insert(f.end(), extra.begin(), extra.end());
  note(S, case_name, f);
}

bench::Measure gbs_measure(double bytes) { return {"GB/s", bytes, 1e-9, false, false}; }

bench::InterleaveOptions options(const Setup& S) {
  bench::InterleaveOptions o;
  o.warmup = S.quick ? 1 : 2;
  o.repeats = S.repeats;
  o.pause_ms = 0;  // no host runtime's spinning workers to wait out
  return o;
}

// The same runs with their ratio taken to another contender's runs: ref / own per repetition.
bench::Result against(const bench::Result& own, const bench::Result& ref) {
  bench::Result r = own;
  r.ratio.clear();
  for (std::size_t k = 0; k < own.seconds.size(); ++k) r.ratio.push_back(ref.seconds[k] / own.seconds[k]);
  return r;
}

// ---- event timing ---------------------------------------------------------------
// The shared GPU contender (<tessera/bench/cuda_events.hpp>, also used by the
// graph package's tessera_bench_graph_cuda).

using Events = bench::CudaEvents;

// A contender whose run is `work` between two events on the bench stream.
// `prepare` (untimed) is followed by a stream synchronization.
bench::Contender gpu(const Setup& S, const std::string& name, std::function<void()> work, int reference = -1,
                     std::function<void()> prepare = {}) {
  return bench::cuda_contender(name, S.stream, S.threads, std::move(work), reference, std::move(prepare));
}

template <class T>
std::vector<T> to_host(const T* d, std::size_t n) {
  std::vector<T> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// A well-mixed 64-bit hash of i (splitmix64's finalizer): the test data.
TESSERA_INLINE_FUNCTION std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// Doubles in [0, 1).
TESSERA_INLINE_FUNCTION double unit(std::uint64_t i) { return double(mix(i) >> 11) * 0x1.0p-53; }

std::string pow2(std::size_t n) {
  int e = 0;
  while ((std::size_t(1) << e) < n) ++e;
  return (std::size_t(1) << e) == n ? "2^" + std::to_string(e) : std::to_string(n);
}

// ---- 1. STREAM triad ---------------------------------------------------------------

__global__ void raw_triad(double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c,
                          double s, std::int64_t n) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + s * c[i];
}

void tessera_triad(DView<double*> a, DView<const double*> b, DView<const double*> c, double s) {
  tessera::parallel_for(
      "triad", tessera::RangePolicy<Cuda>(0, std::int64_t(a.extent(0))),
      TESSERA_LAMBDA(std::int64_t i) { a(i) = b(i) + s * c(i); });
}

// b(i) = 1 + i % 7, c(i) = (i % 13) / 2: a = b + 3c is exact.
void init_triad(DView<double*> b, DView<double*> c, DView<double*> src) {
  tessera::parallel_for(
      "init triad", tessera::RangePolicy<Cuda>(0, std::int64_t(b.extent(0))), TESSERA_LAMBDA(std::int64_t i) {
        b(i) = 1.0 + double(i % 7);
        c(i) = 0.5 * double(i % 13);
      });
  tessera::parallel_for(
      "init copy source", tessera::RangePolicy<Cuda>(0, std::int64_t(src.extent(0))),
      TESSERA_LAMBDA(std::int64_t i) { src(i) = double(i); });
}

void row_triad(const Setup& S, const bench::Report& report) {
  const std::size_t n = S.quick ? std::size_t(1) << 22 : std::size_t(1) << 27;
  const std::size_t ncopy = n + n / 2;  // memcpy of 12 B per triad element: 24 B moved, as the triad
  const double s = 3.0;
  const double bytes = 24.0 * double(n);
  if (!S.json)
    std::printf("\n# triad a = b + %g*c, %s doubles per array (%.2f GB moved per run); memcpy: %zu doubles D2D\n", s,
                pow2(n).c_str(), bytes * 1e-9, ncopy);
  DView<double*> a(tessera::view_alloc("a", tessera::WithoutInitializing), n);
  DView<double*> b(tessera::view_alloc("b", tessera::WithoutInitializing), n);
  DView<double*> c(tessera::view_alloc("c", tessera::WithoutInitializing), n);
  DView<double*> src(tessera::view_alloc("copy source", tessera::WithoutInitializing), ncopy);
  DView<double*> dst(tessera::view_alloc("copy destination", tessera::WithoutInitializing), ncopy);
  init_triad(b, c, src);
  const cudaStream_t st = S.stream;

  auto raw = [=] {
    raw_triad<<<unsigned((n + 255) / 256), 256, 0, st>>>(a.data(), b.data(), c.data(), s, std::int64_t(n));
    CK(cudaGetLastError());
  };
  auto tes = [=] { tessera_triad(a, b, c, s); };
  auto copy = [=] {
    CK(cudaMemcpyAsync(dst.data(), src.data(), ncopy * sizeof(double), cudaMemcpyDeviceToDevice, st));
  };

  // Answers: each contender once on a cleared `a`, against the exact values.
  auto triad_ok = [&](const std::function<void()>& f) {
    CK(cudaMemsetAsync(a.data(), 0, n * sizeof(double), st));
    f();
    const auto h = to_host(a.data(), n);
    for (std::size_t i = 0; i < n; ++i)
      if (h[i] != 1.0 + double(i % 7) + s * 0.5 * double(i % 13)) return false;
    return true;
  };
  verify(S, triad_ok(raw), "raw triad kernel: a(i) = b(i) + 3 c(i) exactly, every i");
  verify(S, triad_ok(tes), "tessera triad: a(i) = b(i) + 3 c(i) exactly, every i");
  {
    CK(cudaMemsetAsync(dst.data(), 0, ncopy * sizeof(double), st));
    copy();
    const auto h = to_host(dst.data(), ncopy);
    bool ok = true;
    for (std::size_t i = 0; i < ncopy && ok; ++i) ok = h[i] == double(i);
    verify(S, ok, "cudaMemcpyAsync D2D: destination equals source");
  }

  std::vector<bench::Contender> cs{gpu(S, "raw CUDA kernel", raw), gpu(S, "cudaMemcpyAsync D2D (same bytes)", copy),
                                   gpu(S, "tessera parallel_for", tes, 0)};
  const auto rs = bench::run_interleaved(cs, options(S));
  const auto m = gbs_measure(bytes);
  report.add("triad", m, {cs[0], cs[2]}, {rs[0], rs[2]});
  bandwidth_note(S, "triad", bytes, {cs[0], cs[2]}, {rs[0], rs[2]});
  // The same runs against cudaMemcpyAsync: the bandwidth the device reaches
  // moving as many bytes.
  bench::Contender tes_vs_copy = cs[2];
  tes_vs_copy.reference = 0;
  report.add("triad vs memcpy", m, {cs[1], tes_vs_copy}, {rs[1], against(rs[2], rs[1])});
  bandwidth_note(S, "triad vs memcpy", bytes, {cs[1], tes_vs_copy}, {rs[1], rs[2]});
}

// ---- 2. reduction ---------------------------------------------------------------

void init_reduce(DView<double*> v) {
  tessera::parallel_for(
      "init reduce", tessera::RangePolicy<Cuda>(0, std::int64_t(v.extent(0))),
      TESSERA_LAMBDA(std::int64_t i) { v(i) = 0.5 * double(mix(std::uint64_t(i)) % 1000); });
}
void tessera_sum_view(DView<const double*> v, DView<double> result) {
  tessera::parallel_reduce(
      "sum", tessera::RangePolicy<Cuda>(0, std::int64_t(v.extent(0))),
      TESSERA_LAMBDA(std::int64_t i, double& acc) { acc += v(i); }, result);
}
double tessera_sum_host(DView<const double*> v) {
  double s = 0;
  tessera::parallel_reduce(
      "sum", tessera::RangePolicy<Cuda>(0, std::int64_t(v.extent(0))),
      TESSERA_LAMBDA(std::int64_t i, double& acc) { acc += v(i); }, s);
  return s;
}

void row_reduce(const Setup& S, const bench::Report& report) {
  const std::size_t n = S.quick ? std::size_t(1) << 22 : std::size_t(1) << 27;
  const double bytes = 8.0 * double(n);
  if (!S.json)
    std::printf("\n# sum of %s doubles (multiples of 1/2 below 500: every order of summation is exact)\n",
                pow2(n).c_str());
  DView<double*> v(tessera::view_alloc("v", tessera::WithoutInitializing), n);
  init_reduce(v);
  DView<double> r_tessera("sum (tessera)"), r_cub("sum (cub)");
  std::size_t temp_bytes = 0;
  CK(cub::DeviceReduce::Sum(nullptr, temp_bytes, v.data(), r_cub.data(), std::int64_t(n), S.stream));
  DView<char*> temp(tessera::view_alloc("cub reduce temp", tessera::WithoutInitializing), temp_bytes);
  auto host_sum = std::make_shared<double>(0.0);
  const cudaStream_t st = S.stream;

  auto cub_sum = [=] {
    std::size_t tb = temp_bytes;
    CK(cub::DeviceReduce::Sum(temp.data(), tb, v.data(), r_cub.data(), std::int64_t(n), st));
  };
  auto tes_view = [=] { tessera_sum_view(v, r_tessera); };
  auto tes_host = [=] { *host_sum = tessera_sum_host(v); };

  std::uint64_t expect2 = 0;  // twice the sum, as an integer
  for (std::size_t i = 0; i < n; ++i) expect2 += mix(i) % 1000;
  const double expect = 0.5 * double(expect2);
  cub_sum();
  tes_view();
  tes_host();
  const double got_cub = to_host(r_cub.data(), 1)[0], got_view = to_host(r_tessera.data(), 1)[0];
  verify(S, got_cub == expect, "cub::DeviceReduce::Sum = host sum " + std::to_string(expect));
  verify(S, got_view == expect, "tessera parallel_reduce into a View = host sum");
  verify(S, *host_sum == expect, "tessera parallel_reduce into a double = host sum");

  std::vector<bench::Contender> cs{gpu(S, "cub::DeviceReduce::Sum", cub_sum),
                                   gpu(S, "tessera parallel_reduce -> View", tes_view, 0),
                                   gpu(S, "tessera parallel_reduce -> double", tes_host, 0)};
  const auto rs = bench::run_interleaved(cs, options(S));
  report.add("reduce sum", gbs_measure(bytes), cs, rs);
  bandwidth_note(S, "reduce sum", bytes, cs, rs,
                 {str("note", "-> double waits for the stream and copies the result back (Kokkos' host-scalar form)")});
}

// ---- 3. exclusive scan ---------------------------------------------------------------

// Integers in [0, 1000); doubles in [1/2, 3/2).
template <class T>
TESSERA_INLINE_FUNCTION T scan_input(std::int64_t i) {
  if constexpr (std::is_integral_v<T>)
    return T(mix(std::uint64_t(i)) % 1000);
  else
    return T(0.5) + T(unit(std::uint64_t(i)));
}
template <class T>
void init_scan(DView<T*> in) {
  tessera::parallel_for(
      "init scan", tessera::RangePolicy<Cuda>(0, std::int64_t(in.extent(0))),
      TESSERA_LAMBDA(std::int64_t i) { in(i) = scan_input<T>(i); });
}

// The Kokkos functor form: out(i) = the exclusive prefix, then add in(i).
template <class T>
void tessera_exclusive_scan(DView<const T*> in, DView<T*> out) {
  tessera::parallel_scan(
      "exclusive scan", tessera::RangePolicy<Cuda>(0, std::int64_t(in.extent(0))),
      TESSERA_LAMBDA(std::int64_t i, T & update, const bool final) {
        if (final) out(i) = update;
        update += in(i);
      });
}

// cub::DeviceScan::ExclusiveSum of in into out on the benchmark's stream,
// its temporary storage allocated once here and held by the returned run.
template <class T>
std::function<void()> cub_exclusive_sum(const Setup& S, DView<T*> in, DView<T*> out) {
  const std::int64_t n = std::int64_t(in.extent(0));
  std::size_t temp_bytes = 0;
  CK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in.data(), out.data(), n, S.stream));
  DView<char*> temp(tessera::view_alloc("cub scan temp", tessera::WithoutInitializing), temp_bytes);
  const cudaStream_t st = S.stream;
  return [=] {
    std::size_t tb = temp_bytes;
    CK(cub::DeviceScan::ExclusiveSum(temp.data(), tb, in.data(), out.data(), n, st));
  };
}

template <class T>
void scan_case(const Setup& S, const bench::Report& report, const char* type_name) {
  const std::size_t n = S.quick ? std::size_t(1) << 22 : std::size_t(1) << 27;
  const double bytes = 2.0 * sizeof(T) * double(n);
  const std::string case_name = std::string("exclusive scan ") + type_name;
  if (!S.json) std::printf("\n# %s, %s elements\n", case_name.c_str(), pow2(n).c_str());
  DView<T*> in(tessera::view_alloc("scan in", tessera::WithoutInitializing), n);
  DView<T*> out(tessera::view_alloc("scan out", tessera::WithoutInitializing), n);
  init_scan(in);
  const cudaStream_t st = S.stream;
  const auto cub_scan = cub_exclusive_sum(S, in, out);
  auto tes_scan = [=] { tessera_exclusive_scan<T>(in, out); };

  // Answers: both against a host scan (long double for doubles), and each other.
  const auto h_in = to_host(in.data(), n);
  auto result_of = [&](const std::function<void()>& f) {
    CK(cudaMemsetAsync(out.data(), 0xff, n * sizeof(T), st));
    f();
    return to_host(out.data(), n);
  };
  const auto r_cub = result_of(cub_scan), r_tes = result_of(tes_scan);
  bool cub_ok = true, tes_ok = true, same = true;
  if constexpr (std::is_integral_v<T>) {
    T acc = 0;
    for (std::size_t i = 0; i < n; ++i) {
      cub_ok = cub_ok && r_cub[i] == acc;
      tes_ok = tes_ok && r_tes[i] == acc;
      acc += h_in[i];
    }
    same = r_cub == r_tes;
    verify(S, cub_ok, "cub ExclusiveSum " + std::string(type_name) + " = host scan exactly");
    verify(S, tes_ok, "tessera parallel_scan " + std::string(type_name) + " = host scan exactly");
    verify(S, same, "tessera and cub scans identical");
  } else {
    const double tol = 1e-9;  // relative; n * eps is 1.5e-8 in the worst case, typical errors are ~1e-13
    long double acc = 0;
    double worst_cub = 0, worst_tes = 0, worst_pair = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double ref = double(acc), scale = std::max(1.0, std::fabs(ref));
      worst_cub = std::max(worst_cub, std::fabs(double(r_cub[i]) - ref) / scale);
      worst_tes = std::max(worst_tes, std::fabs(double(r_tes[i]) - ref) / scale);
      worst_pair = std::max(worst_pair, std::fabs(double(r_tes[i]) - double(r_cub[i])) / scale);
      acc += h_in[i];
    }
    char buf[160];
    std::snprintf(buf, sizeof buf, "cub ExclusiveSum double vs host long-double scan: max rel. error %.2e <= %.0e",
                  worst_cub, tol);
    verify(S, worst_cub <= tol, buf);
    std::snprintf(buf, sizeof buf, "tessera parallel_scan double vs host long-double scan: max rel. error %.2e <= %.0e",
                  worst_tes, tol);
    verify(S, worst_tes <= tol, buf);
    std::snprintf(buf, sizeof buf, "tessera vs cub scans: max rel. difference %.2e <= %.0e", worst_pair, tol);
    verify(S, worst_pair <= tol, buf);
  }

  std::vector<bench::Contender> cs{gpu(S, "cub::DeviceScan::ExclusiveSum", cub_scan),
                                   gpu(S, "tessera parallel_scan", tes_scan, 0)};
  const auto rs = bench::run_interleaved(cs, options(S));
  report.add(case_name, gbs_measure(bytes), cs, rs);
  bandwidth_note(S, case_name, bytes, cs, rs);
}

void row_scan(const Setup& S, const bench::Report& report) {
  scan_case<long long>(S, report, "long long");
  scan_case<double>(S, report, "double");
}

// ---- 3b. scan probe (opt-in: --only scan-probe) ----------------------------------------

// The library's single-pass scan rebuilt with plain pointers, one design
// choice switched at a time (scan_probe.cuh says which and why), beside CUB
// and parallel_scan, on 2^27 long long. Not in the default rows and not in
// docs/performance.md: a diagnostic whose answer goes into cuda_scan.hpp.
void row_scan_probe(const Setup& S, const bench::Report& report) {
  using T = long long;
  const std::size_t n = S.quick ? std::size_t(1) << 22 : std::size_t(1) << 27;
  const double bytes = 2.0 * sizeof(T) * double(n);
  const std::string case_name = "scan probe long long";
  if (!S.json) std::printf("\n# %s, %s elements\n", case_name.c_str(), pow2(n).c_str());
  DView<T*> in(tessera::view_alloc("scan in", tessera::WithoutInitializing), n);
  DView<T*> out(tessera::view_alloc("scan out", tessera::WithoutInitializing), n);
  init_scan(in);
  DView<char*> scratch(tessera::view_alloc("probe scratch", tessera::WithoutInitializing),
                       scan_probe::scratch_bytes((long long)n));
  const scan_probe::Scratch ps = scan_probe::scratch_at(scratch.data(), (long long)n);
  const cudaStream_t st = S.stream;
  const T* pin = in.data();
  T* pout = out.data();
  const long long nn = (long long)n;
  struct Variant {
    std::string name;
    std::function<void()> run;
    bool checked;  // false: the no-wait bound, whose answers are wrong by design
  };
  using namespace scan_probe;
  const std::vector<Variant> variants{
      {"probe: tile body only (no look-back)", [=] { CK((scan_probe::run<256, 12, true, true, true, true>(pin, pout, nn, ps, st))); }, false},
      {"probe: as the library (flag, value, 32 shuffles)", [=] { CK((scan_probe::run<256, 12, false, false, true, false>(pin, pout, nn, ps, st))); }, true},
      {"probe: + 5-step window join", [=] { CK((scan_probe::run<256, 12, false, true, true, false>(pin, pout, nn, ps, st))); }, true},
      {"probe: + packed 16-byte tile state", [=] { CK((scan_probe::run<256, 12, true, true, true, false>(pin, pout, nn, ps, st))); }, true},
      {"probe: packed, spin without sleep", [=] { CK((scan_probe::run<256, 12, true, true, false, false>(pin, pout, nn, ps, st))); }, true},
      {"probe: packed, tiles of 512 x 12", [=] { CK((scan_probe::run<512, 12, true, true, true, false>(pin, pout, nn, ps, st))); }, true},
      {"probe: packed, tiles of 256 x 24", [=] { CK((scan_probe::run<256, 24, true, true, true, false>(pin, pout, nn, ps, st))); }, true},
      {"probe: packed, tiles of 128 x 16", [=] { CK((scan_probe::run<128, 16, true, true, true, false>(pin, pout, nn, ps, st))); }, true},
  };
  const auto cub_scan = cub_exclusive_sum(S, in, out);
  auto tes_scan = [=] { tessera_exclusive_scan<T>(in, out); };
  // Answers against a host scan, exactly.
  const auto h_in = to_host(in.data(), n);
  std::vector<T> want(n);
  T acc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    want[i] = acc;
    acc += h_in[i];
  }
  auto check_variant = [&](const std::string& name, const std::function<void()>& f) {
    CK(cudaMemsetAsync(out.data(), 0xff, n * sizeof(T), st));
    f();
    verify(S, to_host(out.data(), n) == want, name + " = host scan exactly");
  };
  check_variant("cub ExclusiveSum", cub_scan);
  check_variant("tessera parallel_scan", tes_scan);
  for (const auto& v : variants)
    if (v.checked) check_variant(v.name, v.run);
  std::vector<bench::Contender> cs{gpu(S, "cub::DeviceScan::ExclusiveSum", cub_scan),
                                   gpu(S, "tessera parallel_scan", tes_scan, 0)};
  for (const auto& v : variants) cs.push_back(gpu(S, v.name, v.run, 0));
  const auto rs = bench::run_interleaved(cs, options(S));
  report.add(case_name, gbs_measure(bytes), cs, rs);
  bandwidth_note(S, case_name, bytes, cs, rs);
}

// ---- 4. sort ---------------------------------------------------------------------

void init_sort(DView<int*> keys, DView<int*> values) {
  tessera::parallel_for(
      "init sort", tessera::RangePolicy<Cuda>(0, std::int64_t(keys.extent(0))), TESSERA_LAMBDA(std::int64_t i) {
        keys(i) = int(std::uint32_t(mix(std::uint64_t(i) ^ 0x5eed) >> 32));
        values(i) = int(i);
      });
}
void tessera_sort(DView<int*> keys) { tessera::sort(keys); }
void tessera_sort_by_key(DView<int*> keys, DView<int*> values) { tessera::sort_by_key(keys, values); }

void row_sort(const Setup& S, const bench::Report& report) {
  const std::size_t n = S.quick ? std::size_t(1) << 20 : std::size_t(1) << 26;
  if (!S.json)
    std::printf("\n# sort %s random 32-bit ints (the input is restored before each run, untimed)\n", pow2(n).c_str());
  // The pristine input, the array sorted in place (cub's DoubleBuffer uses it
  // and `alt`), and the same for the values of sort_by_key.
  DView<int*> keys0(tessera::view_alloc("keys input", tessera::WithoutInitializing), n);
  DView<int*> vals0(tessera::view_alloc("values input", tessera::WithoutInitializing), n);
  DView<int*> keys(tessera::view_alloc("keys", tessera::WithoutInitializing), n);
  DView<int*> alt(tessera::view_alloc("keys alt", tessera::WithoutInitializing), n);
  DView<int*> vals(tessera::view_alloc("values", tessera::WithoutInitializing), n);
  DView<int*> vals_alt(tessera::view_alloc("values alt", tessera::WithoutInitializing), n);
  init_sort(keys0, vals0);
  const cudaStream_t st = S.stream;
  const std::size_t nb = n * sizeof(int);

  // cub's double buffers, reset by prepare; Current() holds the result after a run.
  auto kdb = std::make_shared<cub::DoubleBuffer<int>>();
  auto vdb = std::make_shared<cub::DoubleBuffer<int>>();
  std::size_t keys_temp = 0, pairs_temp = 0;
  {
    cub::DoubleBuffer<int> k(keys.data(), alt.data()), v(vals.data(), vals_alt.data());
    CK(cub::DeviceRadixSort::SortKeys(nullptr, keys_temp, k, std::int64_t(n), 0, 32, st));
    CK(cub::DeviceRadixSort::SortPairs(nullptr, pairs_temp, k, v, std::int64_t(n), 0, 32, st));
  }
  DView<char*> temp(tessera::view_alloc("cub sort temp", tessera::WithoutInitializing), std::max(keys_temp, pairs_temp));

  auto restore_keys = [=] {
    CK(cudaMemcpyAsync(keys.data(), keys0.data(), nb, cudaMemcpyDeviceToDevice, st));
    *kdb = cub::DoubleBuffer<int>(keys.data(), alt.data());
  };
  auto restore_pairs = [=] {
    restore_keys();
    CK(cudaMemcpyAsync(vals.data(), vals0.data(), nb, cudaMemcpyDeviceToDevice, st));
    *vdb = cub::DoubleBuffer<int>(vals.data(), vals_alt.data());
  };
  auto cub_keys = [=] {
    std::size_t tb = keys_temp;
    CK(cub::DeviceRadixSort::SortKeys(temp.data(), tb, *kdb, std::int64_t(n), 0, 32, st));
  };
  auto cub_pairs = [=] {
    std::size_t tb = pairs_temp;
    CK(cub::DeviceRadixSort::SortPairs(temp.data(), tb, *kdb, *vdb, std::int64_t(n), 0, 32, st));
  };
  auto tes_keys = [=] { tessera_sort(keys); };
  auto tes_pairs = [=] { tessera_sort_by_key(keys, vals); };
  auto synced = [st](const std::function<void()>& f) {
    f();
    CK(cudaStreamSynchronize(st));
  };

  // Answers: sorted, the same multiset as the input (sum and xor of the keys),
  // identical between the two; pairs: values still name their key's input
  // position and equal keys keep their input order (both sorts are stable).
  const auto in_keys = to_host(keys0.data(), n);
  std::uint64_t in_sum = 0, in_xor = 0;
  for (int k : in_keys) {
    in_sum += std::uint32_t(k);
    in_xor ^= mix(std::uint32_t(k));
  }
  auto keys_ok = [&](const std::vector<int>& h) {
    std::uint64_t sum = 0, x = 0;
    for (int k : h) {
      sum += std::uint32_t(k);
      x ^= mix(std::uint32_t(k));
    }
    return std::is_sorted(h.begin(), h.end()) && sum == in_sum && x == in_xor;
  };
  synced(restore_keys);
  synced(cub_keys);
  const auto cub_k = to_host(kdb->Current(), n);
  synced(restore_keys);
  synced(tes_keys);
  const auto tes_k = to_host(keys.data(), n);
  verify(S, keys_ok(cub_k), "cub SortKeys: sorted, same keys as the input");
  verify(S, keys_ok(tes_k), "tessera::sort: sorted, same keys as the input");
  verify(S, cub_k == tes_k, "tessera::sort and cub SortKeys identical");

  auto pairs_ok = [&](const std::vector<int>& k, const std::vector<int>& v) {
    if (!keys_ok(k)) return false;
    for (std::size_t i = 0; i < n; ++i) {
      if (v[i] < 0 || std::size_t(v[i]) >= n || in_keys[std::size_t(v[i])] != k[i]) return false;
      if (i > 0 && k[i - 1] == k[i] && v[i - 1] >= v[i]) return false;
    }
    return true;
  };
  synced(restore_pairs);
  synced(cub_pairs);
  const auto cub_pk = to_host(kdb->Current(), n), cub_pv = to_host(vdb->Current(), n);
  synced(restore_pairs);
  synced(tes_pairs);
  const auto tes_pk = to_host(keys.data(), n), tes_pv = to_host(vals.data(), n);
  verify(S, pairs_ok(cub_pk, cub_pv), "cub SortPairs: sorted, values follow their keys, stable");
  verify(S, pairs_ok(tes_pk, tes_pv), "tessera::sort_by_key: sorted, values follow their keys, stable");
  verify(S, cub_pk == tes_pk && cub_pv == tes_pv, "tessera::sort_by_key and cub SortPairs identical");

  const bench::Measure rate{"Mkeys/s", double(n), 1e-6, false, false};
  {
    std::vector<bench::Contender> cs{gpu(S, "cub::DeviceRadixSort::SortKeys", cub_keys, -1, restore_keys),
                                     gpu(S, "tessera::sort", tes_keys, 0, restore_keys)};
    report.add("sort int", rate, cs, bench::run_interleaved(cs, options(S)));
  }
  {
    std::vector<bench::Contender> cs{gpu(S, "cub::DeviceRadixSort::SortPairs", cub_pairs, -1, restore_pairs),
                                     gpu(S, "tessera::sort_by_key", tes_pairs, 0, restore_pairs)};
    report.add("sort_by_key int,int", rate, cs, bench::run_interleaved(cs, options(S)));
  }
}

// ---- 5. team-policy gemv ------------------------------------------------------------

using TeamPolicy = tessera::TeamPolicy<Cuda>;
using Member = TeamPolicy::member_type;
using Scratch = tessera::View<double*, Cuda::scratch_memory_space, tessera::MemoryUnmanaged>;

void init_gemv(DView<double**> A, DView<double*> x) {
  const int m = int(A.extent(0)), n = int(A.extent(1));
  tessera::parallel_for(
      "init A", tessera::MDRangePolicy<Cuda, tessera::Rank<2>>({0, 0}, {m, n}),
      TESSERA_LAMBDA(int i, int j) { A(i, j) = unit(std::uint64_t(i) * std::uint64_t(n) + std::uint64_t(j)) - 0.5; });
  tessera::parallel_for(
      "init x", tessera::RangePolicy<Cuda>(0, n), TESSERA_LAMBDA(int j) { x(j) = unit(~std::uint64_t(j)) - 0.5; });
}

// The Kokkos idiom: a team per row, its threads split the row (TeamThreadRange
// reduction). On a LayoutLeft matrix a warp reads 32 entries a column apart.
void tessera_gemv_team_per_row(DView<const double**> A, DView<const double*> x, DView<double*> y) {
  const int m = int(A.extent(0)), n = int(A.extent(1));
  tessera::parallel_for(
      "gemv team per row", TeamPolicy(m, tessera::AUTO), TESSERA_LAMBDA(const Member& t) {
        const int i = t.league_rank();
        double sum = 0;
        tessera::parallel_reduce(
            tessera::TeamThreadRange(t, n), [&](int j, double& acc) { acc += A(i, j) * x(j); }, sum);
        tessera::single(tessera::PerTeam(t), [&] { y(i) = sum; });
      });
}

// The layout-aware form: a team per 32 rows, the rows on the 32 vector lanes
// (consecutive addresses of a column), the team's threads taking every
// `team_size`-th column; partial sums meet in team scratch.
constexpr int kRowsPerTeam = 32;
constexpr int kColumnSplit = 16;  // team size: 16 x 32 = 512 threads per team
void tessera_gemv_rows_per_team(DView<const double**> A, DView<const double*> x, DView<double*> y) {
  const int m = int(A.extent(0)), n = int(A.extent(1));
  TeamPolicy policy((m + kRowsPerTeam - 1) / kRowsPerTeam, kColumnSplit, kRowsPerTeam);
  policy.set_scratch_size(0, tessera::PerTeam(Scratch::shmem_size(kRowsPerTeam * kColumnSplit)));
  tessera::parallel_for(
      "gemv rows per team", policy, TESSERA_LAMBDA(const Member& t) {
        Scratch part(t.team_scratch(0), kRowsPerTeam * kColumnSplit);
        const int row0 = t.league_rank() * kRowsPerTeam, c = t.team_rank(), split = t.team_size();
        tessera::parallel_for(tessera::ThreadVectorRange(t, kRowsPerTeam), [&](int r) {
          const int i = row0 + r;
          double s = 0;
          if (i < m)
            for (int j = c; j < n; j += split) s += A(i, j) * x(j);
          part(c * kRowsPerTeam + r) = s;
        });
        t.team_barrier();
        if (c == 0)
          tessera::parallel_for(tessera::ThreadVectorRange(t, kRowsPerTeam), [&](int r) {
            double s = 0;
            for (int k = 0; k < split; ++k) s += part(k * kRowsPerTeam + r);
            if (row0 + r < m) y(row0 + r) = s;
          });
      });
}

void row_gemv(const Setup& S, const bench::Report& report) {
  const int m = S.quick ? 2048 : 16384, n = S.quick ? 1024 : 8192;
  const double bytes = 8.0 * (double(m) * n + m + n);
  if (!S.json)
    std::printf("\n# gemv y = A x, A %d x %d doubles, LayoutLeft (column-major, lda = %d); %.3f GB per run\n", m, n, m,
                bytes * 1e-9);
  DView<double**> A(tessera::view_alloc("A", tessera::WithoutInitializing), m, n);
  DView<double*> x(tessera::view_alloc("x", tessera::WithoutInitializing), n);
  DView<double*> y_blas("y cublas", m), y_row("y team per row", m), y_block("y rows per team", m);
  init_gemv(A, x);
  if (A.stride(0) != 1) throw std::runtime_error("gemv: expected a column-major (LayoutLeft) matrix");
  const int lda = int(A.stride(1));

  cublasHandle_t handle = nullptr;
  CK(cublasCreate(&handle));
  std::unique_ptr<cublasContext, cublasStatus_t (*)(cublasHandle_t)> handle_guard(handle, cublasDestroy);
  CK(cublasSetStream(handle, S.stream));
  CK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));

  auto blas = [=] {
    const double one = 1.0, zero = 0.0;
    // Column-major A as stored: no transpose.
    CK(cublasDgemv(handle, CUBLAS_OP_N, m, n, &one, A.data(), lda, x.data(), 1, &zero, y_blas.data(), 1));
  };
  auto per_row = [=] { tessera_gemv_team_per_row(A, x, y_row); };
  auto per_block = [=] { tessera_gemv_rows_per_team(A, x, y_block); };

  blas();
  per_row();
  per_block();
  const auto hb = to_host(y_blas.data(), m), hr = to_host(y_row.data(), m), hk = to_host(y_block.data(), m);
  // Entries in [-1/2, 1/2): |y_i| ~ sqrt(n)/12; rounding differences of the
  // summation orders are ~1e-14 of that.
  auto close = [&](const std::vector<double>& u, const std::vector<double>& v) {
    double worst = 0;
    for (int i = 0; i < m; ++i) worst = std::max(worst, std::fabs(u[i] - v[i]) / std::max(1.0, std::fabs(v[i])));
    return worst;
  };
  const double tol = 1e-10, e_row = close(hr, hb), e_block = close(hk, hb);
  double y_norm = 0;
  for (double v : hb) y_norm = std::max(y_norm, std::fabs(v));
  char buf[160];
  std::snprintf(buf, sizeof buf, "team-per-row y vs cublasDgemv y: max rel. difference %.2e <= %.0e (max |y| %.3g)",
                e_row, tol, y_norm);
  verify(S, e_row <= tol && y_norm > 0, buf);
  std::snprintf(buf, sizeof buf, "rows-per-team y vs cublasDgemv y: max rel. difference %.2e <= %.0e", e_block, tol);
  verify(S, e_block <= tol, buf);

  std::vector<bench::Contender> cs{gpu(S, "cublasDgemv (CUBLAS_OP_N)", blas),
                                   gpu(S, "tessera team per row", per_row, 0),
                                   gpu(S, "tessera team per 32 rows", per_block, 0)};
  const auto rs = bench::run_interleaved(cs, options(S));
  report.add("gemv", gbs_measure(bytes), cs, rs);
  const double gflop = 2.0 * double(m) * n * 1e-9;
  bandwidth_note(S, "gemv", bytes, cs, rs,
                 {num("cublasDgemv GFLOP/s", gflop / bench::summarize(rs[0].seconds).median, "%.1f")});
}

// ---- 6. 3-D 7-point stencil -----------------------------------------------------------

constexpr double kC0 = -6.0 / 7.0, kC1 = 1.0 / 7.0;

__global__ void raw_stencil(double* __restrict__ out, const double* __restrict__ in, int n, std::int64_t sy,
                            std::int64_t sz) {
  const int i = 1 + int(blockIdx.x * blockDim.x + threadIdx.x);
  const int j = 1 + int(blockIdx.y * blockDim.y + threadIdx.y);
  const int k = 1 + int(blockIdx.z);
  if (i >= n - 1 || j >= n - 1) return;
  const std::int64_t p = i + j * sy + k * sz;
  out[p] = kC0 * in[p] + kC1 * (in[p - 1] + in[p + 1] + in[p - sy] + in[p + sy] + in[p - sz] + in[p + sz]);
}

void tessera_stencil(DView<double***> out, DView<const double***> in) {
  const int n = int(in.extent(0));
  tessera::parallel_for(
      "stencil", tessera::MDRangePolicy<Cuda, tessera::Rank<3>>({1, 1, 1}, {n - 1, n - 1, n - 1}),
      TESSERA_LAMBDA(int i, int j, int k) {
        out(i, j, k) = kC0 * in(i, j, k) + kC1 * (in(i - 1, j, k) + in(i + 1, j, k) + in(i, j - 1, k) +
                                                  in(i, j + 1, k) + in(i, j, k - 1) + in(i, j, k + 1));
      });
}

void init_stencil(DView<double***> in) {
  const int n = int(in.extent(0));
  tessera::parallel_for(
      "init stencil", tessera::MDRangePolicy<Cuda, tessera::Rank<3>>({0, 0, 0}, {n, n, n}),
      TESSERA_LAMBDA(int i, int j, int k) { in(i, j, k) = unit((std::uint64_t(k) * n + j) * n + i); });
}

void row_stencil(const Setup& S, const bench::Report& report) {
  const int n = S.quick ? 64 : 256;
  const double interior = double(n - 2) * (n - 2) * (n - 2);
  const double bytes = 16.0 * interior;
  if (!S.json)
    std::printf("\n# 7-point stencil over the interior of %d^3 doubles (LayoutLeft, x fastest); floor %.3f GB per run\n",
                n, bytes * 1e-9);
  DView<double***> in(tessera::view_alloc("in", tessera::WithoutInitializing), n, n, n);
  DView<double***> out("out", n, n, n);
  init_stencil(in);
  if (in.stride(0) != 1 || out.stride(1) != in.stride(1) || out.stride(2) != in.stride(2))
    throw std::runtime_error("stencil: expected LayoutLeft Views of equal strides");
  const std::int64_t sy = std::int64_t(in.stride(1)), sz = std::int64_t(in.stride(2));
  const cudaStream_t st = S.stream;
  auto raw = [=] {
    const dim3 block(128, 4, 1);
    const dim3 grid(unsigned((n - 2 + 127) / 128), unsigned((n - 2 + 3) / 4), unsigned(n - 2));
    raw_stencil<<<grid, block, 0, st>>>(out.data(), in.data(), n, sy, sz);
    CK(cudaGetLastError());
  };
  auto tes = [=] { tessera_stencil(out, in); };

  // Answers against the host, every interior point.
  const std::size_t span = std::size_t(sz) * std::size_t(n);
  const auto h_in = to_host(in.data(), span);
  auto check_out = [&](const std::function<void()>& f) {
    CK(cudaMemsetAsync(out.data(), 0, span * sizeof(double), st));
    f();
    const auto h = to_host(out.data(), span);
    double worst = 0;
    for (int k = 1; k < n - 1; ++k)
      for (int j = 1; j < n - 1; ++j)
        for (int i = 1; i < n - 1; ++i) {
          const std::int64_t p = i + j * sy + k * sz;
          const double ref = kC0 * h_in[p] + kC1 * (h_in[p - 1] + h_in[p + 1] + h_in[p - sy] + h_in[p + sy] +
                                                    h_in[p - sz] + h_in[p + sz]);
          worst = std::max(worst, std::fabs(h[p] - ref));
        }
    return worst;
  };
  const double e_raw = check_out(raw), e_tes = check_out(tes);
  char buf[160];
  std::snprintf(buf, sizeof buf, "raw stencil vs host: max abs. difference %.2e <= 1e-14", e_raw);
  verify(S, e_raw <= 1e-14, buf);
  std::snprintf(buf, sizeof buf, "tessera stencil vs host: max abs. difference %.2e <= 1e-14", e_tes);
  verify(S, e_tes <= 1e-14, buf);

  std::vector<bench::Contender> cs{gpu(S, "raw CUDA kernel (128x4 blocks)", raw),
                                   gpu(S, "tessera MDRangePolicy Rank<3>", tes, 0)};
  const auto rs = bench::run_interleaved(cs, options(S));
  report.add("stencil 7-point", gbs_measure(bytes), cs, rs);
  bandwidth_note(S, "stencil 7-point", bytes, cs, rs);
}

// ---- 7. dispatch latency ---------------------------------------------------------------

__global__ void raw_empty() {}

void tessera_empty_dispatches(int launches) {
  const Cuda space;
  for (int l = 0; l < launches; ++l) {
    tessera::parallel_for("empty", tessera::RangePolicy<Cuda>(space, 0, 1), TESSERA_LAMBDA(int) {});
    space.fence();
  }
}

void row_dispatch(const Setup& S, const bench::Report& report) {
  const int launches = S.quick ? 1000 : 10000;
  if (!S.json)
    std::printf("\n# dispatch latency: %d x (launch one index + wait) per run, microseconds per dispatch\n", launches);
  const cudaStream_t st = S.stream;
  auto raw = [=] {
    for (int l = 0; l < launches; ++l) {
      raw_empty<<<1, 1, 0, st>>>();
      CK(cudaGetLastError());
      CK(cudaStreamSynchronize(st));
    }
  };
  auto tes = [=] { tessera_empty_dispatches(launches); };
  std::vector<bench::Contender> cs{gpu(S, "raw kernel + cudaStreamSynchronize", raw),
                                   gpu(S, "tessera parallel_for(1) + fence()", tes, 0)};
  const bench::Measure per_launch{"us/dispatch", double(launches), 1e6, true, true};
  report.add("dispatch empty", per_launch, cs, bench::run_interleaved(cs, options(S)));
}

// ---- 8. device memory pool ---------------------------------------------------------------

#if TESSERA_BENCH_HAVE_MEMPOOL
using Pool = tessera::MemoryPool<Cuda>;
using Counter = unsigned long long;
constexpr std::size_t kBlock = 64;

// (a) every thread allocates a block, fills it with its index and keeps it.
void pool_hold_allocate(Pool pool, DView<Counter*> ptrs, DView<Counter> nulls) {
  tessera::parallel_for(
      "pool allocate", tessera::RangePolicy<Cuda>(0, int(ptrs.extent(0))), TESSERA_LAMBDA(int i) {
        auto* p = static_cast<Counter*>(pool.allocate(kBlock));
        if (p == nullptr)
          tessera::atomic_add(&nulls(), Counter(1));
        else
          for (int w = 0; w < int(kBlock / sizeof(Counter)); ++w) p[w] = Counter(i);
        ptrs(i) = Counter(reinterpret_cast<std::uintptr_t>(p));
      });
}
// ... and a second kernel checks and frees them.
void pool_hold_free(Pool pool, DView<Counter*> ptrs, DView<Counter> bad) {
  tessera::parallel_for(
      "pool free", tessera::RangePolicy<Cuda>(0, int(ptrs.extent(0))), TESSERA_LAMBDA(int i) {
        auto* p = reinterpret_cast<Counter*>(std::uintptr_t(ptrs(i)));
        if (p == nullptr) return;
        if (p[kBlock / sizeof(Counter) - 1] != Counter(i)) tessera::atomic_add(&bad(), Counter(1));
        pool.deallocate(p, kBlock);
      });
}
// (b) allocate, write, free in the same thread.
void pool_alloc_free(Pool pool, int n, DView<Counter> nulls) {
  tessera::parallel_for(
      "pool allocate+free", tessera::RangePolicy<Cuda>(0, n), TESSERA_LAMBDA(int i) {
        auto* p = static_cast<volatile Counter*>(pool.allocate(kBlock));
        if (p == nullptr) {
          tessera::atomic_add(&nulls(), Counter(1));
          return;
        }
        p[0] = Counter(i);
        pool.deallocate(const_cast<Counter*>(p), kBlock);
      });
}

__global__ void malloc_hold_allocate(Counter* ptrs, Counter* nulls, int n) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  auto* p = static_cast<Counter*>(malloc(kBlock));
  if (p == nullptr)
    atomicAdd(nulls, Counter(1));
  else
    for (int w = 0; w < int(kBlock / sizeof(Counter)); ++w) p[w] = Counter(i);
  ptrs[i] = Counter(reinterpret_cast<std::uintptr_t>(p));
}
__global__ void malloc_hold_free(const Counter* ptrs, Counter* bad, int n) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  auto* p = reinterpret_cast<Counter*>(std::uintptr_t(ptrs[i]));
  if (p == nullptr) return;
  if (p[kBlock / sizeof(Counter) - 1] != Counter(i)) atomicAdd(bad, Counter(1));
  free(p);
}
__global__ void malloc_alloc_free(Counter* nulls, int n) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  auto* p = static_cast<volatile Counter*>(malloc(kBlock));
  if (p == nullptr) {
    atomicAdd(nulls, Counter(1));
    return;
  }
  p[0] = Counter(i);
  free(const_cast<Counter*>(p));
}

// One allocator's contender in a row: times the allocation kernel (events
// start -> mid) and, for the holding pattern, the freeing kernel (mid -> end)
// in the same run; reads the nullptr count of each run afterwards.
struct AllocRuns {
  Events ev;
  cudaEvent_t end = nullptr;
  std::vector<double> free_seconds;  // one per run, warm-up runs included
  std::vector<Counter> nulls;        // nullptr returns per run, warm-up runs included
  Counter bad = 0;                   // blocks whose contents were wrong when freed, all runs
  AllocRuns() { CK(cudaEventCreate(&end)); }
  ~AllocRuns() { cudaEventDestroy(end); }
  AllocRuns(const AllocRuns&) = delete;
  AllocRuns& operator=(const AllocRuns&) = delete;
};

bench::Contender alloc_contender(const Setup& S, const std::string& name, const std::shared_ptr<AllocRuns>& runs,
                                 std::function<void()> allocate, std::function<void()> release, DView<Counter> nulls,
                                 DView<Counter> bad, int reference) {
  const cudaStream_t st = S.stream;
  const int threads = S.threads;
  bench::Contender c;
  c.name = name;
  c.prepare = [=] {
    CK(cudaMemsetAsync(nulls.data(), 0, sizeof(Counter), st));
    CK(cudaMemsetAsync(bad.data(), 0, sizeof(Counter), st));
    CK(cudaStreamSynchronize(st));
  };
  c.run = [=] {
    CK(cudaEventRecord(runs->ev.start, st));
    allocate();
    CK(cudaEventRecord(runs->ev.stop, st));
    if (release) release();
    CK(cudaEventRecord(runs->end, st));
    CK(cudaEventSynchronize(runs->end));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, runs->ev.stop, runs->end));
    runs->free_seconds.push_back(double(ms) * 1e-3);
    runs->nulls.push_back(to_host(nulls.data(), 1)[0]);
    runs->bad += to_host(bad.data(), 1)[0];
  };
  c.measured_seconds = [runs] { return runs->ev.seconds(); };
  c.threads_ran = [threads] { return threads; };
  c.reference = reference;
  return c;
}

void null_note(const Setup& S, const std::string& case_name, const std::vector<bench::Contender>& cs,
               const std::vector<std::shared_ptr<AllocRuns>>& runs, int n, std::vector<Field> extra) {
  std::vector<Field> f{num("threads allocating", n, "%.0f"),
                       str("rate", "allocate() calls per second, nullptr returns included")};
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const auto& v = runs[i]->nulls;
    const Counter total = std::accumulate(v.begin(), v.end(), Counter(0));
    f.push_back(num(cs[i].name + ": nullptr returns in the last run", double(v.empty() ? 0 : v.back()), "%.0f"));
    f.push_back(num(cs[i].name + ": nullptr returns in all " + std::to_string(v.size()) + " runs", double(total), "%.0f"));
  }
  f.insert(f.end(), extra.begin(), extra.end());
  note(S, case_name, f);
}

void row_mempool(const Setup& S, const bench::Report& report) {
  const int n = S.quick ? 1 << 16 : 1 << 20;
  const std::size_t capacity = std::size_t(double(n) * kBlock / 0.8);  // live set = 80% of the pool
  const std::size_t superblock = S.quick ? std::size_t(1) << 16 : std::size_t(1) << 20;
  Pool pool(Pool::memory_space(), capacity, kBlock, kBlock, superblock);
  if (!S.json)
    std::printf(
        "\n# device allocators, %s threads x one %zu-byte block; tessera::MemoryPool<Cuda>(%zu bytes requested, "
        "blocks %zu, superblock %zu): capacity %zu bytes, %zu superblocks; device malloc heap %zu MiB\n",
        pow2(std::size_t(n)).c_str(), kBlock, capacity, kBlock, superblock, pool.capacity(),
        pool.number_of_superblocks(), [] {
          std::size_t heap = 0;
          CK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
          return heap >> 20;
        }());
  DView<Counter*> ptrs("block pointers", n);
  DView<Counter> pool_nulls("pool nulls"), pool_bad("pool bad"), malloc_nulls("malloc nulls"), malloc_bad("malloc bad");
  const cudaStream_t st = S.stream;
  const unsigned blocks = unsigned((n + 255) / 256);
  const bench::Measure rate{"Malloc/s", double(n), 1e-6, false, false};

  // (a) allocate and hold, then free in a second kernel.
  {
    auto pool_runs = std::make_shared<AllocRuns>(), malloc_runs = std::make_shared<AllocRuns>();
    std::vector<bench::Contender> cs{
        alloc_contender(
            S, "device malloc/free", malloc_runs,
            [=] {
              malloc_hold_allocate<<<blocks, 256, 0, st>>>(ptrs.data(), malloc_nulls.data(), n);
              CK(cudaGetLastError());
            },
            [=] {
              malloc_hold_free<<<blocks, 256, 0, st>>>(ptrs.data(), malloc_bad.data(), n);
              CK(cudaGetLastError());
            },
            malloc_nulls, malloc_bad, -1),
        alloc_contender(
            S, "tessera MemoryPool<Cuda>", pool_runs, [=] { pool_hold_allocate(pool, ptrs, pool_nulls); },
            [=] { pool_hold_free(pool, ptrs, pool_bad); }, pool_nulls, pool_bad, 0)};
    const auto opt = options(S);
    const auto rs = bench::run_interleaved(cs, opt);
    report.add("alloc 64 B and hold (live set 80% of the pool)", rate, cs, rs);
    // The freeing kernels of the same runs (warm-up runs dropped).
    std::vector<bench::Result> frees(2);
    for (int i = 0; i < 2; ++i) {
      const auto& all = (i == 0 ? malloc_runs : pool_runs)->free_seconds;
      frees[i].seconds.assign(all.begin() + opt.warmup, all.end());
      frees[i].threads = rs[i].threads;
    }
    frees[1] = against(frees[1], frees[0]);
    report.add("free the held 64 B blocks", {"Mfree/s", double(n), 1e-6, false, false}, cs, frees);
    verify(S, pool_runs->bad == 0 && malloc_runs->bad == 0,
           "held blocks kept their contents until freed (pool: " + std::to_string(pool_runs->bad) +
               " wrong, malloc: " + std::to_string(malloc_runs->bad) + " wrong)");
    Pool::usage_statistics u;
    pool.get_usage_statistics(u);
    null_note(S, "alloc 64 B and hold (live set 80% of the pool)", cs, {malloc_runs, pool_runs}, n,
              {num("pool failed_allocations (get_usage_statistics, all runs)", double(u.failed_allocations), "%.0f"),
               num("pool high_water_bytes", double(u.high_water_bytes), "%.0f"),
               num("pool capacity_bytes", double(u.capacity_bytes), "%.0f")});
    verify(S, u.consumed_blocks == 0 && u.bad_deallocations == 0,
           "pool empty after the frees (consumed blocks " + std::to_string(u.consumed_blocks) +
               ", bad deallocations " + std::to_string(u.bad_deallocations) + ")");
  }
  // (b) allocate + free in the same thread.
  {
    auto pool_runs = std::make_shared<AllocRuns>(), malloc_runs = std::make_shared<AllocRuns>();
    Pool::usage_statistics before;
    pool.get_usage_statistics(before);
    std::vector<bench::Contender> cs{alloc_contender(
                                         S, "device malloc/free", malloc_runs,
                                         [=] {
                                           malloc_alloc_free<<<blocks, 256, 0, st>>>(malloc_nulls.data(), n);
                                           CK(cudaGetLastError());
                                         },
                                         {}, malloc_nulls, malloc_bad, -1),
                                     alloc_contender(
                                         S, "tessera MemoryPool<Cuda>", pool_runs,
                                         [=] { pool_alloc_free(pool, n, pool_nulls); }, {}, pool_nulls, pool_bad, 0)};
    const auto rs = bench::run_interleaved(cs, options(S));
    report.add("alloc + free 64 B in the same thread", rate, cs, rs);
    Pool::usage_statistics u;
    pool.get_usage_statistics(u);
    null_note(S, "alloc + free 64 B in the same thread", cs, {malloc_runs, pool_runs}, n,
              {num("pool failed_allocations (get_usage_statistics, these runs)",
                   double(u.failed_allocations - before.failed_allocations), "%.0f"),
               num("pool failed_allocations (pool lifetime)", double(u.failed_allocations), "%.0f")});
    verify(S, u.consumed_blocks == 0, "pool empty after allocate+free");
  }
}
#endif

// ---- main -------------------------------------------------------------------------------

struct Row {
  const char* name;
  void (*run)(const Setup&, const bench::Report&);
};

void print_device(const Setup& S) {
  const int dev = Cuda().cuda_device();
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, dev));
  int driver = 0, runtime = 0;
  CK(cudaDriverGetVersion(&driver));
  CK(cudaRuntimeGetVersion(&runtime));
  const auto ver = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  if (S.json) {
    note(S, "device",
         {str("device", p.name), num("sm_count", p.multiProcessorCount), str("compute_capability",
                                                                              std::to_string(p.major) + "." + std::to_string(p.minor)),
          num("global_memory_GiB", double(p.totalGlobalMem) / double(1ull << 30), "%.1f"), str("driver", ver(driver)),
          str("runtime", ver(runtime)), num("peak_GBps", S.peak_gbs, "%.0f"), num("repeats", S.repeats),
          str("mode", S.quick ? "quick" : "full")});
  } else {
    std::printf("# device %d: %s, %d SMs, compute capability %d.%d, %.1f GiB, DRAM peak %.0f GB/s (%d-bit bus)\n", dev,
                p.name, p.multiProcessorCount, p.major, p.minor, double(p.totalGlobalMem) / double(1ull << 30),
                S.peak_gbs, p.memoryBusWidth);
    std::printf("# CUDA driver %s, runtime %s; %d repeats%s, contenders interleaved, CUDA events on Tessera's stream\n",
                ver(driver).c_str(), ver(runtime).c_str(), S.repeats, S.quick ? " (--quick sizes)" : "");
    std::printf("# ratio = peer time / Tessera time per repeat (>= 1: Tessera at least as fast)\n");
  }
}

int run(int argc, char* argv[]) {
  const std::vector<Row> rows{{"triad", row_triad},     {"reduce", row_reduce},   {"scan", row_scan},
                              {"sort", row_sort},       {"gemv", row_gemv},       {"stencil", row_stencil},
                              {"dispatch", row_dispatch},   {"scan-probe", row_scan_probe},
#if TESSERA_BENCH_HAVE_MEMPOOL
                              {"mempool", row_mempool}
#endif
  };
  std::string names;
  for (const auto& r : rows) names += std::string(names.empty() ? "" : ", ") + r.name;
  bench::Cli cli("tessera_bench_cuda",
                 "The CUDA back-end against raw CUDA kernels, CUB, cuBLAS and device malloc, timed with CUDA events.\n"
                 "rows: " + names,
                 11);
  Setup S;
  std::vector<std::string> only;
  cli.app().add_flag("--quick", S.quick, "small sizes and 3 repeats (unless --repeats)");
  cli.app()
      .add_option("--only", only, "the rows to run, comma-separated (default: all)")
      ->delimiter(',')
      ->check(tessera::tools::one_of({"triad", "reduce", "scan", "sort", "gemv", "stencil", "dispatch", "mempool", "scan-probe"}));
  if (auto status = cli.parse(argc, argv)) return *status;
  S.json = cli.json;
  S.repeats = S.quick && cli.app().get_option("--repeats")->count() == 0 ? 3 : cli.repeats;
  for (const auto& o : only) {
    const bool known = std::any_of(rows.begin(), rows.end(), [&](const Row& r) { return o == r.name; });
    if (!known)  // only mempool can be missing
      return cli.fail("--only: the mempool row is not built in (no Tessera::mempool when this was configured)");
  }
  tessera::ScopeGuard guard(cli.settings());
  // scan-probe (a diagnostic) runs only when named.
  auto selected = [&](const char* name) {
    const bool named = std::find(only.begin(), only.end(), name) != only.end();
    return named || (only.empty() && std::string(name) != "scan-probe");
  };

  if (!Cuda::impl_is_available()) {
    const std::string msg = "no CUDA device: " + Cuda::impl_unavailable_reason();
    if (S.json)
      tessera::tools::print_line({{"bench", "cuda"}, {"case", "device"}, {"skipped", msg}});
    else
      std::printf("%s\n", msg.c_str());
    return 0;
  }

  try {
    S.stream = Cuda().cuda_stream();
    S.threads = Cuda().concurrency();
    const int dev = Cuda().cuda_device();
    int mem_khz = 0, bus_bits = 0;
    CK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev));
    CK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev));
    S.peak_gbs = 2.0 * double(mem_khz) * 1e3 * double(bus_bits) / 8.0 * 1e-9;  // double data rate
#if TESSERA_BENCH_HAVE_MEMPOOL
    if (selected("mempool")) {
      // Before any kernel that calls malloc: room for 2^20 live 64-byte
      // blocks with the allocator's own overhead, many times over.
      // Refused (e.g. after such a kernel ran): malloc's nullptrs will show it.
      const cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, std::size_t(1) << 30);
      if (e != cudaSuccess) {
        (void)cudaGetLastError();
        std::fprintf(stderr, "bench_cuda: warning: cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 GiB): %s\n",
                     cudaGetErrorString(e));
      }
    }
#endif
    if (!S.json) print_device(S);
    const bench::Report report("cuda", S.json);
    if (S.json) print_device(S);
#if !TESSERA_BENCH_HAVE_MEMPOOL
    if (only.empty()) note(S, "mempool", {str("skipped", "built without Tessera::mempool")});
#endif
    for (const auto& r : rows)
      if (selected(r.name)) r.run(S, report);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cuda: error: %s\n", e.what());
    return 1;
  }
  if (!g_failures.empty()) {
    std::fprintf(stderr, "bench_cuda: %zu answer check(s) failed\n", g_failures.size());
    return 1;
  }
  return 0;
}

}  // namespace tessera_bench_cuda

int main(int argc, char* argv[]) { return tessera_bench_cuda::run(argc, argv); }
