#pragma once
// LevelCholesky<T, Space>: the Cholesky solver whose numeric factorization
// and solves run level by level in Space's memory (detail/level_numeric.hpp),
// behind the API of Cholesky<T, Space> (analyze / factorize / solve, one or
// many right-hand sides, refactorization reusing the analysis, failures
// naming the column and its pivot). The ordering and symbolic analysis are
// the host's, computed once by analyze().
//
// Cholesky<double, Cuda> is this class (the specialization at the end).
// Host spaces keep the task-DAG Cholesky; LevelCholesky<double, Serial>
// (Threads, OpenMP) is how the host tests run the Cuda code path with a
// host dense backend.
//
// Factorization::LDLt factors P A P^T = L D L^T with Bunch-Kaufman pivoting
// (LAPACK's dsytrf on a host space, cuSOLVER's dsytrf on Cuda) inside each
// front's fully-summed block, and reports the inertia, log|det| and its
// sign from D as the host LDL^T does. What it cannot do that the host LDL^T
// can: no pivot leaves its front (no delayed pivots, so Stats::
// delayed_pivots is 0 and a front whose fully-summed block is singular
// fails, e.g. a zero-diagonal variable alone in its supernode: the host
// delays it to its parent); Options::pivot_threshold has no effect (the
// pivot test is Bunch-Kaufman's own, within the block, and L's entries are
// not bounded by 1/u: the rows below are not looked at); static pivoting
// (Options::static_pivot) is refused. Zero pivots (|d| <= eps max|a_ij|)
// fail as on the host. Saddle-point and KKT matrices (zero diagonals)
// need Options::pair_zero_diagonals here, which the analysis honours as
// on the host: each zero-diagonal variable shares its neighbour's front,
// where Bunch-Kaufman finds the 2x2 pivot. Real double only (no LDL^H).
//
// What the host Cholesky has and this does not (yet): 2D blocks of large
// fronts (Options::max_block is ignored), the Tasks scheduler
// (Options::scheduler is ignored: this is a level-set schedule). Iterative
// refinement runs on Space (residual SpMV, corrections, the stopping test);
// rcond() estimates with solves on Space from the host.
#include <tessera/sparse/cholesky.hpp>
#include <tessera/sparse/detail/cholesky_common.hpp>
#include <tessera/sparse/detail/factorization_errors.hpp>
#include <tessera/sparse/detail/level_numeric.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace tessera::sparse::detail {

template <class T, class Space>
class LevelCholesky : public CholeskyCommon<LevelCholesky<T, Space>, T> {
  static_assert(std::is_same_v<T, double>, "the level-set Cholesky (Cholesky on Cuda) supports double for now");
  using Base = CholeskyCommon<LevelCholesky<T, Space>, T>;
  friend Base;

 public:
  using value_type = T;
  using execution_space = Space;

  explicit LevelCholesky(Options options = {}) : Base(options) {
    if (m_opt.factorization == Factorization::LDLt && m_opt.static_pivot != 0)
      throw sparse_error(std::string("Cholesky on ") + Space::name() +
                         ": Options::static_pivot is not implemented by the level-set LDL^T (no pivot leaves its "
                         "front, and none is replaced); set it to 0, or factor on a host space");
    if (m_opt.small_front_rows < 0)
      throw sparse_error("Cholesky: small_front_rows must be >= 0, got " + std::to_string(m_opt.small_front_rows));
    if (m_opt.solve_small_front_rows < 0)
      throw sparse_error("Cholesky: solve_small_front_rows must be >= 0, got " +
                         std::to_string(m_opt.solve_small_front_rows));
    if (!(m_opt.pivot_tolerance >= 0))
      throw sparse_error("Cholesky: pivot_tolerance must be >= 0, got " + std::to_string(m_opt.pivot_tolerance));
    if (m_opt.dense_streams < 1 || m_opt.dense_streams > 64)
      throw sparse_error("Cholesky: dense_streams must be in [1, 64], got " + std::to_string(m_opt.dense_streams));
    m_num.set_dense_streams(m_opt.dense_streams);
  }

  void analyze(const CrsMatrix<T>& A);
  void factorize(const CrsMatrix<T>& A);
  // x := A^-1 b (host memory, the matrix's numbering); the work is on
  // Space. The View forms, rank 1 and rank 2, are CholeskyCommon's.
  using Base::solve;
  void solve(T* x, const T* b, std::int64_t nrhs);

  // The factor's supernodal panels, copied from Space's memory (the layout
  // of SymbolicFactor::lx_ptr). LDLt: each panel holds sytrf's L and D of
  // F11 (lower) and F21 as assembled (not L21).
  std::vector<double> factor_values_host() const;

 private:
  using Base::m_opt, Base::m_analyzed, Base::m_factorized, Base::m_ordering, Base::m_sym, Base::m_levels,
      Base::m_input, Base::m_A, Base::m_log_det, Base::m_norm_a, Base::m_rcond, Base::m_stats, Base::norm_a;

  void solve_with_factor(const T* b, T* x, std::int64_t nrhs) { m_num.solve(b, x, nrhs); }
  [[noreturn]] void throw_failure(const typename LevelNumeric<Space>::PivotFailure& f) const;
  [[noreturn]] void throw_zero_pivots(const std::vector<std::int64_t>& columns, double zero_pivot) const;

  LevelNumeric<Space> m_num;
};

template <class T, class Space>
void LevelCholesky<T, Space>::analyze(const CrsMatrix<T>& A) {
  const auto t0 = std::chrono::steady_clock::now();
  m_analyzed = m_factorized = false;
  A.check_symmetric_pattern();
  const std::int64_t n = A.num_rows();
  AmalgamationOptions relax = m_opt.amalgamation;
  std::int64_t paired_variables = 0;
  m_input.record_pattern(A);
  if (m_opt.factorization == Factorization::LDLt && m_opt.pair_zero_diagonals) {
    // As the host's analysis (Cholesky<T, Host>::analyze): each zero-diagonal
    // variable right after its mate, in one supernode.
    PairedOrdering paired = compute_paired_ordering(m_opt.ordering, n, A.row_map(), A.col_idx(), A.values());
    m_ordering = std::move(paired.ordering);
    std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
    for (std::int64_t k = 0; k + 1 < n; ++k)
      if (paired.pair_next[k]) pairs.push_back({m_ordering.perm[k + 1], m_ordering.perm[k]});
    m_input.record_zero_diagonals(A, pairs);
    relax.keep_with_next = std::move(paired.pair_next);
    paired_variables = paired.pairs;
  } else {
    m_ordering = compute_ordering(m_opt.ordering, n, A.row_map(), A.col_idx());
  }
  m_sym = symbolic_factorization(n, A.row_map(), A.col_idx(), m_ordering, relax);
  m_levels = assembly_tree_levels(m_sym);
  m_num.analyze(m_sym, m_levels, A.row_map(), A.col_idx(), m_opt.factorization == Factorization::LDLt,
                m_opt.small_front_rows, m_opt.solve_small_front_rows);
  m_stats = Stats{};
  m_stats.n = n;
  m_stats.nnz_a = A.nnz();
  m_stats.nnz_l = m_sym.nnz_l;
  m_stats.stored_l = m_sym.stored_l;
  m_stats.flops = m_sym.flops;
  m_stats.supernodes = m_sym.nsuper;
  for (std::int64_t s = 0; s < m_sym.nsuper; ++s) m_stats.max_front_rows = std::max(m_stats.max_front_rows, m_sym.nrows(s));
  m_stats.levels = std::int64_t(m_levels.size());
  m_stats.threads = Space().concurrency();
  m_stats.paired_variables = paired_variables;
  m_stats.team_fronts = m_num.team_fronts();
  m_stats.solve_team_fronts = m_num.solve_team_fronts();
  m_stats.analyze_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m_analyzed = true;
}

template <class T, class Space>
void LevelCholesky<T, Space>::factorize(const CrsMatrix<T>& A) {
  bool reanalyzed = false;
  if (!m_analyzed) {
    analyze(A);
  } else if (m_input.needs_reanalysis(A, m_opt.reanalyze_on_change, "factorize",
                                      "Options::reanalyze_on_change")) {
    analyze(A);
    reanalyzed = true;
  }
  m_stats.reanalyzed = reanalyzed;
  A.check_finite();
  const auto t0 = std::chrono::steady_clock::now();
  m_factorized = false;
  m_A = A;
  const bool ldlt = m_opt.factorization == Factorization::LDLt;
  // pivot_tolerance is Cholesky's (the host's LDLt ignores it too).
  const auto failure = m_num.factorize(A.values(), A.nnz(), ldlt ? 0.0 : m_opt.pivot_tolerance);
  m_stats.peak_update_bytes = m_num.peak_update_bytes();
  // Panels and update matrices at their peak, as the host's figure (on Cuda:
  // device memory; the symbolic structure and the level tables add a little).
  m_stats.peak_factor_bytes = m_num.factor_bytes() + m_num.peak_update_bytes();
  if (failure) {
    m_stats.factorize_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    throw_failure(*failure);
  }
  if (ldlt) {
    // The host's zero-pivot test: |d| <= eps max|a_ij|.
    double a_max = 0;
    for (std::int64_t k = 0; k < A.nnz(); ++k) a_max = std::max(a_max, std::abs(A.values()[k]));
    const auto d = m_num.ldlt_summary(std::numeric_limits<double>::epsilon() * a_max);
    m_stats.factorize_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m_stats.two_by_two_pivots = d.two_by_two;
    m_stats.delayed_pivots = m_stats.delayed_fronts = m_stats.max_front_growth = 0;
    m_stats.max_delayed_front_rows = m_stats.max_front_rows;
    m_stats.factor_entries = m_stats.stored_l;
    m_stats.static_pivots = 0;
    if (!d.zero_columns.empty()) throw_zero_pivots(d.zero_columns, std::numeric_limits<double>::epsilon() * a_max);
    m_stats.inertia = Inertia{d.positive, d.negative, d.zero};
    m_log_det = LogDeterminant{d.sign, d.log_abs};
  } else {
    m_stats.factorize_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m_stats.inertia = Inertia{m_sym.n, 0, 0};
    m_log_det = LogDeterminant{1, m_num.log_determinant()};
  }
  m_norm_a = m_rcond = -1;
  m_factorized = true;
}

// The host solver's words (factorization_errors.hpp), with the space that ran.
template <class T, class Space>
void LevelCholesky<T, Space>::throw_failure(const typename LevelNumeric<Space>::PivotFailure& f) const {
  const std::int64_t original = m_sym.perm[f.column];
  throw factorization_error(std::string("factorize on ") + Space::name() + ": " +
                                pivot_failure_text(original, f.value, f.below_tolerance),
                            original, f.value);
}

template <class T, class Space>
void LevelCholesky<T, Space>::throw_zero_pivots(const std::vector<std::int64_t>& columns, double zero_pivot) const {
  throw_ldlt_zero_pivots(m_sym.perm, columns, zero_pivot, "pivoting inside each front",
                         std::string("factorize on ") + Space::name() + ": ", "");
}

template <class T, class Space>
void LevelCholesky<T, Space>::solve(T* x, const T* b, std::int64_t nrhs) {
  if (!m_factorized) throw sparse_error("solve: no successful factorize() before it");
  if (nrhs < 0) throw sparse_error("solve: negative number of right-hand sides");
  const auto t0 = std::chrono::steady_clock::now();
  m_stats.refinement_steps_taken = 0;
  m_stats.backward_error = -1;
  if (m_opt.refinement_steps <= 0) {
    solve_with_factor(b, x, nrhs);
  } else {
    // Residuals, corrections and the stopping test on Space: only three
    // norms per right-hand side come back per step.
    const auto r = m_num.solve_refined(b, x, nrhs, m_opt.refinement_steps, norm_a());
    m_stats.refinement_steps_taken = r.steps;
    m_stats.backward_error = r.backward_error;
  }
  m_stats.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class T, class Space>
std::vector<double> LevelCholesky<T, Space>::factor_values_host() const {
  if (!m_analyzed) throw sparse_error("factor_values_host: no analyze() before it");
  return m_num.factor_values();
}

}  // namespace tessera::sparse::detail

#if TESSERA_ENABLE_CUDA
namespace tessera::sparse {

// Cholesky on the GPU: the host's analysis, the level-set numeric
// factorization and solves with cuBLAS and cuSOLVER. Code that uses it is
// compiled by nvcc (its assembly kernels are Tessera parallel_for lambdas).
template <class T>
class Cholesky<T, Cuda> : public detail::LevelCholesky<T, Cuda> {
 public:
  using detail::LevelCholesky<T, Cuda>::LevelCholesky;
};

}  // namespace tessera::sparse
#endif
