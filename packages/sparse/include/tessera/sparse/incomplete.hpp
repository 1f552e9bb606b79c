#pragma once
// Incomplete Cholesky IC(k) and preconditioned conjugate gradients.
//
//   tessera::sparse::IncompleteCholesky<double, Space> ic({.level = 2});
//   ic.factorize(A);                                   // analyze + numeric
//   auto r = tessera::sparse::pcg<Space>(A, b, x, ic, {.tolerance = 1e-10});
//   r.iterations, r.relative_residual, r.converged
//
// The level-k pattern follows Hysom and Pothen's incomplete fill-path rule:
// L(i, j), j < i, is kept when G(A) has a path from i to j of at most k + 1
// edges whose interior vertices are all numbered below j (k = 0 keeps A's
// pattern; k >= n gives the complete factor's). Each row is an independent
// bounded search, so the rows are computed in parallel (parallel_for for
// the rows, parallel_scan for the offsets).
//
// IC(0) needs no search: its pattern is A's own lower triangle, copied in
// two passes (count, fill) without per-row buffers.
//
// The numeric factorization is row-oriented (up-looking): row i needs the
// rows its pattern names. With more than one thread the rows are grouped
// into level sets of that dependence DAG and each level is one
// parallel_for; the triangular solves of the preconditioner use the same
// level sets (and those of L^T). With one thread (Serial, or a pool of one)
// level sets only cost: the rows are factorized and solved in plain
// sequential sweeps, and the level sets are never built. Both schedules do
// the same arithmetic row by row, so they give the same bits.
#include <tessera/core.hpp>
#include <tessera/sparse/crs_matrix.hpp>
#include <tessera/sparse/detail/analyzed_input.hpp>
#include <tessera/sparse/ordering.hpp>
#include <tessera/sparse/spmv.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::sparse {

// Lower-triangular pattern, rows sorted, the diagonal last in each row.
struct LevelPattern {
  std::int64_t n = 0;
  std::vector<std::int64_t> row_ptr;
  std::vector<std::int32_t> cols;
  std::vector<std::int32_t> level;  // 0 for A's own entries, l for fill of level l
  std::int64_t nnz() const { return row_ptr.empty() ? 0 : row_ptr.back(); }
};

namespace detail {
// Row i of the level-k pattern of P A P^T (perm[new] = old): the columns
// j < i and their levels, ascending; the diagonal is added by the caller.
void level_k_row(std::int64_t i, int k, const std::int64_t* rm, const std::int32_t* ci,
                 const std::vector<std::int64_t>& perm, const std::vector<std::int64_t>& iperm,
                 std::vector<std::int32_t>& cols, std::vector<std::int32_t>& levels);
// Level sets of a lower-triangular row pattern (forward dependences) and of
// its transpose (backward).
std::vector<std::vector<std::int64_t>> row_levels(const LevelPattern& p, bool transpose);
}  // namespace detail

// The level-0 pattern of P A P^T: A's lower triangle, permuted, each row
// sorted (A's rows are sorted and unique; a permutation unsorts them) and
// the diagonal appended whether A stores it or not.
template <class Space>
LevelPattern level_0_pattern(const std::int64_t n, const std::int64_t* rm, const std::int32_t* ci,
                             const std::vector<std::int64_t>& perm, const std::vector<std::int64_t>& iperm) {
  bool natural = true;
  for (std::int64_t i = 0; i < n && natural; ++i) natural = perm[i] == i;
  LevelPattern p;
  p.n = n;
  p.row_ptr.assign(std::size_t(n) + 1, 0);
  std::int64_t* offsets = p.row_ptr.data();
  parallel_scan("sparse::level_0_offsets", RangePolicy<Space>(0, n + 1),
                [&](std::int64_t i, std::int64_t& sum, bool final) {
                  std::int64_t count = 0;
                  if (i < n) {
                    const std::int64_t old = perm[i];
                    if (natural)
                      for (std::int64_t q = rm[i]; q < rm[i + 1] && ci[q] < i; ++q) ++count;
                    else
                      for (std::int64_t q = rm[old]; q < rm[old + 1]; ++q) count += iperm[ci[q]] < i ? 1 : 0;
                    ++count;  // the diagonal
                  }
                  if (final) offsets[i] = sum;
                  sum += count;
                });
  p.cols.resize(std::size_t(p.row_ptr[n]));
  p.level.assign(std::size_t(p.row_ptr[n]), 0);
  if (natural) {  // row i's lower part is a sorted prefix of A's row i
    parallel_for("sparse::level_0_copy", RangePolicy<Space>(0, n), [&](std::int64_t i) {
      const std::int64_t count = p.row_ptr[i + 1] - p.row_ptr[i] - 1;
      std::copy(ci + rm[i], ci + rm[i] + count, p.cols.data() + p.row_ptr[i]);
      p.cols[p.row_ptr[i] + count] = std::int32_t(i);
    });
    return p;
  }
  parallel_for("sparse::level_0_fill", RangePolicy<Space>(0, n), [&](std::int64_t i) {
    const std::int64_t old = perm[i];
    std::int32_t* out = p.cols.data() + p.row_ptr[i];
    std::int32_t* at = out;
    for (std::int64_t q = rm[old]; q < rm[old + 1]; ++q) {
      const std::int64_t j = iperm[ci[q]];
      if (j < i) *at++ = std::int32_t(j);
    }
    if (!std::is_sorted(out, at)) std::sort(out, at);
    *at = std::int32_t(i);
  });
  return p;
}

// The level-k pattern of P A P^T, rows computed in parallel on Space.
template <class Space>
LevelPattern level_k_pattern(const std::int64_t n, const std::int64_t* rm, const std::int32_t* ci, int k,
                             const std::vector<std::int64_t>& perm, const std::vector<std::int64_t>& iperm) {
  if (k < 0) throw sparse_error("level_k_pattern: the level must be >= 0, got " + std::to_string(k));
  if (k == 0) return level_0_pattern<Space>(n, rm, ci, perm, iperm);
  std::vector<std::vector<std::int32_t>> rows(static_cast<std::size_t>(n)), levels(static_cast<std::size_t>(n));
  parallel_for("sparse::level_k_rows", RangePolicy<Space>(0, n), [&](std::int64_t i) {
    detail::level_k_row(i, k, rm, ci, perm, iperm, rows[i], levels[i]);
  });
  LevelPattern p;
  p.n = n;
  p.row_ptr.assign(std::size_t(n) + 1, 0);
  std::int64_t* offsets = p.row_ptr.data();
  parallel_scan("sparse::level_k_offsets", RangePolicy<Space>(0, n + 1),
                [&](std::int64_t i, std::int64_t& sum, bool final) {
                  const std::int64_t count = i < n ? std::int64_t(rows[i].size()) + 1 : 0;  // + the diagonal
                  if (final) offsets[i] = sum;
                  sum += count;
                });
  p.cols.resize(std::size_t(p.row_ptr[n]));
  p.level.resize(std::size_t(p.row_ptr[n]));
  parallel_for("sparse::level_k_fill", RangePolicy<Space>(0, n), [&](std::int64_t i) {
    std::int64_t q = p.row_ptr[i];
    for (std::size_t a = 0; a < rows[i].size(); ++a, ++q) {
      p.cols[q] = rows[i][a];
      p.level[q] = levels[i][a];
    }
    p.cols[q] = std::int32_t(i);
    p.level[q] = 0;
  });
  return p;
}

struct IncompleteOptions {
  int level = 0;                           // k of IC(k)
  Ordering ordering = Ordering::Natural;   // natural keeps a mesh's locality; ND orderings suit complete factors
  // A pivot d <= 0 is a breakdown; with a shift > 0 the factorization of
  // A + shift * diag(A) is tried instead (the error says so if it still fails).
  double diagonal_shift = 0;
  // factorize(A2) after analyze(A) checks that A2 has A's pattern (the
  // level-k pattern and the slots of A's entries come from it). Another
  // pattern throws analysis_mismatch naming the first differing row and
  // leaves the previous factor usable; with this set, A2 is analyzed instead.
  bool reanalyze_on_change = false;
};

template <class T, class Space = DefaultHostExecutionSpace>
class IncompleteCholesky {
  static_assert(std::is_same_v<T, double>, "tessera::sparse::IncompleteCholesky supports double for now");
  static_assert(is_host_execution_space<Space>::value,
                "tessera::sparse::IncompleteCholesky runs on a host execution space (Serial, Threads, OpenMP)");

 public:
  explicit IncompleteCholesky(IncompleteOptions o = {}) : m_opt(o) {}

  void analyze(const CrsMatrix<T>& A) {
    const auto t0 = std::chrono::steady_clock::now();
    m_analyzed = m_factorized = false;
    A.check_symmetric_pattern();
    m_input.record_pattern(A);
    m_ordering = compute_ordering(m_opt.ordering, A.num_rows(), A.row_map(), A.col_idx());
    m_pattern = level_k_pattern<Space>(A.num_rows(), A.row_map(), A.col_idx(), m_opt.level, m_ordering.perm,
                                       m_ordering.iperm);
    m_natural = true;
    for (std::int64_t i = 0; i < A.num_rows() && m_natural; ++i) m_natural = m_ordering.perm[i] == i;
    m_sequential = Space().concurrency() <= 1;
    m_forward.clear();
    m_backward.clear();
    if (!m_sequential) {
      m_forward = detail::row_levels(m_pattern, false);
      m_backward = detail::row_levels(m_pattern, true);
      build_transpose();
    } else {
      m_t_ptr.clear(), m_t_src.clear(), m_t_cols.clear(), m_t_values.clear();
    }
    m_analyze_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m_analyzed = true;
  }

  void factorize(const CrsMatrix<T>& A) {
    m_reanalyzed = false;
    if (!m_analyzed) {
      analyze(A);
    } else if (m_input.needs_reanalysis(A, m_opt.reanalyze_on_change, "IncompleteCholesky::factorize",
                                        "IncompleteOptions::reanalyze_on_change")) {
      analyze(A);
      m_reanalyzed = true;
    }
    A.check_finite();
    const auto t0 = std::chrono::steady_clock::now();
    m_factorized = false;
    std::int64_t bad = -1;
    T bad_value = 0;
    if (m_sequential) {  // stops at the first pivot that fails, in elimination order
      m_values.resize(m_pattern.cols.size());  // every entry is written
      bad = factorize_sequential(A);
      if (bad != -1) bad_value = m_values[m_pattern.row_ptr[bad + 1] - 1];
    } else {
      m_values.assign(m_pattern.cols.size(), T(0));
      scatter(A);
    }
    for (const auto& lvl : m_forward) {
      parallel_for("sparse::ic_rows", RangePolicy<Space>(0, std::int64_t(lvl.size())),
                   [&](std::int64_t q) { factor_row(lvl[q]); });
      for (std::int64_t i : lvl) {
        const T d = m_values[m_pattern.row_ptr[i + 1] - 1];
        if (!(d > T(0)) && (bad == -1 || i < bad)) {
          bad = i;
          bad_value = d;
        }
      }
      if (bad != -1) break;
    }
    if (bad != -1)
      throw factorization_error("incomplete Cholesky IC(" + std::to_string(m_opt.level) + ") broke down: pivot of column " +
                                    std::to_string(m_ordering.perm[bad] + 1) + " is " + std::to_string(bad_value) +
                                    " (column 1-based, in the matrix's own numbering; try a diagonal shift)",
                                m_ordering.perm[bad], double(bad_value));
    build_unit_factor();
    m_factorize_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m_factorized = true;
  }

  // z := (L L^T)^-1 r, in the matrix's own numbering. Allocates only for
  // an ordering other than the natural one (the permuted work vector).
  void apply(const T* r, T* z) const {
    if (!m_factorized) throw sparse_error("IncompleteCholesky::apply: no successful factorize() before it");
    const std::int64_t n = m_pattern.n;
    std::vector<T> permuted;
    T* y = z;
    if (!m_natural) {
      permuted.resize(static_cast<std::size_t>(n));
      y = permuted.data();
      for (std::int64_t i = 0; i < n; ++i) y[i] = r[m_ordering.perm[i]];
    } else if (y != r) {
      std::copy(r, r + n, y);
    }
    const T* inv_square = m_inv_square.data();
    if (m_sequential) {
      forward_sweep(y);
      for (std::int64_t i = 0; i < n; ++i) y[i] *= inv_square[i];
      backward_sweep(y);
    } else {
      for (const auto& lvl : m_forward)
        parallel_for("sparse::ic_forward", RangePolicy<Space>(0, std::int64_t(lvl.size())),
                     [&](std::int64_t q) { forward_row(lvl[q], y); });
      parallel_for("sparse::ic_scale", RangePolicy<Space>(0, n), [=](std::int64_t i) { y[i] *= inv_square[i]; });
      for (const auto& lvl : m_backward)
        parallel_for("sparse::ic_backward", RangePolicy<Space>(0, std::int64_t(lvl.size())),
                     [&](std::int64_t q) { backward_row(lvl[q], y); });
    }
    if (!m_natural)
      for (std::int64_t i = 0; i < n; ++i) z[m_ordering.perm[i]] = y[i];
  }

  const LevelPattern& pattern() const { return m_pattern; }
  const std::vector<T>& values() const { return m_values; }
  const OrderingResult& ordering() const { return m_ordering; }
  std::int64_t nnz_l() const { return m_pattern.nnz(); }
  // The last factorize analyzed its matrix again (reanalyze_on_change).
  bool reanalyzed() const { return m_reanalyzed; }
  double analyze_seconds() const { return m_analyze_seconds; }
  double factorize_seconds() const { return m_factorize_seconds; }
  // Flops of the numeric factorization: sum over rows of the sparse dot products' lengths.
  double flops() const {
    double f = 0;
    for (std::int64_t i = 0; i < m_pattern.n; ++i) {
      const double c = double(m_pattern.row_ptr[i + 1] - m_pattern.row_ptr[i]);
      f += c * c;
    }
    return f;
  }

 private:
  // Scatter A's lower triangle (permuted) into the pattern; entries of A
  // are always in it (level 0).
  void scatter(const CrsMatrix<T>& A) {
    parallel_for("sparse::ic_scatter", RangePolicy<Space>(0, m_pattern.n), [&](std::int64_t i) {
      const std::int64_t old = m_ordering.perm[i];
      const std::int32_t* b = m_pattern.cols.data() + m_pattern.row_ptr[i];
      const std::int32_t* e = m_pattern.cols.data() + m_pattern.row_ptr[i + 1];
      for (std::int64_t q = A.row_map()[old]; q < A.row_map()[old + 1]; ++q) {
        const std::int64_t j = m_ordering.iperm[A.col_idx()[q]];
        if (j > i) continue;
        const std::int32_t* at = std::lower_bound(b, e, std::int32_t(j));
        T v = A.values()[q];
        if (j == i) v += T(m_opt.diagonal_shift) * std::abs(v);
        m_values[at - m_pattern.cols.data()] = v;
      }
    });
  }

  // One thread: row i of A is scattered into a dense row w (zero outside
  // row i's pattern), and L(i, j) = (w(j) - sum_k w(k) L(j, k)) / L(j, j)
  // runs over row j's columns k with no search: w(k) is L(i, k) where row i
  // has k (its columns below j are final by then) and an exact zero where
  // not. The same products in the same order as factor_row's merge, so the
  // same bits. Returns the first row whose pivot fails, or -1.
  std::int64_t factorize_sequential(const CrsMatrix<T>& A) {
    const std::int64_t n = m_pattern.n;
    const std::int64_t* rp = m_pattern.row_ptr.data();
    const std::int32_t* cols = m_pattern.cols.data();
    T* val = m_values.data();
    std::vector<T> w(static_cast<std::size_t>(n), T(0));
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t old = m_ordering.perm[i];
      for (std::int64_t q = A.row_map()[old]; q < A.row_map()[old + 1]; ++q) {
        const std::int64_t j = m_natural ? A.col_idx()[q] : m_ordering.iperm[A.col_idx()[q]];
        if (j > i) continue;
        T v = A.values()[q];
        if (j == i) v += T(m_opt.diagonal_shift) * std::abs(v);
        w[j] = v;
      }
      const std::int64_t last = rp[i + 1] - 1;
      for (std::int64_t p = rp[i]; p < last; ++p) {
        const std::int64_t j = cols[p];
        T s = w[j];
        for (std::int64_t q = rp[j]; q < rp[j + 1] - 1; ++q) s -= w[cols[q]] * val[q];
        const T l = s / val[rp[j + 1] - 1];
        val[p] = l;
        w[j] = l;
      }
      T s = w[i];
      for (std::int64_t q = rp[i]; q < last; ++q) s -= val[q] * val[q];
      val[last] = s > T(0) ? std::sqrt(s) : s;
      for (std::int64_t p = rp[i]; p <= last; ++p) w[cols[p]] = T(0);
      if (!(s > T(0))) return i;
    }
    return -1;
  }

  // The solves. With D = diag(L) and U = L D^-1 (unit lower triangular,
  // U(i, j) = L(i, j) / L(j, j)), L L^T = U D^2 U^T, so z = (L L^T)^-1 r is
  // U w = r, then v = D^-2 w, then U^T z = v. Neither triangular solve
  // divides or scales: a row's dependence chain is one multiply and one
  // subtract, where L's solves add a multiply by 1 / L(i, i) to each row
  // (the scaling is one independent pass between them). Same result to
  // rounding; IC(0) of lap3d:40, one thread, 0.32 -> 0.25 ms per apply.
  void build_unit_factor() {
    const std::int64_t n = m_pattern.n;
    const std::int64_t* rp = m_pattern.row_ptr.data();
    const std::int32_t* cols = m_pattern.cols.data();
    // 1 / L(i, i) first (one division per row, not per entry), squared in place after.
    m_inv_square.resize(std::size_t(n));
    for (std::int64_t i = 0; i < n; ++i) m_inv_square[i] = T(1) / m_values[rp[i + 1] - 1];
    m_unit.resize(m_values.size());
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t p = rp[i]; p < rp[i + 1] - 1; ++p) m_unit[p] = m_values[p] * m_inv_square[cols[p]];
      m_unit[rp[i + 1] - 1] = T(1);
    }
    for (std::int64_t i = 0; i < n; ++i) m_inv_square[i] *= m_inv_square[i];
    for (std::int64_t q = 0; q < std::int64_t(m_t_src.size()); ++q) m_t_values[q] = m_unit[m_t_src[q]];
  }

  // y(i) := y(i) - U(i, 0:i-1) y(0:i-1). The columns ascend, so y(i - 1),
  // the one a sequential sweep has just written, comes last.
  void forward_row(std::int64_t i, T* y) const {
    T s = y[i];
    const std::int64_t last = m_pattern.row_ptr[i + 1] - 1;
    for (std::int64_t p = m_pattern.row_ptr[i]; p < last; ++p) s -= m_unit[p] * y[m_pattern.cols[p]];
    y[i] = s;
  }
  // y(i) := y(i) - U(i+1:n, i)^T y(i+1:n) from row i of U^T (the diagonal
  // first, then the rows below it ascending), walked backwards so that
  // y(i + 1) comes last, as in forward_row.
  void backward_row(std::int64_t i, T* y) const {
    T s = y[i];
    const std::int64_t first = m_t_ptr[i];
    for (std::int64_t p = m_t_ptr[i + 1] - 1; p > first; --p) s -= m_t_values[p] * y[m_t_cols[p]];
    y[i] = s;
  }

  // The sequential sweeps (one thread). The forward one is forward_row on
  // every row in order; the backward one goes by the rows of U (U^T's
  // columns), so that no transpose is built, and subtracts in the order
  // backward_row does: both schedules give the same bits. A row's last
  // off-diagonal entry is most often column i - 1 (a mesh in its natural
  // order), so each row would load the value that the row before it has
  // just stored: a store-to-load forward in the sweep's dependence chain,
  // about as long as the arithmetic. That value is kept in a register
  // instead (IC(0) of lap3d:40, one thread: 0.53 -> 0.32 ms per apply in
  // L's form; PETSc's ICC(0) MatSolve takes 0.54 ms on the same machine).
  void forward_sweep(T* y) const {
    const std::int64_t n = m_pattern.n;
    const std::int64_t* rp = m_pattern.row_ptr.data();
    const std::int32_t* cols = m_pattern.cols.data();
    const T* unit = m_unit.data();
    T previous = 0;  // y(i - 1)
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t first = rp[i], last = rp[i + 1] - 1;
      T s = y[i];
      if (last > first && cols[last - 1] == i - 1) {
        for (std::int64_t p = first; p < last - 1; ++p) s -= unit[p] * y[cols[p]];
        s -= unit[last - 1] * previous;
      } else {
        for (std::int64_t p = first; p < last; ++p) s -= unit[p] * y[cols[p]];
      }
      previous = s;
      y[i] = s;
    }
  }
  // Row i of U, from the last row up: y(i) is final once the rows below it
  // have subtracted their terms, and is then subtracted from the entries
  // its row names. The subtraction from y(i - 1), which the next row reads
  // at once, stays in a register (`carried`).
  void backward_sweep(T* y) const {
    const std::int64_t n = m_pattern.n;
    const std::int64_t* rp = m_pattern.row_ptr.data();
    const std::int32_t* cols = m_pattern.cols.data();
    const T* unit = m_unit.data();
    bool has_carried = false;
    T carried = 0;  // y(i) less row i + 1's term, when row i + 1 has column i
    for (std::int64_t i = n - 1; i >= 0; --i) {
      const std::int64_t first = rp[i], last = rp[i + 1] - 1;
      const T yi = has_carried ? carried : y[i];
      y[i] = yi;
      has_carried = last > first && cols[last - 1] == i - 1;
      const std::int64_t end = has_carried ? last - 1 : last;
      for (std::int64_t p = first; p < end; ++p) y[cols[p]] -= unit[p] * yi;
      if (has_carried) carried = y[i - 1] - unit[last - 1] * yi;
    }
  }

  void factor_row(std::int64_t i) {
    const std::int64_t b = m_pattern.row_ptr[i], e = m_pattern.row_ptr[i + 1];
    for (std::int64_t p = b; p < e; ++p) {
      const std::int64_t j = m_pattern.cols[p];
      // dot(L(i, 0:j-1), L(j, 0:j-1)) over the common columns (sorted merge).
      T s = m_values[p];
      std::int64_t a = b, c = m_pattern.row_ptr[j];
      const std::int64_t c_end = m_pattern.row_ptr[j + 1] - 1;  // row j without its diagonal
      while (a < p && c < c_end) {
        const std::int32_t ca = m_pattern.cols[a], cc = m_pattern.cols[c];
        if (ca == cc) s -= m_values[a++] * m_values[c++];
        else if (ca < cc) ++a;
        else ++c;
      }
      if (j == i) {
        m_values[p] = s > T(0) ? std::sqrt(s) : s;  // a breakdown is reported by the caller
        return;
      }
      const T d = m_values[m_pattern.row_ptr[j + 1] - 1];
      m_values[p] = s / d;
    }
  }

  void build_transpose() {
    const std::int64_t n = m_pattern.n;
    m_t_ptr.assign(std::size_t(n) + 1, 0);
    for (std::int32_t c : m_pattern.cols) ++m_t_ptr[c + 1];
    for (std::int64_t i = 0; i < n; ++i) m_t_ptr[i + 1] += m_t_ptr[i];
    m_t_cols.resize(m_pattern.cols.size());
    m_t_src.resize(m_pattern.cols.size());
    m_t_values.resize(m_pattern.cols.size());
    std::vector<std::int64_t> pos(m_t_ptr.begin(), m_t_ptr.end() - 1);
    for (std::int64_t i = 0; i < n; ++i)  // rows ascending: each column's entries come out with the diagonal first
      for (std::int64_t p = m_pattern.row_ptr[i]; p < m_pattern.row_ptr[i + 1]; ++p) {
        const std::int64_t q = pos[m_pattern.cols[p]]++;
        m_t_cols[q] = std::int32_t(i);
        m_t_src[q] = p;
      }
  }

  IncompleteOptions m_opt;
  bool m_analyzed = false, m_factorized = false, m_reanalyzed = false;
  detail::AnalyzedInput m_input;  // A's pattern at analyze, checked by factorize
  bool m_natural = true;      // the ordering is the identity: apply works in z itself
  bool m_sequential = false;  // one thread: sequential sweeps, no level sets
  OrderingResult m_ordering;
  LevelPattern m_pattern;
  std::vector<std::vector<std::int64_t>> m_forward, m_backward;
  std::vector<T> m_values;
  // L^T in compressed rows (= L by columns) for the backward solve.
  std::vector<std::int64_t> m_t_ptr, m_t_src;
  std::vector<std::int32_t> m_t_cols;
  std::vector<T> m_t_values;    // U^T's values
  std::vector<T> m_unit;        // U = L D^-1 in L's pattern (the solves' factor)
  std::vector<T> m_inv_square;  // 1 / L(i, i)^2
  double m_analyze_seconds = 0, m_factorize_seconds = 0;
};

struct PcgOptions {
  double tolerance = 1e-10;  // on ||b - A x|| / ||b||
  int max_iterations = 10000;
};
struct PcgResult {
  int iterations = 0;
  double relative_residual = 0;
  bool converged = false;
  double seconds = 0;
};

// Preconditioned conjugate gradients for SPD A from the initial guess in x.
// M is anything with apply(r, z) computing z = M^-1 r (IncompleteCholesky,
// Cholesky wrapped, ...). SpMV rows run in parallel on Space.
template <class Space, class T, class Precond>
PcgResult pcg(const CrsMatrix<T>& A, const T* b, T* x, const Precond& M, const PcgOptions& opt = {}) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::int64_t n = A.num_rows();
  std::vector<T> r(n), z(n), p(n), q(n);
  auto spmv = [&](const T* in, T* out) { multiply<Space>(A, in, out); };
  auto dot = [n](const std::vector<T>& a, const std::vector<T>& c) {
    T s = 0;
    for (std::int64_t i = 0; i < n; ++i) s += a[i] * c[i];
    return s;
  };
  double bnorm = 0;
  for (std::int64_t i = 0; i < n; ++i) bnorm += double(b[i]) * double(b[i]);
  bnorm = std::sqrt(bnorm);
  PcgResult res;
  spmv(x, q.data());
  for (std::int64_t i = 0; i < n; ++i) r[i] = b[i] - q[i];
  if (bnorm == 0) bnorm = 1;
  res.relative_residual = std::sqrt(double(dot(r, r))) / bnorm;
  if (res.relative_residual <= opt.tolerance) {
    res.converged = true;
    return res;
  }
  M.apply(r.data(), z.data());
  p = z;
  T rz = dot(r, z);
  for (int it = 1; it <= opt.max_iterations; ++it) {
    spmv(p.data(), q.data());
    const T pq = dot(p, q);
    if (!(pq > T(0))) break;  // A or M is not positive definite along p
    const T alpha = rz / pq;
    T rr = 0;  // r.r in the update's pass (the same sum, in the same order, as dot(r, r))
    for (std::int64_t i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      rr += r[i] * r[i];
    }
    res.iterations = it;
    res.relative_residual = std::sqrt(double(rr)) / bnorm;
    if (res.relative_residual <= opt.tolerance) {
      res.converged = true;
      break;
    }
    M.apply(r.data(), z.data());
    const T rz_new = dot(r, z);
    const T beta = rz_new / rz;
    rz = rz_new;
    for (std::int64_t i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace tessera::sparse
