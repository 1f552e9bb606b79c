// CSR sparse matrix-vector product y = A x on the 5-point 2-D Laplacian,
// written with a TeamPolicy (a team takes a block of rows; threads take rows;
// vector lanes take a row's entries) against the row loop in raw OpenMP.
// Rate in GFLOP/s (2 flops per stored entry), median of repeats.
//
//   bench_spmv [--grid N] [--repeats R] [--json] [--tessera-num-threads=N]
#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/openmp.hpp>
#include <tessera/bench/report.hpp>
#include <tessera/core.hpp>

#include <omp.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
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

// Sets up the matrix in Space (first touch on Space's threads) and returns
// the timed kernel; `checksum` reads sum(y) after it ran.
template <class Space>
std::function<void()> tessera_spmv(const Csr& host, std::function<double()>* checksum) {
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
  *checksum = [=] {
    double s = 0;
    parallel_reduce(
        RangePolicy<Space>(0, rows), [=](int i, double& acc) { acc += y(i); }, s);
    return s;
  };
  return [=] {
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
  };
}

// The raw-OpenMP twin; owns its arrays until the returned kernel is destroyed.
struct RawSpmv {
  long* row_ptr;
  int* col;
  double *val, *x, *y;
  int rows;
  ~RawSpmv() {
    std::free(row_ptr);
    std::free(col);
    std::free(val);
    std::free(x);
    std::free(y);
  }
};

std::function<void()> raw_spmv(const Csr& host, int threads, std::function<double()>* checksum) {
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
  // Built in place: a temporary RawSpmv would free the arrays on destruction.
  std::shared_ptr<RawSpmv> owner(new RawSpmv{row_ptr, col, val, x, y, rows});
  *checksum = [owner] {
    double s = 0;
    for (int i = 0; i < owner->rows; ++i) s += owner->y[i];
    return s;
  };
  return [owner, threads] {
    const int rows = owner->rows;
    const long* row_ptr = owner->row_ptr;
    const int* col = owner->col;
    const double *val = owner->val, *x = owner->x;
    double* y = owner->y;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int i = 0; i < rows; ++i) {
      double sum = 0;
      for (long k = row_ptr[i]; k < row_ptr[i + 1]; ++k) sum += val[k] * x[col[k]];
      y[i] = sum;
    }
  };
}

}  // namespace

int main(int argc, char* argv[]) {
  bench::Cli cli("tessera_bench_spmv", "CSR SpMV on a 2-D Laplacian: Tessera TeamPolicy against a raw OpenMP row loop.",
                 20);
  int grid = 2048;
  cli.app().add_option("--grid", grid, "grid points per side (grid^2 rows)")->check(tools::integer(2, 1 << 15));
  if (auto status = cli.parse(argc, argv)) return *status;
  ScopeGuard guard(cli.settings());
  const int repeats = cli.repeats;
  const bool json = cli.json;
  Csr a = laplacian_2d(grid);
  const double gflop = 2.0 * double(a.col.size()) * 1e-9;
  const int threads = DefaultHostExecutionSpace().concurrency();
  if (!json)
    std::printf(
        "# CSR SpMV, 2-D Laplacian %d x %d (%d rows, %zu entries), %d repeats, GFLOP/s (median, min, max);\n"
        "# contenders run in turn within each repeat; ratio = raw-OpenMP time / Tessera TeamPolicy time per\n"
        "# repeat at the same thread count (goal >= 0.95)\n",
        grid, grid, a.rows, a.col.size(), repeats);
  const bench::Report report("spmv", json);
  std::vector<std::function<double()>> sums(5);
  std::vector<bench::Contender> cs;
  cs.push_back(
      {"raw OpenMP", raw_spmv(a, threads, &sums[0]), [threads] { return bench::omp_threads_ran(threads); }});
#if TESSERA_ENABLE_OPENMP
  cs.push_back({"tessera OpenMP", tessera_spmv<OpenMP>(a, &sums[cs.size()]),
                [] { return OpenMP().concurrency(); }, 0});
#endif
#if TESSERA_ENABLE_THREADS
  cs.push_back({"tessera Threads", tessera_spmv<Threads>(a, &sums[cs.size()]),
                [] { return Threads().concurrency(); }, 0});
#endif
  const int raw1 = static_cast<int>(cs.size());
  cs.push_back(
      {"raw OpenMP, 1 thread", raw_spmv(a, 1, &sums[cs.size()]), [] { return bench::omp_threads_ran(1); }});
  cs.push_back({"tessera Serial", tessera_spmv<Serial>(a, &sums[cs.size()]), [] { return 1; }, raw1});
  bench::InterleaveOptions opt;
  opt.warmup = 2;
  opt.repeats = repeats;
  const bench::Measure rate{"GFLOP/s", gflop, 1, false, false};
  report.add("spmv", rate, cs, bench::run_interleaved(cs, opt));
  for (std::size_t i = 1; i < cs.size(); ++i)
    if (sums[i]() != sums[0]())
      std::fprintf(stderr, "WARNING: %s checksum %.17g differs from the raw loop's %.17g\n",
                   cs[i].name.c_str(), sums[i](), sums[0]());
  return 0;
}
