// The record of what an analysis depended on, and the comparison of a new
// matrix against it (see detail/analyzed_input.hpp).
#include <tessera/sparse/detail/analyzed_input.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace tessera::sparse::detail {

namespace {

std::string value_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string one_based(std::int64_t i) { return std::to_string(i + 1); }

}  // namespace

void AnalyzedInput::clear() {
  m_n = -1;
  m_rows.clear();
  m_cols.clear();
  m_values_recorded = false;
  m_diag_pos.clear();
  m_zero_diag.clear();
  m_couplings.clear();
}

void AnalyzedInput::record_pattern(const CrsMatrix<double>& A) {
  clear();
  m_n = A.num_rows();
  // A matrix of order 0 may have no arrays at all (null pointers).
  if (m_n == 0) {
    m_rows.assign(1, 0);
    return;
  }
  m_rows.assign(A.row_map(), A.row_map() + m_n + 1);
  m_cols.assign(A.col_idx(), A.col_idx() + A.nnz());
}

void AnalyzedInput::record_zero_diagonals(const CrsMatrix<double>& A,
                                          const std::vector<std::pair<std::int64_t, std::int64_t>>& pairs) {
  const std::int64_t n = A.num_rows();
  m_values_recorded = true;
  m_diag_pos.assign(std::size_t(n), -1);
  m_zero_diag.assign(std::size_t(n), 1);
  // The columns of a row are sorted: a binary search finds the entry.
  auto position = [&](std::int64_t i, std::int64_t j) -> std::int64_t {
    const std::int32_t* b = A.col_idx() + A.row_map()[i];
    const std::int32_t* e = A.col_idx() + A.row_map()[i + 1];
    const std::int32_t* p = std::lower_bound(b, e, std::int32_t(j));
    return p != e && *p == j ? p - A.col_idx() : -1;
  };
  for (std::int64_t i = 0; i < n; ++i) {
    m_diag_pos[i] = position(i, i);
    m_zero_diag[i] = m_diag_pos[i] < 0 || A.values()[m_diag_pos[i]] == 0.0;
  }
  m_couplings.clear();
  for (auto [i, j] : pairs) m_couplings.push_back({i, j, position(i, j)});
}

std::optional<AnalyzedInput::Difference> AnalyzedInput::compare(const CrsMatrix<double>& A) const {
  if (auto d = compare_pattern(A)) return d;
  if (m_values_recorded) return compare_zero_diagonals(A);
  return std::nullopt;
}

std::optional<AnalyzedInput::Difference> AnalyzedInput::compare_pattern(const CrsMatrix<double>& A) const {
  const std::int64_t n = A.num_rows();
  if (n != m_n)
    return Difference{
        -1, "the matrix has order " + std::to_string(n) + ", the analyzed one " + std::to_string(m_n)};
  if (n == 0) return std::nullopt;
  const std::int64_t nnz = A.nnz(), nnz0 = std::int64_t(m_cols.size());
  // The common case, the same pattern: two memcmp (an empty array may be a
  // null pointer, which memcmp must not see).
  if (nnz == nnz0 &&
      std::memcmp(A.row_map(), m_rows.data(), sizeof(std::int64_t) * std::size_t(n + 1)) == 0 &&
      (nnz == 0 || std::memcmp(A.col_idx(), m_cols.data(), sizeof(std::int32_t) * std::size_t(nnz)) == 0))
    return std::nullopt;
  // The first row whose columns differ, and its first column in one list
  // but not the other (both are sorted: a merge).
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t *a = A.col_idx() + A.row_map()[i], *a_end = A.col_idx() + A.row_map()[i + 1];
    const std::int32_t *b = m_cols.data() + m_rows[i], *b_end = m_cols.data() + m_rows[i + 1];
    const std::int64_t count = a_end - a, count0 = b_end - b;
    while (a != a_end && b != b_end && *a == *b) ++a, ++b;
    if (a == a_end && b == b_end) continue;
    const std::string counts = " (" + std::to_string(count) + " entries, " + std::to_string(count0) +
                               " when analyzed; " + std::to_string(nnz) + " and " + std::to_string(nnz0) +
                               " in the whole matrix)";
    // The smaller of the two columns at the first disagreement is the one
    // present on one side only.
    if (b == b_end || (a != a_end && *a < *b))
      return Difference{i, "row " + one_based(i) + " (1-based) stores column " + one_based(*a) +
                               ", which the analyzed pattern does not" + counts};
    return Difference{i, "row " + one_based(i) + " (1-based) lacks column " + one_based(*b) +
                             " of the analyzed pattern" + counts};
  }
  return std::nullopt;  // not reached: the arrays differ somewhere
}

std::optional<AnalyzedInput::Difference> AnalyzedInput::compare_zero_diagonals(
    const CrsMatrix<double>& A) const {
  const std::int64_t n = A.num_rows();
  for (std::int64_t i = 0; i < n; ++i) {
    const double d = m_diag_pos[i] < 0 ? 0.0 : A.values()[m_diag_pos[i]];
    if ((d == 0.0) == bool(m_zero_diag[i])) continue;
    const std::string at =
        "row " + one_based(i) + " (1-based): a(" + one_based(i) + ", " + one_based(i) + ") ";
    if (d == 0.0)
      return Difference{
          i, at + "is zero, but was nonzero when analyzed: LDL^T pairs each zero-diagonal variable "
                  "with a neighbour at analyze, and this one has none"};
    return Difference{i,
                      at + "is " + value_text(d) +
                          ", but was zero when analyzed: the analysis paired it as a zero-diagonal variable"};
  }
  // The first broken coupling in row order, as the rows above.
  const Coupling* first = nullptr;
  for (const Coupling& c : m_couplings)
    if (c.pos >= 0 && A.values()[c.pos] == 0.0 && (first == nullptr || c.row < first->row)) first = &c;
  if (first)
    return Difference{
        first->row, "row " + one_based(first->row) + " (1-based): a(" + one_based(first->row) + ", " +
                        one_based(first->col) + ") is zero, but LDL^T paired zero-diagonal variable " +
                        one_based(first->row) + " with " + one_based(first->col) + " through it at analyze"};
  return std::nullopt;
}

bool AnalyzedInput::needs_reanalysis(const CrsMatrix<double>& A, bool reanalyze, const char* caller,
                                     const char* option) const {
  const auto d = compare(A);
  if (!d) return false;
  if (!reanalyze)
    throw analysis_mismatch(std::string(caller) + ": " + d->what +
                                ": the matrix is not the analyzed one; call analyze() again, or set " +
                                option,
                            d->row);
  return true;
}

}  // namespace tessera::sparse::detail
