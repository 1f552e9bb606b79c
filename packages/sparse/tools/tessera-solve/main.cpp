// tessera-solve <A.mtx | lap2d:N | lap3d:N | lap3d27:N | stokes:N[:delta] | kkt:N:M[:seed] |
//                indef3d:N[:delta] | maglap:N:flux[:shift[:gauge]]> [options] [--tessera-...]
//
// A complex Matrix Market file ("complex hermitian", or "complex general"
// with Hermitian entries) and the magnetic Laplacian maglap:... are solved
// in std::complex<double> (Cholesky A = L L^H, LDL^H), --complex reads any
// other matrix that way; the output has the same keys ("scalar" says which).
//
// Factors and solves A x = b with Tessera's sparse solvers and reports the
// sizes, times, rate, the accuracy of the solution and (complete factors)
// the determinant, inertia and condition estimate. b = A * 1 unless --rhs
// gives it. Exit status: 0 solved, 1 numerical failure (the message
// names the column), 2 bad usage or input. Phases longer than a second
// (loading, analyzing, factorizing, solving) show progress on stderr.
//
// --space picks where a real Cholesky or LDL^T factorization runs: the
// build's default space (Cuda in a CUDA build, the host with a one-line
// notice when no GPU is usable), the default host space, or Cuda. IC(k)
// and complex matrices run on the host. On Cuda the output adds the device's
// name and the device memory the factorization held at its peak.
#include <tessera/core/host_fallback.hpp>
#include <tessera/sparse.hpp>
#include <tessera/tools/cli.hpp>
#include <tessera/tools/json.hpp>
#include <tessera/tools/progress.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ts = tessera::sparse;
using HostExec = tessera::DefaultHostExecutionSpace;

namespace {

const char* kDescription =
    "Factors and solves A x = b and reports sizes, times, rate and accuracy (b = A * 1 unless --rhs).\n"
    "  <matrix>: a Matrix Market file (a pattern-only file is read as its graph Laplacian + I),\n"
    "  or lap2d:N, lap3d:N, lap3d27:N (generated Laplacians), or stokes:N[:delta], kkt:N:M[:seed],\n"
    "  indef3d:N[:delta] (the symmetric indefinite generators of <tessera/sparse/generators.hpp>),\n"
    "  maglap:N:flux[:shift[:gauge]] (complex Hermitian: the 2-D magnetic Laplacian + shift I)\n"
    "Complex matrices (a 'complex hermitian' Matrix Market file, maglap, or any matrix with --complex) are\n"
    "factored as A = L L^H (cholesky) or L D L^H (ldlt) in complex<double>; --rhs is then read as real.\n"
    "For cholesky and ldlt it also prints log|det(A)| and its sign, the inertia, and rcond, an estimate of\n"
    "1 / (||A||_1 ||A^-1||_1) (Hager-Higham, as LAPACK's dlacon); --json keys log_abs_det, det_sign, rcond,\n"
    "inertia, and for ldlt delayed_pivots, delayed_fronts, max_front_growth, factor_entries,\n"
    "two_by_two_pivots, static_pivots.\n"
    "--space: a real cholesky or ldlt runs on the build's default space (Cuda in a CUDA build; the host, with a\n"
    "notice, when no GPU is usable), on the host, or on Cuda; on Cuda the output adds device and\n"
    "device_memory_peak_bytes (factor panels + update matrices at their peak), supernodes, team_fronts\n"
    "(the fronts of at most --small-front-rows rows, factored by teams) and solve_team_fronts (those of at\n"
    "most --solve-small-front-rows rows, solved by teams).\n"
    "Exit status: 0 solved, 1 numerical failure (the message names the column), 2 bad usage or input.";

using tessera::tools::usage_error;

struct Args {
  std::string matrix, rhs, spy, factor = "cholesky", scheduler_name;  // scheduler: empty = the space's default
  std::string space = "default";
  std::string ordering;  // empty: the factor's default
  ts::Scheduler scheduler = ts::Scheduler::Tasks;
  int block = 256, threads = 0, repeat = 1, refine = -1, ic_level = -1;  // refine -1: not given
  int small_front_rows = ts::Options{}.small_front_rows;
  int solve_small_front_rows = ts::Options{}.solve_small_front_rows;
  int dense_streams = ts::Options{}.dense_streams;
  double pivot_tolerance = -1, static_pivot = 0;                           // -1: the factorization's default
  std::string pairing = "off";
  bool json = false, no_rcond = false, complex = false;
};

// Declares the options on cmd; the checks across options follow parsing (check()).
void declare(tessera::tools::Command& cmd, Args& a) {
  namespace tt = tessera::tools;
  auto& app = cmd.app();
  app.add_option("matrix", a.matrix,
                 "A: FILE.mtx, lap2d:N, lap3d:N, lap3d27:N, stokes:N[:delta], kkt:N:M[:seed], indef3d:N[:delta] or "
                 "maglap:N:flux[:shift[:gauge]]")
      ->required();
  app.add_flag("--complex", a.complex,
               "solve in complex<double> (A Hermitian); automatic for complex Matrix Market files and maglap:...");
  app.add_option("--rhs", a.rhs, "right-hand sides (Matrix Market array or coordinate; default b = A * 1)");
  app.add_option("--ordering", a.ordering,
                 "fill-reducing ordering: METIS or Scotch nested dissection, SuiteSparse's approximate minimum "
                 "degree, or none (default metis; natural for ic:K)")
      ->check(tt::one_of({"metis", "scotch", "amd", "natural"}));
  app.add_option("--factor", a.factor, "complete Cholesky, LDL^T (symmetric indefinite) or IC(k) + PCG: cholesky|ldlt|ic:K");
  app.add_option("--scheduler", a.scheduler_name,
                 "task DAG (the host's default) or bulk-synchronous level sets (what Cuda runs)")
      ->check(tt::one_of({"tasks", "levelset"}));
  app.add_option("--space", a.space,
                 "where a real cholesky or ldlt runs: the build's default space (Cuda in a CUDA build), the host, "
                 "or cuda (default: default)")
      ->check(tt::one_of({"default", "host", "cuda"}));
  app.add_option("--block", a.block, "largest 2D block of a front (default 256)")->check(tt::integer(8, 1 << 20));
  app.add_option("--small-front-rows", a.small_front_rows,
                 "on Cuda: fronts of at most N rows are factored by a team of threads each, larger ones by "
                 "cuSOLVER and cuBLAS (default 512; 0: every front by the library)")
      ->check(tt::integer(0, 1 << 30));
  app.add_option("--solve-small-front-rows", a.solve_small_front_rows,
                 "on Cuda: in the solves, fronts of at most N rows are solved by a team of threads each, larger "
                 "ones by cuBLAS (default 2048; 0: every front by the library)")
      ->check(tt::integer(0, 1 << 30));
  app.add_option("--dense-streams", a.dense_streams,
                 "on Cuda: the library fronts of one level are spread over N streams (default 1: one after another)")
      ->check(tt::integer(1, 64));
  app.add_option("--threads", a.threads, "threads of the host back-end (as --tessera-num-threads)")
      ->check(tt::integer(1, 4096));
  app.add_option("--repeat", a.repeat, "factorize R times, report the median (default 1)")->check(tt::integer(1, 1000000));
  app.add_option("--refine", a.refine,
                 "at most S steps of iterative refinement, stopping when the backward error reaches eps or stops "
                 "halving (default 0; 10 with --static-pivot, and for ldlt on Cuda, which pivots inside each front only)")
      ->check(tt::integer(0, 1000));
  app.add_option("--pivot-tolerance", a.pivot_tolerance,
                 "ldlt: the threshold u of the pivot test (default 0.01): |pivot| >= u * the largest other entry of "
                 "its column, or the column is delayed to the parent front; cholesky: report a pivot d <= U |a_jj|")
      ->check(tt::real(0, 0.5));
  app.add_option("--static-pivot", a.static_pivot,
                 "ldlt: a pivot below T max|a_ij| that no parent front can take is replaced by +-T max|a_ij| "
                 "(default 0: reported as a zero pivot); 1e-8 is the usual choice")
      ->check(tt::real(0, 0.999));
  app.add_option("--pairing", a.pairing,
                 "ldlt: pair zero-diagonal variables with a neighbour before ordering (default off: delayed pivoting "
                 "finds the 2x2 pivots)")
      ->check(tt::one_of({"on", "off"}));
  app.add_flag("--no-rcond", a.no_rcond, "skip the condition estimate (it costs a few solves)");
  app.add_option("--spy", a.spy, "draw the block layout of the reordered matrix (an SVG file)");
  app.add_flag("--json", a.json, "one JSON object instead of the table");
}

void check(Args& a) {
  a.scheduler = ts::parse_scheduler(a.scheduler_name.empty() ? "tasks" : a.scheduler_name);
  if (a.factor.rfind("ic:", 0) == 0) {
    const auto k = tessera::tools::to_integer(a.factor.substr(3));
    if (!k || *k < 0 || *k > 1000) throw usage_error("--factor: the level K of ic:K must be in 0..1000, got '" + a.factor + "'");
    a.ic_level = int(*k);
    if (!a.spy.empty()) throw usage_error("--spy draws the supernodal block layout: use it with --factor cholesky or ldlt");
  } else if (a.factor != "cholesky" && a.factor != "ldlt") {
    throw usage_error("--factor: '" + a.factor + "' is not one of cholesky, ldlt, ic:K");
  }
  if (a.factor != "ldlt" && (a.static_pivot > 0 || a.pairing == "on"))
    throw usage_error("--static-pivot and --pairing apply to --factor ldlt");
  if (a.ic_level >= 0 && a.pivot_tolerance >= 0) throw usage_error("--pivot-tolerance applies to --factor cholesky or ldlt");
  if (a.space == "cuda") {
#if !TESSERA_ENABLE_CUDA
    throw usage_error("--space cuda: this tessera-solve was built without CUDA (configure with -DTessera_ENABLE_CUDA=ON)");
#endif
    if (a.ic_level >= 0) throw usage_error("--space cuda factors with --factor cholesky or ldlt; ic:K runs on the host");
    if (a.complex) throw usage_error("--space cuda factors real matrices; a complex one runs on the host");
    if (a.scheduler_name == "tasks")
      throw usage_error("--scheduler tasks runs on the host; Cuda factors level by level (--scheduler levelset)");
    if (a.static_pivot > 0) throw usage_error("--static-pivot is not implemented on Cuda: use --space host");
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

struct Accuracy {
  double residual = 0, backward_error = 0;
};

// Over all right-hand sides: the largest ||b - Ax|| / ||b|| (2-norm) and
// normwise backward error ||b - Ax|| / (||A|| ||x|| + ||b||) (infinity norms).
template <class T>
Accuracy accuracy(const ts::CrsMatrix<T>& A, const std::vector<T>& x, const std::vector<T>& b, std::int64_t nrhs) {
  const std::int64_t n = A.num_rows();
  const double anorm = A.norm_inf();
  std::vector<T> ax(n);
  Accuracy acc;
  for (std::int64_t c = 0; c < nrhs; ++c) {
    A.multiply(x.data() + c * n, ax.data());
    double r2 = 0, b2 = 0, rinf = 0, xinf = 0, binf = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const T r = b[i + c * n] - ax[i];
      r2 += std::norm(r);
      b2 += std::norm(b[i + c * n]);
      rinf = std::max(rinf, std::abs(r));
      xinf = std::max(xinf, std::abs(x[i + c * n]));
      binf = std::max(binf, std::abs(b[i + c * n]));
    }
    acc.residual = std::max(acc.residual, b2 > 0 ? std::sqrt(r2 / b2) : std::sqrt(r2));
    const double denom = anorm * xinf + binf;
    acc.backward_error = std::max(acc.backward_error, denom > 0 ? rinf / denom : rinf);
  }
  return acc;
}

// Is the matrix complex: a maglap spec, or a Matrix Market file whose
// banner says "complex"? (Unreadable files are left to the reader's error.)
bool complex_input(const std::string& matrix) {
  if (matrix.rfind("maglap:", 0) == 0) return true;
  std::ifstream in(matrix);
  std::string banner;
  if (!in || !std::getline(in, banner)) return false;
  for (auto& ch : banner) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return banner.rfind("%%matrixmarket", 0) == 0 && banner.find(" complex ") != std::string::npos;
}

template <class T, class Space>
int solve_matrix(const Args& a, tessera::tools::Progress& progress, int threads);

}  // namespace

int main(int argc, char** argv) {
  tessera::tools::Command cmd("tessera-solve", kDescription);
  Args a;
  declare(cmd, a);
  if (auto status = cmd.parse(argc, argv)) return *status;
  try {
    check(a);
  } catch (const usage_error& e) {
    return cmd.fail(e.what());
  }
  if (a.threads > 0) cmd.settings().set_num_threads(a.threads);
  tessera::ScopeGuard guard(cmd.settings());
  const int threads = HostExec().concurrency();
  tessera::tools::Progress progress("tessera-solve");
  const bool complex = a.complex || complex_input(a.matrix);
  if (complex && a.ic_level >= 0) return cmd.fail("--factor ic:K is real only: use cholesky or ldlt for a complex matrix");
  if (complex && a.space == "cuda") return cmd.fail(a.matrix + " is complex: --space cuda factors real matrices");
  if (complex) return solve_matrix<std::complex<double>, HostExec>(a, progress, threads);
  // Real Cholesky and LDL^T run where --space says; IC(k) runs on the host.
  if (a.space == "host" || a.ic_level >= 0 || (a.space == "default" && a.scheduler_name == "tasks") ||
      (a.space == "default" && a.static_pivot > 0))
    return solve_matrix<double, HostExec>(a, progress, threads);
#if TESSERA_ENABLE_CUDA
  if (a.space == "cuda" && !tessera::default_execution_space_usable()) {
    std::fprintf(stderr, "tessera-solve: --space cuda: no CUDA device (%s)\n",
                 tessera::default_execution_space_unusable_reason().c_str());
    return 2;
  }
#endif
  return tessera::run_on_usable_default_space(
      "tessera-solve", [&]<class Space>() { return solve_matrix<double, Space>(a, progress, threads); });
}

namespace {

// The refinement steps: --refine when given, else 10 where the factor is of
// a nearby matrix or may be far less accurate, else 0. Static pivoting
// solves a nearby matrix, and refinement brings the solution back. LDL^T on
// a GPU pivots inside each front only (no delayed pivots), so on an
// indefinite matrix its factor can be far less accurate than the host's
// (stokes:30: backward error 1e-4 against 2e-15 on an H200). Refinement
// stops as soon as the backward error is eps.
int refinement_steps(const Args& a, bool on_host) {
  if (a.refine >= 0) return a.refine;
  if (a.static_pivot > 0) return 10;
  if (!on_host && a.factor == "ldlt") return 10;
  return 0;
}

template <class T, class Space>
int solve_matrix(const Args& a, tessera::tools::Progress& progress, int threads) {
  constexpr bool on_host = tessera::is_host_execution_space<Space>::value;
  const int refine = refinement_steps(a, on_host);
  ts::CrsMatrix<T> A;
  std::vector<T> b;
  std::int64_t nrhs = 1;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    progress.phase("loading " + a.matrix);
    A = ts::make_matrix<T>(a.matrix);
    const std::int64_t n = A.num_rows();
    if (!a.rhs.empty()) {
      auto d = ts::read_dense_matrix_market(a.rhs, n);  // another row count: refused at its size line
      nrhs = std::max<std::int64_t>(d.cols, 1);
      b.assign(d.values.begin(), d.values.end());
      b.resize(std::size_t(n * nrhs), T(0));
    } else {
      b.assign(n, T(0));
      std::vector<T> ones(n, T(1));
      A.multiply(ones.data(), b.data());
    }
    progress.end();
  } catch (const std::exception& e) {
    progress.end();
    std::fprintf(stderr, "tessera-solve: %s\n", e.what());
    return 2;
  }
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::int64_t n = A.num_rows();
  std::vector<T> x(std::size_t(n * nrhs), T(0));

  double analyze_s = 0, factorize_s = 0, solve_s = 0, nnz_l = 0, flops = 0;
  int iterations = 0, refinement_steps = 0;
  ts::Inertia inertia;
  ts::LogDeterminant log_det;
  double rcond = -1;  // -1: not estimated
  ts::Stats stats;
  std::string ordering_name;
  try {
    if constexpr (std::is_same_v<T, double> && on_host) {
      if (a.ic_level >= 0) {
        ts::IncompleteOptions io;
        io.level = a.ic_level;
        io.ordering = a.ordering.empty() ? ts::Ordering::Natural : ts::parse_ordering(a.ordering);
        ordering_name = ts::to_string(io.ordering);
        ts::IncompleteCholesky<double, Space> ic(io);
        progress.phase("analyzing");
        ic.analyze(A);
        analyze_s = ic.analyze_seconds();
        std::vector<double> times;
        for (int r = 0; r < a.repeat; ++r) {
          progress.phase("factorizing (" + std::to_string(r + 1) + " of " + std::to_string(a.repeat) + ")");
          ic.factorize(A);
          times.push_back(ic.factorize_seconds());
        }
        factorize_s = median(times);
        nnz_l = double(ic.nnz_l());
        flops = ic.flops();
        progress.phase("solving (PCG)");
        for (std::int64_t c = 0; c < nrhs; ++c) {
          auto res = ts::pcg<Space>(A, b.data() + c * n, x.data() + c * n, ic, {1e-12, 20000});
          iterations = std::max(iterations, res.iterations);
          solve_s += res.seconds;
          if (!res.converged)
            std::fprintf(stderr, "tessera-solve: PCG stopped after %d iterations at relative residual %.3e\n",
                         res.iterations, res.relative_residual);
        }
      }
    }
    if (a.ic_level < 0) {
      ts::Options opt;
      opt.factorization = a.factor == "ldlt" ? ts::Factorization::LDLt : ts::Factorization::Cholesky;
      opt.ordering = a.ordering.empty() ? ts::Ordering::Metis : ts::parse_ordering(a.ordering);
      opt.scheduler = on_host ? a.scheduler : ts::Scheduler::LevelSet;
      opt.max_block = a.block;
      opt.small_front_rows = a.small_front_rows;
      opt.solve_small_front_rows = a.solve_small_front_rows;
      opt.dense_streams = a.dense_streams;
      opt.refinement_steps = refine;
      if (a.pivot_tolerance >= 0) {
        if (opt.factorization == ts::Factorization::LDLt) opt.pivot_threshold = a.pivot_tolerance;
        else opt.pivot_tolerance = a.pivot_tolerance;
      }
      opt.static_pivot = a.static_pivot;
      opt.pair_zero_diagonals = a.pairing == "on";
      ordering_name = ts::to_string(opt.ordering);
      ts::Cholesky<T, Space> chol(opt);
      progress.phase("analyzing (" + ordering_name + " ordering)");
      chol.analyze(A);
      analyze_s = chol.stats().analyze_seconds;
      if (!a.spy.empty()) ts::write_block_layout_svg(a.spy, chol.symbolic(), a.block);
      std::vector<double> times;
      for (int r = 0; r < a.repeat; ++r) {
        progress.phase("factorizing (" + std::to_string(r + 1) + " of " + std::to_string(a.repeat) + ")");
        chol.factorize(A);
        times.push_back(chol.stats().factorize_seconds);
      }
      factorize_s = median(times);
      progress.phase("solving");
      chol.solve(x.data(), b.data(), nrhs);
      solve_s = chol.stats().solve_seconds;
      refinement_steps = chol.stats().refinement_steps_taken;
      nnz_l = chol.stats().nnz_l;
      flops = chol.stats().flops;
      inertia = chol.inertia();
      log_det = chol.log_determinant();
      stats = chol.stats();
      if (!a.no_rcond) {
        progress.phase("estimating rcond");
        rcond = chol.rcond();
      }
    }
    progress.end();
  } catch (const ts::factorization_error& e) {
    progress.end();
    std::fprintf(stderr, "tessera-solve: %s: %s\n", a.matrix.c_str(), e.what());
    return 1;
  } catch (const tessera::graph::io_error& e) {
    progress.end();
    std::fprintf(stderr, "tessera-solve: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    progress.end();
    std::fprintf(stderr, "tessera-solve: %s: %s\n", a.matrix.c_str(), e.what());
    return 2;
  }
  const Accuracy acc = accuracy(A, x, b, nrhs);
  const double gflops = factorize_s > 0 ? flops / factorize_s * 1e-9 : 0;
  const char* scheduler = a.ic_level >= 0 || !on_host ? "levelset" : ts::to_string(a.scheduler);
  if (a.json) {
    namespace tt = tessera::tools;
    tt::json j = {{"matrix", a.matrix},
                  {"n", n},
                  {"nnz_a", A.nnz()},
                  {"nnz_l", std::llround(nnz_l)},
                  {"flops", std::llround(flops)},
                  {"ordering", ordering_name},
                  {"factor", a.factor},
                  {"scheduler", scheduler},
                  {"execution_space", Space::name()},
                  {"threads", threads},
                  {"load_seconds", tt::number(load_s)},
                  {"analyze_seconds", tt::number(analyze_s)},
                  {"factorize_seconds", tt::number(factorize_s)},
                  {"solve_seconds", tt::number(solve_s)},
                  {"gflops", tt::number(gflops)},
                  {"residual", tt::number(acc.residual)},
                  {"backward_error", tt::number(acc.backward_error)},
                  {"iterations", iterations},
                  {"scalar", ts::detail::scalar_name<T>()}};
    if (a.ic_level < 0) {
      j["log_abs_det"] = tt::number(log_det.log_abs);
      j["det_sign"] = log_det.sign;
      if (rcond >= 0) j["rcond"] = tt::number(rcond);
      j["inertia"] = {{"positive", inertia.positive}, {"negative", inertia.negative}, {"zero", inertia.zero}};
      if (refine > 0) j["refinement_steps"] = refinement_steps;
    }
    if (a.factor == "ldlt") {
      j["delayed_pivots"] = stats.delayed_pivots;
      j["delayed_fronts"] = stats.delayed_fronts;
      j["max_front_growth"] = stats.max_front_growth;
      j["factor_entries"] = std::llround(stats.factor_entries);
      j["two_by_two_pivots"] = stats.two_by_two_pivots;
      j["static_pivots"] = stats.static_pivots;
    }
    if (a.ic_level < 0) {
      j["peak_factor_bytes"] = stats.peak_factor_bytes;
      j["peak_update_bytes"] = stats.peak_update_bytes;
    }
#if TESSERA_ENABLE_CUDA
    if constexpr (!on_host) {
      j["device"] = tessera::detail::cuda_device_info().name;
      j["device_memory_peak_bytes"] = stats.peak_factor_bytes;
      j["supernodes"] = stats.supernodes;
      j["team_fronts"] = stats.team_fronts;
      j["solve_team_fronts"] = stats.solve_team_fronts;
    }
#endif
    tt::print_line(j);
  } else {
    std::printf("matrix          %s%s\n", a.matrix.c_str(), ts::detail::is_complex_v<T> ? "  (complex Hermitian)" : "");
    std::printf("n               %lld\nnnz(A)          %lld\nnnz(L)          %.0f\nflops           %.4g\n", (long long)n,
                (long long)A.nnz(), nnz_l, flops);
    std::printf("ordering        %s\nfactor          %s\nscheduler       %s\nthreads         %d\n", ordering_name.c_str(),
                a.factor.c_str(), scheduler, threads);
    std::printf("space           %s\n", Space::name());
#if TESSERA_ENABLE_CUDA
    if constexpr (!on_host) {
      std::printf("device          %s, %.1f MiB device memory at the factorization's peak\n",
                  tessera::detail::cuda_device_info().name.c_str(), double(stats.peak_factor_bytes) / (1 << 20));
      std::printf("fronts          %lld, %lld of them factored by teams (at most %d rows), %lld solved by teams "
                  "(at most %d rows)\n",
                  (long long)stats.supernodes, (long long)stats.team_fronts, a.small_front_rows,
                  (long long)stats.solve_team_fronts, a.solve_small_front_rows);
    }
#endif
    std::printf("analyze         %.4f s\nfactorize       %.4f s%s\nsolve           %.4f s\n", analyze_s, factorize_s,
                a.repeat > 1 ? " (median)" : "", solve_s);
    std::printf("GFLOP/s         %.2f\nresidual        %.3e  ||b - Ax|| / ||b||\nbackward error  %.3e  ||b - Ax|| / (||A|| ||x|| + ||b||)\n",
                gflops, acc.residual, acc.backward_error);
    if (a.ic_level >= 0) std::printf("PCG iterations  %d\n", iterations);
    if (a.ic_level < 0) {
      if (refine > 0) std::printf("refinement      %d steps\n", refinement_steps);
      std::printf("log|det(A)|     %.10g  (sign %+d)\n", log_det.log_abs, log_det.sign);
      std::printf("inertia         %lld positive, %lld negative, %lld zero\n", (long long)inertia.positive,
                  (long long)inertia.negative, (long long)inertia.zero);
      if (rcond >= 0) std::printf("rcond           %.3e  1 / (||A||_1 ||A^-1||_1), estimated\n", rcond);
      std::printf("peak memory     %.1f MiB factorization (panels, update buffers live or kept), %.1f MiB update "
                  "matrices\n",
                  double(stats.peak_factor_bytes) / (1 << 20), double(stats.peak_update_bytes) / (1 << 20));
    }
    if (a.factor == "ldlt") {
      std::printf("delayed pivots  %lld, into %lld fronts (at most %lld in one; largest front %lld rows)\n",
                  (long long)stats.delayed_pivots, (long long)stats.delayed_fronts, (long long)stats.max_front_growth,
                  (long long)stats.max_delayed_front_rows);
      std::printf("factor entries  %.0f (%.0f before delays)\n2x2 pivots      %lld\n", stats.factor_entries,
                  stats.stored_l, (long long)stats.two_by_two_pivots);
      if (stats.static_pivots > 0) std::printf("static pivots   %lld\n", (long long)stats.static_pivots);
    }
  }
  return 0;
}

}  // namespace
