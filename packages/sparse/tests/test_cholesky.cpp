// Cholesky factorization and solves against independent references: a
// textbook dense Cholesky of P A P^T on small matrices, and the backward
// error of A x = b on the shared SPD matrices.
#include "sparse_test_util.hpp"

using namespace sparse_test;

template <class Space>
class CholeskyTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(CholeskyTest, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

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
