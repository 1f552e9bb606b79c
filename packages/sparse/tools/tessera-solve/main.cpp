// tessera-solve <A.mtx | lap2d:N | lap3d:N | lap3d27:N> [options]
//
// Factors and solves A x = b with Tessera's sparse solvers and reports the
// sizes, times, rate, the accuracy of the solution and (complete factors)
// the determinant, inertia and condition estimate. b = A * 1 unless --rhs
// gives it. Exit status: 0 solved, 1 numerical failure (the message
// names the column), 2 bad usage or input.
#include <tessera/sparse.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace ts = tessera::sparse;
using Space = tessera::DefaultHostExecutionSpace;

namespace {

const char* kUsage =
    "usage: tessera-solve <A.mtx | lap2d:N | lap3d:N | lap3d27:N> [options]\n"
    "  --rhs B.mtx                    right-hand sides (Matrix Market array or coordinate; default b = A * 1)\n"
    "  --ordering metis|scotch|amd|natural   fill-reducing ordering: METIS or Scotch nested dissection,\n"
    "                                 SuiteSparse's approximate minimum degree, or none (default metis;\n"
    "                                 natural for ic:K)\n"
    "  --factor cholesky|ldlt|ic:K    complete Cholesky, LDL^T (symmetric indefinite) or IC(k) + PCG\n"
    "  --scheduler tasks|levelset     task DAG (default) or bulk-synchronous level sets\n"
    "  --block B                      largest 2D block of a front (default 256)\n"
    "  --threads N                    threads of the host back-end\n"
    "  --repeat R                     factorize R times, report the median (default 1)\n"
    "  --refine S                     at most S steps of iterative refinement, stopping when the backward\n"
    "                                 error reaches eps or stops halving (default 0)\n"
    "  --no-rcond                     skip the condition estimate (it costs a few solves)\n"
    "  --spy FILE.svg                 draw the block layout of the reordered matrix\n"
    "  --json                         one JSON object instead of the table\n"
    "A pattern-only Matrix Market file is read as its graph Laplacian + I. For cholesky and ldlt it also\n"
    "prints log|det(A)| and its sign, the inertia, and rcond, an estimate of 1 / (||A||_1 ||A^-1||_1)\n"
    "(Hager-Higham, as LAPACK's dlacon); --json keys log_abs_det, det_sign, rcond, inertia, and for ldlt\n"
    "delayed_pivots.\n";

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

long parse_long(const std::string& flag, const std::string& v, long lo) {
  char* end = nullptr;
  errno = 0;
  const long x = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno != 0 || x < lo)
    throw usage_error(flag + " needs an integer >= " + std::to_string(lo) + ", got '" + v + "'");
  return x;
}

struct Args {
  std::string matrix, rhs, spy, factor = "cholesky";
  std::string ordering;  // empty: the factor's default
  ts::Scheduler scheduler = ts::Scheduler::Tasks;
  int block = 256, threads = 0, repeat = 1, refine = 0, ic_level = -1;
  bool json = false, rcond = true;
};

Args parse(int argc, char** argv) {
  Args a;
  std::vector<std::string> pos;
  for (int i = 1; i < argc; ++i) {
    const std::string f = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw usage_error(f + " needs a value");
      return argv[++i];
    };
    if (f == "--rhs") a.rhs = value();
    else if (f == "--ordering") a.ordering = value();
    else if (f == "--factor") a.factor = value();
    else if (f == "--scheduler") a.scheduler = ts::parse_scheduler(value());
    else if (f == "--block") a.block = int(parse_long(f, value(), 8));
    else if (f == "--threads") a.threads = int(parse_long(f, value(), 1));
    else if (f == "--repeat") a.repeat = int(parse_long(f, value(), 1));
    else if (f == "--refine") a.refine = int(parse_long(f, value(), 0));
    else if (f == "--spy") a.spy = value();
    else if (f == "--json") a.json = true;
    else if (f == "--no-rcond") a.rcond = false;
    else if (f == "-h" || f == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (!f.empty() && f[0] == '-') throw usage_error("unknown option " + f);
    else pos.push_back(f);
  }
  if (pos.size() != 1) throw usage_error(pos.empty() ? "no matrix given" : "more than one matrix given");
  a.matrix = pos[0];
  if (a.factor.rfind("ic:", 0) == 0) {
    a.ic_level = int(parse_long("--factor ic:K", a.factor.substr(3), 0));
    if (!a.spy.empty()) throw usage_error("--spy draws the supernodal block layout: use it with --factor cholesky or ldlt");
  } else if (a.factor != "cholesky" && a.factor != "ldlt") {
    throw usage_error("--factor must be cholesky, ldlt or ic:K, got '" + a.factor + "'");
  }
  if (!a.ordering.empty()) (void)ts::parse_ordering(a.ordering);
  return a;
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
Accuracy accuracy(const ts::CrsMatrix<double>& A, const std::vector<double>& x, const std::vector<double>& b,
                  std::int64_t nrhs) {
  const std::int64_t n = A.num_rows();
  const double anorm = A.norm_inf();
  std::vector<double> ax(n);
  Accuracy acc;
  for (std::int64_t c = 0; c < nrhs; ++c) {
    A.multiply(x.data() + c * n, ax.data());
    double r2 = 0, b2 = 0, rinf = 0, xinf = 0, binf = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const double r = b[i + c * n] - ax[i];
      r2 += r * r;
      b2 += b[i + c * n] * b[i + c * n];
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

}  // namespace

int main(int argc, char** argv) {
  Args a;
  try {
    a = parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera-solve: %s\n%s", e.what(), kUsage);
    return 2;
  }
  tessera::InitializationSettings settings;
  if (a.threads > 0) settings.set_num_threads(a.threads);
  tessera::ScopeGuard guard(settings);
  const int threads = Space().concurrency();

  ts::CrsMatrix<double> A;
  std::vector<double> b;
  std::int64_t nrhs = 1;
  try {
    A = ts::make_matrix<double>(a.matrix);
    const std::int64_t n = A.num_rows();
    if (!a.rhs.empty()) {
      auto d = ts::read_dense_matrix_market(a.rhs);
      if (d.rows != n)
        throw ts::sparse_error(a.rhs + ": " + std::to_string(d.rows) + " rows of right-hand sides for a matrix of order " +
                               std::to_string(n));
      nrhs = std::max<std::int64_t>(d.cols, 1);
      b = std::move(d.values);
      b.resize(std::size_t(n * nrhs), 0.0);
    } else {
      b.assign(n, 0.0);
      std::vector<double> ones(n, 1.0);
      A.multiply(ones.data(), b.data());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera-solve: %s\n", e.what());
    return 2;
  }
  const std::int64_t n = A.num_rows();
  std::vector<double> x(std::size_t(n * nrhs), 0.0);
  const bool show_progress = !a.json && n >= 200000;

  double analyze_s = 0, factorize_s = 0, solve_s = 0, nnz_l = 0, flops = 0;
  int iterations = 0, refinement_steps = 0;
  ts::Inertia inertia;
  ts::LogDeterminant log_det;
  double rcond = -1;  // -1: not estimated
  std::int64_t delayed_pivots = 0;
  std::string ordering_name;
  try {
    if (a.ic_level >= 0) {
      ts::IncompleteOptions io;
      io.level = a.ic_level;
      io.ordering = a.ordering.empty() ? ts::Ordering::Natural : ts::parse_ordering(a.ordering);
      ordering_name = ts::to_string(io.ordering);
      ts::IncompleteCholesky<double, Space> ic(io);
      ic.analyze(A);
      analyze_s = ic.analyze_seconds();
      std::vector<double> times;
      for (int r = 0; r < a.repeat; ++r) {
        ic.factorize(A);
        times.push_back(ic.factorize_seconds());
      }
      factorize_s = median(times);
      nnz_l = double(ic.nnz_l());
      flops = ic.flops();
      for (std::int64_t c = 0; c < nrhs; ++c) {
        auto res = ts::pcg<Space>(A, b.data() + c * n, x.data() + c * n, ic, {1e-12, 20000});
        iterations = std::max(iterations, res.iterations);
        solve_s += res.seconds;
        if (!res.converged)
          std::fprintf(stderr, "tessera-solve: PCG stopped after %d iterations at relative residual %.3e\n",
                       res.iterations, res.relative_residual);
      }
    } else {
      ts::Options opt;
      opt.factorization = a.factor == "ldlt" ? ts::Factorization::LDLt : ts::Factorization::Cholesky;
      opt.ordering = a.ordering.empty() ? ts::Ordering::Metis : ts::parse_ordering(a.ordering);
      opt.scheduler = a.scheduler;
      opt.max_block = a.block;
      opt.refinement_steps = a.refine;
      ordering_name = ts::to_string(opt.ordering);
      ts::Cholesky<double, Space> chol(opt);
      if (show_progress) std::fprintf(stderr, "tessera-solve: analyzing (%s ordering, n = %lld)...\n", ordering_name.c_str(), (long long)n);
      chol.analyze(A);
      analyze_s = chol.stats().analyze_seconds;
      if (!a.spy.empty()) ts::write_block_layout_svg(a.spy, chol.symbolic(), a.block);
      std::vector<double> times;
      for (int r = 0; r < a.repeat; ++r) {
        if (show_progress) std::fprintf(stderr, "tessera-solve: factorizing (%d of %d)...\n", r + 1, a.repeat);
        chol.factorize(A);
        times.push_back(chol.stats().factorize_seconds);
      }
      factorize_s = median(times);
      chol.solve(x.data(), b.data(), nrhs);
      solve_s = chol.stats().solve_seconds;
      refinement_steps = chol.stats().refinement_steps_taken;
      nnz_l = chol.stats().nnz_l;
      flops = chol.stats().flops;
      inertia = chol.inertia();
      log_det = chol.log_determinant();
      delayed_pivots = chol.stats().delayed_pivots;
      if (a.rcond) rcond = chol.rcond();
    }
  } catch (const ts::factorization_error& e) {
    std::fprintf(stderr, "tessera-solve: %s: %s\n", a.matrix.c_str(), e.what());
    return 1;
  } catch (const tessera::graph::io_error& e) {
    std::fprintf(stderr, "tessera-solve: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera-solve: %s: %s\n", a.matrix.c_str(), e.what());
    return 2;
  }
  const Accuracy acc = accuracy(A, x, b, nrhs);
  const double gflops = factorize_s > 0 ? flops / factorize_s * 1e-9 : 0;
  const char* scheduler = a.ic_level >= 0 ? "levelset" : ts::to_string(a.scheduler);
  if (a.json) {
    std::printf("{\"n\": %lld, \"nnz_a\": %lld, \"nnz_l\": %.0f, \"flops\": %.6g, \"ordering\": \"%s\", \"factor\": \"%s\", "
                "\"scheduler\": \"%s\", \"threads\": %d, \"analyze_s\": %.6g, \"factorize_s\": %.6g, \"solve_s\": %.6g, "
                "\"gflops\": %.6g, \"residual\": %.3e, \"backward_error\": %.3e, \"iterations\": %d",
                (long long)n, (long long)A.nnz(), nnz_l, flops, ordering_name.c_str(), a.factor.c_str(), scheduler, threads,
                analyze_s, factorize_s, solve_s, gflops, acc.residual, acc.backward_error, iterations);
    if (a.ic_level < 0) {
      std::printf(", \"log_abs_det\": %.17g, \"det_sign\": %d", log_det.log_abs, log_det.sign);
      if (rcond >= 0) std::printf(", \"rcond\": %.6e", rcond);
      std::printf(", \"inertia\": {\"positive\": %lld, \"negative\": %lld, \"zero\": %lld}", (long long)inertia.positive,
                  (long long)inertia.negative, (long long)inertia.zero);
      if (a.refine > 0) std::printf(", \"refinement_steps\": %d", refinement_steps);
    }
    if (a.factor == "ldlt") std::printf(", \"delayed_pivots\": %lld", (long long)delayed_pivots);
    std::printf("}\n");
  } else {
    std::printf("matrix          %s\n", a.matrix.c_str());
    std::printf("n               %lld\nnnz(A)          %lld\nnnz(L)          %.0f\nflops           %.4g\n", (long long)n,
                (long long)A.nnz(), nnz_l, flops);
    std::printf("ordering        %s\nfactor          %s\nscheduler       %s\nthreads         %d\n", ordering_name.c_str(),
                a.factor.c_str(), scheduler, threads);
    std::printf("analyze         %.4f s\nfactorize       %.4f s%s\nsolve           %.4f s\n", analyze_s, factorize_s,
                a.repeat > 1 ? " (median)" : "", solve_s);
    std::printf("GFLOP/s         %.2f\nresidual        %.3e  ||b - Ax|| / ||b||\nbackward error  %.3e  ||b - Ax|| / (||A|| ||x|| + ||b||)\n",
                gflops, acc.residual, acc.backward_error);
    if (a.ic_level >= 0) std::printf("PCG iterations  %d\n", iterations);
    if (a.ic_level < 0) {
      if (a.refine > 0) std::printf("refinement      %d steps\n", refinement_steps);
      std::printf("log|det(A)|     %.10g  (sign %+d)\n", log_det.log_abs, log_det.sign);
      std::printf("inertia         %lld positive, %lld negative, %lld zero\n", (long long)inertia.positive,
                  (long long)inertia.negative, (long long)inertia.zero);
      if (rcond >= 0) std::printf("rcond           %.3e  1 / (||A||_1 ||A^-1||_1), estimated\n", rcond);
    }
    if (a.factor == "ldlt") std::printf("delayed pivots  %lld\n", (long long)delayed_pivots);
  }
  return 0;
}
