// The row-distributed CRS matrix and its SpMV: scattered and generated
// matrices hold exactly the node-level rows, the halo plan moves exactly the
// off-rank columns, and y = A x equals the node-level product to rounding on
// the repository's matrices and on the 3-D Laplacian, on 1, 2 and 4 ranks
// (and on every host back-end inside each rank).
#include "solve_test_util.hpp"

#include <algorithm>
#include <set>

using namespace solve_test;

namespace {

// The distributed rows equal the node-level matrix's rows of the same
// global numbers, entry for entry and in the same order; the diagonal block
// holds exactly their entries in owned columns, the off-diagonal block the
// others; the ghosts are exactly the off-range columns (a set computed here
// from the node-level rows).
void expect_same_rows(const td::DistCrsMatrix<double>& D, const ts::CrsMatrix<double>& A) {
  ASSERT_EQ(D.num_rows(), A.num_rows());
  EXPECT_EQ(D.global_nnz(), A.nnz());
  const ts::CrsMatrix<double>& B = D.diagonal_block();
  ASSERT_EQ(B.num_rows(), D.num_owned());
  std::int64_t block_nnz = 0;
  std::set<std::int64_t> off_range;
  for (std::int64_t i = D.row_begin(); i < D.row_end(); ++i) {
    const std::int64_t li = i - D.row_begin();
    ASSERT_EQ(D.row_length(li), A.row_map()[i + 1] - A.row_map()[i]) << "row " << i;
    std::vector<std::int64_t> cols;
    std::vector<double> vals;
    D.for_each_entry(li, [&](std::int32_t c, double v) {
      cols.push_back(D.global_column(c));
      vals.push_back(v);
    });
    EXPECT_EQ(cols, std::vector<std::int64_t>(A.col_idx() + A.row_map()[i], A.col_idx() + A.row_map()[i + 1])) << "row " << i;
    EXPECT_EQ(vals, std::vector<double>(A.values() + A.row_map()[i], A.values() + A.row_map()[i + 1])) << "row " << i;
    std::vector<std::int64_t> owned_cols, block_cols;
    std::vector<double> owned_vals, block_vals;
    for (auto k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k) {
      const std::int64_t j = A.col_idx()[k];
      if (j < D.row_begin() || j >= D.row_end()) {
        off_range.insert(j);
      } else {
        owned_cols.push_back(j - D.row_begin());
        owned_vals.push_back(A.values()[k]);
      }
    }
    for (auto k = B.row_map()[li]; k < B.row_map()[li + 1]; ++k) {
      block_cols.push_back(B.col_idx()[k]);
      block_vals.push_back(B.values()[k]);
    }
    EXPECT_EQ(block_cols, owned_cols) << "diagonal block row " << li;
    EXPECT_EQ(block_vals, owned_vals) << "diagonal block row " << li;
    block_nnz += std::int64_t(owned_cols.size());
    const std::int64_t off = D.off_diagonal_row_map()[std::size_t(li) + 1] - D.off_diagonal_row_map()[std::size_t(li)];
    EXPECT_EQ(off, D.row_length(li) - std::int64_t(owned_cols.size())) << "row " << i;
    // A row is interior exactly when it has no off-diagonal entry.
    const bool interior = std::binary_search(D.interior_rows().begin(), D.interior_rows().end(), std::int32_t(li));
    EXPECT_EQ(interior, off == 0) << "row " << i;
  }
  EXPECT_EQ(B.nnz(), block_nnz);
  EXPECT_EQ(D.local_nnz(), B.nnz() + std::int64_t(D.off_diagonal_values().size()));
  EXPECT_EQ(std::vector<std::int64_t>(off_range.begin(), off_range.end()), D.ghosts());
  EXPECT_EQ(std::int64_t(D.interior_rows().size() + D.boundary_rows().size()), D.num_owned());
  // What the ranks send is what the ranks receive.
  const td::Comm& comm = D.comm();
  EXPECT_EQ(comm.sum(D.halo().num_sends()), comm.sum(D.num_ghosts()));
}

// y = A x on the distributed matrix against the node-level product, and the
// halo volume of one product against the plan's sizes.
template <class Space>
void expect_same_product(const td::DistCrsMatrix<double>& D, const ts::CrsMatrix<double>& A) {
  const td::Comm& comm = D.comm();
  const auto x = test_vector(A.num_rows());
  std::vector<double> y_ref(x.size());
  A.multiply(x.data(), y_ref.data());
  const auto x_mine = owned_part(D.partition(), comm.rank(), x);
  std::vector<double> y_mine(std::size_t(D.num_owned()), -1.0);
  const td::CommVolume before = D.halo_volume();
  td::multiply<Space>(D, x_mine.data(), y_mine.data());
  EXPECT_EQ(D.halo_volume().bytes_sent - before.bytes_sent, std::int64_t(sizeof(double)) * D.halo().num_sends());
  EXPECT_EQ(D.halo_volume().bytes_received - before.bytes_received, std::int64_t(sizeof(double)) * D.num_ghosts());
  const auto y = gather(comm, y_mine);
  ASSERT_EQ(y.size(), y_ref.size());
  // Same summation order as the node-level loop: equal up to a few ulps of
  // the row's sum of |a_ij x_j|.
  for (std::int64_t i = 0; i < A.num_rows(); ++i) {
    double scale = 0;
    for (auto k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k) scale += std::abs(A.values()[k] * x[std::size_t(A.col_idx()[k])]);
    EXPECT_NEAR(y[std::size_t(i)], y_ref[std::size_t(i)], 4e-16 * scale + 1e-300) << A.origin() << " row " << i;
  }
}

}  // namespace

template <class Space>
class DistSolveMatrix : public ::testing::Test {};
TYPED_TEST_SUITE(DistSolveMatrix, HostSpaces, SpaceNames);

TYPED_TEST(DistSolveMatrix, ScatteredMatricesHoldTheNodeLevelRowsAndMultiplyAlike) {
  const td::Comm comm;
  for (const std::string name : {"matrices/LFAT5.mtx", "matrices/494_bus.mtx", "matrices/bcsstk13.mtx",
                                 "matrices/can___24.mtx", "matrices/dwt_992.mtx", "matrices/hangGlider_2.mtx",
                                 "matrices/zenios.mtx"}) {
    SCOPED_TRACE(name);
    const auto A = ts::read_matrix_market<double>(data_file(name));
    const auto D = td::DistCrsMatrix<double>::scatter(comm, comm.rank() == 0 ? &A : nullptr);
    // Balanced by nonzeros: each rank's share within one row of total / P.
    std::int64_t longest = 0;
    for (std::int64_t i = 0; i < A.num_rows(); ++i) longest = std::max(longest, A.row_map()[i + 1] - A.row_map()[i]);
    EXPECT_LE(std::abs(double(D.local_nnz()) - double(A.nnz()) / comm.size()), double(longest));
    expect_same_rows(D, A);
    expect_same_product<TypeParam>(D, A);
  }
}

TYPED_TEST(DistSolveMatrix, MatrixMarketSpecIsReadOnRankZeroAndScattered) {
  const td::Comm comm;
  const auto A = ts::read_matrix_market<double>(data_file("matrices/494_bus.mtx"));
  const auto D = td::make_dist_matrix<double>(comm, data_file("matrices/494_bus.mtx"));
  expect_same_rows(D, A);
  expect_same_product<TypeParam>(D, A);
}

TYPED_TEST(DistSolveMatrix, GeneratedLaplaciansAreTheNodeLevelOnesRowForRow) {
  const td::Comm comm;
  for (const std::string spec : {"lap3d:9", "lap2d:13", "lap3d27:6", "lap3d:1", "lap3d:2"}) {
    SCOPED_TRACE(spec);
    const auto A = ts::make_matrix<double>(spec);
    const auto D = td::make_dist_matrix<double>(comm, spec);
    // The partition is the nonzero-balanced one of the node-level row map.
    EXPECT_EQ(D.partition().offsets(),
              td::Partition::balanced(std::vector<std::int64_t>(A.row_map(), A.row_map() + A.num_rows() + 1), comm.size())
                  .offsets());
    expect_same_rows(D, A);
    expect_same_product<TypeParam>(D, A);
  }
}

TYPED_TEST(DistSolveMatrix, ARankWithZeroRowsTakesPartInEverything) {
  const td::Comm comm;
  const int P = comm.size();
  const auto A = ts::laplacian_3d<double>(5);
  // Rank 0 owns nothing, nor does the last rank from 3 ranks on (one rank
  // owns everything).
  std::vector<std::int64_t> offsets(std::size_t(P) + 1, A.num_rows());
  offsets[0] = 0;
  if (P > 1) {
    offsets[1] = 0;
    const auto middle = td::Partition::uniform(A.num_rows(), std::max(1, P - 2)).offsets();
    for (int r = 1; r < P - 1; ++r) offsets[std::size_t(r) + 1] = middle[std::size_t(r)];
  }
  const td::Partition part(offsets);
  const auto D = td::DistCrsMatrix<double>::scatter(comm, comm.rank() == 0 ? &A : nullptr, &part);
  if ((P > 1 && comm.rank() == 0) || (P > 2 && comm.rank() == P - 1)) {
    EXPECT_EQ(D.num_owned(), 0);
    EXPECT_EQ(D.num_ghosts(), 0);
  }
  expect_same_rows(D, A);
  expect_same_product<TypeParam>(D, A);
}

TEST(DistSolveMatrixErrors, BadRowsOnOneRankAreTheSameErrorEverywhere) {
  const td::Comm comm;
  const int P = comm.size(), me = comm.rank();
  const auto part = td::Partition::uniform(4 * P, P);
  // Each rank owns 4 rows of a diagonal matrix; the last rank's second row
  // names column 4P + 7, outside the matrix.
  std::vector<std::int64_t> row_map{0, 1, 2, 3, 4}, cols;
  for (std::int64_t i = part.begin(me); i < part.end(me); ++i) cols.push_back(i);
  if (me == P - 1) cols[1] = 4 * P + 7;
  const std::string expected = "rank " + std::to_string(P - 1) + ": rows: row " + std::to_string(part.begin(P - 1) + 2) +
                               " holds column " + std::to_string(4 * P + 8) + " outside 1.." + std::to_string(4 * P) +
                               " (1-based)";
  try {
    td::DistCrsMatrix<double>::from_local_rows(comm, part, row_map, cols, std::vector<double>(4, 1.0), "rows");
    ADD_FAILURE() << "every rank must throw";
  } catch (const td::dist_error& e) {
    EXPECT_EQ(std::string(e.what()), expected);
  }
  // A repeated column is named too (the first row holds its diagonal twice).
  cols.assign({part.begin(me), part.begin(me), part.begin(me) + 2, part.begin(me) + 3});
  try {
    td::DistCrsMatrix<double>::from_local_rows(comm, part, {0, 2, 2, 3, 4}, cols, std::vector<double>(4, 1.0), "rows");
    ADD_FAILURE() << "every rank must throw";
  } catch (const td::dist_error& e) {
    EXPECT_EQ(std::string(e.what()), "rank 0" + std::string(P > 1 ? " (and " + std::to_string(P - 1) + " more)" : "") +
                                         ": rows: row 1 holds column 1 twice (1-based)");
  }
  EXPECT_EQ(comm.sum(1), P);  // no rank left behind in a collective
}

TEST(DistSolveMatrixErrors, ABadFileOrSpecIsTheReadersMessageOnEveryRank) {
  const td::Comm comm;
  const std::string bad = data_file("bad/lagraph_mangled1.mtx");
  std::string local;
  try {
    ts::read_matrix_market<double>(bad);
  } catch (const std::exception& e) {
    local = e.what();
  }
  ASSERT_FALSE(local.empty()) << "the node-level reader accepts " << bad;
  try {
    td::make_dist_matrix<double>(comm, bad);
    ADD_FAILURE() << "every rank must throw";
  } catch (const td::dist_error& e) {
    EXPECT_EQ(std::string(e.what()), "rank 0: " + local);  // the file names itself and the line
  }
  try {
    td::make_dist_matrix<double>(comm, "lap3d:x");
    ADD_FAILURE() << "every rank must throw";
  } catch (const td::dist_error& e) {
    EXPECT_NE(std::string(e.what()).find("the grid size must be a positive integer, got 'x'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(comm.sum(1), comm.size());
}
