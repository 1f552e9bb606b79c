// Tiled dense Cholesky on the task DAG against multithreaded OpenBLAS dpotrf.
// Right-looking, lower: for each k, POTRF(k,k); TRSM(i,k) for i > k;
// SYRK(i,i) / GEMM(i,j) updates for k < j <= i. Every tile kernel is a
// single-threaded OpenBLAS call (openblas_set_num_threads(1) while the DAG
// runs); each task waits on a when_all of the last writers of the tiles it
// touches. POTRF and TRSM (the critical path) run at High priority.
// Tiles are stored contiguously (column-major nb x nb each). The two
// contenders run in turn within each repeat (tessera::bench::run_interleaved);
// copying the input matrix in and setting OpenBLAS's thread count happen
// before each run, untimed. Ratio: Tessera's time / OpenBLAS's time per repeat.
//   bench_tiled_cholesky [--n 4096] [--nb 256] [--repeats 5] [--json] --tessera-num-threads=2
#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/report.hpp>

#include <tessera/tasking.hpp>

#include <cblas.h>
#include <lapacke.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

extern "C" void openblas_set_num_threads(int);
extern "C" int openblas_get_num_threads();

namespace {

using Space = tessera::Threads;
using Sched = tessera::TaskScheduler<Space>;
using Member = Sched::member_type;
using Future = tessera::BasicFuture<void, Sched>;

struct Tiles {
  int n, nb, nt;
  std::vector<double> data;
  Tiles(int n_, int nb_) : n(n_), nb(nb_), nt(n_ / nb_), data(std::size_t(n_) * n_) {}
  double* tile(int i, int j) { return data.data() + (std::size_t(j) * nt + i) * std::size_t(nb) * nb; }
};

// Symmetric positive definite: random in [0, 1) plus n on the diagonal.
std::vector<double> make_spd(int n) {
  std::mt19937_64 gen(12345);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> a(std::size_t(n) * n);
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      const double v = u(gen) + (i == j ? double(n) : 0.0);
      a[std::size_t(j) * n + i] = v;
      a[std::size_t(i) * n + j] = v;
    }
  return a;
}

void to_tiles(const std::vector<double>& a, Tiles& t) {
  for (int tj = 0; tj < t.nt; ++tj)
    for (int ti = 0; ti < t.nt; ++ti)
      for (int j = 0; j < t.nb; ++j)
        for (int i = 0; i < t.nb; ++i)
          t.tile(ti, tj)[std::size_t(j) * t.nb + i] = a[std::size_t(tj * t.nb + j) * t.n + ti * t.nb + i];
}

// Spawns the whole DAG from the host and runs it.
void tiled_cholesky(Sched& sched, Tiles& t) {
  const int nt = t.nt, nb = t.nb;
  std::vector<Future> last(std::size_t(nt) * nt);  // last writer of each tile
  auto at = [&](int i, int j) -> Future& { return last[std::size_t(j) * nt + i]; };
  auto after = [&](std::initializer_list<Future> deps) {
    std::vector<Future> v(deps);
    return sched.when_all(v);
  };
  auto spawn = [&](const Future& dep, tessera::TaskPriority p, auto body) {
    return dep.is_null() ? Future(tessera::host_spawn(tessera::TaskSingle(sched, p), body))
                         : Future(tessera::host_spawn(tessera::TaskSingle(dep, p), body));
  };
  for (int k = 0; k < nt; ++k) {
    double* akk = t.tile(k, k);
    at(k, k) = spawn(at(k, k), tessera::TaskPriority::High, [akk, nb](Member&) {
      if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', nb, akk, nb) != 0)
        throw std::runtime_error("not positive definite");
    });
    for (int i = k + 1; i < nt; ++i) {
      double* aik = t.tile(i, k);
      at(i, k) = spawn(after({at(k, k), at(i, k)}), tessera::TaskPriority::High, [akk, aik, nb](Member&) {
        cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, nb, nb, 1.0, akk, nb,
                    aik, nb);
      });
    }
    for (int i = k + 1; i < nt; ++i) {
      double* aik = t.tile(i, k);
      for (int j = k + 1; j <= i; ++j) {
        double* ajk = t.tile(j, k);
        double* aij = t.tile(i, j);
        if (i == j) {
          at(i, i) =
              spawn(after({at(i, k), at(i, i)}), tessera::TaskPriority::Regular, [aik, aij, nb](Member&) {
                cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, nb, nb, -1.0, aik, nb, 1.0, aij, nb);
              });
        } else {
          at(i, j) = spawn(after({at(i, k), at(j, k), at(i, j)}), tessera::TaskPriority::Regular,
                           [aik, ajk, aij, nb](Member&) {
                             cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, nb, nb, nb, -1.0, aik, nb,
                                         ajk, nb, 1.0, aij, nb);
                           });
        }
      }
    }
  }
  last.clear();
  tessera::wait(sched);
}

}  // namespace

int main(int argc, char* argv[]) {
  namespace tools = tessera::tools;
  tessera::bench::Cli cli("bench_tiled_cholesky", "Tiled Cholesky on the task DAG against multithreaded OpenBLAS dpotrf.",
                          5);
  int n = 4096, nb = 256;
  cli.app().add_option("--n", n, "matrix order (a multiple of --nb)")->check(tools::integer(1, 1 << 16));
  cli.app().add_option("--nb", nb, "tile size")->check(tools::integer(1, 1 << 16));
  if (auto status = cli.parse(argc, argv)) return *status;
  if (n % nb != 0)
    return cli.fail("--n " + std::to_string(n) + " is not a multiple of --nb " + std::to_string(nb));
  tessera::initialize(cli.settings());
  const int repeats = cli.repeats;
  const bool json = cli.json;
  const int threads = Space().concurrency();
  const double flops = double(n) * n * n / 3.0;
  const std::vector<double> a = make_spd(n);
  if (!json)
    std::printf(
        "# Cholesky n = %d, tile %d, %d threads; GFLOP/s = n^3/3 / s; %d repeats, contenders interleaved\n",
        n, nb, threads, repeats);
  const tessera::bench::Report report("tiled_cholesky", json);

  Sched sched(Sched::memory_space(), std::size_t(16) << 20);
  Tiles t(n, nb);
  std::vector<double> ref;
  int blas_threads = 0;
  int status = 0;
  std::vector<tessera::bench::Contender> cs;
  // Tessera: tile kernels are single-threaded; the DAG provides the parallelism.
  cs.push_back({"tessera tiled DAG", [&] { tiled_cholesky(sched, t); }, [] { return Space().concurrency(); },
                -1,
                [&] {
                  openblas_set_num_threads(1);
                  to_tiles(a, t);
                }});
  // Reference: multithreaded OpenBLAS on the column-major matrix.
  cs.push_back({"OpenBLAS dpotrf (threaded)",
                [&] {
                  if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, ref.data(), n) != 0) status = 2;
                  blas_threads = openblas_get_num_threads();
                },
                [&] { return blas_threads; }, 0,
                [&] {
                  openblas_set_num_threads(threads);
                  ref = a;
                }});
  tessera::bench::InterleaveOptions opt;
  opt.repeats = repeats;
  const tessera::bench::Measure rate{"GFLOP/s", flops, 1e-9, false, false};
  report.add("cholesky n=" + std::to_string(n) + " nb=" + std::to_string(nb), rate, cs,
             tessera::bench::run_interleaved(cs, opt));
  if (status != 0) {
    std::fprintf(stderr, "bench_tiled_cholesky: OpenBLAS dpotrf failed (matrix not positive definite?)\n");
    return status;
  }
  // Check: the tiled factor equals OpenBLAS's (lower triangle), both from the last repeat.
  double maxdiff = 0;
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      const double v = t.tile(i / nb, j / nb)[std::size_t(j % nb) * nb + i % nb];
      maxdiff = std::max(maxdiff, std::fabs(v - ref[std::size_t(j) * n + i]));
    }
  if (!json)
    std::printf("# max |L_tiled - L_openblas| = %.3e; %llu tasks\n", maxdiff,
                (unsigned long long)sched.statistics().spawned);
  tessera::finalize();
  if (maxdiff >= 1e-8 * n) {
    std::fprintf(stderr, "bench_tiled_cholesky: tiled factor differs from OpenBLAS's by %.3e\n", maxdiff);
    return 3;
  }
  return 0;
}
