// The level-set Cholesky, the code path of Cholesky<double, Cuda>: typed
// over the host back-ends (LevelCholesky<double, Space>: the same driver and
// assembly kernels with OpenBLAS/LAPACKE as the dense backend) and Cuda
// (Cholesky<double, Cuda>: cuBLAS and cuSOLVER; skipped without a GPU).
// Every expected value comes from elsewhere: a textbook dense Cholesky of
// P A P^T, dense LU determinants, the brute-force backward error, matrices
// whose failing column is known by construction.
#include "sparse_test_util.hpp"

#include <tessera/sparse/detail/team_front_kernels.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

using namespace sparse_test;

namespace {

// Cholesky<double, Cuda> on Cuda; on a host space the level-set driver
// itself (Cholesky<double, Host> is the task-DAG solver there).
template <class Space>
using LevelSolver = std::conditional_t<tessera::is_host_execution_space<Space>::value,
                                       ts::detail::LevelCholesky<double, Space>, ts::Cholesky<double, Space>>;

// The diagonal matrix diag(d) (its diagonal stored, zeros included).
ts::CrsMatrix<double> diagonal(const std::vector<double>& d) {
  std::vector<std::int64_t> idx;
  for (std::int64_t i = 0; i < std::int64_t(d.size()); ++i) idx.push_back(i);
  return ts::CrsMatrix<double>::from_triplets(std::int64_t(d.size()), idx, idx, d, ts::Storage::Lower, "diagonal");
}

// A copy of A (its own arrays) with f(row, col, value) as its values.
template <class F>
ts::CrsMatrix<double> with_values(const ts::CrsMatrix<double>& A, F f) {
  const std::int64_t n = A.num_rows(), nnz = A.nnz();
  ts::CrsMatrix<double>::row_map_view rm("rm", std::size_t(n + 1));
  ts::CrsMatrix<double>::index_view ci("ci", std::size_t(nnz));
  ts::CrsMatrix<double>::values_view v("v", std::size_t(nnz));
  for (std::int64_t i = 0; i <= n; ++i) rm(i) = A.row_map()[i];
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k) {
      ci(k) = A.col_idx()[k];
      v(k) = f(i, std::int64_t(ci(k)), A.values()[k]);
    }
  return ts::CrsMatrix<double>(n, rm, ci, v, A.origin() + " (modified)");
}

double solve_backward_error(auto& chol, const ts::CrsMatrix<double>& A) {
  const auto b = rhs_of_ones(A);
  tessera::View<double*, tessera::HostSpace> x("x", A.num_rows());
  tessera::View<const double*, tessera::HostSpace> bv(b.data(), b.size());
  chol.solve(x, bv);
  return backward_error(A, x.data(), b.data());
}


// One front's shapes for the team solve kernels' test.
struct FrontShape {
  std::int64_t m, nc;
};

// team_front_forward (forward = true) or team_front_backward on Space, every
// front a team of one kernel, as a level's fronts are: panels packed one
// after another (m x nc, ld m), each front's x1 an nc x nrhs block at
// leading dimension nc + 3 (the solver's is n), its w mu x nrhs. x and w
// are read and written back (w only by the forward kernel).
template <class Space>
void run_team_solves(const std::vector<FrontShape>& shapes, const std::vector<double>& panels,
                     std::vector<double>& x, std::vector<double>& w, std::int64_t nrhs, bool forward,
                     int team_size) {
  using Mem = typename Space::memory_space;
  using Array = tessera::View<double*, tessera::LayoutLeft, Mem>;
  using Offsets = tessera::View<std::int64_t*, tessera::LayoutLeft, Mem>;
  const std::int64_t fronts = std::int64_t(shapes.size());
  Offsets meta("meta", std::size_t(5 * fronts));
  auto hmeta = tessera::create_mirror_view(meta);
  std::int64_t p = 0, xo = 0, wo = 0;
  for (std::int64_t f = 0; f < fronts; ++f) {
    const auto [m, nc] = shapes[std::size_t(f)];
    hmeta(5 * f) = m, hmeta(5 * f + 1) = nc, hmeta(5 * f + 2) = p, hmeta(5 * f + 3) = xo, hmeta(5 * f + 4) = wo;
    p += m * nc, xo += (nc + 3) * nrhs, wo += (m - nc) * nrhs;
  }
  tessera::deep_copy(meta, hmeta);
  auto upload = [](const std::vector<double>& v, const char* label) {
    Array d(label, std::max<std::size_t>(v.size(), 1));
    if (!v.empty())
      tessera::deep_copy(tessera::subview(d, std::make_pair(std::size_t(0), v.size())),
                         tessera::View<const double*, tessera::LayoutLeft, tessera::HostSpace>(v.data(), v.size()));
    return d;
  };
  const Array dp = upload(panels, "panels"), dx = upload(x, "x"), dw = upload(w, "w");
  const int lanes = std::min(32, tessera::TeamPolicy<Space>::vector_length_max());
  const auto policy = team_size > 0 ? tessera::TeamPolicy<Space>(fronts, team_size, lanes)
                                    : tessera::TeamPolicy<Space>(fronts, tessera::AUTO, lanes);
  using Member = typename tessera::TeamPolicy<Space>::member_type;
  tessera::parallel_for(
      "team front solves", policy, TESSERA_LAMBDA(const Member& t) {
        const std::int64_t f = t.league_rank(), m = meta(5 * f), nc = meta(5 * f + 1);
        const double* panel = dp.data() + meta(5 * f + 2);
        double* x1 = dx.data() + meta(5 * f + 3);
        double* wf = dw.data() + meta(5 * f + 4);
        if (forward) ts::detail::team_front_forward(t, panel, m, nc, x1, nc + 3, nrhs, wf);
        else ts::detail::team_front_backward(t, panel, m, nc, x1, nc + 3, nrhs, wf);
      });
  const auto hx = tessera::create_mirror_view_and_copy(tessera::HostSpace(), dx);
  const auto hw = tessera::create_mirror_view_and_copy(tessera::HostSpace(), dw);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = hx(i);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = hw(i);
}

}  // namespace

template <class Space>
class LevelCholeskyTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(LevelCholeskyTest, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

// Every front by the dense library (small_front_rows 0), every front by a
// team (the largest int), and both in one factorization (16 rows).
constexpr int kAllFrontsToTeams = std::numeric_limits<int>::max();
constexpr int kFrontSplits[] = {0, 16, kAllFrontsToTeams};

TYPED_TEST(LevelCholeskyTest, FactorMatchesDenseCholesky) {
  using Space = TypeParam;
  const ts::CrsMatrix<double> mats[] = {ts::laplacian_2d<double>(9), ts::laplacian_3d<double>(5),
                                        ts::laplacian_3d_27pt<double>(4), random_spd(150, 6, 7)};
  for (const auto& A : mats)
    for (auto ord : {ts::Ordering::Metis, ts::Ordering::Amd, ts::Ordering::Natural})
      for (int split : kFrontSplits) {
        ts::Options opt;
        opt.ordering = ord;
        opt.small_front_rows = split;
        opt.solve_small_front_rows = split;
        LevelSolver<Space> chol(opt);
        chol.factorize(A);
        const std::int64_t n = A.num_rows();
        auto ref = permuted_dense(A, chol.permutation());
        ASSERT_TRUE(dense_cholesky(ref, n));
        const auto lx = chol.factor_values_host();
        const auto l = factor_as_dense(chol.symbolic(), lx.data());
        double err = 0, scale = 0;
        for (std::size_t k = 0; k < l.size(); ++k) {
          err = max_nan(err, std::abs(l[k] - ref[k]));
          scale = std::max(scale, std::abs(ref[k]));
        }
        EXPECT_LE(err, 1e-12 * scale) << A.origin() << " ordering " << ts::to_string(ord) << " split " << split;
        EXPECT_GT(chol.stats().levels, 1) << A.origin();
        // Which fronts the teams took: by the rows of each, from the analysis.
        std::int64_t small = 0;
        for (std::int64_t s = 0; s < chol.symbolic().nsuper; ++s) small += chol.symbolic().nrows(s) <= split;
        EXPECT_EQ(chol.stats().team_fronts, small) << A.origin() << " split " << split;
        EXPECT_EQ(chol.stats().solve_team_fronts, small) << A.origin() << " split " << split;
      }
}

// The same solutions through the teams and through the library, one and
// several right-hand sides, on matrices whose fronts are of every size
// (bcsstk13's root has 330 columns: eleven of the team solves' blocks). The
// factorization's split and the solves' are independent: every pairing.
TYPED_TEST(LevelCholeskyTest, TeamAndLibraryFrontsSolveToBackwardError1e12) {
  using Space = TypeParam;
  const ts::CrsMatrix<double> mats[] = {ts::laplacian_3d<double>(12), ts::laplacian_2d<double>(40),
                                        ts::read_matrix_market<double>(data_file("matrices/bcsstk13.mtx"))};
  struct Split {
    int factor, solve;
  };
  const Split splits[] = {{0, 0},     {16, 16}, {kAllFrontsToTeams, kAllFrontsToTeams}, {0, kAllFrontsToTeams},
                          {kAllFrontsToTeams, 0}, {16, 40}};
  for (const auto& A : mats) {
    const std::int64_t n = A.num_rows(), nrhs = 3;
    std::mt19937_64 gen(5);
    std::uniform_real_distribution<double> val(-1.0, 1.0);
    std::vector<double> b(std::size_t(n * nrhs));
    for (auto& v : b) v = val(gen);
    std::vector<std::vector<double>> answers;
    for (const Split split : splits) {
      const std::string where = A.origin() + " split " + std::to_string(split.factor) + "/" +
                                std::to_string(split.solve);
      ts::Options opt;
      opt.small_front_rows = split.factor;
      opt.solve_small_front_rows = split.solve;
      LevelSolver<Space> chol(opt);
      chol.factorize(A);
      for (const auto& [rows, fronts] : {std::pair{split.factor, chol.stats().team_fronts},
                                        std::pair{split.solve, chol.stats().solve_team_fronts}}) {
        std::int64_t small = 0;
        for (std::int64_t s = 0; s < chol.symbolic().nsuper; ++s) small += chol.symbolic().nrows(s) <= rows;
        EXPECT_EQ(fronts, small) << where;
        if (rows == 16 || rows == 40) {
          EXPECT_GT(fronts, 0) << where;
          EXPECT_LT(fronts, chol.stats().supernodes) << where;
        }
      }
      std::vector<double> x(b.size());
      chol.solve(x.data(), b.data(), nrhs);
      for (std::int64_t c = 0; c < nrhs; ++c)
        EXPECT_LE(backward_error(A, x.data() + c * n, b.data() + c * n), 1e-12) << where << " column " << c;
      EXPECT_LE(solve_backward_error(chol, A), 1e-12) << where;
      answers.push_back(std::move(x));
    }
    // The teams' solutions and the library's differ by rounding only.
    for (std::size_t a = 1; a < answers.size(); ++a) {
      double diff = 0, scale = 0;
      for (std::size_t k = 0; k < b.size(); ++k) {
        diff = max_nan(diff, std::abs(answers[0][k] - answers[a][k]));
        scale = std::max(scale, std::abs(answers[0][k]));
      }
      EXPECT_LE(diff, 1e-8 * scale) << A.origin() << " split pair " << a;
    }
  }
}

// The team solve kernels (detail/team_front_kernels.hpp) against forward and
// back substitution on the host, on fronts whose column counts fall on both
// sides of the kernels' 32-column blocks and on them (1, 31, 32, 33, 64, 70,
// 130), without rows below and with, one and three right-hand sides, at
// team sizes 1 and AUTO. L is random with |L(i, j)| <= 1 / nc off the
// diagonal and a diagonal in [1, 2], so the solutions are of the size of the
// data and a 1e-12 relative bound measures the arithmetic.
TYPED_TEST(LevelCholeskyTest, TeamSolveKernelsMatchSubstitution) {
  using Space = TypeParam;
  std::vector<FrontShape> shapes;
  for (std::int64_t nc : {1, 31, 32, 33, 64, 70, 130})
    for (std::int64_t below : {0, 1, 45}) shapes.push_back({nc + below, nc});
  std::mt19937_64 gen(17);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::vector<double> panels;
  for (const auto [m, nc] : shapes)
    for (std::int64_t j = 0; j < nc; ++j)
      for (std::int64_t i = 0; i < m; ++i)
        panels.push_back(i < j ? std::nan("") : i == j ? 1.5 + 0.5 * val(gen) : val(gen) / double(nc));
  for (std::int64_t nrhs : {1, 3})
    for (int team_size : {1, 0}) {
      std::vector<double> x, w;
      for (const auto [m, nc] : shapes) {
        for (std::int64_t k = 0; k < (nc + 3) * nrhs; ++k) x.push_back(val(gen));
        for (std::int64_t k = 0; k < (m - nc) * nrhs; ++k) w.push_back(val(gen));
      }
      for (bool forward : {true, false}) {
        std::vector<double> xs = x, ws = w;
        run_team_solves<Space>(shapes, panels, xs, ws, nrhs, forward, team_size);
        // The reference, front by front.
        std::int64_t p = 0, xo = 0, wo = 0;
        for (const FrontShape& shape : shapes) {
          // Plain variables: the lambda below captures them (Clang 14 cannot capture a structured binding).
          const std::int64_t m = shape.m, nc = shape.nc, mu = m - nc, ld = nc + 3;
          auto L = [&](std::int64_t i, std::int64_t j) { return panels[std::size_t(p + i + j * m)]; };
          const std::string where = std::string(forward ? "forward" : "backward") + " m " + std::to_string(m) +
                                    " nc " + std::to_string(nc) + " nrhs " + std::to_string(nrhs) + " team " +
                                    std::to_string(team_size);
          for (std::int64_t c = 0; c < nrhs; ++c) {
            std::vector<double> y(static_cast<std::size_t>(nc)), below(static_cast<std::size_t>(mu), 0.0);
            for (std::int64_t i = 0; i < nc; ++i) y[std::size_t(i)] = x[std::size_t(xo + i + c * ld)];
            if (forward) {
              for (std::int64_t i = 0; i < nc; ++i) {
                for (std::int64_t k = 0; k < i; ++k) y[std::size_t(i)] -= L(i, k) * y[std::size_t(k)];
                y[std::size_t(i)] /= L(i, i);
              }
              for (std::int64_t r = 0; r < mu; ++r)
                for (std::int64_t k = 0; k < nc; ++k) below[std::size_t(r)] += L(nc + r, k) * y[std::size_t(k)];
            } else {
              for (std::int64_t k = 0; k < nc; ++k)
                for (std::int64_t r = 0; r < mu; ++r) y[std::size_t(k)] -= L(nc + r, k) * w[std::size_t(wo + r + c * mu)];
              for (std::int64_t i = nc; i-- > 0;) {
                for (std::int64_t k = i + 1; k < nc; ++k) y[std::size_t(i)] -= L(k, i) * y[std::size_t(k)];
                y[std::size_t(i)] /= L(i, i);
              }
            }
            double err = 0, scale = 1e-300;
            for (std::int64_t i = 0; i < nc; ++i) {
              err = max_nan(err, std::abs(xs[std::size_t(xo + i + c * ld)] - y[std::size_t(i)]));
              scale = std::max(scale, std::abs(y[std::size_t(i)]));
            }
            EXPECT_LE(err, 1e-12 * scale) << where << " column " << c;
            // Rows past nc in x's leading dimension are not touched.
            for (std::int64_t i = nc; i < ld; ++i)
              EXPECT_EQ(xs[std::size_t(xo + i + c * ld)], x[std::size_t(xo + i + c * ld)]) << where;
            for (std::int64_t r = 0; r < mu; ++r) {
              const double expect = forward ? below[std::size_t(r)] : w[std::size_t(wo + r + c * mu)];
              EXPECT_NEAR(ws[std::size_t(wo + r + c * mu)], expect, 1e-12 * (1 + std::abs(expect))) << where;
            }
          }
          p += m * nc, xo += (nc + 3) * nrhs, wo += mu * nrhs;
        }
      }
    }
}

// Each level's library fronts over several streams (Options::dense_streams):
// the same factor and the same solutions as one stream, with library fronts
// on every level (small_front_rows 0) and beside the team kernels (16), and
// a refactorization with new values; a matrix that is not positive definite
// still names its column (the first failed pivot is read after the streams
// are joined).
TYPED_TEST(LevelCholeskyTest, LibraryFrontsOnSeveralStreamsGiveTheOneStreamFactor) {
  using Space = TypeParam;
  const ts::CrsMatrix<double> mats[] = {ts::laplacian_3d<double>(12), ts::laplacian_2d<double>(40),
                                        ts::read_matrix_market<double>(data_file("matrices/bcsstk13.mtx"))};
  for (const auto& A : mats)
    for (int split : {0, 16}) {
      std::vector<double> factor[2], solution[2];
      for (int which = 0; which < 2; ++which) {
        ts::Options opt;
        opt.small_front_rows = split;
        opt.dense_streams = which == 0 ? 1 : 3;
        LevelSolver<Space> chol(opt);
        chol.factorize(A);
        // Refactorization with new values (2A) on the same streams, then A again.
        chol.factorize(with_values(A, [](std::int64_t, std::int64_t, double v) { return 2.0 * v; }));
        chol.factorize(A);
        factor[which] = chol.factor_values_host();
        const auto b = rhs_of_ones(A);
        solution[which].assign(b.size(), 0.0);
        chol.solve(solution[which].data(), b.data(), 1);
        EXPECT_LE(backward_error(A, solution[which].data(), b.data()), 1e-12)
            << A.origin() << " split " << split << " streams " << opt.dense_streams;
      }
      ASSERT_EQ(factor[0].size(), factor[1].size());
      // The same calls on the same blocks: equal up to the library's rounding
      // (bit for bit on a host space; Cuda compares with a tolerance).
      double diff = 0, scale = 0;
      for (std::size_t k = 0; k < factor[0].size(); ++k) {
        diff = max_nan(diff, std::abs(factor[0][k] - factor[1][k]));
        scale = std::max(scale, std::abs(factor[0][k]));
      }
      EXPECT_LE(diff, 1e-13 * scale) << A.origin() << " split " << split;
      if constexpr (tessera::is_host_execution_space<Space>::value) {
        EXPECT_EQ(factor[0], factor[1]) << A.origin() << " split " << split;
      }
    }
  // Not positive definite (a(k, k) = -100 in a 2-D Laplacian, as in
  // NotPositiveDefiniteThenUsableAgain): column k is named on 3 streams too,
  // every front through the library; then the SPD matrix factors.
  const auto L = ts::laplacian_2d<double>(20);
  for (std::int64_t bad : {57, 399}) {
    const auto B =
        with_values(L, [&](std::int64_t i, std::int64_t j, double v) { return i == j && i == bad ? -100.0 : v; });
    ts::Options opt;
    opt.small_front_rows = 0;
    opt.dense_streams = 3;
    LevelSolver<Space> chol(opt);
    try {
      chol.factorize(B);
      FAIL() << "no factorization_error for column " << bad;
    } catch (const ts::factorization_error& e) {
      EXPECT_EQ(e.column(), bad) << e.what();
    }
    chol.factorize(L);
    EXPECT_LE(solve_backward_error(chol, L), 1e-12) << "after the failure at column " << bad;
  }
}

TYPED_TEST(LevelCholeskyTest, DenseStreamsOutsideOneTo64AreRefused) {
  using Space = TypeParam;
  for (int bad : {0, -1, 65}) {
    ts::Options opt;
    opt.dense_streams = bad;
    try {
      LevelSolver<Space> chol(opt);
      FAIL() << "dense_streams " << bad << " was accepted";
    } catch (const ts::sparse_error& e) {
      EXPECT_NE(std::string(e.what()).find("dense_streams"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::to_string(bad)), std::string::npos) << e.what();
    }
  }
}

TYPED_TEST(LevelCholeskyTest, NegativeSmallFrontRowsIsRefused) {
  using Space = TypeParam;
  for (bool solve : {false, true}) {
    ts::Options opt;
    (solve ? opt.solve_small_front_rows : opt.small_front_rows) = -1;
    const std::string name = solve ? "solve_small_front_rows" : "small_front_rows";
    try {
      LevelSolver<Space> chol(opt);
      FAIL() << name << " -1 was accepted";
    } catch (const ts::sparse_error& e) {
      EXPECT_NE(std::string(e.what()).find(name + " must be >= 0, got -1"), std::string::npos) << e.what();
    }
  }
}

TYPED_TEST(LevelCholeskyTest, SharedSpdMatricesSolveToBackwardError1e12) {
  using Space = TypeParam;
  for (const char* file : {"matrices/LFAT5.mtx", "matrices/494_bus.mtx", "matrices/bcsstk13.mtx",
                           "matrices/can___24.mtx", "matrices/dwt_992.mtx"}) {
    const auto A = ts::read_matrix_market<double>(data_file(file));
    LevelSolver<Space> chol;
    chol.analyze(A);
    chol.factorize(A);
    EXPECT_LE(solve_backward_error(chol, A), 1e-12) << file;
  }
}

TYPED_TEST(LevelCholeskyTest, LaplaciansSolveToBackwardError1e12) {
  using Space = TypeParam;
  for (const auto& A : {ts::laplacian_2d<double>(60), ts::laplacian_3d<double>(14)}) {
    LevelSolver<Space> chol;
    chol.factorize(A);
    EXPECT_LE(solve_backward_error(chol, A), 1e-12) << A.origin();
    EXPECT_GT(chol.stats().peak_update_bytes, 0u);
  }
}

TYPED_TEST(LevelCholeskyTest, ManyRightHandSidesAndInPlace) {
  using Space = TypeParam;
  const auto A = ts::laplacian_3d<double>(9);
  const std::int64_t n = A.num_rows(), nrhs = 5;
  LevelSolver<Space> chol;
  chol.factorize(A);
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  tessera::View<double**, tessera::LayoutLeft, tessera::HostSpace> b("b", n, nrhs), x("x", n, nrhs);
  for (std::int64_t c = 0; c < nrhs; ++c)
    for (std::int64_t i = 0; i < n; ++i) b(i, c) = val(gen);
  chol.solve(x, tessera::View<const double**, tessera::LayoutLeft, tessera::HostSpace>(b));
  for (std::int64_t c = 0; c < nrhs; ++c) EXPECT_LE(backward_error(A, &x(0, c), &b(0, c)), 1e-12) << "column " << c;
  // In place: x := A^-1 x, column by column the same answer as above.
  std::vector<double> inplace(b.data(), b.data() + n * nrhs);
  chol.solve(inplace.data(), inplace.data(), nrhs);
  double diff = 0;
  for (std::int64_t k = 0; k < n * nrhs; ++k) diff = max_nan(diff, std::abs(inplace[k] - x.data()[k]));
  EXPECT_LE(diff, 1e-13);
}

TYPED_TEST(LevelCholeskyTest, RefactorizationReusesTheAnalysis) {
  using Space = TypeParam;
  const auto A = ts::laplacian_3d<double>(8);
  LevelSolver<Space> chol;
  chol.analyze(A);
  const auto perm = chol.permutation();
  chol.factorize(A);
  EXPECT_LE(solve_backward_error(chol, A), 1e-12);
  // Same pattern, other values: no new analysis.
  const auto A2 = with_values(A, [](std::int64_t i, std::int64_t j, double v) { return i == j ? 3 * v + 1 : 2 * v; });
  chol.factorize(A2);
  EXPECT_FALSE(chol.stats().reanalyzed);
  EXPECT_EQ(chol.permutation(), perm);
  EXPECT_LE(solve_backward_error(chol, A2), 1e-12);
  // Another pattern is refused, and the factor of A2 stays usable.
  const auto other = ts::laplacian_3d<double>(7);
  EXPECT_THROW(chol.factorize(other), ts::analysis_mismatch);
  EXPECT_LE(solve_backward_error(chol, A2), 1e-12);
}

TYPED_TEST(LevelCholeskyTest, LogDeterminantMatchesDenseLu) {
  using Space = TypeParam;
  const auto A = random_spd(120, 6, 3);
  LevelSolver<Space> chol;
  chol.factorize(A);
  const auto ref = dense_log_determinant(A);
  EXPECT_EQ(chol.log_determinant().sign, 1);
  EXPECT_NEAR(chol.log_determinant().log_abs, ref.log_abs, 1e-10 * std::abs(ref.log_abs));
  EXPECT_EQ(chol.inertia().positive, A.num_rows());
}

// A diagonal matrix with one negative entry: the pivot of that column is
// the entry itself, whatever the ordering.
TYPED_TEST(LevelCholeskyTest, NegativeDiagonalNamesItsColumnAndValue) {
  using Space = TypeParam;
  const std::int64_t n = 40, bad = 17;
  std::vector<double> v;
  for (std::int64_t i = 0; i < n; ++i) v.push_back(i == bad ? -3.0 : 1.0 + double(i));
  const auto A = diagonal(v);
  for (int split : {0, kAllFrontsToTeams}) {
    ts::Options opt;
    opt.small_front_rows = split;
    LevelSolver<Space> chol(opt);
    try {
      chol.factorize(A);
      FAIL() << "no factorization_error, split " << split;
    } catch (const ts::factorization_error& e) {
      EXPECT_EQ(e.column(), bad);
      // cuSOLVER's dpotrf (split 0 on Cuda: every front through the
      // library) documents only info, not what it leaves on the diagonal.
      if (tessera::is_host_execution_space<Space>::value || split != 0) EXPECT_EQ(e.value(), -3.0) << "split " << split;
      else EXPECT_FALSE(e.value() > 0) << e.what();
      EXPECT_NE(std::string(e.what()).find("column 18 "), std::string::npos) << e.what();
    }
    EXPECT_FALSE(chol.factorized());
  }
}

// A 2-D Laplacian with a(k, k) = -100: every column eliminated before k has
// an SPD leading block, and k's pivot is at most -100; no later column is
// reached (nothing above k's front runs, and its level's other fronts are
// not below it). Then the solver factors the SPD matrix of the same pattern.
TYPED_TEST(LevelCholeskyTest, NotPositiveDefiniteThenUsableAgain) {
  using Space = TypeParam;
  const auto A = ts::laplacian_2d<double>(20);
  for (std::int64_t bad : {0, 57, 210, 399})
    for (int split : {0, kAllFrontsToTeams}) {
      const auto B =
          with_values(A, [&](std::int64_t i, std::int64_t j, double v) { return i == j && i == bad ? -100.0 : v; });
      ts::Options opt;
      opt.small_front_rows = split;
      LevelSolver<Space> chol(opt);
      chol.analyze(B);
      try {
        chol.factorize(B);
        FAIL() << "no factorization_error for column " << bad;
      } catch (const ts::factorization_error& e) {
        EXPECT_EQ(e.column(), bad);
        // LAPACK and the teams leave the failed pivot d_k on the diagonal;
        // cuSOLVER's dpotrf documents only info, so on Cuda the library's
        // value is whatever it left there: at least not a positive number.
        if (tessera::is_host_execution_space<Space>::value || split != 0) EXPECT_LE(e.value(), -100.0) << split;
        else EXPECT_FALSE(e.value() > 0) << e.what();
        std::ostringstream col;
        col << "column " << bad + 1 << " ";
        EXPECT_NE(std::string(e.what()).find(col.str()), std::string::npos) << e.what();
      }
      EXPECT_THROW(chol.solve(nullptr, nullptr, 1), ts::sparse_error);
      chol.factorize(A);
      EXPECT_LE(solve_backward_error(chol, A), 1e-12) << "after the failure at column " << bad;
    }
}

TYPED_TEST(LevelCholeskyTest, PivotBelowToleranceNamesItsColumn) {
  using Space = TypeParam;
  // [[1, 1], [1, 1 + d]] with d = 2^-46: whichever column is eliminated
  // second has the pivot d (exact in binary), far below 1e-10 |a_jj|.
  const double d = std::ldexp(1.0, -46);
  const auto A = ts::CrsMatrix<double>::from_triplets(2, {0, 1, 1}, {0, 0, 1}, {1.0, 1.0, 1.0 + d}, ts::Storage::Lower,
                                                      "nearly singular");
  ts::Options opt;
  opt.pivot_tolerance = 1e-10;
  LevelSolver<Space> chol(opt);
  chol.analyze(A);
  try {
    chol.factorize(A);
    FAIL() << "no factorization_error";
  } catch (const ts::factorization_error& e) {
    EXPECT_EQ(e.column(), chol.permutation()[1]);
    EXPECT_NEAR(e.value(), d, 1e-3 * d);
    EXPECT_NE(std::string(e.what()).find("pivot tolerance"), std::string::npos) << e.what();
  }
  // Without the tolerance the same matrix factors (its pivots are positive).
  LevelSolver<Space> plain;
  EXPECT_NO_THROW(plain.factorize(A));
}

TYPED_TEST(LevelCholeskyTest, RefinementAndRcond) {
  using Space = TypeParam;
  const auto A = ts::read_matrix_market<double>(data_file("matrices/bcsstk13.mtx"));
  ts::Options opt;
  opt.refinement_steps = 3;
  LevelSolver<Space> chol(opt);
  chol.factorize(A);
  EXPECT_LE(solve_backward_error(chol, A), 1e-14);
  EXPECT_GE(chol.stats().backward_error, 0);
  EXPECT_LE(chol.stats().backward_error, 1e-14);
  // rcond: the estimate is at least the true value and within a factor of 10.
  const auto small = random_spd(80, 6, 5);
  LevelSolver<Space> s;
  s.factorize(small);
  const double truth = 1.0 / (small.norm_inf() * dense_inverse_norm1(small));
  EXPECT_GE(s.rcond(), truth * (1 - 1e-10));
  EXPECT_LE(s.rcond(), 10 * truth);
}

// ---------------------------------------------------------------------------
// LDL^T on the level-set path (Bunch-Kaufman inside each front). The
// references: the closed-form eigenvalues of the Laplacians, dense LAPACK
// (dgesv, dgetrf, dsyev) on the same matrix, the brute-force backward error.

namespace {

ts::Options ldlt_options() {
  ts::Options opt;
  opt.factorization = ts::Factorization::LDLt;
  return opt;
}

// How many eigenvalues of the k^dim grid Laplacian are below `shift` (their
// closed form, grid_laplacian_eigenvalues), checking that none is within
// `gap` of it, so that the sign of each eigenvalue of A - shift I is beyond
// doubt.
std::int64_t laplacian_eigenvalues_below(std::int64_t k, int dim, double shift, double gap = 1e-3) {
  std::int64_t below = 0;
  for (double w : grid_laplacian_eigenvalues(k, -shift, dim)) {
    EXPECT_GT(std::abs(w), gap) << "shift " << shift << " is too close to an eigenvalue";
    if (w < 0) ++below;
  }
  return below;
}

// A - shift I on A's pattern (the Laplacians store their diagonal).
ts::CrsMatrix<double> shifted(const ts::CrsMatrix<double>& A, double shift) {
  return with_values(A, [&](std::int64_t i, std::int64_t j, double v) { return i == j ? v - shift : v; });
}

}  // namespace

TYPED_TEST(LevelCholeskyTest, LdltInertiaOfShiftedLaplaciansIsTheClosedFormCount) {
  using Space = TypeParam;
  struct Case {
    std::int64_t k;
    int dim;
    double shift;
  };
  for (const Case& c : {Case{20, 2, 1.3}, Case{30, 2, 4.01}, Case{9, 3, 2.2}, Case{12, 3, 6.5}})
    for (auto ord : {ts::Ordering::Metis, ts::Ordering::Amd}) {
      const auto L = c.dim == 2 ? ts::laplacian_2d<double>(c.k) : ts::laplacian_3d<double>(c.k);
      const auto A = shifted(L, c.shift);
      const std::int64_t negative = laplacian_eigenvalues_below(c.k, c.dim, c.shift);
      ASSERT_GT(negative, 0);
      auto opt = ldlt_options();
      opt.ordering = ord;
      LevelSolver<Space> ldlt(opt);
      ldlt.factorize(A);
      const auto where = A.origin() + " - " + std::to_string(c.shift) + " I, " + ts::to_string(ord);
      EXPECT_EQ(ldlt.inertia().negative, negative) << where;
      EXPECT_EQ(ldlt.inertia().positive, A.num_rows() - negative) << where;
      EXPECT_EQ(ldlt.inertia().zero, 0) << where;
      EXPECT_EQ(ldlt.log_determinant().sign, negative % 2 == 0 ? 1 : -1) << where;
      EXPECT_EQ(ldlt.stats().delayed_pivots, 0);
      // Bunch-Kaufman's normwise backward error is a modest multiple of
      // n u times the growth of the entries (Higham, Accuracy and Stability,
      // 11.1), not the SPD tests' fixed 1e-12. Measured over 6 runs of the
      // 8 cases on Serial, Threads and OpenMP (the threaded level sets vary
      // from run to run): at most 4.5 n u with OpenBLAS's Cooperlake kernels
      // and 7.9 n u with its Haswell ones (OPENBLAS_CORETYPE=Haswell, which
      // some machines set), 1.4e-12 on lap3d:12 - 6.5 I, where 1e-12 failed
      // 12 runs of 20.
      const double n_u = double(A.num_rows()) * std::numeric_limits<double>::epsilon() / 2;
      EXPECT_LE(solve_backward_error(ldlt, A), 32 * n_u) << where << " (32 n u = " << 32 * n_u << ")";
    }
}

// The level-set solve gives the same bits on every run: fronts of one level
// that share rows below subtract their contributions through a gather in the
// fronts' order, not atomic adds in the threads' order. The matrix and the
// factorization are those whose backward error used to move from run to run
// on Threads and OpenMP (LdltInertiaOfShiftedLaplacians above); Cholesky of
// the unshifted Laplacian too. Several right-hand sides at once, so that the
// columns' offsets in the workspace are exercised.
TYPED_TEST(LevelCholeskyTest, SolvesAndRefactorizationsAreBitwiseIdentical) {
  using Space = TypeParam;
  const auto L = ts::laplacian_3d<double>(12);
  for (bool ldlt : {true, false}) {
    const auto A = ldlt ? shifted(L, 6.5) : L;
    auto opt = ldlt ? ldlt_options() : ts::Options{};
    opt.ordering = ts::Ordering::Amd;
    LevelSolver<Space> solver(opt);
    solver.factorize(A);
    const std::int64_t n = A.num_rows(), nrhs = 3;
    std::vector<double> b(std::size_t(n * nrhs));
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = 1.0 + double(i % 17) / 17.0;
    auto solve = [&] {
      std::vector<double> x(b.size(), 0.0);
      solver.solve(x.data(), b.data(), nrhs);
      return x;
    };
    const std::vector<double> first = solve();
    for (int run = 0; run < 12; ++run) {
      if (run % 4 == 3) solver.factorize(A);  // refactorizations too
      const std::vector<double> again = solve();
      ASSERT_EQ(std::memcmp(again.data(), first.data(), first.size() * sizeof(double)), 0)
          << (ldlt ? "LDL^T" : "Cholesky") << ": run " << run << " differs from the first";
    }
    // A solution, not just a repeated one (the bound of the inertia test above).
    EXPECT_LE(backward_error(A, first.data(), b.data()), 32 * double(n) * std::numeric_limits<double>::epsilon() / 2);
  }
}

TYPED_TEST(LevelCholeskyTest, LdltSolutionMatchesDenseLuAndLogDeterminant) {
  using Space = TypeParam;
  for (std::uint64_t seed : {21u, 22u}) {
    const auto A = random_indefinite(160, seed);
    LevelSolver<Space> ldlt(ldlt_options());
    ldlt.factorize(A);
    const auto b = rhs_of_ones(A);
    std::vector<double> x(b.size());
    ldlt.solve(x.data(), b.data(), 1);
    const auto ref = dense_solve(A, b);
    double err = 0, scale = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      err = max_nan(err, std::abs(x[i] - ref[i]));
      scale = std::max(scale, std::abs(ref[i]));
    }
    EXPECT_LE(err, 1e-9 * scale) << "seed " << seed;
    EXPECT_LE(backward_error(A, x.data(), b.data()), 1e-12) << "seed " << seed;
    const auto det = dense_log_determinant(A);
    EXPECT_EQ(ldlt.log_determinant().sign, det.sign) << "seed " << seed;
    EXPECT_NEAR(ldlt.log_determinant().log_abs, det.log_abs, 1e-10 * std::max(1.0, std::abs(det.log_abs)));
    const auto in = dense_inertia(A);
    EXPECT_EQ(ldlt.inertia().positive, in.positive) << "seed " << seed;
    EXPECT_EQ(ldlt.inertia().negative, in.negative) << "seed " << seed;
  }
}

TYPED_TEST(LevelCholeskyTest, LdltRefactorizesWithNewValuesAndManyRightHandSides) {
  using Space = TypeParam;
  const std::int64_t k = 10;
  const auto L = ts::laplacian_3d<double>(k);
  LevelSolver<Space> ldlt(ldlt_options());
  ldlt.analyze(L);
  const auto perm = ldlt.permutation();
  for (double shift : {0.5, 3.1, 7.3}) {
    const auto A = shifted(L, shift);
    ldlt.factorize(A);
    EXPECT_FALSE(ldlt.stats().reanalyzed);
    EXPECT_EQ(ldlt.permutation(), perm);
    EXPECT_EQ(ldlt.inertia().negative, laplacian_eigenvalues_below(k, 3, shift)) << "shift " << shift;
    const std::int64_t n = A.num_rows(), nrhs = 4;
    std::mt19937_64 gen(std::uint64_t(shift * 10));
    std::uniform_real_distribution<double> val(-1.0, 1.0);
    tessera::View<double**, tessera::LayoutLeft, tessera::HostSpace> b("b", n, nrhs), x("x", n, nrhs);
    for (std::int64_t c = 0; c < nrhs; ++c)
      for (std::int64_t i = 0; i < n; ++i) b(i, c) = val(gen);
    ldlt.solve(x, tessera::View<const double**, tessera::LayoutLeft, tessera::HostSpace>(b));
    for (std::int64_t c = 0; c < nrhs; ++c)
      EXPECT_LE(backward_error(A, &x(0, c), &b(0, c)), 1e-12) << "shift " << shift << " column " << c;
    // One at a time: the same columns. The two solves order their sums
    // differently (one right-hand side against four), so they differ by
    // rounding amplified by A's conditioning, and shift 7.3 lies close to an
    // eigenvalue of the Laplacian: 1.02e-12 relative with OpenBLAS's generic
    // kernels (no FMA; what it picks on a CPU it does not recognize, e.g.
    // OPENBLAS_CORETYPE=Prescott), below 1e-12 with its Haswell and SkylakeX
    // kernels. Both solves are held to a backward error of 1e-12 above; this
    // comparison checks that they solved the same column, which 1e-10 does
    // as well (a wrong column differs at O(1)).
    std::vector<double> one(static_cast<std::size_t>(n));
    ldlt.solve(one.data(), &b(0, 2), 1);
    double diff = 0, scale = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      diff = max_nan(diff, std::abs(one[std::size_t(i)] - x(i, 2)));
      scale = std::max(scale, std::abs(x(i, 2)));
    }
    EXPECT_LE(backward_error(A, one.data(), &b(0, 2)), 1e-12) << "shift " << shift;
    EXPECT_LE(diff, 1e-10 * scale) << "shift " << shift;
  }
}

// A diagonal matrix with a zero at `bad`: that column's pivot is exactly
// zero whatever the ordering; then the same pattern with good values.
TYPED_TEST(LevelCholeskyTest, LdltSingularNamesTheColumnAndStaysUsable) {
  using Space = TypeParam;
  const std::int64_t n = 30, bad = 11;
  std::vector<double> v;
  for (std::int64_t i = 0; i < n; ++i) v.push_back(i == bad ? 0.0 : (i % 3 == 0 ? -1.0 : 1.0) * double(i + 1));
  const auto D = diagonal(v);
  LevelSolver<Space> ldlt(ldlt_options());
  try {
    ldlt.factorize(D);
    FAIL() << "no factorization_error";
  } catch (const ts::factorization_error& e) {
    EXPECT_EQ(e.column(), bad);
    EXPECT_NE(std::string(e.what()).find("column 12 "), std::string::npos) << e.what();
  }
  EXPECT_FALSE(ldlt.factorized());
  EXPECT_THROW(ldlt.solve(nullptr, nullptr, 1), ts::sparse_error);
  const auto good = with_values(D, [&](std::int64_t i, std::int64_t, double x) { return i == bad ? -5.0 : x; });
  ldlt.factorize(good);
  EXPECT_EQ(ldlt.inertia().negative, 11);  // i % 3 == 0 (10 of them) and `bad`
  EXPECT_EQ(ldlt.inertia().positive, n - 11);
  EXPECT_LE(solve_backward_error(ldlt, good), 1e-14);

  // Two equal rows and columns: whichever of columns 1 and 2 is eliminated
  // second has a zero pivot.
  const auto S =
      ts::CrsMatrix<double>::from_triplets(3, {0, 1, 1, 2}, {0, 0, 1, 2}, {1.0, 1.0, 1.0, 5.0}, ts::Storage::Lower);
  LevelSolver<Space> sing(ldlt_options());
  try {
    sing.factorize(S);
    FAIL() << "no factorization_error";
  } catch (const ts::factorization_error& e) {
    EXPECT_TRUE(e.column() == 0 || e.column() == 1) << e.what();
    EXPECT_NE(std::string(e.what()).find("column " + std::to_string(e.column() + 1)), std::string::npos) << e.what();
  }
}

// The host LDL^T (Cholesky<double, Serial>, delayed pivoting) on the
// matrices its tests use: the same inertia. A comparison of two
// implementations, beside the independent references above. hangGlider_2
// has zero diagonals: the level path needs them paired (it has no delayed
// pivots), and without the pairing names a zero pivot.
TYPED_TEST(LevelCholeskyTest, LdltInertiaMatchesTheHostLdlt) {
  using Space = TypeParam;
  const auto H = ts::read_matrix_market<double>(data_file("matrices/hangGlider_2.mtx"));
  std::vector<ts::CrsMatrix<double>> mats = {random_indefinite(200, 11), random_indefinite(200, 12),
                                             ts::read_matrix_market<double>(data_file("matrices/bcsstk13.mtx")), H};
  for (const auto& A : mats) {
    auto opt = ldlt_options();
    opt.pair_zero_diagonals = &A == &mats.back();
    ts::Cholesky<double, tessera::Serial> host(ldlt_options());
    host.factorize(A);
    LevelSolver<Space> ldlt(opt);
    ldlt.factorize(A);
    EXPECT_EQ(ldlt.inertia().positive, host.inertia().positive) << A.origin();
    EXPECT_EQ(ldlt.inertia().negative, host.inertia().negative) << A.origin();
    EXPECT_EQ(ldlt.inertia().zero, host.inertia().zero) << A.origin();
    EXPECT_EQ(ldlt.log_determinant().sign, host.log_determinant().sign) << A.origin();
    EXPECT_NEAR(ldlt.log_determinant().log_abs, host.log_determinant().log_abs,
                1e-9 * std::abs(host.log_determinant().log_abs))
        << A.origin();
    EXPECT_LE(solve_backward_error(ldlt, A), 1e-12) << A.origin();
  }
  // The independent reference for hangGlider_2: its eigenvalues (dsyev).
  const auto expect = dense_inertia(H);
  auto opt = ldlt_options();
  opt.pair_zero_diagonals = true;
  LevelSolver<Space> paired(opt);
  paired.factorize(H);
  EXPECT_EQ(paired.inertia().positive, expect.positive);
  EXPECT_EQ(paired.inertia().negative, expect.negative);
  EXPECT_GT(paired.stats().paired_variables, 0);
  LevelSolver<Space> unpaired(ldlt_options());
  try {
    unpaired.factorize(H);
    FAIL() << "hangGlider_2 factored without pairing or delayed pivots";
  } catch (const ts::factorization_error& e) {
    EXPECT_NE(std::string(e.what()).find("column "), std::string::npos) << e.what();
  }
}

// Refinement runs on the device: the backward error it reports is that of
// the x it returns (measured again here, on the host), a zero right-hand
// side stays exactly zero, an in-place solve gives the same bits, and the
// refined x is no worse than the unrefined one.
TYPED_TEST(LevelCholeskyTest, DeviceRefinementReportsTheBackwardErrorOfItsAnswer) {
  using Space = TypeParam;
  const double eps = std::numeric_limits<double>::epsilon();
  for (bool ldlt : {false, true}) {
    const auto A = ldlt ? shifted(ts::laplacian_3d<double>(8), 3.1)
                        : ts::read_matrix_market<double>(data_file("matrices/bcsstk13.mtx"));
    const std::int64_t n = A.num_rows(), nrhs = 3;
    std::mt19937_64 gen(17);
    std::uniform_real_distribution<double> val(-1.0, 1.0);
    std::vector<double> b(std::size_t(n * nrhs));
    for (std::int64_t i = 0; i < n * nrhs; ++i) b[std::size_t(i)] = i / n == 1 ? 0.0 : val(gen);
    ts::Options opt = ldlt ? ldlt_options() : ts::Options{};
    LevelSolver<Space> plain(opt);
    plain.factorize(A);
    std::vector<double> x0(b.size());
    plain.solve(x0.data(), b.data(), nrhs);
    EXPECT_EQ(plain.stats().refinement_steps_taken, 0);
    EXPECT_EQ(plain.stats().backward_error, -1.0);

    opt.refinement_steps = 4;
    LevelSolver<Space> chol(opt);
    chol.factorize(A);
    std::vector<double> x(b.size());
    chol.solve(x.data(), b.data(), nrhs);
    EXPECT_LE(chol.stats().refinement_steps_taken, 4);
    double worst = 0;
    for (std::int64_t c : {0, 2}) {  // column 1 is zero (its backward error is 0/0)
      const double e = backward_error(A, x.data() + c * n, b.data() + c * n);
      const double e0 = backward_error(A, x0.data() + c * n, b.data() + c * n);
      EXPECT_LE(e, 1e-14) << (ldlt ? "ldlt" : "cholesky") << " column " << c;
      EXPECT_LE(e, std::max(e0, 4 * eps)) << (ldlt ? "ldlt" : "cholesky") << " column " << c;
      worst = std::max(worst, e);
    }
    EXPECT_GE(chol.stats().backward_error, 0);
    EXPECT_LE(chol.stats().backward_error, 1e-14);
    // The same residual summed in another order: equal up to its own rounding.
    EXPECT_LE(std::abs(chol.stats().backward_error - worst), 4 * eps) << (ldlt ? "ldlt" : "cholesky");
    for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(x[std::size_t(n + i)], 0.0) << "row " << i;
    std::vector<double> inplace = b;
    chol.solve(inplace.data(), inplace.data(), nrhs);
    EXPECT_EQ(inplace, x) << (ldlt ? "ldlt" : "cholesky");
  }
}

TYPED_TEST(LevelCholeskyTest, LdltRefusesWhatOnlyTheHostDoes) {
  using Space = TypeParam;
  auto opt = ldlt_options();
  opt.static_pivot = 1e-8;
  EXPECT_THROW(LevelSolver<Space>{opt}, ts::sparse_error);
}

#if TESSERA_ENABLE_CUDA
// Without a GPU, Cholesky<double, Cuda> says why at its first use of the
// device (analyze uploads the structure). On a GPU: skipped.
TEST(LevelCholeskyCuda, WithoutAGpuAnalyzeThrowsTheReason) {
  if (tessera::Cuda::impl_is_available()) GTEST_SKIP() << "a GPU is present";
  ts::Cholesky<double, tessera::Cuda> chol;
  try {
    chol.analyze(ts::laplacian_2d<double>(5));
    FAIL() << "no error without a GPU";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(tessera::Cuda::impl_unavailable_reason()), std::string::npos) << e.what();
  }
}
#endif
