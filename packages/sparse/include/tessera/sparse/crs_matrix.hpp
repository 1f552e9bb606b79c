#pragma once
// CrsMatrix<T>: a square sparse matrix in compressed row storage, in host
// memory, holding BOTH triangles of a symmetric matrix (full storage) with
// the columns of each row sorted and unique. It is what the readers and
// generators return and what the solvers take.
//
//   auto A = tessera::sparse::CrsMatrix<double>::from_triplets(n, rows, cols, vals, Storage::Lower);
//   A.row_map()[i] .. A.row_map()[i + 1]   -> positions of row i in col_idx() / values()
//
// Views, not std::vectors, so that data-parallel code (and a later device
// copy) reads the same arrays. Indices: 64-bit row offsets, 32-bit columns.
//
// T = std::complex<double> holds a Hermitian matrix (a(j, i) = conj(a(i, j))):
// from_triplets mirrors a triangle with conjugates, and the solvers read
// one triangle and take the other to be its conjugate.
#include <tessera/core.hpp>
#include <tessera/sparse/detail/scalar.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <optional>
#include <utility>
#include <vector>

namespace tessera::sparse {

// The error every sparse routine throws for bad input or a numerical failure
// it can name: the message says what and where (file:line, row, column).
class sparse_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A numerical failure: the pivot of `column()` (0-based, original numbering)
// had the value `value()`. The message gives the column 1-based, as Matrix
// Market files count. An LDL^T of a matrix singular to working precision
// reports every zero pivot: `columns()` (sorted, 0-based; column() is the
// first); other failures have columns() = {column()}.
class factorization_error : public sparse_error {
 public:
  factorization_error(const std::string& what, std::int64_t column, double value,
                      std::vector<std::int64_t> columns = {})
      : sparse_error(what), m_column(column), m_value(value), m_columns(std::move(columns)) {
    if (m_columns.empty()) m_columns.push_back(column);
  }
  std::int64_t column() const { return m_column; }
  double value() const { return m_value; }
  const std::vector<std::int64_t>& columns() const { return m_columns; }

 private:
  std::int64_t m_column;
  double m_value;
  std::vector<std::int64_t> m_columns;
};

// factorize(A2) was given a matrix that is not the one its analysis was
// made for: another order, another pattern, or (LDL^T) another set of zero
// diagonal entries. `row()` is the first row that differs (0-based, the
// matrix's own numbering; -1 when the orders differ); the message gives it
// 1-based with what differs. The solver keeps its previous analysis and
// factor.
class analysis_mismatch : public sparse_error {
 public:
  analysis_mismatch(const std::string& what, std::int64_t row) : sparse_error(what), m_row(row) {}
  std::int64_t row() const { return m_row; }

 private:
  std::int64_t m_row;
};

// How a symmetric matrix arrives: both triangles, or one of them.
enum class Storage { Full, Lower, Upper };

template <class T>
class CrsMatrix {
 public:
  using value_type = T;
  using size_type = std::int64_t;
  using ordinal_type = std::int32_t;
  using row_map_view = View<size_type*, HostSpace>;
  using index_view = View<ordinal_type*, HostSpace>;
  using values_view = View<T*, HostSpace>;

  CrsMatrix() = default;
  // Adopts arrays that already satisfy the invariants (checked).
  CrsMatrix(size_type n, row_map_view row_map, index_view col_idx, values_view values, std::string origin = {})
      : m_n(n), m_row_map(row_map), m_col_idx(col_idx), m_values(values), m_origin(std::move(origin)) {
    check_invariants();
  }

  // Builds a symmetric matrix from coordinates (0-based). Storage::Lower or
  // Upper mirrors each off-diagonal entry (as its conjugate for complex T:
  // a Hermitian matrix); Full takes the entries as given
  // (the pattern must then be symmetric, checked by the solvers).
  // Duplicate entries are summed, as the Matrix Market convention says.
  static CrsMatrix from_triplets(size_type n, const std::vector<size_type>& rows, const std::vector<size_type>& cols,
                                 const std::vector<T>& vals, Storage storage, std::string origin = {});

  size_type num_rows() const { return m_n; }
  size_type num_cols() const { return m_n; }
  size_type nnz() const { return m_n == 0 ? 0 : m_row_map(m_n); }
  const std::string& origin() const { return m_origin; }

  const size_type* row_map() const { return m_row_map.data(); }
  const ordinal_type* col_idx() const { return m_col_idx.data(); }
  const T* values() const { return m_values.data(); }
  T* values() { return m_values.data(); }
  row_map_view row_map_view_() const { return m_row_map; }
  index_view col_idx_view() const { return m_col_idx; }
  values_view values_view_() const { return m_values; }

  // y = A x (host, serial; for residuals and tests).
  void multiply(const T* x, T* y) const {
    for (size_type i = 0; i < m_n; ++i) {
      T s = 0;
      for (size_type k = m_row_map(i); k < m_row_map(i + 1); ++k) s += m_values(k) * x[m_col_idx(k)];
      y[i] = s;
    }
  }
  // max_i sum_j |a_ij| (the infinity norm, = the 1-norm for symmetric or
  // Hermitian A).
  double norm_inf() const {
    double best = 0;
    for (size_type i = 0; i < m_n; ++i) {
      double s = 0;
      for (size_type k = m_row_map(i); k < m_row_map(i + 1); ++k) s += std::abs(m_values(k));
      best = std::max(best, s);
    }
    return best;
  }
  // Value at (i, j), 0 when not stored (binary search in row i).
  T at(size_type i, size_type j) const {
    const ordinal_type* b = m_col_idx.data() + m_row_map(i);
    const ordinal_type* e = m_col_idx.data() + m_row_map(i + 1);
    const ordinal_type* p = std::lower_bound(b, e, ordinal_type(j));
    return (p != e && *p == j) ? m_values(p - m_col_idx.data()) : T(0);
  }

  // Throws sparse_error naming the first (i, j) whose mirror (j, i) is not
  // stored, or a non-finite value.
  void check_symmetric_pattern() const;
  void check_finite() const;
  // The first stored entry (row, column; 0-based) whose value is not
  // finite, or nothing.
  std::optional<std::pair<size_type, size_type>> first_non_finite() const;

 private:
  void check_invariants() const;

  size_type m_n = 0;
  row_map_view m_row_map;
  index_view m_col_idx;
  values_view m_values;
  std::string m_origin;
};

// ---------------------------------------------------------------------------

template <class T>
CrsMatrix<T> CrsMatrix<T>::from_triplets(size_type n, const std::vector<size_type>& rows,
                                         const std::vector<size_type>& cols, const std::vector<T>& vals,
                                         Storage storage, std::string origin) {
  if (n < 0 || n > size_type(std::numeric_limits<ordinal_type>::max()))
    throw sparse_error("CrsMatrix: order " + std::to_string(n) + " outside 0.." +
                       std::to_string(std::numeric_limits<ordinal_type>::max()));
  if (rows.size() != cols.size() || rows.size() != vals.size())
    throw sparse_error("CrsMatrix::from_triplets: rows, cols and vals differ in length (" + std::to_string(rows.size()) +
                       ", " + std::to_string(cols.size()) + ", " + std::to_string(vals.size()) + ")");
  const std::size_t m = rows.size();
  for (std::size_t k = 0; k < m; ++k) {
    if (rows[k] < 0 || rows[k] >= n || cols[k] < 0 || cols[k] >= n)
      throw sparse_error("CrsMatrix::from_triplets: entry " + std::to_string(k) + " at (" + std::to_string(rows[k]) +
                         ", " + std::to_string(cols[k]) + ") is outside a " + std::to_string(n) + " x " +
                         std::to_string(n) + " matrix");
    if (storage == Storage::Lower && rows[k] < cols[k])
      throw sparse_error("CrsMatrix::from_triplets: entry (" + std::to_string(rows[k]) + ", " + std::to_string(cols[k]) +
                         ") lies above the diagonal of a lower-triangle input");
    if (storage == Storage::Upper && rows[k] > cols[k])
      throw sparse_error("CrsMatrix::from_triplets: entry (" + std::to_string(rows[k]) + ", " + std::to_string(cols[k]) +
                         ") lies below the diagonal of an upper-triangle input");
  }
  const bool mirror = storage != Storage::Full;
  // Count per row, then fill (counting sort by row), then sort and merge
  // duplicates within each row.
  std::vector<size_type> count(std::size_t(n) + 1, 0);
  for (std::size_t k = 0; k < m; ++k) {
    ++count[rows[k] + 1];
    if (mirror && rows[k] != cols[k]) ++count[cols[k] + 1];
  }
  std::partial_sum(count.begin(), count.end(), count.begin());
  std::vector<ordinal_type> ci(count[n]);
  std::vector<T> cv(count[n]);
  std::vector<size_type> pos(count.begin(), count.end() - 1);
  for (std::size_t k = 0; k < m; ++k) {
    ci[pos[rows[k]]] = ordinal_type(cols[k]);
    cv[pos[rows[k]]++] = vals[k];
    if (mirror && rows[k] != cols[k]) {
      ci[pos[cols[k]]] = ordinal_type(rows[k]);
      cv[pos[cols[k]]++] = detail::conj_if(vals[k]);
    }
  }
  row_map_view rm(view_alloc(WithoutInitializing, "sparse::row_map"), n + 1);
  std::vector<std::pair<ordinal_type, T>> row;
  size_type out = 0;
  for (size_type i = 0; i < n; ++i) {
    row.clear();
    for (size_type k = count[i]; k < count[i + 1]; ++k) row.emplace_back(ci[k], cv[k]);
    std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    rm(i) = out;
    for (std::size_t k = 0; k < row.size(); ++k) {
      if (k > 0 && row[k].first == ci[out - 1]) {
        cv[out - 1] += row[k].second;  // duplicate: summed
      } else {
        ci[out] = row[k].first;
        cv[out] = row[k].second;
        ++out;
      }
    }
  }
  rm(n) = out;
  index_view idx(view_alloc(WithoutInitializing, "sparse::col_idx"), out);
  values_view val(view_alloc(WithoutInitializing, "sparse::values"), out);
  std::copy(ci.begin(), ci.begin() + out, idx.data());
  std::copy(cv.begin(), cv.begin() + out, val.data());
  CrsMatrix a;
  a.m_n = n;
  a.m_row_map = rm;
  a.m_col_idx = idx;
  a.m_values = val;
  a.m_origin = std::move(origin);
  return a;
}

template <class T>
void CrsMatrix<T>::check_invariants() const {
  const std::string where = m_origin.empty() ? std::string("CrsMatrix") : m_origin;
  if (m_n < 0 || std::int64_t(m_row_map.extent(0)) != m_n + 1)
    throw sparse_error(where + ": row map has " + std::to_string(m_row_map.extent(0)) + " entries, expected n + 1 = " +
                       std::to_string(m_n + 1));
  if (m_row_map(0) != 0) throw sparse_error(where + ": row map must start at 0");
  for (size_type i = 0; i < m_n; ++i) {
    if (m_row_map(i + 1) < m_row_map(i)) throw sparse_error(where + ": row map decreases at row " + std::to_string(i));
    for (size_type k = m_row_map(i); k < m_row_map(i + 1); ++k) {
      const ordinal_type j = m_col_idx(k);
      if (j < 0 || j >= m_n)
        throw sparse_error(where + ": row " + std::to_string(i) + " holds column " + std::to_string(j) +
                           " outside 0.." + std::to_string(m_n - 1));
      if (k > m_row_map(i) && j <= m_col_idx(k - 1))
        throw sparse_error(where + ": columns of row " + std::to_string(i) + " are not sorted and unique at column " +
                           std::to_string(j));
    }
  }
  if (std::int64_t(m_col_idx.extent(0)) < nnz() || std::int64_t(m_values.extent(0)) < nnz())
    throw sparse_error(where + ": column or value array shorter than the row map's " + std::to_string(nnz()) +
                       " entries");
}

template <class T>
void CrsMatrix<T>::check_symmetric_pattern() const {
  // One pass with a cursor per row: visiting the rows in order, the rows i
  // that store column j arrive ascending, so (i, j) has its mirror exactly
  // when row j's next unmatched column is i. Only a failure pays for the
  // search below, which names the first bad entry in row-major order.
  std::vector<size_type> cursor(static_cast<std::size_t>(m_n));
  for (size_type j = 0; j < m_n; ++j) cursor[j] = m_row_map(j);
  bool symmetric = true;
  for (size_type i = 0; i < m_n && symmetric; ++i)
    for (size_type k = m_row_map(i); k < m_row_map(i + 1); ++k) {
      const size_type j = m_col_idx(k);
      if (cursor[j] == m_row_map(j + 1) || m_col_idx(cursor[j]) != ordinal_type(i)) {
        symmetric = false;
        break;
      }
      ++cursor[j];
    }
  if (symmetric) return;
  for (size_type i = 0; i < m_n; ++i)
    for (size_type k = m_row_map(i); k < m_row_map(i + 1); ++k) {
      const size_type j = m_col_idx(k);
      const ordinal_type* b = m_col_idx.data() + m_row_map(j);
      const ordinal_type* e = m_col_idx.data() + m_row_map(j + 1);
      if (!std::binary_search(b, e, ordinal_type(i)))
        throw sparse_error((m_origin.empty() ? std::string("matrix") : m_origin) + ": the pattern is not symmetric: entry (" +
                           std::to_string(i + 1) + ", " + std::to_string(j + 1) + ") is stored but (" +
                           std::to_string(j + 1) + ", " + std::to_string(i + 1) + ") is not (1-based)");
    }
}

template <class T>
std::optional<std::pair<typename CrsMatrix<T>::size_type, typename CrsMatrix<T>::size_type>>
CrsMatrix<T>::first_non_finite() const {
  for (size_type i = 0; i < m_n; ++i)
    for (size_type k = m_row_map(i); k < m_row_map(i + 1); ++k)
      if (!std::isfinite(std::real(m_values(k))) || !std::isfinite(std::imag(m_values(k))))
        return std::pair<size_type, size_type>{i, m_col_idx(k)};
  return std::nullopt;
}

template <class T>
void CrsMatrix<T>::check_finite() const {
  if (const auto at = first_non_finite())
    throw sparse_error((m_origin.empty() ? std::string("matrix") : m_origin) + ": entry (" +
                       std::to_string(at->first + 1) + ", " + std::to_string(at->second + 1) +
                       ") is not finite (1-based)");
}

}  // namespace tessera::sparse
