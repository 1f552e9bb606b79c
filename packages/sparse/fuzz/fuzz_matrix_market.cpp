// libFuzzer target: the sparse package's Matrix Market layer on arbitrary
// bytes: read_matrix_market<double> and <std::complex<double>> (on top of the
// graph parser that graph_fuzz_matrix_market fuzzes: this one reaches the
// numerical checks, the Hermitian and triangle rules and the pattern
// Laplacian) and read_dense_matrix_market (right-hand sides).
//
// A finding, beyond the sanitizers' and libFuzzer's (crash, report, an
// allocation above -malloc_limit_mb, a hang):
//   - an exception other than graph::io_error ("<file>:<line>: ...") or
//     sparse_error (whose message must name the file);
//   - a matrix returned with broken CRS arrays, a non-finite value (entries
//     repeated in the file add up, and may overflow), or an unsymmetric pattern;
//   - right-hand sides returned with another count of values than rows x cols,
//     or a non-finite one.
// Matrices of more than 2^16 rows and dense blocks of more than 2^22 values
// are not read through these layers: their arrays legitimately take the
// memory the file declares (8 bytes a row, 8 a value), which a short file can
// declare too; the graph fuzzer covers the parse itself.
#include "fuzz_support.hpp"

#include <tessera/sparse/matrix_io.hpp>

#include <cmath>
#include <complex>
#include <cstdlib>

namespace {

namespace tg = tessera::graph;
namespace ts = tessera::sparse;

constexpr std::int64_t kMostRows = std::int64_t(1) << 16;
constexpr std::int64_t kMostDenseValues = std::int64_t(1) << 22;

void check_sparse_error(const ts::sparse_error& e, const std::string& path) {
  if (std::string(e.what()).find(path) == std::string::npos)
    tessera_fuzz::finding(std::string("sparse_error does not name the file: ") + e.what());
}

template <class T>
void read_matrix(const std::string& path) {
  try {
    const ts::CrsMatrix<T> A = ts::read_matrix_market<T>(path);
    const std::int64_t n = A.num_rows();
    for (std::int64_t i = 0; i < n; ++i) {
      if (A.row_map()[i + 1] < A.row_map()[i])
        tessera_fuzz::finding("row map decreases at row " + std::to_string(i));
      for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k) {
        if (A.col_idx()[k] < 0 || A.col_idx()[k] >= n)
          tessera_fuzz::finding("column index " + std::to_string(A.col_idx()[k]) + " outside [0, " +
                                std::to_string(n) + ")");
        if (!std::isfinite(std::abs(A.values()[k])))
          tessera_fuzz::finding("a non-finite value at (" + std::to_string(i) + ", " +
                                std::to_string(A.col_idx()[k]) + ")");
      }
    }
    A.check_symmetric_pattern();
  } catch (const tg::io_error& e) {
    tessera_fuzz::check_message(e, path);
  } catch (const ts::sparse_error& e) {
    check_sparse_error(e, path);
  }
}

// The rows and columns on the first line after the banner that is neither
// blank nor a comment; false when there is none to read.
bool declared_block(const std::uint8_t* data, std::size_t size, std::int64_t& rows, std::int64_t& cols) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::size_t at = text.find('\n');
  while (at != std::string::npos && at + 1 < text.size()) {
    const std::size_t begin = at + 1;
    at = text.find('\n', begin);
    const std::string line = text.substr(begin, at == std::string::npos ? std::string::npos : at - begin);
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '%') continue;
    char* end = nullptr;
    rows = std::strtoll(line.c_str() + first, &end, 10);
    cols = std::strtoll(end, nullptr, 10);
    return true;
  }
  return false;
}

void read_dense(const std::uint8_t* data, std::size_t size, const std::string& path) {
  std::int64_t rows = 0, cols = 0;
  if (declared_block(data, size, rows, cols) && rows > 0 && cols > 0 &&
      (rows > kMostDenseValues || cols > kMostDenseValues / rows))
    return;
  try {
    const ts::DenseMatrix d = ts::read_dense_matrix_market(path);
    if (d.rows < 0 || d.cols < 0 || std::int64_t(d.values.size()) != d.rows * d.cols)
      tessera_fuzz::finding(std::to_string(d.values.size()) + " values for " + std::to_string(d.rows) +
                            " x " + std::to_string(d.cols) + " right-hand sides");
    for (const double v : d.values)
      if (!std::isfinite(v)) tessera_fuzz::finding("a non-finite right-hand side");
  } catch (const tg::io_error& e) {
    tessera_fuzz::check_message(e, path);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tessera_fuzz::start_runtime();
  const std::string& path = tessera_fuzz::input_file::instance().hold(data, size);
  // The order first, through the graph parser (an edge list: no array of n).
  bool small = true;
  try {
    tg::read_options o;
    o.accept_complex = true;
    small = tg::read_matrix_market(path, o).num_vertices <= kMostRows;
  } catch (const tg::io_error&) {
    // Refused by the parser: the sparse layer must refuse it the same way.
  }
  if (small) {
    read_matrix<double>(path);
    read_matrix<std::complex<double>>(path);
  }
  read_dense(data, size, path);
  return 0;
}
