#pragma once
// What an analysis read from its matrix, kept so that a later factorize(A2)
// can check that A2 is still a matrix the analysis is valid for.
//
// Every analysis depends on the pattern: the ordering, the symbolic factor
// and the map from A's entries to the factor's slots are computed from it,
// so a factorization of another pattern would write entries into wrong
// slots (or drop them) and give a factor of some other matrix without any
// error. An LDL^T analysis with Options::pair_zero_diagonals also depends
// on values: each variable whose diagonal is zero is paired with a
// neighbour (PairedOrdering) so that the front holding it has the 2x2
// pivot it needs. Delayed pivoting keeps any factorization correct, but a
// zero diagonal that appears later has no partner (delays instead), a
// paired coupling that becomes zero leaves its pair without the 2x2 pivot
// it was made for, and a zero diagonal that becomes nonzero makes the
// pairing one the analysis would no longer choose: the analysis is not the
// one this matrix would get, and all three are reported. Without the
// pairing (the default) only the pattern is recorded.
//
// The comparison costs two memcmp of the arrays when nothing differs; only
// a mismatch pays for finding and describing the first differing row.
#include <tessera/sparse/crs_matrix.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera::sparse::detail {

class AnalyzedInput {
 public:
  // The pattern of A (copied).
  void record_pattern(const CrsMatrix<double>& A);
  // LDL^T: which diagonals are zero (an absent diagonal is zero) and the
  // couplings a(i, mate) of the pairs formed for them, given as
  // (zero-diagonal variable, its mate) in the matrix's own numbering.
  void record_zero_diagonals(const CrsMatrix<double>& A,
                             const std::vector<std::pair<std::int64_t, std::int64_t>>& pairs);
  void clear();

  // The first difference between A and what was recorded, or nothing.
  // `what` starts with "row <i> (1-based) ..." or names the orders; the
  // caller adds what to do about it.
  struct Difference {
    std::int64_t row = -1;  // 0-based; -1: the orders differ
    std::string what;
  };
  std::optional<Difference> compare(const CrsMatrix<double>& A) const;

  // factorize(A)'s check, shared by the solvers: false when the analysis is
  // valid for A. Otherwise true when `reanalyze` (the solver's
  // reanalyze_on_change: it analyzes A again), or analysis_mismatch
  // "<caller>: <what differs>: the matrix is not the analyzed one; call
  // analyze() again, or set <option>", thrown before anything is touched,
  // so that the previous analysis and factor stay usable.
  bool needs_reanalysis(const CrsMatrix<double>& A, bool reanalyze, const char* caller,
                        const char* option) const;

 private:
  std::optional<Difference> compare_pattern(const CrsMatrix<double>& A) const;
  std::optional<Difference> compare_zero_diagonals(const CrsMatrix<double>& A) const;

  std::int64_t m_n = -1;
  std::vector<std::int64_t> m_rows;
  std::vector<std::int32_t> m_cols;
  // LDL^T only (empty otherwise): per row, the position of the diagonal in
  // A's arrays (-1: absent) and whether it was zero; the positions of the
  // paired couplings a(i, mate) and their rows and columns. Positions are
  // valid for any A whose pattern compares equal.
  bool m_values_recorded = false;
  std::vector<std::int64_t> m_diag_pos;
  std::vector<char> m_zero_diag;
  struct Coupling {
    std::int64_t row, col, pos;
  };
  std::vector<Coupling> m_couplings;
};

}  // namespace tessera::sparse::detail
