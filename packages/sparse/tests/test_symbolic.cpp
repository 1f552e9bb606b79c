// Orderings and symbolic analysis against brute force: the elimination
// tree and column counts of a dense symbolic elimination, the supernodal
// structure covering exactly L's nonzeros, and valid permutations from
// every ordering with their documented directions.
#include "sparse_test_util.hpp"

#include <set>

using namespace sparse_test;

namespace {

// Dense symbolic elimination of P A P^T: the pattern of L by columns.
std::vector<std::set<std::int64_t>> brute_force_pattern(const ts::CrsMatrix<double>& A,
                                                        const std::vector<std::int64_t>& perm,
                                                        const std::vector<std::int64_t>& iperm) {
  const std::int64_t n = A.num_rows();
  std::vector<std::set<std::int64_t>> col(n);
  for (std::int64_t j = 0; j < n; ++j) {
    col[j].insert(j);
    const std::int64_t old = perm[j];
    for (std::int64_t k = A.row_map()[old]; k < A.row_map()[old + 1]; ++k)
      if (iperm[A.col_idx()[k]] > j) col[j].insert(iperm[A.col_idx()[k]]);
  }
  for (std::int64_t j = 0; j < n; ++j) {
    // Eliminating j connects all of its later neighbours: they fill the
    // column of j's first later neighbour (its parent).
    auto it = col[j].upper_bound(j);
    if (it == col[j].end()) continue;
    const std::int64_t p = *it;
    for (auto r = it; r != col[j].end(); ++r) col[p].insert(*r);
  }
  return col;
}

}  // namespace

TEST(SparseSymbolic, EliminationTreeAndColumnCountsMatchBruteForce) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto A = random_spd(120, 5, seed);
    for (auto ord : {ts::Ordering::Natural, ts::Ordering::Metis, ts::Ordering::Amd}) {
      const auto o = ts::compute_ordering(ord, A.num_rows(), A.row_map(), A.col_idx());
      const auto f = ts::symbolic_factorization(A.num_rows(), A.row_map(), A.col_idx(), o);
      const auto pattern = brute_force_pattern(A, f.perm, f.iperm);
      double nnz = 0;
      for (std::int64_t j = 0; j < A.num_rows(); ++j) {
        EXPECT_EQ(f.colcount[j], std::int64_t(pattern[j].size())) << "column " << j;
        const auto next = pattern[j].upper_bound(j);
        EXPECT_EQ(f.etree[j], next == pattern[j].end() ? -1 : *next) << "parent of " << j;
        nnz += double(pattern[j].size());
        // The supernode holding j stores every row of L(:, j).
        const std::int64_t s = f.col_to_super[j];
        const std::set<std::int64_t> rows(f.rows.begin() + f.rows_ptr[s], f.rows.begin() + f.rows_ptr[s + 1]);
        for (std::int64_t r : pattern[j]) EXPECT_TRUE(rows.count(r)) << "row " << r << " of column " << j;
      }
      EXPECT_EQ(f.nnz_l, nnz);
      EXPECT_GE(f.stored_l, f.nnz_l);
    }
  }
}

TEST(SparseSymbolic, FundamentalSupernodesStoreNoZeros) {
  const auto A = ts::laplacian_3d<double>(6);
  const auto o = ts::compute_ordering(ts::Ordering::Metis, A.num_rows(), A.row_map(), A.col_idx());
  ts::AmalgamationOptions exact;
  exact.relax = false;
  const auto f = ts::symbolic_factorization(A.num_rows(), A.row_map(), A.col_idx(), o, exact);
  EXPECT_EQ(f.stored_l, f.nnz_l);
  const auto relaxed = ts::symbolic_factorization(A.num_rows(), A.row_map(), A.col_idx(), o);
  EXPECT_LT(relaxed.nsuper, f.nsuper);
  EXPECT_EQ(relaxed.nnz_l, f.nnz_l);
}

TEST(SparseSymbolic, OrderingsArePermutationsInTheDocumentedDirection) {
  const auto A = ts::laplacian_2d<double>(30);
  const std::int64_t n = A.num_rows();
  for (auto ord : {ts::Ordering::Metis, ts::Ordering::Scotch, ts::Ordering::Amd, ts::Ordering::Natural}) {
    const auto o = ts::compute_ordering(ord, n, A.row_map(), A.col_idx());
    ASSERT_EQ(std::int64_t(o.perm.size()), n);
    for (std::int64_t k = 0; k < n; ++k) EXPECT_EQ(o.iperm[o.perm[k]], k) << ts::to_string(ord);
  }
  // Scotch's separator tree covers the columns and its parents point up.
  const auto s = ts::compute_ordering(ts::Ordering::Scotch, n, A.row_map(), A.col_idx());
  ASSERT_GT(s.tree.num_blocks(), 1);
  EXPECT_EQ(s.tree.range.front(), 0);
  EXPECT_EQ(s.tree.range.back(), n);
  for (std::int64_t b = 0; b < s.tree.num_blocks(); ++b)
    EXPECT_TRUE(s.tree.parent[b] == -1 || s.tree.parent[b] > b) << "block " << b;
  // Nested dissection and minimum degree beat the natural (banded) order on a grid.
  auto fill = [&](ts::Ordering ord) {
    const auto o = ts::compute_ordering(ord, n, A.row_map(), A.col_idx());
    return ts::symbolic_factorization(n, A.row_map(), A.col_idx(), o).nnz_l;
  };
  const double natural = fill(ts::Ordering::Natural);
  EXPECT_LT(fill(ts::Ordering::Metis), 0.7 * natural);
  EXPECT_LT(fill(ts::Ordering::Scotch), 0.7 * natural);
  EXPECT_LT(fill(ts::Ordering::Amd), 0.7 * natural);
  EXPECT_THROW(ts::parse_ordering("colamd"), ts::sparse_error);
  EXPECT_THROW(ts::invert_permutation({0, 0, 1}, "test"), ts::sparse_error);
}

TEST(SparseSymbolic, TreeOfAForestIsPostordered) {
  // Two trees: 0 -> 2, 1 -> 2, 3 -> 4.
  const std::vector<std::int64_t> parent{2, 2, -1, 4, -1};
  EXPECT_EQ(ts::tree_postorder(parent), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  const std::vector<std::int64_t> parent2{-1, 0, 0, 1};
  EXPECT_EQ(ts::tree_postorder(parent2), (std::vector<std::int64_t>{3, 1, 2, 0}));
}
