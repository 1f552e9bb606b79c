#pragma once
// PageRank of a DistGraph by power iteration, with the node-level
// graph::pagerank's formula, defaults and stopping rule, so ranks agree with
// it to rounding and the iteration counts agree:
//
//   r'(v) = (1-d)/n + d * ( sum over neighbours u of r(u)/deg(u) + dangling/n ),
//   stop when sum |r' - r| < tolerance or after max_iterations.
//
//   tessera::dist::PageRankResult p = tessera::dist::pagerank<tessera::Threads>(g, 0.85, 1e-9, 1000);
//   p.rank[v]   for owned vertex v (local id);   p.iterations
//
// Each iteration pulls: every owned vertex sums its neighbours'
// contributions r(u)/deg(u) (in the same neighbour order and with the same
// four partial sums as the node-level pull, so the per-vertex sums are the
// same numbers), the owners' new contributions reach the ghosts through the
// exchange plan, and one allreduce gives the change and the dangling mass.
#include <tessera/core.hpp>
#include <tessera/dist/graph/dist_graph.hpp>
#include <tessera/graph/pagerank.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::dist {

struct PageRankResult {
  std::vector<double> rank;  // per owned vertex
  int iterations = 0;
};

// Collective.
template <class Exec = tessera::DefaultHostExecutionSpace>
PageRankResult pagerank(const DistGraph& g, double damping = 0.85, double tolerance = 1e-6,
                        int max_iterations = 100) {
  static_assert(tessera::is_host_execution_space<Exec>::value,
                "tessera::dist::pagerank runs on a host execution space");
  using V = local_vertex;
  if (!(damping >= 0.0 && damping < 1.0))
    throw dist_error("tessera::dist::pagerank: damping " + std::to_string(damping) + " outside [0, 1)");
  if (!(tolerance >= 0.0))
    throw dist_error("tessera::dist::pagerank: tolerance " + std::to_string(tolerance) + " must be >= 0");
  if (max_iterations < 0)
    throw dist_error("tessera::dist::pagerank: max_iterations " + std::to_string(max_iterations) +
                     " must be >= 0");
  const Comm& comm = g.comm();
  const std::int64_t n = g.num_vertices(), owned = g.num_owned();
  PageRankResult res;
  res.rank.assign(std::size_t(owned), 0.0);
  if (n == 0) return res;
  const std::int64_t* rm = g.row_map().data();
  const V* adj = g.adjacency().data();
  const double inv_n = 1.0 / double(n);
  double* r = res.rank.data();
  std::vector<double> contrib(std::size_t(g.num_local()), 0.0), contrib_next(std::size_t(g.num_local()), 0.0);
  double dangling = 0;
  for (std::int64_t v = 0; v < owned; ++v) {
    const std::int64_t d = rm[v + 1] - rm[v];
    r[v] = inv_n;
    contrib[std::size_t(v)] = d > 0 ? inv_n / double(d) : 0.0;
    if (d == 0) dangling += inv_n;
  }
  dangling = comm.sum(dangling);
  g.update_ghosts(contrib);
  int it = 0;
  while (it < max_iterations) {
    ++it;
    const double base = (1.0 - damping) * inv_n + damping * dangling * inv_n;
    std::vector<double> sums{0.0, 0.0};  // the change, the next dangling mass
    {
      const double* c = contrib.data();
      double* cn = contrib_next.data();
      tessera::parallel_reduce(
          "dist::pagerank::pull",
          tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, owned, 256),
          [=](std::int64_t v, double& l1, double& dsum) {
            const graph::iterator_range<const V*> nbrs(adj + rm[v], adj + rm[v + 1]);
            const double s = graph::detail::sum_of<double, true>(nbrs, [=](V u) { return c[u]; });
            const double x = base + damping * s;
            l1 += std::fabs(x - r[v]);
            r[v] = x;
            const std::int64_t d = rm[v + 1] - rm[v];
            cn[v] = d > 0 ? x / double(d) : 0.0;
            dsum += d > 0 ? 0.0 : x;
          },
          tessera::Sum<double>(sums[0]), tessera::Sum<double>(sums[1]));
    }
    comm.sum_in_place(sums);
    std::swap(contrib, contrib_next);
    g.update_ghosts(contrib);
    dangling = sums[1];
    if (sums[0] < tolerance) break;
  }
  res.iterations = it;
  return res;
}

}  // namespace tessera::dist
