#pragma once
// A 2x2 pivot block D = [a b; b c] of a Bunch-Kaufman LDL^T: its solve,
// the signs of its eigenvalues and its determinant, all without forming
// det = a c - b^2.
//
// Why not the determinant: Bunch-Kaufman takes a 2x2 pivot when the
// off-diagonal b dominates (|a|, |c| < |b| up to the pivoting constant), so
// det is about -b^2. For |b| above 1e154 that overflows (the solve then
// divides by inf and returns zeros), below 1e-162 it underflows to zero
// (the solve returns inf and NaN, and the block counts as singular) while
// the block itself is perfectly conditioned. As LAPACK's dsytrs does, every
// quantity is taken relative to b: with a' = a / b, c' = c / b,
//     det = b^2 (a' c' - 1),   D^-1 y = [c' y0' - y1', a' y1' - y0'] / (a' c' - 1),  y' = y / b,
// and a' c' - 1 lies near -1 for a Bunch-Kaufman pivot: no overflow, no
// underflow, no cancellation.
#include <cmath>
#include <cstdint>

namespace tessera::sparse::detail {

struct Pivot2x2 {
  double a, b, c;  // D = [a b; b c]; b != 0 for a pivot LAPACK forms (b == 0: D is diagonal)

  // [y0; y1] := D^-1 [y0; y1].
  void solve(double& y0, double& y1) const {
    if (b == 0) {
      y0 /= a;
      y1 /= c;
      return;
    }
    const double ak = a / b, ck = c / b, denom = ak * ck - 1.0;
    const double u0 = y0 / b, u1 = y1 / b;
    y0 = (ck * u0 - u1) / denom;
    y1 = (ak * u1 - u0) / denom;
  }

  // The block whose solve gives a row vector times D^-1 (D^T = D here;
  // the Hermitian block's differs, hermitian_pivot_2x2.hpp).
  Pivot2x2 transposed() const { return *this; }

  // The sign of det(D) (-1, 0 or 1) and log |det(D)|.
  int det_sign() const {
    if (b == 0) return sign(a) * sign(c);
    const double d = scaled_det();
    return sign(d);
  }
  double log_abs_det() const {
    if (b == 0) return std::log(std::abs(a)) + std::log(std::abs(c));
    return 2.0 * std::log(std::abs(b)) + std::log(std::abs(scaled_det()));
  }

  // The number of positive, negative and zero eigenvalues: det < 0 means
  // one of each sign; otherwise both have the sign of the trace.
  void inertia(std::int64_t& positive, std::int64_t& negative, std::int64_t& zero) const {
    const int s = det_sign();
    const double trace = a + c;
    auto count = [&](double v) { (v > 0 ? positive : v < 0 ? negative : zero) += 1; };
    if (s < 0) {
      ++positive;
      ++negative;
    } else if (s > 0) {
      count(trace);
      count(trace);
    } else {
      count(trace);
      ++zero;
    }
  }

 private:
  // det / b^2 (b != 0).
  double scaled_det() const { return (a / b) * (c / b) - 1.0; }
  static int sign(double v) { return v > 0 ? 1 : v < 0 ? -1 : 0; }
};

}  // namespace tessera::sparse::detail
