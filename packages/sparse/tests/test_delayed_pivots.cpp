// LDL^T with threshold pivoting and delayed pivots (issue 26, part 1).
// Expected values come from elsewhere: the inertia from the signs of
// LAPACK's dense eigenvalues (dsyev) for matrices small enough, from MUMPS
// (SYM = 2, INFOG(12), called here) where CMake found it, the two checked
// against each other; for the saddle points also from Sylvester's law ([K B^T; B -C]
// with K positive definite, B of full row rank, C >= 0 has inertia
// (n_K, m, 0)); delay counts and zero pivots from the elimination worked
// out by hand on small matrices.
#include "mumps_reference.hpp"
#include "sparse_test_util.hpp"

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

using namespace sparse_test;

template <class Space>
class DelayedPivotTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(DelayedPivotTest, tessera::test::HostExecutionSpaces, tessera::test::SpaceNames);

namespace {

ts::Options ldlt_options(bool pairing = false, ts::Scheduler sch = ts::Scheduler::Tasks,
                         ts::Ordering ord = ts::Ordering::Metis) {
  ts::Options opt;
  opt.factorization = ts::Factorization::LDLt;
  opt.pair_zero_diagonals = pairing;
  opt.scheduler = sch;
  opt.ordering = ord;
  return opt;
}

struct Case {
  std::string name;
  ts::CrsMatrix<double> A;
  ts::Inertia analytic{-1, -1, -1};  // from Sylvester's law, where known
};

std::vector<Case> indefinite_cases() {
  std::vector<Case> c;
  c.push_back({"hangGlider_2", ts::read_matrix_market<double>(data_file("matrices/hangGlider_2.mtx"))});
  c.push_back({"random indefinite 200", random_indefinite(200, 11)});
  c.push_back({"stokes:12", ts::stokes_2d<double>(12), {288, 121, 0}});
  c.push_back({"stokes:16:1e-12", ts::stokes_2d<double>(16, 1e-12), {512, 225, 0}});
  c.push_back({"kkt:16:60:3", ts::kkt_random<double>(16, 60, 3), {256, 60, 0}});
  c.push_back({"kkt:30:300:7", ts::kkt_random<double>(30, 300, 7), {900, 300, 0}});
  c.push_back({"indef3d:8", ts::indefinite_grid_3d<double>(8)});
  // An odd order: the grid's two colour classes differ by one, so the
  // off-diagonal part alone is singular and the +-1e-6 diagonal decides
  // the sign of one eigenvalue of size about 1e-6.
  c.push_back({"indef3d:11:seed 5", ts::indefinite_grid_3d<double>(11, 1e-6, 5)});
  return c;
}

// The reference inertia of a case, computed once per process (the typed
// tests share it): every independent source that applies (MUMPS where
// linked, dsyev where n <= 2000, Sylvester's law where the case knows it),
// which must agree; a case with none of them fails.
ts::Inertia reference_inertia(const Case& c) {
  static std::mutex m;
  static std::map<std::string, ts::Inertia> cache;
  std::lock_guard<std::mutex> lock(m);
  if (auto it = cache.find(c.name); it != cache.end()) return it->second;
  std::vector<std::pair<std::string, ts::Inertia>> refs;
  if (have_mumps()) refs.emplace_back("MUMPS", mumps_inertia(c.A));
  if (c.A.num_rows() <= 2000) refs.emplace_back("dsyev", dense_inertia(c.A));
  if (c.analytic.positive >= 0) refs.emplace_back("Sylvester's law", c.analytic);
  if (refs.empty()) {
    ADD_FAILURE() << c.name << ": no reference inertia (MUMPS not linked, n > 2000, no closed form)";
    return {-1, -1, -1};
  }
  for (const auto& [who, in] : refs) {
    EXPECT_EQ(in.zero, 0) << c.name << ": " << who;
    EXPECT_EQ(in.positive, refs.front().second.positive) << c.name << ": " << who << " and " << refs.front().first << " disagree";
    EXPECT_EQ(in.negative, refs.front().second.negative) << c.name << ": " << who << " and " << refs.front().first << " disagree";
  }
  cache[c.name] = refs.front().second;
  return refs.front().second;
}

template <class Space>
double solve_backward_error(ts::Cholesky<double, Space>& s, const ts::CrsMatrix<double>& A) {
  const auto b = rhs_of_ones(A);
  std::vector<double> x(b.size());
  s.solve(x.data(), b.data(), 1);
  return backward_error(A, x.data(), b.data());
}

// lap2d(m) with the variables in `zero` cut loose and given a zero
// diagonal (stored): singular, with exactly those null columns.
ts::CrsMatrix<double> laplacian_with_zero_rows(std::int64_t m, const std::vector<std::int64_t>& zero) {
  const auto L = ts::laplacian_2d<double>(m);
  std::vector<char> cut(std::size_t(L.num_rows()), 0);
  for (std::int64_t z : zero) cut[z] = 1;
  std::vector<std::int64_t> r, c;
  std::vector<double> v;
  for (std::int64_t i = 0; i < L.num_rows(); ++i)
    for (std::int64_t k = L.row_map()[i]; k < L.row_map()[i + 1]; ++k) {
      const std::int64_t j = L.col_idx()[k];
      if (j > i || ((cut[i] || cut[j]) && i != j)) continue;
      r.push_back(i), c.push_back(j), v.push_back(cut[i] ? 0.0 : L.values()[k]);
    }
  return ts::CrsMatrix<double>::from_triplets(L.num_rows(), r, c, v, ts::Storage::Lower, "lap2d with zero rows");
}

// zenios's zero eigenvalues by dsyev, once per process.
std::int64_t zenios_dense_zero_eigenvalues() {
  static const std::int64_t zero =
      dense_inertia(ts::read_matrix_market<double>(data_file("matrices/zenios.mtx"))).zero;
  return zero;
}

}  // namespace

TYPED_TEST(DelayedPivotTest, InertiaMatchesMumpsAndBackwardErrorIsSmall) {
  using Space = TypeParam;
  for (const Case& c : indefinite_cases()) {
    const ts::Inertia expect = reference_inertia(c);
    for (bool pairing : {false, true})
      for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet}) {
        const std::string where = c.name + (pairing ? " paired " : " ") + ts::to_string(sch);
        ts::Cholesky<double, Space> ldlt(ldlt_options(pairing, sch));
        ldlt.factorize(c.A);
        EXPECT_EQ(ldlt.inertia().positive, expect.positive) << where;
        EXPECT_EQ(ldlt.inertia().negative, expect.negative) << where;
        EXPECT_EQ(ldlt.inertia().zero, 0) << where;
        EXPECT_LE(solve_backward_error(ldlt, c.A), 1e-12) << where;
      }
  }
  // Another ordering and a larger threshold (more delays): the same inertia.
  for (const Case& c : indefinite_cases()) {
    ts::Options opt = ldlt_options(false, ts::Scheduler::Tasks, ts::Ordering::Amd);
    opt.pivot_threshold = 0.5;
    ts::Cholesky<double, Space> ldlt(opt);
    ldlt.factorize(c.A);
    const ts::Inertia expect = reference_inertia(c);
    EXPECT_EQ(ldlt.inertia().negative, expect.negative) << c.name << " amd u = 0.5";
    EXPECT_LE(solve_backward_error(ldlt, c.A), 1e-12) << c.name << " amd u = 0.5";
  }
}

TYPED_TEST(DelayedPivotTest, TinyPressureBlockAndTinyDiagonalGridAreBackwardStable) {
  using Space = TypeParam;
  // The two cases the issue measured before delayed pivoting: a Stokes
  // system with pressure block -1e-12 I (backward error 8e-5 at this size;
  // the pivots -1e-12 were taken inside their supernodes) and the 7-point
  // grid with a +-1e-6 diagonal (0.29 at 12^3, and the wrong inertia:
  // 868 positive, 860 negative).
  const Case cases[] = {{"stokes:40:1e-12", ts::stokes_2d<double>(40, 1e-12), {3200, 1521, 0}},
                        {"indef3d:12", ts::indefinite_grid_3d<double>(12)}};
  for (const Case& c : cases) {
    const ts::Inertia expect = reference_inertia(c);
    for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet}) {
      const std::string where = c.name + " " + ts::to_string(sch);
      ts::Cholesky<double, Space> ldlt(ldlt_options(false, sch));
      ldlt.factorize(c.A);
      EXPECT_EQ(ldlt.inertia().positive, expect.positive) << where;
      EXPECT_EQ(ldlt.inertia().negative, expect.negative) << where;
      EXPECT_GT(ldlt.stats().delayed_pivots, 0) << where;
      EXPECT_LE(solve_backward_error(ldlt, c.A), 1e-12) << where;
      // Several right-hand sides at once: each as accurate.
      const std::int64_t n = c.A.num_rows();
      std::vector<double> b(std::size_t(3 * n)), x(std::size_t(3 * n));
      for (std::int64_t i = 0; i < 3 * n; ++i) b[i] = std::sin(0.1 * double(i)) + (i % n == 7 ? 1.0 : 0.0);
      ldlt.solve(x.data(), b.data(), 3);
      for (int r = 0; r < 3; ++r)
        EXPECT_LE(backward_error(c.A, x.data() + r * n, b.data() + r * n), 1e-12) << where << " rhs " << r;
    }
    // Without the threshold test (u = 0: any pivot above eps max|a_ij|,
    // about how the LDL^T pivoted before) the tiny pivots are taken and the
    // growth costs many digits.
    ts::Options loose = ldlt_options();
    loose.pivot_threshold = 0;
    ts::Cholesky<double, Space> ldlt(loose);
    ldlt.factorize(c.A);
    EXPECT_GT(solve_backward_error(ldlt, c.A), 1e-10) << c.name << ": u = 0 should not be backward stable";
  }
}

TYPED_TEST(DelayedPivotTest, DelayedPivotsAreCountedAndFrontsGrow) {
  using Space = TypeParam;
  // [0 0 1; 0 2 1; 1 1 1/2] in the natural order without amalgamation:
  // the elimination tree is 0 -> 2 <- 1, three supernodes. Column 0 (zero
  // diagonal, its only neighbour 2 below the front) passes no test and is
  // delayed to the root front, which then holds {2, 0} as [0 1; 1 0]
  // (a_22 - 1^2 / 2 = 0) and takes them as one 2x2 pivot. One delay, one
  // front grown by one column.
  const auto T = ts::CrsMatrix<double>::from_triplets(3, {0, 1, 2, 2, 2}, {0, 1, 0, 1, 2}, {0, 2, 1, 1, 0.5},
                                                      ts::Storage::Lower, "three");
  for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet}) {
    ts::Options opt = ldlt_options(false, sch, ts::Ordering::Natural);
    opt.amalgamation.relax = false;
    ts::Cholesky<double, Space> ldlt(opt);
    ldlt.factorize(T);
    ASSERT_EQ(ldlt.stats().supernodes, 3);
    EXPECT_EQ(ldlt.stats().delayed_pivots, 1);
    EXPECT_EQ(ldlt.stats().delayed_fronts, 1);
    EXPECT_EQ(ldlt.stats().max_front_growth, 1);
    EXPECT_EQ(ldlt.stats().two_by_two_pivots, 1);
    const ts::Inertia dense = dense_inertia(T);
    EXPECT_EQ(ldlt.inertia().positive, dense.positive);
    EXPECT_EQ(ldlt.inertia().negative, dense.negative);
    const auto b = rhs_of_ones(T);
    std::vector<double> x(3);
    ldlt.solve(x.data(), b.data(), 1);
    for (double v : x) EXPECT_NEAR(v, 1.0, 1e-15);
  }
  // A grid with a tiny diagonal delays most of its columns; the fronts
  // that receive them grow, and so does the factor.
  const auto G = ts::indefinite_grid_3d<double>(10);
  ts::Cholesky<double, Space> ldlt(ldlt_options());
  ldlt.factorize(G);
  const auto& st = ldlt.stats();
  EXPECT_GT(st.delayed_pivots, G.num_rows() / 2);
  EXPECT_GT(st.delayed_fronts, 0);
  EXPECT_GT(st.max_front_growth, 0);
  EXPECT_GT(st.max_delayed_front_rows, st.max_front_rows);
  EXPECT_GT(st.factor_entries, st.stored_l);
  // A positive definite matrix needs none: the factor is the analysis's.
  const auto P = ts::laplacian_2d<double>(20);
  ts::Cholesky<double, Space> spd(ldlt_options());
  spd.factorize(P);
  EXPECT_EQ(spd.stats().delayed_pivots, 0);
  EXPECT_EQ(spd.stats().delayed_fronts, 0);
  EXPECT_EQ(spd.stats().factor_entries, spd.stats().stored_l);
  EXPECT_EQ(spd.inertia().positive, P.num_rows());
}

TYPED_TEST(DelayedPivotTest, SingularMatrixNamesEveryZeroPivotColumn) {
  using Space = TypeParam;
  // Three variables cut loose with a zero diagonal: exactly those columns
  // are null, whatever the ordering.
  const std::vector<std::int64_t> zero = {5, 37, 80};
  const auto Z = laplacian_with_zero_rows(10, zero);
  for (auto ord : {ts::Ordering::Metis, ts::Ordering::Amd, ts::Ordering::Natural})
    for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet}) {
      ts::Cholesky<double, Space> ldlt(ldlt_options(false, sch, ord));
      try {
        ldlt.factorize(Z);
        ADD_FAILURE() << "singular matrix factorized";
      } catch (const ts::factorization_error& e) {
        EXPECT_EQ(e.columns(), zero) << e.what();
        EXPECT_EQ(e.column(), 5);
        EXPECT_NE(std::string(e.what()).find("3 zero pivots"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("columns 6, 38, 81 (1-based"), std::string::npos) << e.what();
      }
      EXPECT_FALSE(ldlt.factorized());
      // The solver stays usable: a nonsingular matrix of the same pattern
      // (a fresh one: copies of a CrsMatrix share their Views).
      auto N = laplacian_with_zero_rows(10, zero);
      for (std::int64_t i : zero)
        for (std::int64_t k = N.row_map()[i]; k < N.row_map()[i + 1]; ++k) N.values()[k] = -3.0;
      ldlt.factorize(N);
      EXPECT_EQ(ldlt.inertia().negative, 3);
      EXPECT_LE(solve_backward_error(ldlt, N), 1e-14);
    }
  // Two equal rows and columns: one zero pivot, at one of the two.
  const auto S = ts::CrsMatrix<double>::from_triplets(3, {0, 1, 1, 2}, {0, 0, 1, 2}, {1, 1, 1, 5}, ts::Storage::Lower);
  ts::Cholesky<double, Space> sing(ldlt_options());
  try {
    sing.factorize(S);
    ADD_FAILURE() << "[1 1; 1 1] (+) 5 factorized";
  } catch (const ts::factorization_error& e) {
    ASSERT_EQ(e.columns().size(), 1u) << e.what();
    EXPECT_TRUE(e.column() == 0 || e.column() == 1) << e.what();
  }
  // zenios (examples/data): the number of zero pivots equals the number of
  // zero eigenvalues dsyev finds (eigenvalues below n eps max|lambda|).
  const auto Zen = ts::read_matrix_market<double>(data_file("matrices/zenios.mtx"));
  ts::Cholesky<double, Space> zen(ldlt_options());
  try {
    zen.factorize(Zen);
    ADD_FAILURE() << "zenios factorized";
  } catch (const ts::factorization_error& e) {
    EXPECT_EQ(std::int64_t(e.columns().size()), zenios_dense_zero_eigenvalues());
  }
}

TYPED_TEST(DelayedPivotTest, StaticPivotingWithRefinementSolvesConsistentSingularSystems) {
  using Space = TypeParam;
  // A KKT system with constraint 0 repeated as the last row: singular, one
  // zero pivot. b = A x0 is consistent; static pivoting replaces the zero
  // pivot and refinement brings the residual down to rounding.
  const std::int64_t nx = 12, m = 40, nv = nx * nx;
  const auto K = ts::kkt_random<double>(nx, m, 9);
  std::vector<std::int64_t> r, c;
  std::vector<double> v;
  for (std::int64_t i = 0; i < K.num_rows(); ++i)
    for (std::int64_t k = K.row_map()[i]; k < K.row_map()[i + 1]; ++k)
      if (K.col_idx()[k] <= i) {
        r.push_back(i), c.push_back(K.col_idx()[k]), v.push_back(K.values()[k]);
        if (i == nv) r.push_back(nv + m), c.push_back(K.col_idx()[k]), v.push_back(K.values()[k]);
      }
  const auto A = ts::CrsMatrix<double>::from_triplets(nv + m + 1, r, c, v, ts::Storage::Lower, "kkt, a repeated row");
  ts::Cholesky<double, Space> plain(ldlt_options());
  try {
    plain.factorize(A);
    ADD_FAILURE() << "singular KKT system factorized";
  } catch (const ts::factorization_error& e) {
    ASSERT_EQ(e.columns().size(), 1u) << e.what();
    EXPECT_TRUE(e.column() == nv || e.column() == nv + m) << e.what();
  }
  std::vector<double> x0(std::size_t(A.num_rows())), b(x0.size()), x(x0.size());
  for (std::size_t i = 0; i < x0.size(); ++i) x0[i] = std::cos(double(i));
  x0[std::size_t(nv + m)] = 0;  // the two copies share one multiplier
  A.multiply(x0.data(), b.data());
  for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet}) {
    ts::Options opt = ldlt_options(false, sch);
    opt.static_pivot = 1e-8;
    opt.refinement_steps = 10;
    ts::Cholesky<double, Space> stat(opt);
    stat.factorize(A);
    EXPECT_EQ(stat.stats().static_pivots, 1);
    stat.solve(x.data(), b.data(), 1);
    EXPECT_LE(backward_error(A, x.data(), b.data()), 1e-14) << ts::to_string(sch);
    EXPECT_GE(stat.stats().refinement_steps_taken, 1);
  }
}

TYPED_TEST(DelayedPivotTest, RefactorizationWithOtherValuesPivotsAgain) {
  using Space = TypeParam;
  // The same pattern with other diagonal signs: other pivots, other delays,
  // one analysis (no pairing: the analysis reads no values).
  ts::Cholesky<double, Space> ldlt(ldlt_options());
  ldlt.analyze(ts::indefinite_grid_3d<double>(9, 1e-6, 1));
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const Case c{"indef3d:9 seed " + std::to_string(seed), ts::indefinite_grid_3d<double>(9, 1e-6, seed)};
    ldlt.factorize(c.A);
    EXPECT_FALSE(ldlt.stats().reanalyzed);
    const ts::Inertia expect = reference_inertia(c);
    EXPECT_EQ(ldlt.inertia().negative, expect.negative) << c.name;
    EXPECT_EQ(ldlt.inertia().positive, expect.positive) << c.name;
    EXPECT_LE(solve_backward_error(ldlt, c.A), 1e-12) << c.name;
  }
}

TYPED_TEST(DelayedPivotTest, PivotOptionsAreChecked) {
  using Solver = ts::Cholesky<double, TypeParam>;
  ts::Options opt = ldlt_options();
  for (double u : {-0.1, 0.6}) {
    opt.pivot_threshold = u;
    EXPECT_THROW(Solver s(opt), ts::sparse_error) << u;
  }
  opt.pivot_threshold = 0.01;
  opt.static_pivot = 1.5;
  EXPECT_THROW(Solver s(opt), ts::sparse_error);
}
