#pragma once
// advance: the out-edges of a frontier, on the graph's execution space.
//
//   tessera::View<vertex*, Space> frontier(...);   // vertex ids, any order, repeats allowed
//   tg::advance(g, frontier, TESSERA_LAMBDA(vertex u, const edge& e) {...});
//   tg::advance("label", g, frontier, f, {.schedule = tg::edge_schedule::by_degree});
//
// f(u, e) runs once for every out-edge e of every entry u of the frontier
// (e's source is u; an undirected edge is seen from the frontier's side; a
// vertex listed twice is expanded twice), in no particular order and
// concurrently: write results with atomics or to disjoint places. An f that
// reads only the edge's ends may say so with `static constexpr bool
// reads_edge_index = false;` (as a BFS visitor may): its edges then come with
// index -1, and an undirected graph without stored edge ids builds none for
// it and searches for none (a lower slot's index is a binary search).
//
// Schedules (traversal_options.hpp): host spaces keep the vertex loop (the
// frontier's entries in dynamic chunks); device spaces, on graphs with
// random-access adjacency, cut the frontier's edges into equal shares
// (edge_balanced: one scan of the frontier's degrees, then merge path), so a
// frontier holding a hub of 10^6 edges keeps every thread busy.
#include <tessera/graph/detail/degree_bins.hpp>
#include <tessera/graph/detail/merge_path.hpp>
#include <tessera/graph/primitives.hpp>
#include <tessera/graph/traversal_options.hpp>

#include <cstdint>
#include <string>

namespace tessera::graph {

namespace detail {
// f(u, e) for the edge at it (without its index where f reads none: graph_traits.hpp).
template <class F>
struct advance_sink {
  F f;
  template <class V, class It>
  TESSERA_INLINE_FUNCTION void operator()(const V& u, const It& it) const {
    f(u, visitor_edge<F>(it));
  }
};

// The vertex loop: entry i's edges on one thread.
template <class G, class Rows, class F>
struct advance_vertex_loop {
  G g;
  Rows rows;
  F f;
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t i) const {
    const auto u = rows(i);
    const auto edges = out_edges(u, g);
    for (auto it = edges.begin(); it != edges.end(); ++it) f(u, visitor_edge<F>(it));
  }
};

// advance's expansion of `count` rows (rows(i): a vertex) on g as given: the
// caller decides whether g carries stored edge indices (advance does, for
// f's get_edge_index; the job sets' sweeps read only targets and weights
// they already index).
template <class G, class Rows, class F>
void advance_rows(const std::string& label, const G& g, const Rows& rows, std::int64_t count, const F& f,
                  const traversal_options& opts) {
  using Exec = typename G::execution_space;
  if (count <= 0) return;
  const edge_schedule schedule = resolve_schedule<G>(opts);
  if constexpr (graph_traits<G>::random_access_adjacency) {
    if (schedule == edge_schedule::by_degree) {
      by_degree_for<Exec>(label, g, rows, count, advance_sink<F>{f}, opts);
      return;
    }
    if (schedule == edge_schedule::edge_balanced) {
      std::int64_t m = 0;
      auto offs = row_edge_offsets<Exec, typename G::memory_space>(g, rows, count, m);
      edge_balanced_for<Exec>(label, g, offs, rows, count, m, advance_sink<F>{f}, opts);
      return;
    }
  }
  tessera::parallel_for(label, tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, count, 64),
                        advance_vertex_loop<G, Rows, F>{g, rows, f});
}
}  // namespace detail

template <class G, class FV, class F>
void advance(const std::string& label, const G& graph, const FV& frontier, const F& f,
             const traversal_options& opts = {}) {
  static_assert(tessera::is_view_v<FV> && FV::rank == 1, "advance: the frontier is a rank-1 View of vertex ids");
  static_assert(tessera::SpaceAccessibility<typename G::execution_space, typename FV::memory_space>::accessible,
                "advance: the frontier must be readable from the graph's execution space");
  using V = typename graph_traits<G>::vertex_descriptor;
  const std::int64_t count = std::int64_t(frontier.extent(0));
  if (count == 0) return;
  const auto rows = detail::frontier_rows<V, FV>{frontier};
  if constexpr (detail::visitor_reads_edge_index_v<F>) {
    const G g = detail::with_stored_edge_indices(graph);  // f reads edges' indices in O(1)
    detail::advance_rows(label, g, rows, count, f, opts);
  } else {
    detail::advance_rows(label, graph, rows, count, f, opts);
  }
}
template <class G, class FV, class F>
  requires(!std::is_convertible_v<G, std::string>)
void advance(const G& g, const FV& frontier, const F& f, const traversal_options& opts = {}) {
  advance("graph::advance", g, frontier, f, opts);
}

}  // namespace tessera::graph
