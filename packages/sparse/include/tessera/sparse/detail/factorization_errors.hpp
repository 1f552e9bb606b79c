#pragma once
// The words of a failed numeric factorization, shared by the host solver
// (SupernodalNumeric::throw_if_failed) and the level-set one that Cuda runs
// (LevelCholesky), so that a user reads the same message, column and value
// whichever space factorized.
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::sparse::detail {

// A Cholesky pivot that failed: the column in the matrix's own numbering
// (0-based) and the pivot's value; below_tolerance when it was positive but
// under the pivot tolerance times |a(j,j)|. Text only, without a prefix.
std::string pivot_failure_text(std::int64_t original_column, double value, bool below_tolerance);

// Throws factorization_error for LDL^T's zero pivots: `positions` in the
// elimination order, mapped through perm (perm[new] = old) and listed
// 1-based (20 at most), `zero_pivot` the threshold |pivot| <= eps max|a_ij|,
// `how` the pivoting that was tried ("after delayed pivoting"), `prefix`
// and `advice` put before and after (either may be empty).
[[noreturn]] void throw_ldlt_zero_pivots(const std::vector<std::int64_t>& perm,
                                         const std::vector<std::int64_t>& positions, double zero_pivot,
                                         const std::string& how, const std::string& prefix,
                                         const std::string& advice);

}  // namespace tessera::sparse::detail
