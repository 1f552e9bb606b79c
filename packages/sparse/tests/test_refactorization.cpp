// Refactorization that cannot be silently wrong (issue 26, part 2):
// factorize(A2) after the analysis of A refuses a matrix the analysis does
// not hold for (another pattern; for LDL^T other zero diagonals or a zero
// paired coupling), naming the first differing row, keeps the previous
// factor usable, and analyzes A2 instead when asked. The solutions of the
// re-analyzed factors are checked against LAPACK's dense LU (dgesv) of A2
// and by their residuals; the IC(0) factor against its defining property
// (L L^T equals A on A's pattern).
#include "sparse_test_util.hpp"

using namespace sparse_test;

template <class Space>
class RefactorTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(RefactorTest, tessera::test::HostExecutionSpaces, tessera::test::SpaceNames);

namespace {

struct Triplets {
  std::vector<std::int64_t> r, c;
  std::vector<double> v;
  void add(std::int64_t i, std::int64_t j, double x) { r.push_back(i), c.push_back(j), v.push_back(x); }
  ts::CrsMatrix<double> lower(std::int64_t n) const {
    return ts::CrsMatrix<double>::from_triplets(n, r, c, v, ts::Storage::Lower, "test");
  }
};

// The lower triangle of A as triplets, to build variants of it.
Triplets lower_of(const ts::CrsMatrix<double>& A) {
  Triplets t;
  for (std::int64_t i = 0; i < A.num_rows(); ++i)
    for (std::int64_t q = A.row_map()[i]; q < A.row_map()[i + 1]; ++q)
      if (A.col_idx()[q] <= i) t.add(i, A.col_idx()[q], A.values()[q]);
  return t;
}

// The 2-D Laplacian on an m x m grid plus the couplings (i, i - (m + 1))
// (a diagonal neighbour) of weight -0.5, the diagonal raised to keep it
// SPD (diagonally dominant): same order, another pattern. Its first
// differing row is row 0, which gains column m + 1 (the mirror of
// (m + 1, 0)).
ts::CrsMatrix<double> laplacian_with_diagonal_neighbours(std::int64_t m) {
  const auto A = ts::laplacian_2d<double>(m);
  Triplets t = lower_of(A);
  for (std::size_t k = 0; k < t.v.size(); ++k)
    if (t.r[k] == t.c[k]) t.v[k] += 2.0;
  for (std::int64_t i = m + 1; i < A.num_rows(); ++i) t.add(i, i - (m + 1), -0.5);
  return t.lower(A.num_rows());
}

// A saddle-point matrix [K B^T; B 0] (K the m x m grid Laplacian, B one
// row per constraint with two couplings) whose zero (2,2) block is stored
// as explicit zeros. Constraint c couples to unknowns 3c and 3c + 1; the
// last constraint couples to unknown 3c only, so the pairing can only
// match it with that one.
ts::CrsMatrix<double> saddle_point(std::int64_t m, std::int64_t constraints, double last_diagonal = 0.0) {
  const auto K = ts::laplacian_2d<double>(m);
  const std::int64_t nk = K.num_rows();
  Triplets t = lower_of(K);
  for (std::int64_t c = 0; c < constraints; ++c) {
    const std::int64_t row = nk + c;
    t.add(row, 3 * c, 1.0 + 0.1 * double(c));
    if (c + 1 < constraints) t.add(row, 3 * c + 1, -0.7);
    t.add(row, row, c + 1 == constraints ? last_diagonal : 0.0);
  }
  return t.lower(nk + constraints);
}

double max_relative_difference(const std::vector<double>& x, const std::vector<double>& ref) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    diff = max_nan(diff, std::abs(x[i] - ref[i]));
    norm = std::max(norm, std::abs(ref[i]));
  }
  return diff / norm;
}

// The message of the analysis_mismatch that f throws, and its row; fails
// the test if f does not throw one.
template <class F>
std::pair<std::string, std::int64_t> mismatch_of(F&& f) {
  try {
    f();
  } catch (const ts::analysis_mismatch& e) {
    return {e.what(), e.row()};
  }
  ADD_FAILURE() << "expected analysis_mismatch";
  return {"", -2};
}

// Solves A x = A * 1 with the solver and checks the solution against the
// dense LU's and by its backward error.
template <class Solver>
void expect_solves(Solver& s, const ts::CrsMatrix<double>& A, const char* what, double tolerance = 1e-14) {
  const auto b = rhs_of_ones(A);
  std::vector<double> x(b.size());
  s.solve(x.data(), b.data(), 1);
  EXPECT_LE(backward_error(A, x.data(), b.data()), tolerance) << what;
  EXPECT_LE(max_relative_difference(x, dense_solve(A, b)), 1e-11) << what;
}

// max over A's entries (i, j), j <= i, of |(L L^T)(i, j) - a(i, j)| for
// the IC factor in its own (permuted) numbering.
template <class IC>
double ic0_defect(const IC& ic, const ts::CrsMatrix<double>& A) {
  const auto& p = ic.pattern();
  const auto& iperm = ic.ordering().iperm;
  const std::int64_t n = A.num_rows();
  auto row_dot = [&](std::int64_t i, std::int64_t j) {  // L(i, :) . L(j, :)
    double s = 0;
    for (std::int64_t a = p.row_ptr[i]; a < p.row_ptr[i + 1]; ++a)
      for (std::int64_t b = p.row_ptr[j]; b < p.row_ptr[j + 1]; ++b)
        if (p.cols[a] == p.cols[b]) s += ic.values()[a] * ic.values()[b];
    return s;
  };
  double worst = 0;
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t q = A.row_map()[r]; q < A.row_map()[r + 1]; ++q) {
      const std::int64_t i = iperm[r], j = iperm[A.col_idx()[q]];
      if (j <= i) worst = std::max(worst, std::abs(row_dot(i, j) - A.values()[q]));
    }
  return worst;
}

}  // namespace

TYPED_TEST(RefactorTest, IncompleteCholeskyGivenAnotherPatternIsRefusedOrReanalyzed) {
  using Space = TypeParam;
  // Before the check, factorize(A2) here ran silently: the level-set path
  // (Threads, OpenMP) scattered A2's new entries into other slots of the
  // row, the diagonal's included, and the sequential path (Serial) wrote
  // them into its work row and left a factor of neither matrix.
  const std::int64_t m = 6;
  const auto A = ts::laplacian_2d<double>(m);
  const auto A2 = laplacian_with_diagonal_neighbours(m);
  const std::int64_t n = A.num_rows();
  ts::IncompleteCholesky<double, Space> ic({.level = 0});
  ic.factorize(A);
  EXPECT_LE(ic0_defect(ic, A), 1e-14);
  std::vector<double> r(static_cast<std::size_t>(n)), z(static_cast<std::size_t>(n)),
      z_again(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) r[i] = std::cos(0.3 * double(i));
  ic.apply(r.data(), z.data());

  const auto [what, row] = mismatch_of([&] { ic.factorize(A2); });
  EXPECT_EQ(row, 0);
  EXPECT_NE(
      what.find("row 1 (1-based) stores column 8, which the analyzed pattern does not (4 entries, 3 when "
                "analyzed"),
      std::string::npos)
      << what;
  EXPECT_EQ(what.rfind("IncompleteCholesky::factorize: row 1 (1-based)", 0), 0u) << what;
  EXPECT_NE(what.find(": the matrix is not the analyzed one; call analyze() again, or set "
                      "IncompleteOptions::reanalyze_on_change"),
            std::string::npos)
      << what;
  // The previous factor is untouched and still applies.
  ic.apply(r.data(), z_again.data());
  EXPECT_EQ(z, z_again);
  // Another order is refused too.
  const auto [small, small_row] = mismatch_of([&] { ic.factorize(ts::laplacian_2d<double>(m - 1)); });
  EXPECT_EQ(small_row, -1);
  EXPECT_NE(small.find("order 25, the analyzed one 36"), std::string::npos) << small;

  ts::IncompleteCholesky<double, Space> re({.level = 0, .reanalyze_on_change = true});
  re.factorize(A);
  EXPECT_FALSE(re.reanalyzed());
  re.factorize(A2);
  EXPECT_TRUE(re.reanalyzed());
  EXPECT_LE(ic0_defect(re, A2), 1e-14);
  // And it preconditions A2: PCG converges to a small backward error.
  const auto b = rhs_of_ones(A2);
  std::vector<double> x(b.size(), 0.0);
  const auto res = ts::pcg<Space>(A2, b.data(), x.data(), re, {1e-12, 500});
  EXPECT_TRUE(res.converged);
  EXPECT_LE(backward_error(A2, x.data(), b.data()), 1e-12);
}

TYPED_TEST(RefactorTest, CholeskyGivenAnotherPatternIsRefusedOrReanalyzed) {
  using Space = TypeParam;
  const std::int64_t m = 8;
  const auto A = ts::laplacian_2d<double>(m);
  const auto A2 = laplacian_with_diagonal_neighbours(m);
  for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet}) {
    ts::Cholesky<double, Space> chol({.scheduler = sch});
    chol.factorize(A);
    const auto [what, row] = mismatch_of([&] { chol.factorize(A2); });
    EXPECT_EQ(row, 0);
    EXPECT_NE(
        what.find("row 1 (1-based) stores column 10, which the analyzed pattern does not (4 entries, 3 when "
                  "analyzed"),
        std::string::npos)
        << what;
    // The same words from both schedulers (one helper writes them).
    EXPECT_EQ(what.rfind("factorize: row 1 (1-based)", 0), 0u) << what;
    EXPECT_NE(what.find(": the matrix is not the analyzed one; call analyze() again, or set "
                        "Options::reanalyze_on_change"),
              std::string::npos)
        << what;
    // The factor of A is still there, and a factorization of A's pattern
    // with new values goes ahead.
    EXPECT_TRUE(chol.factorized());
    expect_solves(chol, A, "the previous factor after a refusal");
    auto A3 = ts::laplacian_2d<double>(m);
    for (std::int64_t q = 0; q < A3.nnz(); ++q) A3.values()[q] *= 3.0;
    chol.factorize(A3);
    expect_solves(chol, A3, "new values of the analyzed pattern");

    ts::Options re;
    re.scheduler = sch;
    re.reanalyze_on_change = true;
    ts::Cholesky<double, Space> again(re);
    again.factorize(A);
    EXPECT_FALSE(again.stats().reanalyzed);
    again.factorize(A2);
    EXPECT_TRUE(again.stats().reanalyzed);
    EXPECT_EQ(again.stats().nnz_a, A2.nnz());
    expect_solves(again, A2, "re-analyzed");
  }
}

TYPED_TEST(RefactorTest, LdltGivenAnotherPatternIsRefusedOrReanalyzed) {
  using Space = TypeParam;
  ts::Options opt;
  opt.factorization = ts::Factorization::LDLt;
  const auto S = saddle_point(6, 8);
  // The same matrix with constraint 3 (row 36 + 3 = 39, 0-based) no longer
  // coupled to unknown 10.
  Triplets t = lower_of(S);
  for (std::size_t k = 0; k < t.v.size(); ++k)
    if (t.r[k] == 39 && t.c[k] == 10)
      t.v.erase(t.v.begin() + k), t.r.erase(t.r.begin() + k), t.c.erase(t.c.begin() + k);
  const auto S2 = t.lower(S.num_rows());
  ASSERT_EQ(S2.nnz() + 2, S.nnz());
  ts::Cholesky<double, Space> ldlt(opt);
  ldlt.factorize(S);
  const auto [what, row] = mismatch_of([&] { ldlt.factorize(S2); });
  // Row 11 (1-based) is the first to differ: it held the mirror (10, 39).
  EXPECT_EQ(row, 10);
  EXPECT_NE(what.find("row 11 (1-based) lacks column 40 of the analyzed pattern"), std::string::npos) << what;
  expect_solves(ldlt, S, "the previous LDL^T factor after a refusal");

  opt.reanalyze_on_change = true;
  ts::Cholesky<double, Space> again(opt);
  again.factorize(S);
  again.factorize(S2);
  EXPECT_TRUE(again.stats().reanalyzed);
  expect_solves(again, S2, "re-analyzed LDL^T");
}

TYPED_TEST(RefactorTest, LdltGivenOtherZeroDiagonalsIsRefusedOrReanalyzed) {
  using Space = TypeParam;
  ts::Options opt;
  opt.factorization = ts::Factorization::LDLt;
  opt.pair_zero_diagonals = true;  // the analysis then depends on the zero diagonals
  const std::int64_t m = 6, nk = m * m, constraints = 8;
  const auto S = saddle_point(m, constraints);
  const std::int64_t last = nk + constraints - 1;  // couples to unknown 3 * 7 = 21 only
  // Same pattern, three kinds of value change the analysis depended on.
  auto with = [&](std::int64_t i, std::int64_t j, double v) {
    auto M = saddle_point(m, constraints);
    for (std::int64_t q = M.row_map()[i]; q < M.row_map()[i + 1]; ++q)
      if (M.col_idx()[q] == j) M.values()[q] = v;
    for (std::int64_t q = M.row_map()[j]; q < M.row_map()[j + 1]; ++q)
      if (M.col_idx()[q] == i) M.values()[q] = v;
    return M;
  };
  struct Case {
    ts::CrsMatrix<double> M;
    std::int64_t row;
    std::string message;
  };
  const Case cases[] = {
      // A regularized (2,2) block entry: nonzero where the analysis paired a zero.
      {with(nk + 2, nk + 2, -1e-3), nk + 2,
       "row 39 (1-based): a(39, 39) is -0.001, but was zero when analyzed"},
      // A zero diagonal in K: unpaired.
      {with(5, 5, 0.0), 5, "row 6 (1-based): a(6, 6) is zero, but was nonzero when analyzed"},
      // The only coupling of the last constraint, through which it was paired.
      {with(last, 21, 0.0), last,
       "row 44 (1-based): a(44, 22) is zero, but LDL^T paired zero-diagonal variable 44 with 22"},
  };
  for (const Case& c : cases) {
    ts::Cholesky<double, Space> ldlt(opt);
    ldlt.factorize(S);
    const auto [what, row] = mismatch_of([&] { ldlt.factorize(c.M); });
    EXPECT_EQ(row, c.row) << what;
    EXPECT_NE(what.find(c.message), std::string::npos) << what;
    // The refused factorization left the previous one in place.
    EXPECT_TRUE(ldlt.factorized());
    expect_solves(ldlt, S, "the previous LDL^T factor after a refusal");
    // New values that keep the zero diagonals and couplings go ahead.
    auto S3 = saddle_point(m, constraints);
    for (std::int64_t q = 0; q < S3.nnz(); ++q) S3.values()[q] *= -2.0;
    ldlt.factorize(S3);
    expect_solves(ldlt, S3, "new values, same zero diagonals");
  }
  // When asked, the two matrices that stay nonsingular are analyzed again
  // (the third, with the last constraint uncoupled, is singular).
  opt.reanalyze_on_change = true;
  for (int k = 0; k < 2; ++k) {
    ts::Cholesky<double, Space> again(opt);
    again.factorize(S);
    again.factorize(cases[k].M);
    EXPECT_TRUE(again.stats().reanalyzed);
    // The regularized constraint is no longer paired: its pivot -0.001,
    // against couplings near 1, fails the threshold test (u = 0.01) and is
    // delayed until a stable pivot is found. (Before delayed pivoting it
    // was taken as a 1x1 pivot inside its supernode, and the growth cost
    // two digits of backward error.)
    expect_solves(again, cases[k].M, k == 0 ? "re-analyzed, regularized" : "re-analyzed, new zero diagonal");
  }
  // Without the pairing the analysis reads no values: the same three
  // matrices factorize with the analysis of S (the singular third one,
  // whose row 44 (1-based) is all zeros, reports that column's zero pivot).
  opt.pair_zero_diagonals = false;
  opt.reanalyze_on_change = false;
  ts::Cholesky<double, Space> plain(opt);
  plain.factorize(S);
  for (int k = 0; k < 2; ++k) {
    plain.factorize(cases[k].M);
    EXPECT_FALSE(plain.stats().reanalyzed);
    expect_solves(plain, cases[k].M, "not paired, new values");
  }
  try {
    plain.factorize(cases[2].M);
    ADD_FAILURE() << "a(44, 22) = 0 leaves row 44 empty: singular";
  } catch (const ts::factorization_error& e) {
    ASSERT_EQ(e.columns().size(), 1u) << e.what();
    EXPECT_EQ(e.column(), last) << e.what();
    EXPECT_NE(std::string(e.what()).find("column 44 (1-based"), std::string::npos) << e.what();
  }
}
