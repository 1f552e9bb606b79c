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
// costs its frontier's edges, not a pass over all vertices. A worker that
// has finished its share of the round goes on with its own bin of the
// current bucket while that bin is small, without waiting for the others
// (the relaxations are monotone atomic minima, so the order does not change
// the distances); the next round takes the lowest non-empty bin of all
// workers, which become its frontier in place (no copy). gapbs's sssp works
// the same way. Rounds with few edges run on the calling thread. Device
// spaces keep the current bucket as a queue and the later ones as flags
// (detail/sssp_device_buckets.hpp): a round costs its frontier's edges there
// too, and one pass over the vertices opens each bucket.
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
  const Exec exec;
  tessera::parallel_for("graph::sssp::init", tessera::RangePolicy<Exec>(0, n),
                        [=](std::int64_t v) { dist[v] = inf; });
  dist[source] = T(0);
  // One worker per pool thread; worker w owns bins[w] (bins[w][k]: vertices
  // it queued for bucket k; duplicates allowed, an entry is stale when its
  // vertex has since settled in a lower bucket) and frontier[w], its part of
  // the current round's frontier.
  const int nw = exec.concurrency() > 0 ? exec.concurrency() : 1;
  // The weights in slot order where the graph has slots (detail/slot_weights.hpp):
  // an undirected edge's lower slot otherwise reads its weight from anywhere
  // in the map.
  const auto weight_view = weights.view();
  tessera::View<double*, typename G::space_type> slot_w;
  if constexpr (has_edge_slots_v<G>) slot_w = weights_in_slot_order(g, weight_view);
  std::vector<std::vector<std::vector<V>>> bins(static_cast<std::size_t>(nw));
  std::vector<std::vector<V>> frontier(static_cast<std::size_t>(nw));
  std::vector<std::size_t> lowest(static_cast<std::size_t>(nw));  // each worker's lowest non-empty bin
  frontier[0].push_back(source);
  const double inv_delta = 1.0 / double(delta);
  auto bucket_of = [inv_delta](T d) { return std::size_t(double(d) * inv_delta); };
  constexpr std::size_t none = std::size_t(-1);
  // A worker drains its own bin of the current bucket while it holds fewer
  // vertices than this; a larger bin waits for the next round, where all
  // workers share it.
  constexpr std::size_t drain_limit = 1000;
  // A round whose frontier is expected to hold fewer edges than this runs on
  // the calling thread (road-like graphs have thousands of small rounds).
  const double mean_degree = n > 0 ? double(2 * std::int64_t(num_edges(g))) / double(n) : 0.0;
  constexpr double inline_edges = 1024;
  std::size_t b = 0;  // the current bucket
  for (;;) {
    std::vector<std::int64_t> start(static_cast<std::size_t>(nw) + 1, 0);
    for (int w = 0; w < nw; ++w)
      start[std::size_t(w) + 1] = start[std::size_t(w)] + std::int64_t(frontier[std::size_t(w)].size());
    const std::int64_t fsize = start.back();
    // Relaxes the edges of v for worker w, unless v settled in an earlier
    // bucket since it was queued.
    auto relax = [&, b](V v, int w) {
      const T dv = load_relaxed(&dist[v]);
      if (bucket_of(dv) < b) return;
      auto& wb = bins[std::size_t(w)];
      const auto edges = out_edges(v, g);
      for (auto it = edges.begin(); it != edges.end(); ++it) {
        const T nd = T(dv + T(edge_weight_at(it, g, weight_view, slot_w)));
        const V t = edge_target(it, g);
        if (nd < load_relaxed(&dist[t]) && nd < tessera::atomic_fetch_min(&dist[t], nd)) {
          const std::size_t k = bucket_of(nd);
          if (k >= wb.size()) wb.resize(k + 1);
          wb[k].push_back(t);
        }
      }
    };
    std::atomic<std::int64_t> next_chunk{0};
    constexpr std::int64_t chunk = 64;
    // Worker w: chunks of the shared frontier, then its own small bin of
    // bucket b, then its lowest non-empty bin.
    auto work = [&](std::int64_t wi) {
      const int w = int(wi);
      std::size_t seg = 0;
      for (;;) {
        const std::int64_t c = next_chunk.fetch_add(chunk, std::memory_order_relaxed);
        if (c >= fsize) break;
        const std::int64_t e = c + chunk < fsize ? c + chunk : fsize;
        for (std::int64_t i = c; i < e; ++i) {
          while (start[seg + 1] <= i) ++seg;  // chunks are claimed in increasing order
          relax(frontier[seg][std::size_t(i - start[seg])], w);
        }
      }
      auto& wb = bins[std::size_t(w)];
      std::vector<V> mine;
      while (b < wb.size() && !wb[b].empty() && wb[b].size() < drain_limit) {
        mine.clear();
        mine.swap(wb[b]);
        for (const V v : mine) relax(v, w);
      }
      std::size_t k = b;
      while (k < wb.size() && wb[k].empty()) ++k;
      lowest[std::size_t(w)] = k < wb.size() ? k : none;
    };
    if (double(fsize) * mean_degree < inline_edges) {
      // Every worker's share on the calling thread, one after another.
      for (int w = 0; w < nw; ++w) work(w);
    } else {
      // One work item per worker, each on its own thread where the pool has
      // them (items on one thread are still correct: they share the chunks).
      tessera::parallel_for("graph::sssp::round", tessera::RangePolicy<Exec>(0, nw, 1), work);
    }
    // The next bucket: the lowest non-empty bin of any worker (>= b:
    // relaxing bucket b never produces a smaller distance). Its bins become
    // the next frontier.
    std::size_t next = none;
    for (auto k : lowest) next = k < next ? k : next;
    if (next == none) break;
    for (int w = 0; w < nw; ++w) {
      auto& wb = bins[std::size_t(w)];
      auto& f = frontier[std::size_t(w)];
      f.clear();
      if (next < wb.size()) f.swap(wb[next]);
    }
    b = next;
  }
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
