// CSR sparse matrix-vector product y = A x on the 5-point 2-D Laplacian,
// written with a TeamPolicy (a team takes a block of rows; threads take rows;
// vector lanes take a row's entries) against the row loop in raw OpenMP.
// Rate in GFLOP/s (2 flops per stored entry), median of repeats.
//
//   bench_spmv [--grid N] [--repeats R] [--tessera-num-threads=N]
#include "bench_stats.hpp"

#include <omp.h>

#include <cstdlib>
#include <cstring>
#include <vector>

using namespace tessera;

namespace {

struct Csr {
  std::vector<long> row_ptr;
  std::vector<int> col;
  std::vector<double> val;
  int rows = 0;
};

// 5-point Laplacian on an N x N grid (Dirichlet boundary): 4 on the
// diagonal, -1 for each grid neighbour.
Csr laplacian_2d(int n) {
  Csr a;
  a.rows = n * n;
  a.row_ptr.reserve(a.rows + 1);
  a.row_ptr.push_back(0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      auto add = [&](int c, double v) {
        a.col.push_back(c);
        a.val.push_back(v);
      };
      if (i > 0) add((i - 1) * n + j, -1);
      if (j > 0) add(i * n + j - 1, -1);
      add(i * n + j, 4);
      if (j + 1 < n) add(i * n + j + 1, -1);
      if (i + 1 < n) add((i + 1) * n + j, -1);
      a.row_ptr.push_back(static_cast<long>(a.col.size()));
    }
  }
  return a;
}

template <class Space>
bench::Stats run_tessera(const Csr& host, int repeats, double* checksum) {
  const int rows = host.rows;
  View<long*, Space> row_ptr(view_alloc("row_ptr", WithoutInitializing), rows + 1);
  View<int*, Space> col(view_alloc("col", WithoutInitializing), host.col.size());
  View<double*, Space> val(view_alloc("val", WithoutInitializing), host.val.size());
  View<double*, Space> x("x", rows), y("y", rows);
  // First touch on the executing threads, as the raw loop does.
  parallel_for(RangePolicy<Space>(0, rows), [=, &host](int i) {
    row_ptr(i) = host.row_ptr[i];
    for (long k = host.row_ptr[i]; k < host.row_ptr[i + 1]; ++k) {
      col(k) = host.col[k];
      val(k) = host.val[k];
    }
    x(i) = 1.0 + (i % 7);
  });
  row_ptr(rows) = host.row_ptr[rows];
  const int rows_per_team = 256;
  const int league = (rows + rows_per_team - 1) / rows_per_team;
  TeamPolicy<Space> policy(league, AUTO);
  auto times = bench::time_repeats(2, repeats, [&] {
    parallel_for("spmv", policy, [=](const typename TeamPolicy<Space>::member_type& team) {
      const int first = team.league_rank() * rows_per_team;
      const int last = first + rows_per_team < rows ? first + rows_per_team : rows;
      parallel_for(TeamThreadRange(team, first, last), [&](int i) {
        double sum = 0;
        parallel_reduce(
            ThreadVectorRange(team, row_ptr(i), row_ptr(i + 1)),
            [&](long k, double& acc) { acc += val(k) * x(col(k)); }, sum);
        y(i) = sum;
      });
    });
  });
  double s = 0;
  parallel_reduce(RangePolicy<Space>(0, rows), [=](int i, double& acc) { acc += y(i); }, s);
  *checksum = s;
  return bench::summarize(times);
}

bench::Stats run_raw(const Csr& host, int repeats, int threads, double* checksum) {
  const int rows = host.rows;
  const std::size_t nnz = host.col.size();
  long* row_ptr = static_cast<long*>(std::aligned_alloc(64, ((rows + 1) * sizeof(long) + 63) / 64 * 64));
  int* col = static_cast<int*>(std::aligned_alloc(64, (nnz * sizeof(int) + 63) / 64 * 64));
  double* val = static_cast<double*>(std::aligned_alloc(64, (nnz * sizeof(double) + 63) / 64 * 64));
  double* x = static_cast<double*>(std::aligned_alloc(64, (rows * sizeof(double) + 63) / 64 * 64));
  double* y = static_cast<double*>(std::aligned_alloc(64, (rows * sizeof(double) + 63) / 64 * 64));
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int i = 0; i < rows; ++i) {
    row_ptr[i] = host.row_ptr[i];
    for (long k = host.row_ptr[i]; k < host.row_ptr[i + 1]; ++k) {
      col[k] = host.col[k];
      val[k] = host.val[k];
    }
    x[i] = 1.0 + (i % 7);
    y[i] = 0;
  }
  row_ptr[rows] = host.row_ptr[rows];
  auto times = bench::time_repeats(2, repeats, [&] {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int i = 0; i < rows; ++i) {
      double sum = 0;
      for (long k = row_ptr[i]; k < row_ptr[i + 1]; ++k) sum += val[k] * x[col[k]];
      y[i] = sum;
    }
  });
  double s = 0;
  for (int i = 0; i < rows; ++i) s += y[i];
  *checksum = s;
  std::free(row_ptr);
  std::free(col);
  std::free(val);
  std::free(x);
  std::free(y);
  return bench::summarize(times);
}

}  // namespace

int main(int argc, char* argv[]) {
  ScopeGuard guard(argc, argv);
  int grid = 2048, repeats = 20;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--grid") && i + 1 < argc) grid = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--grid N] [--repeats R] [--tessera-num-threads=N]\n", argv[0]);
      return 2;
    }
  }
  Csr a = laplacian_2d(grid);
  const double gflop = 2.0 * double(a.col.size()) * 1e-9;
  const int threads = DefaultHostExecutionSpace().concurrency();
  std::printf("CSR SpMV, 2-D Laplacian %d x %d (%d rows, %zu entries), GFLOP/s (median, min, max); "
              "ratio = Tessera TeamPolicy / raw OpenMP at the same thread count (goal >= 0.95)\n",
              grid, grid, a.rows, a.col.size());
  bench::print_header("spmv", "GFLOP/s");
  double ref = 0, got = 0;
  bench::Stats raw = bench::to_rate(run_raw(a, repeats, threads, &ref), gflop);
  bench::print_row("spmv", "raw-omp", threads, raw, 0);
  bench::Stats raw1 = bench::to_rate(run_raw(a, std::max(3, repeats / 4), 1, &ref), gflop);
  bench::print_row("spmv", "raw-omp", 1, raw1, 0);
  auto report = [&](const char* name, int nt, const bench::Stats& s) {
    bench::print_row("spmv", name, nt, s, s.median / (nt == 1 ? raw1.median : raw.median));
    if (got != ref) std::printf("  WARNING: checksum %.17g differs from the raw loop's %.17g\n", got, ref);
  };
#if TESSERA_ENABLE_OPENMP
  bench::settle();
  report("OpenMP", OpenMP().concurrency(), bench::to_rate(run_tessera<OpenMP>(a, repeats, &got), gflop));
#endif
#if TESSERA_ENABLE_THREADS
  bench::settle();
  report("Threads", Threads().concurrency(), bench::to_rate(run_tessera<Threads>(a, repeats, &got), gflop));
#endif
  bench::settle();
  report("Serial", 1, bench::to_rate(run_tessera<Serial>(a, std::max(3, repeats / 4), &got), gflop));
  return 0;
}
