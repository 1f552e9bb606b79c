#pragma once
// Parallel breadth-first search with visitors.
//
//   struct my_visitor : tessera::graph::default_bfs_visitor {
//     View<int*> hits;
//     template <class E, class G> TESSERA_INLINE_FUNCTION void tree_edge(const E& e, const G& g) const {...}
//   };
//   auto r = breadth_first_search(g, source, my_visitor{...});      // or a std::vector / View of sources
//
// Events (all const member templates; derive from default_bfs_visitor and
// define only those you need; the others cost nothing):
//   initialize_vertex(v, g)  every vertex, before the search (skipped when not defined)
//   discover_vertex(v, g)    v reached for the first time (sources first), after its tree_edge
//   examine_vertex(u, g)     u taken from the frontier, before its edges
//   examine_edge(e, g)       each out-edge of an examined vertex that passes filter
//   tree_edge(e, g)          the edge that discovered target(e)
//   non_tree_edge(e, g)      an examined edge whose target was already discovered (or lost the race to another edge)
//   finish_vertex(u, g)      after all of u's out-edges
//   filter(e, g) -> bool     false: the edge is ignored entirely (default: true)
//   color_test(v, g) -> bool false: v may not be discovered (default: true)
// Events of one level run in parallel; a vertex is discovered exactly once.
//
// Level-synchronous. Top-down steps balance work across edges, not vertices:
// the frontier's edge ranges are cut into equal chunks, so one vertex of
// degree 10^6 is spread over all threads. On undirected graphs, when the
// visitor does not define examine_edge, non_tree_edge or filter, the search
// switches to bottom-up steps when the frontier is large (Beamer's
// direction-optimizing BFS); tree_edge then reports the parent found
// bottom-up.
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/primitives.hpp>
#include <tessera/graph/property_map.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera::graph {

struct default_bfs_visitor {
  template <class V, class G>
  TESSERA_INLINE_FUNCTION void initialize_vertex(V, const G&) const {}
  template <class V, class G>
  TESSERA_INLINE_FUNCTION void discover_vertex(V, const G&) const {}
  template <class V, class G>
  TESSERA_INLINE_FUNCTION void examine_vertex(V, const G&) const {}
  template <class E, class G>
  TESSERA_INLINE_FUNCTION void examine_edge(const E&, const G&) const {}
  template <class E, class G>
  TESSERA_INLINE_FUNCTION void tree_edge(const E&, const G&) const {}
  template <class E, class G>
  TESSERA_INLINE_FUNCTION void non_tree_edge(const E&, const G&) const {}
  template <class V, class G>
  TESSERA_INLINE_FUNCTION void finish_vertex(V, const G&) const {}
  template <class E, class G>
  TESSERA_INLINE_FUNCTION bool filter(const E&, const G&) const {
    return true;
  }
  template <class V, class G>
  TESSERA_INLINE_FUNCTION bool color_test(V, const G&) const {
    return true;
  }
};

namespace detail {
// Whether Vis defines an event itself (rather than inheriting the empty one
// of default_bfs_visitor): a different member-pointer type, or a name that
// hides the base's template.
#define TESSERA_GRAPH_BFS_OVERRIDES(EVENT)                                                                  \
  template <class Vis, class A, class G, class = void>                                                      \
  struct overrides_##EVENT : std::true_type {};                                                             \
  template <class Vis, class A, class G>                                                                    \
  struct overrides_##EVENT<Vis, A, G, std::void_t<decltype(&Vis::template EVENT<A, G>)>>                    \
      : std::bool_constant<!std::is_same_v<decltype(&Vis::template EVENT<A, G>),                            \
                                           decltype(&default_bfs_visitor::template EVENT<A, G>)>> {};
TESSERA_GRAPH_BFS_OVERRIDES(initialize_vertex)
TESSERA_GRAPH_BFS_OVERRIDES(examine_vertex)
TESSERA_GRAPH_BFS_OVERRIDES(finish_vertex)
TESSERA_GRAPH_BFS_OVERRIDES(examine_edge)
TESSERA_GRAPH_BFS_OVERRIDES(non_tree_edge)
TESSERA_GRAPH_BFS_OVERRIDES(filter)
#undef TESSERA_GRAPH_BFS_OVERRIDES
}  // namespace detail

// Whether a visitor only needs vertex events and tree edges (so the search
// may run bottom-up).
template <class Vis, class G>
inline constexpr bool bfs_visitor_needs_edge_events_v =
    detail::overrides_examine_edge<Vis, typename graph_traits<G>::edge_descriptor, G>::value ||
    detail::overrides_non_tree_edge<Vis, typename graph_traits<G>::edge_descriptor, G>::value ||
    detail::overrides_filter<Vis, typename graph_traits<G>::edge_descriptor, G>::value;

enum class bfs_direction {
  automatic,  // direction-optimizing when allowed (undirected graph, visitor without per-edge events)
  top_down,   // always top-down
};

struct bfs_options {
  bfs_direction direction = bfs_direction::automatic;
  double alpha = 14.0;  // go bottom-up when frontier edges > unexplored edges / alpha
  double beta = 24.0;   // go back top-down when frontier vertices < n / beta
};

struct bfs_result {
  std::int64_t visited = 0;         // vertices discovered, sources included
  int levels = 0;                   // number of non-empty levels
  std::int64_t edges_traversed = 0; // edges looked at (top-down: frontier edges; bottom-up: edges scanned)
  int bottom_up_levels = 0;         // levels run bottom-up
};

// Ready-made visitors ---------------------------------------------------------

// parents[v]: the vertex that discovered v; sources are their own parent; -1 unreached.
template <class G, class S = typename G::space_type>
struct bfs_parents_visitor : default_bfs_visitor {
  using V = typename graph_traits<G>::vertex_descriptor;
  vertex_property_map<G, V, S> parents;
  explicit bfs_parents_visitor(const vertex_property_map<G, V, S>& p) : parents(p) {}
  template <class VV, class GG>
  TESSERA_INLINE_FUNCTION void initialize_vertex(VV v, const GG&) const { parents[v] = V(-1); }
  template <class E, class GG>
  TESSERA_INLINE_FUNCTION void tree_edge(const E& e, const GG& g) const { parents[target(e, g)] = source(e, g); }
  template <class VV, class GG>
  TESSERA_INLINE_FUNCTION void discover_vertex(VV v, const GG&) const {
    if (parents[v] == V(-1)) parents[v] = V(v);  // only sources get here without a tree edge
  }
};

// levels[v]: hops from the nearest source; -1 unreached.
template <class G, class T = std::int32_t, class S = typename G::space_type>
struct bfs_levels_visitor : default_bfs_visitor {
  vertex_property_map<G, T, S> levels;
  explicit bfs_levels_visitor(const vertex_property_map<G, T, S>& l) : levels(l) {}
  template <class VV, class GG>
  TESSERA_INLINE_FUNCTION void initialize_vertex(VV v, const GG&) const { levels[v] = T(-1); }
  template <class E, class GG>
  TESSERA_INLINE_FUNCTION void tree_edge(const E& e, const GG& g) const { levels[target(e, g)] = levels[source(e, g)] + 1; }
  template <class VV, class GG>
  TESSERA_INLINE_FUNCTION void discover_vertex(VV v, const GG&) const {
    if (levels[v] == T(-1)) levels[v] = 0;
  }
};

namespace detail {

template <class G, class Src>
tessera::View<typename graph_traits<G>::vertex_descriptor*, typename G::space_type> bfs_sources(const G& g, const Src& sources) {
  using V = typename graph_traits<G>::vertex_descriptor;
  using S = typename G::space_type;
  std::vector<std::int64_t> h;
  if constexpr (std::is_integral_v<Src>) {
    h.push_back(std::int64_t(sources));
  } else if constexpr (tessera::is_view_v<Src>) {
    auto m = tessera::create_mirror_view_and_copy(tessera::HostSpace(), sources);
    for (std::size_t i = 0; i < m.extent(0); ++i) h.push_back(std::int64_t(m(i)));
  } else {
    for (auto s : sources) h.push_back(std::int64_t(s));
  }
  const std::int64_t n = num_vertices(g);
  for (std::size_t i = 0; i < h.size(); ++i)
    if (h[i] < 0 || h[i] >= n)
      fail("breadth_first_search: source " + std::to_string(h[i]) + " (position " + std::to_string(i) +
           ") outside [0, " + std::to_string(n) + ")");
  return to_space<V, S>("graph::bfs::sources", h);
}

}  // namespace detail

template <class G, class Src, class Vis = default_bfs_visitor>
bfs_result breadth_first_search(const G& g, const Src& sources, const Vis& vis = Vis(), const bfs_options& opts = {}) {
  using Exec = typename G::execution_space;
  using S = typename G::space_type;
  using V = typename graph_traits<G>::vertex_descriptor;
  using E = typename graph_traits<G>::edge_descriptor;
  static_assert(std::is_base_of_v<default_bfs_visitor, Vis>, "a BFS visitor derives from tessera::graph::default_bfs_visitor");
  constexpr bool ex_vertex = detail::overrides_examine_vertex<Vis, V, G>::value;
  constexpr bool fin_vertex = detail::overrides_finish_vertex<Vis, V, G>::value;
  constexpr bool ex_edge = detail::overrides_examine_edge<Vis, E, G>::value;
  constexpr bool do_filter = detail::overrides_filter<Vis, E, G>::value;
  constexpr bool init_vertex = detail::overrides_initialize_vertex<Vis, V, G>::value;
  constexpr bool can_bottom_up = graph_traits<G>::is_undirected && !bfs_visitor_needs_edge_events_v<Vis, G>;
  const bool allow_bottom_up = can_bottom_up && opts.direction == bfs_direction::automatic;

  const std::int64_t n = num_vertices(g);
  auto src = detail::bfs_sources(g, sources);
  bfs_result res;
  if (n == 0) return res;

  tessera::View<std::int32_t*, S> depth(tessera::view_alloc("graph::bfs::depth", tessera::WithoutInitializing), n);
  tessera::View<V*, S> frontier(tessera::view_alloc("graph::bfs::frontier", tessera::WithoutInitializing), n);
  tessera::View<V*, S> next(tessera::view_alloc("graph::bfs::next", tessera::WithoutInitializing), n);
  tessera::View<std::int64_t*, S> offs(tessera::view_alloc("graph::bfs::offsets", tessera::WithoutInitializing), n + 1);
  tessera::View<std::int64_t*, S> counter("graph::bfs::counter", 1);
  tessera::parallel_for("graph::bfs::init", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) {
    depth(v) = -1;
    // Plain `if` on the constant (the call is compiled out all the same):
    // nvcc rejects an extended lambda whose first use of a captured variable
    // lies inside `if constexpr`. The event exists either way (the visitor's
    // or default_bfs_visitor's empty one).
    if (init_vertex) vis.initialize_vertex(V(v), g);
  });
  // Sources: level 0, each discovered once even when listed twice.
  const std::int64_t ns = std::int64_t(src.extent(0));
  tessera::parallel_for("graph::bfs::sources", tessera::RangePolicy<Exec>(0, ns), TESSERA_LAMBDA(std::int64_t i) {
    const V s = src(i);
    if (vis.color_test(s, g) && tessera::atomic_compare_exchange(&depth(s), std::int32_t(-1), std::int32_t(0)) == -1) {
      vis.discover_vertex(s, g);
      frontier(tessera::atomic_fetch_add(&counter(0), std::int64_t(1))) = s;
    }
  });
  std::int64_t fsize = detail::read_one(counter, 0);
  res.visited = fsize;

  // Edges still to be explored (for the direction heuristic): all stored edges
  // minus those of vertices already expanded.
  std::int64_t unexplored = 0;
  if (allow_bottom_up)
    reduce_vertices("graph::bfs::edges", g, TESSERA_LAMBDA(V v, std::int64_t & s) { s += out_degree(v, g); }, unexplored);

  bool bottom_up = false;
  std::int32_t level = 0;
  const std::int64_t chunk = 256;  // edges per work item in top-down steps
  while (fsize > 0) {
    ++res.levels;
    std::int64_t fedges = 0;
    if (!bottom_up) {
      // Frontier edge offsets: the load-balancing index.
      tessera::parallel_scan(
          "graph::bfs::frontier_scan", tessera::RangePolicy<Exec>(0, fsize + 1),
          TESSERA_LAMBDA(std::int64_t i, std::int64_t & u, bool fin) {
            const std::int64_t d = i < fsize ? out_degree(frontier(i), g) : 0;
            if (fin) offs(i) = u;
            u += d;
          },
          fedges);
      if (allow_bottom_up && double(fedges) > double(unexplored) / opts.alpha && fsize > 0) bottom_up = true;
    }

    if constexpr (ex_vertex) {
      if (!bottom_up)
        tessera::parallel_for("graph::bfs::examine_vertex", tessera::RangePolicy<Exec>(0, fsize),
                              TESSERA_LAMBDA(std::int64_t i) { vis.examine_vertex(frontier(i), g); });
    }

    detail::write_one(counter, 0, std::int64_t(0));
    const std::int32_t nl = level + 1;
    if (!bottom_up) {
      res.edges_traversed += fedges;
      unexplored -= fedges;
      auto step = TESSERA_LAMBDA(const V u, const E& e) {
        (void)u;
        // Plain `if`s on the constants, as in the init kernel.
        if (do_filter && !vis.filter(e, g)) return;
        if (ex_edge) vis.examine_edge(e, g);
        const V w = target(e, g);
        if (tessera::atomic_load(&depth(w)) == -1 && vis.color_test(w, g) &&
            tessera::atomic_compare_exchange(&depth(w), std::int32_t(-1), nl) == -1) {
          vis.tree_edge(e, g);
          vis.discover_vertex(w, g);
          next(tessera::atomic_fetch_add(&counter(0), std::int64_t(1))) = w;
        } else {
          vis.non_tree_edge(e, g);
        }
      };
      if constexpr (graph_traits<G>::random_access_adjacency) {
        const std::int64_t nchunks = (fedges + chunk - 1) / chunk;
        tessera::parallel_for("graph::bfs::top_down", tessera::RangePolicy<Exec>(0, nchunks), TESSERA_LAMBDA(std::int64_t c) {
          const std::int64_t lo = c * chunk, hi = lo + chunk < fedges ? lo + chunk : fedges;
          std::int64_t i = detail::upper_bound_minus_one(offs.data(), std::int64_t(0), fsize, lo);
          std::int64_t k = lo;
          while (k < hi) {
            const V u = frontier(i);
            const auto r = out_edges(u, g);
            const std::int64_t base = offs(i);
            const std::int64_t end = offs(i + 1) < hi ? offs(i + 1) : hi;
            for (; k < end; ++k) step(u, r[k - base]);
            ++i;
          }
        });
      } else {
        tessera::parallel_for("graph::bfs::top_down",
                              tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, fsize, 16),
                              TESSERA_LAMBDA(std::int64_t i) {
                                const V u = frontier(i);
                                for (const auto& e : out_edges(u, g)) step(u, e);
                              });
      }
      if constexpr (fin_vertex)
        tessera::parallel_for("graph::bfs::finish_vertex", tessera::RangePolicy<Exec>(0, fsize),
                              TESSERA_LAMBDA(std::int64_t i) { vis.finish_vertex(frontier(i), g); });
      fsize = detail::read_one(counter, 0);
      std::swap(frontier, next);
    } else {
      ++res.bottom_up_levels;
      if constexpr (ex_vertex)
        forall_vertices("graph::bfs::examine_vertex_bu", g, TESSERA_LAMBDA(V v) {
          if (tessera::atomic_load(&depth(v)) == level) vis.examine_vertex(v, g);
        });
      // Every unvisited vertex looks for a parent on the current level.
      std::int64_t found = 0, scanned = 0;
      tessera::parallel_reduce(
          "graph::bfs::bottom_up", detail::make_vertex_policy(g, 256),
          TESSERA_LAMBDA(std::int64_t vi, std::int64_t & cnt, std::int64_t & sc) {
            const V v = V(vi);
            if (tessera::atomic_load(&depth(v)) != -1 || !vis.color_test(v, g)) return;
            for (const auto& e : out_edges(v, g)) {
              ++sc;
              const V u = target(e, g);
              if (tessera::atomic_load(&depth(u)) == level) {
                tessera::atomic_store(&depth(v), nl);
                E te = e;  // undirected: the same edge seen from u
                te.src = u;
                te.tgt = v;
                vis.tree_edge(te, g);
                vis.discover_vertex(v, g);
                ++cnt;
                break;
              }
            }
          },
          tessera::Sum<std::int64_t>(found), tessera::Sum<std::int64_t>(scanned));
      res.edges_traversed += scanned;
      if constexpr (fin_vertex)
        forall_vertices("graph::bfs::finish_vertex_bu", g, TESSERA_LAMBDA(V v) {
          if (tessera::atomic_load(&depth(v)) == level) vis.finish_vertex(v, g);
        });
      fsize = found;
      if (double(fsize) < double(n) / opts.beta || fsize == 0) {
        // Back to top-down: list the new frontier.
        bottom_up = false;
        forall_vertices("graph::bfs::collect", g, TESSERA_LAMBDA(V v) {
          if (depth(v) == nl) frontier(tessera::atomic_fetch_add(&counter(0), std::int64_t(1))) = v;
        });
        // The explored-edge estimate is only used to enter bottom-up again.
        reduce_vertices("graph::bfs::unexplored", g,
                        TESSERA_LAMBDA(V v, std::int64_t & s) { if (depth(v) == -1) s += out_degree(v, g); }, unexplored);
      }
    }
    res.visited += fsize;
    ++level;
  }
  return res;
}

}  // namespace tessera::graph
