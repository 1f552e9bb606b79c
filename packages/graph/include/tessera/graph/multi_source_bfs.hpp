#pragma once
// Many BFS queries on one graph in one pass.
//
//   auto levels = multi_source_bfs(g, sources);   // View<int32**> (num_vertices x k), -1 = unreached
//
// Query j's frontier is bit j of a 64-bit word per vertex, so one sweep over
// the edges advances 64 searches at once (more than 64 sources run in
// batches of 64). Each level either pushes the frontier words along
// out-edges (small frontiers) or, on graphs with in-edges, gathers them
// along in-edges without atomics (large frontiers). Levels equal those of k
// separate breadth_first_search runs.
//
//   multi_source_bfs(g, sources, {.schedule = tg::edge_schedule::by_degree});
//
// The schedule (traversal_options.hpp) says how a push spreads the
// frontier's edges: host spaces keep one loop over every vertex, a frontier
// vertex's edges on the thread that finds it; elsewhere (a GPU's automatic
// choice) the pass that records a level also lists the next frontier, and
// the push expands the list by advance's balanced schedule, so a hub's
// edges are shared among threads instead of being one thread's walk.
#include <tessera/graph/advance.hpp>
#include <tessera/graph/bfs.hpp>
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/primitives.hpp>

#include <cstdint>
#include <vector>

namespace tessera::graph {

namespace detail {
// A listed push's visit of one frontier edge u -> w: the searches at u that
// have not seen w reach it at the next level.
template <class G, class WordView>
struct msbfs_push_edge {
  G g;
  WordView front, seen, next;
  template <class V, class E>
  TESSERA_INLINE_FUNCTION void operator()(const V& u, const E& e) const {
    const V w = target(e, g);
    const std::uint64_t add = front(u) & ~tessera::atomic_load(&seen(w));
    if (add) tessera::atomic_fetch_or(&next(w), add);
  }
};
}  // namespace detail

template <class G, class Src>
tessera::View<std::int32_t**, tessera::LayoutRight, typename G::space_type> multi_source_bfs(
    const G& g, const Src& sources, const traversal_options& opts = {}) {
  using Exec = typename G::execution_space;
  using V = typename graph_traits<G>::vertex_descriptor;
  using SS = typename G::space_type;
  using Word = std::uint64_t;
  auto src = detail::bfs_sources(g, sources);
  const std::int64_t n = num_vertices(g);
  const std::int64_t k = std::int64_t(src.extent(0));
  tessera::View<std::int32_t**, tessera::LayoutRight, SS> levels(
      tessera::view_alloc("graph::msbfs::levels", tessera::WithoutInitializing), n, k);
  tessera::deep_copy(levels, std::int32_t(-1));
  if (n == 0 || k == 0) return levels;
  tessera::View<Word*, SS> seen("graph::msbfs::seen", n), front("graph::msbfs::frontier", n), next("graph::msbfs::next", n);
  std::int64_t total_edges = 0;
  reduce_vertices("graph::msbfs::edges", g, TESSERA_LAMBDA(V v, std::int64_t & s) { s += out_degree(v, g); }, total_edges);
  // The listed schedule's frontier list (a vertex at most once per level,
  // or once per source at level 0) and its fill count.
  const bool listed = detail::resolve_schedule<G>(opts) != edge_schedule::vertex_loop;
  tessera::View<V*, SS> list;
  tessera::View<std::int64_t*, SS> list_fill;
  if (listed) {
    list = tessera::View<V*, SS>(tessera::view_alloc("graph::msbfs::list", tessera::WithoutInitializing), n > 64 ? n : 64);
    list_fill = tessera::View<std::int64_t*, SS>("graph::msbfs::list_fill", 1);
  }

  for (std::int64_t base = 0; base < k; base += 64) {
    const int nb = int(k - base < 64 ? k - base : 64);
    detail::fill<Exec>(seen, Word(0));
    detail::fill<Exec>(front, Word(0));
    tessera::parallel_for("graph::msbfs::sources", tessera::RangePolicy<Exec>(0, nb), TESSERA_LAMBDA(std::int64_t j) {
      const V s = src(base + j);
      tessera::atomic_fetch_or(&seen(s), Word(1) << j);
      tessera::atomic_fetch_or(&front(s), Word(1) << j);
      levels(s, base + j) = 0;
      if (listed) list(j) = s;
    });
    // Edges leaving the frontier decide push or pull; after level 0 the
    // pass that records a level counts them for the next.
    std::int64_t fedges = 0;
    reduce_vertices("graph::msbfs::frontier_edges", g,
                    TESSERA_LAMBDA(V v, std::int64_t & s) { if (front(v)) s += out_degree(v, g); }, fedges);
    std::int64_t list_count = nb;
    std::int32_t level = 0;
    for (;;) {
      if (fedges == 0) break;
      const std::int32_t nl = level + 1;
      bool pulled = false;
      if constexpr (graph_traits<G>::has_in_edges) {
        if (fedges * 8 > total_edges) {
          pulled = true;
          tessera::parallel_for("graph::msbfs::pull", detail::make_vertex_policy(g, 256), TESSERA_LAMBDA(std::int64_t wi) {
            const Word unseen = ~seen(wi);
            Word acc = 0;
            if (unseen)
              for (auto u : in_adjacent_vertices(V(wi), g)) {
                acc |= front(u);
                if ((acc & unseen) == unseen) break;
              }
            next(wi) = acc & unseen;
          });
        }
      }
      if (!pulled) {
        detail::fill<Exec>(next, Word(0));
        if (listed) {
          detail::advance_rows("graph::msbfs::push", g, detail::frontier_rows<V, decltype(list)>{list}, list_count,
                               detail::msbfs_push_edge<G, decltype(front)>{g, front, seen, next}, opts);
        } else {
          tessera::parallel_for("graph::msbfs::push", detail::make_vertex_policy(g, 256), TESSERA_LAMBDA(std::int64_t vi) {
            const Word f = front(vi);
            if (!f) return;
            for (auto w : adjacent_vertices(V(vi), g)) {
              const Word add = f & ~tessera::atomic_load(&seen(w));
              if (add) tessera::atomic_fetch_or(&next(w), add);
            }
          });
        }
      }
      // New bits: record their level; they form the next frontier (listed
      // for a listed push), whose out-edges are counted here.
      std::int64_t grew = 0;
      fedges = 0;
      if (listed) detail::fill<Exec>(list_fill, std::int64_t(0));
      tessera::parallel_reduce(
          "graph::msbfs::advance", tessera::RangePolicy<Exec>(0, n),
          TESSERA_LAMBDA(std::int64_t v, std::int64_t & cnt, std::int64_t & out) {
            Word add = next(v) & ~seen(v);
            front(v) = add;
            if (!add) return;
            seen(v) |= add;
            ++cnt;
            out += out_degree(V(v), g);
            if (listed) list(tessera::atomic_fetch_add(&list_fill(0), std::int64_t(1))) = V(v);
            while (add) {
              const int j = detail::lowest_bit(add);
              levels(v, base + j) = nl;
              add &= add - 1;
            }
          },
          grew, fedges);
      if (grew == 0) break;
      list_count = grew;
      level = nl;
    }
  }
  return levels;
}

}  // namespace tessera::graph
