// IC(k): the level-k pattern against the classic row-by-row symbolic
// ILU(k) (the "sum" rule, an independent formulation that Hysom and Pothen
// prove equivalent to the fill-path rule), entries computable by hand, and
// PCG iteration counts that fall as k grows.
#include "sparse_test_util.hpp"

#include <map>
#include <set>

using namespace sparse_test;

template <class Space>
class IncompleteTest : public SpaceTest<Space> {};
TYPED_TEST_SUITE(IncompleteTest, tessera::test::HostExecutionSpaces, tessera::test::SpaceNames);

namespace {

// Row-by-row symbolic ILU(k) of P A P^T: lev(i, j) = min over h of
// lev(i, h) + lev(h, j) + 1, levels above k dropped.
std::vector<std::map<std::int64_t, int>> sum_rule_pattern(const ts::CrsMatrix<double>& A, int k,
                                                          const std::vector<std::int64_t>& perm,
                                                          const std::vector<std::int64_t>& iperm) {
  const std::int64_t n = A.num_rows();
  std::vector<std::map<std::int64_t, int>> rows(n);
  std::vector<std::vector<std::pair<std::int64_t, int>>> cols(n);  // (row j, level) of L(j, h), j > h
  for (std::int64_t i = 0; i < n; ++i) {
    auto& row = rows[i];
    const std::int64_t old = perm[i];
    for (std::int64_t q = A.row_map()[old]; q < A.row_map()[old + 1]; ++q)
      if (iperm[A.col_idx()[q]] < i) row[iperm[A.col_idx()[q]]] = 0;
    for (auto it = row.begin(); it != row.end(); ++it) {
      const std::int64_t h = it->first;
      const int lh = it->second;
      for (auto [j, lhj] : cols[h]) {
        const int l = lh + lhj + 1;
        if (j >= i || l > k) continue;
        auto [pos, fresh] = row.emplace(j, l);
        if (!fresh) pos->second = std::min(pos->second, l);
      }
    }
    for (auto [j, l] : row) cols[j].push_back({i, l});
  }
  return rows;
}

// P A P^T as a dense row-major n x n array (perm[new] = old).
std::vector<double> dense_permuted(const ts::CrsMatrix<double>& A, const std::vector<std::int64_t>& iperm) {
  const std::int64_t n = A.num_rows();
  std::vector<double> B(std::size_t(n * n), 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t q = A.row_map()[i]; q < A.row_map()[i + 1]; ++q)
      B[iperm[i] * n + iperm[A.col_idx()[q]]] = A.values()[q];
  return B;
}

// The incomplete Cholesky factor of the dense B restricted to `keep` (row
// i, column j <= i), by the textbook column formula on dense arrays:
// L(i, j) = (B(i, j) - sum_{k < j} L(i, k) L(j, k)) / L(j, j), L(j, j) =
// sqrt(B(j, j) - sum_{k < j} L(j, k)^2), entries outside `keep` zero.
std::vector<double> dense_incomplete_cholesky(const std::vector<double>& B, std::int64_t n,
                                              const std::vector<char>& keep) {
  std::vector<double> L(std::size_t(n * n), 0.0);
  for (std::int64_t j = 0; j < n; ++j) {
    double d = B[j * n + j];
    for (std::int64_t k = 0; k < j; ++k) d -= L[j * n + k] * L[j * n + k];
    L[j * n + j] = std::sqrt(d);
    for (std::int64_t i = j + 1; i < n; ++i) {
      if (!keep[i * n + j]) continue;
      double s = B[i * n + j];
      for (std::int64_t k = 0; k < j; ++k) s -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = s / L[j * n + j];
    }
  }
  return L;
}

}  // namespace

TYPED_TEST(IncompleteTest, FactorMatchesADenseIncompleteCholeskyOnItsPattern) {
  using Space = TypeParam;
  const ts::CrsMatrix<double> mats[] = {random_spd(70, 6, 41), ts::laplacian_2d<double>(8),
                                        ts::laplacian_3d<double>(4), ts::laplacian_3d_27pt<double>(3)};
  for (const auto& A : mats)
    for (auto ord : {ts::Ordering::Natural, ts::Ordering::Metis})
      for (int k : {0, 1, 2}) {
        ts::IncompleteCholesky<double, Space> ic({.level = k, .ordering = ord});
        ic.factorize(A);
        const std::int64_t n = A.num_rows();
        const auto& p = ic.pattern();
        std::vector<char> keep(std::size_t(n * n), 0);
        for (std::int64_t i = 0; i < n; ++i)
          for (std::int64_t q = p.row_ptr[i]; q < p.row_ptr[i + 1]; ++q) keep[i * n + p.cols[q]] = 1;
        const auto L = dense_incomplete_cholesky(dense_permuted(A, ic.ordering().iperm), n, keep);
        for (std::int64_t i = 0; i < n; ++i)
          for (std::int64_t q = p.row_ptr[i]; q < p.row_ptr[i + 1]; ++q)
            ASSERT_NEAR(ic.values()[q], L[i * n + p.cols[q]], 1e-13 * std::abs(L[i * n + i]))
                << A.origin() << " " << ts::to_string(ord) << " k = " << k << " entry (" << i << ", " << p.cols[q]
                << ")";
      }
}

TYPED_TEST(IncompleteTest, ApplySolvesWithTheFactorInPlaceOrNot) {
  using Space = TypeParam;
  const ts::CrsMatrix<double> mats[] = {random_spd(90, 5, 43), ts::laplacian_3d<double>(5)};
  for (const auto& A : mats)
    for (auto ord : {ts::Ordering::Natural, ts::Ordering::Amd})
      for (int k : {0, 2}) {
        ts::IncompleteCholesky<double, Space> ic({.level = k, .ordering = ord});
        ic.factorize(A);
        const std::int64_t n = A.num_rows();
        std::vector<double> r(static_cast<std::size_t>(n)), z(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) r[i] = std::sin(0.7 * double(i) + 0.3);
        ic.apply(r.data(), z.data());
        // L L^T (P z) must give back P r; L from the factor's own rows.
        const auto& p = ic.pattern();
        const auto& perm = ic.ordering().perm;
        std::vector<double> t(std::size_t(n), 0.0), back(std::size_t(n), 0.0);
        for (std::int64_t i = 0; i < n; ++i)  // t = L^T (P z)
          for (std::int64_t q = p.row_ptr[i]; q < p.row_ptr[i + 1]; ++q) t[p.cols[q]] += ic.values()[q] * z[perm[i]];
        for (std::int64_t i = 0; i < n; ++i)  // back = L t
          for (std::int64_t q = p.row_ptr[i]; q < p.row_ptr[i + 1]; ++q) back[i] += ic.values()[q] * t[p.cols[q]];
        for (std::int64_t i = 0; i < n; ++i)
          ASSERT_NEAR(back[i], r[perm[i]], 1e-12) << A.origin() << " k = " << k << " row " << i;
        std::vector<double> inplace = r;
        ic.apply(inplace.data(), inplace.data());
        for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(inplace[i], z[i]) << "in place, row " << i;
      }
}

TYPED_TEST(IncompleteTest, SequentialAndLevelSetSchedulesAgree) {
  using Space = TypeParam;
  // Serial always sweeps sequentially; a pool of more than one thread uses
  // level sets. The factor is the same arithmetic row by row in both, and
  // the solves subtract the same products in the same order (the backward
  // one by rows of U in one, by U^T's rows walked backwards in the other):
  // equal bits.
  const auto A = ts::laplacian_3d<double>(7);
  for (int k : {0, 1}) {
    ts::IncompleteCholesky<double, Space> ic({.level = k});
    ts::IncompleteCholesky<double, tessera::Serial> ref({.level = k});
    ic.factorize(A);
    ref.factorize(A);
    ASSERT_EQ(ic.values(), ref.values()) << "k = " << k;
    const std::int64_t n = A.num_rows();
    std::vector<double> r(static_cast<std::size_t>(n)), z(static_cast<std::size_t>(n)), zr(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) r[i] = 1.0 + double(i % 5);
    ic.apply(r.data(), z.data());
    ref.apply(r.data(), zr.data());
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(z[i], zr[i]) << "k = " << k << " row " << i;
  }
}

TEST(SparseCrsMatrix, SymmetricPatternCheckAgreesWithAPairwiseSearch) {
  // Random patterns, symmetric or with one mirror removed: the check throws
  // exactly when some (i, j) lacks (j, i), and names the first such entry in
  // row-major order (found here by brute force over the triplets).
  std::mt19937_64 gen(7);
  for (int trial = 0; trial < 60; ++trial) {
    const std::int64_t n = 2 + std::int64_t(gen() % 12);
    std::set<std::pair<std::int64_t, std::int64_t>> entries;
    for (int e = 0; e < 3 * n; ++e) {
      const std::int64_t i = std::int64_t(gen() % n), j = std::int64_t(gen() % n);
      entries.insert({i, j});
      entries.insert({j, i});
    }
    if (trial % 2 == 1) entries.erase(std::next(entries.begin(), std::int64_t(gen() % entries.size())));
    std::vector<std::int64_t> r, c;
    std::vector<double> v;
    for (auto [i, j] : entries) r.push_back(i), c.push_back(j), v.push_back(1.0);
    const auto A = ts::CrsMatrix<double>::from_triplets(n, r, c, v, ts::Storage::Full, "trial");
    std::string expected;
    for (auto [i, j] : entries)
      if (!entries.count({j, i})) {
        expected = "entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) + ") is stored";
        break;
      }
    std::string got;
    try {
      A.check_symmetric_pattern();
    } catch (const ts::sparse_error& e) {
      got = e.what();
    }
    if (expected.empty()) EXPECT_EQ(got, "") << "trial " << trial;
    else EXPECT_NE(got.find(expected), std::string::npos) << "trial " << trial << ": " << got << " vs " << expected;
  }
}

TYPED_TEST(IncompleteTest, LevelKPatternMatchesTheRowByRowSymbolicIlu) {
  using Space = TypeParam;
  const ts::CrsMatrix<double> mats[] = {random_spd(150, 6, 21), random_spd(200, 4, 22), ts::laplacian_2d<double>(12),
                                        ts::laplacian_3d_27pt<double>(5)};
  for (const auto& A : mats)
    for (auto ord : {ts::Ordering::Natural, ts::Ordering::Metis})
      for (int k : {0, 1, 2, 3}) {
        const auto o = ts::compute_ordering(ord, A.num_rows(), A.row_map(), A.col_idx());
        const auto p = ts::level_k_pattern<Space>(A.num_rows(), A.row_map(), A.col_idx(), k, o.perm, o.iperm);
        const auto ref = sum_rule_pattern(A, k, o.perm, o.iperm);
        for (std::int64_t i = 0; i < A.num_rows(); ++i) {
          std::map<std::int64_t, int> got;
          for (std::int64_t q = p.row_ptr[i]; q + 1 < p.row_ptr[i + 1]; ++q) got[p.cols[q]] = p.level[q];
          ASSERT_EQ(got, ref[i]) << A.origin() << " k = " << k << " row " << i;
          EXPECT_EQ(p.cols[p.row_ptr[i + 1] - 1], i) << "the diagonal ends each row";
        }
      }
}

TYPED_TEST(IncompleteTest, LargeLevelGivesTheCompleteFactorsPattern) {
  using Space = TypeParam;
  const auto A = random_spd(120, 5, 31);
  const auto o = ts::compute_ordering(ts::Ordering::Amd, A.num_rows(), A.row_map(), A.col_idx());
  const auto p = ts::level_k_pattern<Space>(A.num_rows(), A.row_map(), A.col_idx(), int(A.num_rows()), o.perm, o.iperm);
  const auto f = ts::symbolic_factorization(A.num_rows(), A.row_map(), A.col_idx(), o);
  EXPECT_EQ(double(p.nnz()), f.nnz_l);
}

TYPED_TEST(IncompleteTest, Ic0OfTridiagonalIsItsExactCholesky) {
  using Space = TypeParam;
  // The 1-D Laplacian tridiag(-1, 2, -1): L(k, k) = sqrt((k + 2) / (k + 1)),
  // L(k + 1, k) = -sqrt((k + 1) / (k + 2)) (0-based), no fill at all.
  const std::int64_t n = 10;
  std::vector<std::int64_t> r, c;
  std::vector<double> v;
  for (std::int64_t i = 0; i < n; ++i) {
    r.push_back(i), c.push_back(i), v.push_back(2);
    if (i > 0) r.push_back(i), c.push_back(i - 1), v.push_back(-1);
  }
  const auto A = ts::CrsMatrix<double>::from_triplets(n, r, c, v, ts::Storage::Lower);
  ts::IncompleteCholesky<double, Space> ic;
  ic.factorize(A);
  const auto& p = ic.pattern();
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t diag = p.row_ptr[k + 1] - 1;
    EXPECT_NEAR(ic.values()[diag], std::sqrt(double(k + 2) / double(k + 1)), 1e-15);
    if (k > 0) {
      EXPECT_NEAR(ic.values()[diag - 1], -std::sqrt(double(k) / double(k + 1)), 1e-15);
    }
  }
}

TYPED_TEST(IncompleteTest, Ic0AndIc1OnA3x3GridByHand) {
  using Space = TypeParam;
  // 5-point Laplacian on a 3 x 3 grid, natural order: unknown x + 3 y.
  const auto A = ts::laplacian_2d<double>(3);
  auto entry = [](const ts::IncompleteCholesky<double, Space>& ic, std::int64_t i, std::int64_t j) {
    const auto& p = ic.pattern();
    for (std::int64_t q = p.row_ptr[i]; q < p.row_ptr[i + 1]; ++q)
      if (p.cols[q] == j) return ic.values()[q];
    return std::nan("");
  };
  ts::IncompleteCholesky<double, Space> ic0({.level = 0});
  ic0.factorize(A);
  EXPECT_DOUBLE_EQ(entry(ic0, 0, 0), 2.0);                  // sqrt(4)
  EXPECT_DOUBLE_EQ(entry(ic0, 1, 0), -0.5);                 // -1 / 2
  EXPECT_DOUBLE_EQ(entry(ic0, 3, 0), -0.5);
  EXPECT_DOUBLE_EQ(entry(ic0, 1, 1), std::sqrt(3.75));      // 4 - 1/4
  EXPECT_TRUE(std::isnan(entry(ic0, 3, 1)));                // fill of level 1: dropped
  // 3 sees 0 (level 0) and, through 0, 1 at level 1: IC(1) keeps
  // L(3, 1) = (0 - L(3,0) L(1,0)) / L(1,1) = -0.25 / sqrt(3.75).
  ts::IncompleteCholesky<double, Space> ic1({.level = 1});
  ic1.factorize(A);
  EXPECT_DOUBLE_EQ(entry(ic1, 3, 1), -0.25 / std::sqrt(3.75));
  EXPECT_EQ(ic1.pattern().level[ic1.pattern().row_ptr[3] + 1], 1);
}

TYPED_TEST(IncompleteTest, PcgIterationsFallAsKGrows) {
  using Space = TypeParam;
  const auto A = ts::laplacian_2d<double>(40);
  const auto b = rhs_of_ones(A);
  std::vector<int> iterations;
  for (int k : {0, 1, 2, 4}) {
    ts::IncompleteCholesky<double, Space> ic({.level = k});
    ic.factorize(A);
    std::vector<double> x(b.size(), 0.0);
    const auto res = ts::pcg<Space>(A, b.data(), x.data(), ic, {1e-10, 1000});
    ASSERT_TRUE(res.converged) << "k = " << k;
    EXPECT_LE(backward_error(A, x.data(), b.data()), 1e-10);
    iterations.push_back(res.iterations);
  }
  for (std::size_t q = 1; q < iterations.size(); ++q) EXPECT_LT(iterations[q], iterations[q - 1]) << "k step " << q;
}

TYPED_TEST(IncompleteTest, BreakdownNamesTheColumn) {
  using Space = TypeParam;
  // [1 2; 2 1] is indefinite: the second pivot is 1 - 4 = -3.
  const auto A = ts::CrsMatrix<double>::from_triplets(2, {0, 1, 1}, {0, 0, 1}, {1, 2, 1}, ts::Storage::Lower);
  ts::IncompleteCholesky<double, Space> ic;
  try {
    ic.factorize(A);
    ADD_FAILURE() << "IC(0) of an indefinite matrix must fail";
  } catch (const ts::factorization_error& e) {
    EXPECT_EQ(e.column(), 1);
    EXPECT_NE(std::string(e.what()).find("column 2"), std::string::npos) << e.what();
  }
  std::vector<double> r(2, 1.0), z(2);
  EXPECT_THROW(ic.apply(r.data(), z.data()), ts::sparse_error);
}
