#pragma once
// Adapters: views of a graph that are themselves full graphs (every generic
// function, every algorithm), without copying the adjacency.
//
//   transpose_adapter<G> t(g);        // edges reversed; G must have in-edges
//   subgraph_adapter<G> s(g, vmask);  // the subgraph induced by vmask (View<T*> of G's space, nonzero = keep)
//   subgraph_adapter<G> s(g, vmask, emask);   // ... keeping only edges with emask(get_edge_index(e, g)) != 0
//   subgraph_adapter<G> s(g, {}, emask);      // all vertices, some edges
//
// A subgraph renumbers its vertices 0..k-1 in the order of their ids in g
// (local_to_global(v) / global_to_local(u) translate), so it answers exactly
// like the materialized induced subgraph. Edge indices are g's (so edge
// property maps of g work on it): edge_index_bound(s) == edge_index_bound(g).
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/primitives.hpp>

#include <string>

namespace tessera::graph {

namespace detail {
// Turns a (u -> v) descriptor into (v -> u).
template <class It>
class reversed_edge_iterator {
 public:
  using value_type = typename It::value_type;
  using difference_type = std::int64_t;
  TESSERA_DEFAULTED_FUNCTION reversed_edge_iterator() = default;
  TESSERA_INLINE_FUNCTION explicit reversed_edge_iterator(It it) : m_it(it) {}
  TESSERA_INLINE_FUNCTION value_type operator*() const { return flip(*m_it); }
  TESSERA_INLINE_FUNCTION value_type operator[](difference_type k) const { return flip(m_it[k]); }
  TESSERA_INLINE_FUNCTION reversed_edge_iterator operator+(difference_type k) const { return reversed_edge_iterator(m_it + k); }
  // The reversed edge's target (the base edge's source) and its descriptor
  // without the index, where the base iterator offers them (a CSR row):
  // detail::edge_target and detail::visitor_edge use them.
  TESSERA_INLINE_FUNCTION auto target_vertex() const
    requires requires(const It& it) { it.source_vertex(); }
  {
    return m_it.source_vertex();
  }
  TESSERA_INLINE_FUNCTION auto source_vertex() const
    requires requires(const It& it) { it.target_vertex(); }
  {
    return m_it.target_vertex();
  }
  TESSERA_INLINE_FUNCTION value_type unindexed() const
    requires requires(const It& it) { it.unindexed(); }
  {
    return flip(m_it.unindexed());
  }
  TESSERA_INLINE_FUNCTION reversed_edge_iterator& operator++() {
    ++m_it;
    return *this;
  }
  TESSERA_INLINE_FUNCTION friend bool operator==(const reversed_edge_iterator& a, const reversed_edge_iterator& b) { return a.m_it == b.m_it; }
  TESSERA_INLINE_FUNCTION friend bool operator!=(const reversed_edge_iterator& a, const reversed_edge_iterator& b) { return a.m_it != b.m_it; }
  TESSERA_INLINE_FUNCTION friend difference_type operator-(const reversed_edge_iterator& a, const reversed_edge_iterator& b) {
    return a.m_it - b.m_it;
  }

 private:
  TESSERA_INLINE_FUNCTION static value_type flip(value_type e) {
    const auto s = e.src;
    e.src = e.tgt;
    e.tgt = s;
    return e;
  }
  It m_it{};
};

template <class R>
TESSERA_INLINE_FUNCTION auto reversed_range(const R& r) {
  using It = reversed_edge_iterator<decltype(r.begin())>;
  return iterator_range<It>(It(r.begin()), It(r.end()));
}
}  // namespace detail

template <class G>
class transpose_adapter {
  static_assert(graph_traits<G>::has_in_edges,
                "transpose_adapter needs in-edges: build the graph as bidirectionalS (or undirectedS)");

 public:
  using base_graph = G;
  using directed_category = typename graph_traits<G>::directed_category;
  using execution_space = typename G::execution_space;
  using memory_space = typename G::memory_space;
  using space_type = typename G::space_type;
  using size_type = typename graph_traits<G>::size_type;
  using vertex_descriptor = typename graph_traits<G>::vertex_descriptor;
  using edge_descriptor = typename graph_traits<G>::edge_descriptor;
  using vertex_iterator = typename graph_traits<G>::vertex_iterator;
  using adjacency_iterator = typename graph_traits<G>::adjacency_iterator;
  using out_edge_iterator = detail::reversed_edge_iterator<typename graph_traits<G>::in_edge_iterator>;
  using in_edge_iterator = detail::reversed_edge_iterator<typename graph_traits<G>::out_edge_iterator>;
  using edge_iterator = void;  // host edges(g) is not offered: use forall_edges
  static constexpr bool sorted_adjacency = graph_traits<G>::sorted_adjacency;
  static constexpr bool random_access_adjacency = graph_traits<G>::random_access_adjacency;

  transpose_adapter() = default;
  explicit transpose_adapter(const G& g) : m_g(g) {}
  TESSERA_INLINE_FUNCTION const G& base() const { return m_g; }

 private:
  G m_g;
};

#define TESSERA_GRAPH_TA_V std::type_identity_t<typename graph_traits<G>::vertex_descriptor>
template <class G> TESSERA_INLINE_FUNCTION std::int64_t num_vertices(const transpose_adapter<G>& t) { return num_vertices(t.base()); }
template <class G> TESSERA_INLINE_FUNCTION std::int64_t num_edges(const transpose_adapter<G>& t) { return num_edges(t.base()); }
template <class G> TESSERA_INLINE_FUNCTION std::int64_t edge_index_bound(const transpose_adapter<G>& t) { return edge_index_bound(t.base()); }
template <class G> TESSERA_INLINE_FUNCTION auto vertices(const transpose_adapter<G>& t) { return vertices(t.base()); }
template <class G> TESSERA_INLINE_FUNCTION auto out_edges(TESSERA_GRAPH_TA_V v, const transpose_adapter<G>& t) {
  return detail::reversed_range(in_edges(v, t.base()));
}
template <class G> TESSERA_INLINE_FUNCTION auto in_edges(TESSERA_GRAPH_TA_V v, const transpose_adapter<G>& t) {
  return detail::reversed_range(out_edges(v, t.base()));
}
template <class G> TESSERA_INLINE_FUNCTION auto adjacent_vertices(TESSERA_GRAPH_TA_V v, const transpose_adapter<G>& t) {
  return in_adjacent_vertices(v, t.base());
}
template <class G> TESSERA_INLINE_FUNCTION auto in_adjacent_vertices(TESSERA_GRAPH_TA_V v, const transpose_adapter<G>& t) {
  return adjacent_vertices(v, t.base());
}
template <class G> TESSERA_INLINE_FUNCTION std::int64_t out_degree(TESSERA_GRAPH_TA_V v, const transpose_adapter<G>& t) { return in_degree(v, t.base()); }
template <class G> TESSERA_INLINE_FUNCTION std::int64_t in_degree(TESSERA_GRAPH_TA_V v, const transpose_adapter<G>& t) { return out_degree(v, t.base()); }
template <class G> TESSERA_INLINE_FUNCTION auto source(const typename graph_traits<G>::edge_descriptor& e, const transpose_adapter<G>&) { return e.src; }
template <class G> TESSERA_INLINE_FUNCTION auto target(const typename graph_traits<G>::edge_descriptor& e, const transpose_adapter<G>&) { return e.tgt; }
template <class G> TESSERA_INLINE_FUNCTION auto get_vertex_index(TESSERA_GRAPH_TA_V v, const transpose_adapter<G>&) { return v; }
template <class G> TESSERA_INLINE_FUNCTION auto get_edge_index(const typename graph_traits<G>::edge_descriptor& e, const transpose_adapter<G>&) { return e.id; }
#undef TESSERA_GRAPH_TA_V

// ---------------------------------------------------------------------------
namespace detail {
// Walks an edge range of the base graph, skipping masked-out edges and
// targets, and yields descriptors in local vertex ids.
template <class BaseIt, class Vertex, class Index, class Space>
class masked_edge_iterator {
 public:
  using value_type = typename BaseIt::value_type;
  using difference_type = std::int64_t;
  TESSERA_DEFAULTED_FUNCTION masked_edge_iterator() = default;
  // Far == true: the "other end" of a base edge is its source (in-edges).
  TESSERA_INLINE_FUNCTION masked_edge_iterator(BaseIt it, BaseIt end, const Vertex* g2l, const Index* emask, bool far_is_source)
      : m_it(it), m_end(end), m_g2l(g2l), m_emask(emask), m_far_src(far_is_source) {
    settle();
  }
  TESSERA_INLINE_FUNCTION value_type operator*() const {
    value_type e = *m_it;
    e.src = m_g2l[e.src];
    e.tgt = m_g2l[e.tgt];
    return e;
  }
  TESSERA_INLINE_FUNCTION masked_edge_iterator& operator++() {
    ++m_it;
    settle();
    return *this;
  }
  TESSERA_INLINE_FUNCTION friend bool operator==(const masked_edge_iterator& a, const masked_edge_iterator& b) { return a.m_it == b.m_it; }
  TESSERA_INLINE_FUNCTION friend bool operator!=(const masked_edge_iterator& a, const masked_edge_iterator& b) { return a.m_it != b.m_it; }

 private:
  TESSERA_INLINE_FUNCTION void settle() {
    while (m_it != m_end) {
      const value_type e = *m_it;
      const bool keep_edge = m_emask == nullptr || m_emask[e.id] != 0;
      if (keep_edge && m_g2l[m_far_src ? e.src : e.tgt] >= 0) return;
      ++m_it;
    }
  }
  BaseIt m_it{}, m_end{};
  const Vertex* m_g2l = nullptr;
  const Index* m_emask = nullptr;
  bool m_far_src = false;
};

// Adjacent vertices of the masked view: targets of the masked out-edges.
template <class EdgeIt>
class masked_adjacency_iterator {
 public:
  using value_type = decltype((*EdgeIt()).tgt);
  using difference_type = std::int64_t;
  TESSERA_DEFAULTED_FUNCTION masked_adjacency_iterator() = default;
  TESSERA_INLINE_FUNCTION masked_adjacency_iterator(EdgeIt it, bool far_is_source) : m_it(it), m_far_src(far_is_source) {}
  TESSERA_INLINE_FUNCTION value_type operator*() const {
    const auto e = *m_it;
    return m_far_src ? e.src : e.tgt;
  }
  TESSERA_INLINE_FUNCTION masked_adjacency_iterator& operator++() {
    ++m_it;
    return *this;
  }
  TESSERA_INLINE_FUNCTION friend bool operator==(const masked_adjacency_iterator& a, const masked_adjacency_iterator& b) { return a.m_it == b.m_it; }
  TESSERA_INLINE_FUNCTION friend bool operator!=(const masked_adjacency_iterator& a, const masked_adjacency_iterator& b) { return a.m_it != b.m_it; }

 private:
  EdgeIt m_it{};
  bool m_far_src = false;
};
// The construction kernels of subgraph_adapter, as free functions: nvcc does
// not allow extended (device) lambdas inside a constructor.
template <class V, class M, class S>
struct subgraph_maps {
  std::int64_t k = 0;
  tessera::View<V*, S> g2l, l2g;
  tessera::View<M*, S> emask;
};

// Renumbers the kept vertices 0..k-1 in id order; copies the edge mask (if any).
template <class Exec, class V, class M, class S, class VM, class EM>
subgraph_maps<V, M, S> make_subgraph_maps(std::int64_t n, std::int64_t edge_bound, const VM& vm, bool has_vm,
                                          const EM& em, bool has_em) {
  subgraph_maps<V, M, S> r;
  tessera::View<std::int64_t*, S> pos("graph::subgraph::pos", n + 1);
  tessera::parallel_for("graph::subgraph::vflags", tessera::RangePolicy<Exec>(0, n),
                        TESSERA_LAMBDA(std::int64_t v) { pos(v) = (!has_vm || vm(v) != 0) ? 1 : 0; });
  r.k = detail::exclusive_scan_inplace<Exec>("graph::subgraph::vscan", pos, n);
  r.g2l = tessera::View<V*, S>(tessera::view_alloc("graph::subgraph::global_to_local", tessera::WithoutInitializing), n);
  r.l2g = tessera::View<V*, S>(tessera::view_alloc("graph::subgraph::local_to_global", tessera::WithoutInitializing), r.k);
  r.emask = tessera::View<M*, S>(tessera::view_alloc("graph::subgraph::edge_mask", tessera::WithoutInitializing),
                                 has_em ? edge_bound : 0);
  auto g2l = r.g2l;
  auto l2g = r.l2g;
  auto emask = r.emask;
  tessera::parallel_for("graph::subgraph::maps", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) {
    const bool keep = pos(v + 1) != pos(v);
    g2l(v) = keep ? V(pos(v)) : V(-1);
    if (keep) l2g(pos(v)) = V(v);
  });
  if (has_em)
    tessera::parallel_for("graph::subgraph::emask", tessera::RangePolicy<Exec>(0, edge_bound),
                          TESSERA_LAMBDA(std::int64_t i) { emask(i) = em(i) != 0 ? 1 : 0; });
  return r;
}

template <class S>
struct subgraph_degrees {
  tessera::View<std::int64_t*, S> out, in;  // in: directed graphs with in-edges only
  std::int64_t m = 0;                       // edges of the view
};

// Out- (and in-) degrees of a subgraph whose maps are set, and its edge count.
template <class A>
subgraph_degrees<typename A::space_type> count_subgraph_degrees(const A& self) {
  using G = typename A::base_graph;
  using Exec = typename A::execution_space;
  using S = typename A::space_type;
  using V = typename A::vertex_descriptor;
  const std::int64_t k = self.num_vertices();
  subgraph_degrees<S> r;
  r.out = tessera::View<std::int64_t*, S>("graph::subgraph::out_degree", k);
  auto odeg = r.out;
  std::int64_t stored = 0, loops = 0;
  tessera::parallel_reduce(
      "graph::subgraph::degrees", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, k, 64),
      TESSERA_LAMBDA(std::int64_t v, std::int64_t & s, std::int64_t & l) {
        std::int64_t d = 0;
        for (auto e : self.out(V(v))) {
          ++d;
          if (e.src == e.tgt) ++l;
        }
        odeg(v) = d;
        s += d;
      },
      tessera::Sum<std::int64_t>(stored), tessera::Sum<std::int64_t>(loops));
  r.m = graph_traits<G>::is_undirected ? (stored + loops) / 2 : stored;
  if constexpr (graph_traits<G>::has_in_edges && graph_traits<G>::is_directed) {
    r.in = tessera::View<std::int64_t*, S>("graph::subgraph::in_degree", k);
    auto ideg = r.in;
    tessera::parallel_for("graph::subgraph::in_degrees", tessera::RangePolicy<Exec>(0, k), TESSERA_LAMBDA(std::int64_t v) {
      std::int64_t d = 0;
      for (auto e : self.in(V(v))) {
        (void)e;
        ++d;
      }
      ideg(v) = d;
    });
  }
  return r;
}
}  // namespace detail

template <class G>
class subgraph_adapter {
 public:
  using base_graph = G;
  using directed_category = typename graph_traits<G>::directed_category;
  using execution_space = typename G::execution_space;
  using memory_space = typename G::memory_space;
  using space_type = typename G::space_type;
  using size_type = typename graph_traits<G>::size_type;
  using vertex_descriptor = typename graph_traits<G>::vertex_descriptor;
  using edge_descriptor = typename graph_traits<G>::edge_descriptor;
  using vertex_iterator = counting_iterator<vertex_descriptor>;
  using mask_index = std::int8_t;
  using out_edge_iterator =
      detail::masked_edge_iterator<typename graph_traits<G>::out_edge_iterator, vertex_descriptor, mask_index, space_type>;
  using in_edge_iterator = std::conditional_t<
      graph_traits<G>::has_in_edges,
      detail::masked_edge_iterator<typename graph_traits<G>::in_edge_iterator, vertex_descriptor, mask_index, space_type>,
      void>;
  using adjacency_iterator = detail::masked_adjacency_iterator<out_edge_iterator>;
  using edge_iterator = void;
  static constexpr bool sorted_adjacency = graph_traits<G>::sorted_adjacency;  // renumbering keeps the order
  static constexpr bool random_access_adjacency = false;

  subgraph_adapter() = default;

  // vertex_mask: one value per vertex of g (nonzero = keep); an empty View keeps all.
  // edge_mask: one value per edge index of g (nonzero = keep); an empty View keeps all.
  template <class VM = tessera::View<int*, space_type>, class EM = tessera::View<int*, space_type>>
  // The view keeps g with its edge ids stored (detail::with_stored_edge_indices):
  // its edge ranges read the index of every edge they filter.
  subgraph_adapter(const G& g, const VM& vertex_mask, const EM& edge_mask = EM())
      : m_g(detail::with_stored_edge_indices(g)) {
    using Exec = execution_space;
    using V = vertex_descriptor;
    const std::int64_t n = tessera::graph::num_vertices(g);
    const bool has_vm = vertex_mask.data() != nullptr || vertex_mask.extent(0) != 0;
    const bool has_em = edge_mask.data() != nullptr || edge_mask.extent(0) != 0;
    if (has_vm && std::int64_t(vertex_mask.extent(0)) != n)
      detail::fail("subgraph_adapter: vertex mask '" + vertex_mask.label() + "' has " +
                   std::to_string(vertex_mask.extent(0)) + " values for " + std::to_string(n) + " vertices");
    if (has_em && std::int64_t(edge_mask.extent(0)) != edge_index_bound(g))
      detail::fail("subgraph_adapter: edge mask '" + edge_mask.label() + "' has " + std::to_string(edge_mask.extent(0)) +
                   " values for " + std::to_string(edge_index_bound(g)) + " edge indices");
    auto maps = detail::make_subgraph_maps<Exec, V, mask_index, space_type>(
        n, edge_index_bound(g), tessera::create_mirror_view_and_copy(memory_space(), vertex_mask), has_vm,
        tessera::create_mirror_view_and_copy(memory_space(), edge_mask), has_em);
    m_k = maps.k;
    m_g2l = maps.g2l;
    m_l2g = maps.l2g;
    m_emask = maps.emask;
    // Degrees of the view (ranges are filtered, so degrees are counted once here).
    auto deg = detail::count_subgraph_degrees(*this);
    m_out_deg = deg.out;
    m_in_deg = deg.in;
    m_m = deg.m;
  }

  TESSERA_INLINE_FUNCTION const G& base() const { return m_g; }
  TESSERA_INLINE_FUNCTION size_type num_vertices() const { return m_k; }
  TESSERA_INLINE_FUNCTION size_type num_edges() const { return m_m; }
  TESSERA_INLINE_FUNCTION vertex_descriptor local_to_global(vertex_descriptor v) const { return m_l2g(v); }
  // -1 for a vertex of g that is not in the subgraph.
  TESSERA_INLINE_FUNCTION vertex_descriptor global_to_local(vertex_descriptor u) const { return m_g2l(u); }
  TESSERA_INLINE_FUNCTION size_type out_degree(vertex_descriptor v) const { return m_out_deg(v); }
  TESSERA_INLINE_FUNCTION size_type in_degree(vertex_descriptor v) const {
    if constexpr (graph_traits<G>::is_directed) return m_in_deg(v);
    else return m_out_deg(v);
  }
  TESSERA_INLINE_FUNCTION iterator_range<out_edge_iterator> out(vertex_descriptor v) const {
    const auto r = out_edges(m_l2g(v), m_g);
    const mask_index* em = m_emask.extent(0) ? m_emask.data() : nullptr;
    return {out_edge_iterator(r.begin(), r.end(), m_g2l.data(), em, false),
            out_edge_iterator(r.end(), r.end(), m_g2l.data(), em, false)};
  }
  TESSERA_INLINE_FUNCTION auto in(vertex_descriptor v) const {
    const auto r = in_edges(m_l2g(v), m_g);
    const mask_index* em = m_emask.extent(0) ? m_emask.data() : nullptr;
    return iterator_range<in_edge_iterator>(in_edge_iterator(r.begin(), r.end(), m_g2l.data(), em, true),
                                            in_edge_iterator(r.end(), r.end(), m_g2l.data(), em, true));
  }
  TESSERA_INLINE_FUNCTION iterator_range<adjacency_iterator> adjacent(vertex_descriptor v) const {
    const auto r = out(v);
    return {adjacency_iterator(r.begin(), false), adjacency_iterator(r.end(), false)};
  }
  TESSERA_INLINE_FUNCTION auto in_adjacent(vertex_descriptor v) const {
    const auto r = in(v);
    using It = detail::masked_adjacency_iterator<in_edge_iterator>;
    return iterator_range<It>(It(r.begin(), true), It(r.end(), true));
  }

 private:
  G m_g;
  size_type m_k = 0;
  size_type m_m = 0;
  tessera::View<vertex_descriptor*, space_type> m_g2l, m_l2g;
  tessera::View<mask_index*, space_type> m_emask;
  tessera::View<std::int64_t*, space_type> m_out_deg, m_in_deg;
};

#define TESSERA_GRAPH_SA_V std::type_identity_t<typename graph_traits<G>::vertex_descriptor>
template <class G> TESSERA_INLINE_FUNCTION std::int64_t num_vertices(const subgraph_adapter<G>& s) { return s.num_vertices(); }
template <class G> TESSERA_INLINE_FUNCTION std::int64_t num_edges(const subgraph_adapter<G>& s) { return s.num_edges(); }
template <class G> TESSERA_INLINE_FUNCTION std::int64_t edge_index_bound(const subgraph_adapter<G>& s) { return edge_index_bound(s.base()); }
template <class G> TESSERA_INLINE_FUNCTION auto vertices(const subgraph_adapter<G>& s) {
  using V = typename graph_traits<G>::vertex_descriptor;
  return iterator_range<counting_iterator<V>>(counting_iterator<V>(0), counting_iterator<V>(V(s.num_vertices())));
}
template <class G> TESSERA_INLINE_FUNCTION auto out_edges(TESSERA_GRAPH_SA_V v, const subgraph_adapter<G>& s) { return s.out(v); }
template <class G> TESSERA_INLINE_FUNCTION auto in_edges(TESSERA_GRAPH_SA_V v, const subgraph_adapter<G>& s) { return s.in(v); }
template <class G> TESSERA_INLINE_FUNCTION auto adjacent_vertices(TESSERA_GRAPH_SA_V v, const subgraph_adapter<G>& s) { return s.adjacent(v); }
template <class G> TESSERA_INLINE_FUNCTION auto in_adjacent_vertices(TESSERA_GRAPH_SA_V v, const subgraph_adapter<G>& s) { return s.in_adjacent(v); }
template <class G> TESSERA_INLINE_FUNCTION std::int64_t out_degree(TESSERA_GRAPH_SA_V v, const subgraph_adapter<G>& s) { return s.out_degree(v); }
template <class G> TESSERA_INLINE_FUNCTION std::int64_t in_degree(TESSERA_GRAPH_SA_V v, const subgraph_adapter<G>& s) { return s.in_degree(v); }
template <class G> TESSERA_INLINE_FUNCTION auto source(const typename graph_traits<G>::edge_descriptor& e, const subgraph_adapter<G>&) { return e.src; }
template <class G> TESSERA_INLINE_FUNCTION auto target(const typename graph_traits<G>::edge_descriptor& e, const subgraph_adapter<G>&) { return e.tgt; }
template <class G> TESSERA_INLINE_FUNCTION auto get_vertex_index(TESSERA_GRAPH_SA_V v, const subgraph_adapter<G>&) { return v; }
template <class G> TESSERA_INLINE_FUNCTION auto get_edge_index(const typename graph_traits<G>::edge_descriptor& e, const subgraph_adapter<G>&) { return e.id; }
#undef TESSERA_GRAPH_SA_V

}  // namespace tessera::graph
