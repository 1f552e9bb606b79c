// STREAM copy/scale/add/triad on 1-D Views against the same loops in raw
// OpenMP, in one program. Bandwidth counts the bytes STREAM counts (two
// arrays for copy/scale, three for add/triad), median of repeats.
//
//   bench_stream [--n ELEMENTS] [--repeats R] [--tessera-num-threads=N]
#include "bench_stats.hpp"

#include <omp.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>

using namespace tessera;

namespace {

// The three STREAM arrays of one contender and its four kernels.
struct StreamSet {
  std::function<void()> copy, scale, add, triad;
};

template <class Space>
StreamSet tessera_set(std::size_t n) {
  View<double*, Space> a(view_alloc("a", WithoutInitializing), n), b(view_alloc("b", WithoutInitializing), n),
      c(view_alloc("c", WithoutInitializing), n);
  // First touch by the threads that will use the pages.
  parallel_for(RangePolicy<Space>(0, n), [=](std::size_t i) {
    a(i) = 1.0;
    b(i) = 2.0;
    c(i) = 0.0;
  });
  const double scalar = 3.0;
  StreamSet s;
  s.copy = [=] { parallel_for("copy", RangePolicy<Space>(0, n), [=](std::size_t i) { c(i) = a(i); }); };
  s.scale = [=] { parallel_for("scale", RangePolicy<Space>(0, n), [=](std::size_t i) { b(i) = scalar * c(i); }); };
  s.add = [=] { parallel_for("add", RangePolicy<Space>(0, n), [=](std::size_t i) { c(i) = a(i) + b(i); }); };
  s.triad = [=] {
    parallel_for("triad", RangePolicy<Space>(0, n), [=](std::size_t i) { a(i) = b(i) + scalar * c(i); });
  };
  return s;
}

struct RawArrays {
  double *a, *b, *c;
  explicit RawArrays(std::size_t n) {
    auto alloc = [n] { return static_cast<double*>(std::aligned_alloc(64, (n * sizeof(double) + 63) / 64 * 64)); };
    a = alloc();
    b = alloc();
    c = alloc();
  }
  ~RawArrays() {
    std::free(a);
    std::free(b);
    std::free(c);
  }
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
  ScopeGuard guard(argc, argv);
  std::size_t n = std::size_t(1) << 25;  // 3 x 256 MiB per contender: far beyond any cache
  int repeats = 20;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--n") && i + 1 < argc) n = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--n ELEMENTS] [--repeats R] [--tessera-num-threads=N]\n", argv[0]);
      return 2;
    }
  }
  const int threads = DefaultHostExecutionSpace().concurrency();
  std::printf("STREAM, %zu doubles per array, %d repeats, GB/s (median, min, max); contenders run in turn within\n"
              "each repeat; ratio = raw-OpenMP time / Tessera time per repeat at the same thread count (goal >= 0.97)\n",
              n, repeats);
  RawArrays raw_many(n), raw_one(n);
  StreamSet raw = raw_set(raw_many, n, threads);
  StreamSet raw1 = raw_set(raw_one, n, 1);
  StreamSet serial = tessera_set<Serial>(n);
#if TESSERA_ENABLE_OPENMP
  StreamSet omp = tessera_set<OpenMP>(n);
#endif
#if TESSERA_ENABLE_THREADS
  StreamSet thr = tessera_set<Threads>(n);
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
  for (const auto& k : kernels) {
    std::vector<bench::Contender> cs;
    cs.push_back({k.name, "raw-omp", threads, raw.*k.member, -1});
#if TESSERA_ENABLE_OPENMP
    cs.push_back({k.name, "OpenMP", OpenMP().concurrency(), omp.*k.member, 0});
#endif
#if TESSERA_ENABLE_THREADS
    cs.push_back({k.name, "Threads", Threads().concurrency(), thr.*k.member, 0});
#endif
    const int raw1_index = static_cast<int>(cs.size());
    cs.push_back({k.name, "raw-omp", 1, raw1.*k.member, -1});
    cs.push_back({k.name, "Serial", 1, serial.*k.member, raw1_index});
    auto res = bench::run_paired(cs, 2, repeats);
    bench::print_paired(cs, res, k.bytes_per_element * double(n) * 1e-9, "GB/s");
  }
  return 0;
}
