// Tiled dense Cholesky on the task DAG against the same DAG on oneTBB and
// Taskflow, and against multithreaded OpenBLAS dpotrf.
// Right-looking, lower: for each k, POTRF(k,k); TRSM(i,k) for i > k;
// SYRK(i,i) / GEMM(i,j) updates for k < j <= i. Every tile kernel is a
// single-threaded OpenBLAS call (openblas_set_num_threads(1) while a DAG
// runs); each task waits for the last writers of the tiles it touches (on
// Tessera a when_all of their futures). POTRF and TRSM (the critical path) run
// at high priority on every task library that has priorities.
// The task-library peers, as their users write a static DAG (built inside the
// timed region, as Tessera spawns its DAG there):
//  - oneTBB: a flow graph, a continue_node per tile operation (node priority 1
//    for POTRF and TRSM), make_edge from each last writer, run in a
//    task_arena of the thread count;
//  - Taskflow (when TASKFLOW_DIR names its source tree): a tf::Taskflow with
//    an emplace per tile operation, precede() from each last writer,
//    TaskPriority::HIGH for POTRF and TRSM, run on an Executor of the thread
//    count.
// Tiles are stored contiguously (column-major nb x nb each); each DAG
// contender factors its own copy. The contenders run in turn within each
// repeat (tessera::bench::run_interleaved); copying the input matrix in and
// setting OpenBLAS's thread count happen before each run, untimed. Every
// factor is checked against OpenBLAS's. Ratio: Tessera's time / the row's time
// per repeat.
//   bench_tiled_cholesky [--n 4096] [--nb 256] [--repeats 5] [--json] --tessera-num-threads=2
#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/report.hpp>

#include <tessera/tasking.hpp>

#include <cblas.h>
#include <lapacke.h>

#if TESSERA_BENCH_HAVE_TBB
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/task_arena.h>
#endif
#if TESSERA_BENCH_HAVE_TASKFLOW
#include <taskflow/taskflow.hpp>
#endif

#include <cmath>
#include <cstdlib>
#include <memory>
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

// The tile kernels every DAG contender runs.
void potrf_tile(double* akk, int nb) {
  if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', nb, akk, nb) != 0) throw std::runtime_error("not positive definite");
}
void trsm_tile(const double* akk, double* aik, int nb) {
  cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, nb, nb, 1.0, akk, nb, aik, nb);
}
void syrk_tile(const double* aik, double* aii, int nb) {
  cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, nb, nb, -1.0, aik, nb, 1.0, aii, nb);
}
void gemm_tile(const double* aik, const double* ajk, double* aij, int nb) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, nb, nb, nb, -1.0, aik, nb, ajk, nb, 1.0, aij, nb);
}

// The DAG for a static task-graph library: visit(kind, deps, body) once per
// tile operation in a valid order, deps the nodes of the last writers of the
// tiles it reads and writes (none for a tile not written yet). Node is what
// visit returns; kind says whether it is on the critical path (POTRF, TRSM).
template <class Node, class Visit>
void for_each_tile_task(Tiles& t, Visit&& visit) {
  const int nt = t.nt, nb = t.nb;
  std::vector<Node> last(std::size_t(nt) * nt);
  std::vector<bool> written(std::size_t(nt) * nt, false);
  auto dep = [&](std::vector<Node>& deps, int i, int j) {
    if (written[std::size_t(j) * nt + i]) deps.push_back(last[std::size_t(j) * nt + i]);
  };
  auto wrote = [&](int i, int j, Node node) {
    last[std::size_t(j) * nt + i] = node;
    written[std::size_t(j) * nt + i] = true;
  };
  std::vector<Node> deps;
  for (int k = 0; k < nt; ++k) {
    double* akk = t.tile(k, k);
    deps.clear();
    dep(deps, k, k);
    wrote(k, k, visit(true, deps, [akk, nb] { potrf_tile(akk, nb); }));
    for (int i = k + 1; i < nt; ++i) {
      double* aik = t.tile(i, k);
      deps.clear();
      dep(deps, k, k);
      dep(deps, i, k);
      wrote(i, k, visit(true, deps, [akk, aik, nb] { trsm_tile(akk, aik, nb); }));
    }
    for (int i = k + 1; i < nt; ++i) {
      double* aik = t.tile(i, k);
      for (int j = k + 1; j <= i; ++j) {
        double* ajk = t.tile(j, k);
        double* aij = t.tile(i, j);
        deps.clear();
        dep(deps, i, k);
        if (i != j) dep(deps, j, k);
        dep(deps, i, j);
        if (i == j) wrote(i, i, visit(false, deps, [aik, aij, nb] { syrk_tile(aik, aij, nb); }));
        else wrote(i, j, visit(false, deps, [aik, ajk, aij, nb] { gemm_tile(aik, ajk, aij, nb); }));
      }
    }
  }
}

#if TESSERA_BENCH_HAVE_TBB
void tbb_tiled_cholesky(oneapi::tbb::task_arena& arena, Tiles& t) {
  namespace flow = oneapi::tbb::flow;
  using Node = flow::continue_node<flow::continue_msg>;
  arena.execute([&] {
    flow::graph g;
    std::vector<std::unique_ptr<Node>> nodes;
    std::vector<Node*> roots;
    for_each_tile_task<Node*>(t, [&](bool critical, const std::vector<Node*>& deps, auto body) {
      nodes.push_back(std::make_unique<Node>(
          g,
          [body](const flow::continue_msg&) {
            body();
            return flow::continue_msg();
          },
          critical ? flow::node_priority_t(1) : flow::no_priority));
      Node* node = nodes.back().get();
      for (Node* d : deps) flow::make_edge(*d, *node);
      if (deps.empty()) roots.push_back(node);
      return node;
    });
    for (Node* r : roots) r->try_put(flow::continue_msg());
    g.wait_for_all();
  });
}
#endif

#if TESSERA_BENCH_HAVE_TASKFLOW
void taskflow_tiled_cholesky(tf::Executor& executor, Tiles& t) {
  tf::Taskflow flow;
  for_each_tile_task<tf::Task>(t, [&](bool critical, const std::vector<tf::Task>& deps, auto body) {
    tf::Task task = flow.emplace(body);
    if (critical) task.priority(tf::TaskPriority::HIGH);
    for (tf::Task d : deps) d.precede(task);
    return task;
  });
  executor.run(flow).wait();
}
#endif

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
    at(k, k) = spawn(at(k, k), tessera::TaskPriority::High, [akk, nb](Member&) { potrf_tile(akk, nb); });
    for (int i = k + 1; i < nt; ++i) {
      double* aik = t.tile(i, k);
      at(i, k) = spawn(after({at(k, k), at(i, k)}), tessera::TaskPriority::High,
                       [akk, aik, nb](Member&) { trsm_tile(akk, aik, nb); });
    }
    for (int i = k + 1; i < nt; ++i) {
      double* aik = t.tile(i, k);
      for (int j = k + 1; j <= i; ++j) {
        double* ajk = t.tile(j, k);
        double* aij = t.tile(i, j);
        if (i == j) {
          at(i, i) = spawn(after({at(i, k), at(i, i)}), tessera::TaskPriority::Regular,
                           [aik, aij, nb](Member&) { syrk_tile(aik, aij, nb); });
        } else {
          at(i, j) = spawn(after({at(i, k), at(j, k), at(i, j)}), tessera::TaskPriority::Regular,
                           [aik, ajk, aij, nb](Member&) { gemm_tile(aik, ajk, aij, nb); });
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
#if TESSERA_BENCH_HAVE_TBB
  oneapi::tbb::task_arena arena(threads);
  Tiles t_tbb(n, nb);
  cs.push_back({"oneTBB flow graph", [&] { tbb_tiled_cholesky(arena, t_tbb); }, [&] { return arena.max_concurrency(); },
                0,
                [&] {
                  openblas_set_num_threads(1);
                  to_tiles(a, t_tbb);
                }});
#endif
#if TESSERA_BENCH_HAVE_TASKFLOW
  tf::Executor executor(static_cast<std::size_t>(threads));
  Tiles t_tf(n, nb);
  cs.push_back({"Taskflow", [&] { taskflow_tiled_cholesky(executor, t_tf); },
                [&] { return int(executor.num_workers()); }, 0,
                [&] {
                  openblas_set_num_threads(1);
                  to_tiles(a, t_tf);
                }});
#endif
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
  // Check: every tiled factor equals OpenBLAS's (lower triangle), all from the last repeat.
  double maxdiff = 0;
  auto compare = [&](Tiles& tiles) {
    for (int j = 0; j < n; ++j)
      for (int i = j; i < n; ++i) {
        const double v = tiles.tile(i / nb, j / nb)[std::size_t(j % nb) * nb + i % nb];
        maxdiff = std::max(maxdiff, std::fabs(v - ref[std::size_t(j) * n + i]));
      }
  };
  compare(t);
#if TESSERA_BENCH_HAVE_TBB
  compare(t_tbb);
#endif
#if TESSERA_BENCH_HAVE_TASKFLOW
  compare(t_tf);
#endif
  if (!json)
    std::printf("# max |L_tiled - L_openblas| over the DAG contenders = %.3e; %llu tasks\n", maxdiff,
                (unsigned long long)sched.statistics().spawned);
  tessera::finalize();
  if (maxdiff >= 1e-8 * n) {
    std::fprintf(stderr, "bench_tiled_cholesky: tiled factor differs from OpenBLAS's by %.3e\n", maxdiff);
    return 3;
  }
  return 0;
}
