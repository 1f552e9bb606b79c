#pragma once
// The generic graph API (Boost Graph Library / MTGL style, usable in kernels).
//
// A graph type G publishes its types through graph_traits<G> (by default the
// nested typedefs of G) and answers the generic functions, found by ADL:
//
//   num_vertices(g)        num_edges(g)            edge_index_bound(g)
//   vertices(g)            edges(g)   (host: a range of all edges)
//   out_edges(v, g)        in_edges(v, g)  (bidirectional / undirected)
//   adjacent_vertices(v, g)                        in_adjacent_vertices(v, g)
//   out_degree(v, g)       in_degree(v, g)
//   source(e, g)           target(e, g)
//   get_vertex_index(v, g) get_edge_index(e, g)
//
// Everything but edges(g) is TESSERA_INLINE_FUNCTION, so algorithms call it
// inside kernels. Vertex descriptors are integers 0..num_vertices-1 (they
// are their own index); edge descriptors carry source, target and an index
// in [0, edge_index_bound(g)), shared by both directions of an undirected
// edge, so an edge_property_map sees one value per undirected edge.
#include <tessera/core.hpp>

#include <cstdint>
#include <type_traits>

namespace tessera::graph {

// Directed categories (the DirectedS parameter of a graph).
//  directedS:      out-edges only.
//  undirectedS:    every edge is stored in both directions; out == in.
//  bidirectionalS: directed, with the transpose kept for in_edges.
struct directedS {
  static constexpr bool is_directed = true;
  static constexpr bool is_bidirectional = false;
};
struct undirectedS {
  static constexpr bool is_directed = false;
  static constexpr bool is_bidirectional = true;
};
struct bidirectionalS {
  static constexpr bool is_directed = true;
  static constexpr bool is_bidirectional = true;
};

template <class G>
struct graph_traits {
  using graph_type = G;
  using size_type = typename G::size_type;
  using vertex_descriptor = typename G::vertex_descriptor;
  using edge_descriptor = typename G::edge_descriptor;
  using vertex_iterator = typename G::vertex_iterator;
  using edge_iterator = typename G::edge_iterator;
  using adjacency_iterator = typename G::adjacency_iterator;
  using out_edge_iterator = typename G::out_edge_iterator;
  using in_edge_iterator = typename G::in_edge_iterator;
  using directed_category = typename G::directed_category;
  using execution_space = typename G::execution_space;
  using memory_space = typename G::memory_space;
  // Whether adjacent_vertices(v, g) is sorted by vertex id (triangles need it).
  static constexpr bool sorted_adjacency = G::sorted_adjacency;
  // Whether the k-th out-edge of v is O(1) (load balancing splits long lists).
  static constexpr bool random_access_adjacency = G::random_access_adjacency;

  static constexpr bool is_directed = directed_category::is_directed;
  static constexpr bool is_undirected = !directed_category::is_directed;
  static constexpr bool has_in_edges = directed_category::is_bidirectional;

  TESSERA_INLINE_FUNCTION static constexpr vertex_descriptor null_vertex() { return vertex_descriptor(-1); }
};

template <class G>
inline constexpr bool is_undirected_graph_v = graph_traits<G>::is_undirected;
template <class G>
inline constexpr bool has_in_edges_v = graph_traits<G>::has_in_edges;

// The edge descriptor of the library's graphs.
template <class Vertex, class EdgeIndex>
struct edge_descriptor {
  Vertex src = Vertex(-1);
  Vertex tgt = Vertex(-1);
  EdgeIndex id = EdgeIndex(-1);
  TESSERA_INLINE_FUNCTION friend bool operator==(const edge_descriptor& a, const edge_descriptor& b) {
    return a.src == b.src && a.tgt == b.tgt && a.id == b.id;
  }
};

namespace detail {
// The target of the edge an out-edge iterator points at, read without
// building the edge's descriptor where the iterator can (a CSR row): the
// descriptor's edge index may cost a search (undirected CSR graphs whose
// edge ids were not built), which loops that only follow edges skip.
template <class It, class G>
TESSERA_INLINE_FUNCTION auto edge_target(const It& it, const G& g) {
  if constexpr (requires { it.target_vertex(); }) return it.target_vertex();
  else return target(*it, g);
}
template <class It, class G>
TESSERA_INLINE_FUNCTION auto edge_source(const It& it, const G& g) {
  if constexpr (requires { it.source_vertex(); }) return it.source_vertex();
  else return source(*it, g);
}
// Whether the edge at `it` is one forall_edges and reduce_edges visit: every
// edge of a directed graph, an undirected edge from its lower endpoint.
// Read without the edge's index: on an undirected CSR graph the visited
// (upper) slots' indices are O(1), the others' would cost a search.
template <class G, class It>
TESSERA_INLINE_FUNCTION bool visits_once(const It& it, const G& g) {
  if constexpr (graph_traits<G>::is_undirected) return edge_source(it, g) <= edge_target(it, g);
  else return true;
}

// Whether a visitor reads the index of the edges it is handed: true unless
// it says otherwise with `static constexpr bool reads_edge_index = false;`
// (then the traversals may hand it descriptors whose id is -1, which spares
// an undirected CSR graph without stored ids a search per edge event).
template <class Vis>
struct visitor_reads_edge_index : std::true_type {};
template <class Vis>
  requires requires { Vis::reads_edge_index; }
struct visitor_reads_edge_index<Vis> : std::bool_constant<bool(Vis::reads_edge_index)> {};
template <class Vis>
inline constexpr bool visitor_reads_edge_index_v = visitor_reads_edge_index<Vis>::value;

// The descriptor of the edge at `it` for an event of visitor Vis: without
// its index where the visitor reads none and the iterator can leave it out.
template <class Vis, class It>
TESSERA_INLINE_FUNCTION auto visitor_edge(const It& it) {
  if constexpr (!visitor_reads_edge_index_v<Vis> && requires { it.unindexed(); }) return it.unindexed();
  else return *it;
}

// g with its edge indices stored, where the graph can store them
// (compressed_sparse_row_graph::with_edge_ids, built once per graph), or g
// itself: for loops that read the index of every edge they visit.
template <class G>
G with_stored_edge_indices(const G& g) {
  if constexpr (requires { g.with_edge_ids(); }) return g.with_edge_ids();
  else return g;
}
}  // namespace detail

// A contiguous range of integers (vertex descriptors): iterable in kernels.
template <class T>
class counting_iterator {
 public:
  using value_type = T;
  using difference_type = std::int64_t;
  TESSERA_DEFAULTED_FUNCTION counting_iterator() = default;
  TESSERA_INLINE_FUNCTION explicit counting_iterator(T v) : m_v(v) {}
  TESSERA_INLINE_FUNCTION T operator*() const { return m_v; }
  TESSERA_INLINE_FUNCTION counting_iterator& operator++() { ++m_v; return *this; }
  TESSERA_INLINE_FUNCTION T operator[](difference_type k) const { return T(m_v + k); }
  TESSERA_INLINE_FUNCTION friend bool operator==(counting_iterator a, counting_iterator b) { return a.m_v == b.m_v; }
  TESSERA_INLINE_FUNCTION friend bool operator!=(counting_iterator a, counting_iterator b) { return a.m_v != b.m_v; }
  TESSERA_INLINE_FUNCTION friend difference_type operator-(counting_iterator a, counting_iterator b) {
    return difference_type(a.m_v) - difference_type(b.m_v);
  }

 private:
  T m_v{};
};

// begin/end pair usable in range-for inside kernels, with size() and [k]
// when the iterator is random access.
template <class It>
class iterator_range {
 public:
  TESSERA_DEFAULTED_FUNCTION iterator_range() = default;
  TESSERA_INLINE_FUNCTION iterator_range(It b, It e) : m_b(b), m_e(e) {}
  TESSERA_INLINE_FUNCTION It begin() const { return m_b; }
  TESSERA_INLINE_FUNCTION It end() const { return m_e; }
  TESSERA_INLINE_FUNCTION std::int64_t size() const { return std::int64_t(m_e - m_b); }
  TESSERA_INLINE_FUNCTION bool empty() const { return !(m_b != m_e); }
  TESSERA_INLINE_FUNCTION auto operator[](std::int64_t k) const { return m_b[k]; }
  // BGL spelling: tie(first, last) = out_edges(v, g).
  TESSERA_INLINE_FUNCTION It first() const { return m_b; }
  TESSERA_INLINE_FUNCTION It second() const { return m_e; }

 private:
  It m_b{}, m_e{};
};

}  // namespace tessera::graph
