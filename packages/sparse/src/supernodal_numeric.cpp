// Numeric kernels of the supernodal factorization and solves (see
// detail/supernodal_numeric.hpp for the layout).
#include <tessera/sparse/detail/hermitian_pivot_2x2.hpp>
#include <tessera/sparse/detail/factorization_errors.hpp>
#include <tessera/sparse/detail/supernodal_numeric.hpp>
#include <tessera/sparse/detail/typed_buffer.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace tessera::sparse::detail {

template <class T>
void SupernodalNumeric<T>::analyze(const SymbolicFactor& sym, const std::int64_t* rm, const std::int32_t* ci,
                                Factorization kind) {
  m_sym = &sym;
  m_kind = kind;
  const std::int64_t n = sym.n, ns = sym.nsuper;
  // Where each entry of A's lower triangle (final order) lands.
  m_a_ptr.assign(ns + 1, 0);
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t k = rm[r]; k < rm[r + 1]; ++k) {
      const std::int64_t i = sym.iperm[r], j = sym.iperm[ci[k]];
      if (i >= j) ++m_a_ptr[sym.col_to_super[j] + 1];
    }
  for (std::int64_t s = 0; s < ns; ++s) m_a_ptr[s + 1] += m_a_ptr[s];
  m_a_map.assign(m_a_ptr[ns], {0, 0});
  std::vector<std::int64_t> pos(m_a_ptr.begin(), m_a_ptr.end() - 1);
  m_a_diag_scale.assign(n, 0.0);
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t k = rm[r]; k < rm[r + 1]; ++k) {
      const std::int64_t i = sym.iperm[r], j = sym.iperm[ci[k]];
      if (i < j) continue;
      const std::int64_t s = sym.col_to_super[j];
      const auto b = sym.rows.begin() + sym.rows_ptr[s], e = sym.rows.begin() + sym.rows_ptr[s + 1];
      const std::int64_t local = std::lower_bound(b, e, i) - b;
      const std::int64_t off = sym.lx_ptr[s] + (j - sym.super_ptr[s]) * sym.nrows(s) + local;
      m_a_map[pos[s]++] = {k, off};
    }
  m_first_desc.resize(ns);
  m_subtree_flops.assign(ns, 0.0);
  for (std::int64_t s = 0; s < ns; ++s) m_first_desc[s] = s;
  for (std::int64_t s = 0; s < ns; ++s) {  // children come before parents
    m_subtree_flops[s] += front_flops(s);
    if (const std::int64_t p = sym.sparent[s]; p != -1) {
      m_first_desc[p] = std::min(m_first_desc[p], m_first_desc[s]);
      m_subtree_flops[p] += m_subtree_flops[s];
    }
  }
  m_lx_size = std::size_t(sym.lx_ptr[ns]);
  m_lx = make_host_array<T>(m_lx_size);
  release_all_updates();
  m_buffers.clear();
  // The update buffers' arena: twice the most a postorder run keeps live
  // (parallel runs overlap subtrees; the part never touched costs nothing).
  std::size_t live = 0, most = 0;
  for (std::int64_t s = 0; s < ns; ++s) {
    live += update_count(s);
    most = std::max(most, live);
    for (std::int64_t k = sym.child_ptr[s]; k < sym.child_ptr[s + 1]; ++k) live -= update_count(sym.child_list[k]);
  }
  m_buffers.reserve(2 * most * doubles_per<T>);  // the arena counts doubles
  m_update.assign(ns, nullptr);
  m_update_size.assign(ns, 0);
  m_ldlt.clear();
  if (kind == Factorization::LDLt) m_ldlt.resize(std::size_t(ns));
}

template <class T>
double SupernodalNumeric<T>::front_flops(std::int64_t s) const {
  const double m = double(m_sym->nrows(s)), nc = double(m_sym->ncols(s));
  // sum over the front's columns c of (m - c)^2
  double f = 0;
  for (double c = 0; c < nc; c += 1) f += (m - c) * (m - c);
  return f;
}

template <class T>
void SupernodalNumeric<T>::begin(const T* a_values, double pivot_tolerance, const LdltControls& ldlt) {
  m_a = a_values;
  m_tol = pivot_tolerance;
  m_ldlt_controls = ldlt;
  m_zero_pivots.clear();
  if (m_kind == Factorization::LDLt) {
    m_a_max = 0;
    for (const auto& e : m_a_map) m_a_max = std::max(m_a_max, std::abs(m_a[e.first]));
  }
  m_failed.store(false);
  m_fail_column = -1;
  m_fail_value = 0;
  m_fail_message.clear();
  m_update_bytes.store(0);
  m_peak_update.store(0);
  release_all_updates();
  m_buffers.consolidate();
  m_buffers.reset_peak();
  if (m_tol > 0) {
    std::fill(m_a_diag_scale.begin(), m_a_diag_scale.end(), 0.0);
    for (std::int64_t s = 0; s < m_sym->nsuper; ++s)
      for (std::int64_t q = m_a_ptr[s]; q < m_a_ptr[s + 1]; ++q) {
        const std::int64_t off = m_a_map[q].second - m_sym->lx_ptr[s];
        const std::int64_t m = m_sym->nrows(s), local = off % m, col = off / m;
        if (local == col) m_a_diag_scale[m_sym->super_ptr[s] + col] = std::abs(m_a[m_a_map[q].first]);
      }
  }
}

template <class T>
void SupernodalNumeric<T>::release_update(std::int64_t s) {
  if (!m_update[s]) return;
  // The count drops before the buffer goes back, as it rises after the
  // buffer is taken: the counted update bytes then never exceed what the
  // arena holds live, so the factorization's peak (panels plus the arena's
  // peak) is never below the panels plus the update peak, on any schedule.
  m_update_bytes.fetch_sub(m_update_size[s] * sizeof(T));
  release_buffer(m_buffers, m_update[s], m_update_size[s]);
  m_update[s] = nullptr;
}

template <class T>
std::size_t SupernodalNumeric<T>::peak_factor_bytes() const {
  std::size_t bytes = m_lx_size * sizeof(T) + m_buffers.peak_bytes();
  for (const LdltFront& F : m_ldlt) bytes += F.grown_size * sizeof(T);
  return bytes;
}

template <class T>
void SupernodalNumeric<T>::release_all_updates() {
  for (std::size_t s = 0; s < m_update.size(); ++s) release_update(std::int64_t(s));
}

template <class T>
T* SupernodalNumeric<T>::acquire_update(std::int64_t s, bool whole) {
  const std::int64_t mu = m_sym->nrows(s) - m_sym->ncols(s);
  m_update_size[s] = update_count(s);
  m_update[s] = acquire_buffer<T>(m_buffers, m_update_size[s]);
  T* u = m_update[s];
  if (whole) std::fill(u, u + mu * mu, T(0));
  else
    for (std::int64_t c = 0; c < mu; ++c) std::fill(u + c * mu + c, u + (c + 1) * mu, T(0));  // lower triangle only
  const std::size_t now = m_update_bytes.fetch_add(std::size_t(mu * mu) * sizeof(T)) + std::size_t(mu * mu) * sizeof(T);
  std::size_t peak = m_peak_update.load();
  while (now > peak && !m_peak_update.compare_exchange_weak(peak, now)) {
  }
  return u;
}

template <class T>
void SupernodalNumeric<T>::assemble(std::int64_t s) {
  if (m_kind == Factorization::LDLt) return assemble_ldlt(s);
  const SymbolicFactor& f = *m_sym;
  const std::int64_t m = f.nrows(s), nc = f.ncols(s), mu = m - nc;
  T* p = panel(s);
  std::fill(p, p + m * nc, T(0));
  for (std::int64_t q = m_a_ptr[s]; q < m_a_ptr[s + 1]; ++q) m_lx[std::size_t(m_a_map[q].second)] = m_a[m_a_map[q].first];
  T* u = mu > 0 ? acquire_update(s, false) : nullptr;
  for (std::int64_t k = f.child_ptr[s]; k < f.child_ptr[s + 1]; ++k) {
    const std::int64_t c = f.child_list[k];
    const std::int64_t muc = f.nrows(c) - f.ncols(c);
    const T* uc = m_update[c];
    if (muc == 0 || uc == nullptr) continue;
    const std::int32_t* rel = f.relidx.data() + f.rows_ptr[c] + f.ncols(c);
    for (std::int64_t b = 0; b < muc; ++b) {
      const std::int64_t lb = rel[b];
      const T* col = uc + b * muc;
      if (lb < nc) {
        T* dst = p + lb * m;
        for (std::int64_t a = b; a < muc; ++a) dst[rel[a]] += col[a];
      } else {
        T* dst = u + (lb - nc) * mu - nc;  // dst[la] = U(la - nc, lb - nc)
        for (std::int64_t a = b; a < muc; ++a) dst[rel[a]] += col[a];
      }
    }
    release_update(c);
  }
}

template <class T>
void SupernodalNumeric<T>::check_pivots(std::int64_t s, std::int64_t first, std::int64_t count) {
  if (m_tol <= 0) return;
  const std::int64_t m = m_sym->nrows(s), c0 = m_sym->super_ptr[s];
  const T* p = panel(s);
  for (std::int64_t c = first; c < first + count; ++c) {
    const double l = real_part(p[c + c * m]);
    if (l * l <= m_tol * m_a_diag_scale[c0 + c]) {
      record_pivot_failure(c0 + c, l * l, true);
      return;
    }
  }
}

template <class T>
void SupernodalNumeric<T>::factor_front(std::int64_t s) {
  if (m_kind == Factorization::LDLt) return factor_front_ldlt(s);
  const std::int64_t m = m_sym->nrows(s), nc = m_sym->ncols(s), mu = m - nc;
  T* p = panel(s);
  T* u = m_update[s];
  int info = 0;
  if (m <= 16) {
    info = front_cholesky_inline(p, m, nc, u);
  } else {
    info = potrf({p, nc, nc, m});
    if (info == 0 && mu > 0) {
      trsm_right_lower_trans({p, nc, nc, m}, {p + nc, mu, nc, m});
      syrk_minus({p + nc, mu, nc, m}, {u, mu, mu, mu});
    }
  }
  if (info > 0) {
    const std::int64_t c = info - 1;
    record_pivot_failure(m_sym->super_ptr[s] + c, real_part(p[c + c * m]), false);
    return;
  }
  check_pivots(s, 0, nc);
}

template <class T>
void SupernodalNumeric<T>::factor_subtree(std::int64_t root) {
  for (std::int64_t s = m_first_desc[root]; s <= root; ++s) {
    if (failed()) return;
    assemble(s);
    factor_front(s);
  }
}

template <class T>
FrontBlocks SupernodalNumeric<T>::blocks(std::int64_t s, std::int64_t max_block) const {
  FrontBlocks b;
  const std::int64_t m = m_sym->nrows(s), nc = m_sym->ncols(s);
  auto split = [&](std::int64_t lo, std::int64_t hi) {
    const std::int64_t len = hi - lo;
    if (len <= 0) return std::int64_t(0);
    const std::int64_t parts = (len + max_block - 1) / max_block;
    for (std::int64_t q = 0; q < parts; ++q) b.bounds.push_back(lo + len * q / parts);
    return parts;
  };
  b.kc = split(0, nc);
  split(nc, m);
  b.bounds.push_back(m);
  return b;
}

template <class T>
Block<T> SupernodalNumeric<T>::block_at(std::int64_t s, const FrontBlocks& b, std::int64_t i, std::int64_t j) {
  const std::int64_t m = m_sym->nrows(s), nc = m_sym->ncols(s), mu = m - nc;
  const std::int64_t r0 = b.bounds[i], rows = b.bounds[i + 1] - r0, c0 = b.bounds[j], cols = b.bounds[j + 1] - c0;
  if (j < b.kc) return {panel(s) + r0 + c0 * m, rows, cols, m};
  return {m_update[s] + (r0 - nc) + (c0 - nc) * mu, rows, cols, mu};
}

template <class T>
void SupernodalNumeric<T>::block_potrf(std::int64_t s, const FrontBlocks& b, std::int64_t k) {
  Block<T> a = block_at(s, b, k, k);
  const int info = potrf(a);
  if (info > 0) {
    const std::int64_t c = info - 1;
    record_pivot_failure(m_sym->super_ptr[s] + b.bounds[k] + c, real_part(a(c, c)), false);
    return;
  }
  check_pivots(s, b.bounds[k], a.cols);
}

template <class T>
void SupernodalNumeric<T>::block_trsm(std::int64_t s, const FrontBlocks& b, std::int64_t i, std::int64_t k) {
  const Block<T> l = block_at(s, b, k, k);
  trsm_right_lower_trans({l.p, l.rows, l.cols, l.ld}, block_at(s, b, i, k));
}

template <class T>
void SupernodalNumeric<T>::block_update(std::int64_t s, const FrontBlocks& b, std::int64_t i, std::int64_t j,
                                     std::int64_t k) {
  const Block<T> a = block_at(s, b, i, k);
  if (i == j) {
    syrk_minus({a.p, a.rows, a.cols, a.ld}, block_at(s, b, i, i));
  } else {
    const Block<T> bt = block_at(s, b, j, k);
    gemm_minus_abt({a.p, a.rows, a.cols, a.ld}, {bt.p, bt.rows, bt.cols, bt.ld}, block_at(s, b, i, j));
  }
}

template <class T>
void SupernodalNumeric<T>::record_pivot_failure(std::int64_t column, double value, bool singular) {
  std::lock_guard<std::mutex> lock(m_fail_mutex);
  // Keep the smallest column: the same answer whatever order tasks ran in
  // (among the failures that happened before the others stopped).
  if (m_fail_column == -1 || column < m_fail_column) {
    m_fail_column = column;
    m_fail_value = value;
    m_fail_singular = singular;
  }
  m_failed.store(true);
}

template <class T>
void SupernodalNumeric<T>::record_exception(const std::string& what) {
  std::lock_guard<std::mutex> lock(m_fail_mutex);
  if (m_fail_message.empty()) m_fail_message = what;
  m_failed.store(true);
}

template <class T>
void SupernodalNumeric<T>::throw_if_failed() const {
  std::lock_guard<std::mutex> lock(m_fail_mutex);
  if (!m_failed.load() && m_zero_pivots.empty()) return;
  if (!m_failed.load())
    throw_ldlt_zero_pivots(m_sym->perm, m_zero_pivots, std::numeric_limits<double>::epsilon() * m_a_max,
                           "after delayed pivoting", "",
                           "; Options::static_pivot (tessera-solve --static-pivot) replaces them and lets "
                           "refinement repair the solution");
  if (m_fail_column >= 0) {
    const std::int64_t original = m_sym->perm[m_fail_column];
    throw factorization_error(pivot_failure_text(original, m_fail_value, m_fail_singular), original, m_fail_value);
  }
  throw sparse_error("factorization failed: " + m_fail_message);
}

template <class T>
void SupernodalNumeric<T>::begin_solve(std::int64_t nrhs) {
  m_nrhs = nrhs;
  m_solve_buf.clear();
  m_solve_buf.resize(m_sym->nsuper);
}

template <class T>
void SupernodalNumeric<T>::end_solve() { m_solve_buf.clear(); }

template <class T>
std::unique_ptr<T[]> SupernodalNumeric<T>::gather_children(std::int64_t s, T* x, std::int64_t nrhs) {
  const SymbolicFactor& f = *m_sym;
  const std::int64_t n = f.n, nc = f.ncols(s), mu = f.nrows(s) - nc, c0 = f.super_ptr[s];
  std::unique_ptr<T[]> t;
  if (mu > 0) {
    t.reset(new T[std::size_t(mu * nrhs)]);
    std::fill(t.get(), t.get() + mu * nrhs, T(0));
  }
  for (std::int64_t k = f.child_ptr[s]; k < f.child_ptr[s + 1]; ++k) {
    const std::int64_t c = f.child_list[k];
    const std::int64_t muc = f.nrows(c) - f.ncols(c);
    const T* wc = m_solve_buf[c].get();
    if (!wc) continue;
    const std::int32_t* rel = f.relidx.data() + f.rows_ptr[c] + f.ncols(c);
    for (std::int64_t r = 0; r < nrhs; ++r)
      for (std::int64_t a = 0; a < muc; ++a) {
        const std::int64_t la = rel[a];
        const T v = wc[a + r * muc];
        if (la < nc) x[c0 + la + r * n] -= v;
        else t[(la - nc) + r * mu] += v;
      }
    m_solve_buf[c].reset();
  }
  return t;
}

template <class T>
void SupernodalNumeric<T>::forward(std::int64_t s, T* x, std::int64_t nrhs) {
  if (m_kind == Factorization::LDLt) return forward_ldlt(s, x, nrhs);
  const SymbolicFactor& f = *m_sym;
  const std::int64_t n = f.n, m = f.nrows(s), nc = f.ncols(s), mu = m - nc, c0 = f.super_ptr[s];
  std::unique_ptr<T[]> t = gather_children(s, x, nrhs);
  const T* p = panel(s);
  T* xs = x + c0;
  trsm_left_lower({p, nc, nc, m}, {xs, nc, nrhs, n}, false, false);
  if (mu > 0) {
    gemm_ab({p + nc, mu, nc, m}, {xs, nc, nrhs, n}, 1.0, {t.get(), mu, nrhs, mu});
    m_solve_buf[s] = std::move(t);
  }
}

template <class T>
void SupernodalNumeric<T>::diagonal(std::int64_t s, T* x, std::int64_t nrhs) const {
  if (m_kind == Factorization::LDLt) diagonal_ldlt(s, x, nrhs);
}

template <class T>
void SupernodalNumeric<T>::backward(std::int64_t s, T* x, std::int64_t nrhs) const {
  if (m_kind == Factorization::LDLt) return backward_ldlt(s, x, nrhs);
  const SymbolicFactor& f = *m_sym;
  const std::int64_t n = f.n, m = f.nrows(s), nc = f.ncols(s), mu = m - nc, c0 = f.super_ptr[s];
  const T* p = panel(s);
  T* xs = x + c0;
  if (mu > 0) {
    std::unique_ptr<T[]> xb(new T[std::size_t(mu * nrhs)]);
    const std::int64_t* below = f.rows.data() + f.rows_ptr[s] + nc;
    for (std::int64_t r = 0; r < nrhs; ++r)
      for (std::int64_t a = 0; a < mu; ++a) xb[a + r * mu] = x[below[a] + r * n];
    gemm_atb(-1.0, {p + nc, mu, nc, m}, {xb.get(), mu, nrhs, mu}, {xs, nc, nrhs, n});
  }
  trsm_left_lower({p, nc, nc, m}, {xs, nc, nrhs, n}, true, false);
}

template <class T>
template <class One, class Two>
void SupernodalNumeric<T>::for_each_pivot(One one, Two two) const {
  const SymbolicFactor& f = *m_sym;
  if (m_kind == Factorization::Cholesky) {
    for (std::int64_t s = 0; s < f.nsuper; ++s) {
      const std::int64_t m = f.nrows(s), nc = f.ncols(s);
      const T* p = panel(s);
      for (std::int64_t k = 0; k < nc; ++k) one(real_part(p[k + k * m]));
    }
    return;
  }
  for (const LdltFront& F : m_ldlt) {
    const T* p = F.panel;
    for (std::int64_t k = 0; k < F.piv.npiv;) {
      if (!F.piv.two[k]) {
        one(real_part(p[k + k * F.ld]));
        ++k;
      } else {
        two(PivotBlock<T>{real_part(p[k + k * F.ld]), F.piv.e[k], real_part(p[(k + 1) + (k + 1) * F.ld])});
        k += 2;
      }
    }
  }
}

template <class T>
void SupernodalNumeric<T>::inertia(std::int64_t& positive, std::int64_t& negative, std::int64_t& zero) const {
  positive = negative = zero = 0;
  if (m_kind == Factorization::Cholesky) {  // every pivot of a completed Cholesky is positive
    positive = m_sym->n;
    return;
  }
  for_each_pivot([&](double d) { (d > 0 ? positive : d < 0 ? negative : zero) += 1; },
                 [&](const PivotBlock<T>& d) { d.inertia(positive, negative, zero); });
}

template <class T>
void SupernodalNumeric<T>::log_determinant(int& sign, double& log_abs) const {
  // det(A) = det(L)^2 for Cholesky; det(P L D L^T P^T) = det(D) for LDL^T
  // (L unit triangular, det(P)^2 = 1). A sum of logarithms, as a product
  // of n pivots over- or underflows long before its logarithm does.
  sign = 1;
  log_abs = 0;
  if (m_kind == Factorization::Cholesky) {
    for_each_pivot([&](double l) { log_abs += 2.0 * std::log(l); }, [](const PivotBlock<T>&) {});
    return;
  }
  for_each_pivot(
      [&](double d) {
        sign *= d > 0 ? 1 : d < 0 ? -1 : 0;
        log_abs += std::log(std::abs(d));
      },
      [&](const PivotBlock<T>& d) {
        sign *= d.det_sign();
        log_abs += d.log_abs_det();
      });
}

// Every member defined above, for both scalars; the LDL^T members are
// instantiated in src/supernodal_ldlt.cpp.
template class SupernodalNumeric<double>;
template class SupernodalNumeric<std::complex<double>>;

}  // namespace tessera::sparse::detail
