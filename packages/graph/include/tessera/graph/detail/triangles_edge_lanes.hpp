#pragma once
// The GPU's triangle count (TriangleSchedule::edge_lanes): the degree
// orientation kept in the graph's own ids, then a team rank's vector lanes
// (a warp on a GPU) per oriented edge.
//
//   orient  u -> w when (deg u, u) < (deg w, w): every triangle is found once,
//           at its edge between its two lowest vertices in that order, and no
//           out-list is longer than sqrt(2m) (Schank and Wagner). A team rank
//           per vertex counts the kept neighbours over its lanes, a scan makes
//           the row offsets, and a second pass writes them with a lane scan.
//           The rows keep the adjacency's order, so they are sorted without
//           a sort: the host's schedule relabels hubs first (which helps its
//           caches) and then heap-sorts each row on one thread, which on a
//           GPU cost more than the count (223 ms of orientation and
//           thread-per-vertex merges on Kronecker 21, H200, 2026-11-29,
//           against 61 ms for a warp-per-edge peer).
//   count   a team rank per oriented edge (u, v): its lanes take the
//           elements of the shorter of N+(u), N+(v) and binary-search each in
//           the longer (the GraphChallenge GPU pattern; Bisson and Fatica,
//           HPEC 2017). One merge per vertex on one thread, the host's way,
//           leaves a GPU's lanes idle on short lists and serialises on hubs.
//
// Memory: the offsets (n + 1) and two ids per oriented edge (target and
// source, m = the undirected edge count), O(V + E). Self-loops and repeated
// edges are dropped while orienting, so a multigraph counts its simple
// triangles, as the host's schedule does. Host spaces run it too (tests);
// their lanes are a loop.
#include <tessera/graph/detail/util.hpp>
#include <tessera/graph/graph_traits.hpp>

#include <cstdint>

namespace tessera::graph::detail {

// Lanes per oriented edge in the count: the peer's choice (a warp).
inline constexpr int kTriangleEdgeLanes = 32;

template <class G>
struct id_degree_orientation {
  using V = typename graph_traits<G>::vertex_descriptor;
  using S = typename G::space_type;
  tessera::View<std::int64_t*, S> rows;  // n + 1 offsets into target / source
  tessera::View<V*, S> target;           // row u: u's kept neighbours, ascending
  tessera::View<V*, S> source;           // the row each entry belongs to
  std::int64_t edges = 0;
};

// Whether u -> w in the orientation: (deg u, u) < (deg w, w).
template <class V>
TESSERA_INLINE_FUNCTION bool oriented_before(std::int64_t du, V u, std::int64_t dw, V w) {
  return du < dw || (du == dw && u < w);
}

// Whether position k of u's sorted list adj keeps its vertex: the first of a
// run of equal ids (a repeated edge counts once) and after u in the order (a
// self-loop never is).
template <class G, class R>
TESSERA_INLINE_FUNCTION bool oriented_keep(const G& g, const R& adj, std::int64_t k,
                                           typename graph_traits<G>::vertex_descriptor u, std::int64_t du) {
  using V = typename graph_traits<G>::vertex_descriptor;
  const V w = adj[k];
  if (k > 0 && adj[k - 1] == w) return false;
  return oriented_before(du, u, std::int64_t(out_degree(w, g)), w);
}

template <class G>
id_degree_orientation<G> orient_by_degree_in_place(const G& g) {
  static_assert(graph_traits<G>::random_access_adjacency,
                "the edge-lane triangle count indexes adjacency lists");
  using V = typename graph_traits<G>::vertex_descriptor;
  using S = typename G::space_type;
  using Exec = typename G::execution_space;
  using Policy = tessera::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  const std::int64_t n = num_vertices(g);
  id_degree_orientation<G> o;
  o.rows = tessera::View<std::int64_t*, S>(
      tessera::view_alloc("graph::triangles::oriented_rows", tessera::WithoutInitializing), n + 1);
  const auto rows = o.rows;
  const std::int64_t slots = std::int64_t(num_edges(g)) * 2;
  const int lanes = lanes_for_average_degree<Policy>(slots, n);
  const int ranks = is_host_execution_space<Exec>::value ? 1 : 256 / lanes;
  const Policy policy((n + ranks - 1) / ranks, ranks, lanes);
  tessera::parallel_for(
      "graph::triangles::orient_count_lanes", policy, TESSERA_LAMBDA(const Member& m) {
        const std::int64_t u = std::int64_t(m.league_rank()) * m.team_size() + m.team_rank();
        if (u >= n) return;
        const auto adj = adjacent_vertices(V(u), g);
        const std::int64_t du = std::int64_t(out_degree(V(u), g));
        std::int64_t kept = 0;
        tessera::parallel_reduce(
            tessera::ThreadVectorRange(m, std::int64_t(adj.size())),
            [&](std::int64_t k, std::int64_t& acc) { acc += oriented_keep(g, adj, k, V(u), du) ? 1 : 0; },
            kept);
        tessera::single(tessera::PerThread(m), [&]() { rows(u) = kept; });
      });
  o.edges = exclusive_scan_inplace<Exec>("graph::triangles::oriented_scan", rows, n);
  o.target = tessera::View<V*, S>(
      tessera::view_alloc("graph::triangles::oriented_targets", tessera::WithoutInitializing), o.edges);
  o.source = tessera::View<V*, S>(
      tessera::view_alloc("graph::triangles::oriented_sources", tessera::WithoutInitializing), o.edges);
  const auto target = o.target;
  const auto source = o.source;
  tessera::parallel_for(
      "graph::triangles::orient_fill_lanes", policy, TESSERA_LAMBDA(const Member& m) {
        const std::int64_t u = std::int64_t(m.league_rank()) * m.team_size() + m.team_rank();
        if (u >= n) return;
        const auto adj = adjacent_vertices(V(u), g);
        const std::int64_t du = std::int64_t(out_degree(V(u), g));
        const std::int64_t at = rows(u);
        tessera::parallel_scan(tessera::ThreadVectorRange(m, std::int64_t(adj.size())),
                               [&](std::int64_t k, std::int64_t& before, bool final) {
                                 const bool keep = oriented_keep(g, adj, k, V(u), du);
                                 if (final && keep) {
                                   target(at + before) = adj[k];
                                   source(at + before) = V(u);
                                 }
                                 before += keep ? 1 : 0;
                               });
      });
  return o;
}

// Triangles of the orientation, each handed to visit(a, b, c) with a < b < c
// in the graph's ids; returns how many. `lanes` per oriented edge, a power
// of two up to the space's vector_length_max() (checked by the caller).
template <class Exec, class G, class Visitor>
std::int64_t triangles_edge_lanes(const id_degree_orientation<G>& o, const Visitor& visit, int lanes) {
  using V = typename graph_traits<G>::vertex_descriptor;
  using Policy = tessera::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  const std::int64_t m = o.edges;
  if (m == 0) return 0;
  const int ranks =
      is_host_execution_space<Exec>::value ? 1 : 256 / lanes;  // lanes: a power of two <= 32 there
  const auto rows = o.rows;
  const auto target = o.target;
  const auto source = o.source;
  // Each team rank strides over the edges on its own (striding_league: a
  // team per group of `ranks` edges made each group wait for its longest
  // intersection on a GPU).
  const std::int64_t league = striding_league<Exec>(m, ranks, lanes);
  const std::int64_t stride = league * ranks;
  std::int64_t count = 0;
  tessera::parallel_reduce(
      "graph::triangles::edge_lanes", Policy(league, ranks, lanes),
      TESSERA_LAMBDA(const Member& mem, std::int64_t& cnt) {
        std::int64_t total = 0;  // every lane holds it
        for (std::int64_t e = std::int64_t(mem.league_rank()) * mem.team_size() + mem.team_rank(); e < m;
             e += stride) {
          const V u = source(e), v = target(e);
          const V* a = target.data() + rows(u);
          const V* c = target.data() + rows(v);
          std::int64_t la = rows(std::int64_t(u) + 1) - rows(u), lc = rows(std::int64_t(v) + 1) - rows(v);
          if (la > lc) {
            const V* t = a;
            a = c;
            c = t;
            const std::int64_t l = la;
            la = lc;
            lc = l;
          }
          std::int64_t found = 0;
          tessera::parallel_reduce(
              tessera::ThreadVectorRange(mem, la),
              [&](std::int64_t i, std::int64_t& acc) {
                const V w = a[i];
                const std::int64_t at = lower_bound(c, std::int64_t(0), lc, w);
                if (at < lc && c[at] == w) {
                  ++acc;
                  // u before v before w in the orientation; the visitor gets ids ascending.
                  V x = u, y = v, z = w;
                  sort3(x, y, z);
                  visit(x, y, z);
                }
              },
              found);
          total += found;
        }
        tessera::single(tessera::PerThread(mem), [&]() { cnt += total; });
      },
      count);
  return count;
}

}  // namespace tessera::graph::detail
