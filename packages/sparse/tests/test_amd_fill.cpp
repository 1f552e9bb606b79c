// Ordering::Amd is SuiteSparse's AMD (issue 26, part 4): the fill of
// Tessera's symbolic analysis under it, nnz(L) from Cholesky::analyze with
// --ordering amd, against CHOLMOD's own AMD analysis of the same matrix
// (cholmod_l_analyze with one method, CHOLMOD_AMD, simplicial: nnz(L) is
// the sum of its column counts), on the example matrices and generated 2-D
// and 3-D Laplacians. CHOLMOD builds the graph of A + A^T itself
// (cholmod_amd) and calls AMD's internal amd_l2 on it, where amd_l_order
// builds it through amd_l_preprocess; CHOLMOD also counts the columns of L
// itself. Adjacency lists in another order could change AMD's tie-breaking
// and so the fill by a little, but on every matrix here the two agree
// exactly (bcsstk13: 265,942 entries both), so the test asks for equality.
#include "sparse_test_util.hpp"

using namespace sparse_test;

#ifdef TESSERA_NO_CHOLMOD
TEST(SparseAmd, FillMatchesCholmodsAmd) {
  FAIL() << "CHOLMOD was not found when this test was configured (Debian 12: libsuitesparse-dev)";
}
#else
#include <suitesparse/cholmod.h>

namespace {

// nnz(L), diagonal included, of CHOLMOD's AMD analysis of A.
double cholmod_amd_fill(const ts::CrsMatrix<double>& A) {
  cholmod_common c;
  cholmod_l_start(&c);
  c.nmethods = 1;
  c.method[0].ordering = CHOLMOD_AMD;
  c.supernodal = CHOLMOD_SIMPLICIAL;
  c.postorder = 1;
  // The upper triangle in compressed columns (stype = 1): A is symmetric,
  // so column j holds row j's entries (i, j) with i <= j.
  const std::int64_t n = A.num_rows();
  std::int64_t upper = 0;
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t q = A.row_map()[j]; q < A.row_map()[j + 1]; ++q) upper += A.col_idx()[q] <= j;
  cholmod_sparse* S = cholmod_l_allocate_sparse(std::size_t(n), std::size_t(n), std::size_t(upper), 1, 1, 1,
                                                CHOLMOD_REAL, &c);
  auto* p = static_cast<SuiteSparse_long*>(S->p);
  auto* i = static_cast<SuiteSparse_long*>(S->i);
  auto* x = static_cast<double*>(S->x);
  SuiteSparse_long k = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    p[j] = k;
    for (std::int64_t q = A.row_map()[j]; q < A.row_map()[j + 1]; ++q)
      if (A.col_idx()[q] <= j) i[k] = A.col_idx()[q], x[k++] = A.values()[q];
  }
  p[n] = k;
  cholmod_factor* L = cholmod_l_analyze(S, &c);
  EXPECT_EQ(c.status, CHOLMOD_OK);
  EXPECT_EQ(L->ordering, CHOLMOD_AMD);
  double fill = 0;
  const auto* count = static_cast<const SuiteSparse_long*>(L->ColCount);
  for (std::int64_t j = 0; j < n; ++j) fill += double(count[j]);
  cholmod_l_free_factor(&L, &c);
  cholmod_l_free_sparse(&S, &c);
  cholmod_l_finish(&c);
  return fill;
}

}  // namespace

TEST(SparseAmd, FillMatchesCholmodsAmd) {
  const ts::CrsMatrix<double> mats[] = {
      ts::read_matrix_market<double>(data_file("matrices/bcsstk13.mtx")),
      ts::read_matrix_market<double>(data_file("matrices/494_bus.mtx")),
      ts::read_matrix_market<double>(data_file("matrices/dwt_992.mtx")),
      ts::read_matrix_market<double>(data_file("matrices/can___24.mtx")),
      ts::read_matrix_market<double>(data_file("matrices/LFAT5.mtx")),
      ts::read_matrix_market<double>(data_file("matrices/hangGlider_2.mtx")),
      ts::read_matrix_market<double>(data_file("matrices/zenios.mtx")),
      ts::laplacian_2d<double>(40),
      ts::laplacian_2d<double>(100),
      ts::laplacian_3d<double>(14),
      ts::laplacian_3d_27pt<double>(9),
  };
  for (const auto& A : mats) {
    // The symbolic analysis alone, as analyze() runs it (Cholesky needs no
    // values: zenios and hangGlider_2 are analyzed, never factored here).
    ts::Cholesky<double> chol({.ordering = ts::Ordering::Amd});
    chol.analyze(A);
    const double tessera = chol.stats().nnz_l, cholmod = cholmod_amd_fill(A);
    EXPECT_EQ(tessera, cholmod) << A.origin() << ": nnz(L) " << tessera << " with Ordering::Amd, " << cholmod
                                << " with CHOLMOD's AMD";
    RecordProperty(A.origin().empty() ? "generated" : A.origin(),
                   std::to_string(std::int64_t(tessera)) + " vs " + std::to_string(std::int64_t(cholmod)));
  }
}

#endif

TEST(SparseAmd, BeatsTheNaturalOrderAndKeepsPermutationConventions) {
  // On a 3-D grid AMD's fill is a fraction of the banded natural order's,
  // and perm[new] = old, iperm[old] = new as for every ordering.
  const auto A = ts::laplacian_3d<double>(12);
  const std::int64_t n = A.num_rows();
  const auto o = ts::compute_ordering(ts::Ordering::Amd, n, A.row_map(), A.col_idx());
  ASSERT_EQ(std::int64_t(o.perm.size()), n);
  for (std::int64_t k = 0; k < n; ++k) EXPECT_EQ(o.iperm[o.perm[k]], k);
  const auto natural = ts::compute_ordering(ts::Ordering::Natural, n, A.row_map(), A.col_idx());
  EXPECT_LT(ts::symbolic_factorization(n, A.row_map(), A.col_idx(), o).nnz_l,
            0.5 * ts::symbolic_factorization(n, A.row_map(), A.col_idx(), natural).nnz_l);
}
