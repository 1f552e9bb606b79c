#pragma once
// Parallel iteration over a graph, on the graph's execution space:
//
//   forall_vertices(g, TESSERA_LAMBDA(vertex v) {...});
//   forall_edges(g, TESSERA_LAMBDA(const edge& e) {...} [, traversal_options]);   // each edge once
//   reduce_vertices(g, TESSERA_LAMBDA(vertex v, T& acc) {...}, result | reducer...);
//   reduce_edges(g, TESSERA_LAMBDA(const edge& e, T& acc) {...} [, traversal_options], result | reducer...);
//   advance(g, frontier, TESSERA_LAMBDA(vertex u, const edge& e) {...} [, traversal_options]);  // advance.hpp
//   linear_recurrence_v(g, pm, op);  // pm[v] = op(pm[v-1], pm[v]) for v = 1..n-1 (inclusive prefix)
//   linear_recurrence_e(g, pm, op);  // the same over edge indices
//   fill_v(g, pm, x); fill_e(g, pm, x);
//
// "Each edge once": directed graphs visit every out-edge; undirected graphs
// visit each edge from its lower endpoint (source(e) <= target(e)).
// Functors work as well as lambdas; reductions take any core reducer.
//
// Schedules (traversal_options.hpp): on graphs with random-access adjacency
// (CSR, its transpose) the edge loops run edge_balanced on device spaces, so
// a hub is shared by many threads, and keep the vertex loop on host spaces,
// whose figures it gives; any schedule can be asked for on any space.
// reduce_edges takes vertex_loop or edge_balanced (by_degree runs as
// edge_balanced there: its three kernels would need three partial results).
#include <tessera/graph/detail/degree_bins.hpp>
#include <tessera/graph/detail/merge_path.hpp>
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/property_map.hpp>
#include <tessera/graph/traversal_options.hpp>

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

namespace detail {
// The schedule a traversal of G on its space runs (see traversal_options.hpp).
// Host or device is the execution space's question, not the memory's: a
// graph in UVM memory is traversed by the GPU.
template <class G>
edge_schedule resolve_schedule(const traversal_options& opts) {
  if constexpr (!graph_traits<G>::random_access_adjacency) {
    return edge_schedule::vertex_loop;  // the balanced schedules index into rows
  } else {
    if (opts.schedule != edge_schedule::automatic) return opts.schedule;
    return tessera::is_host_execution_space<typename G::execution_space>::value ? edge_schedule::vertex_loop
                                                                               : edge_schedule::edge_balanced;
  }
}

// A CSR graph's row map is the offsets of all its rows; other graphs get a
// scan of their degrees.
template <class G>
concept has_row_map = requires(const G& g) { g.row_map(); };

// forall_edges' visit of the edge at `it`: each undirected edge from its
// lower endpoint.
template <class G, class F>
struct forall_edges_sink {
  G g;
  F f;
  template <class V, class It>
  TESSERA_INLINE_FUNCTION void operator()(const V&, const It& it) const {
    if (visits_once(it, g)) f(*it);
  }
};

// sink(u, it) for every out-edge of every vertex, balanced (random access only).
template <class G, class Sink>
void all_edges_balanced(const std::string& label, const G& g, const Sink& sink, edge_schedule schedule,
                        const traversal_options& opts) {
  using Exec = typename G::execution_space;
  using V = typename graph_traits<G>::vertex_descriptor;
  const std::int64_t n = num_vertices(g);
  if (schedule == edge_schedule::by_degree) {
    by_degree_for<Exec>(label, g, all_rows<V>{}, n, sink, opts);
  } else if constexpr (has_row_map<G>) {
    const std::int64_t m = n > 0 ? std::int64_t(g.num_stored_edges()) : 0;
    edge_balanced_for<Exec>(label, g, g.row_map(), all_rows<V>{}, n, m, sink, opts);
  } else {
    std::int64_t m = 0;
    auto offs = row_edge_offsets<Exec, typename G::memory_space>(g, all_rows<V>{}, n, m);
    edge_balanced_for<Exec>(label, g, offs, all_rows<V>{}, n, m, sink, opts);
  }
}
}  // namespace detail

template <class G, class F>
void forall_edges(const std::string& label, const G& g, const F& f, const traversal_options& opts = {}) {
  using V = typename graph_traits<G>::vertex_descriptor;
  const edge_schedule schedule = detail::resolve_schedule<G>(opts);
  if constexpr (graph_traits<G>::random_access_adjacency) {
    if (schedule != edge_schedule::vertex_loop) {
      detail::all_edges_balanced(label, g, detail::forall_edges_sink<G, F>{g, f}, schedule, opts);
      return;
    }
  }
  // Targets are read before descriptors are built: an undirected CSR graph
  // computes the index of a slot it visits (src <= tgt) in O(1), and never
  // needs the others'.
  tessera::parallel_for(label, detail::make_vertex_policy(g), TESSERA_LAMBDA(std::int64_t i) {
    const auto r = out_edges(V(i), g);
    for (auto it = r.begin(); it != r.end(); ++it)
      if (detail::visits_once(it, g)) f(*it);
  });
}
template <class G, class F>
  requires(!std::is_convertible_v<G, std::string>)
void forall_edges(const G& g, const F& f, const traversal_options& opts = {}) {
  forall_edges("graph::forall_edges", g, f, opts);
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
    const auto r = out_edges(V(i), g);
    for (auto it = r.begin(); it != r.end(); ++it)
      if (visits_once(it, g)) this->f(*it, acc...);
  }
};

// Work item c of an edge-balanced reduce_edges (steps [c * per, (c + 1) * per)).
template <class G, class Off, class F>
struct edge_balanced_reduce_functor : reduce_functor_traits_base<F> {
  G g;
  Off offs;
  std::int64_t n, m, per;
  edge_balanced_reduce_functor(const G& g_, const F& f_, const Off& o, std::int64_t n_, std::int64_t m_,
                               std::int64_t per_)
      : reduce_functor_traits_base<F>{f_}, g(g_), offs(o), n(n_), m(m_), per(per_) {}
  template <class... A>
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t c, A&... acc) const {
    using V = typename graph_traits<G>::vertex_descriptor;
    const std::int64_t d0 = c * per, d1 = d0 + per < n + m ? d0 + per : n + m;
    merge_path_walk(g, offs, all_rows<V>{}, n, m, d0, d1, [&](const V&, const auto& it) {
      if (visits_once(it, g)) this->f(*it, acc...);
    });
  }
};

template <class... R>
inline constexpr bool first_is_options_v = false;
template <class R0, class... R>
inline constexpr bool first_is_options_v<R0, R...> = std::is_same_v<std::remove_cvref_t<R0>, traversal_options>;

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
void reduce_edges(const std::string& label, const G& g, const F& f, const traversal_options& opts,
                  R&&... results) {
  using Exec = typename G::execution_space;
  if constexpr (graph_traits<G>::random_access_adjacency) {
    if (detail::resolve_schedule<G>(opts) != edge_schedule::vertex_loop) {
      using V = typename graph_traits<G>::vertex_descriptor;
      const std::int64_t n = num_vertices(g);
      const std::int64_t per = detail::merge_path_steps(opts.steps_per_item, tessera::is_host_execution_space<Exec>::value);
      auto run = [&](const auto& offs, std::int64_t m) {
        using Off = std::decay_t<decltype(offs)>;
        tessera::parallel_reduce(label,
                                 tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, (n + m + per - 1) / per, 1),
                                 detail::edge_balanced_reduce_functor<G, Off, F>(g, f, offs, n, m, per),
                                 std::forward<R>(results)...);
      };
      if constexpr (detail::has_row_map<G>) {
        run(g.row_map(), n > 0 ? std::int64_t(g.num_stored_edges()) : 0);
      } else {
        std::int64_t m = 0;
        auto offs = detail::row_edge_offsets<Exec, typename G::memory_space>(g, detail::all_rows<V>{}, n, m);
        run(offs, m);
      }
      return;
    }
  }
  tessera::parallel_reduce(label, detail::make_vertex_policy(g), detail::edge_reduce_functor<G, F>(g, f),
                           std::forward<R>(results)...);
}
template <class G, class F, class... R>
  requires(!detail::first_is_options_v<R...>)
void reduce_edges(const std::string& label, const G& g, const F& f, R&&... results) {
  reduce_edges(label, g, f, traversal_options{}, std::forward<R>(results)...);
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
