// Cholesky factorization and solves against independent references: a
// textbook dense Cholesky of P A P^T on small matrices, and the backward
// error of A x = b on the shared SPD matrices.
#include "sparse_test_util.hpp"

using namespace sparse_test;

template <class Space>
class CholeskyTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(CholeskyTest, tessera::test::HostExecutionSpaces, tessera::test::SpaceNames);

namespace {

template <class Space>
void expect_factor_matches_dense(const ts::CrsMatrix<double>& A, ts::Options opt) {
  ts::Cholesky<double, Space> chol(opt);
  chol.factorize(A);
  const std::int64_t n = A.num_rows();
  auto ref = permuted_dense(A, chol.permutation());
  ASSERT_TRUE(dense_cholesky(ref, n));
  const auto l = factor_as_dense(chol.symbolic(), chol.factor_values());
  double err = 0, scale = 0;
  for (std::size_t k = 0; k < l.size(); ++k) {
    err = std::max(err, std::abs(l[k] - ref[k]));
    scale = std::max(scale, std::abs(ref[k]));
  }
  EXPECT_LE(err, 1e-12 * scale) << A.origin() << " ordering " << ts::to_string(opt.ordering) << " scheduler "
                                << ts::to_string(opt.scheduler);
}

}  // namespace

TYPED_TEST(CholeskyTest, FactorMatchesDenseCholeskyForEveryOrderingAndScheduler) {
  using Space = TypeParam;
  const ts::CrsMatrix<double> mats[] = {ts::laplacian_2d<double>(9), ts::laplacian_3d<double>(5),
                                        ts::laplacian_3d_27pt<double>(4), random_spd(150, 6, 7)};
  for (const auto& A : mats)
    for (auto ord : {ts::Ordering::Metis, ts::Ordering::Scotch, ts::Ordering::Amd, ts::Ordering::Natural})
      for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet}) {
        ts::Options opt;
        opt.ordering = ord;
        opt.scheduler = sch;
        opt.max_block = 8;  // small blocks: the blocked fronts run even on small matrices
        expect_factor_matches_dense<Space>(A, opt);
      }
}

TYPED_TEST(CholeskyTest, SharedSpdMatricesSolveToBackwardError1e12) {
  using Space = TypeParam;
  for (const char* file : {"matrices/LFAT5.mtx", "matrices/494_bus.mtx", "matrices/bcsstk13.mtx",
                           "matrices/can___24.mtx", "matrices/dwt_992.mtx"}) {
    const auto A = ts::read_matrix_market<double>(data_file(file));
    for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet}) {
      ts::Options opt;
      opt.scheduler = sch;
      ts::Cholesky<double, Space> chol(opt);
      chol.analyze(A);
      chol.factorize(A);
      const auto b = rhs_of_ones(A);
      tessera::View<double*, tessera::HostSpace> x("x", A.num_rows());
      tessera::View<const double*, tessera::HostSpace> bv(b.data(), b.size());
      chol.solve(x, bv);
      EXPECT_LE(backward_error(A, x.data(), b.data()), 1e-12) << file << " " << ts::to_string(sch);
    }
  }
}

TYPED_TEST(CholeskyTest, TasksAndLevelSetsGiveTheSameFactorToRounding) {
  using Space = TypeParam;
  const auto A = ts::laplacian_3d<double>(14);
  ts::Options opt;
  opt.max_block = 32;
  opt.scheduler = ts::Scheduler::Tasks;
  ts::Cholesky<double, Space> tasks(opt);
  tasks.factorize(A);
  opt.scheduler = ts::Scheduler::LevelSet;
  ts::Cholesky<double, Space> levels(opt);
  levels.factorize(A);
  ASSERT_EQ(tasks.permutation(), levels.permutation());
  ASSERT_GT(tasks.stats().tasks, 0);
  const auto& f = tasks.symbolic();
  const std::size_t size = std::size_t(f.lx_ptr[f.nsuper]);
  double diff = 0, scale = 0;
  // Compare the lower trapezoids of the panels (the upper parts of the
  // diagonal blocks are not part of L).
  for (std::int64_t s = 0; s < f.nsuper; ++s)
    for (std::int64_t c = 0; c < f.ncols(s); ++c)
      for (std::int64_t r = c; r < f.nrows(s); ++r) {
        const std::size_t q = std::size_t(f.lx_ptr[s] + r + c * f.nrows(s));
        ASSERT_LT(q, size);
        diff = std::max(diff, std::abs(tasks.factor_values()[q] - levels.factor_values()[q]));
        scale = std::max(scale, std::abs(levels.factor_values()[q]));
      }
  EXPECT_LE(diff, 1e-13 * scale);
}

TYPED_TEST(CholeskyTest, RefactorizationReusesTheAnalysisAndRejectsAnotherPattern) {
  using Space = TypeParam;
  const auto A = ts::laplacian_3d<double>(10);
  ts::Cholesky<double, Space> chol;
  chol.analyze(A);
  const auto perm = chol.permutation();
  for (double shift : {0.0, 1.0, 100.0}) {
    // A + shift * I: same pattern, new values.
    auto B = ts::laplacian_3d<double>(10);
    for (std::int64_t i = 0; i < B.num_rows(); ++i)
      for (std::int64_t k = B.row_map()[i]; k < B.row_map()[i + 1]; ++k)
        if (B.col_idx()[k] == i) B.values()[k] += shift;
    chol.factorize(B);
    EXPECT_EQ(chol.permutation(), perm);
    const auto b = rhs_of_ones(B);
    std::vector<double> x(b.size());
    chol.solve(x.data(), b.data(), 1);
    EXPECT_LE(backward_error(B, x.data(), b.data()), 1e-14) << "shift " << shift;
    for (double xi : x) EXPECT_NEAR(xi, 1.0, 1e-10);
  }
  EXPECT_THROW(chol.factorize(ts::laplacian_3d<double>(9)), ts::sparse_error);
  EXPECT_THROW(chol.factorize(ts::laplacian_3d_27pt<double>(10)), ts::sparse_error);
}

TYPED_TEST(CholeskyTest, ManyRightHandSidesAtOnceEqualOneAtATime) {
  using Space = TypeParam;
  const auto A = ts::read_matrix_market<double>(data_file("matrices/494_bus.mtx"));
  const std::int64_t n = A.num_rows(), k = 5;
  ts::Cholesky<double, Space> chol;
  chol.factorize(A);
  tessera::View<double**, tessera::LayoutLeft, tessera::HostSpace> B("B", n, k), X("X", n, k);
  std::mt19937_64 gen(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::int64_t c = 0; c < k; ++c)
    for (std::int64_t i = 0; i < n; ++i) B(i, c) = u(gen);
  chol.solve(X, B);
  for (std::int64_t c = 0; c < k; ++c) {
    std::vector<double> b(n), x(n);
    for (std::int64_t i = 0; i < n; ++i) b[i] = B(i, c);
    chol.solve(x.data(), b.data(), 1);
    for (std::int64_t i = 0; i < n; ++i) EXPECT_NEAR(X(i, c), x[i], 1e-12 * (1 + std::abs(x[i])));
    EXPECT_LE(backward_error(A, x.data(), b.data()), 1e-12);
  }
  // Shapes are checked.
  tessera::View<double**, tessera::LayoutLeft, tessera::HostSpace> wrong("wrong", n, k + 1);
  EXPECT_THROW(chol.solve(wrong, B), ts::sparse_error);
}

TYPED_TEST(CholeskyTest, IndefiniteMatrixNamesTheColumnAndTheSolverStaysUsable) {
  using Space = TypeParam;
  const auto H = ts::read_matrix_market<double>(data_file("matrices/hangGlider_2.mtx"));
  for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet}) {
    ts::Options opt;
    opt.scheduler = sch;
    ts::Cholesky<double, Space> chol(opt);
    try {
      chol.factorize(H);
      ADD_FAILURE() << "hangGlider_2 is indefinite: Cholesky must fail";
    } catch (const ts::factorization_error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("pivot of column " + std::to_string(e.column() + 1)), std::string::npos) << msg;
      EXPECT_GE(e.column(), 0);
      EXPECT_LT(e.column(), H.num_rows());
      EXPECT_LE(e.value(), 0.0);
    }
    EXPECT_FALSE(chol.factorized());
    std::vector<double> x(H.num_rows()), b(H.num_rows(), 1.0);
    EXPECT_THROW(chol.solve(x.data(), b.data(), 1), ts::sparse_error);
  }
  // The same object factorizes an SPD matrix of the same pattern next.
  const auto A = ts::laplacian_2d<double>(12);
  auto bad = ts::laplacian_2d<double>(12);
  for (std::int64_t k = bad.row_map()[77]; k < bad.row_map()[78]; ++k)
    if (bad.col_idx()[k] == 77) bad.values()[k] = -4.0;
  ts::Cholesky<double, Space> chol;
  try {
    chol.factorize(bad);
    ADD_FAILURE() << "a negative diagonal entry must fail";
  } catch (const ts::factorization_error& e) {
    EXPECT_NE(std::string(e.what()).find("column"), std::string::npos);
  }
  chol.factorize(A);
  const auto b = rhs_of_ones(A);
  std::vector<double> x(b.size());
  chol.solve(x.data(), b.data(), 1);
  EXPECT_LE(backward_error(A, x.data(), b.data()), 1e-14);
}

TYPED_TEST(CholeskyTest, SingularMatrixFailsClearly) {
  using Space = TypeParam;
  const auto Z = ts::read_matrix_market<double>(data_file("matrices/zenios.mtx"));
  ts::Cholesky<double, Space> chol;
  try {
    chol.factorize(Z);
    ADD_FAILURE() << "zenios is singular: Cholesky must fail";
  } catch (const ts::factorization_error& e) {
    EXPECT_NE(std::string(e.what()).find("column " + std::to_string(e.column() + 1)), std::string::npos) << e.what();
  }
  // A singular 2x2 ([1 1; 1 1]) gives an exactly zero pivot.
  const auto S = ts::CrsMatrix<double>::from_triplets(2, {0, 1, 1}, {0, 0, 1}, {1, 1, 1}, ts::Storage::Lower);
  ts::Options opt;
  opt.ordering = ts::Ordering::Natural;
  ts::Cholesky<double, Space> two(opt);
  try {
    two.factorize(S);
    ADD_FAILURE() << "[1 1; 1 1] is singular";
  } catch (const ts::factorization_error& e) {
    EXPECT_NE(std::string(e.what()).find("singular"), std::string::npos) << e.what();
    EXPECT_EQ(e.column(), 1);
  }
  // A pivot tolerance turns a tiny pivot into an error: [1 1; 1 1 + 1e-14].
  const auto T = ts::CrsMatrix<double>::from_triplets(2, {0, 1, 1}, {0, 0, 1}, {1, 1, 1 + 1e-14}, ts::Storage::Lower);
  opt.pivot_tolerance = 1e-10;
  ts::Cholesky<double, Space> tol(opt);
  EXPECT_THROW(tol.factorize(T), ts::factorization_error);
  opt.pivot_tolerance = 0;
  ts::Cholesky<double, Space> no_tol(opt);
  EXPECT_NO_THROW(no_tol.factorize(T));
}

TYPED_TEST(CholeskyTest, TinyTaskPoolStillFactorsAnyMatrix) {
  using Space = TypeParam;
  // 64 KiB of task memory holds a few hundred tasks; the generator must
  // respawn and retry when it is full.
  const auto A = ts::laplacian_3d<double>(16);
  ts::Options opt;
  opt.task_memory_bytes = 64 << 10;
  opt.task_window = 16;
  opt.max_block = 16;
  opt.subtree_fraction = 1.0 / 256;
  ts::Cholesky<double, Space> chol(opt);
  chol.factorize(A);
  EXPECT_GT(chol.stats().tasks, 500);
  EXPECT_GT(chol.stats().generator_runs, 10);
  const auto b = rhs_of_ones(A);
  std::vector<double> x(b.size());
  chol.solve(x.data(), b.data(), 1);
  EXPECT_LE(backward_error(A, x.data(), b.data()), 1e-14);
  // 6 KiB holds only a handful of tasks at once: still enough, because the
  // generator waits for room (and drops the futures of finished tasks).
  opt.task_memory_bytes = 6 << 10;
  ts::Cholesky<double, Space> small(opt);
  small.factorize(A);
  std::vector<double> y(b.size());
  small.solve(y.data(), b.data(), 1);
  EXPECT_EQ(x, y);
}

TYPED_TEST(CholeskyTest, SmallestTaskPoolStillFactorsAndSolves) {
  using Space = TypeParam;
  // 256 bytes asked: the pool is the scheduler's least, four 4 KiB superblocks
  // (one per record size at once), a few dozen records of each size. The
  // generators fill it over and over, stall with nothing to wait for while
  // workers still cache freed records, and are restarted by the host
  // (detail/task_room.hpp); the result must not depend on any of that.
  const auto A = ts::laplacian_3d<double>(9);
  ts::Options opt;
  opt.max_block = 8;
  opt.subtree_fraction = 1.0 / 512;
  ts::Cholesky<double, Space> reference(opt);
  reference.factorize(A);
  opt.task_memory_bytes = 256;
  ts::Cholesky<double, Space> chol(opt);
  chol.factorize(A);
  EXPECT_EQ(chol.stats().tasks, reference.stats().tasks);
  const auto b = rhs_of_ones(A);
  std::vector<double> x(b.size()), y(b.size());
  reference.solve(x.data(), b.data(), 1);
  chol.solve(y.data(), b.data(), 1);
  EXPECT_EQ(x, y);
  EXPECT_LE(backward_error(A, y.data(), b.data()), 1e-14);
}

TYPED_TEST(CholeskyTest, IterativeRefinementAndEmptyMatrix) {
  using Space = TypeParam;
  const auto A = ts::read_matrix_market<double>(data_file("matrices/bcsstk13.mtx"));
  ts::Options opt;
  opt.refinement_steps = 2;
  ts::Cholesky<double, Space> chol(opt);
  chol.factorize(A);
  auto b = rhs_of_ones(A);
  const auto b0 = b;
  chol.solve(b.data(), b.data(), 1);  // in place: x overwrites b
  EXPECT_LE(backward_error(A, b.data(), b0.data()), 1e-15);
  ts::Cholesky<double, Space> empty;
  const auto E = ts::CrsMatrix<double>::from_triplets(0, {}, {}, {}, ts::Storage::Full);
  EXPECT_NO_THROW(empty.factorize(E));
  EXPECT_NO_THROW(empty.factorize(E));  // again: the pattern check of a matrix with no entries (a rank with no rows in dist)
  EXPECT_NO_THROW(empty.solve(nullptr, nullptr, 1));
}
