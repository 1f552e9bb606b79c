// Diagnostics of the factor (issue 26, part 3): log|det| and its sign
// against a closed form (the 1-D Laplacian tridiag(-1, 2, -1) of order n
// has det n + 1) and LAPACK's dense LU (dgetrf); the inertia against the
// signs of LAPACK's dense eigenvalues (dsyev); the condition estimate
// against the exact ||A^-1||_1 of LAPACK's dense inverse (dgetri); and
// LDL^T with 2x2 pivots whose determinant over- or underflows.
#include "sparse_test_util.hpp"

#include <limits>

using namespace sparse_test;

template <class Space>
class DiagnosticsTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(DiagnosticsTest, tessera::test::HostExecutionSpaces, tessera::test::SpaceNames);

namespace {

ts::CrsMatrix<double> laplacian_1d(std::int64_t n, double sign = 1.0) {
  std::vector<std::int64_t> r, c;
  std::vector<double> v;
  for (std::int64_t i = 0; i < n; ++i) {
    r.push_back(i), c.push_back(i), v.push_back(2.0 * sign);
    if (i > 0) r.push_back(i), c.push_back(i - 1), v.push_back(-sign);
  }
  return ts::CrsMatrix<double>::from_triplets(n, r, c, v, ts::Storage::Lower, "laplacian_1d");
}

ts::Options options(ts::Factorization f, ts::Ordering o = ts::Ordering::Metis,
                    ts::Scheduler s = ts::Scheduler::Tasks) {
  ts::Options opt;
  opt.factorization = f;
  opt.ordering = o;
  opt.scheduler = s;
  return opt;
}

// s * B, B = n/2 blocks [eps 1; 1 eps] (eps = 1e-3) coupled to the next
// block by 0.1: Bunch-Kaufman takes each block as a 2x2 pivot (|eps| is
// far below its off-diagonal), and with the natural order and no
// amalgamation each block is one supernode with the next block's rows
// below it, so the 2x2 solve runs both in L21 = W D^-1 and in the solves.
// det of a pivot is about -s^2: it overflows for s = 1e170 and underflows
// for s = 1e-170, while B's condition does not depend on s.
ts::CrsMatrix<double> scaled_two_by_two_chain(std::int64_t blocks, double s) {
  std::vector<std::int64_t> r, c;
  std::vector<double> v;
  auto add = [&](std::int64_t i, std::int64_t j, double x) {
    r.push_back(i), c.push_back(j), v.push_back(s * x);
  };
  for (std::int64_t k = 0; k < blocks; ++k) {
    const std::int64_t i = 2 * k;
    add(i, i, 1e-3);
    add(i + 1, i + 1, 1e-3);
    add(i + 1, i, 1.0);
    if (k + 1 < blocks) {
      add(i + 2, i, 0.1);
      add(i + 3, i, -0.1);
      add(i + 2, i + 1, 0.05);
      add(i + 3, i + 1, 0.1);
    }
  }
  return ts::CrsMatrix<double>::from_triplets(2 * blocks, r, c, v, ts::Storage::Lower,
                                              "scaled_two_by_two_chain");
}

}  // namespace

TYPED_TEST(DiagnosticsTest, LogDeterminantOfTheOneDimensionalLaplacianIsLogOfNPlusOne) {
  using Space = TypeParam;
  for (std::int64_t n : {1, 2, 17, 1000}) {
    const auto A = laplacian_1d(n);
    const auto N = laplacian_1d(n, -1.0);  // -A: det (-1)^n (n + 1), all eigenvalues negative
    // A backward error dA of the factorization changes log det by about
    // tr(A^-1 dA), up to n ||A^-1|| ||dA|| with ||A^-1|| ~ n^2 / 8 here:
    // the natural order (no fill) gets log(n + 1) to the last bits, METIS's
    // order differs by 2.4e-11 at n = 1000.
    const double tolerance = 1e-13 * double(n) + 1e-15;
    for (auto ord : {ts::Ordering::Natural, ts::Ordering::Metis, ts::Ordering::Amd}) {
      ts::Cholesky<double, Space> chol(options(ts::Factorization::Cholesky, ord));
      chol.factorize(A);
      EXPECT_EQ(chol.log_determinant().sign, 1);
      EXPECT_NEAR(chol.log_determinant().log_abs, std::log(double(n + 1)), tolerance)
          << "n = " << n << " " << ts::to_string(ord);
      EXPECT_EQ(chol.inertia().positive, n);
      ts::Cholesky<double, Space> ldlt(options(ts::Factorization::LDLt, ord));
      ldlt.factorize(N);
      EXPECT_EQ(ldlt.log_determinant().sign, n % 2 == 0 ? 1 : -1) << "n = " << n;
      EXPECT_NEAR(ldlt.log_determinant().log_abs, std::log(double(n + 1)), tolerance);
      EXPECT_EQ(ldlt.inertia().negative, n);
      EXPECT_EQ(ldlt.inertia().positive, 0);
    }
  }
}

TYPED_TEST(DiagnosticsTest, LogDeterminantAndInertiaMatchDenseLapack) {
  using Space = TypeParam;
  struct Case {
    ts::CrsMatrix<double> A;
    ts::Factorization f;
  };
  const Case cases[] = {
      {random_spd(150, 6, 5), ts::Factorization::Cholesky},
      {ts::read_matrix_market<double>(data_file("matrices/494_bus.mtx")), ts::Factorization::Cholesky},
      {random_spd(150, 6, 5), ts::Factorization::LDLt},
      {random_indefinite(200, 6), ts::Factorization::LDLt},
      {random_indefinite(201, 7), ts::Factorization::LDLt},
      {ts::read_matrix_market<double>(data_file("matrices/hangGlider_2.mtx")), ts::Factorization::LDLt},
  };
  for (const Case& c : cases) {
    const auto expect = dense_log_determinant(c.A);
    const auto in = dense_inertia(c.A);
    ASSERT_EQ(in.zero, 0) << c.A.origin() << ": the reference cannot tell the sign of an eigenvalue";
    for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet}) {
      const auto where =
          c.A.origin() + (c.f == ts::Factorization::LDLt ? " LDL^T " : " Cholesky ") + ts::to_string(sch);
      ts::Cholesky<double, Space> s(options(c.f, ts::Ordering::Metis, sch));
      s.factorize(c.A);
      const auto got = s.log_determinant();
      EXPECT_EQ(got.sign, expect.sign) << where;
      EXPECT_NEAR(got.log_abs, expect.log_abs, 1e-10 * std::abs(expect.log_abs) + 1e-10) << where;
      EXPECT_EQ(s.inertia().positive, in.positive) << where;
      EXPECT_EQ(s.inertia().negative, in.negative) << where;
      EXPECT_EQ(s.inertia().zero, 0) << where;
    }
  }
}

TYPED_TEST(DiagnosticsTest, ConditionEstimateIsABoundWithinAFactorOfThreeOfTheExactOne) {
  using Space = TypeParam;
  struct Case {
    ts::CrsMatrix<double> A;
    ts::Factorization f;
  };
  const Case cases[] = {
      {laplacian_1d(60), ts::Factorization::Cholesky},
      {ts::laplacian_2d<double>(12), ts::Factorization::Cholesky},
      {random_spd(150, 6, 9), ts::Factorization::Cholesky},
      {ts::read_matrix_market<double>(data_file("matrices/494_bus.mtx")), ts::Factorization::Cholesky},
      {ts::read_matrix_market<double>(data_file("matrices/can___24.mtx")), ts::Factorization::Cholesky},
      {ts::read_matrix_market<double>(data_file("matrices/LFAT5.mtx")), ts::Factorization::Cholesky},
      {random_indefinite(200, 3), ts::Factorization::LDLt},
      {ts::read_matrix_market<double>(data_file("matrices/hangGlider_2.mtx")), ts::Factorization::LDLt},
  };
  for (const Case& c : cases) {
    // A is symmetric: ||A||_1 = ||A||_inf.
    const double exact = 1.0 / (c.A.norm_inf() * dense_inverse_norm1(c.A));
    for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet}) {
      const auto where = c.A.origin() + " " + ts::to_string(sch);
      ts::Cholesky<double, Space> s(options(c.f, ts::Ordering::Metis, sch));
      s.factorize(c.A);
      const double estimate = s.rcond();
      // The estimate of ||A^-1||_1 is a lower bound, so rcond is an upper
      // bound, up to the rounding of the solves and of the dense inverse:
      // relative errors of about cond * eps (hangGlider_2: cond 1e11).
      const double rounding = 1e-8 + 50 * std::numeric_limits<double>::epsilon() / exact;
      EXPECT_GE(estimate, exact * (1 - rounding)) << where;
      EXPECT_LE(estimate, 3.0 * exact) << where;
      EXPECT_EQ(s.rcond(), estimate) << "computed once per factorization";
    }
  }
}

TYPED_TEST(DiagnosticsTest, BadlyScaledTwoByTwoPivotsSolveAndCount) {
  using Space = TypeParam;
  // Before the 2x2 solve was scaled, both scales gave NaN solutions (the
  // determinant was 0 for s = 1e-170 and -inf for s = 1e170), and the
  // inertia counted the 1e-170 pivot blocks as singular.
  const std::int64_t blocks = 20, n = 2 * blocks;
  const auto B = scaled_two_by_two_chain(blocks, 1.0);
  const auto inertia = dense_inertia(B);
  const auto det_b = dense_log_determinant(B);
  const auto b = rhs_of_ones(B);
  const auto x_b = dense_solve(B, b);
  for (double s : {1e-170, 1.0, 1e170}) {
    const auto A = scaled_two_by_two_chain(blocks, s);
    for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet}) {
      ts::Options opt = options(ts::Factorization::LDLt, ts::Ordering::Natural, sch);
      opt.amalgamation.relax = false;
      ts::Cholesky<double, Space> ldlt(opt);
      ldlt.factorize(A);
      // One supernode per block, but the last two blocks share one (the
      // last block's columns continue the one before: a fundamental
      // supernode of four columns).
      ASSERT_EQ(ldlt.stats().supernodes, blocks - 1);
      EXPECT_EQ(ldlt.inertia().positive, inertia.positive) << "s = " << s;
      EXPECT_EQ(ldlt.inertia().negative, inertia.negative) << "s = " << s;
      EXPECT_EQ(ldlt.inertia().zero, 0) << "s = " << s;
      // det(s B) = s^n det(B).
      EXPECT_EQ(ldlt.log_determinant().sign, det_b.sign) << "s = " << s;
      const double log_det = double(n) * std::log(s) + det_b.log_abs;
      EXPECT_NEAR(ldlt.log_determinant().log_abs, log_det, 1e-12 * std::abs(log_det) + 1e-12) << "s = " << s;
      // (s B) x = b has x = B^-1 b / s; with b scaled by s too, x = B^-1 b.
      std::vector<double> bs(b), x(static_cast<std::size_t>(n));
      for (double& v : bs) v *= s;
      ldlt.solve(x.data(), bs.data(), 1);
      double diff = 0;
      for (std::int64_t i = 0; i < n; ++i) diff = max_nan(diff, std::abs(x[i] - x_b[i]));
      EXPECT_LE(diff, 1e-13) << "s = " << s << " " << ts::to_string(sch);
      EXPECT_LE(backward_error(A, x.data(), bs.data()), 1e-15) << "s = " << s;
    }
  }
}

TYPED_TEST(DiagnosticsTest, DiagnosticsNeedAFactorization) {
  using Space = TypeParam;
  ts::Cholesky<double, Space> chol;
  EXPECT_THROW(chol.log_determinant(), ts::sparse_error);
  EXPECT_THROW(chol.rcond(), ts::sparse_error);
  // Order 0: det 1, rcond 1 (as LAPACK's dpocon).
  const auto E = ts::CrsMatrix<double>::from_triplets(0, {}, {}, {}, ts::Storage::Full);
  chol.factorize(E);
  EXPECT_EQ(chol.log_determinant().sign, 1);
  EXPECT_EQ(chol.log_determinant().log_abs, 0.0);
  EXPECT_EQ(chol.rcond(), 1.0);
}
