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
// A push level costs its frontier's edges, not a pass over the vertices:
// the frontier is a list, and the push lists each vertex it reaches once
// (the OR that first makes its next word non-zero), so recording the level
// visits only those. A level gathered by the pull writes every vertex and
// is recorded by one pass over them; the list is rebuilt from the words
// when a push follows. A push level of few edges runs on the calling
// thread of a host space. On a 700 x 700 grid (1,400 levels, 2 threads) 4
// searches took 1.5-2.2 s when every level swept every vertex, 0.11-0.13 s
// now; 4 single searches 0.06-0.11 s.
//
//   multi_source_bfs(g, sources, {.schedule = tg::edge_schedule::by_degree});
//
// The schedule (traversal_options.hpp) says how a push spreads the
// frontier's edges: host spaces hand out the listed vertices, each one's
// edges on the thread that takes it; elsewhere (a GPU's automatic choice)
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
// A push along one frontier edge u -> w: the searches at u that have not
// seen w reach it at the next level; the first to make w's next word
// non-zero lists w (next words are zero between levels).
template <class WordView, class ListView, class CountView, class V>
TESSERA_INLINE_FUNCTION void msbfs_push(const WordView& front, const WordView& seen, const WordView& next,
                                        const ListView& reached, const CountView& reached_count, const V& u,
                                        const V& w) {
  const std::uint64_t add = front(u) & ~tessera::atomic_load(&seen(w));
  if (add && !tessera::atomic_fetch_or(&next(w), add))
    reached(tessera::atomic_fetch_add(&reached_count(0), std::int64_t(1))) = w;
}

// Records the searches that reached v at level nl (its next word, less the
// ones it had seen): v's frontier word, seen word and levels; the next word
// is cleared for the next level. Returns those searches (0: none new).
template <class WordView, class Levels, class V>
TESSERA_INLINE_FUNCTION std::uint64_t msbfs_record(const WordView& next, const WordView& seen, const WordView& front,
                                                   const Levels& levels, std::int64_t base, std::int32_t nl,
                                                   const V& v) {
  const std::uint64_t add = next(v) & ~seen(v);
  next(v) = 0;
  front(v) = add;
  seen(v) |= add;
  for (std::uint64_t m = add; m; m &= m - 1) levels(v, base + lowest_bit(m)) = nl;
  return add;
}

// The listed schedules' visit of one frontier edge (advance_rows).
template <class G, class WordView, class ListView, class CountView>
struct msbfs_push_edge {
  static constexpr bool reads_edge_index = false;  // the target alone (advance.hpp)
  G g;
  WordView front, seen, next;
  ListView reached;
  CountView reached_count;
  template <class V, class E>
  TESSERA_INLINE_FUNCTION void operator()(const V& u, const E& e) const {
    msbfs_push(front, seen, next, reached, reached_count, u, V(target(e, g)));
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
  // The frontier list (a vertex at most once per level, or once per source
  // at level 0), the vertices a push reached (each once) and a counter.
  const bool listed = detail::resolve_schedule<G>(opts) != edge_schedule::vertex_loop;
  tessera::View<V*, SS> list(tessera::view_alloc("graph::msbfs::list", tessera::WithoutInitializing), n > 64 ? n : 64);
  tessera::View<V*, SS> reached(tessera::view_alloc("graph::msbfs::reached", tessera::WithoutInitializing), n);
  tessera::View<std::int64_t*, SS> counter("graph::msbfs::counter", 1);
  // Whether a push level runs on the calling thread: a host space, a listed
  // frontier and fewer edges than breadth_first_search's inline threshold.
  const auto inline_level = [](bool frontier_listed, std::int64_t frontier_edges) {
    if constexpr (tessera::is_host_execution_space<Exec>::value)
      return frontier_listed && frontier_edges < bfs_options{}.inline_edges;
    return false;
  };

  for (std::int64_t base = 0; base < k; base += 64) {
    const int nb = int(k - base < 64 ? k - base : 64);
    // The batch's searches: a pull stops reading a vertex's in-edges once
    // every one of them has reached it, and skips a vertex all of them have
    // seen; counting the 64 - nb absent searches as unseen made every pull
    // read every unfinished vertex's whole in-adjacency.
    const Word batch = nb == 64 ? ~Word(0) : (Word(1) << nb) - 1;
    detail::fill<Exec>(seen, Word(0));
    detail::fill<Exec>(front, Word(0));
    detail::fill<Exec>(next, Word(0));
    tessera::parallel_for("graph::msbfs::sources", tessera::RangePolicy<Exec>(0, nb), TESSERA_LAMBDA(std::int64_t j) {
      const V s = src(base + j);
      tessera::atomic_fetch_or(&seen(s), Word(1) << j);
      tessera::atomic_fetch_or(&front(s), Word(1) << j);
      levels(s, base + j) = 0;
      list(j) = s;
    });
    // Edges leaving the frontier decide push or pull; after level 0 the
    // pass that records a level counts them for the next.
    std::int64_t fedges = 0;
    reduce_vertices("graph::msbfs::frontier_edges", g,
                    TESSERA_LAMBDA(V v, std::int64_t & s) { if (front(v)) s += out_degree(v, g); }, fedges);
    std::int64_t list_count = nb;  // entries of `list`, when the frontier is listed
    std::int64_t frontier_size = nb;
    bool frontier_listed = true;
    std::int32_t level = 0;
    for (;;) {
      if (fedges == 0) break;
      const std::int32_t nl = level + 1;
      bool pulled = false;
      if constexpr (graph_traits<G>::has_in_edges) {
        if (fedges * 8 > total_edges) {
          pulled = true;
          tessera::parallel_for("graph::msbfs::pull", detail::make_vertex_policy(g, 256), TESSERA_LAMBDA(std::int64_t wi) {
            const Word unseen = batch & ~seen(wi);
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
      std::int64_t grew = 0;
      fedges = 0;
      if (pulled) {
        // Every vertex's new bits, recorded in one pass; the words are the
        // frontier now (no list), and every next word is zero again.
        tessera::parallel_reduce(
            "graph::msbfs::advance", tessera::RangePolicy<Exec>(0, n),
            TESSERA_LAMBDA(std::int64_t v, std::int64_t & cnt, std::int64_t & out) {
              if (!detail::msbfs_record(next, seen, front, levels, base, nl, V(v))) return;
              ++cnt;
              out += out_degree(V(v), g);
            },
            grew, fedges);
        frontier_listed = false;
      } else if (inline_level(frontier_listed, fedges)) {
        // A level of few edges on the calling thread, as breadth_first_search
        // runs one: no parallel region, no shared counter. A 700 x 700 grid
        // has 1,400 such levels.
        std::int64_t nr = 0;
        for (std::int64_t i = 0; i < list_count; ++i) {
          const V u = list(i);
          for (auto w : adjacent_vertices(u, g)) {
            const Word add = front(u) & ~seen(w);
            if (!add) continue;
            if (!next(w)) reached(nr++) = V(w);
            next(w) |= add;
          }
        }
        for (std::int64_t i = 0; i < list_count; ++i) front(list(i)) = 0;
        list_count = 0;
        for (std::int64_t i = 0; i < nr; ++i) {
          const V v = reached(i);
          if (!detail::msbfs_record(next, seen, front, levels, base, nl, v)) continue;
          ++grew;
          fedges += out_degree(v, g);
          list(list_count++) = v;
        }
      } else {
        if (!frontier_listed) {
          // After a pulled level: list the frontier from its words.
          detail::fill<Exec>(counter, std::int64_t(0));
          tessera::parallel_for("graph::msbfs::list", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) {
            if (front(v)) list(tessera::atomic_fetch_add(&counter(0), std::int64_t(1))) = V(v);
          });
          list_count = frontier_size;
        }
        detail::fill<Exec>(counter, std::int64_t(0));
        if (listed) {
          detail::advance_rows("graph::msbfs::push", g, detail::frontier_rows<V, decltype(list)>{list}, list_count,
                               detail::msbfs_push_edge<G, decltype(front), decltype(reached), decltype(counter)>{
                                   g, front, seen, next, reached, counter},
                               opts);
        } else {
          tessera::parallel_for(
              "graph::msbfs::push", detail::vertex_policy<G>(0, list_count, 16), TESSERA_LAMBDA(std::int64_t i) {
                const V u = list(i);
                for (auto w : adjacent_vertices(u, g)) detail::msbfs_push(front, seen, next, reached, counter, u, V(w));
              });
        }
        const std::int64_t reached_count = detail::read_one(counter, 0);
        // The old frontier's words cleared, then the reached vertices' new
        // bits recorded (a vertex may be in both: its bits of one search
        // leave the frontier as another's arrive) and listed.
        const auto li = list;
        tessera::parallel_for("graph::msbfs::leave", tessera::RangePolicy<Exec>(0, list_count),
                              TESSERA_LAMBDA(std::int64_t i) { front(li(i)) = 0; });
        detail::fill<Exec>(counter, std::int64_t(0));
        tessera::parallel_reduce(
            "graph::msbfs::advance", tessera::RangePolicy<Exec>(0, reached_count),
            TESSERA_LAMBDA(std::int64_t i, std::int64_t & cnt, std::int64_t & out) {
              const V v = reached(i);
              if (!detail::msbfs_record(next, seen, front, levels, base, nl, v)) return;
              ++cnt;
              out += out_degree(v, g);
              li(tessera::atomic_fetch_add(&counter(0), std::int64_t(1))) = v;
            },
            grew, fedges);
        list_count = grew;
        frontier_listed = true;
      }
      if (grew == 0) break;
      frontier_size = grew;
      level = nl;
    }
  }
  return levels;
}

}  // namespace tessera::graph
