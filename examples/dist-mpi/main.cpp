// A graph and a linear system over MPI ranks (run with mpiexec -n P):
//  1. a 2-D grid graph, each rank generating its share of the edges; BFS
//     from a corner reaches every vertex in 2(N-1) levels, with one component;
//  2. the 3-D Laplacian, each rank its rows; CG with block Jacobi (each
//     rank's block factorized by the sparse Cholesky) solves A x = A 1 to x = 1.
// Every check is a closed form; the program exits nonzero when one fails.
#include <tessera/core.hpp>
#include <tessera/dist.hpp>

#include <cmath>
#include <cstdio>

namespace td = tessera::dist;
using Space = tessera::DefaultHostExecutionSpace;

int main(int argc, char** argv) {
  td::Environment mpi(argc, argv);
  tessera::ScopeGuard runtime(argc, argv);
  const td::Comm world;
  bool ok = true;
  try {
    // 1. An N x N grid: this rank writes the edges of its rows of the grid.
    const std::int64_t N = 64;
    tessera::graph::edge_list share;
    share.num_vertices = N * N;
    const auto rows = td::Partition::uniform(N, world.size());
    for (std::int64_t y = rows.begin(world.rank()); y < rows.end(world.rank()); ++y)
      for (std::int64_t x = 0; x < N; ++x) {
        if (x + 1 < N) share.src.push_back(y * N + x), share.dst.push_back(y * N + x + 1);
        if (y + 1 < N) share.src.push_back(y * N + x), share.dst.push_back((y + 1) * N + x);
      }
    const td::DistGraph g(world, share);
    const auto bfs = td::bfs<Space>(g, 0);
    const auto cc = td::connected_components<Space>(g);
    const bool graph_ok = bfs.visited == N * N && bfs.levels == 2 * (N - 1) + 1 && cc.count == 1;
    if (world.rank() == 0)
      std::printf("grid %lldx%lld on %d ranks: BFS reached %lld in %d levels, %lld component(s) -> %s\n", (long long)N,
                  (long long)N, world.size(), (long long)bfs.visited, bfs.levels, (long long)cc.count,
                  graph_ok ? "pass" : "FAIL");
    ok = ok && graph_ok;

    // 2. The 3-D Laplacian: b = A 1, so the solution is all ones.
    const auto A = td::make_dist_matrix<double>(world, "lap3d:20");
    std::vector<double> ones(std::size_t(A.num_owned()), 1.0), b(ones.size()), x(ones.size(), 0.0);
    td::multiply<Space>(A, ones.data(), b.data());
    td::AdditiveSchwarz<double, Space> M;  // block Jacobi, Cholesky blocks
    M.setup(A);
    const auto r = td::pcg<Space>(A, b.data(), x.data(), M);
    double err = 0;
    for (double v : x) err = std::max(err, std::abs(v - 1.0));
    err = world.max(err);
    const bool solve_ok = r.converged && err < 1e-6;
    if (world.rank() == 0)
      std::printf("3-D Laplacian n = %lld on %d ranks: %d PCG iterations, max |x - 1| = %.2e -> %s\n",
                  (long long)A.num_rows(), world.size(), r.iterations, err, solve_ok ? "pass" : "FAIL");
    ok = ok && solve_ok;
  } catch (const std::exception& e) {
    // dist errors are the same on every rank: rank 0 says it.
    if (world.rank() == 0) std::fprintf(stderr, "dist_mpi: %s\n", e.what());
    return 1;
  }
  return ok ? 0 : 1;
}
