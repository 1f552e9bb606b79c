// Threshold Bunch-Kaufman partial factorization of one front (see
// detail/threshold_ldlt.hpp for the pivot tests and the layout).
#include <tessera/sparse/detail/dense_kernels.hpp>
#include <tessera/sparse/detail/hermitian_pivot_2x2.hpp>
#include <tessera/sparse/detail/threshold_ldlt.hpp>

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>

namespace tessera::sparse::detail {

namespace {

// c := c - a b^T (^H for complex; rows x cols, inner k); loops below the
// size where a BLAS call costs more than the arithmetic.
template <class T>
void minus_abt(std::int64_t rows, std::int64_t cols, std::int64_t k, const T* a, std::int64_t lda, const T* b,
               std::int64_t ldb, T* c, std::int64_t ldc) {
  if (rows <= 0 || cols <= 0 || k <= 0) return;
  if (rows * cols * k < 4096) {
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t t = 0; t < k; ++t) {
        const T bjt = conj_if(b[j + t * ldb]);
        if (bjt == 0.0) continue;
        const T* at = a + t * lda;
        T* cj = c + j * ldc;
        for (std::int64_t i = 0; i < rows; ++i) cj[i] -= at[i] * bjt;
      }
    return;
  }
  gemm_minus_abt(Block<const T>{a, rows, k, lda}, Block<const T>{b, cols, k, ldb}, Block<T>{c, rows, cols, ldc});
}

// t := t - a x' (rows x q), x' = conj(x) taken with stride incx: the
// candidate column brought up to date with the block's pivots.
void minus_ax(std::int64_t rows, std::int64_t q, const double* a, std::int64_t lda, const double* x,
              std::int64_t incx, double* t) {
  cblas_dgemv(CblasColMajor, CblasNoTrans, int(rows), int(q), -1.0, a, int(lda), x, int(incx), 1.0, t, 1);
}
void minus_ax(std::int64_t rows, std::int64_t q, const std::complex<double>* a, std::int64_t lda,
              const std::complex<double>* x, std::int64_t incx, std::complex<double>* t) {
  // zgemv cannot conjugate x: a conjugated copy (q <= block + 1 entries).
  std::complex<double> xc[128];
  std::unique_ptr<std::complex<double>[]> heap;
  std::complex<double>* xs = xc;
  if (q > 128) {
    heap.reset(new std::complex<double>[std::size_t(q)]);
    xs = heap.get();
  }
  for (std::int64_t s = 0; s < q; ++s) xs[s] = std::conj(x[s * incx]);
  const std::complex<double> minus_one(-1.0), one(1.0);
  cblas_zgemv(CblasColMajor, CblasNoTrans, int(rows), int(q), &minus_one, a, int(lda), xs, 1, &one, t, 1);
}

// The lower trapezoid (rows >= columns) of c := c - a b^T for a square
// (n x n) c, by column chunks: the wasted upper part is the chunks'
// diagonal triangles.
template <class T>
void minus_abt_lower(std::int64_t n, std::int64_t k, const T* a, std::int64_t lda, const T* b, std::int64_t ldb, T* c,
                     std::int64_t ldc, std::int64_t chunk) {
  for (std::int64_t j = 0; j < n; j += chunk) {
    const std::int64_t w = std::min(chunk, n - j);
    minus_abt(n - j, w, k, a + j, lda, b + j, ldb, c + j + j * ldc, ldc);
  }
}

template <class T>
class FrontFactor {
 public:
  FrontFactor(T* p, std::int64_t m, std::int64_t nfs, std::int64_t ld, T* u, std::int64_t ldu,
              const ThresholdControls& c, FrontPivots<T>& out)
      : P(p), U(u), m(m), nfs(nfs), ld(ld), ldu(ldu), mu(m - nfs), c(c), out(out),
        nb(std::max<std::int64_t>(c.block, 2)) {
    out.npiv = 0;
    out.static_pivots = 0;
    out.order.resize(std::size_t(nfs));
    std::iota(out.order.begin(), out.order.end(), std::int64_t(0));
    out.two.assign(std::size_t(nfs), 0);
    out.e.assign(std::size_t(nfs), T(0));
    out.zero.clear();
    // Uninitialized: every entry is written before it is read (W's rows
    // and t's entries from the current k on).
    W.reset(new T[std::size_t(m * (nb + 1))]);
    t1.reset(new T[std::size_t(m)]);
    t2.reset(new T[std::size_t(m)]);
    stamp.assign(std::size_t(nfs), -1);
  }

  void run() {
    threshold_phase();
    flush();
    if (k < nfs && c.eliminate_all) forced_phase();
    out.npiv = k;
  }

 private:
  T& p(std::int64_t i, std::int64_t j) { return P[i + j * ld]; }
  T& w(std::int64_t i, std::int64_t t) { return W[std::size_t(i + t * m)]; }

  // t[i], i in [k, m): column j of the front with every pivot taken so far
  // applied (those of earlier blocks are in memory, the current block's
  // are applied here). The entries above the diagonal come from the
  // stored lower triangle, conjugated for a Hermitian front, whose
  // diagonal is kept exactly real.
  void column(std::int64_t j, T* t) {
    for (std::int64_t i = k; i < j; ++i) t[i] = conj_if(p(j, i));
    for (std::int64_t i = j; i < m; ++i) t[i] = p(i, j);
    if (q > 0) {
      if ((m - k) * q >= 2048) {
        minus_ax(m - k, q, P + k + k0 * ld, ld, W.get() + j, m, t + k);
      } else {
        for (std::int64_t s = 0; s < q; ++s) {
          const T wj = conj_if(w(j, s));
          if (wj == 0.0) continue;
          const T* l = P + (k0 + s) * ld;
          for (std::int64_t i = k; i < m; ++i) t[i] -= l[i] * wj;
        }
      }
    }
    if constexpr (is_complex_v<T>) t[j] = real_part(t[j]);
  }

  // Symmetric interchange of fully-summed positions a < b (both >= k).
  void swap_positions(std::int64_t a, std::int64_t b) {
    if (a == b) return;
    for (std::int64_t j = 0; j < a; ++j) std::swap(p(a, j), p(b, j));
    std::swap(p(a, a), p(b, b));
    // Between a and b the entries cross the diagonal: (i, a) becomes
    // (b, i)'s mirror, conjugated for a Hermitian front, and so does (b, a).
    for (std::int64_t i = a + 1; i < b; ++i) {
      const T x = p(i, a);
      p(i, a) = conj_if(p(b, i));
      p(b, i) = conj_if(x);
    }
    if constexpr (is_complex_v<T>) p(b, a) = std::conj(p(b, a));
    for (std::int64_t i = b + 1; i < m; ++i) std::swap(p(i, a), p(i, b));
    for (std::int64_t s = 0; s < q; ++s) std::swap(w(a, s), w(b, s));
    std::swap(out.order[a], out.order[b]);
    std::swap(stamp[a], stamp[b]);
  }

  // Brings position pos (column t) to k and takes it as a 1x1 pivot of value d.
  void accept1(std::int64_t pos, T* t, double d) {
    swap_positions(k, pos);
    std::swap(t[k], t[pos]);
    t[k] = d;
    T* l = P + k * ld;
    T* wc = W.get() + q * m;
    for (std::int64_t i = k; i < m; ++i) wc[i] = t[i];
    l[k] = d;
    const double inv = 1.0 / d;
    for (std::int64_t i = k + 1; i < m; ++i) l[i] = t[i] * inv;
    ++k;
    ++q;
  }

  // A zero pivot at position pos: D = 0 and L = 0 (no update).
  void accept_zero(std::int64_t pos) {
    swap_positions(k, pos);
    T* l = P + k * ld;
    T* wc = W.get() + q * m;
    for (std::int64_t i = k; i < m; ++i) l[i] = wc[i] = T(0);
    out.zero.push_back(k);
    ++k;
    ++q;
  }

  // Brings positions p1 (column a) and p2 (column b) to k, k + 1 and takes
  // them as a 2x2 pivot.
  void accept2(std::int64_t p1, std::int64_t p2, T* a, T* b) {
    swap_positions(k, p1);
    std::swap(a[k], a[p1]);
    std::swap(b[k], b[p1]);
    if (p2 == k) p2 = p1;
    swap_positions(k + 1, p2);
    std::swap(a[k + 1], a[p2]);
    std::swap(b[k + 1], b[p2]);
    const PivotBlock<T> d{real_part(a[k]), a[k + 1], real_part(b[k + 1])};
    // Row i of L is [a_i b_i] D^-1, a row vector times D^-1.
    const PivotBlock<T> row_solver = d.transposed();
    T* w0 = W.get() + q * m;
    T* w1 = W.get() + (q + 1) * m;
    for (std::int64_t i = k; i < m; ++i) {
      w0[i] = a[i];
      w1[i] = b[i];
    }
    T* l0 = P + k * ld;
    T* l1 = P + (k + 1) * ld;
    l0[k] = d.a;
    l0[k + 1] = T(0);
    l1[k + 1] = d.c;
    out.two[k] = 1;
    out.e[k] = d.b;
    for (std::int64_t i = k + 2; i < m; ++i) {
      T y0 = a[i], y1 = b[i];
      row_solver.solve(y0, y1);
      l0[i] = y0;
      l1[i] = y1;
    }
    k += 2;
    q += 2;
  }

  // The block's pivots applied to the trailing fully-summed columns and to U.
  void flush() {
    if (q == 0) return;
    const T* l = P + k0 * ld;
    // Fully-summed columns [k, nfs), rows [k, m): chunks of 32 columns.
    for (std::int64_t j = k; j < nfs; j += 32) {
      const std::int64_t wdt = std::min<std::int64_t>(32, nfs - j);
      minus_abt(m - j, wdt, q, l + j, ld, W.get() + j, m, P + j + j * ld, ld);
    }
    if (mu > 0) minus_abt_lower(mu, q, l + nfs, ld, W.get() + nfs, m, U, ldu, 128);
    k0 = k;
    q = 0;
  }

  struct Scan {
    double diag = 0, all = 0;  // |a_jj|, max_{i != j} |a_ij| over rows [k, m)
    std::int64_t r = -1;       // fully-summed row of the largest |a_rj|, r != j
  };
  Scan scan(std::int64_t j, const T* t) const {
    Scan s;
    s.diag = std::abs(t[j]);
    double fs = 0;
    for (std::int64_t i = k; i < m; ++i) {
      if (i == j) continue;
      const double v = std::abs(t[i]);
      if (v > s.all) s.all = v;
      if (i < nfs && v > fs) {
        fs = v;
        s.r = i;
      }
    }
    return s;
  }
  // max |t_i| over rows [k, m) other than j and r.
  double off_max(const T* t, std::int64_t j, std::int64_t r) const {
    double g = 0;
    for (std::int64_t i = k; i < m; ++i)
      if (i != j && i != r) g = std::max(g, std::abs(t[i]));
    return g;
  }
  // The largest u for which the 1x1 test passes (infinite for an isolated
  // nonzero diagonal), or -1 when the pivot is too small to use at all.
  double ratio1(const Scan& s) const {
    if (!(s.diag > c.zero)) return -1;
    return s.all > 0 ? s.diag / s.all : std::numeric_limits<double>::infinity();
  }
  // The same for the 2x2 pivot [a b; b cc] ([a conj(b); b cc] Hermitian;
  // babs = |b|) whose columns' other entries are at most gj and gr:
  // |D^-1| [gj; gr] <= 1/u, in terms scaled by |b| so that nothing over- or
  // underflows (det ~ -|b|^2, see pivot_2x2.hpp). Only |b| matters: for a
  // real b, |a / b| = |a| / |b| and (a / b) (cc / b) = (a / |b|) (cc / |b|)
  // exactly.
  double ratio2(double a, double babs, double cc, double gj, double gr) const {
    if (babs == 0.0) return -1;
    const double ab = std::abs(a / babs), cb = std::abs(cc / babs), detb = std::abs((a / babs) * (cc / babs) - 1.0);
    const double big = std::max({std::abs(a), babs, std::abs(cc)});
    // |det| / max |D_ij|: about the smaller eigenvalue's size.
    if (!(babs * detb * (babs / big) > c.zero)) return -1;
    const double lhs = std::max(cb * gj + gr, gj + ab * gr);
    return lhs > 0 ? babs * detb / lhs : std::numeric_limits<double>::infinity();
  }
  // ratio2 of the candidate pair (j, r), columns tj and tr.
  double ratio2_of(std::int64_t j, std::int64_t r, const T* tj, const T* tr) const {
    return ratio2(real_part(tj[j]), std::abs(tj[r]), real_part(tr[r]), off_max(tj, j, r), off_max(tr, j, r));
  }

  // Tries column j against threshold u: 1x1, then 2x2 with its largest
  // fully-summed neighbour r, then 1x1 on r; true if a pivot was taken.
  bool try_pivot(std::int64_t j, double u) {
    column(j, t1.get());
    const Scan sj = scan(j, t1.get());
    const double r1 = ratio1(sj);
    if (r1 >= u) {
      accept1(j, t1.get(), real_part(t1[j]));
      return true;
    }
    if (sj.r < 0) return false;
    const std::int64_t r = sj.r;
    column(r, t2.get());
    if (ratio2_of(j, r, t1.get(), t2.get()) >= u) {
      if (j < r) accept2(j, r, t1.get(), t2.get());
      else accept2(r, j, t2.get(), t1.get());
      return true;
    }
    if (ratio1(scan(r, t2.get())) >= u) {
      accept1(r, t2.get(), real_part(t2[r]));
      return true;
    }
    return false;
  }

  // The candidates in turn, round and round; a column that failed is not
  // tried again until a pivot has been taken since (stamp). Stops when
  // every remaining column has failed since the last pivot.
  void threshold_phase() {
    std::int64_t j = 0, misses = 0;
    while (k < nfs && misses < nfs - k) {
      if (j < k || j >= nfs) j = k;
      if (stamp[j] == k) {
        ++misses;
        ++j;
        continue;
      }
      if (try_pivot(j, c.u)) {
        misses = 0;
        if (q >= nb) flush();
        j = std::max(j + 1, k);
      } else {
        stamp[j] = k;
        ++misses;
        ++j;
      }
    }
  }

  // A root front's columns that failed the threshold: each step takes the
  // candidate whose 1x1 or 2x2 pivot passes the test with the largest u
  // (the first one that passes u itself), or, when every pivot is below
  // `zero`, the column of smallest size as a zero pivot.
  void forced_phase() {
    while (k < nfs) {
      double best = -1, smallest = std::numeric_limits<double>::infinity();
      std::int64_t bj = -1, br = -1, bzero = k;
      int kind = 0;  // 1: 1x1 on bj, 2: 2x2 (bj, br)
      for (std::int64_t j = k; j < nfs && best < c.u; ++j) {
        column(j, t1.get());
        const Scan s = scan(j, t1.get());
        if (std::max(s.diag, s.all) < smallest) {
          smallest = std::max(s.diag, s.all);
          bzero = j;
        }
        const double r1 = ratio1(s);
        if (r1 > best) best = r1, bj = j, kind = 1;
        if (s.r >= 0) {
          column(s.r, t2.get());
          const double r2 = ratio2_of(j, s.r, t1.get(), t2.get());
          if (r2 > best) best = r2, bj = j, br = s.r, kind = 2;
        }
      }
      if (best < 0) {
        if (c.static_pivot > 0) {
          column(bzero, t1.get());
          ++out.static_pivots;
          accept1(bzero, t1.get(), real_part(t1[bzero]) < 0 ? -c.static_pivot : c.static_pivot);
        } else {
          accept_zero(bzero);
        }
      } else if (kind == 1) {
        column(bj, t1.get());
        accept1(bj, t1.get(), real_part(t1[bj]));
      } else {
        column(bj, t1.get());
        column(br, t2.get());
        if (bj < br) accept2(bj, br, t1.get(), t2.get());
        else accept2(br, bj, t2.get(), t1.get());
      }
      flush();
    }
  }

  T* P;
  T* U;
  const std::int64_t m, nfs, ld, ldu, mu;
  const ThresholdControls& c;
  FrontPivots<T>& out;
  const std::int64_t nb;
  std::int64_t k = 0, k0 = 0, q = 0;  // pivots taken; first position of the block; pivots in the block
  std::unique_ptr<T[]> W, t1, t2;  // W(i, s): column s of the block's L times D (rows >= k0)
  std::vector<std::int64_t> stamp;    // k when the column last failed, -1 never
};

}  // namespace

template <class T>
void threshold_ldlt(T* panel, std::int64_t m, std::int64_t nfs, std::int64_t ld, T* update, std::int64_t ldu,
                    const ThresholdControls& controls, FrontPivots<T>& out) {
  FrontFactor<T> f(panel, m, nfs, ld, update, ldu, controls, out);
  f.run();
}

template void threshold_ldlt<double>(double*, std::int64_t, std::int64_t, std::int64_t, double*, std::int64_t,
                                     const ThresholdControls&, FrontPivots<double>&);
template void threshold_ldlt<std::complex<double>>(std::complex<double>*, std::int64_t, std::int64_t, std::int64_t,
                                                   std::complex<double>*, std::int64_t, const ThresholdControls&,
                                                   FrontPivots<std::complex<double>>&);

}  // namespace tessera::sparse::detail
