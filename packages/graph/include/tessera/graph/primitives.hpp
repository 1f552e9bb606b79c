#pragma once
// Parallel iteration over a graph, on the graph's execution space:
//
//   forall_vertices(g, TESSERA_LAMBDA(vertex v) {...});
//   forall_edges(g, TESSERA_LAMBDA(const edge& e) {...});        // each edge once
//   reduce_vertices(g, TESSERA_LAMBDA(vertex v, T& acc) {...}, result | reducer...);
//   reduce_edges(g, TESSERA_LAMBDA(const edge& e, T& acc) {...}, result | reducer...);
//   linear_recurrence_v(g, pm, op);  // pm[v] = op(pm[v-1], pm[v]) for v = 1..n-1 (inclusive prefix)
//   linear_recurrence_e(g, pm, op);  // the same over edge indices
//   fill_v(g, pm, x); fill_e(g, pm, x);
//
// "Each edge once": directed graphs visit every out-edge; undirected graphs
// visit each edge from its lower endpoint (source(e) <= target(e)).
// Functors work as well as lambdas; reductions take any core reducer.
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/property_map.hpp>

#include <string>

namespace tessera::graph {

namespace detail {
// Rows are uneven (power-law degrees): hand them out dynamically in chunks.
template <class G>
using vertex_policy = tessera::RangePolicy<typename G::execution_space, tessera::Schedule<tessera::Dynamic>>;

template <class G>
vertex_policy<G> make_vertex_policy(const G& g, int chunk = 64) {
  return vertex_policy<G>(0, num_vertices(g), chunk);
}
}  // namespace detail

template <class G, class F>
void forall_vertices(const std::string& label, const G& g, const F& f) {
  using V = typename graph_traits<G>::vertex_descriptor;
  tessera::parallel_for(label, tessera::RangePolicy<typename G::execution_space>(0, num_vertices(g)),
                        TESSERA_LAMBDA(std::int64_t i) { f(V(i)); });
}
template <class G, class F>
void forall_vertices(const G& g, const F& f) {
  forall_vertices("graph::forall_vertices", g, f);
}

template <class G, class F>
void forall_edges(const std::string& label, const G& g, const F& f) {
  using V = typename graph_traits<G>::vertex_descriptor;
  constexpr bool undirected = is_undirected_graph_v<G>;
  tessera::parallel_for(label, detail::make_vertex_policy(g), TESSERA_LAMBDA(std::int64_t i) {
    for (const auto& e : out_edges(V(i), g))
      if (!undirected || source(e, g) <= target(e, g)) f(e);
  });
}
template <class G, class F>
void forall_edges(const G& g, const F& f) {
  forall_edges("graph::forall_edges", g, f);
}

namespace detail {
// Gives a wrapper the functor's value_type / init / join / final, when it has them,
// so functor reductions keep their own combine.
template <class F, class = void>
struct reduce_functor_traits_base {
  F f;
};
template <class F>
struct reduce_functor_traits_base<F, std::void_t<typename F::value_type>> {
  F f;
  using value_type = typename F::value_type;
  template <class A, class B>
  TESSERA_INLINE_FUNCTION void join(A& dst, const B& src) const {
    if constexpr (requires { f.join(dst, src); }) f.join(dst, src);
    else dst += src;
  }
  template <class A>
  TESSERA_INLINE_FUNCTION void init(A& v) const {
    if constexpr (requires { f.init(v); }) f.init(v);
    else v = value_type();
  }
  template <class A>
  TESSERA_INLINE_FUNCTION void final(A& v) const {
    if constexpr (requires { f.final(v); }) f.final(v);
  }
};

template <class G, class F>
struct edge_reduce_functor : reduce_functor_traits_base<F> {
  G g;
  edge_reduce_functor(const G& g_, const F& f_) : reduce_functor_traits_base<F>{f_}, g(g_) {}
  template <class... A>
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t i, A&... acc) const {
    using V = typename graph_traits<G>::vertex_descriptor;
    for (const auto& e : out_edges(V(i), g))
      if (!is_undirected_graph_v<G> || source(e, g) <= target(e, g)) this->f(e, acc...);
  }
};

template <class G, class F>
struct vertex_reduce_functor : reduce_functor_traits_base<F> {
  explicit vertex_reduce_functor(const F& f_) : reduce_functor_traits_base<F>{f_} {}
  template <class... A>
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t i, A&... acc) const {
    this->f(typename graph_traits<G>::vertex_descriptor(i), acc...);
  }
};
}  // namespace detail

template <class G, class F, class... R>
void reduce_vertices(const std::string& label, const G& g, const F& f, R&&... results) {
  tessera::parallel_reduce(label, tessera::RangePolicy<typename G::execution_space>(0, num_vertices(g)),
                           detail::vertex_reduce_functor<G, F>(f), std::forward<R>(results)...);
}
template <class G, class F, class R0, class... R>
  requires(!std::is_convertible_v<G, std::string>)
void reduce_vertices(const G& g, const F& f, R0&& r0, R&&... results) {
  reduce_vertices("graph::reduce_vertices", g, f, std::forward<R0>(r0), std::forward<R>(results)...);
}

template <class G, class F, class... R>
void reduce_edges(const std::string& label, const G& g, const F& f, R&&... results) {
  tessera::parallel_reduce(label, detail::make_vertex_policy(g), detail::edge_reduce_functor<G, F>(g, f),
                           std::forward<R>(results)...);
}
template <class G, class F, class R0, class... R>
  requires(!std::is_convertible_v<G, std::string>)
void reduce_edges(const G& g, const F& f, R0&& r0, R&&... results) {
  reduce_edges("graph::reduce_edges", g, f, std::forward<R0>(r0), std::forward<R>(results)...);
}

namespace detail {
// Inclusive prefix of x(0..n-1) under an associative op, in place: blocks
// reduce locally, one pass combines the block totals, blocks apply their
// carry. Deterministic for a given space (the block count depends only on n
// and the space's concurrency).
template <class Exec, class T, class S, class Op>
void inclusive_prefix(const tessera::View<T*, S>& x, const Op& op) {
  const std::int64_t n = std::int64_t(x.extent(0));
  if (n < 2) return;
  std::int64_t nb = std::int64_t(Exec().concurrency()) * 4;
  if constexpr (!tessera::detail::host_accessible<typename Exec::memory_space>::value) nb = 4096;
  if (nb > n / 64) nb = n / 64 > 0 ? n / 64 : 1;
  const std::int64_t bs = (n + nb - 1) / nb;
  nb = (n + bs - 1) / bs;
  tessera::View<T*, S> carry(tessera::view_alloc("graph::prefix::carry", tessera::WithoutInitializing), nb);
  tessera::parallel_for("graph::prefix::local", tessera::RangePolicy<Exec>(0, nb), TESSERA_LAMBDA(std::int64_t b) {
    const std::int64_t lo = b * bs, hi = lo + bs < n ? lo + bs : n;
    for (std::int64_t i = lo + 1; i < hi; ++i) x(i) = op(x(i - 1), x(i));
    carry(b) = x(hi - 1);
  });
  tessera::parallel_for("graph::prefix::carry", tessera::RangePolicy<Exec>(0, 1), TESSERA_LAMBDA(std::int64_t) {
    for (std::int64_t b = 1; b < nb; ++b) carry(b) = op(carry(b - 1), carry(b));
  });
  tessera::parallel_for("graph::prefix::apply", tessera::RangePolicy<Exec>(1, nb), TESSERA_LAMBDA(std::int64_t b) {
    const std::int64_t lo = b * bs, hi = lo + bs < n ? lo + bs : n;
    const T c = carry(b - 1);
    for (std::int64_t i = lo; i < hi; ++i) x(i) = op(c, x(i));
  });
}
}  // namespace detail

template <class G, class T, class S, class Op>
void linear_recurrence_v(const G& g, const vertex_property_map<G, T, S>& pm, const Op& op) {
  if (pm.size() != num_vertices(g))
    detail::fail("linear_recurrence_v: property map '" + pm.label() + "' has " + std::to_string(pm.size()) +
                 " values for " + std::to_string(num_vertices(g)) + " vertices");
  detail::inclusive_prefix<typename G::execution_space>(pm.view(), op);
}
template <class G, class T, class S, class Op>
void linear_recurrence_e(const G& g, const edge_property_map<G, T, S>& pm, const Op& op) {
  if (pm.size() != edge_index_bound(g))
    detail::fail("linear_recurrence_e: property map '" + pm.label() + "' has " + std::to_string(pm.size()) +
                 " values for " + std::to_string(edge_index_bound(g)) + " edge indices");
  detail::inclusive_prefix<typename G::execution_space>(pm.view(), op);
}

template <class G, class T, class S>
void fill_v(const G& g, const vertex_property_map<G, T, S>& pm, const T& value) {
  auto v = pm.view();
  tessera::parallel_for("graph::fill_v", tessera::RangePolicy<typename G::execution_space>(0, pm.size()),
                        TESSERA_LAMBDA(std::int64_t i) { v(i) = value; });
  (void)g;
}
template <class G, class T, class S>
void fill_e(const G& g, const edge_property_map<G, T, S>& pm, const T& value) {
  auto v = pm.view();
  tessera::parallel_for("graph::fill_e", tessera::RangePolicy<typename G::execution_space>(0, pm.size()),
                        TESSERA_LAMBDA(std::int64_t i) { v(i) = value; });
  (void)g;
}

}  // namespace tessera::graph
