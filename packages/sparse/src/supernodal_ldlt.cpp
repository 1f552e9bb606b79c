// The LDL^T side of SupernodalNumeric: fronts that grow by the columns their
// children delay, the threshold-pivoting kernel on each, and the solves
// through the pivot order each front chose (layout in
// detail/supernodal_numeric.hpp, pivoting in detail/threshold_ldlt.hpp).
#include <tessera/sparse/detail/hermitian_pivot_2x2.hpp>
#include <tessera/sparse/detail/supernodal_numeric.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tessera::sparse::detail {

template <class T>
void SupernodalNumeric<T>::assemble_ldlt(std::int64_t s) {
  const SymbolicFactor& f = *m_sym;
  const std::int64_t m = f.nrows(s), nc = f.ncols(s), mu = m - nc, c0 = f.super_ptr[s];
  LdltFront& F = m_ldlt[s];
  std::int64_t nd = 0;
  for (std::int64_t k = f.child_ptr[s]; k < f.child_ptr[s + 1]; ++k) {
    const LdltFront& C = m_ldlt[f.child_list[k]];
    nd += C.nfs - C.piv.npiv;
  }
  F.nd = nd;
  F.nfs = nc + nd;
  F.ld = F.nfs + mu;
  if (nd == 0) {
    F.panel = panel(s);
  } else {
    const std::size_t size = std::size_t(F.ld * F.nfs);
    if (F.grown_size < size) {
      F.grown.reset(new T[size]);
      F.grown_size = size;
    }
    F.panel = F.grown.get();
  }
  T* p = F.panel;
  const std::int64_t ld = F.ld, nfs = F.nfs;
  std::fill(p, p + ld * nfs, T(0));
  F.vars.resize(std::size_t(nfs));
  for (std::int64_t j = 0; j < nc; ++j) F.vars[j] = c0 + j;
  // A's entries: rows below the own columns move down by nd.
  if (nd == 0) {
    for (std::int64_t q = m_a_ptr[s]; q < m_a_ptr[s + 1]; ++q) m_lx[std::size_t(m_a_map[q].second)] = m_a[m_a_map[q].first];
  } else {
    for (std::int64_t q = m_a_ptr[s]; q < m_a_ptr[s + 1]; ++q) {
      const std::int64_t local = m_a_map[q].second - f.lx_ptr[s], l = local % m, j = local / m;
      p[(l < nc ? l : l + nd) + j * ld] = m_a[m_a_map[q].first];
    }
  }
  // The threshold kernel's column-chunked updates write the upper part of
  // the chunks' diagonal blocks too: U is zeroed whole.
  T* u = mu > 0 ? acquire_update(s, true) : nullptr;
  std::int64_t next_delayed = nc;
  std::vector<std::int64_t> pos;
  for (std::int64_t k = f.child_ptr[s]; k < f.child_ptr[s + 1]; ++k) {
    const std::int64_t c = f.child_list[k];
    const LdltFront& C = m_ldlt[c];
    const std::int64_t dc = C.nfs - C.piv.npiv, muc = f.nrows(c) - f.ncols(c), cb = dc + muc;
    const std::int32_t* rel = f.relidx.data() + f.rows_ptr[c] + f.ncols(c);
    const T* uc = m_update[c];
    if (nd == 0) {
      // No delays anywhere below s's front: the extend-add of the Cholesky
      // path (rel is increasing, so the lower triangle maps to the lower).
      if (muc > 0 && uc != nullptr)
        for (std::int64_t b = 0; b < muc; ++b) {
          const std::int64_t lb = rel[b];
          const T* col = uc + b * muc;
          T* dst = lb < nc ? p + lb * ld : u + (lb - nc) * mu - nc;
          for (std::int64_t a = b; a < muc; ++a) dst[rel[a]] += col[a];
        }
      release_update(c);
      continue;
    }
    // The child's contribution block: its delayed columns (in its panel,
    // rows and columns from npiv on) then its rows below (U). Row a of it
    // goes to front position pos[a]: delayed ones after s's own columns,
    // the others through the extend-add map, shifted past the delayed ones.
    pos.resize(std::size_t(cb));
    for (std::int64_t a = 0; a < dc; ++a) {
      pos[a] = next_delayed + a;
      F.vars[next_delayed + a] = C.vars[C.piv.npiv + a];
    }
    for (std::int64_t a = dc; a < cb; ++a) {
      const std::int64_t la = rel[a - dc];
      pos[a] = la < nc ? la : la + nd;
    }
    next_delayed += dc;
    const T* pc = C.panel + C.piv.npiv * (C.ld + 1);  // CB(a, b) = pc[a + b * C.ld] for b < dc
    for (std::int64_t b = 0; b < cb; ++b) {
      const T* col = b < dc ? pc + b * C.ld : uc + (b - dc) * muc - dc;
      for (std::int64_t a = b; a < cb; ++a) {
        // CB(a, b) lands at (pos[a], pos[b]); when that is above the
        // diagonal, its mirror is stored: conjugated for a Hermitian front.
        T v = col[a];
        if constexpr (is_complex_v<T>)
          if (pos[a] < pos[b]) v = std::conj(v);
        const std::int64_t hi = std::max(pos[a], pos[b]), lo = std::min(pos[a], pos[b]);
        if (lo < nfs) p[hi + lo * ld] += v;
        else u[(hi - nfs) + (lo - nfs) * mu] += v;
      }
    }
    release_update(c);
  }
}

template <class T>
void SupernodalNumeric<T>::factor_front_ldlt(std::int64_t s) {
  LdltFront& F = m_ldlt[s];
  const std::int64_t mu = m_sym->nrows(s) - m_sym->ncols(s);
  ThresholdControls tc;
  tc.u = m_ldlt_controls.threshold;
  tc.zero = std::numeric_limits<double>::epsilon() * m_a_max;
  tc.eliminate_all = m_sym->sparent[s] == -1;
  if (tc.eliminate_all && m_ldlt_controls.static_pivot > 0) {
    // Static pivoting: at a root, where no parent can take a column, a
    // pivot below static_pivot max|a_ij| is replaced by that value.
    tc.static_pivot = m_ldlt_controls.static_pivot * m_a_max;
    tc.zero = std::max(tc.zero, tc.static_pivot);
  }
  threshold_ldlt(F.panel, F.ld, F.nfs, F.ld, m_update[s], mu, tc, F.piv);
  std::vector<std::int64_t> vars(F.vars);
  for (std::int64_t q = 0; q < F.nfs; ++q) F.vars[q] = vars[F.piv.order[q]];
  if (!F.piv.zero.empty()) {
    std::lock_guard<std::mutex> lock(m_fail_mutex);
    for (std::int64_t q : F.piv.zero) m_zero_pivots.push_back(F.vars[q]);
  }
}

// Forward: y = the front's fully-summed entries of x (pivot order);
// y1 := L11^-1 y1 (the npiv pivots), the delayed entries y2 -= L21' y1
// (written back to x: only the parent, which runs later, reads them), and
// the rows below get L21 y1 in s's buffer, which the parent subtracts.
template <class T>
void SupernodalNumeric<T>::forward_ldlt(std::int64_t s, T* x, std::int64_t nrhs) {
  const SymbolicFactor& f = *m_sym;
  const LdltFront& F = m_ldlt[s];
  const std::int64_t n = f.n, nc = f.ncols(s), mu = f.nrows(s) - nc;
  const std::int64_t nfs = F.nfs, npiv = F.piv.npiv, ld = F.ld;
  std::unique_ptr<T[]> t = gather_children(s, x, nrhs);
  std::unique_ptr<T[]> y(new T[std::size_t(nfs * nrhs)]);
  for (std::int64_t r = 0; r < nrhs; ++r)
    for (std::int64_t q = 0; q < nfs; ++q) y[q + r * nfs] = x[F.vars[q] + r * n];
  if (npiv > 0) {
    const T* p = F.panel;
    trsm_left_lower({p, npiv, npiv, ld}, {y.get(), npiv, nrhs, nfs}, false, true);
    if (nfs > npiv) gemm_minus_ab({p + npiv, nfs - npiv, npiv, ld}, {y.get(), npiv, nrhs, nfs}, {y.get() + npiv, nfs - npiv, nrhs, nfs});
    if (mu > 0) gemm_ab({p + nfs, mu, npiv, ld}, {y.get(), npiv, nrhs, nfs}, 1.0, {t.get(), mu, nrhs, mu});
  }
  for (std::int64_t r = 0; r < nrhs; ++r)
    for (std::int64_t q = 0; q < nfs; ++q) x[F.vars[q] + r * n] = y[q + r * nfs];
  if (mu > 0) m_solve_buf[s] = std::move(t);
}

template <class T>
void SupernodalNumeric<T>::diagonal_ldlt(std::int64_t s, T* x, std::int64_t nrhs) const {
  const LdltFront& F = m_ldlt[s];
  const std::int64_t n = m_sym->n, ld = F.ld;
  const T* p = F.panel;
  for (std::int64_t q = 0; q < F.piv.npiv;) {
    const std::int64_t v = F.vars[q];
    if (!F.piv.two[q]) {
      const double d = real_part(p[q + q * ld]);
      for (std::int64_t r = 0; r < nrhs; ++r) x[v + r * n] /= d;
      ++q;
    } else {
      const std::int64_t v1 = F.vars[q + 1];
      const PivotBlock<T> d{real_part(p[q + q * ld]), F.piv.e[q], real_part(p[(q + 1) + (q + 1) * ld])};
      for (std::int64_t r = 0; r < nrhs; ++r) d.solve(x[v + r * n], x[v1 + r * n]);
      q += 2;
    }
  }
}

// Backward: y1 := L11^-T (y1 - L21^T z), z the entries of the delayed
// columns and of the rows below, all final (their ancestors ran first).
template <class T>
void SupernodalNumeric<T>::backward_ldlt(std::int64_t s, T* x, std::int64_t nrhs) const {
  const SymbolicFactor& f = *m_sym;
  const LdltFront& F = m_ldlt[s];
  const std::int64_t n = f.n, nc = f.ncols(s);
  const std::int64_t nfs = F.nfs, npiv = F.piv.npiv, ld = F.ld, nz = ld - npiv;
  if (npiv == 0) return;
  const T* p = F.panel;
  std::unique_ptr<T[]> y(new T[std::size_t(npiv * nrhs)]);
  for (std::int64_t r = 0; r < nrhs; ++r)
    for (std::int64_t q = 0; q < npiv; ++q) y[q + r * npiv] = x[F.vars[q] + r * n];
  if (nz > 0) {
    std::unique_ptr<T[]> z(new T[std::size_t(nz * nrhs)]);
    const std::int64_t* below = f.rows.data() + f.rows_ptr[s] + nc;
    for (std::int64_t r = 0; r < nrhs; ++r) {
      for (std::int64_t q = npiv; q < nfs; ++q) z[(q - npiv) + r * nz] = x[F.vars[q] + r * n];
      for (std::int64_t a = 0; a < ld - nfs; ++a) z[(nfs - npiv + a) + r * nz] = x[below[a] + r * n];
    }
    gemm_atb(-1.0, {p + npiv, nz, npiv, ld}, {z.get(), nz, nrhs, nz}, {y.get(), npiv, nrhs, npiv});
  }
  trsm_left_lower({p, npiv, npiv, ld}, {y.get(), npiv, nrhs, npiv}, true, true);
  for (std::int64_t r = 0; r < nrhs; ++r)
    for (std::int64_t q = 0; q < npiv; ++q) x[F.vars[q] + r * n] = y[q + r * npiv];
}

template <class T>
typename SupernodalNumeric<T>::LdltSummary SupernodalNumeric<T>::ldlt_summary() const {
  LdltSummary sum;
  for (std::int64_t s = 0; s < std::int64_t(m_ldlt.size()); ++s) {
    const LdltFront& F = m_ldlt[s];
    const std::int64_t npiv = F.piv.npiv;
    if (m_sym->sparent[s] != -1) sum.delayed_pivots += F.nfs - npiv;
    if (F.nd > 0) ++sum.delayed_fronts;
    sum.max_front_growth = std::max(sum.max_front_growth, F.nd);
    sum.max_front_rows = std::max(sum.max_front_rows, F.ld);
    sum.factor_entries += double(npiv) * double(F.ld) - double(npiv) * double(npiv - 1) / 2;
    sum.static_pivots += F.piv.static_pivots;
    for (std::int64_t q = 0; q < npiv; ++q) sum.two_by_two += F.piv.two[q];
  }
  return sum;
}

// The members defined here, for both scalars (the others are instantiated
// in src/supernodal_numeric.cpp).
#define TESSERA_SPARSE_INSTANTIATE_LDLT(T)                                                             \
  template void SupernodalNumeric<T>::assemble_ldlt(std::int64_t);                                     \
  template void SupernodalNumeric<T>::factor_front_ldlt(std::int64_t);                                 \
  template void SupernodalNumeric<T>::forward_ldlt(std::int64_t, T*, std::int64_t);                    \
  template void SupernodalNumeric<T>::diagonal_ldlt(std::int64_t, T*, std::int64_t) const;             \
  template void SupernodalNumeric<T>::backward_ldlt(std::int64_t, T*, std::int64_t) const;             \
  template typename SupernodalNumeric<T>::LdltSummary SupernodalNumeric<T>::ldlt_summary() const;
TESSERA_SPARSE_INSTANTIATE_LDLT(double)
TESSERA_SPARSE_INSTANTIATE_LDLT(std::complex<double>)
#undef TESSERA_SPARSE_INSTANTIATE_LDLT

}  // namespace tessera::sparse::detail
