#pragma once
// The BFS level loop with its control on the device (BfsControl::device).
//
// The host loop of breadth_first_search reads the frontier size and the
// level's edge counts back after every level, and sizes the next level's
// kernels from them: one or two blocking round trips per level (three or
// four until 2026-11-30), some microseconds each on a GPU, which is most of
// the time of a high-diameter search (a 2048 x 2048 grid has about 4,100
// levels). Here the
// same decisions are taken on the device:
//
// - every level launches the same fixed sequence of kernels, whatever the
//   frontier: `begin` (one thread) applies Beamer's switch and sets the
//   level's mode in a small state View; each step kernel reads the mode and
//   returns at once when the step is not this level's (or the search is
//   over); `end` (one thread) takes the level's counts, which the steps
//   reduced into device Views, and sets up the next level;
// - kernels over the frontier are launched on a fixed number of threads
//   that stride over the frontier size read from the state, so no launch
//   needs the host to know a size;
// - the two queues and the two bitmaps swap by a selector in the state,
//   since the host no longer knows when a level ran top-down;
// - the host reads the state every bfs_check_every levels; after the search
//   ends, at most bfs_check_every - 1 levels of kernels run and return at once.
//
// The state follows the host loop's arithmetic exactly (the same counts, the
// same double comparisons with alpha and beta), so both controls take the
// same direction at every level and return the same bfs_result; tests run
// both on every space.
//
// Top-down steps balance edges differently from the host's: the host cuts
// the frontier's edge ranges by a prefix sum whose length it must know. Here
// a frontier vertex of degree below bfs_device_heavy_degree is expanded by
// one thread; higher-degree vertices are queued and expanded one after the
// other by all threads together, so a hub is still spread over the device.
#include <tessera/core.hpp>
#include <tessera/graph/detail/bfs_queue_buffer.hpp>
#include <tessera/graph/detail/util.hpp>
#include <tessera/graph/graph_traits.hpp>

#include <algorithm>
#include <cstdint>

namespace tessera::graph::detail {

enum class BfsControl { host, device };
// The host's control on every space: on an H200 (2026-11-29, interleaved in
// tessera_bench_graph_cuda) the device-controlled loop was the slower one,
// 2.14 ms against 1.38 ms on Kronecker 21 and 811 ms against 722 ms on the
// 2048^2 grid: its fixed sequence of about eight full-device kernels per
// level (several of them reductions) costs more than the host's three or
// four round trips of then. Kept, tested and benchmarked for when that
// sequence gets cheaper (a captured graph per level, or one persistent
// kernel).
template <class Exec>
inline constexpr BfsControl default_bfs_control = BfsControl::host;
// Levels launched between two reads of the device state.
inline constexpr int bfs_check_every = 8;
// Frontier vertices of at least this degree are expanded by all threads.
inline constexpr std::int64_t bfs_device_heavy_degree = 256;

// Slots of the device state (one int64 each).
inline constexpr int bfs_fsize = 0;       // vertices in the frontier
inline constexpr int bfs_fedges = 1;      // their edges (-1: sources, not counted yet)
inline constexpr int bfs_unexplored = 2;  // edges not yet explored, for the switch
inline constexpr int bfs_bottom_up = 3;   // current direction
inline constexpr int bfs_returned = 4;    // back from bottom-up: one top-down step before deciding again
inline constexpr int bfs_prev_found = 5;  // frontier size of the previous bottom-up step
inline constexpr int bfs_done = 6;        // the frontier came out empty
inline constexpr int bfs_td = 7;          // this level runs top-down
inline constexpr int bfs_bu = 8;          // this level runs bottom-up
inline constexpr int bfs_to_bitmap = 9;   // this level converts the queue into the bitmap first
inline constexpr int bfs_to_queue = 10;   // the level just ended converts the bitmap into the queue
inline constexpr int bfs_queue_sel = 11;  // which queue holds the frontier (0: qa, 1: qb)
inline constexpr int bfs_bits_sel = 12;   // which bitmap holds the frontier (0: fa, 1: fb)
inline constexpr int bfs_heavy = 13;      // high-degree frontier vertices queued this level
inline constexpr int bfs_visited = 14;    // bfs_result's counts
inline constexpr int bfs_levels = 15;
inline constexpr int bfs_edges = 16;
inline constexpr int bfs_bu_levels = 17;
inline constexpr int bfs_slots = 18;

struct bfs_device_counts {
  std::int64_t visited, levels, edges, bottom_up_levels;
};

// A queue named by a pointer, for bfs_queue_buffer (the target queue is chosen
// on the device).
template <class V>
struct bfs_queue_ptr {
  V* p;
  TESSERA_INLINE_FUNCTION V& operator()(std::int64_t i) const { return p[i]; }
};

// One bitmap word of a bottom-up step, for both controls: every unvisited
// vertex of word w looks for a parent in the frontier bitmap and stops at
// the first. The word's new vertices are marked visited and returned (the
// caller stores them in the next frontier's word); found, scanned and
// degsum add the vertices found, the edges looked at and the found
// vertices' degrees. A work item owns its word, so no atomics are needed.
// TreeEdge: whether the visitor defines tree_edge (the edge's descriptor,
// whose index may cost a search, is built only then).
template <bool TreeEdge, class G, class Vis, class Visited>
TESSERA_INLINE_FUNCTION std::uint64_t bfs_bottom_up_word(const G& g, const Vis& vis, const Visited& visited,
                                                         const std::uint64_t* frontier, std::int64_t w,
                                                         std::int64_t n, std::int64_t& found,
                                                         std::int64_t& scanned, std::int64_t& degsum) {
  using V = typename graph_traits<G>::vertex_descriptor;
  using E = typename graph_traits<G>::edge_descriptor;
  using W = std::uint64_t;
  const W seen = visited(w);
  W todo = ~seen;
  if (w == (n - 1) / 64 && (n & 63)) todo &= (W(1) << (n & 63)) - 1;
  W got = 0;
  for (; todo; todo &= todo - 1) {
    const int b = lowest_bit(todo);
    const V v = V(w * 64 + b);
    if (!vis.color_test(v, g)) continue;
    const auto r = out_edges(v, g);
    for (auto it = r.begin(); it != r.end(); ++it) {
      ++scanned;
      const V u = edge_target(it, g);
      if ((frontier[std::int64_t(u) >> 6] >> (std::uint64_t(u) & 63)) & 1) {
        got |= W(1) << b;
        if constexpr (TreeEdge) {
          E te = visitor_edge<Vis>(it);  // undirected: the same edge seen from u
          te.src = u;
          te.tgt = v;
          vis.tree_edge(te, g);
        }
        vis.discover_vertex(v, g);
        ++found;
        degsum += out_degree(v, g);
        break;
      }
    }
  }
  if (got) visited(w) = seen | got;
  return got;
}

// The level loop after the sources are placed: qa holds them and counter(0)
// is their number. qb, fa and fb are scratch (fa zeroed when bottom-up steps
// are allowed). ExVertex, FinVertex, ExEdge, Filter, TreeEdge, NonTreeEdge:
// which visitor events are defined.
template <class Exec, bool ExVertex, bool FinVertex, bool ExEdge, bool Filter, bool TreeEdge, bool NonTreeEdge,
          class G, class Vis, class QV,
          class BV, class CV>
bfs_device_counts bfs_device_levels(const G& g, const Vis& vis, double alpha, double beta,
                                    bool allow_bottom_up, std::int64_t ns, const QV& qa, const QV& qb,
                                    const BV& visited, const BV& fa, const BV& fb, const CV& counter) {
  using S = typename G::space_type;
  using V = typename graph_traits<G>::vertex_descriptor;
  using W = std::uint64_t;
  using I = std::int64_t;
  constexpr bool host = tessera::is_host_execution_space<Exec>::value;
  constexpr bool split_heavy = graph_traits<G>::random_access_adjacency;
  using queue = bfs_queue_ptr<V>;
  using buffer = bfs_queue_buffer<V, queue, CV, host ? 512 : 32>;

  const I n = num_vertices(g);
  const I nw = (n + 63) / 64;
  // Threads of the frontier kernels: enough to fill the device once.
  const I threads = std::max<I>(1, std::min<I>(I(Exec().concurrency()), n));
  const I unexplored0 = allow_bottom_up ? 2 * I(num_edges(g)) : 0;

  tessera::View<I*, S> st("graph::bfs::state", bfs_slots);
  tessera::View<I, S> src_edges("graph::bfs::source_edges"), scout("graph::bfs::scout"),
      scout_heavy("graph::bfs::scout_heavy"), found("graph::bfs::found"), scanned("graph::bfs::scanned"),
      degsum("graph::bfs::degsum");
  tessera::View<V*, S> heavy;
  if (split_heavy)
    heavy = tessera::View<V*, S>(tessera::view_alloc("graph::bfs::heavy", tessera::WithoutInitializing), n);

  tessera::parallel_reduce(
      "graph::bfs::source_edges", tessera::RangePolicy<Exec>(0, ns),
      TESSERA_LAMBDA(I i, I & s) {
        if (i < counter(0)) s += out_degree(qa(i), g);
      },
      tessera::Sum<I, S>(src_edges));
  tessera::parallel_for(
      "graph::bfs::seed", tessera::RangePolicy<Exec>(0, 1), TESSERA_LAMBDA(I) {
        st(bfs_fsize) = counter(0);
        st(bfs_visited) = counter(0);
        st(bfs_fedges) = -1;
        st(bfs_unexplored) = unexplored0;
      });

  // Current and other buffers, by the selectors.
  auto cur_queue = TESSERA_LAMBDA()->V* { return st(bfs_queue_sel) ? qb.data() : qa.data(); };
  auto next_queue = TESSERA_LAMBDA()->V* { return st(bfs_queue_sel) ? qa.data() : qb.data(); };
  auto cur_bits = TESSERA_LAMBDA()->W* { return st(bfs_bits_sel) ? fb.data() : fa.data(); };
  auto next_bits = TESSERA_LAMBDA()->W* { return st(bfs_bits_sel) ? fa.data() : fb.data(); };

  // Claims the target of the edge at `it`; counts the discovered vertex's
  // edges (the next level's frontier edges). The edge's descriptor (*it),
  // whose index may cost a search, is built only for the events defined.
  using edge_iter = decltype(out_edges(V(0), g).begin());
  auto visit = TESSERA_LAMBDA(const edge_iter& it, buffer& out, I& sc) {
    // Plain `if`s on the constants: nvcc rejects an extended lambda whose
    // first use of a captured variable lies inside `if constexpr`.
    if (Filter && !vis.filter(visitor_edge<Vis>(it), g)) return;
    if (ExEdge) vis.examine_edge(visitor_edge<Vis>(it), g);
    const V w = edge_target(it, g);
    const I word = I(w) >> 6;
    const W bit = W(1) << (std::uint64_t(w) & 63);
    if (!(load_relaxed(&visited(word)) & bit) && vis.color_test(w, g) &&
        !(tessera::atomic_fetch_or(&visited(word), bit) & bit)) {
      if (TreeEdge) vis.tree_edge(visitor_edge<Vis>(it), g);
      vis.discover_vertex(w, g);
      out.push(w);
      sc += out_degree(w, g);
    } else if (NonTreeEdge) {
      vis.non_tree_edge(visitor_edge<Vis>(it), g);
    }
  };

  // One level per pass (a plain loop body, not a lambda: nvcc refuses
  // extended lambdas inside another lambda); the host looks at the state every
  // bfs_check_every passes.
  auto seen = tessera::create_mirror_view(tessera::HostSpace(), st);
  for (int launched = 0;; ++launched) {
    if (launched > 0 && launched % bfs_check_every == 0) {
      tessera::deep_copy(seen, st);
      if (seen(bfs_done)) break;
    }
    // Beamer's switch and the level's mode, as the host loop decides them.
    tessera::parallel_for(
        "graph::bfs::begin", tessera::RangePolicy<Exec>(0, 1), TESSERA_LAMBDA(I) {
          st(bfs_to_queue) = 0;
          st(bfs_to_bitmap) = 0;
          st(bfs_td) = 0;
          st(bfs_bu) = 0;
          if (st(bfs_done)) return;
          const I fsize = st(bfs_fsize);
          if (fsize == 0) {
            st(bfs_done) = 1;
            return;
          }
          st(bfs_levels) += 1;
          const bool sources = st(bfs_fedges) < 0;
          const I fedges = sources ? src_edges() : st(bfs_fedges);
          bool bu = st(bfs_bottom_up) != 0;
          if (!bu && allow_bottom_up && !st(bfs_returned) && !sources &&
              double(fedges) > double(st(bfs_unexplored)) / alpha) {
            bu = true;
            st(bfs_bottom_up) = 1;
            st(bfs_to_bitmap) = 1;
            st(bfs_prev_found) = fsize;
          }
          st(bfs_unexplored) -= fedges;
          st(bfs_fedges) = fedges;
          st(bfs_returned) = 0;
          st(bfs_td) = bu ? 0 : 1;
          st(bfs_bu) = bu ? 1 : 0;
          if (!bu) {
            counter(0) = 0;
            st(bfs_heavy) = 0;
          }
        });
    if (allow_bottom_up) {
      // Frontier queue -> bitmap.
      tessera::parallel_for(
          "graph::bfs::to_bitmap_zero", tessera::RangePolicy<Exec>(0, nw), TESSERA_LAMBDA(I w) {
            if (st(bfs_to_bitmap)) cur_bits()[w] = 0;
          });
      tessera::parallel_for(
          "graph::bfs::to_bitmap", tessera::RangePolicy<Exec>(0, threads), TESSERA_LAMBDA(I t) {
            if (!st(bfs_to_bitmap)) return;
            const V* q = cur_queue();
            W* bits = cur_bits();
            const I f = st(bfs_fsize);
            for (I i = t; i < f; i += threads) {
              const V v = q[i];
              tessera::atomic_fetch_or(&bits[I(v) >> 6], W(1) << (std::uint64_t(v) & 63));
            }
          });
    }

    // Top-down.
    if (ExVertex)
      tessera::parallel_for(
          "graph::bfs::examine_vertex", tessera::RangePolicy<Exec>(0, threads), TESSERA_LAMBDA(I t) {
            if (!st(bfs_td)) return;
            const V* q = cur_queue();
            const I f = st(bfs_fsize);
            for (I i = t; i < f; i += threads) vis.examine_vertex(q[i], g);
          });
    tessera::parallel_reduce(
        "graph::bfs::top_down", tessera::RangePolicy<Exec>(0, threads),
        TESSERA_LAMBDA(I t, I & sc) {
          if (!st(bfs_td)) return;
          const V* q = cur_queue();
          const queue nq{next_queue()};
          buffer out(nq, counter);
          const I f = st(bfs_fsize);
          for (I i = t; i < f; i += threads) {
            const V u = q[i];
            if (split_heavy && I(out_degree(u, g)) >= bfs_device_heavy_degree) {
              heavy(tessera::atomic_fetch_add(&st(bfs_heavy), I(1))) = u;
              continue;
            }
            const auto r = out_edges(u, g);
            for (auto it = r.begin(); it != r.end(); ++it) visit(it, out, sc);
          }
          out.flush();
        },
        tessera::Sum<I, S>(scout));
    if constexpr (split_heavy) {
      // The high-degree vertices, one after the other, each by all threads.
      tessera::parallel_reduce(
          "graph::bfs::top_down_heavy", tessera::RangePolicy<Exec>(0, threads),
          TESSERA_LAMBDA(I t, I & sc) {
            if (!st(bfs_td)) return;
            const I h = st(bfs_heavy);
            if (h == 0) return;
            const queue nq{next_queue()};
            buffer out(nq, counter);
            for (I j = 0; j < h; ++j) {
              const V u = heavy(j);
              const auto r = out_edges(u, g);
              const I d = I(out_degree(u, g));
              for (I k = t; k < d; k += threads) visit(r.begin() + k, out, sc);
            }
            out.flush();
          },
          tessera::Sum<I, S>(scout_heavy));
    }
    if (FinVertex)
      tessera::parallel_for(
          "graph::bfs::finish_vertex", tessera::RangePolicy<Exec>(0, threads), TESSERA_LAMBDA(I t) {
            if (!st(bfs_td)) return;
            const V* q = cur_queue();
            const I f = st(bfs_fsize);
            for (I i = t; i < f; i += threads) vis.finish_vertex(q[i], g);
          });

    // Bottom-up: every unvisited vertex looks for a parent in the frontier;
    // one work item per bitmap word, so the words are written without atomics.
    if (allow_bottom_up) {
      if (ExVertex)
        tessera::parallel_for(
            "graph::bfs::examine_vertex_bu", tessera::RangePolicy<Exec>(0, nw), TESSERA_LAMBDA(I w) {
              if (!st(bfs_bu)) return;
              for (W x = cur_bits()[w]; x; x &= x - 1) vis.examine_vertex(V(w * 64 + lowest_bit(x)), g);
            });
      tessera::parallel_reduce(
          "graph::bfs::bottom_up", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, nw, 16),
          TESSERA_LAMBDA(I w, I & cnt, I & sc, I & ds) {
            if (!st(bfs_bu)) return;
            next_bits()[w] = bfs_bottom_up_word<TreeEdge>(g, vis, visited, cur_bits(), w, n, cnt, sc, ds);
          },
          tessera::Sum<I, S>(found), tessera::Sum<I, S>(scanned), tessera::Sum<I, S>(degsum));
      if (FinVertex)
        tessera::parallel_for(
            "graph::bfs::finish_vertex_bu", tessera::RangePolicy<Exec>(0, nw), TESSERA_LAMBDA(I w) {
              if (!st(bfs_bu)) return;
              for (W x = cur_bits()[w]; x; x &= x - 1) vis.finish_vertex(V(w * 64 + lowest_bit(x)), g);
            });
    }

    // The level's counts; the next frontier; the switch back to top-down.
    tessera::parallel_for(
        "graph::bfs::end", tessera::RangePolicy<Exec>(0, 1), TESSERA_LAMBDA(I) {
          if (st(bfs_td)) {
            st(bfs_edges) += st(bfs_fedges);
            st(bfs_fsize) = counter(0);
            st(bfs_queue_sel) ^= 1;
            st(bfs_fedges) = scout() + (split_heavy ? scout_heavy() : I(0));
          } else if (st(bfs_bu)) {
            st(bfs_bu_levels) += 1;
            st(bfs_edges) += scanned();
            st(bfs_bits_sel) ^= 1;
            const I f = found();
            st(bfs_fsize) = f;
            st(bfs_fedges) = degsum();
            const bool shrinking = f < st(bfs_prev_found);
            st(bfs_prev_found) = f;
            if (f > 0 && shrinking && double(f) < double(n) / beta) {
              st(bfs_bottom_up) = 0;
              st(bfs_returned) = 1;
              st(bfs_to_queue) = 1;
              counter(0) = 0;
            }
          } else {
            return;
          }
          st(bfs_visited) += st(bfs_fsize);
        });
    if (allow_bottom_up) {
      // Back to top-down: the frontier bitmap -> the current queue.
      constexpr I words = 16;
      tessera::parallel_for(
          "graph::bfs::to_queue", tessera::RangePolicy<Exec>(0, (nw + words - 1) / words),
          TESSERA_LAMBDA(I c) {
            if (!st(bfs_to_queue)) return;
            const W* bits = cur_bits();
            const queue q{cur_queue()};
            buffer out(q, counter);
            const I hi = (c + 1) * words < nw ? (c + 1) * words : nw;
            for (I w = c * words; w < hi; ++w)
              for (W x = bits[w]; x; x &= x - 1) out.push(V(w * 64 + lowest_bit(x)));
            out.flush();
          });
    }
  }
  return {seen(bfs_visited), seen(bfs_levels), seen(bfs_edges), seen(bfs_bu_levels)};
}

}  // namespace tessera::graph::detail
