#pragma once
// The dense work of one small front, done by a whole team: the batched path
// of the level-set Cholesky (detail/level_numeric.hpp). All the small fronts
// of a level are factored, and later solved, by one kernel with a team per
// front, where the dense library (cuSOLVER and cuBLAS on Cuda, LAPACK and
// BLAS on a host space) takes two or three calls per front, one front after
// another. On a GPU the leaves of a 3-D problem's assembly tree are tens of
// thousands of fronts of a few dozen rows: the library calls would cost
// their launch latency each, for a few thousand flops of work each.
//
// The kernels are written once over core's team policy (Cuda: a block of
// warps, the vector lanes of a member being a warp's lanes; host: a team of
// pool threads). The factorization goes column by column, right-looking,
// over the panel, the members sharing each column's work, then updates U
// once by tiles (kUpdateTile); the solves go by blocks of columns
// (kSolveBlock). A team_barrier between the steps orders every
// write before the reads that depend on it. Each entry receives its updates
// in column (block) order, so the results are the same on every run and
// back-end.
//
// The blocks are column-major in Space's memory, as the library calls see
// them: the panel m x nc (ld m) holds [F11; F21], the update matrix U is
// mu x mu (ld mu, lower triangle), mu = m - nc. Every member of the team
// must call, with the same arguments.
#include <tessera/core.hpp>

#include <cstdint>

namespace tessera::sparse::detail {

// The update matrix's tiles: U -= F21 F21^T is done once, after the panel,
// by kUpdateTile x kUpdateTile tiles of U, each thread (lane) keeping its
// tile's sums in registers over the nc columns: two loads of kUpdateTile
// values for kUpdateTile^2 multiply-adds. A column-by-column sweep would
// read and write all of U once per column (U of a 512-row front with 54
// columns is 0.8 MB, 54 times over).
inline constexpr std::int64_t kUpdateTile = 4;

// F11 = L11 L11^T, F21 := F21 L11^-T, U := U - F21 F21^T: potrf, trsm and
// syrk in one. Returns 0, or the 1-based column whose pivot is not positive
// (LAPACK's info: the pivot's value is left on the diagonal and nothing after
// it is computed, U included), the same on every member.
template <class Member>
TESSERA_INLINE_FUNCTION int team_front_cholesky(const Member& t, double* panel, std::int64_t m, std::int64_t nc,
                                                double* update) {
  const std::int64_t mu = m - nc;
  for (std::int64_t j = 0; j < nc; ++j) {
    double* cj = panel + j * m;
    // Final since the barrier that ended step j - 1; every member reads it
    // before the next barrier, and only then is it overwritten.
    const double d = cj[j];
    if (!(d > 0.0)) return int(j + 1);
    const double r = tessera::sqrt(d), inv = 1.0 / r;
    parallel_for(TeamVectorRange(t, j + 1, m), [&](std::int64_t i) { cj[i] *= inv; });
    t.team_barrier();
    // The panel's trailing columns k > j, less L(k:, j) L(k, j): a member
    // per column, its lanes down the rows.
    parallel_for(TeamThreadRange(t, j + 1, nc), [&](std::int64_t k) {
      double* dst = panel + k * m;
      const double l_kj = cj[k];
      parallel_for(ThreadVectorRange(t, k, m), [&](std::int64_t i) { dst[i] -= cj[i] * l_kj; });
    });
    single(PerTeam(t), [&]() { cj[j] = r; });
    t.team_barrier();
  }
  if (mu == 0) return 0;
  // U(i, k) -= sum_q L21(i, q) L21(k, q), i >= k: a member per column of
  // tiles, its lanes down the tiles (on Cuda a warp's loads of L21(:, q)
  // are contiguous), the sums in q order.
  const double* l21 = panel + nc;
  const std::int64_t tiles = (mu + kUpdateTile - 1) / kUpdateTile;
  parallel_for(TeamThreadRange(t, tiles), [&](std::int64_t tk) {
    parallel_for(ThreadVectorRange(t, tk, tiles), [&](std::int64_t ti) {
      const std::int64_t i0 = ti * kUpdateTile, k0 = tk * kUpdateTile;
      double acc[kUpdateTile][kUpdateTile] = {};
      for (std::int64_t q = 0; q < nc; ++q) {
        const double* lq = l21 + q * m;
        double a[kUpdateTile], b[kUpdateTile];
        for (std::int64_t e = 0; e < kUpdateTile; ++e) {
          a[e] = i0 + e < mu ? lq[i0 + e] : 0.0;
          b[e] = k0 + e < mu ? lq[k0 + e] : 0.0;
        }
        for (std::int64_t r = 0; r < kUpdateTile; ++r)
          for (std::int64_t c = 0; c < kUpdateTile; ++c) acc[r][c] += a[r] * b[c];
      }
      for (std::int64_t c = 0; c < kUpdateTile && k0 + c < mu; ++c)
        for (std::int64_t r = 0; r < kUpdateTile && i0 + r < mu; ++r)
          if (i0 + r >= k0 + c) update[(k0 + c) * mu + i0 + r] -= acc[r][c];
    });
  });
  t.team_barrier();
  return 0;
}

// The solves below go by blocks of kSolveBlock columns: one lane solves the
// block's triangle for each right-hand side (a few hundred multiply-adds,
// mostly from cache), then the whole team applies the block to the rows it
// updates, each thread summing over the block's columns. Two team barriers
// per block, where a column-by-column sweep needs two per column, each
// behind a round trip to memory: on a front of 2,000 rows and 300 columns
// that is 20 barriers instead of 600, and the updates read the panel in
// coalesced rows of the block. The result differs from the column sweep's
// by rounding only (each update is the block's sum, subtracted once).
inline constexpr std::int64_t kSolveBlock = 32;

// x1 := L11^-1 x1 and w := L21 x1 (trsm and gemm): x1 is nc x nrhs at
// leading dimension ldx, w is mu x nrhs (ld mu) and is overwritten.
template <class Member>
TESSERA_INLINE_FUNCTION void team_front_forward(const Member& t, const double* panel, std::int64_t m, std::int64_t nc,
                                                double* x1, std::int64_t ldx, std::int64_t nrhs, double* w) {
  const std::int64_t mu = m - nc;
  parallel_for(TeamVectorRange(t, mu * nrhs), [&](std::int64_t q) { w[q] = 0.0; });
  for (std::int64_t j0 = 0; j0 < nc; j0 += kSolveBlock) {
    const std::int64_t jb = nc - j0 < kSolveBlock ? nc - j0 : kSolveBlock;
    // The block's triangle, L(j0 + i, j0 + k) = d[k * m + i]: a thread per
    // right-hand side, one lane of it (no lane reads another's writes).
    const double* d = panel + j0 * m + j0;
    parallel_for(TeamThreadRange(t, nrhs), [&](std::int64_t c) {
      single(PerThread(t), [&]() {
        double* xc = x1 + c * ldx + j0;
        for (std::int64_t i = 0; i < jb; ++i) {
          double s = xc[i];
          for (std::int64_t k = 0; k < i; ++k) s -= d[k * m + i] * xc[k];
          xc[i] = s / d[i * m + i];
        }
      });
    });
    // The block's x is final and visible to the team.
    t.team_barrier();
    // Every row below the block, less L(i, block) x(block): x1's own rows
    // while i < nc, w's below them.
    const std::int64_t rest = m - j0 - jb;
    parallel_for(TeamVectorRange(t, rest * nrhs), [&](std::int64_t q) {
      const std::int64_t i = j0 + jb + q % rest, c = q / rest;
      const double* xb = x1 + c * ldx + j0;
      const double* li = panel + j0 * m + i;
      double s = 0.0;
      for (std::int64_t k = 0; k < jb; ++k) s += li[k * m] * xb[k];
      if (i < nc) x1[i + c * ldx] -= s;
      else w[i - nc + c * mu] += s;
    });
    t.team_barrier();
  }
}

// x1 := L11^-T (x1 - L21^T w) (gemm and trsm), the shapes of
// team_front_forward; w is only read.
template <class Member>
TESSERA_INLINE_FUNCTION void team_front_backward(const Member& t, const double* panel, std::int64_t m,
                                                 std::int64_t nc, double* x1, std::int64_t ldx, std::int64_t nrhs,
                                                 const double* w) {
  const std::int64_t mu = m - nc;
  if (mu > 0) {
    // One member lane per (column k, right-hand side c): L21(:, k) is contiguous.
    parallel_for(TeamVectorRange(t, nc * nrhs), [&](std::int64_t q) {
      const std::int64_t k = q % nc, c = q / nc;
      const double* l_k = panel + k * m + nc;
      const double* w_c = w + c * mu;
      double sum = 0.0;
      for (std::int64_t r = 0; r < mu; ++r) sum += l_k[r] * w_c[r];
      x1[k + c * ldx] -= sum;
    });
    t.team_barrier();
  }
  // L11^T x = y by blocks from the last: in a block [j0, j1), from its last
  // row up, x_i = (y_i - sum_{i < k < j1} L(k, i) x_k) / L(i, i) (column i of
  // L below the diagonal is contiguous); then every row i < j0 above it
  // loses sum_{j0 <= k < j1} L(k, i) x_k.
  for (std::int64_t j1 = nc; j1 > 0;) {
    const std::int64_t j0 = j1 > kSolveBlock ? j1 - kSolveBlock : 0;
    parallel_for(TeamThreadRange(t, nrhs), [&](std::int64_t c) {
      single(PerThread(t), [&]() {
        double* xc = x1 + c * ldx;
        for (std::int64_t i = j1 - 1; i >= j0; --i) {
          const double* li = panel + i * m;
          double s = xc[i];
          for (std::int64_t k = i + 1; k < j1; ++k) s -= li[k] * xc[k];
          xc[i] = s / li[i];
        }
      });
    });
    t.team_barrier();
    if (j0 > 0) {
      parallel_for(TeamVectorRange(t, j0 * nrhs), [&](std::int64_t q) {
        const std::int64_t i = q % j0, c = q / j0;
        const double* li = panel + i * m;
        const double* xc = x1 + c * ldx;
        double s = 0.0;
        for (std::int64_t k = j0; k < j1; ++k) s += li[k] * xc[k];
        x1[i + c * ldx] -= s;
      });
      t.team_barrier();
    }
    j1 = j0;
  }
}

}  // namespace tessera::sparse::detail
