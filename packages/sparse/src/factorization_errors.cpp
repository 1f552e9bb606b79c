#include <tessera/sparse/crs_matrix.hpp>
#include <tessera/sparse/detail/factorization_errors.hpp>

#include <algorithm>
#include <cstdio>

namespace tessera::sparse::detail {

std::string pivot_failure_text(std::int64_t original_column, double value, bool below_tolerance) {
  const std::string column = "pivot of column " + std::to_string(original_column + 1);
  char text[64];
  std::snprintf(text, sizeof text, "%.6g", value);
  const std::string numbering = " (column 1-based, in the matrix's own numbering)";
  if (value == 0.0) return "the matrix is singular: " + column + " is exactly zero" + numbering;
  if (below_tolerance)
    return "the matrix is singular to working precision or not positive definite: " + column + " is " + text +
           ", below the pivot tolerance times |a(j,j)|" + numbering;
  return "the matrix is not positive definite: " + column + " is " + text + numbering +
         "; try --factor ldlt (Options::factorization = Factorization::LDLt) for a symmetric indefinite matrix";
}

void throw_ldlt_zero_pivots(const std::vector<std::int64_t>& perm, const std::vector<std::int64_t>& positions,
                            double zero_pivot, const std::string& how, const std::string& prefix,
                            const std::string& advice) {
  std::vector<std::int64_t> cols;
  cols.reserve(positions.size());
  for (std::int64_t c : positions) cols.push_back(perm[std::size_t(c)]);
  std::sort(cols.begin(), cols.end());
  std::string list;
  for (std::size_t i = 0; i < cols.size() && i < 20; ++i) list += (i ? ", " : "") + std::to_string(cols[i] + 1);
  if (cols.size() > 20) list += " and " + std::to_string(cols.size() - 20) + " more";
  char tol[64];
  std::snprintf(tol, sizeof tol, "%.3g", zero_pivot);
  const bool one = cols.size() == 1;
  throw factorization_error(prefix + "the matrix is singular to working precision: LDL^T found " +
                                std::to_string(cols.size()) + " zero pivot" + (one ? "" : "s") +
                                " (|pivot| <= eps max|a_ij| = " + tol + ", " + how + "), column" +
                                (one ? " " : "s ") + list + " (1-based, in the matrix's own numbering)" + advice,
                            cols.front(), 0.0, cols);
}

}  // namespace tessera::sparse::detail
