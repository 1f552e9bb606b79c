// Iterative refinement (issue 26, part 3): the parallel SpMV against the
// serial product; the stopping rule of detail::refine driven by solvers
// whose error per step is known exactly (M^-1 = c A^-1 with A^-1 from
// LAPACK's dense LU: the error of x shrinks by |1 - c| per step); and the
// solver's refinement on matrices whose factorization is not backward
// stable, measured by the tests' own backward error.
#include "sparse_test_util.hpp"

#include <tessera/sparse/detail/iterative_refinement.hpp>

#include <limits>

using namespace sparse_test;

template <class Space>
class RefinementTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(RefinementTest, tessera::test::HostExecutionSpaces, tessera::test::SpaceNames);

namespace {

constexpr double eps = std::numeric_limits<double>::epsilon();

// c A^-1 applied to nrhs columns, A^-1 from LAPACK's dense LU.
struct ScaledDenseInverse {
  std::int64_t n = 0, nrhs = 1;
  double c = 1;
  std::vector<double> lu;
  std::vector<lapack_int> ipiv;
  ScaledDenseInverse(const ts::CrsMatrix<double>& A, double scale, std::int64_t columns)
      : n(A.num_rows()), nrhs(columns), c(scale), lu(dense(A)), ipiv(static_cast<std::size_t>(n)) {
    EXPECT_EQ(LAPACKE_dgetrf(LAPACK_COL_MAJOR, int(n), int(n), lu.data(), int(n), ipiv.data()), 0);
  }
  void operator()(const double* r, double* d) const {
    std::copy(r, r + n * nrhs, d);
    EXPECT_EQ(
        LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', int(n), int(nrhs), lu.data(), int(n), ipiv.data(), d, int(n)),
        0);
    for (std::int64_t i = 0; i < n * nrhs; ++i) d[i] *= c;
  }
};

// A saddle-point matrix [K B^T; B -delta I], K the m x m grid Laplacian,
// one constraint per 3 unknowns coupling 3c and 3c + 1. The tiny pressure
// diagonal is not zero, so nothing is paired. With the threshold test off
// (pivot_threshold = 0, as the LDL^T was before delayed pivoting) it is
// taken as a 1x1 pivot: large multipliers, a backward error far above
// eps, which refinement repairs. (With the default threshold the pivot is
// refused and the factorization alone is backward stable: 1.9e-16.)
ts::CrsMatrix<double> stokes_like(std::int64_t m, double delta) {
  const auto K = ts::laplacian_2d<double>(m);
  const std::int64_t nk = K.num_rows(), nc = nk / 3;
  std::vector<std::int64_t> r, c;
  std::vector<double> v;
  for (std::int64_t i = 0; i < nk; ++i)
    for (std::int64_t q = K.row_map()[i]; q < K.row_map()[i + 1]; ++q)
      if (K.col_idx()[q] <= i) r.push_back(i), c.push_back(K.col_idx()[q]), v.push_back(K.values()[q]);
  for (std::int64_t k = 0; k < nc; ++k) {
    r.push_back(nk + k), c.push_back(3 * k), v.push_back(1.0);
    r.push_back(nk + k), c.push_back(3 * k + 1), v.push_back(-1.0);
    r.push_back(nk + k), c.push_back(nk + k), v.push_back(-delta);
  }
  return ts::CrsMatrix<double>::from_triplets(nk + nc, r, c, v, ts::Storage::Lower, "stokes_like");
}

}  // namespace

TYPED_TEST(RefinementTest, ParallelSpmvEqualsTheSerialProduct) {
  using Space = TypeParam;
  const auto A = ts::read_matrix_market<double>(data_file("matrices/bcsstk13.mtx"));
  const std::int64_t n = A.num_rows();
  std::vector<double> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n)),
      y_ref(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) x[i] = std::sin(0.37 * double(i)) + 0.5;
  ts::multiply<Space>(A, x.data(), y.data());
  A.multiply(x.data(), y_ref.data());
  EXPECT_EQ(y, y_ref);  // each row the same sum in the same order
}

TYPED_TEST(RefinementTest, StopsAtEpsWhenStagnatingOrAfterMaxSteps) {
  using Space = TypeParam;
  const auto A = random_spd(80, 6, 17);
  const std::int64_t n = A.num_rows();
  const double anorm = A.norm_inf();
  const auto b = rhs_of_ones(A);
  // Starts from x0 = c A^-1 b and refines with c A^-1: the error falls by
  // |1 - c| per step (up to rounding, about eps).
  auto run = [&](double c, int max_steps, std::vector<double>& x) {
    ScaledDenseInverse solve(A, c, 1);
    x.assign(static_cast<std::size_t>(n), 0.0);
    solve(b.data(), x.data());
    return ts::detail::refine<Space>(A, anorm, b.data(), x.data(), 1, max_steps, solve);
  };
  std::vector<double> x;
  // c = 1: the dense LU is backward stable, berr is already about eps.
  auto r = run(1.0, 10, x);
  EXPECT_LE(r.steps, 1);
  EXPECT_LE(r.backward_error, 4 * eps);
  EXPECT_DOUBLE_EQ(r.backward_error, backward_error(A, x.data(), b.data()));
  // c = 1 - 1e-3: each step gains three digits; from berr ~1e-3 it takes
  // about four steps to reach eps, well before the cap.
  r = run(1.0 - 1e-3, 10, x);
  EXPECT_GE(r.steps, 3);
  EXPECT_LE(r.steps, 6);
  EXPECT_LE(r.backward_error, 4 * eps);
  EXPECT_DOUBLE_EQ(r.backward_error, backward_error(A, x.data(), b.data()));
  // The same with at most 2 steps: stopped by the cap at about 1e-9.
  r = run(1.0 - 1e-3, 2, x);
  EXPECT_EQ(r.steps, 2);
  EXPECT_GT(r.backward_error, 1e-11);
  EXPECT_LT(r.backward_error, 1e-7);
  // c = 0.2: the error falls by 0.8 per step and berr by less than half
  // (its denominator ||A|| ||x|| + ||b|| grows as x goes from 0.2 to 0.36
  // times the solution, but not by 1.6): one step, kept since it helped,
  // then stop.
  std::vector<double> x0(static_cast<std::size_t>(n));
  ScaledDenseInverse(A, 0.2, 1)(b.data(), x0.data());
  const double before = backward_error(A, x0.data(), b.data());
  r = run(0.2, 10, x);
  EXPECT_EQ(r.steps, 1);
  EXPECT_LT(r.backward_error, before);
  EXPECT_GT(r.backward_error, 0.5 * before);
  // c = 3: the error doubles (1 - 3 = -2): the step is undone and x is
  // returned as it was given.
  r = run(3.0, 10, x);
  std::vector<double> x3(static_cast<std::size_t>(n));
  ScaledDenseInverse(A, 3.0, 1)(b.data(), x3.data());
  EXPECT_EQ(r.steps, 1);
  EXPECT_EQ(x, x3);
  EXPECT_DOUBLE_EQ(r.backward_error, backward_error(A, x3.data(), b.data()));
}

TYPED_TEST(RefinementTest, EachRightHandSideStopsOnItsOwn) {
  using Space = TypeParam;
  const auto A = random_spd(60, 5, 23);
  const std::int64_t n = A.num_rows();
  // Column 0: b = 0, x = 0 exactly (berr 0, never refined). Column 1: A * 1.
  std::vector<double> b(static_cast<std::size_t>(2 * n), 0.0), x(static_cast<std::size_t>(2 * n), 0.0);
  const auto ones = rhs_of_ones(A);
  std::copy(ones.begin(), ones.end(), b.begin() + n);
  ScaledDenseInverse solve(A, 1.0 - 1e-3, 2);
  solve(b.data(), x.data());
  const auto r = ts::detail::refine<Space>(A, A.norm_inf(), b.data(), x.data(), 2, 10, solve);
  for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(x[i], 0.0);
  EXPECT_GE(r.steps, 3);
  EXPECT_LE(r.backward_error, 4 * eps);
  EXPECT_LE(backward_error(A, x.data() + n, b.data() + n), 4 * eps);
}

TYPED_TEST(RefinementTest, LdltWithTinyPivotsIsRepairedAndReported) {
  using Space = TypeParam;
  const auto A = stokes_like(20, 1e-8);
  const auto b = rhs_of_ones(A);
  const std::int64_t n = A.num_rows();
  ts::Options opt;
  opt.factorization = ts::Factorization::LDLt;
  opt.pivot_threshold = 0;
  ts::Cholesky<double, Space> plain(opt);
  plain.factorize(A);
  std::vector<double> x0(static_cast<std::size_t>(n));
  plain.solve(x0.data(), b.data(), 1);
  EXPECT_EQ(plain.stats().refinement_steps_taken, 0);
  EXPECT_EQ(plain.stats().backward_error, -1.0) << "no refinement, nothing measured";
  const double unrefined = backward_error(A, x0.data(), b.data());
  ASSERT_GT(unrefined, 1e-14) << "the case must need refinement";

  opt.refinement_steps = 20;
  for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet}) {
    opt.scheduler = sch;
    ts::Cholesky<double, Space> refined(opt);
    refined.factorize(A);
    std::vector<double> x(static_cast<std::size_t>(n));
    refined.solve(x.data(), b.data(), 1);
    const auto& st = refined.stats();
    EXPECT_GE(st.refinement_steps_taken, 1);
    EXPECT_LT(st.refinement_steps_taken, 20) << "stopped by its test, not the cap";
    const double berr = backward_error(A, x.data(), b.data());
    EXPECT_LE(berr, 1e-15) << ts::to_string(sch) << " unrefined " << unrefined;
    EXPECT_NEAR(st.backward_error, berr, 1e-3 * berr);
    // In place (x and b the same array) gives the same.
    std::vector<double> xb = b;
    refined.solve(xb.data(), xb.data(), 1);
    EXPECT_EQ(xb, x);
  }
}
