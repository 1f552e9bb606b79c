#pragma once
// Single-source shortest paths by delta-stepping on edge_property_map weights.
//
//   edge_property_map<G, double> w(g);  ...
//   vertex_property_map<G, double> dist(g);
//   delta_stepping_shortest_paths(g, source, w, dist);          // delta chosen from the weights
//   delta_stepping_shortest_paths(g, source, w, dist, 0.5);     // explicit bucket width
//
// Unreached vertices get std::numeric_limits<T>::max(). Weights must be
// non-negative (a negative one is an error naming its edge index).
// Buckets of width delta are settled in order; within a bucket, active
// vertices relax all their edges with atomic min until the bucket is
// stable, so the distances are exact (and identical on every back-end).
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/primitives.hpp>
#include <tessera/graph/property_map.hpp>

#include <limits>
#include <string>

namespace tessera::graph {

template <class G, class T, class S1, class S2>
void delta_stepping_shortest_paths(const G& g, std::int64_t source, const edge_property_map<G, T, S1>& weights,
                                   const vertex_property_map<G, T, S2>& distances, T delta = T(0)) {
  using Exec = typename G::execution_space;
  using V = typename graph_traits<G>::vertex_descriptor;
  using SS = typename G::space_type;
  const std::int64_t n = num_vertices(g);
  if (source < 0 || source >= n)
    detail::fail("delta_stepping_shortest_paths: source " + std::to_string(source) + " outside [0, " + std::to_string(n) + ")");
  if (weights.size() != edge_index_bound(g))
    detail::fail("delta_stepping_shortest_paths: weight map '" + weights.label() + "' has " + std::to_string(weights.size()) +
                 " values for " + std::to_string(edge_index_bound(g)) + " edge indices");
  if (distances.size() != n)
    detail::fail("delta_stepping_shortest_paths: distance map '" + distances.label() + "' has " +
                 std::to_string(distances.size()) + " values for " + std::to_string(n) + " vertices");
  if (delta < T(0)) detail::fail("delta_stepping_shortest_paths: delta must be positive");
  const auto w = weights.view();
  const std::int64_t ne = weights.size();
  std::int64_t first_negative = ne;
  double wsum = 0;
  tessera::parallel_reduce(
      "graph::sssp::check", tessera::RangePolicy<Exec>(0, ne),
      TESSERA_LAMBDA(std::int64_t i, std::int64_t & bad, double& s) {
        if (!(w(i) >= T(0)) && i < bad) bad = i;
        s += double(w(i));
      },
      tessera::Min<std::int64_t>(first_negative), tessera::Sum<double>(wsum));
  if (first_negative < ne)
    detail::fail("delta_stepping_shortest_paths: weight map '" + weights.label() + "' has a negative or NaN weight at edge index " +
                 std::to_string(first_negative));
  if (delta == T(0)) {
    // About the mean weight: buckets hold a few hops' worth of distance.
    const double mean = ne > 0 ? wsum / double(ne) : 1.0;
    delta = T(mean > 0 ? mean : 1);
    if (delta == T(0)) delta = T(1);
  }
  constexpr T inf = std::numeric_limits<T>::max();
  auto dist = distances.view();
  tessera::View<std::uint8_t*, SS> active("graph::sssp::active", n);
  tessera::parallel_for("graph::sssp::init", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) {
    dist(v) = v == source ? T(0) : inf;
    active(v) = v == source ? 1 : 0;
  });
  double lo = 0;  // bucket [lo, lo + delta)
  for (;;) {
    const double hi = lo + double(delta);
    for (;;) {
      std::int64_t relaxed = 0;
      tessera::parallel_reduce(
          "graph::sssp::relax", detail::make_vertex_policy(g, 64),
          TESSERA_LAMBDA(std::int64_t vi, std::int64_t & cnt) {
            if (!tessera::atomic_load(&active(vi))) return;
            const T d = tessera::atomic_load(&dist(vi));
            if (double(d) >= hi) return;
            tessera::atomic_store(&active(vi), std::uint8_t(0));
            ++cnt;
            for (const auto& e : out_edges(V(vi), g)) {
              const T nd = d + weights[e];
              const V t = target(e, g);
              if (nd < tessera::atomic_fetch_min(&dist(t), nd)) tessera::atomic_store(&active(t), std::uint8_t(1));
            }
          },
          relaxed);
      if (relaxed == 0) break;
    }
    // Next non-empty bucket: the smallest distance among active vertices.
    double next = std::numeric_limits<double>::max();
    tessera::parallel_reduce(
        "graph::sssp::next_bucket", tessera::RangePolicy<Exec>(0, n),
        TESSERA_LAMBDA(std::int64_t v, double& m) {
          if (active(v) && double(dist(v)) < m) m = double(dist(v));
        },
        tessera::Min<double>(next));
    // No active vertex left (the Min identity may be max() or +infinity).
    if (!(next < std::numeric_limits<double>::max())) break;
    lo = next > hi ? next : hi;
  }
}

}  // namespace tessera::graph
