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
// A visitor that never reads get_edge_index(e, g) may say so with
// `static constexpr bool reads_edge_index = false;`: its edges then come with
// id -1, which spares an undirected CSR graph without stored edge ids a
// search per event (bfs_parents_visitor and bfs_levels_visitor do).
//
// Level-synchronous. Top-down steps balance work across edges, not vertices:
// the frontier's edge ranges are cut into equal chunks, so one vertex of
// degree 10^6 is spread over all threads. On undirected graphs, when the
// visitor does not define examine_edge, non_tree_edge or filter, the search
// switches to bottom-up steps when the frontier is large (Beamer's
// direction-optimizing BFS); tree_edge then reports the parent found
// bottom-up.
//
// The level loop is controlled from the host on every space. A device-side
// control (detail/bfs_device_levels.hpp: the host reads the search's state
// every 8 levels instead of three or four times per level) gives the same
// levels, parents and bfs_result, but measured slower on an H200 (see
// default_bfs_control).
#include <tessera/graph/detail/bfs_device_levels.hpp>
#include <tessera/graph/detail/bfs_queue_buffer.hpp>
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
TESSERA_GRAPH_BFS_OVERRIDES(tree_edge)
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
  // Host spaces: a top-down level with fewer frontier edges runs on the
  // calling thread, without a parallel region.
  std::int64_t inline_edges = 1024;
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
  static constexpr bool reads_edge_index = false;
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
  static constexpr bool reads_edge_index = false;
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

// Direction-optimizing BFS (Beamer, Asanovic, Patterson, "Direction-Optimizing
// Breadth-First Search", SC 2012), written on the generic graph API.
//
// State: a visited bitmap (n bits: it stays in cache where an n-word depth
// array would not), a frontier queue for top-down steps and a frontier bitmap
// for bottom-up steps. Top-down: frontier vertices claim unvisited neighbours
// with one atomic OR on the visited word; each work item queues what it
// discovers in batches. Bottom-up: each work item owns 64 vertices (one word
// of the bitmaps), so it tests and sets their bits without atomics; an
// unvisited vertex scans its edges for a neighbour in the frontier bitmap and
// stops at the first. The switch: go bottom-up when the frontier's edges
// exceed the unexplored edges / alpha; come back when the frontier shrinks
// below n / beta. Top-down steps balance edges, not vertices, when one
// frontier vertex holds a large share of the level's edges.
namespace detail {
// Calls f(v) for every vertex v whose bit is set in the bitmap words
// bits(0) .. bits(nw - 1). A named function template, not a generic lambda
// in the caller: nvcc refuses a device lambda defined inside a generic lambda.
template <class Exec, class V, class Bits, class F>
void for_each_set_bit(const char* label, std::int64_t nw, const Bits& bits, const F& f) {
  tessera::parallel_for(label, tessera::RangePolicy<Exec>(0, nw), TESSERA_LAMBDA(std::int64_t w) {
    for (std::uint64_t x = bits(w); x; x &= x - 1) f(V(w * 64 + lowest_bit(x)));
  });
}
}  // namespace detail

namespace detail {
// breadth_first_search() with where the level loop is controlled named
// (tests run the GPU's choice on host spaces).
template <BfsControl Control, class G, class Src, class Vis>
bfs_result breadth_first_search_with(const G& g, const Src& sources, const Vis& vis, const bfs_options& opts);
}  // namespace detail

template <class G, class Src, class Vis = default_bfs_visitor>
bfs_result breadth_first_search(const G& g, const Src& sources, const Vis& vis = Vis(), const bfs_options& opts = {}) {
  return detail::breadth_first_search_with<detail::default_bfs_control<typename G::execution_space>>(g, sources, vis, opts);
}

template <detail::BfsControl Control, class G, class Src, class Vis>
bfs_result detail::breadth_first_search_with(const G& graph, const Src& sources, const Vis& vis, const bfs_options& opts) {
  // A visitor that reads the index of edges on a per-edge event (filter,
  // examine_edge, non_tree_edge) is handed up to three descriptors per edge:
  // it runs on the graph with its indices stored (built once per graph), not
  // on one that computes a lower slot's index by a search each time. Tree
  // edges alone (n - 1 of them) are cheaper to compute than the array.
  const G g = visitor_reads_edge_index_v<Vis> && bfs_visitor_needs_edge_events_v<Vis, G>
                  ? with_stored_edge_indices(graph)
                  : graph;
  using Exec = typename G::execution_space;
  using S = typename G::space_type;
  using V = typename graph_traits<G>::vertex_descriptor;
  using E = typename graph_traits<G>::edge_descriptor;
  using W = std::uint64_t;
  static_assert(std::is_base_of_v<default_bfs_visitor, Vis>, "a BFS visitor derives from tessera::graph::default_bfs_visitor");
  constexpr bool ex_vertex = detail::overrides_examine_vertex<Vis, V, G>::value;
  constexpr bool fin_vertex = detail::overrides_finish_vertex<Vis, V, G>::value;
  constexpr bool ex_edge = detail::overrides_examine_edge<Vis, E, G>::value;
  constexpr bool on_tree_edge = detail::overrides_tree_edge<Vis, E, G>::value;
  constexpr bool on_non_tree_edge = detail::overrides_non_tree_edge<Vis, E, G>::value;
  constexpr bool do_filter = detail::overrides_filter<Vis, E, G>::value;
  constexpr bool init_vertex = detail::overrides_initialize_vertex<Vis, V, G>::value;
  constexpr bool can_bottom_up = graph_traits<G>::is_undirected && !bfs_visitor_needs_edge_events_v<Vis, G>;
  const bool allow_bottom_up = can_bottom_up && opts.direction == bfs_direction::automatic;

  const std::int64_t n = num_vertices(g);
  auto src = detail::bfs_sources(g, sources);
  bfs_result res;
  if (n == 0) return res;
  const std::int64_t nw = (n + 63) / 64;
  const std::int64_t conc = std::int64_t(Exec().concurrency());

  constexpr bool host = tessera::is_host_execution_space<Exec>::value;
  // Every parallel region costs a barrier, which on a loaded machine can cost
  // a descheduled thread's time slice: the arrays are zeroed in one pass and
  // the sources are placed on the calling thread of a host space.
  tessera::View<W*, S> visited(tessera::view_alloc("graph::bfs::visited", tessera::WithoutInitializing), nw);
  tessera::View<V*, S> frontier(tessera::view_alloc("graph::bfs::frontier", tessera::WithoutInitializing), n);
  tessera::View<V*, S> next(tessera::view_alloc("graph::bfs::next", tessera::WithoutInitializing), n);
  tessera::View<std::int64_t*, S> counter(tessera::view_alloc("graph::bfs::counter", tessera::WithoutInitializing), 1);
  tessera::View<std::int64_t*, S> offs;  // frontier edge offsets, for edge-balanced steps
  tessera::View<W*, S> front, front_next;  // bitmaps of bottom-up steps
  if (allow_bottom_up) {
    front = tessera::View<W*, S>(tessera::view_alloc("graph::bfs::front", tessera::WithoutInitializing), nw);
    front_next = tessera::View<W*, S>(tessera::view_alloc("graph::bfs::front_next", tessera::WithoutInitializing), nw);
  }
  detail::write_one(counter, 0, std::int64_t(0));
  {
    auto fr = front;
    const bool zero_front = allow_bottom_up;
    tessera::parallel_for("graph::bfs::init", tessera::RangePolicy<Exec>(0, init_vertex ? n : nw), TESSERA_LAMBDA(std::int64_t i) {
      // Plain `if`s on the constants: nvcc rejects an extended lambda whose
      // first use of a captured variable lies inside `if constexpr`.
      if (init_vertex) {
        vis.initialize_vertex(V(i), g);
        if (i & 63) return;
      }
      const std::int64_t w = init_vertex ? i >> 6 : i;
      visited(w) = 0;
      if (zero_front) fr(w) = 0;
    });
  }
  bool front_zero = true;  // front holds no bits yet
  // Sources: level 0, each discovered once even when listed twice.
  const std::int64_t ns = std::int64_t(src.extent(0));
  auto place_source = TESSERA_LAMBDA(std::int64_t i) {
    const V s = src(i);
    const W bit = W(1) << (std::uint64_t(s) & 63);
    if (vis.color_test(s, g) && !(tessera::atomic_fetch_or(&visited(std::int64_t(s) >> 6), bit) & bit)) {
      vis.discover_vertex(s, g);
      frontier(tessera::atomic_fetch_add(&counter(0), std::int64_t(1))) = s;
    }
  };
  if constexpr (host) {
    for (std::int64_t i = 0; i < ns; ++i) place_source(i);
  } else {
    tessera::parallel_for("graph::bfs::sources", tessera::RangePolicy<Exec>(0, ns), place_source);
  }
  if constexpr (Control == detail::BfsControl::device) {
    const auto c = detail::bfs_device_levels<Exec, ex_vertex, fin_vertex, ex_edge, do_filter, on_tree_edge,
                                                    on_non_tree_edge>(
        g, vis, opts.alpha, opts.beta, allow_bottom_up, ns, frontier, next, visited, front, front_next, counter);
    res.visited = c.visited;
    res.levels = int(c.levels);
    res.edges_traversed = c.edges;
    res.bottom_up_levels = int(c.bottom_up_levels);
    return res;
  }
  std::int64_t fsize = detail::read_one(counter, 0);
  res.visited = fsize;

  // Edges not yet explored, for the direction heuristic: every stored edge
  // (2m bounds the degree sum of an undirected graph) minus those of the
  // vertices discovered so far.
  std::int64_t unexplored = allow_bottom_up ? 2 * std::int64_t(num_edges(g)) : 0;
  // The frontier's edges and its largest degree (from the step that found it;
  // unknown for the sources, which take the edge-balanced path).
  std::int64_t fedges = -1, fmaxdeg = 0;
  bool bottom_up = false;
  bool returned = false;  // back from bottom-up: take one top-down step before deciding again
  std::int64_t prev_found = 0;

  while (fsize > 0) {
    ++res.levels;
    if (!bottom_up && allow_bottom_up && !returned && fedges >= 0 && double(fedges) > double(unexplored) / opts.alpha) {
      // Frontier queue -> bitmap.
      bottom_up = true;
      if (!front_zero) detail::fill<Exec>(front, W(0));
      front_zero = false;
      tessera::parallel_for("graph::bfs::to_bitmap", tessera::RangePolicy<Exec>(0, fsize), TESSERA_LAMBDA(std::int64_t i) {
        const V v = frontier(i);
        tessera::atomic_fetch_or(&front(std::int64_t(v) >> 6), W(1) << (std::uint64_t(v) & 63));
      });
      prev_found = fsize;
    }
    if (fedges >= 0) unexplored -= fedges;
    returned = false;

    if (!bottom_up) {
      if constexpr (ex_vertex)
        tessera::parallel_for("graph::bfs::examine_vertex", tessera::RangePolicy<Exec>(0, fsize),
                              TESSERA_LAMBDA(std::int64_t i) { vis.examine_vertex(frontier(i), g); });
      detail::zero_queued<Exec>(counter);
      // Claims the target w of the edge at `it`. The edge's descriptor (*it)
      // is built only for the events the visitor defines: its index may
      // cost a search (an undirected CSR graph without stored edge ids).
      using buffer = detail::bfs_queue_buffer<V, tessera::View<V*, S>, tessera::View<std::int64_t*, S>, host ? 512 : 32>;
      using edge_iter = decltype(out_edges(V(0), g).begin());
      auto visit = TESSERA_LAMBDA(const edge_iter& it, buffer& out, std::int64_t& found, std::int64_t& scout,
                                  std::int64_t& maxdeg) {
        // Plain `if`s on the constants: nvcc rejects an extended lambda whose
        // first use of a captured variable lies inside `if constexpr`.
        if (do_filter && !vis.filter(detail::visitor_edge<Vis>(it), g)) return;
        if (ex_edge) vis.examine_edge(detail::visitor_edge<Vis>(it), g);
        const V w = detail::edge_target(it, g);
        const std::int64_t word = std::int64_t(w) >> 6;
        const W bit = W(1) << (std::uint64_t(w) & 63);
        if (!(detail::load_relaxed(&visited(word)) & bit) && vis.color_test(w, g) &&
            !(tessera::atomic_fetch_or(&visited(word), bit) & bit)) {
          if (on_tree_edge) vis.tree_edge(detail::visitor_edge<Vis>(it), g);
          vis.discover_vertex(w, g);
          out.push(w);
          ++found;
          const std::int64_t d = out_degree(w, g);
          scout += d;
          if (d > maxdeg) maxdeg = d;
        } else if (on_non_tree_edge) {
          vis.non_tree_edge(detail::visitor_edge<Vis>(it), g);
        }
      };
      // The level's discoveries come back with its other sums, so the next
      // frontier's size needs no read of the queue's tail (a round trip on
      // a GPU, where a 2048^2 grid has about 4,100 levels).
      std::int64_t found = 0, scout = 0, maxdeg = 0;
      // Edge-balanced when one frontier vertex holds a large share of the
      // level's edges. On a GPU from degree 64: a thread per vertex walks its
      // edges one after another, so a vertex of a few hundred edges would set
      // the level's time, where the prefix sum costs one more round trip.
      constexpr std::int64_t heavy_degree = host ? 1024 : 64;
      const bool heavy = fedges < 0 || (fmaxdeg > heavy_degree && fmaxdeg * 8 * conc > fedges);
      bool balanced = false;
      if constexpr (graph_traits<G>::random_access_adjacency) balanced = heavy;
      if constexpr (graph_traits<G>::random_access_adjacency) {
        if (balanced) {
          // Edge-balanced: the frontier's edge ranges cut into equal chunks, so
          // one vertex of degree 10^6 is spread over all threads.
          if (offs.extent(0) == 0)
            offs = tessera::View<std::int64_t*, S>(tessera::view_alloc("graph::bfs::offsets", tessera::WithoutInitializing), n + 1);
          std::int64_t total = 0;
          auto scan = TESSERA_LAMBDA(std::int64_t i, std::int64_t & u, bool fin) {
            const std::int64_t d = i < fsize ? out_degree(frontier(i), g) : 0;
            if (fin) offs(i) = u;
            u += d;
          };
          if (host && fsize <= 4096) {
            for (std::int64_t i = 0; i <= fsize; ++i) scan(i, total, true);
          } else {
            tessera::parallel_scan("graph::bfs::frontier_scan", tessera::RangePolicy<Exec>(0, fsize + 1), scan, total);
          }
          if (fedges < 0) unexplored -= total;
          fedges = total;
          // Edges per work item: on a GPU a thread walks its chunk one
          // edge after another, each discovery an atomic, so chunks are short
          // there and many threads share a hub.
          constexpr std::int64_t chunk = host ? 256 : 16;
          const std::int64_t nchunks = (total + chunk - 1) / chunk;
          tessera::parallel_reduce(
              "graph::bfs::top_down_edges", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, nchunks, 1),
              TESSERA_LAMBDA(std::int64_t c, std::int64_t & fd, std::int64_t & sc, std::int64_t & mx) {
                buffer out(next, counter);
                const std::int64_t lo = c * chunk, hi = lo + chunk < total ? lo + chunk : total;
                std::int64_t i = detail::upper_bound_minus_one(offs.data(), std::int64_t(0), fsize, lo);
                std::int64_t k = lo;
                while (k < hi) {
                  const V u = frontier(i);
                  const auto r = out_edges(u, g);
                  const std::int64_t base = offs(i);
                  const std::int64_t end = offs(i + 1) < hi ? offs(i + 1) : hi;
                  for (; k < end; ++k) visit(r.begin() + (k - base), out, fd, sc, mx);
                  ++i;
                }
                out.flush();
              },
              tessera::Sum<std::int64_t>(found), tessera::Sum<std::int64_t>(scout), tessera::Max<std::int64_t>(maxdeg));
        }
      }
      if (!balanced) {
        if (fedges < 0) {  // sources on a graph without random access: count their edges here
          std::int64_t total = 0;
          tessera::parallel_reduce(
              "graph::bfs::frontier_edges", tessera::RangePolicy<Exec>(0, fsize),
              TESSERA_LAMBDA(std::int64_t i, std::int64_t & s) { s += out_degree(frontier(i), g); }, total);
          unexplored -= total;
          fedges = total;
        }
        // Blocks of frontier vertices, handed out dynamically. A level with
        // few edges runs on the calling thread: a parallel region and its
        // barrier cost more than the level (high-diameter graphs have
        // thousands of such levels).
        // Blocks of about half a thread's share. Each block costs a take from
        // the shared counter and an append to the shared queue, and moves its
        // vertices' cache lines to whichever thread takes it; where the cores
        // talk slowly (across chiplets or sockets) that traffic set a small
        // level's time: the 2048^2 grid (4,093 levels of about 1,000
        // vertices) took 145 ms on two such cores with blocks of 1/8 of a
        // share, 107 ms with 1/2 and 74 ms on one thread; 55 vs 48 ms where
        // they talk fast (this 2-core VM in its two states). Two blocks per
        // thread still balance uneven degrees, and a frontier dominated by a
        // hub takes the edge-balanced path above. One thread: one block.
        // On a GPU, a vertex per thread: blocks of 32 (the host's least)
        // made each thread walk 32 vertices' edges one after another, each
        // discovery an atomic, which set a small frontier's level time.
        std::int64_t block = 1;
        if constexpr (host) {
          block = conc == 1 ? fsize : fsize / (2 * conc);
          block = block < 32 ? 32 : block > 4096 ? 4096 : block;
        }
        const std::int64_t nblocks = (fsize + block - 1) / block;
        auto td_block = TESSERA_LAMBDA(std::int64_t b, std::int64_t & fd, std::int64_t & sc, std::int64_t & mx) {
          buffer out(next, counter);
          const std::int64_t hi = (b + 1) * block < fsize ? (b + 1) * block : fsize;
          for (std::int64_t i = b * block; i < hi; ++i) {
            const auto r = out_edges(frontier(i), g);
            for (auto it = r.begin(); it != r.end(); ++it) visit(it, out, fd, sc, mx);
          }
          out.flush();
        };
        bool inline_level = false;
        if constexpr (tessera::is_host_execution_space<Exec>::value) inline_level = fedges < opts.inline_edges;
        if (inline_level) {
          for (std::int64_t b = 0; b < nblocks; ++b) td_block(b, found, scout, maxdeg);
        } else {
          tessera::parallel_reduce("graph::bfs::top_down",
                                   tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, nblocks, 1), td_block,
                                   tessera::Sum<std::int64_t>(found), tessera::Sum<std::int64_t>(scout),
                                   tessera::Max<std::int64_t>(maxdeg));
        }
      }
      res.edges_traversed += fedges;
      if constexpr (fin_vertex)
        tessera::parallel_for("graph::bfs::finish_vertex", tessera::RangePolicy<Exec>(0, fsize),
                              TESSERA_LAMBDA(std::int64_t i) { vis.finish_vertex(frontier(i), g); });
      fsize = found;
      std::swap(frontier, next);
      fedges = scout;
      fmaxdeg = maxdeg;
    } else {
      ++res.bottom_up_levels;
      auto for_frontier_bits = [&](const char* label, const auto& f) {
        detail::for_each_set_bit<Exec, V>(label, nw, front, f);
      };
      if constexpr (ex_vertex) for_frontier_bits("graph::bfs::examine_vertex_bu", TESSERA_LAMBDA(V v) { vis.examine_vertex(v, g); });
      // Every unvisited vertex looks for a parent in the frontier; one work
      // item per bitmap word, so the words are written without atomics.
      std::int64_t found = 0, scanned = 0, degsum = 0;
      tessera::parallel_reduce(
          "graph::bfs::bottom_up", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, nw, 16),
          TESSERA_LAMBDA(std::int64_t w, std::int64_t & cnt, std::int64_t & sc, std::int64_t & ds) {
            front_next(w) = detail::bfs_bottom_up_word<on_tree_edge>(g, vis, visited, front.data(), w, n, cnt, sc, ds);
          },
          tessera::Sum<std::int64_t>(found), tessera::Sum<std::int64_t>(scanned), tessera::Sum<std::int64_t>(degsum));
      res.edges_traversed += scanned;
      if constexpr (fin_vertex) for_frontier_bits("graph::bfs::finish_vertex_bu", TESSERA_LAMBDA(V v) { vis.finish_vertex(v, g); });
      std::swap(front, front_next);
      fsize = found;
      fedges = degsum;
      const bool shrinking = found < prev_found;
      prev_found = found;
      if (fsize > 0 && shrinking && double(fsize) < double(n) / opts.beta) {
        // Back to top-down: the frontier bitmap -> queue, with its largest degree.
        bottom_up = false;
        returned = true;
        detail::write_one(counter, 0, std::int64_t(0));
        using buffer = detail::bfs_queue_buffer<V, tessera::View<V*, S>, tessera::View<std::int64_t*, S>, host ? 512 : 32>;
        auto fb = front;
        constexpr std::int64_t words = 16;
        fmaxdeg = 0;
        tessera::parallel_reduce(
            "graph::bfs::to_queue", tessera::RangePolicy<Exec>(0, (nw + words - 1) / words),
            TESSERA_LAMBDA(std::int64_t c, std::int64_t & mx) {
              buffer out(frontier, counter);
              const std::int64_t hi = (c + 1) * words < nw ? (c + 1) * words : nw;
              for (std::int64_t w = c * words; w < hi; ++w)
                for (W x = fb(w); x; x &= x - 1) {
                  const V v = V(w * 64 + detail::lowest_bit(x));
                  out.push(v);
                  const std::int64_t d = out_degree(v, g);
                  if (d > mx) mx = d;
                }
              out.flush();
            },
            tessera::Max<std::int64_t>(fmaxdeg));
      }
    }
    res.visited += fsize;
  }
  return res;
}

}  // namespace tessera::graph
