// LDL^T for symmetric indefinite matrices: solutions, and the inertia
// checked against the eigenvalues LAPACK's dense dsyev computes.
#include "sparse_test_util.hpp"

using namespace sparse_test;

template <class Space>
class LdltTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(LdltTest, tessera::test::HostExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(LdltTest, HangGliderSolvesWithTheInertiaOfItsEigenvalues) {
  using Space = TypeParam;
  const auto H = ts::read_matrix_market<double>(data_file("matrices/hangGlider_2.mtx"));
  const ts::Inertia expect = dense_inertia(H);
  EXPECT_EQ(expect.zero, 0);
  for (auto ord : {ts::Ordering::Metis, ts::Ordering::Scotch, ts::Ordering::Natural})
    for (auto sch : {ts::Scheduler::Tasks, ts::Scheduler::LevelSet})
      for (bool pairing : {false, true}) {
        ts::Options opt;
        opt.factorization = ts::Factorization::LDLt;
        opt.ordering = ord;
        opt.scheduler = sch;
        opt.pair_zero_diagonals = pairing;
        ts::Cholesky<double, Space> ldlt(opt);
        ldlt.factorize(H);
        const auto in = ldlt.inertia();
        const auto where = std::string(ts::to_string(ord)) + " " + ts::to_string(sch) + (pairing ? " paired" : "");
        EXPECT_EQ(in.positive, expect.positive) << where;
        EXPECT_EQ(in.negative, expect.negative) << where;
        EXPECT_EQ(in.zero, 0);
        if (pairing) EXPECT_GT(ldlt.stats().paired_variables, 0);
        else EXPECT_EQ(ldlt.stats().paired_variables, 0);
        const auto b = rhs_of_ones(H);
        std::vector<double> x(b.size());
        ldlt.solve(x.data(), b.data(), 1);
        EXPECT_LE(backward_error(H, x.data(), b.data()), 1e-14) << where;
      }
}

TYPED_TEST(LdltTest, RandomIndefiniteMatricesMatchDenseInertia) {
  using Space = TypeParam;
  for (std::uint64_t seed : {11u, 12u, 13u}) {
    const auto A = random_indefinite(200, seed);
    const ts::Inertia expect = dense_inertia(A);
    ts::Options opt;
    opt.factorization = ts::Factorization::LDLt;
    ts::Cholesky<double, Space> ldlt(opt);
    ldlt.factorize(A);
    EXPECT_EQ(ldlt.inertia().positive, expect.positive);
    EXPECT_EQ(ldlt.inertia().negative, expect.negative);
    const auto b = rhs_of_ones(A);
    std::vector<double> x(b.size());
    ldlt.solve(x.data(), b.data(), 1);
    EXPECT_LE(backward_error(A, x.data(), b.data()), 1e-13);
  }
}

TYPED_TEST(LdltTest, SpdMatrixHasAllPositiveInertiaAndSingularIsReported) {
  using Space = TypeParam;
  ts::Options opt;
  opt.factorization = ts::Factorization::LDLt;
  const auto A = ts::laplacian_2d<double>(15);
  ts::Cholesky<double, Space> ldlt(opt);
  ldlt.factorize(A);
  EXPECT_EQ(ldlt.inertia().positive, A.num_rows());
  EXPECT_EQ(ldlt.inertia().negative, 0);
  // Two identical rows and columns (a structurally rank-deficient block).
  const auto S = ts::CrsMatrix<double>::from_triplets(3, {0, 1, 1, 2}, {0, 0, 1, 2}, {1, 1, 1, 5}, ts::Storage::Lower);
  ts::Cholesky<double, Space> sing(opt);
  EXPECT_THROW(sing.factorize(S), ts::factorization_error);
}
