// The warp-team tile kernels of bench_task_cuda's potrf row
// (benchmarks/cholesky_tiles_cuda.hpp), checked on the host without a GPU:
// a team of 32 std::threads whose team_barrier is a std::barrier (the
// kernels use nothing else of the member), running the right-looking tiled
// DAG in order on a small SPD matrix, against an unblocked Cholesky. The
// benchmark checks the same kernels on a GPU against cuSOLVER; this is the
// check that the blocking (32 x 32 blocks inside 128-wide tiles) and the
// barriers between the kernels are right, which a GPU run could only show
// as a wrong answer.
// The kernels are __host__ __device__ (TESSERA_FUNCTION); instantiated here
// with a host-only member, which nvcc reports (warning 20014) although these
// instantiations never run on a device.
#if defined(__NVCC__)
#pragma nv_diag_suppress 20014
#endif

#include "../benchmarks/cholesky_tiles_cuda.hpp"

#include <gtest/gtest.h>

#include <barrier>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

namespace {

namespace tiles = tessera_bench_task_cuda;

struct ThreadTeamMember {
  int lane;
  std::barrier<>* barrier;
  int team_rank() const { return lane; }
  void team_barrier() const { barrier->arrive_and_wait(); }
};

// Runs one tile task on 32 threads sharing `scratch`.
void run_on_team(double* scratch, double* a, int n, int op, int k, int i, int j) {
  std::barrier<> barrier(32);
  std::vector<std::thread> lanes;
  for (int l = 0; l < 32; ++l)
    lanes.emplace_back([&, l] { tiles::tile_task(ThreadTeamMember{l, &barrier}, scratch, a, n, op, k, i, j); });
  for (auto& t : lanes) t.join();
}

TEST(CholeskyTiles, TiledDagMatchesUnblockedCholesky) {
  constexpr int nt = 3, n = nt * tiles::kNb;
  std::vector<double> a(std::size_t(n) * std::size_t(n));
  std::mt19937 gen(20261128);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  auto at = [](std::vector<double>& m, int r, int c) -> double& { return m[std::size_t(c) * std::size_t(n) + std::size_t(r)]; };
  for (int c = 0; c < n; ++c)
    for (int r = c; r < n; ++r) at(a, r, c) = at(a, c, r) = r == c ? double(n) : u(gen);
  std::vector<double> ref = a;
  for (int c = 0; c < n; ++c) {
    const double d = std::sqrt(at(ref, c, c));
    at(ref, c, c) = d;
    for (int r = c + 1; r < n; ++r) at(ref, r, c) /= d;
    for (int q = c + 1; q < n; ++q)
      for (int r = q; r < n; ++r) at(ref, r, q) -= at(ref, r, c) * at(ref, q, c);
  }
  alignas(64) static double scratch[tiles::kTileScratch / sizeof(double)];
  for (int k = 0; k < nt; ++k) {
    run_on_team(scratch, a.data(), n, tiles::kPotrf, k, k, k);
    for (int i = k + 1; i < nt; ++i) run_on_team(scratch, a.data(), n, tiles::kTrsm, k, i, k);
    for (int i = k + 1; i < nt; ++i)
      for (int j = k + 1; j <= i; ++j) run_on_team(scratch, a.data(), n, i == j ? tiles::kSyrk : tiles::kGemm, k, i, j);
  }
  double diff = 0, norm = 0;
  for (int c = 0; c < n; ++c)
    for (int r = c; r < n; ++r) {
      const double d = at(a, r, c) - at(ref, r, c);
      diff += d * d;
      norm += at(ref, r, c) * at(ref, r, c);
    }
  EXPECT_LE(std::sqrt(diff / norm), 1e-13) << "||L - L_ref||_F / ||L_ref||_F over the lower triangle";
}

}  // namespace
