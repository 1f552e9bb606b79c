#pragma once
// A 2x2 pivot block of a Bunch-Kaufman LDL^H of a Hermitian matrix,
//     D = [ a        conj(b) ]    a, c real, b complex (D's lower entry),
//         [ b        c       ]
// the counterpart of Pivot2x2 (pivot_2x2.hpp), with the same interface and
// the same reasoning: det = a c - |b|^2 is real, and every quantity is
// taken relative to |b| (the pivot is chosen when |b| dominates), so that
//     det = |b|^2 (a' c' - 1),  a' = a / |b|,  c' = c / |b|,
//     D^-1 [y0; y1] = [c' y0' - conj(w) y1', a' y1' - w y0'] / (a' c' - 1),
//     y' = y / |b|,  w = b / |b| (a unit phase),
// never overflows, underflows or cancels. The eigenvalues of a Hermitian
// D are real, so its inertia follows from det and the trace as for a real
// symmetric block.
#include <tessera/sparse/detail/pivot_2x2.hpp>

#include <cmath>
#include <complex>
#include <cstdint>

namespace tessera::sparse::detail {

struct HermitianPivot2x2 {
  double a;
  std::complex<double> b;
  double c;

  // [y0; y1] := D^-1 [y0; y1].
  void solve(std::complex<double>& y0, std::complex<double>& y1) const {
    const double beta = std::abs(b);
    if (beta == 0) {
      y0 /= a;
      y1 /= c;
      return;
    }
    const double ak = a / beta, ck = c / beta, denom = ak * ck - 1.0;
    const std::complex<double> w = b / beta, u0 = y0 / beta, u1 = y1 / beta;
    y0 = (ck * u0 - std::conj(w) * u1) / denom;
    y1 = (ak * u1 - w * u0) / denom;
  }
  // The pivot of the transposed block, [a b; conj(b) c]: a row vector r
  // times D^-1 is (D^-T r^T)^T, and D^T = conj(D) for Hermitian D.
  HermitianPivot2x2 transposed() const { return {a, std::conj(b), c}; }

  int det_sign() const { return real_block().det_sign(); }
  double log_abs_det() const { return real_block().log_abs_det(); }
  void inertia(std::int64_t& positive, std::int64_t& negative, std::int64_t& zero) const {
    real_block().inertia(positive, negative, zero);
  }

 private:
  // [a |b|; |b| c] has the same determinant a c - |b|^2 and the same
  // trace, hence the same eigenvalues (a unitary diagonal similarity
  // diag(1, w) takes one to the other).
  Pivot2x2 real_block() const { return {a, std::abs(b), c}; }
};

// The 2x2 block type of an LDL^T of scalar T.
template <class T>
struct PivotBlockOf {
  using type = Pivot2x2;
};
template <>
struct PivotBlockOf<std::complex<double>> {
  using type = HermitianPivot2x2;
};
template <class T>
using PivotBlock = typename PivotBlockOf<T>::type;

}  // namespace tessera::sparse::detail
