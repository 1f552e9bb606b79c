#pragma once
// Reading sparse matrices. One Matrix Market parser serves the whole
// project: the graph package's (tessera::graph::read_matrix_market), which
// reports every problem as "<file>:<line>: <problem>". This layer adds what a
// numerical reader needs on top: non-finite values refused with file:line,
// skew-symmetric files refused, general files checked for a symmetric
// pattern, and pattern files turned into graph Laplacian + I.
//
//   auto A = tessera::sparse::read_matrix_market<double>("bcsstk13.mtx");
//   auto L = tessera::sparse::read_matrix_market<double>("can___24.mtx");   // pattern: Laplacian + I
//   auto H = tessera::sparse::read_matrix_market<std::complex<double>>("hermitian.mtx");
//
// Complex files ("complex hermitian", or "complex general" whose entries
// are Hermitian: a(j, i) = conj(a(i, j))) are read as
// CrsMatrix<std::complex<double>>; a real, integer or pattern file may be
// read that way too (a real symmetric matrix is Hermitian). Refused with
// the file named: a complex file read as double, "complex symmetric"
// (A^T = A is not Hermitian), a Hermitian file with a non-real diagonal
// entry (with its line), a complex general file that is not Hermitian.
#include <tessera/graph/io.hpp>
#include <tessera/sparse/crs_matrix.hpp>
#include <tessera/sparse/detail/scalar.hpp>

#include <complex>

#include <string>
#include <vector>

namespace tessera::sparse {

struct ReadOptions {
  // A pattern file (no values) becomes the Laplacian of its graph plus the
  // identity, L + I = D - A + I: symmetric positive definite.
  bool pattern_as_laplacian = true;
  graph::progress_callback progress = nullptr;
  void* progress_user = nullptr;
};

// A dense block of right-hand sides (rows x cols, column-major).
struct DenseMatrix {
  std::int64_t rows = 0, cols = 0;
  std::vector<double> values;
};

// Reads right-hand sides from a Matrix Market file: "array real|integer
// general" (column-major values) or "coordinate real|integer general"
// (missing entries are zero). Errors are graph::io_error "<file>:<line>: ...".
// expected_rows >= 0 (the order of the matrix they are for): a size line
// with another row count is refused at that line, before the block is made.
// Memory grows with the values an array file holds; a coordinate file's
// dense block is made at its size line (a size that cannot be allocated is
// an io_error with the gigabytes it needed).
DenseMatrix read_dense_matrix_market(const std::string& path, std::int64_t expected_rows = -1);

// The Laplacian + I of a simple undirected graph on n vertices given as an
// edge list (self-loops dropped, duplicate edges counted once).
template <class T>
CrsMatrix<T> laplacian_plus_identity(std::int64_t n, const std::vector<std::int64_t>& src,
                                     const std::vector<std::int64_t>& dst, std::string origin = {}) {
  std::vector<std::int64_t> r, c;
  std::vector<T> v;
  r.reserve(2 * src.size() + n);
  c.reserve(2 * src.size() + n);
  for (std::size_t k = 0; k < src.size(); ++k) {
    if (src[k] == dst[k]) continue;
    r.push_back(src[k]);
    c.push_back(dst[k]);
    r.push_back(dst[k]);
    c.push_back(src[k]);
  }
  // Deduplicate the edges (both directions present), then count degrees.
  std::vector<std::pair<std::int64_t, std::int64_t>> e(r.size());
  for (std::size_t k = 0; k < r.size(); ++k) e[k] = {r[k], c[k]};
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());
  std::vector<T> degree(n, T(0));
  r.clear();
  c.clear();
  for (auto [i, j] : e) {
    r.push_back(i);
    c.push_back(j);
    v.push_back(T(-1));
    degree[i] += T(1);
  }
  for (std::int64_t i = 0; i < n; ++i) {
    r.push_back(i);
    c.push_back(i);
    v.push_back(degree[i] + T(1));
  }
  return CrsMatrix<T>::from_triplets(n, r, c, v, Storage::Full, std::move(origin));
}

// Writes A's lower triangle as "coordinate real symmetric" (double) or
// "coordinate complex hermitian" (std::complex<double>), 17 significant
// digits: read_matrix_market<T> gives A back exactly (a symmetric or
// Hermitian A; the upper triangle is not written). Through the graph
// package's writer; graph::io_error "<file>:0: ..." when it cannot write.
template <class T>
void write_matrix_market(const std::string& path, const CrsMatrix<T>& A) {
  graph::edge_list el;
  el.num_vertices = A.num_rows();
  el.symmetric = true;
  for (std::int64_t i = 0; i < A.num_rows(); ++i)
    for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k) {
      const std::int64_t j = A.col_idx()[k];
      if (j > i) continue;
      el.add(i, j, std::real(A.values()[k]));
      if constexpr (detail::is_complex_v<T>) el.weights_imag.push_back(std::imag(A.values()[k]));
    }
  graph::write_matrix_market(path, el);
}

namespace detail {
// Every value of the file is finite (the parser refuses the others), but
// repeated entries add up, as the format says, and a sum can overflow
// (1e308 twice): refused, or the matrix would hold an infinity its reader
// never saw.
template <class T>
void refuse_overflowing_sums(const std::string& path, const CrsMatrix<T>& A) {
  if (const auto at = A.first_non_finite())
    throw graph::io_error(path, 0,
                          "entry (" + std::to_string(at->first + 1) + ", " + std::to_string(at->second + 1) +
                              "): the file's repeated entries for it add up to a value that is not finite");
}
}  // namespace detail

// Reads a real, integer or pattern (and, for T = std::complex<double>,
// complex) Matrix Market file into full symmetric (Hermitian) storage.
// Throws graph::io_error ("<file>:<line>: ...") for a malformed file, a
// non-square matrix, a NaN/Inf value (or repeated entries adding up to one:
// "<file>:0: entry (i, j): ...") and the refusals above, and
// sparse_error for a skew-symmetric file or a general file whose pattern
// is not symmetric.
template <class T>
CrsMatrix<T> read_matrix_market(const std::string& path, const ReadOptions& opts = {}) {
  graph::read_options ro;
  ro.progress = opts.progress;
  ro.progress_user = opts.progress_user;
  ro.reject_non_finite = true;
  ro.rectangular = graph::rectangular_matrix::refuse;  // "the matrix is R x C; a square matrix is needed here"
  ro.accept_complex = true;  // refused below, with the reason, where T is real
  graph::edge_list el = graph::read_matrix_market(path, ro);
  if (el.mm_symmetry == "skew-symmetric")
    throw graph::io_error(path, 1, "a skew-symmetric matrix is not symmetric: the solvers need a symmetric matrix");
  if (el.mm_field == "complex") {
    if constexpr (!detail::is_complex_v<T>)
      throw graph::io_error(path, 1,
                            "a complex matrix cannot be read as double: read it as std::complex<double> "
                            "(read_matrix_market<std::complex<double>>; tessera-solve does so by itself)");
    if (el.mm_symmetry == "symmetric")
      throw graph::io_error(path, 1,
                            "a complex symmetric matrix (A^T = A) is not Hermitian (A^H = A): the solvers need a real "
                            "symmetric or a complex Hermitian matrix");
  }
  if (el.mm_field == "pattern") {
    if (!opts.pattern_as_laplacian)
      throw graph::io_error(path, 1, "a pattern file holds no values (read it with pattern_as_laplacian = true)");
    return laplacian_plus_identity<T>(el.num_vertices, el.src, el.dst, path + " (Laplacian + I)");
  }
  std::vector<T> vals(el.weights.begin(), el.weights.end());
  if constexpr (detail::is_complex_v<T>)
    for (std::size_t k = 0; k < el.weights_imag.size(); ++k) vals[k] = T(el.weights[k], el.weights_imag[k]);
  const Storage storage = el.mm_symmetry == "symmetric" || el.mm_symmetry == "hermitian" ? Storage::Lower : Storage::Full;
  if (storage == Storage::Lower) {
    // Symmetric files store one triangle; some writers use the upper one.
    // Entries on both sides of the diagonal would be a malformed file.
    bool upper = false, lower = false;
    for (std::size_t k = 0; k < el.src.size(); ++k) {
      upper |= el.src[k] < el.dst[k];
      lower |= el.src[k] > el.dst[k];
    }
    if (upper && lower)
      throw graph::io_error(path, 0, "a symmetric file must store one triangle, this one has entries above and below the diagonal");
    auto A = CrsMatrix<T>::from_triplets(el.num_vertices, el.src, el.dst, vals, upper ? Storage::Upper : Storage::Lower, path);
    detail::refuse_overflowing_sums(path, A);
    return A;
  }
  auto A = CrsMatrix<T>::from_triplets(el.num_vertices, el.src, el.dst, vals, Storage::Full, path);
  detail::refuse_overflowing_sums(path, A);
  A.check_symmetric_pattern();
  if constexpr (detail::is_complex_v<T>) {
    // A general file holds both triangles: the solvers read one of them,
    // so the other must be its conjugate, or the answer would be that of
    // another matrix.
    for (std::int64_t i = 0; i < A.num_rows(); ++i)
      for (std::int64_t k = A.row_map()[i]; k < A.row_map()[i + 1]; ++k) {
        const std::int64_t j = A.col_idx()[k];
        if (j > i) continue;
        if (A.values()[k] != std::conj(A.at(j, i)))
          throw graph::io_error(path, 0,
                                "a complex general matrix must be Hermitian here, but entry (" + std::to_string(i + 1) +
                                    ", " + std::to_string(j + 1) + ") is not the conjugate of entry (" +
                                    std::to_string(j + 1) + ", " + std::to_string(i + 1) +
                                    "): the solvers need a Hermitian matrix");
      }
  }
  return A;
}

}  // namespace tessera::sparse
