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
// Delta-stepping (Meyer and Sanders, "Delta-stepping: a parallelizable
// shortest path algorithm", J. Algorithms 2003): buckets of width delta are
// settled in order; within a bucket, vertices relax all their edges with
// atomic min until the bucket is stable, so the distances are exact (and
// identical on every back-end).
//
// Host spaces work on frontiers: a round relaxes only the vertices queued for
// the current bucket, and each improved vertex is queued in the bin of its
// new bucket, one set of bins per worker (no shared counter), so a round
// costs its frontier's edges, not a pass over all vertices, as in gapbs's
// sssp (detail/bucket_bins.hpp: the bins, and the rounds the fused
// shortest-path jobs share). The bucket width changes only the speed: a
// width far below the distances costs time (a bucket per distance, as on
// the device), not memory or exactness. Device
// spaces keep the current bucket as a queue and the later ones as flags
// (detail/sssp_device_buckets.hpp): a round costs its frontier's edges there
// too, and one pass over the vertices opens each bucket.
#include <tessera/graph/detail/bucket_bins.hpp>
#include <tessera/graph/detail/slot_weights.hpp>
#include <tessera/graph/detail/sssp_device_buckets.hpp>
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/primitives.hpp>
#include <tessera/graph/property_map.hpp>

#include <limits>
#include <string>

#include <algorithm>
#include <atomic>
#include <vector>

namespace tessera::graph {

namespace detail {

// The host form of delta_stepping_shortest_paths (see the top of the file).
template <class G, class T, class S1, class S2>
void delta_stepping_frontiers(const G& g, typename graph_traits<G>::vertex_descriptor source,
                              const edge_property_map<G, T, S1>& weights,
                              const vertex_property_map<G, T, S2>& distances, T delta) {
  using Exec = typename G::execution_space;
  using V = typename graph_traits<G>::vertex_descriptor;
  constexpr T inf = std::numeric_limits<T>::max();
  const std::int64_t n = num_vertices(g);
  T* dist = distances.view().data();
  tessera::parallel_for("graph::sssp::init", tessera::RangePolicy<Exec>(0, n),
                        [=](std::int64_t v) { dist[v] = inf; });
  dist[source] = T(0);
  // The weights in slot order where the graph has slots (detail/slot_weights.hpp):
  // an undirected edge's lower slot otherwise reads its weight from anywhere
  // in the map.
  const auto weight_view = weights.view();
  tessera::View<double*, typename G::space_type> slot_w;
  if constexpr (has_edge_slots_v<G>) slot_w = weights_in_slot_order(g, weight_view);
  const double inv_delta = 1.0 / double(delta);
  auto bucket_of = [inv_delta](T d) { return bucket_index(double(d), inv_delta); };
  // Relaxes the edges of v for bucket b, unless v settled in an earlier
  // bucket since it was queued.
  auto relax = [&](V v, std::uint64_t b, bucket_bins<V>& bins) {
    const T dv = load_relaxed(&dist[v]);
    if (bucket_of(dv) < b) return;
    const auto edges = out_edges(v, g);
    for (auto it = edges.begin(); it != edges.end(); ++it) {
      const T nd = T(dv + T(edge_weight_at(it, g, weight_view, slot_w)));
      const V t = edge_target(it, g);
      if (nd < load_relaxed(&dist[t]) && nd < tessera::atomic_fetch_min(&dist[t], nd)) bins.push(t, bucket_of(nd));
    }
  };
  run_bucket_rounds(g, std::vector<V>{source}, relax, [&](V v) { return bucket_of(load_relaxed(&dist[v])); });
}

// delta_stepping_shortest_paths with its buckets kept as chosen by C: host
// bins per worker, or the device queue and far flags
// (detail/sssp_device_buckets.hpp). The public call picks the space's
// default; tests run both on every space.
template <SsspControl C, class G, class T, class S1, class S2>
void delta_stepping_shortest_paths_with(const G& g, std::int64_t source,
                                        const edge_property_map<G, T, S1>& weights,
                                        const vertex_property_map<G, T, S2>& distances, T delta = T(0)) {
  using Exec = typename G::execution_space;
  using V = typename graph_traits<G>::vertex_descriptor;
  const std::int64_t n = num_vertices(g);
  if (source < 0 || source >= n)
    detail::fail("delta_stepping_shortest_paths: source " + std::to_string(source) + " outside [0, " +
                 std::to_string(n) + ")");
  if (weights.size() != edge_index_bound(g))
    detail::fail("delta_stepping_shortest_paths: weight map '" + weights.label() + "' has " +
                 std::to_string(weights.size()) + " values for " + std::to_string(edge_index_bound(g)) +
                 " edge indices");
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
    detail::fail("delta_stepping_shortest_paths: weight map '" + weights.label() +
                 "' has a negative or NaN weight at edge index " + std::to_string(first_negative));
  if (delta == T(0)) {
    // About the mean weight: buckets hold a few hops' worth of distance.
    const double mean = ne > 0 ? wsum / double(ne) : 1.0;
    delta = T(mean > 0 ? mean : 1);
    if (delta == T(0)) delta = T(1);
  }
  if constexpr (C == SsspControl::host) {
    static_assert(tessera::is_host_execution_space<Exec>::value,
                  "SsspControl::host runs on host execution spaces");
    delta_stepping_frontiers(detail::with_stored_edge_indices(g), V(source), weights, distances, delta);
  } else {
    delta_stepping_device_buckets(g, V(source), weights, distances, delta);
  }
}
}  // namespace detail

template <class G, class T, class S1, class S2>
void delta_stepping_shortest_paths(const G& g, std::int64_t source,
                                   const edge_property_map<G, T, S1>& weights,
                                   const vertex_property_map<G, T, S2>& distances, T delta = T(0)) {
  detail::delta_stepping_shortest_paths_with<detail::default_sssp_control<typename G::execution_space>>(
      g, source, weights, distances, delta);
}

}  // namespace tessera::graph
