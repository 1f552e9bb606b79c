#pragma once
// The tile kernels of bench_task_cuda's potrf row: POTRF, TRSM, SYRK and
// GEMM of one 128-wide tile of a column-major matrix, each run by a warp
// team (32 members, one lane each) through 16 KiB of its level-0 scratch.
//
// A 128 x 128 double tile is 128 KiB, more than a warp's share of an SM's
// shared memory, so the kernels work on 32 x 32 blocks: every block update
// is C(32 x 32) -= X(32 x K) Y(32 x K)^T, staged 32 columns at a time into
// scratch (two 8 KiB chunks: 64 KiB a block of 4 warps, so 3 blocks, 12
// warps, fit an SM), each lane holding a 4 x 8 block of C in registers. The
// diagonal 32 x 32 Cholesky and the 32-wide triangular solves run from
// scratch too. Blocked this way, POTRF and TRSM of a tile are sequences of
// block updates and 32-wide kernels, as LAPACK's blocked dpotrf / dtrsm are.
//
// Templates over the member type: the benchmark passes the Cuda task
// member; only team_rank() and team_barrier() are used, so the host check
// (tests/test_task_cholesky_tiles.cpp) runs them on 32 threads with a barrier.
#include <tessera/core/macros.hpp>

#include <cmath>
#include <cstddef>

// Full unrolling keeps the register blocks (acc, x) in registers on the
// device. nvcc's host pass gets no hint (its host compiler rejects `#pragma
// unroll` under -Werror and its front end warns on GCC's spelling); the
// host check's compiler gets GCC's.
#if defined(__CUDA_ARCH__)
#define TESSERA_BENCH_TILE_UNROLL _Pragma("unroll")
#define TESSERA_BENCH_TILE_UNROLL_4 _Pragma("unroll 4")
#elif defined(__CUDACC__)
#define TESSERA_BENCH_TILE_UNROLL
#define TESSERA_BENCH_TILE_UNROLL_4
#else
#define TESSERA_BENCH_TILE_UNROLL _Pragma("GCC unroll 32")
#define TESSERA_BENCH_TILE_UNROLL_4 _Pragma("GCC unroll 4")
#endif

namespace tessera_bench_task_cuda {

enum TileOp : int { kPotrf = 0, kTrsm = 1, kSyrk = 2, kGemm = 3 };

// Two doubles read as one 16-byte shared-memory load (CUDA's double2 without
// its header, so that the host check compiles without CUDA).
struct alignas(16) DoublePair {
  double x, y;
};

inline constexpr int kNb = 128;                            // tile width
inline constexpr int kBs = 32;                             // block width inside a tile
inline constexpr std::size_t kTileScratch = 2 * kBs * kBs * sizeof(double);  // 16 KiB

// C(32 x 32) -= X(32 x K) * Y(32 x K)^T; column-major with leading
// dimensions; K a multiple of 32. S: 2 x 32 x 32 doubles of team scratch.
template <class M>
TESSERA_FUNCTION inline void block_update(const M& m, double* S, double* C, std::size_t ldc, const double* X,
                                          const double* Y, std::size_t ld, int K) {
  const int lane = m.team_rank();
  const int lr = lane & 7, lc = lane >> 3;  // rows 4 lr .. +3, columns 8 lc .. +7
  double acc[4][8] = {};
  double* Xs = S;             // Xs[kk * 32 + r] = X(r, k0 + kk)
  double* Ys = S + kBs * kBs;  // Ys[kk * 32 + c] = Y(c, k0 + kk)
  for (int k0 = 0; k0 < K; k0 += kBs) {
    for (int kk = 0; kk < kBs; ++kk) {  // each column a coalesced 256-byte read
      Xs[kk * kBs + lane] = X[std::size_t(k0 + kk) * ld + std::size_t(lane)];
      Ys[kk * kBs + lane] = Y[std::size_t(k0 + kk) * ld + std::size_t(lane)];
    }
    m.team_barrier();
TESSERA_BENCH_TILE_UNROLL_4
    for (int kk = 0; kk < kBs; ++kk) {
      // 16-byte shared loads (the scratch is 16-byte aligned): 6 per 32 FMAs.
      double a[4], b[8];
      const DoublePair* xa = reinterpret_cast<const DoublePair*>(Xs + kk * kBs + 4 * lr);
      const DoublePair* yb = reinterpret_cast<const DoublePair*>(Ys + kk * kBs + 8 * lc);
TESSERA_BENCH_TILE_UNROLL
      for (int q = 0; q < 2; ++q) {
        const DoublePair v = xa[q];
        a[2 * q] = v.x;
        a[2 * q + 1] = v.y;
      }
TESSERA_BENCH_TILE_UNROLL
      for (int p = 0; p < 4; ++p) {
        const DoublePair v = yb[p];
        b[2 * p] = v.x;
        b[2 * p + 1] = v.y;
      }
TESSERA_BENCH_TILE_UNROLL
      for (int q = 0; q < 4; ++q)
TESSERA_BENCH_TILE_UNROLL
        for (int p = 0; p < 8; ++p) acc[q][p] = fma(a[q], b[p], acc[q][p]);
    }
    m.team_barrier();  // the next chunk overwrites what the lanes just read
  }
TESSERA_BENCH_TILE_UNROLL
  for (int p = 0; p < 8; ++p)
TESSERA_BENCH_TILE_UNROLL
    for (int q = 0; q < 4; ++q) C[std::size_t(8 * lc + p) * ldc + std::size_t(4 * lr + q)] -= acc[q][p];
  m.team_barrier();  // the next kernel reads C with another lane layout
}

// In place: the lower triangle of A (32 x 32) := its Cholesky factor.
template <class M>
TESSERA_FUNCTION inline void block_potrf(const M& m, double* S, double* A, std::size_t lda) {
  const int lane = m.team_rank();
  for (int c = 0; c < kBs; ++c) S[c * kBs + lane] = A[std::size_t(c) * lda + std::size_t(lane)];
  m.team_barrier();
  for (int c = 0; c < kBs; ++c) {
    const double d = sqrt(S[c * kBs + c]);
    m.team_barrier();  // every lane has read the pivot before lane c replaces it
    if (lane == c) S[c * kBs + c] = d;
    else if (lane > c) S[c * kBs + lane] /= d;
    m.team_barrier();
    // Lane r updates its row of the trailing lower triangle.
    for (int q = c + 1; q <= lane; ++q) S[q * kBs + lane] -= S[c * kBs + lane] * S[c * kBs + q];
    m.team_barrier();
  }
  for (int c = 0; c <= lane; ++c) A[std::size_t(c) * lda + std::size_t(lane)] = S[c * kBs + lane];
  m.team_barrier();
}

// B(rows x 32) := B * L^-T, L the lower triangle of a 32 x 32 block: each
// lane solves whole rows (x L^T = b by forward substitution). The rows sit
// in the second half of S, a column of 32 per lane, not in registers: fully
// unrolled over a register array, the substitution's 528 multipliers were
// hoisted into registers and spilled (255 registers, 4.7 KB of spills by
// ptxas -v), and each lane touches only its own column, so no barrier.
template <class M>
TESSERA_FUNCTION inline void block_trsm(const M& m, double* S, double* B, int rows, const double* L,
                                        std::size_t ld) {
  const int lane = m.team_rank();
  double* X = S + kBs * kBs;  // X[c * 32 + lane]: column c of this lane's row
  for (int c = 0; c < kBs; ++c) S[c * kBs + lane] = L[std::size_t(c) * ld + std::size_t(lane)];
  m.team_barrier();
  for (int r = lane; r < rows; r += kBs) {
    for (int c = 0; c < kBs; ++c) X[c * kBs + lane] = B[std::size_t(c) * ld + std::size_t(r)];
    for (int c = 0; c < kBs; ++c) {
      const double xc = X[c * kBs + lane] / S[c * kBs + c];
      X[c * kBs + lane] = xc;
TESSERA_BENCH_TILE_UNROLL_4
      for (int q = c + 1; q < kBs; ++q) X[q * kBs + lane] = fma(-S[c * kBs + q], xc, X[q * kBs + lane]);
    }
    for (int c = 0; c < kBs; ++c) B[std::size_t(c) * ld + std::size_t(r)] = X[c * kBs + lane];
  }
  m.team_barrier();
}

// Tile (r, c) of A (n x n, lda = n, 128-wide tiles).
TESSERA_FUNCTION inline double* tile(double* a, int n, int r, int c) {
  return a + std::size_t(c) * kNb * std::size_t(n) + std::size_t(r) * kNb;
}

// The tile update `op` of step k on tile (i, j) (POTRF: (k, k); TRSM: (i, k);
// SYRK: (i, i); GEMM: (i, j)), with S the team's 16 KiB of scratch.
template <class M>
TESSERA_FUNCTION inline void tile_task(const M& m, double* S, double* a, int n, int op, int k, int i, int j) {
  const std::size_t ld = std::size_t(n);
  const int nb = kNb / kBs;
  auto blk = [&](double* t, int rb, int cb) { return t + std::size_t(cb) * kBs * ld + std::size_t(rb) * kBs; };
  switch (op) {
    case kPotrf: {
      double* t = tile(a, n, k, k);
      for (int cb = 0; cb < nb; ++cb) {
        if (cb > 0) block_update(m, S, blk(t, cb, cb), ld, blk(t, cb, 0), blk(t, cb, 0), ld, cb * kBs);
        block_potrf(m, S, blk(t, cb, cb), ld);
        if (cb + 1 < nb) {
          if (cb > 0)
            for (int rb = cb + 1; rb < nb; ++rb)
              block_update(m, S, blk(t, rb, cb), ld, blk(t, rb, 0), blk(t, cb, 0), ld, cb * kBs);
          block_trsm(m, S, blk(t, cb + 1, cb), (nb - cb - 1) * kBs, blk(t, cb, cb), ld);
        }
      }
      break;
    }
    case kTrsm: {  // tile (i, k) := tile (i, k) L(k, k)^-T
      double* t = tile(a, n, i, k);
      const double* L = tile(a, n, k, k);
      for (int cb = 0; cb < nb; ++cb) {
        if (cb > 0)
          for (int rb = 0; rb < nb; ++rb)
            block_update(m, S, blk(t, rb, cb), ld, blk(t, rb, 0), L + std::size_t(cb) * kBs, ld, cb * kBs);
        block_trsm(m, S, blk(t, 0, cb), kNb, L + std::size_t(cb) * kBs * ld + std::size_t(cb) * kBs, ld);
      }
      break;
    }
    default: {  // SYRK (i == j: lower blocks only) or GEMM: tile (i, j) -= L(i, k) L(j, k)^T
      double* t = tile(a, n, i, j);
      const double* X = tile(a, n, i, k);
      const double* Y = tile(a, n, j, k);
      for (int rb = 0; rb < nb; ++rb)
        for (int cb = 0; cb < nb; ++cb) {
          if (op == kSyrk && cb > rb) continue;
          block_update(m, S, blk(t, rb, cb), ld, X + std::size_t(rb) * kBs, Y + std::size_t(cb) * kBs, ld, kNb);
        }
      break;
    }
  }
}

}  // namespace tessera_bench_task_cuda
