#pragma once
// PageRank by power iteration.
//
//   vertex_property_map<G, double> ranks(g);
//   int iters = pagerank(g, ranks, 0.85, 1e-9, 100);
//
// r'(v) = (1-d)/n + d * ( sum over in-edges (u -> v) of r(u)/outdeg(u) + dangling/n )
// where dangling is the rank held by vertices without out-edges (spread
// evenly, so ranks always sum to 1). Stops when sum |r' - r| < tolerance or
// after max_iterations; returns the iterations run. Graphs with in-edges
// (undirected, bidirectional) gather without atomics (deterministic); plain
// directed graphs scatter with atomic adds.
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/primitives.hpp>
#include <tessera/graph/property_map.hpp>

#include <string>

namespace tessera::graph {

template <class G, class S>
int pagerank(const G& g, const vertex_property_map<G, double, S>& ranks, double damping = 0.85, double tolerance = 1e-6,
             int max_iterations = 100) {
  using Exec = typename G::execution_space;
  using V = typename graph_traits<G>::vertex_descriptor;
  using SS = typename G::space_type;
  if (ranks.size() != num_vertices(g))
    detail::fail("pagerank: property map '" + ranks.label() + "' has " + std::to_string(ranks.size()) + " values for " +
                 std::to_string(num_vertices(g)) + " vertices");
  if (!(damping >= 0.0 && damping < 1.0)) detail::fail("pagerank: damping " + std::to_string(damping) + " outside [0, 1)");
  if (!(tolerance >= 0.0)) detail::fail("pagerank: tolerance " + std::to_string(tolerance) + " must be >= 0");
  if (max_iterations < 0) detail::fail("pagerank: max_iterations " + std::to_string(max_iterations) + " must be >= 0");
  const std::int64_t n = num_vertices(g);
  if (n == 0) return 0;
  auto r = ranks.view();
  tessera::View<double*, SS> contrib(tessera::view_alloc("graph::pagerank::contrib", tessera::WithoutInitializing), n);
  tessera::View<double*, SS> next(tessera::view_alloc("graph::pagerank::next", tessera::WithoutInitializing), n);
  const double inv_n = 1.0 / double(n);
  tessera::parallel_for("graph::pagerank::init", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) { r(v) = inv_n; });
  int it = 0;
  while (it < max_iterations) {
    ++it;
    double dangling = 0;
    tessera::parallel_reduce(
        "graph::pagerank::contrib", tessera::RangePolicy<Exec>(0, n),
        TESSERA_LAMBDA(std::int64_t v, double& dsum) {
          const std::int64_t d = out_degree(V(v), g);
          contrib(v) = d > 0 ? r(v) / double(d) : 0.0;
          if (d == 0) dsum += r(v);
        },
        dangling);
    const double base = (1.0 - damping) * inv_n + damping * dangling * inv_n;
    double diff = 0;
    if constexpr (graph_traits<G>::has_in_edges) {
      tessera::parallel_reduce(
          "graph::pagerank::gather", detail::make_vertex_policy(g, 256),
          TESSERA_LAMBDA(std::int64_t vi, double& l1) {
            double s = 0;
            for (auto u : in_adjacent_vertices(V(vi), g)) s += contrib(u);
            const double x = base + damping * s;
            l1 += x > r(vi) ? x - r(vi) : r(vi) - x;
            next(vi) = x;
          },
          diff);
    } else {
      tessera::parallel_for("graph::pagerank::zero", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) { next(v) = 0.0; });
      tessera::parallel_for("graph::pagerank::scatter", detail::make_vertex_policy(g, 256), TESSERA_LAMBDA(std::int64_t ui) {
        const double c = contrib(ui);
        for (auto w : adjacent_vertices(V(ui), g)) tessera::atomic_add(&next(w), c);
      });
      tessera::parallel_reduce(
          "graph::pagerank::finish", tessera::RangePolicy<Exec>(0, n),
          TESSERA_LAMBDA(std::int64_t v, double& l1) {
            const double x = base + damping * next(v);
            l1 += x > r(v) ? x - r(v) : r(v) - x;
            next(v) = x;
          },
          diff);
    }
    std::swap(r, next);
    if (diff < tolerance) break;
  }
  // The last iterate lives in whichever buffer r names now.
  if (r.data() != ranks.view().data()) tessera::deep_copy(ranks.view(), r);
  return it;
}

}  // namespace tessera::graph
