#pragma once
// oriented_graph: the degree-ordered orientation of an undirected graph, and
// the one triangle kernel every miniTri method runs on it.
//
//   auto og = analytics::orient(g);                       // g: undirected CSR graph
//   analytics::for_each_triangle_in_row(og, u, f);         // f(t) for each triangle owned by u
//
// Each edge {u, w} is kept once, from the endpoint of lower rank, where
// rank(v) = (degree(v), v). Every triangle then has exactly one owner (its
// lowest-ranked vertex u), is found once (from u, through its middle vertex
// v, as a common out-neighbour w of u and v), and no out-list is longer than
// sqrt(2m): hubs only receive edges (Schank and Wagner 2005; Latapy 2008).
// The out-lists keep id order, so two of them intersect by a sorted merge.
//
// A triangle's edges (triangle::e) are numbered one of two ways. graph_edges
// (the default): g's undirected edge indices, stored per slot; when g keeps
// no edge ids, finding one takes a binary search in the other endpoint's
// row for half the slots (0.47 of oregon's 0.77 ms orientation). slots: the
// orientation's own slots, 0..m-1, one per edge of the simple graph, with
// nothing stored; miniTri counts t_e this way and translates to g's edge
// indices (slots_to_edge_indices) only when the degrees are kept.
#include <tessera/analytics/triangle.hpp>
#include <tessera/graph.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::analytics {

enum class edge_numbering { graph_edges, slots };

template <class Exec, class V, class E>
struct oriented_graph {
  using execution_space = Exec;
  using vertex_type = V;
  using edge_index_type = E;
  std::int64_t n = 0;
  std::int64_t m = 0;                 // undirected edges (= out-slots)
  tessera::View<E*, Exec> row_map;    // n + 1 offsets
  tessera::View<V*, Exec> entries;    // out-neighbours of each vertex, sorted by id
  tessera::View<E*, Exec> edge_ids;   // g's undirected edge index of each slot (empty: edge_numbering::slots)

  // Bytes of the arrays (what the orientation adds to the input graph).
  std::int64_t bytes() const {
    const std::int64_t id_bytes = edge_ids.data() != nullptr ? std::int64_t(sizeof(E)) : 0;
    return std::int64_t(sizeof(E)) * (n + 1) + (std::int64_t(sizeof(V)) + id_bytes) * m;
  }
};

namespace detail {

// rank(a) < rank(b): lower degree first, ties by id; a strict total order.
template <class G, class V>
TESSERA_INLINE_FUNCTION bool ranks_below(const G& g, V a, V b) {
  const auto da = g.out_degree(a), db = g.out_degree(b);
  return da < db || (da == db && a < b);
}

template <class G>
struct count_out_functor {
  using V = typename G::vertex_descriptor;
  using E = typename G::edge_index_type;
  G g;
  tessera::View<E*, typename G::execution_space> cnt;
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t ui) const {
    const V u = V(ui);
    E c = 0;
    V prev = V(-1);
    for (auto w : g.adjacent(u)) {
      // A graph built without build_options::simple() may hold loops and
      // repeated edges: the simple graph's triangles are what miniTri counts.
      if (w != u && w != prev && ranks_below(g, u, w)) ++c;
      prev = w;
    }
    cnt(ui) = c;
  }
};

// Writes each kept slot's out-neighbour and g's edge index, either of which
// may be an empty View (not written).
template <class G>
struct fill_out_functor {
  using V = typename G::vertex_descriptor;
  using E = typename G::edge_index_type;
  using Exec = typename G::execution_space;
  G g;
  tessera::View<E*, Exec> row_map;
  tessera::View<V*, Exec> entries;
  tessera::View<E*, Exec> edge_ids;
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t ui) const {
    const V u = V(ui);
    E k = row_map(ui);
    const E* rm = g.row_map_data();
    const V* adj = g.entries_data();
    V prev = V(-1);
    for (E j = rm[ui]; j < rm[ui + 1]; ++j) {
      const V w = adj[j];
      const bool keep = w != u && w != prev && ranks_below(g, u, w);  // as in count_out_functor
      prev = w;
      if (!keep) continue;
      if (entries.data() != nullptr) entries(k) = w;
      if (edge_ids.data() != nullptr) edge_ids(k) = g.slot_edge_index(u, j);
      ++k;
    }
  }
};

}  // namespace detail

// The orientation of an undirected CSR graph, built on the graph's execution
// space. Self-loops and repeated edges of g are skipped (the simple graph).
template <class G>
oriented_graph<typename G::execution_space, typename G::vertex_descriptor, typename G::edge_index_type> orient(
    const G& g, edge_numbering numbering = edge_numbering::graph_edges) {
  static_assert(tessera::graph::graph_traits<G>::is_undirected, "miniTri needs an undirected graph");
  using Exec = typename G::execution_space;
  using V = typename G::vertex_descriptor;
  using E = typename G::edge_index_type;
  oriented_graph<Exec, V, E> og;
  og.n = g.num_vertices();
  og.row_map = tessera::View<E*, Exec>("analytics::oriented::row_map", og.n + 1);
  tessera::parallel_for("analytics::orient::count",
                        tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, og.n, 256),
                        detail::count_out_functor<G>{g, og.row_map});
  og.m = std::int64_t(tessera::graph::detail::exclusive_scan_inplace<Exec>("analytics::orient::scan", og.row_map, og.n));
  og.entries = tessera::View<V*, Exec>(tessera::view_alloc("analytics::oriented::entries", tessera::WithoutInitializing), og.m);
  if (numbering == edge_numbering::graph_edges)
    og.edge_ids = tessera::View<E*, Exec>(
        tessera::view_alloc("analytics::oriented::edge_ids", tessera::WithoutInitializing), og.m);
  tessera::parallel_for("analytics::orient::fill",
                        tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, og.n, 256),
                        detail::fill_out_functor<G>{g, og.row_map, og.entries, og.edge_ids});
  tessera::fence("analytics::orient");
  return og;
}

namespace detail {
// g's undirected edge index of each slot of og (an orientation of g), as
// orient(g, edge_numbering::graph_edges) stores them.
template <class G, class OG>
tessera::View<typename OG::edge_index_type*, typename OG::execution_space> slot_edge_ids(const G& g, const OG& og) {
  using Exec = typename OG::execution_space;
  using E = typename OG::edge_index_type;
  tessera::View<E*, Exec> ids(tessera::view_alloc("analytics::oriented::edge_ids", tessera::WithoutInitializing),
                              og.m);
  tessera::parallel_for("analytics::orient::edge_ids",
                        tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, og.n, 256),
                        fill_out_functor<G>{g, og.row_map, tessera::View<typename OG::vertex_type*, Exec>(), ids});
  tessera::fence("analytics::orient::edge_ids");
  return ids;
}

// t_e by the orientation's slot -> t_e by g's edge index (edges of g that no
// slot names, the repeats of an edge, get 0: the simple graph's triangles).
template <class G, class OG>
void slots_to_edge_indices(const G& g, const OG& og, std::vector<std::int64_t>& te) {
  const auto ids = tessera::create_mirror_view_and_copy(
      tessera::HostSpace(), og.edge_ids.data() != nullptr ? og.edge_ids : slot_edge_ids(g, og));
  std::vector<std::int64_t> by_edge(std::size_t(g.num_edges()), 0);
  for (std::int64_t s = 0; s < og.m; ++s) by_edge[std::size_t(ids(s))] = te[std::size_t(s)];
  te = std::move(by_edge);
}
}  // namespace detail

// Calls f(t) for every triangle t owned by u (u is its lowest-ranked vertex):
// for each out-neighbour v of u, the common out-neighbours w of u and v, by a
// sorted merge. Returns the number of triangles. Callable in kernels and tasks.
// t.e holds g's edge indices or the orientation's slots (edge_numbering).
template <class OG, class F>
TESSERA_INLINE_FUNCTION std::int64_t for_each_triangle_in_row(const OG& og, std::int64_t u, const F& f) {
  using V = typename OG::vertex_type;
  using E = typename OG::edge_index_type;
  const V* adj = og.entries.data();
  const E* ids = og.edge_ids.data();  // null: the slots number the edges
  const E ub = og.row_map(u), ue = og.row_map(u + 1);
  std::int64_t found = 0;
  for (E j = ub; j < ue; ++j) {
    const V v = adj[j];
    const E e_uv = ids != nullptr ? ids[j] : j;
    E a = ub, b = og.row_map(v);
    const E be = og.row_map(v + 1);
    while (a < ue && b < be) {
      const V x = adj[a], y = adj[b];
      if (x < y) {
        ++a;
      } else if (y < x) {
        ++b;
      } else {
        f(triangle<V, E>{{V(u), v, x}, {e_uv, ids != nullptr ? ids[a] : a, ids != nullptr ? ids[b] : b}});
        ++found;
        ++a;
        ++b;
      }
    }
  }
  return found;
}

}  // namespace tessera::analytics
