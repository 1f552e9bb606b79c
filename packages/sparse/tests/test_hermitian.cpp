// Complex Hermitian matrices (issue 26, part 5): Cholesky<std::complex<double>>
// (A = L L^H) and LDL^H with threshold pivoting and delayed pivots.
// Expected values come from elsewhere: LAPACK's dense complex routines on
// the dense copy of A (zpotrf/zpotrs for the solution and log-determinant
// of a positive definite A, zheev's eigenvalues for the inertia and
// log-determinant of an indefinite one, zgesv for its solution, zgetri for
// ||A^-1||_1), the closed-form spectrum of the grid Laplacian (a gauge
// transformation changes the entries, not the eigenvalues), and small
// cases worked out by hand (their determinants and pivots in the comments).
#include "complex_test_util.hpp"

#include <cstdio>
#include <string>
#include <vector>

using namespace sparse_test;

template <class Space>
class HermitianTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(HermitianTest, tessera::test::HostExecutionSpaces, tessera::test::SpaceNames);

namespace {

ts::Options options(ts::Factorization f, ts::Scheduler sch, int max_block = 256) {
  ts::Options opt;
  opt.factorization = f;
  opt.scheduler = sch;
  opt.max_block = max_block;
  return opt;
}

template <class Space>
std::vector<cplx> solve(ts::Cholesky<cplx, Space>& s, const std::vector<cplx>& b, std::int64_t nrhs) {
  std::vector<cplx> x(b.size());
  s.solve(x.data(), b.data(), nrhs);
  return x;
}

// The hopping part of the magnetic Laplacian (4 I - A) with a diagonal of
// +-delta, random signs: no 1x1 pivot passes the threshold test until the
// elimination has built the diagonal up, so fronts delay columns (the
// complex counterpart of indefinite_grid_3d).
ts::CrsMatrix<cplx> tiny_diagonal_hopping(std::int64_t nx, double flux, double delta, std::uint64_t seed) {
  auto A = ts::magnetic_laplacian_2d(nx, flux, 0.0, seed);
  std::mt19937_64 gen(seed);
  for (std::int64_t i = 0; i < A.num_rows(); ++i)
    for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k)
      if (A.col_idx()[k] == i) A.values()[k] = cplx(gen() & 1 ? delta : -delta);
  return A;
}

}  // namespace

TYPED_TEST(HermitianTest, MagneticLaplacianIsHermitianWithTheClosedFormSpectrumAtZeroFlux) {
  // The generator itself, against its definition: Hermitian entries of
  // modulus 1 off the diagonal, 4 + shift on it, and at flux 0 (any gauge)
  // the closed-form eigenvalues, here checked with zheev.
  const auto A = ts::magnetic_laplacian_2d(9, 0.0, -1.5, 42);
  const std::int64_t n = A.num_rows();
  ASSERT_EQ(n, 81);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k) {
      const std::int64_t j = A.col_idx()[k];
      EXPECT_EQ(A.values()[k], std::conj(A.at(j, i)));
      if (i == j) {
        EXPECT_EQ(A.values()[k], cplx(2.5));
      } else {
        EXPECT_NEAR(std::abs(A.values()[k]), 1.0, 1e-15);
      }
    }
  auto w = dense_eigenvalues(A);
  auto closed = grid_laplacian_eigenvalues(9, -1.5);
  std::sort(closed.begin(), closed.end());
  for (std::int64_t k = 0; k < n; ++k) EXPECT_NEAR(w[k], closed[k], 1e-12) << k;
  // A field: the flux through one cell is the phase around it.
  const auto B = ts::magnetic_laplacian_2d(4, 0.1);
  const std::int64_t p = 1 + 4 * 1;  // (1, 1); the cell (1..2) x (1..2)
  const cplx around = B.at(p + 1, p) * B.at(p + 5, p + 1) * B.at(p + 4, p + 5) * B.at(p, p + 4);  // four hops
  EXPECT_NEAR(std::arg(around), 2.0 * std::acos(-1.0) * 0.1, 1e-12);
}

TYPED_TEST(HermitianTest, PositiveDefiniteCholeskyMatchesDenseZpotrf) {
  using Space = TypeParam;
  // Shift 0.5 > 0: Hermitian positive definite. nx = 30 (n = 900) in one
  // front per supernode; max_block 32 also factors the large fronts block
  // by block (POTRF / TRSM / HERK / GEMM tasks).
  const auto A = ts::magnetic_laplacian_2d(30, 0.13, 0.5, 7);
  const std::int64_t n = A.num_rows(), nrhs = 3;
  const auto b = random_rhs(n, nrhs, 1);
  const DenseCholesky ref = dense_cholesky_solve(A, b, nrhs);
  ASSERT_TRUE(ref.ok);
  const double inverse_norm = dense_inverse_norm1(A);
  for (auto f : {ts::Factorization::Cholesky, ts::Factorization::LDLt})
    for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet})
      for (int max_block : {256, 32}) {
        const std::string where =
            std::string(ts::to_string(f)) + " " + ts::to_string(sch) + " block " + std::to_string(max_block);
        ts::Cholesky<cplx, Space> chol(options(f, sch, max_block));
        chol.factorize(A);
        const auto x = solve(chol, b, nrhs);
        EXPECT_LE(relative_difference(x, ref.x), 1e-12) << where;
        for (std::int64_t r = 0; r < nrhs; ++r)
          EXPECT_LE(backward_error(A, x.data() + r * n, b.data() + r * n), 1e-12) << where << " rhs " << r;
        const auto ld = chol.log_determinant();
        EXPECT_EQ(ld.sign, 1) << where;
        EXPECT_NEAR(ld.log_abs, ref.log_det, 1e-10 * std::abs(ref.log_det)) << where;
        EXPECT_EQ(chol.inertia().positive, n) << where;
        EXPECT_EQ(chol.inertia().negative, 0) << where;
        // rcond: a lower bound of ||A^-1||_1 from the complex Hager-Higham
        // estimator, so at least the true reciprocal condition number and
        // within a small factor of it.
        const double true_rcond = 1.0 / (A.norm_inf() * inverse_norm);
        EXPECT_GE(chol.rcond(), true_rcond * (1 - 1e-10)) << where;
        EXPECT_LE(chol.rcond(), 3 * true_rcond) << where;
      }
}

TYPED_TEST(HermitianTest, NotPositiveDefiniteIsReportedWithTheColumn) {
  using Space = TypeParam;
  // Shift -2 lies inside the spectrum (0, 8) - 2: Cholesky must fail with
  // a factorization_error naming a column, and the same matrix factors
  // with LDL^H.
  const auto A = ts::magnetic_laplacian_2d(12, 0.2, -2.0, 3);
  ts::Cholesky<cplx, Space> chol(options(ts::Factorization::Cholesky, ts::Scheduler::Tasks));
  try {
    chol.factorize(A);
    ADD_FAILURE() << "an indefinite matrix factored as positive definite";
  } catch (const ts::factorization_error& e) {
    EXPECT_GE(e.column(), 0);
    EXPECT_LT(e.column(), A.num_rows());
    EXPECT_NE(std::string(e.what()).find("not positive definite"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(chol.factorized());
  ts::Cholesky<cplx, Space> ldlt(options(ts::Factorization::LDLt, ts::Scheduler::Tasks));
  ldlt.factorize(A);
  EXPECT_GT(ldlt.inertia().negative, 0);
}

TYPED_TEST(HermitianTest, IndefiniteLdlhInertiaAndDeterminantMatchZheev) {
  using Space = TypeParam;
  // Shifts inside the spectrum: Hermitian indefinite. zheev's eigenvalues
  // give the inertia and sign, log|det A|; zgesv the solution.
  struct Case {
    std::int64_t nx;
    double flux, shift;
    std::uint64_t gauge;
  };
  for (const Case c : {Case{30, 0.15, -2.5, 3}, Case{24, 0.31, -4.0, 0}, Case{20, 0.05, -0.9, 9}}) {
    const auto A = ts::magnetic_laplacian_2d(c.nx, c.flux, c.shift, c.gauge);
    const std::int64_t n = A.num_rows();
    const auto w = dense_eigenvalues(A);
    const ts::Inertia expect = inertia_of(w);
    const ts::LogDeterminant det = log_det_of(w);
    ASSERT_EQ(expect.zero, 0);
    ASSERT_GT(expect.negative, 0);
    const auto b = random_rhs(n, 2, 5);
    const auto xref = dense_solve(A, b, 2);
    const double true_rcond = 1.0 / (A.norm_inf() * dense_inverse_norm1(A));
    for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet}) {
      const std::string where = A.origin() + " " + ts::to_string(sch);
      ts::Cholesky<cplx, Space> ldlt(options(ts::Factorization::LDLt, sch));
      ldlt.factorize(A);
      EXPECT_EQ(ldlt.inertia().positive, expect.positive) << where;
      EXPECT_EQ(ldlt.inertia().negative, expect.negative) << where;
      EXPECT_EQ(ldlt.inertia().zero, 0) << where;
      EXPECT_EQ(ldlt.log_determinant().sign, det.sign) << where;
      EXPECT_NEAR(ldlt.log_determinant().log_abs, det.log_abs, 1e-9 * std::max(1.0, std::abs(det.log_abs)))
          << where;
      const auto x = solve(ldlt, b, 2);
      for (int r = 0; r < 2; ++r)
        EXPECT_LE(backward_error(A, x.data() + r * n, b.data() + r * n), 1e-12) << where;
      EXPECT_LE(relative_difference(x, xref), 1e-8) << where;
      // The estimate is an upper bound of rcond up to the rounding of the
      // solves (relative errors of about cond * eps) and within a small
      // factor of it.
      EXPECT_GE(ldlt.rcond(), true_rcond * (1 - 1e-8)) << where;
      EXPECT_LE(ldlt.rcond(), 3 * true_rcond) << where;
    }
  }
}

TYPED_TEST(HermitianTest, ClosedFormInertiaAndDeterminantAtZeroFlux) {
  using Space = TypeParam;
  // Flux 0 in a random gauge: every off-diagonal entry complex, the
  // eigenvalues those of the real grid Laplacian (closed form), no LAPACK.
  const std::int64_t nx = 40;  // n = 1600
  const double shift = -3.1;
  const auto A = ts::magnetic_laplacian_2d(nx, 0.0, shift, 11);
  const auto w = grid_laplacian_eigenvalues(nx, shift);
  const ts::Inertia expect = inertia_of(w);
  const ts::LogDeterminant det = log_det_of(w);
  ASSERT_EQ(expect.zero, 0);
  ts::Cholesky<cplx, Space> ldlt(options(ts::Factorization::LDLt, ts::Scheduler::Tasks));
  ldlt.factorize(A);
  EXPECT_EQ(ldlt.inertia().positive, expect.positive);
  EXPECT_EQ(ldlt.inertia().negative, expect.negative);
  EXPECT_EQ(ldlt.log_determinant().sign, det.sign);
  EXPECT_NEAR(ldlt.log_determinant().log_abs, det.log_abs, 1e-9 * std::abs(det.log_abs));
}

TYPED_TEST(HermitianTest, DelayedPivotsKeepLdlhBackwardStable) {
  using Space = TypeParam;
  // The hopping matrix with a +-1e-6 diagonal: pivots are delayed to the
  // parent fronts (and taken as 2x2 Hermitian blocks); the inertia still
  // matches zheev and the solve is backward stable, with and without
  // refinement, for two thresholds and both schedulers.
  const auto A = tiny_diagonal_hopping(32, 0.17, 1e-6, 5);
  const std::int64_t n = A.num_rows();
  const ts::Inertia expect = inertia_of(dense_eigenvalues(A));
  ASSERT_EQ(expect.zero, 0);
  const auto b = random_rhs(n, 1, 8);
  for (double u : {0.01, 0.5})
    for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet})
      for (int steps : {0, 3}) {
        const std::string where =
            "u " + std::to_string(u) + " " + ts::to_string(sch) + " refinement " + std::to_string(steps);
        ts::Options opt = options(ts::Factorization::LDLt, sch);
        opt.pivot_threshold = u;
        opt.refinement_steps = steps;
        ts::Cholesky<cplx, Space> ldlt(opt);
        ldlt.factorize(A);
        EXPECT_GT(ldlt.stats().delayed_pivots, 0) << where;
        EXPECT_GT(ldlt.stats().two_by_two_pivots, 0) << where;
        EXPECT_EQ(ldlt.inertia().positive, expect.positive) << where;
        EXPECT_EQ(ldlt.inertia().negative, expect.negative) << where;
        const auto x = solve(ldlt, b, 1);
        EXPECT_LE(backward_error(A, x.data(), b.data()), 1e-12) << where;
        if (steps > 0) {
          EXPECT_LE(ldlt.stats().backward_error, 1e-12) << where;
        }
      }
}

TYPED_TEST(HermitianTest, HandWorkedDelayedTwoByTwoPivot) {
  using Space = TypeParam;
  // [0 0 i; 0 2 1; -i 1 1/2] in the natural order, no amalgamation: the
  // elimination tree is 0 -> 2 <- 1. Column 0 (zero diagonal, its only
  // neighbour 2 outside its front) passes no test and is delayed to the
  // root, which holds {2, 0} as [1/2 - 1/2, conj(-i); -i, 0] = [0 i; -i 0]
  // and takes it as one Hermitian 2x2 pivot (eigenvalues +-1). By hand:
  // det A = i (0 * 1 - 2 * (-i)) = -2, pivots 2 and the block (det -1):
  // inertia (2, 1, 0).
  const cplx I(0, 1);
  const auto A = ts::CrsMatrix<cplx>::from_triplets(3, {0, 1, 2, 2, 2}, {0, 1, 0, 1, 2},
                                                    {0.0, 2.0, -I, 1.0, 0.5}, ts::Storage::Lower, "three");
  EXPECT_EQ(A.at(0, 2), I);  // the mirror is the conjugate
  // With Options::pair_zero_diagonals the analysis keeps variable 0 with
  // its neighbour 2 in one front instead (the pairing reads the moduli):
  // no delay, and the same inertia, determinant and solution whatever
  // pivots that front chooses.
  for (bool pairing : {false, true})
    for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet}) {
      ts::Options opt = options(ts::Factorization::LDLt, sch);
      opt.ordering = ts::Ordering::Natural;
      opt.amalgamation.relax = false;
      opt.pair_zero_diagonals = pairing;
      ts::Cholesky<cplx, Space> ldlt(opt);
      ldlt.factorize(A);
      if (!pairing) {
        ASSERT_EQ(ldlt.stats().supernodes, 3);
        EXPECT_EQ(ldlt.stats().delayed_pivots, 1);
        EXPECT_EQ(ldlt.stats().two_by_two_pivots, 1);
      } else {
        EXPECT_EQ(ldlt.stats().paired_variables, 1);
        EXPECT_EQ(ldlt.stats().delayed_pivots, 0);
      }
      EXPECT_EQ(ldlt.inertia().positive, 2);
      EXPECT_EQ(ldlt.inertia().negative, 1);
      EXPECT_EQ(ldlt.log_determinant().sign, -1);
      EXPECT_NEAR(ldlt.log_determinant().log_abs, std::log(2.0), 1e-15);
      // A x = b for x = (1, i, 1 - i).
      const std::vector<cplx> xs = {1.0, I, 1.0 - I};
      std::vector<cplx> b(3);
      A.multiply(xs.data(), b.data());
      const auto x = solve(ldlt, b, 1);
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(std::abs(x[k] - xs[k]), 0.0, 1e-15) << k;
    }
}

TYPED_TEST(HermitianTest, RefactorizationChecksThePattern) {
  using Space = TypeParam;
  // New values on the analyzed pattern reuse the analysis; another pattern
  // is refused (analysis_mismatch) and the previous factor stays usable.
  const auto A = ts::magnetic_laplacian_2d(16, 0.1, 0.5, 1);
  const auto A2 = ts::magnetic_laplacian_2d(16, 0.3, 1.0, 2);
  const auto other = ts::magnetic_laplacian_2d(17, 0.1, 0.5, 1);
  ts::Cholesky<cplx, Space> chol(options(ts::Factorization::Cholesky, ts::Scheduler::Tasks));
  chol.factorize(A);
  chol.factorize(A2);
  EXPECT_FALSE(chol.stats().reanalyzed);
  const auto b = random_rhs(A2.num_rows(), 1, 3);
  const auto ref = dense_cholesky_solve(A2, b, 1);
  EXPECT_LE(relative_difference(solve(chol, b, 1), ref.x), 1e-12);
  EXPECT_THROW(chol.factorize(other), ts::analysis_mismatch);
  EXPECT_TRUE(chol.factorized());
  EXPECT_LE(relative_difference(solve(chol, b, 1), ref.x), 1e-12);
}

TYPED_TEST(HermitianTest, MatrixMarketHermitianFileRoundTrip) {
  using Space = TypeParam;
  // examples/data/matrices/hermitian_path6.mtx, written by hand: the path
  // tridiag(-1, 1, -1) of order 6 in the gauge g = (1, i, i, -1, 1, -i),
  // A(p + 1, p) = -conj(g_{p+1}) g_p. Its eigenvalues are those of the real
  // path, 1 - 2 cos(k pi / 7), k = 1..6: two negative, four positive; its
  // determinant is the Chebyshev value U_6(1/2) = sin(7 pi / 3) / sin(pi / 3) = 1.
  // The _general file stores both triangles of the same matrix, the
  // _upper one the upper triangle.
  const cplx I(0, 1);
  const cplx g[6] = {1.0, I, I, -1.0, 1.0, -I};
  for (const char* file : {"matrices/hermitian_path6.mtx", "matrices/hermitian_path6_general.mtx",
                           "matrices/hermitian_path6_upper.mtx"}) {
    const auto A = ts::read_matrix_market<cplx>(data_file(file));
    ASSERT_EQ(A.num_rows(), 6) << file;
    EXPECT_EQ(A.nnz(), 16) << file;
    for (std::int64_t p = 0; p < 6; ++p) {
      EXPECT_EQ(A.at(p, p), cplx(1.0)) << file;
      if (p + 1 < 6) {
        EXPECT_EQ(A.at(p + 1, p), -std::conj(g[p + 1]) * g[p]) << file << " row " << p + 2;
        EXPECT_EQ(A.at(p, p + 1), -std::conj(g[p]) * g[p + 1]) << file << " row " << p + 1;
      }
    }
    ts::Options opt = options(ts::Factorization::LDLt, ts::Scheduler::Tasks);
    ts::Cholesky<cplx, Space> ldlt(opt);
    ldlt.factorize(A);
    EXPECT_EQ(ldlt.inertia().positive, 4) << file;
    EXPECT_EQ(ldlt.inertia().negative, 2) << file;
    EXPECT_EQ(ldlt.log_determinant().sign, 1) << file;
    EXPECT_NEAR(ldlt.log_determinant().log_abs, 0.0, 1e-14) << file;
  }
  // Round trip: a generated matrix written as "complex hermitian" (lower
  // triangle, 17 digits) reads back entry for entry.
  const auto G = ts::magnetic_laplacian_2d(7, 0.23, -1.25, 5);
  const std::string out = ::testing::TempDir() + "tessera_hermitian_roundtrip.mtx";
  ts::write_matrix_market(out, G);
  const auto back = ts::read_matrix_market<cplx>(out);
  ASSERT_EQ(back.num_rows(), G.num_rows());
  ASSERT_EQ(back.nnz(), G.nnz());
  for (std::int64_t k = 0; k < G.nnz(); ++k) {
    EXPECT_EQ(back.col_idx()[k], G.col_idx()[k]);
    EXPECT_EQ(back.values()[k], G.values()[k]) << k;
  }
  std::remove(out.c_str());
  // A real symmetric file reads as complex (a real symmetric matrix is Hermitian).
  const auto R = ts::read_matrix_market<double>(data_file("matrices/LFAT5.mtx"));
  const auto C = ts::read_matrix_market<cplx>(data_file("matrices/LFAT5.mtx"));
  ASSERT_EQ(R.nnz(), C.nnz());
  for (std::int64_t k = 0; k < R.nnz(); ++k) EXPECT_EQ(C.values()[k], cplx(R.values()[k]));
}

TYPED_TEST(HermitianTest, BadComplexFilesAreRefusedNamingFileAndLine) {
  // Each refusal names the file, and the line where one line is at fault.
  struct Bad {
    const char* file;
    const char* where;  // "file:line" suffix expected in the message
    const char* what;   // a phrase of the reason
  };
  const Bad bad[] = {
      {"bad/hermitian_nonreal_diagonal.mtx", ".mtx:7:", "must be real"},
      {"bad/complex_symmetric.mtx", ".mtx:1:", "not Hermitian"},
      {"bad/complex_general_not_hermitian.mtx", ".mtx", "not the conjugate"},
      {"bad/complex_three_fields.mtx", ".mtx:5:", "4 fields"},
  };
  for (const Bad& b : bad) {
    try {
      (void)ts::read_matrix_market<cplx>(data_file(b.file));
      ADD_FAILURE() << b.file << ": read without an error";
    } catch (const std::exception& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::string(b.file).substr(4)), std::string::npos) << what;
      EXPECT_NE(what.find(b.where), std::string::npos) << what;
      EXPECT_NE(what.find(b.what), std::string::npos) << what;
    }
  }
  // A complex file read as double: refused, saying how to read it.
  try {
    (void)ts::read_matrix_market<double>(data_file("matrices/hermitian_path6.mtx"));
    ADD_FAILURE() << "a complex file read as double";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("std::complex<double>"), std::string::npos) << e.what();
  }
  // The magnetic Laplacian spec is complex only.
  EXPECT_THROW((void)ts::make_matrix<double>("maglap:4:0.1"), ts::sparse_error);
  EXPECT_EQ(ts::make_matrix<cplx>("maglap:4:0.1:-2:3").num_rows(), 16);
}
