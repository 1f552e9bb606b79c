#pragma once
// Connected components.
//
//   vertex_property_map<G, V> comp(g);
//   auto k = connected_components(g, comp);   // Afforest (sampling + skipping the giant component)
//   auto k = shiloach_vishkin(g, comp);       // hooking + pointer jumping until nothing changes
//   auto k = strongly_connected_components(g, comp);   // directed graphs
//
// All three label each component by its smallest vertex id (so results are
// the same on every back-end, thread count and algorithm) and return the
// number of components. On directed graphs, connected_components and
// shiloach_vishkin compute weakly connected components.
//
// On a GPU, Afforest's sampling step finds the most frequent label on the
// device (detail/afforest_sample.hpp), so connected_components waits for the
// device only for the final count.
#include <tessera/graph/detail/afforest_sample.hpp>
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/primitives.hpp>
#include <tessera/graph/property_map.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

namespace tessera::graph {

namespace detail {

template <class G, class PM>
void check_vertex_map(const char* who, const G& g, const PM& pm) {
  if (pm.size() != num_vertices(g))
    fail(std::string(who) + ": property map '" + pm.label() + "' has " + std::to_string(pm.size()) + " values for " +
         std::to_string(num_vertices(g)) + " vertices");
}

// Afforest's link: hook the larger root under the smaller, retrying on races.
// Loads need no ordering (a stale parent only sends the loop round again);
// the hook itself is a compare-and-swap.
template <class V>
TESSERA_INLINE_FUNCTION void afforest_link(V* comp, V u, V v) {
  V p1 = load_relaxed(&comp[u]);
  V p2 = load_relaxed(&comp[v]);
  while (p1 != p2) {
    const V high = p1 > p2 ? p1 : p2;
    const V low = p1 + p2 - high;
    const V p_high = load_relaxed(&comp[high]);
    if (p_high == low) break;
    if (p_high == high && tessera::atomic_compare_exchange(&comp[high], high, low) == high) break;
    p1 = load_relaxed(&comp[load_relaxed(&comp[high])]);
    p2 = load_relaxed(&comp[low]);
  }
}

// Every vertex points at its root. Parents only ever move towards roots, so
// racing walks and plain stores are safe; vertices already pointing at a
// root (most, after a good sampling round) are not written.
template <class Exec, class V, class S>
void compress(const tessera::View<V*, S>& comp, std::int64_t n) {
  V* c0 = comp.data();
  tessera::parallel_for("graph::cc::compress", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) {
    V c = load_relaxed(&c0[v]);
    V cc = load_relaxed(&c0[c]);
    if (c == cc) return;
    while (c != cc) {
      c = cc;
      cc = load_relaxed(&c0[c]);
    }
    store_relaxed(&c0[v], c);
  });
}

// compress, and the number of roots (vertices that are their own parent
// afterwards), in the same pass.
template <class Exec, class V, class S>
std::int64_t compress_and_count(const tessera::View<V*, S>& comp, std::int64_t n) {
  V* c0 = comp.data();
  std::int64_t roots = 0;
  tessera::parallel_reduce(
      "graph::cc::compress_count", tessera::RangePolicy<Exec>(0, n),
      TESSERA_LAMBDA(std::int64_t v, std::int64_t & k) {
        V c = load_relaxed(&c0[v]);
        V cc = load_relaxed(&c0[c]);
        if (c == cc) {
          k += c == V(v) ? 1 : 0;
          return;
        }
        while (c != cc) {
          c = cc;
          cc = load_relaxed(&c0[c]);
        }
        store_relaxed(&c0[v], c);
      },
      roots);
  return roots;
}

template <class G, class V, class S>
std::int64_t count_roots(const G& g, const tessera::View<V*, S>& comp) {
  std::int64_t k = 0;
  reduce_vertices("graph::cc::count", g, TESSERA_LAMBDA(V v, std::int64_t & s) { s += comp(v) == v ? 1 : 0; }, k);
  return k;
}

}  // namespace detail

namespace detail {
// connected_components() with where the sample's label is counted named
// (tests run the GPU's choice on host spaces).
template <AfforestSample Sample, class G, class S>
std::int64_t connected_components_with(const G& g,
                                       const vertex_property_map<G, typename graph_traits<G>::vertex_descriptor, S>& components);
// Afforest's last pass: the edges after the first Rounds of every vertex,
// skipping vertices already in the giant component. Skipping is only safe
// when every edge is seen from both ends (undirected graphs); directed graphs
// also link along in-edges. Giant: giant_value or giant_in_view.
template <int Rounds, class G, class CompView, class Giant>
void afforest_finish_link(const G& g, const CompView& comp, std::int64_t chunk, const Giant& giant) {
  using V = typename graph_traits<G>::vertex_descriptor;
  constexpr bool undirected = graph_traits<G>::is_undirected;
  tessera::parallel_for("graph::cc::finish_link", detail::make_vertex_policy(g, int(chunk)), TESSERA_LAMBDA(std::int64_t vi) {
    const V v = V(vi);
    if (undirected && detail::load_relaxed(&comp(v)) == giant()) return;
    int k = 0;
    for (auto w : adjacent_vertices(v, g)) {
      if (k++ < Rounds) continue;
      detail::afforest_link(comp.data(), v, V(w));
    }
  });
}

}  // namespace detail

template <class G, class S>
std::int64_t connected_components(const G& g, const vertex_property_map<G, typename graph_traits<G>::vertex_descriptor, S>& components) {
  return detail::connected_components_with<detail::default_afforest_sample<typename G::execution_space>>(g, components);
}

template <detail::AfforestSample Sample, class G, class S>
std::int64_t detail::connected_components_with(
    const G& g, const vertex_property_map<G, typename graph_traits<G>::vertex_descriptor, S>& components) {
  using Exec = typename G::execution_space;
  using V = typename graph_traits<G>::vertex_descriptor;
  detail::check_vertex_map("connected_components", g, components);
  const std::int64_t n = num_vertices(g);
  auto comp = components.view();
  tessera::parallel_for("graph::cc::init", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) { comp(v) = V(v); });
  if (n == 0) return 0;
  // Chunks of consecutive vertices, large enough that two threads rarely link
  // in the same cache lines (on a grid, neighbours have neighbouring ids).
  std::int64_t chunk = n / (32 * std::int64_t(Exec().concurrency()));
  chunk = chunk < 1024 ? 1024 : chunk;
  // 1. Link along the first two edges of every vertex, then compress: on most
  //    graphs this already finds the giant component.
  constexpr int rounds = 2;
  for (int r = 0; r < rounds; ++r) {
    tessera::parallel_for("graph::cc::sample_link", detail::make_vertex_policy(g, int(chunk)), TESSERA_LAMBDA(std::int64_t vi) {
      int k = 0;
      for (auto w : adjacent_vertices(V(vi), g)) {
        if (k++ == r) {
          detail::afforest_link(comp.data(), V(vi), V(w));
          break;
        }
      }
    });
    detail::compress<Exec>(comp, n);
  }
  // 2. The most frequent label among 1024 sampled vertices.
  const std::int64_t ns = n < 1024 ? n : 1024;
  tessera::View<V*, S> sample(tessera::view_alloc("graph::cc::sample", tessera::WithoutInitializing), ns);
  auto pick = TESSERA_LAMBDA(std::int64_t i) {
    const std::uint64_t h = (std::uint64_t(i) + 1) * 0x9e3779b97f4a7c15ULL;
    sample(i) = comp(std::int64_t((h >> 11) % std::uint64_t(n)));
  };
  if constexpr (tessera::is_host_execution_space<Exec>::value) {
    for (std::int64_t i = 0; i < ns; ++i) pick(i);  // 1024 loads: not worth a parallel region
  } else {
    tessera::parallel_for("graph::cc::sample", tessera::RangePolicy<Exec>(0, ns), pick);
  }
  // 3. The remaining edges, skipping vertices already in the giant component.
  if constexpr (Sample == AfforestSample::host) {
    auto hs = tessera::create_mirror_view_and_copy(tessera::HostSpace(), sample);
    std::map<V, int> freq;
    V giant = hs(0);
    for (std::int64_t i = 0; i < ns; ++i)
      if (++freq[hs(i)] > freq[giant]) giant = hs(i);
    afforest_finish_link<rounds>(g, comp, chunk, giant_value<V>{giant});
  } else {
    tessera::View<sample_rank, S> best("graph::cc::sample_best");
    most_frequent_sample_label<Exec>(sample, best);
    afforest_finish_link<rounds>(g, comp, chunk, giant_in_view<tessera::View<V*, S>, tessera::View<sample_rank, S>>{sample, best});
  }
  return detail::compress_and_count<Exec>(comp, n);
}

template <class G, class S>
std::int64_t shiloach_vishkin(const G& g, const vertex_property_map<G, typename graph_traits<G>::vertex_descriptor, S>& components) {
  using Exec = typename G::execution_space;
  using V = typename graph_traits<G>::vertex_descriptor;
  detail::check_vertex_map("shiloach_vishkin", g, components);
  const std::int64_t n = num_vertices(g);
  auto comp = components.view();
  tessera::parallel_for("graph::sv::init", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) { comp(v) = V(v); });
  for (;;) {
    // Hooking: a root takes the smaller label across any edge (both
    // orientations, so directed graphs get weak components).
    std::int64_t changed = 0;
    tessera::parallel_reduce(
        "graph::sv::hook", detail::make_vertex_policy(g, 64),
        TESSERA_LAMBDA(std::int64_t ui, std::int64_t & ch) {
          const V u = V(ui);
          for (auto w : adjacent_vertices(u, g)) {
            const V cu = tessera::atomic_load(&comp(u)), cw = tessera::atomic_load(&comp(V(w)));
            if (cu == cw) continue;
            const V hi = cu > cw ? cu : cw, lo = cu + cw - hi;
            if (tessera::atomic_load(&comp(hi)) == hi) {
              tessera::atomic_fetch_min(&comp(hi), lo);
              ++ch;
            }
          }
        },
        changed);
    // Pointer jumping: every vertex points at its root.
    detail::compress<Exec>(comp, n);
    if (changed == 0) break;
  }
  return detail::count_roots(g, comp);
}

// Strongly connected components by min-label colouring: labels flow
// forward along edges to a fixed point; each vertex whose label is its own id
// is the root of an SCC made of the vertices of its colour that can reach
// it (found backward, using out-edges only: v joins when an out-neighbour of
// the same colour has joined). Vertices with no remaining out- or in-edges
// are peeled off first. Rounds repeat on what is left.
template <class G, class S>
std::int64_t strongly_connected_components(const G& g,
                                           const vertex_property_map<G, typename graph_traits<G>::vertex_descriptor, S>& components) {
  static_assert(graph_traits<G>::is_directed, "strongly_connected_components: use connected_components on undirected graphs");
  using Exec = typename G::execution_space;
  using V = typename graph_traits<G>::vertex_descriptor;
  using SS = typename G::space_type;
  detail::check_vertex_map("strongly_connected_components", g, components);
  const std::int64_t n = num_vertices(g);
  auto scc = components.view();
  tessera::View<V*, SS> color(tessera::view_alloc("graph::scc::color", tessera::WithoutInitializing), n);
  tessera::View<std::uint8_t*, SS> reach("graph::scc::reach", n);
  tessera::View<std::int32_t*, SS> indeg("graph::scc::indeg", n);
  tessera::parallel_for("graph::scc::init", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) { scc(v) = V(-1); });
  std::int64_t left = n;
  while (left > 0) {
    // Trim: a vertex with no unassigned in- or out-neighbour is its own SCC.
    for (;;) {
      detail::fill<Exec>(indeg, 0);
      forall_vertices("graph::scc::indeg", g, TESSERA_LAMBDA(V v) {
        if (scc(v) != V(-1)) return;
        for (auto w : adjacent_vertices(v, g))
          if (V(w) != v && scc(V(w)) == V(-1)) tessera::atomic_inc(&indeg(V(w)));
      });
      std::int64_t trimmed = 0;
      reduce_vertices("graph::scc::trim", g, TESSERA_LAMBDA(V v, std::int64_t & t) {
        if (scc(v) != V(-1)) return;
        bool out = false;
        for (auto w : adjacent_vertices(v, g))
          if (V(w) != v && scc(V(w)) == V(-1)) {
            out = true;
            break;
          }
        if (!out || indeg(v) == 0) color(v) = V(-2), ++t;  // marked; assigned below (not while others read scc)
        else color(v) = V(0);
      }, trimmed);
      forall_vertices("graph::scc::trim_assign", g, TESSERA_LAMBDA(V v) {
        if (scc(v) == V(-1) && color(v) == V(-2)) scc(v) = v;
      });
      left -= trimmed;
      if (trimmed == 0 || left == 0) break;
    }
    if (left == 0) break;
    forall_vertices("graph::scc::color_init", g, TESSERA_LAMBDA(V v) {
      color(v) = v;
      reach(v) = 0;
    });
    for (;;) {
      std::int64_t changed = 0;
      reduce_vertices("graph::scc::forward", g, TESSERA_LAMBDA(V v, std::int64_t & ch) {
        if (scc(v) != V(-1)) return;
        const V c = tessera::atomic_load(&color(v));
        for (auto w : adjacent_vertices(v, g))
          if (scc(V(w)) == V(-1) && c < tessera::atomic_load(&color(V(w)))) {
            tessera::atomic_fetch_min(&color(V(w)), c);
            ++ch;
          }
      }, changed);
      if (changed == 0) break;
    }
    forall_vertices("graph::scc::roots", g, TESSERA_LAMBDA(V v) {
      if (scc(v) == V(-1) && color(v) == v) reach(v) = 1;
    });
    for (;;) {
      std::int64_t changed = 0;
      reduce_vertices("graph::scc::backward", g, TESSERA_LAMBDA(V v, std::int64_t & ch) {
        if (scc(v) != V(-1) || tessera::atomic_load(&reach(v))) return;
        const V c = color(v);
        for (auto w : adjacent_vertices(v, g))
          if (scc(V(w)) == V(-1) && color(V(w)) == c && tessera::atomic_load(&reach(V(w)))) {
            tessera::atomic_store(&reach(v), std::uint8_t(1));
            ++ch;
            break;
          }
      }, changed);
      if (changed == 0) break;
    }
    std::int64_t done = 0;
    reduce_vertices("graph::scc::assign_count", g, TESSERA_LAMBDA(V v, std::int64_t & d) {
      if (scc(v) == V(-1) && reach(v)) ++d;
    }, done);
    forall_vertices("graph::scc::assign", g, TESSERA_LAMBDA(V v) {
      if (scc(v) == V(-1) && reach(v)) scc(v) = color(v);
    });
    left -= done;
  }
  return detail::count_roots(g, scc);
}

}  // namespace tessera::graph
