#pragma once
// Triangles of an undirected graph.
//
//   auto t = count_triangles(g);
//   find_triangles(g, TESSERA_LAMBDA(V u, V v, V w) { ... });   // each triangle once, u < v < w; returns the count
//
// For every u, every neighbour v > u, the neighbours w > v common to u and v
// are found by merging the two sorted lists. Needs sorted adjacency (every
// graph of this library has it); self-loops and repeated edges are skipped,
// so a multigraph counts its underlying simple triangles.
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/primitives.hpp>

#include <cstdint>

namespace tessera::graph {

namespace detail {
struct no_triangle_visitor {
  template <class V>
  TESSERA_INLINE_FUNCTION void operator()(V, V, V) const {}
};
}  // namespace detail

template <class G, class Visitor>
std::int64_t find_triangles(const G& g, const Visitor& visit) {
  static_assert(graph_traits<G>::is_undirected, "find_triangles needs an undirected graph");
  static_assert(graph_traits<G>::sorted_adjacency, "find_triangles needs sorted adjacency lists");
  using V = typename graph_traits<G>::vertex_descriptor;
  std::int64_t count = 0;
  tessera::parallel_reduce(
      "graph::triangles", detail::make_vertex_policy(g, 16),
      TESSERA_LAMBDA(std::int64_t ui, std::int64_t & cnt) {
        const V u = V(ui);
        const auto ru = adjacent_vertices(u, g);
        const auto eu = ru.end();
        V prev = V(-1);
        for (auto it = ru.begin(); it != eu; ++it) {
          const V v = *it;
          if (v <= u || v == prev) continue;
          prev = v;
          auto a = it;
          ++a;
          const auto rv = adjacent_vertices(v, g);
          auto b = rv.begin();
          const auto eb = rv.end();
          if constexpr (graph_traits<G>::random_access_adjacency) {
            // Jump past the neighbours of v that are <= v.
            b = rv.begin() + (detail::lower_bound(rv.begin(), std::int64_t(0), rv.size(), V(v + 1)));
          } else {
            while (b != eb && *b <= v) ++b;
          }
          while (a != eu && b != eb) {
            const V x = *a, y = *b;
            if (x < y) ++a;
            else if (y < x) ++b;
            else {
              visit(u, v, x);
              ++cnt;
              while (a != eu && *a == x) ++a;
              while (b != eb && *b == x) ++b;
            }
          }
        }
      },
      count);
  return count;
}

template <class G>
std::int64_t count_triangles(const G& g) {
  return find_triangles(g, detail::no_triangle_visitor{});
}

}  // namespace tessera::graph
