// Reading matrices: the shared files' sizes from examples/data/README.md,
// pattern files as Laplacian + I, and every kind of bad input refused with
// the file and line.
#include "sparse_test_util.hpp"
#include "tessera_test_temp.hpp"

#include <fstream>

using namespace sparse_test;
using tessera::test::write_temp_file;

namespace {

// The message of the exception `f` throws (empty when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST(SparseMatrixIo, SharedMatricesHaveTheirPublishedSizes) {
  // n and stored entries (one triangle) from examples/data/README.md; full
  // storage holds 2 * stored - diagonal entries.
  struct Fact {
    const char* file;
    std::int64_t n, stored;
  } facts[] = {{"LFAT5.mtx", 14, 30},       {"494_bus.mtx", 494, 1080},         {"bcsstk13.mtx", 2003, 42943},
               {"hangGlider_2.mtx", 1647, 7834}, {"zenios.mtx", 2873, 15032}};
  for (const auto& f : facts) {
    const auto A = ts::read_matrix_market<double>(data_file(std::string("matrices/") + f.file));
    EXPECT_EQ(A.num_rows(), f.n) << f.file;
    std::int64_t diag = 0;
    for (std::int64_t i = 0; i < A.num_rows(); ++i)
      for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k) diag += A.col_idx()[k] == i;
    EXPECT_EQ(A.nnz(), 2 * f.stored - diag) << f.file;
    EXPECT_NO_THROW(A.check_symmetric_pattern());
  }
}

TEST(SparseMatrixIo, PatternFileBecomesLaplacianPlusIdentity) {
  const auto A = ts::read_matrix_market<double>(data_file("matrices/can___24.mtx"));
  ASSERT_EQ(A.num_rows(), 24);
  // Every row sums to 1 (Laplacian rows sum to 0), off-diagonals are -1.
  for (std::int64_t i = 0; i < 24; ++i) {
    double sum = 0;
    for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k) {
      sum += A.values()[k];
      if (A.col_idx()[k] != i) {
        EXPECT_EQ(A.values()[k], -1.0);
      }
    }
    EXPECT_DOUBLE_EQ(sum, 1.0) << "row " << i;
  }
}

TEST(SparseMatrixIo, TripletsMirrorOneTriangleAndSumDuplicates) {
  // 3 x 3, lower triangle with a duplicate (2,1) entry.
  const auto A = ts::CrsMatrix<double>::from_triplets(3, {0, 1, 1, 2, 1}, {0, 0, 1, 2, 0}, {4, -1, 5, 6, -2},
                                                       ts::Storage::Lower);
  EXPECT_EQ(A.nnz(), 5);
  EXPECT_EQ(A.at(1, 0), -3.0);
  EXPECT_EQ(A.at(0, 1), -3.0);
  EXPECT_EQ(A.at(2, 2), 6.0);
  EXPECT_EQ(A.at(2, 0), 0.0);
  EXPECT_THROW(ts::CrsMatrix<double>::from_triplets(2, {0}, {1}, {1.0}, ts::Storage::Lower), ts::sparse_error);
  EXPECT_THROW(ts::CrsMatrix<double>::from_triplets(2, {0}, {2}, {1.0}, ts::Storage::Full), ts::sparse_error);
}

TEST(SparseMatrixIo, GeneratorsMatchTheStencils) {
  const auto A = ts::laplacian_2d<double>(4);
  EXPECT_EQ(A.num_rows(), 16);
  EXPECT_EQ(A.nnz(), 16 + 2 * 2 * 4 * 3);  // diagonal + both directions of 2 * 4 * 3 grid edges
  EXPECT_EQ(A.at(5, 5), 4.0);
  EXPECT_EQ(A.at(5, 6), -1.0);
  EXPECT_EQ(A.at(5, 9), -1.0);
  EXPECT_EQ(A.at(3, 4), 0.0);  // end of a grid row: no neighbour
  const auto B = ts::laplacian_3d<double>(3);
  EXPECT_EQ(B.nnz(), 27 + 2 * 3 * 9 * 2);
  const auto C = ts::laplacian_3d_27pt<double>(3);
  EXPECT_EQ(C.at(13, 13), 26.0);
  EXPECT_EQ(C.row_map()[14] - C.row_map()[13], 27);  // the centre of a 3^3 box touches everyone
  EXPECT_THROW(ts::make_matrix<double>("lap3d:0"), ts::sparse_error);
  EXPECT_THROW(ts::make_matrix<double>("lap2d:ten"), ts::sparse_error);
}

TEST(SparseMatrixIo, BadFilesNameTheFileAndLine) {
  struct Case {
    const char* name;
    const char* text;
    const char* where;  // expected "file:line" suffix
    const char* what;   // expected words
  } cases[] = {
      {"nan.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 4\n2 1 nan\n", ":4:", "not finite"},
      {"inf.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 inf\n2 2 1\n", ":3:", "not finite"},
      {"nonsquare.mtx", "%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1\n", ":2:", "2 x 3"},
      {"skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n", ":1:", "skew"},
      {"truncated.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n", ":3:", "ends after 1"},
      {"index.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n4 1 1\n", ":3:", "outside 1..3"},
      {"value.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n1 1 x\n", ":3:", "not a real"},
  };
  for (const auto& c : cases) {
    const std::string path = write_temp_file(c.name, c.text);
    const std::string msg = error_of([&] { ts::read_matrix_market<double>(path); });
    EXPECT_NE(msg.find(path + c.where), std::string::npos) << c.name << ": " << msg;
    EXPECT_NE(msg.find(c.what), std::string::npos) << c.name << ": " << msg;
  }
  // A general file whose pattern is not symmetric names the unmatched entry.
  const std::string path =
      write_temp_file("unsym.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1\n2 2 1\n3 3 1\n3 1 5\n");
  const std::string msg = error_of([&] { ts::read_matrix_market<double>(path); });
  EXPECT_NE(msg.find("not symmetric"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(3, 1)"), std::string::npos) << msg;
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  // A missing file is named.
  EXPECT_NE(error_of([] { ts::read_matrix_market<double>("/nonexistent/A.mtx"); }).find("/nonexistent/A.mtx"),
            std::string::npos);
}

TEST(SparseMatrixIo, DenseRightHandSides) {
  const std::string arr = write_temp_file("b.mtx", "%%MatrixMarket matrix array real general\n% two columns\n3 2\n1\n2\n3\n4\n5\n6\n");
  const auto b = ts::read_dense_matrix_market(arr);
  EXPECT_EQ(b.rows, 3);
  EXPECT_EQ(b.cols, 2);
  EXPECT_EQ(b.values, (std::vector<double>{1, 2, 3, 4, 5, 6}));
  const std::string crd = write_temp_file("bc.mtx", "%%MatrixMarket matrix coordinate real general\n3 1 1\n2 1 7\n");
  EXPECT_EQ(ts::read_dense_matrix_market(crd).values, (std::vector<double>{0, 7, 0}));
  const std::string bad = write_temp_file("bb.mtx", "%%MatrixMarket matrix array real general\n2 1\n1\n");
  const std::string msg = error_of([&] { ts::read_dense_matrix_market(bad); });
  EXPECT_NE(msg.find(bad + ":"), std::string::npos) << msg;
  // The order of the matrix they are for: checked at the size line.
  EXPECT_EQ(ts::read_dense_matrix_market(arr, 3).cols, 2);
  const std::string rows = error_of([&] { ts::read_dense_matrix_market(arr, 4); });
  EXPECT_NE(rows.find(arr + ":3: 3 rows of right-hand sides for a matrix of order 4"), std::string::npos) << rows;
  const std::string crd_rows = error_of([&] { ts::read_dense_matrix_market(crd, 2); });
  EXPECT_NE(crd_rows.find(crd + ":2: 3 rows"), std::string::npos) << crd_rows;
  // An array file announcing 10^9 values (8 GB) in three lines: refused
  // where it ends, the values read so far being all that was stored (a
  // fuzzed size line once made the reader allocate the announced block).
  const std::string huge = write_temp_file("bh.mtx", "%%MatrixMarket matrix array real general\n1000 1000000\n1\n2\n");
  const std::string huge_msg = error_of([&] { ts::read_dense_matrix_market(huge); });
  EXPECT_NE(huge_msg.find(huge + ":4: the file ends after 2 of the 1000000000 entries declared"), std::string::npos)
      << huge_msg;
  // A coordinate file's dense block is made once its entries are in: a size
  // line announcing 40000 x 100000 (32 GB) in a file that stops after two of
  // its three entries is refused where it ends (the reader used to allocate
  // the announced block first; a fuzzer found it).
  const std::string huge_crd = write_temp_file(
      "bhc.mtx", "%%MatrixMarket matrix coordinate real general\n40000 100000 3\n1 1 1\n2 2 2\n");
  const std::string huge_crd_msg = error_of([&] { ts::read_dense_matrix_market(huge_crd); });
  EXPECT_NE(huge_crd_msg.find(huge_crd + ":4: the file ends after 2 of the 3 entries declared"), std::string::npos)
      << huge_crd_msg;
  // Repeated coordinates add up; column-major.
  const std::string dup =
      write_temp_file("bd.mtx", "%%MatrixMarket matrix coordinate real general\n3 2 3\n2 1 7\n3 2 1\n2 1 1\n");
  EXPECT_EQ(ts::read_dense_matrix_market(dup).values, (std::vector<double>{0, 8, 0, 0, 0, 1}));
  // Each value finite, their sum not: refused at the entry that overflows.
  const std::string ovf =
      write_temp_file("bo.mtx", "%%MatrixMarket matrix coordinate real general\n2 1 3\n2 1 1\n1 1 1e308\n1 1 1e308\n");
  const std::string ovf_msg = error_of([&] { ts::read_dense_matrix_market(ovf); });
  EXPECT_NE(ovf_msg.find(ovf + ":5: entry (1, 1) adds up"), std::string::npos) << ovf_msg;
}

// Repeated entries of a sparse file add up too (the format's rule): a sum
// that overflows is refused with the entry, rather than read as an infinity
// (a fuzzer found it; the solvers refused such a matrix, a user's SpMV would
// not have).
TEST(SparseMatrixIo, RepeatedEntriesThatOverflowAreRefused) {
  const std::string sym = write_temp_file(
      "ovf_sym.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 4\n1 1 1e308\n2 1 1\n2 2 1\n1 1 1e308\n");
  const std::string msg = error_of([&] { ts::read_matrix_market<double>(sym); });
  EXPECT_NE(msg.find(sym + ":0: entry (1, 1): the file's repeated entries for it add up to a value that is not finite"),
            std::string::npos)
      << msg;
  const std::string gen = write_temp_file(
      "ovf_gen.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 2 -1e308\n2 1 -1e308\n1 2 -1e308\n2 2 1\n");
  const std::string gen_msg = error_of([&] { ts::read_matrix_market<double>(gen); });
  EXPECT_NE(gen_msg.find(gen + ":0: entry (1, 2): the file's repeated entries"), std::string::npos) << gen_msg;
  const std::string cplx = write_temp_file(
      "ovf_c.mtx", "%%MatrixMarket matrix coordinate complex hermitian\n1 1 2\n1 1 1e308 0\n1 1 1e308 0\n");
  const std::string c_msg = error_of([&] { ts::read_matrix_market<std::complex<double>>(cplx); });
  EXPECT_NE(c_msg.find(cplx + ":0: entry (1, 1): the file's repeated entries"), std::string::npos) << c_msg;
  // Large sums that stay finite are read.
  const std::string fine = write_temp_file(
      "big_fine.mtx", "%%MatrixMarket matrix coordinate real symmetric\n1 1 2\n1 1 1e307\n1 1 1e307\n");
  EXPECT_DOUBLE_EQ(ts::read_matrix_market<double>(fine).values()[0], 2e307);
}
