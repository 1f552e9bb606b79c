// STREAM copy/scale/add/triad on 1-D Views against the same loops in raw
// OpenMP, in one program. Bandwidth counts the bytes STREAM counts (two
// arrays for copy/scale, three for add/triad).
//
// Every Tessera contender is run twice, with the kernel written as a
// TESSERA_LAMBDA taking an `int` index and taking a `long` index (the policy
// is the plain RangePolicy<Space>(0, n) a Kokkos program writes; "default"
// is parallel_for(n, lambda) on the default execution space). Contenders run
// in turn within each repeat (raw, OpenMP int, OpenMP long, ..., raw, ...);
// each one's ratio to its raw peer is taken per repeat, and the median and
// spread of those ratios is reported. Peers: raw `#pragma omp parallel for
// schedule(static)` at the pool's thread count for the parallel back-ends,
// the same loop on one thread for Serial.
//
// Between two contenders the program sleeps --pause-ms (default 50): libgomp's
// idle workers spin for GOMP_SPINCOUNT = 300000 pause instructions after each
// parallel region (about 7 ms on the 2-vCPU EPYC of docs/performance.md; more
// where pause is slower), and a Threads or Serial contender started inside
// that window shares its CPUs with them. The load average at the start is printed
// (and is the meta line of --json).
//
//   bench_stream [--n ELEMENTS] [--repeats R] [--kernels copy,scale,add,triad] [--pause-ms MS] [--json]
//                [--tessera-num-threads=N]
#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/openmp.hpp>
#include <tessera/bench/report.hpp>
#include <tessera/core.hpp>

#include <omp.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

using namespace tessera;

namespace {

// The four kernels of one contender.
struct StreamSet {
  std::function<void()> copy, scale, add, triad;
};

// The three STREAM arrays of one Tessera back-end, first touched by the
// threads of that back-end with the same static split the kernels use.
template <class Space>
struct TesseraArrays {
  View<double*, Space> a, b, c;
  explicit TesseraArrays(std::size_t n)
      : a(view_alloc("a", WithoutInitializing), n),
        b(view_alloc("b", WithoutInitializing), n),
        c(view_alloc("c", WithoutInitializing), n) {
    auto a_ = a, b_ = b, c_ = c;
    parallel_for(
        RangePolicy<Space>(0, n), TESSERA_LAMBDA(std::size_t i) {
          a_(i) = 1.0;
          b_(i) = 2.0;
          c_(i) = 0.0;
        });
  }
};

// Kernels whose lambdas take an index of type I.
template <class Space, class I>
StreamSet tessera_set(const TesseraArrays<Space>& arr, std::size_t n) {
  auto a = arr.a, b = arr.b, c = arr.c;
  const double scalar = 3.0;
  StreamSet s;
  s.copy = [=] {
    parallel_for(
        "copy", RangePolicy<Space>(0, n), TESSERA_LAMBDA(I i) { c(i) = a(i); });
  };
  s.scale = [=] {
    parallel_for(
        "scale", RangePolicy<Space>(0, n), TESSERA_LAMBDA(I i) { b(i) = scalar * c(i); });
  };
  s.add = [=] {
    parallel_for(
        "add", RangePolicy<Space>(0, n), TESSERA_LAMBDA(I i) { c(i) = a(i) + b(i); });
  };
  s.triad = [=] {
    parallel_for(
        "triad", RangePolicy<Space>(0, n), TESSERA_LAMBDA(I i) { a(i) = b(i) + scalar * c(i); });
  };
  return s;
}

// The held-out form: parallel_for(count, lambda) on the default execution space.
template <class I>
StreamSet default_set(const TesseraArrays<DefaultHostExecutionSpace>& arr, std::size_t n) {
  auto a = arr.a, b = arr.b, c = arr.c;
  const double scalar = 3.0;
  const long count = static_cast<long>(n);
  StreamSet s;
  s.copy = [=] {
    parallel_for(
        "copy", count, TESSERA_LAMBDA(I i) { c(i) = a(i); });
  };
  s.scale = [=] {
    parallel_for(
        "scale", count, TESSERA_LAMBDA(I i) { b(i) = scalar * c(i); });
  };
  s.add = [=] {
    parallel_for(
        "add", count, TESSERA_LAMBDA(I i) { c(i) = a(i) + b(i); });
  };
  s.triad = [=] {
    parallel_for(
        "triad", count, TESSERA_LAMBDA(I i) { a(i) = b(i) + scalar * c(i); });
  };
  return s;
}

struct RawArrays {
  double *a, *b, *c;
  explicit RawArrays(std::size_t n) {
    auto alloc = [n] {
      return static_cast<double*>(std::aligned_alloc(64, (n * sizeof(double) + 63) / 64 * 64));
    };
    a = alloc();
    b = alloc();
    c = alloc();
  }
  ~RawArrays() {
    std::free(a);
    std::free(b);
    std::free(c);
  }
  RawArrays(const RawArrays&) = delete;
  RawArrays& operator=(const RawArrays&) = delete;
};

// The same kernels as plain `#pragma omp parallel for` loops.
StreamSet raw_set(RawArrays& arr, std::size_t n, int threads) {
  double *a = arr.a, *b = arr.b, *c = arr.c;
  const long ln = static_cast<long>(n);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long i = 0; i < ln; ++i) {
    a[i] = 1.0;
    b[i] = 2.0;
    c[i] = 0.0;
  }
  const double scalar = 3.0;
  StreamSet s;
  s.copy = [=] {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long i = 0; i < ln; ++i) c[i] = a[i];
  };
  s.scale = [=] {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long i = 0; i < ln; ++i) b[i] = scalar * c[i];
  };
  s.add = [=] {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long i = 0; i < ln; ++i) c[i] = a[i] + b[i];
  };
  s.triad = [=] {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long i = 0; i < ln; ++i) a[i] = b[i] + scalar * c[i];
  };
  return s;
}

}  // namespace

int main(int argc, char* argv[]) {
  bench::Cli cli("tessera_bench_stream", "STREAM copy, scale, add and triad: Tessera against raw OpenMP loops.", 20);
  std::size_t n = std::size_t(1) << 25;  // 3 x 256 MiB per contender: far beyond any cache
  std::string kernel_list = "copy,scale,add,triad";
  int pause_ms = 50;
  cli.app().add_option("--n", n, "doubles per array")->check(tools::integer(1, std::int64_t(1) << 40));
  cli.app().add_option("--kernels", kernel_list, "the kernels to run, a comma-separated subset of copy,scale,add,triad");
  cli.app().add_option("--pause-ms", pause_ms, "milliseconds between timed runs")->check(tools::integer(0, 60000));
  if (auto status = cli.parse(argc, argv)) return *status;
  ScopeGuard guard(cli.settings());
  const int repeats = cli.repeats;
  const bool json = cli.json;
  const int threads = DefaultHostExecutionSpace().concurrency();
  if (!json)
    std::printf(
        "# STREAM, %zu doubles per array, %d repeats, GB/s; contenders run in turn within each repeat, %d "
        "ms\n"
        "# apart; ratio = raw-OpenMP time / Tessera time per repeat (goal >= 0.97). Peers: raw OpenMP at %d\n"
        "# threads for the parallel back-ends, raw OpenMP on 1 thread for Serial.\n",
        n, repeats, pause_ms, threads);
  const bench::Report report("stream", json);
  RawArrays raw_many(n), raw_one(n);
  StreamSet raw = raw_set(raw_many, n, threads);
  StreamSet raw1 = raw_set(raw_one, n, 1);
  TesseraArrays<Serial> serial_arrays(n);
  StreamSet serial_int = tessera_set<Serial, int>(serial_arrays, n);
  StreamSet serial_long = tessera_set<Serial, long>(serial_arrays, n);
#if TESSERA_ENABLE_OPENMP
  TesseraArrays<OpenMP> omp_arrays(n);
  StreamSet omp_int = tessera_set<OpenMP, int>(omp_arrays, n);
  StreamSet omp_long = tessera_set<OpenMP, long>(omp_arrays, n);
#endif
#if TESSERA_ENABLE_THREADS
  TesseraArrays<Threads> thr_arrays(n);
  StreamSet thr_int = tessera_set<Threads, int>(thr_arrays, n);
  StreamSet thr_long = tessera_set<Threads, long>(thr_arrays, n);
#endif
#if TESSERA_ENABLE_OPENMP && !TESSERA_ENABLE_CUDA
  // The default space is OpenMP: parallel_for(count, lambda) on its arrays.
  StreamSet def_long = default_set<long>(omp_arrays, n);
#endif
  struct K {
    const char* name;
    double bytes_per_element;
    std::function<void()> StreamSet::*member;
  };
  const K kernels[] = {{"copy", 16, &StreamSet::copy},
                       {"scale", 16, &StreamSet::scale},
                       {"add", 24, &StreamSet::add},
                       {"triad", 24, &StreamSet::triad}};
  const auto raw_ran = [threads] { return bench::omp_threads_ran(threads); };
  const auto one = [] { return 1; };
  for (const auto& k : kernels) {
    if (kernel_list.find(k.name) == std::string::npos) continue;
    std::vector<bench::Contender> cs;
    cs.push_back({"raw OpenMP", raw.*k.member, raw_ran});
#if TESSERA_ENABLE_OPENMP
    const auto omp_ran = [] { return OpenMP().concurrency(); };
    cs.push_back({"tessera OpenMP/int", omp_int.*k.member, omp_ran, 0});
    cs.push_back({"tessera OpenMP/long", omp_long.*k.member, omp_ran, 0});
#endif
#if TESSERA_ENABLE_OPENMP && !TESSERA_ENABLE_CUDA
    cs.push_back({"tessera default/long", def_long.*k.member,
                  [] { return DefaultExecutionSpace().concurrency(); }, 0});
#endif
#if TESSERA_ENABLE_THREADS
    const auto thr_ran = [] { return Threads().concurrency(); };
    cs.push_back({"tessera Threads/int", thr_int.*k.member, thr_ran, 0});
    cs.push_back({"tessera Threads/long", thr_long.*k.member, thr_ran, 0});
#endif
    const int raw1_index = static_cast<int>(cs.size());
    cs.push_back({"raw OpenMP, 1 thread", raw1.*k.member, [] { return bench::omp_threads_ran(1); }});
    cs.push_back({"tessera Serial/int", serial_int.*k.member, one, raw1_index});
    cs.push_back({"tessera Serial/long", serial_long.*k.member, one, raw1_index});
    bench::InterleaveOptions opt;
    opt.warmup = 2;
    opt.repeats = repeats;
    opt.pause_ms = pause_ms;
    const bench::Measure rate{"GB/s", k.bytes_per_element * double(n), 1e-9, false, false};
    report.add(k.name, rate, cs, bench::run_interleaved(cs, opt));
  }
  return 0;
}
