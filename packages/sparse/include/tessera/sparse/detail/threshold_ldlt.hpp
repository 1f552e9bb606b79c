#pragma once
// The dense kernel of the multifrontal LDL^T: a partial factorization of
// one front with threshold Bunch-Kaufman pivoting, in the scheme of Duff and
// Reid's MA57 (ACM TOMS 30(2), 2004, "MA57 - a code for the solution of
// sparse symmetric definite and indefinite systems") and of MUMPS (Amestoy,
// Duff, L'Excellent and Koster, SIAM J. Matrix Anal. Appl. 23(1), 2001).
//
// The front, column-major, lower triangle only:
//     [ F11   .  ]   F11: nfs x nfs, the fully-summed rows and columns
//     [ F21  F22 ]   F21: mu x nfs, the rows below (mu = m - nfs)
// F11 and F21 form the panel P (m x nfs, leading dimension ld); F22 is the
// update matrix U (mu x mu, leading dimension ldu), a separate buffer.
//
// A pivot may only be chosen among the fully-summed columns, but it must be
// stable against the whole column, the rows below included: with u the
// threshold (Options::pivot_threshold, 0.01 by default), after the updates
// of the pivots already taken,
//   1x1 a_jj:   |a_jj| >= u max_{i != j} |a_ij|, the max over every row of the front;
//   2x2 (j, r): r the fully-summed row with the largest |a_rj|, D = [a_jj a_rj; a_rj a_rr],
//               |D^-1| [g_j; g_r] <= [1/u; 1/u], g_j = max_{i != j, r} |a_ij| (the
//               same for r), which bounds every entry of L by 1/u.
// Candidates are tried in turn: 1x1 on j, the 2x2 (j, r), 1x1 on r. A
// column that passes none is left for later; when every remaining column
// has failed since the last pivot was taken, the front stops and the
// remaining nfs - npiv columns are delayed: they stay in P, updated by the
// npiv pivots taken, and the caller passes them to the parent front as
// fully-summed rows and columns (the contribution block is P's trailing
// columns and U). A root front has no parent: its remaining columns are
// then eliminated with the best pivot available (the largest u the test
// would pass with); one whose size is at most `zero` (eps ||A||) is a zero
// pivot: reported, or, with static pivoting, replaced by +-static_pivot.
//
// Blocking: the pivots are taken in blocks of `block` (as LAPACK's dlasyf):
// a candidate column is brought up to date on the fly with the block's
// pivots (a matrix-vector product), and after each block the trailing
// fully-summed columns and U are updated by matrix-matrix products, only
// their lower triangles (column chunks). Swaps are symmetric interchanges
// of two fully-summed positions, applied to the eliminated columns' rows
// too, so that on return P holds, in pivot order,
//   P(q, q)            the 1x1 pivot, or D's diagonal for a 2x2 block,
//   P(i, q), i > q     L (unit diagonal implicit); P(q + 1, q) = 0 for a
//                      2x2 block whose off-diagonal is in e[q],
// for q < npiv, and the delayed columns' Schur complement in columns
// [npiv, nfs), rows [npiv, m). U holds F22 - L2 D L2^T.
//
// Hermitian fronts (T = std::complex<double>): the same kernel computes
// L D L^H, with D's 1x1 pivots real and its 2x2 blocks [a conj(b); b c]
// Hermitian (HermitianPivot2x2), b in e[q]; the tests compare moduli.
// Instantiated for double and std::complex<double> (src/threshold_ldlt.cpp).
#include <cstdint>
#include <vector>

namespace tessera::sparse::detail {

struct ThresholdControls {
  double u = 0.01;             // the threshold, 0 <= u <= 0.5
  double zero = 0;             // a pivot of at most this size counts as zero
  double static_pivot = 0;     // > 0: a zero pivot of a root front becomes +-static_pivot
  bool eliminate_all = false;  // a root front: no parent to delay to
  std::int64_t block = 64;     // pivots per block update
};

// What the kernel did to a front. Positions are 0-based in the front.
template <class T>
struct FrontPivots {
  std::int64_t npiv = 0;             // pivots taken; columns [npiv, nfs) are delayed
  std::vector<std::int64_t> order;   // order[q]: the input column now at position q (q < nfs)
  std::vector<char> two;             // two[q]: q and q + 1 are a 2x2 block (q its first)
  std::vector<T> e;                  // e[q]: that block's off-diagonal (lower entry)
  std::vector<std::int64_t> zero;    // positions of zero pivots (root only; D = 0, L = 0)
  std::int64_t static_pivots = 0;    // zero pivots replaced by static pivoting
};

// Factors the front in place as described above. m >= nfs >= 0.
template <class T>
void threshold_ldlt(T* panel, std::int64_t m, std::int64_t nfs, std::int64_t ld, T* update, std::int64_t ldu,
                    const ThresholdControls& controls, FrontPivots<T>& out);

}  // namespace tessera::sparse::detail
