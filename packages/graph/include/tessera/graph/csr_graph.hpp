#pragma once
// compressed_sparse_row_graph<DirectedS, Space, Vertex, EdgeIndex>: an
// immutable CSR graph, built in parallel on its space from an edge list.
//
//   using G = tessera::graph::compressed_sparse_row_graph<tessera::graph::undirectedS>;
//   G g(el, tessera::graph::build_options::simple());   // from an edge_list
//   G g(n, src_view, dst_view, opts);                   // from Views (any integer type)
//
// Storage: row_map (n+1 offsets) and entries (targets, sorted within each
// row). directedS uses the slot as the edge index; bidirectionalS also keeps
// the transpose (transpose_row_map, transpose_entries, and for each in-slot
// the index of its out-edge). undirectedS stores each edge in both
// directions; both slots share one index in [0, num_edges). Those indices are
// not stored by default (a 64-bit index per slot was two thirds of a
// Kronecker graph's bytes, and BFS, PageRank, components and triangles never
// read them): upper_start (n+1 offsets) numbers the slots with src <= tgt row
// by row, and a slot with src > tgt finds its twin by one binary search.
// advance, SSSP and the edge masks ask for the stored array (edge_ids()),
// which is built once per graph and shared by its copies. The object is a
// handle: copies share the arrays, and it is captured by value in kernels,
// where every accessor is callable.
//
// EdgeIndex (std::int64_t by default) counts slots: std::int32_t halves the
// offsets of a graph with fewer than 2^31 slots (an undirected edge takes
// two), and a build whose edge list could need more slots than EdgeIndex
// holds is refused up front. On two host cores Kronecker 19 ran BFS,
// components and PageRank at the same speed with either width, so the tools
// keep 64 bits.
#include <tessera/graph/detail/csr_counting_build.hpp>
#include <tessera/graph/detail/util.hpp>
#include <tessera/graph/edge_list.hpp>
#include <tessera/graph/graph_traits.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <limits>
#include <mutex>
#include <type_traits>
#include <utility>

namespace tessera::graph {

namespace detail {

// The edge index of a CSR slot. Three cases: a stored array (undirected
// graphs whose ids were built, the transpose's in-slots), the slot itself
// (directed out-slots), or computed (undirected, ids not built): upper slots
// (u <= target) are numbered row by row from upper_start; a lower slot
// (target v < u) takes the index of its twin in row v, the k-th copy of
// {u, v} pairing with the k-th (rank needed only in a multigraph).
template <class Vertex, class EdgeIndex>
struct csr_slot_index {
  const EdgeIndex* ids = nullptr;
  const EdgeIndex* row_map = nullptr;
  const Vertex* entries = nullptr;
  const EdgeIndex* upper_start = nullptr;  // null: the slot is the index
  bool repeated_targets = false;

  TESSERA_INLINE_FUNCTION EdgeIndex first_upper(Vertex u) const {
    return row_map[u + 1] - (upper_start[u + 1] - upper_start[u]);
  }
  // Index of slot k of row u.
  TESSERA_INLINE_FUNCTION EdgeIndex operator()(Vertex u, EdgeIndex k) const {
    if (ids) return ids[k];
    if (!upper_start) return k;
    const Vertex v = entries[k];
    if (v >= u) return upper_start[u] + (k - first_upper(u));
    const EdgeIndex rank = repeated_targets ? k - lower_bound(entries, row_map[u], k, v) : EdgeIndex(0);
    const EdgeIndex twin = lower_bound(entries, row_map[v], row_map[v + 1], u) + rank;
    return upper_start[v] + (twin - first_upper(v));
  }
};

// Iterates a CSR row as edge descriptors. Reversed: the row holds sources
// (the transpose), so the descriptor is (adj[k] -> v). target_vertex(),
// unindexed() and slot() read the row without computing the edge index, for
// loops that build a full descriptor only when a visitor asks for one.
template <class Vertex, class EdgeIndex, bool Reversed>
class csr_edge_iterator {
 public:
  using value_type = edge_descriptor<Vertex, EdgeIndex>;
  using difference_type = std::int64_t;
  using slot_index = csr_slot_index<Vertex, EdgeIndex>;
  TESSERA_DEFAULTED_FUNCTION csr_edge_iterator() = default;
  TESSERA_INLINE_FUNCTION csr_edge_iterator(Vertex v, const Vertex* adj, const slot_index& index, EdgeIndex k)
      : m_v(v), m_adj(adj), m_index(index), m_k(k) {}
  TESSERA_INLINE_FUNCTION value_type operator*() const { return (*this)[0]; }
  TESSERA_INLINE_FUNCTION value_type operator[](difference_type d) const {
    const EdgeIndex k = m_k + EdgeIndex(d);
    const Vertex o = m_adj[k];
    const EdgeIndex id = m_index(m_v, k);
    if constexpr (Reversed) return value_type{o, m_v, id};
    else return value_type{m_v, o, id};
  }
  // The descriptor with id -1, for visitors that read no edge index
  // (detail::visitor_edge).
  TESSERA_INLINE_FUNCTION value_type unindexed() const {
    const Vertex o = m_adj[m_k];
    if constexpr (Reversed) return value_type{o, m_v, EdgeIndex(-1)};
    else return value_type{m_v, o, EdgeIndex(-1)};
  }
  // The edge's target and source, without its index (detail::edge_target;
  // a transpose_adapter's reversed edges read the source).
  TESSERA_INLINE_FUNCTION Vertex target_vertex() const {
    if constexpr (Reversed) return m_v;
    else return m_adj[m_k];
  }
  TESSERA_INLINE_FUNCTION Vertex source_vertex() const {
    if constexpr (Reversed) return m_adj[m_k];
    else return m_v;
  }
  TESSERA_INLINE_FUNCTION csr_edge_iterator operator+(difference_type d) const {
    return csr_edge_iterator(m_v, m_adj, m_index, m_k + EdgeIndex(d));
  }
  TESSERA_INLINE_FUNCTION csr_edge_iterator& operator++() {
    ++m_k;
    return *this;
  }
  TESSERA_INLINE_FUNCTION friend bool operator==(const csr_edge_iterator& a, const csr_edge_iterator& b) { return a.m_k == b.m_k; }
  TESSERA_INLINE_FUNCTION friend bool operator!=(const csr_edge_iterator& a, const csr_edge_iterator& b) { return a.m_k != b.m_k; }
  TESSERA_INLINE_FUNCTION friend difference_type operator-(const csr_edge_iterator& a, const csr_edge_iterator& b) {
    return difference_type(a.m_k - b.m_k);
  }
  // Slot in the CSR arrays (for algorithms that index per-slot data).
  TESSERA_INLINE_FUNCTION EdgeIndex slot() const { return m_k; }

 private:
  Vertex m_v{};
  const Vertex* m_adj = nullptr;
  slot_index m_index{};
  EdgeIndex m_k{};
};

// All edges of a CSR graph, each once (undirected: the slot with src <= tgt).
template <class G>
class csr_all_edges_iterator {
 public:
  using vertex_type = typename G::vertex_descriptor;
  using index_type = typename G::edge_index_type;
  using value_type = typename G::edge_descriptor;
  csr_all_edges_iterator() = default;
  csr_all_edges_iterator(const G* g, vertex_type row, index_type k) : m_g(g), m_row(row), m_k(k) { settle(); }
  value_type operator*() const {
    const vertex_type t = m_g->entries_data()[m_k];
    return value_type{m_row, t, m_g->slot_edge_index(m_row, m_k)};
  }
  csr_all_edges_iterator& operator++() {
    ++m_k;
    settle();
    return *this;
  }
  friend bool operator==(const csr_all_edges_iterator& a, const csr_all_edges_iterator& b) { return a.m_k == b.m_k; }
  friend bool operator!=(const csr_all_edges_iterator& a, const csr_all_edges_iterator& b) { return a.m_k != b.m_k; }

 private:
  void settle() {
    const auto* rm = m_g->row_map_data();
    const index_type end = rm[m_g->num_vertices()];
    while (m_k < end) {
      while (m_k >= rm[m_row + 1]) ++m_row;
      if constexpr (G::is_directed_graph) return;
      else if (m_row <= m_g->entries_data()[m_k]) return;
      ++m_k;
    }
  }
  const G* m_g = nullptr;
  vertex_type m_row = 0;
  index_type m_k = 0;
};

// An undirected graph's edge ids once built, with the lock that builds them
// once for all copies of the graph.
template <class IdView>
struct csr_edge_id_cache {
  std::mutex mutex;
  bool built = false;
  IdView ids;
};

// The arrays of a CSR graph. The construction steps are free functions over
// this struct rather than members of the graph: nvcc does not allow extended
// (device) lambdas inside private or protected member functions.
template <class S, class V, class E>
struct csr_storage {
  std::int64_t n = 0;
  std::int64_t m = 0;
  tessera::View<E*, S> row_map;
  tessera::View<V*, S> entries;
  tessera::View<E*, S> upper_start;  // undirected: the first index of each row's upper slots (n+1)
  bool repeated_targets = false;     // undirected: some row holds a target twice
  tessera::View<E*, S> t_row_map;
  tessera::View<V*, S> t_entries;
  tessera::View<E*, S> t_edge_ids;
};

// The stored edge index of every slot of an undirected CSR graph (what
// csr_slot_index computes one at a time): each upper slot (src <= tgt) takes
// upper_start(u) + its rank among the row's upper slots and gives it to its
// twin in the target's row. Host spaces count the twins' places (no
// searches); devices find each twin by one binary search (the k-th duplicate
// of {u, v} pairs with the k-th in the twin row). Every lower slot is the
// twin of exactly one upper slot, so each is written once.
template <class Exec, class S, class V, class E>
tessera::View<E*, S> csr_build_edge_ids(std::int64_t n, const tessera::View<E*, S>& row_map,
                                       const tessera::View<V*, S>& entries, const tessera::View<E*, S>& upper_start) {
  using size_type = std::int64_t;
  tessera::View<E*, S> ids(tessera::view_alloc("graph::edge_ids", tessera::WithoutInitializing),
                           entries.extent(0));
  bool done = false;
  if constexpr (tessera::is_host_execution_space<Exec>::value)
    done = csr_edge_ids_by_counting<Exec>(n, row_map, entries, upper_start, ids);  // no searches
  if (!done) tessera::parallel_for(
      "graph::csr::edge_ids", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, n, 64),
      TESSERA_LAMBDA(size_type u) {
        const V* a = entries.data();
        const E b = row_map(u), e = row_map(u + 1);
        const E diag = detail::lower_bound(a, b, e, V(u));
        E twin = 0;
        for (E j = diag; j < e; ++j) {
          const E id = upper_start(u) + (j - diag);
          ids(j) = id;
          const V v = a[j];
          if (v == V(u)) continue;  // a self-loop has no twin
          if (j > diag && a[j - 1] == v) ++twin;  // the next duplicate pairs with the next slot
          else twin = detail::lower_bound(a, row_map(v), row_map(v + 1), V(u));
          ids(twin) = id;
        }
      });
  tessera::fence("graph::csr::edge_ids");
  return ids;
}

// Whether some row holds a target twice (a multigraph's repeated edges):
// then a lower slot's twin is found by its rank among the copies.
template <class Exec, class S, class V, class E>
bool csr_repeated_targets(std::int64_t n, const tessera::View<E*, S>& row_map, const tessera::View<V*, S>& entries) {
  std::int64_t rows = 0;
  tessera::parallel_reduce(
      "graph::csr::repeated_targets", tessera::RangePolicy<Exec>(0, n),
      TESSERA_LAMBDA(std::int64_t u, std::int64_t & count) {
        for (E j = row_map(u) + 1; j < row_map(u + 1); ++j)
          if (entries(j) == entries(j - 1)) {
            ++count;
            break;
          }
      },
      rows);
  return rows > 0;
}

// Edge numbering (undirected) and the transpose (bidirectional) from row_map/entries.
template <class D, class Exec, class S, class V, class E>
void csr_finish(csr_storage<S, V, E>& st, const tessera::View<E*, S>& slot_origin,
                tessera::View<E*, S>* edge_origin) {
  using size_type = std::int64_t;
  using Key = std::uint64_t;
  constexpr bool undirected = !D::is_directed;
  const size_type n = st.n;
  const E ns = E(st.entries.extent(0));
  const int bits = n > 1 ? int(std::bit_width(std::uint64_t(n - 1))) : 1;
  const Key mask = (Key(1) << bits) - 1;
  auto row_map = st.row_map;
  auto entries = st.entries;
  (void)mask;
  (void)bits;
  if constexpr (undirected) {
    // One index per undirected edge: the slots with src <= tgt ("upper"),
    // numbered row by row; upper_start(u) is row u's first. Whether a row
    // repeats a target decides whether a lower slot's twin needs its rank.
    tessera::View<E*, S> uoff("graph::upper_start", n + 1);
    tessera::parallel_for(
        "graph::csr::upper_count", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(size_type u) {
          const E b = row_map(u), e = row_map(u + 1);
          uoff(u) = e - detail::lower_bound(entries.data(), b, e, V(u));
        });
    st.m = size_type(detail::exclusive_scan_inplace<Exec>("graph::csr::upper_scan", uoff, n));
    st.upper_start = uoff;
    st.repeated_targets = csr_repeated_targets<Exec>(n, row_map, entries);
    if (edge_origin) {
      // Only the upper slots are read: the index of each is known without
      // the twins.
      *edge_origin = tessera::View<E*, S>(tessera::view_alloc("graph::edge_origin", tessera::WithoutInitializing), st.m);
      auto eo = *edge_origin;
      tessera::parallel_for(
          "graph::csr::edge_origin", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(size_type u) {
            const E e = row_map(u + 1);
            const E diag = detail::lower_bound(entries.data(), row_map(u), e, V(u));
            for (E j = diag; j < e; ++j) eo(uoff(u) + (j - diag)) = slot_origin(j);
          });
    }
  } else {
    st.m = size_type(ns);
    if (edge_origin) *edge_origin = slot_origin;
  }

  if constexpr (D::is_directed && D::is_bidirectional) {
    // The transpose: sort (target, source) keys carrying the out-slot.
    tessera::View<Key*, S> tkeys(tessera::view_alloc("graph::csr::tkeys", tessera::WithoutInitializing), ns);
    st.t_edge_ids = tessera::View<E*, S>(tessera::view_alloc("graph::transpose_edge_ids", tessera::WithoutInitializing), ns);
    auto tids = st.t_edge_ids;
    tessera::parallel_for(
        "graph::csr::tkeys", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(size_type u) {
          for (E j = row_map(u); j < row_map(u + 1); ++j) {
            tkeys(j) = (Key(entries(j)) << bits) | Key(u);
            tids(j) = j;
          }
        });
    detail::sort_by_key(Exec(), tkeys, tids);
    st.t_row_map = tessera::View<E*, S>("graph::transpose_row_map", n + 1);
    st.t_entries = tessera::View<V*, S>(tessera::view_alloc("graph::transpose_entries", tessera::WithoutInitializing), ns);
    auto trm = st.t_row_map;
    auto tent = st.t_entries;
    tessera::parallel_for(
        "graph::csr::transpose", tessera::RangePolicy<Exec>(0, ns), TESSERA_LAMBDA(size_type j) {
          tent(j) = V(tkeys(j) & mask);
          tessera::atomic_inc(&trm(size_type(tkeys(j) >> bits)));
        });
    detail::exclusive_scan_inplace<Exec>("graph::csr::transpose_scan", trm, n);
  }
  tessera::fence("graph::csr::build");
}

// Sorts, filters and compacts an edge list into CSR arrays.
template <class D, class Exec, class S, class V, class E, class SV, class DV>
csr_storage<S, V, E> csr_build(std::int64_t n, const SV& src, const DV& dst, const build_options& opts,
                               tessera::View<E*, S>* edge_origin) {
  using size_type = std::int64_t;
  using Key = std::uint64_t;
  constexpr bool undirected = !D::is_directed;
  if (n < 0) detail::fail("number of vertices is negative (" + std::to_string(n) + ")");
  if (n > size_type(std::numeric_limits<V>::max()))
    detail::fail("number of vertices " + std::to_string(n) + " does not fit the vertex type (max " +
                 std::to_string(std::numeric_limits<V>::max()) + ")");
  const size_type m_in = size_type(src.extent(0));
  // Offsets, slot positions and input positions are counted in E: refused
  // before any of them could wrap (duplicates and loops are removed later,
  // so the bound is the slots the list could need).
  const size_type slots = undirected ? 2 * m_in : m_in;
  if (slots > size_type(std::numeric_limits<E>::max()))
    detail::fail("an edge list of " + std::to_string(m_in) + " edges needs up to " + std::to_string(slots) +
                 " edge slots" + (undirected ? " (an undirected edge is stored from both ends)" : "") +
                 ", more than the edge index type holds (max " + std::to_string(std::numeric_limits<E>::max()) +
                 "): build the graph with a wider EdgeIndex (std::int64_t is the default)");

  csr_storage<S, V, E> st;
  st.n = n;
  if constexpr (tessera::is_host_execution_space<Exec>::value) {
    // Host: counting sorts (detail/csr_counting_build.hpp).
    if constexpr (undirected) {
      auto u = csr_undirected_by_counting<Exec, S, V, E>(n, src, dst, opts, edge_origin != nullptr);
      st.row_map = u.row_map;
      st.entries = u.entries;
      st.upper_start = u.upper_start;
      st.repeated_targets = csr_repeated_targets<Exec>(n, st.row_map, st.entries);
      st.m = u.m;
      if (edge_origin) *edge_origin = u.edge_origin;
      tessera::fence("graph::csr::build");
    } else {
      auto rows = csr_rows_by_counting<Exec, S, V, E>(n, src, dst, opts, edge_origin != nullptr, false);
      st.row_map = rows.row_map;
      st.entries = rows.entries;
      csr_finish<D, Exec, S, V, E>(st, rows.slot_origin, edge_origin);
    }
    if (opts.progress) opts.progress("building", csr_build_steps, csr_build_steps, opts.progress_user);
    return st;
  }
  // Every id in range; the first offending edge is named (the host build
  // checks in its degree pass).
  {
    size_type first_bad = m_in;
    tessera::parallel_reduce(
        "graph::csr::validate", tessera::RangePolicy<Exec>(0, m_in),
        TESSERA_LAMBDA(size_type i, size_type & bad) {
          const auto u = src(i), v = dst(i);
          if ((u < 0 || size_type(u) >= n || v < 0 || size_type(v) >= n) && i < bad) bad = i;
        },
        tessera::Min<size_type>(first_bad));
    if (first_bad < m_in) {
      const auto u = detail::read_one(src, first_bad), v = detail::read_one(dst, first_bad);
      detail::fail("edge " + std::to_string(first_bad) + " (" + std::to_string(u) + ", " + std::to_string(v) +
                   ") has a vertex outside [0, " + std::to_string(n) + ")");
    }
  }

  // Device: sort (source, target) keys.
  const int bits = n > 1 ? int(std::bit_width(std::uint64_t(n - 1))) : 1;
  const Key mask = (Key(1) << bits) - 1;
  const Key sentinel = ~Key(0);
  const bool drop_loops = opts.remove_self_loops;
  const bool dedupe = opts.remove_duplicates;

  // (source, target) keys; undirected edges twice, dropped ones as sentinels
  // that sort to the end. The value is the input position.
  const size_type nk = undirected ? 2 * m_in : m_in;
  tessera::View<Key*, S> keys(tessera::view_alloc("graph::csr::keys", tessera::WithoutInitializing), nk);
  tessera::View<E*, S> origin(tessera::view_alloc("graph::csr::origin", tessera::WithoutInitializing), nk);
  tessera::parallel_for(
      "graph::csr::keys", tessera::RangePolicy<Exec>(0, m_in), TESSERA_LAMBDA(size_type i) {
        const Key u = Key(src(i)), v = Key(dst(i));
        const bool loop = u == v;
        // A plain `if` on the constant: nvcc rejects an extended lambda whose
        // first use of a captured variable lies inside `if constexpr`.
        const size_type at = undirected ? 2 * i : i;
        keys(at) = (loop && drop_loops) ? sentinel : ((u << bits) | v);
        origin(at) = E(i);
        if (undirected) {
          keys(at + 1) = loop ? sentinel : ((v << bits) | u);  // a self-loop is stored once
          origin(at + 1) = E(i);
        }
      });
  detail::sort_by_key(Exec(), keys, origin);
  if (opts.progress) opts.progress("building", 3, csr_build_steps, opts.progress_user);

  // Keep: not a sentinel, and (deduplicating) different from the previous key.
  tessera::View<E*, S> pos("graph::csr::pos", nk + 1);
  tessera::parallel_for(
      "graph::csr::flags", tessera::RangePolicy<Exec>(0, nk), TESSERA_LAMBDA(size_type i) {
        const Key k = keys(i);
        pos(i) = (k != sentinel && (!dedupe || i == 0 || keys(i - 1) != k)) ? 1 : 0;
      });
  const E ns = detail::exclusive_scan_inplace<Exec>("graph::csr::compact_scan", pos, nk);

  st.row_map = tessera::View<E*, S>("graph::row_map", n + 1);
  st.entries = tessera::View<V*, S>(tessera::view_alloc("graph::entries", tessera::WithoutInitializing), ns);
  tessera::View<E*, S> slot_origin(tessera::view_alloc("graph::csr::slot_origin", tessera::WithoutInitializing), ns);
  auto row_map = st.row_map;
  auto entries = st.entries;
  tessera::parallel_for(
      "graph::csr::compact", tessera::RangePolicy<Exec>(0, nk), TESSERA_LAMBDA(size_type i) {
        if (pos(i + 1) != pos(i)) {
          const Key k = keys(i);
          entries(pos(i)) = V(k & mask);
          slot_origin(pos(i)) = origin(i);
          tessera::atomic_inc(&row_map(size_type(k >> bits)));
        }
      });
  keys = {};
  origin = {};
  pos = {};
  detail::exclusive_scan_inplace<Exec>("graph::csr::row_scan", row_map, n);
  csr_finish<D, Exec, S, V, E>(st, slot_origin, edge_origin);
  if (opts.progress) opts.progress("building", csr_build_steps, csr_build_steps, opts.progress_user);
  return st;
}

// Checks ready CSR arrays (the first bad row is named) and completes them.
template <class D, class Exec, class S, class V, class E>
csr_storage<S, V, E> csr_adopt(std::int64_t n, const tessera::View<E*, S>& row_map,
                               const tessera::View<V*, S>& entries) {
  using size_type = std::int64_t;
  if (n < 0) detail::fail("number of vertices is negative (" + std::to_string(n) + ")");
  if (size_type(row_map.extent(0)) != n + 1)
    detail::fail("row map '" + row_map.label() + "' has " + std::to_string(row_map.extent(0)) + " offsets for " +
                 std::to_string(n) + " vertices (needs " + std::to_string(n + 1) + ")");
  const E ns = E(entries.extent(0));
  // First bad row: offsets decreasing or out of range, a target out of range,
  // a row not sorted, or (undirected) an edge without its reverse. On host
  // spaces the reverse edges are checked by csr_symmetric_by_counting
  // (streaming) once the rest holds; the search per edge (twins = true) is
  // what devices run, and what names the first bad row when one is found.
  auto first_bad_row = [&](bool twins) {
    size_type first_bad = n;
    tessera::parallel_reduce(
        "graph::csr::check", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, n, 64),
        TESSERA_LAMBDA(size_type u, size_type & bad) {
          // Each row is judged alone (in parallel), so its own start must be
          // checked against 0 too: the previous row's test does not cover it.
          const E b = row_map(u), e = row_map(u + 1);
          bool ok = (u > 0 || b == 0) && b >= 0 && b <= e && e <= ns && (u < n - 1 || e == ns);
          for (E j = b; ok && j < e; ++j) {
            const V v = entries(j);
            ok = v >= 0 && size_type(v) < n && (j == b || entries(j - 1) <= v);
            // Twins: row v holds u exactly as often as row u holds v (a
            // multigraph repeats an edge in both rows), checked at the first
            // copy of each target.
            if (ok && !D::is_directed && twins && (j == b || entries(j - 1) != v)) {
              E copies = 1;
              while (j + copies < e && entries(j + copies) == v) ++copies;
              const E vb = row_map(v), ve = row_map(v + 1);
              ok = vb >= 0 && vb <= ve && ve <= ns;
              if (ok) {
                const E t = detail::lower_bound(entries.data(), vb, ve, V(u));
                E twins_found = 0;
                while (t + twins_found < ve && entries(t + twins_found) == V(u)) ++twins_found;
                ok = twins_found == copies;
              }
            }
          }
          if (!ok && u < bad) bad = u;
        },
        tessera::Min<size_type>(first_bad));
    return first_bad < n ? first_bad : n;  // the reduction of no bad row is Min's identity
  };
  constexpr bool count_twins = !D::is_directed && tessera::is_host_execution_space<Exec>::value;
  size_type first_bad = first_bad_row(!count_twins);
  // `if constexpr`, not a runtime test of the constant: the counting check's
  // host lambdas must not be instantiated for a device space (nvcc rejects
  // them as kernel arguments, so count_triangles did not compile for Cuda).
  if constexpr (count_twins) {
    if (first_bad == n && n > 0) {
      const int symmetric = csr_symmetric_by_counting<Exec>(n, row_map, entries);
      if (symmetric != 1) first_bad = first_bad_row(true);  // not symmetric (or no room to count): the search names the row
      if (symmetric == 0 && first_bad == n)
        detail::fail("CSR arrays: some edge is not stored equally often in both its rows (the counting check found "
                     "it; the search found no row to name)");
    }
  }
  if (n == 0 && ns != 0) detail::fail("CSR arrays: no vertices but " + std::to_string(ns) + " entries");
  if (first_bad < n)
    detail::fail("CSR arrays: row " + std::to_string(first_bad) +
                 " is invalid (offsets must start at 0 and not decrease, targets lie in [0, " + std::to_string(n) +
                 ") sorted within the row" + (D::is_directed ? "" : ", and every edge appears in both rows") + ")");
  csr_storage<S, V, E> st;
  st.n = n;
  st.row_map = row_map;
  st.entries = entries;
  st.m = size_type(ns);
  csr_finish<D, Exec, S, V, E>(st, tessera::View<E*, S>(), nullptr);
  tessera::fence("graph::csr::adopt");
  return st;
}

}  // namespace detail

// Tag: build a graph from ready CSR arrays (row offsets and sorted rows).
struct csr_arrays_t {};

template <class DirectedS, class Space = tessera::DefaultExecutionSpace::memory_space, class Vertex = std::int32_t,
          class EdgeIndex = std::int64_t>
class compressed_sparse_row_graph {
  static_assert(std::is_integral_v<Vertex> && std::is_signed_v<Vertex>, "Vertex must be a signed integer type");
  static_assert(std::is_integral_v<EdgeIndex> && std::is_signed_v<EdgeIndex>, "EdgeIndex must be a signed integer type");

 public:
  using directed_category = DirectedS;
  using execution_space = typename detail::resolve_space<Space>::execution_space;
  using memory_space = typename detail::resolve_space<Space>::memory_space;
  using space_type = Space;
  using size_type = std::int64_t;
  using vertex_descriptor = Vertex;
  using edge_index_type = EdgeIndex;
  using edge_descriptor = tessera::graph::edge_descriptor<Vertex, EdgeIndex>;
  using vertex_iterator = counting_iterator<Vertex>;
  using adjacency_iterator = const Vertex*;
  using out_edge_iterator = detail::csr_edge_iterator<Vertex, EdgeIndex, false>;
  // In-edges end at their vertex, (u -> v), on every graph that has them:
  // a bidirectional graph's come from the transpose, an undirected graph's
  // are its own row read from the other end.
  using in_edge_iterator = detail::csr_edge_iterator<Vertex, EdgeIndex, true>;
  using edge_iterator = detail::csr_all_edges_iterator<compressed_sparse_row_graph>;
  using row_map_type = tessera::View<EdgeIndex*, Space>;
  using entries_type = tessera::View<Vertex*, Space>;
  static constexpr bool sorted_adjacency = true;
  static constexpr bool random_access_adjacency = true;
  static constexpr bool is_directed_graph = DirectedS::is_directed;

  compressed_sparse_row_graph() = default;

  // From a host edge list. Vertex ids must lie in [0, el.num_vertices).
  // edge_origin (optional): receives, for each edge index, the position in
  // the list of the edge it came from (to carry weights or other data over).
  explicit compressed_sparse_row_graph(const edge_list& el, const build_options& opts = {},
                                       tessera::View<EdgeIndex*, Space>* edge_origin = nullptr) {
    if (!el.weights.empty() && el.weights.size() != el.src.size())
      detail::fail("edge list '" + el.origin + "' has " + std::to_string(el.weights.size()) + " weights for " +
                   std::to_string(el.src.size()) + " edges");
    if (el.src.size() != el.dst.size())
      detail::fail("edge list '" + el.origin + "' has " + std::to_string(el.src.size()) + " sources but " +
                   std::to_string(el.dst.size()) + " targets");
    if constexpr (tessera::is_host_execution_space<execution_space>::value) {
      // The list's own arrays, without a copy.
      using list_view = tessera::View<const std::int64_t*, tessera::HostSpace, tessera::MemoryUnmanaged>;
      assign(detail::csr_build<DirectedS, execution_space, Space, Vertex, EdgeIndex>(
          el.num_vertices, list_view(el.src.data(), el.src.size()), list_view(el.dst.data(), el.dst.size()), opts,
          edge_origin));
    } else {
      assign(detail::csr_build<DirectedS, execution_space, Space, Vertex, EdgeIndex>(
          el.num_vertices, detail::to_space<std::int64_t, Space>("graph::src", el.src),
          detail::to_space<std::int64_t, Space>("graph::dst", el.dst), opts, edge_origin));
    }
  }

  // From Views of sources and targets (any integer type, any space).
  template <class SrcView, class DstView, std::enable_if_t<tessera::is_view_v<SrcView>, int> = 0>
  compressed_sparse_row_graph(size_type n, const SrcView& src, const DstView& dst, const build_options& opts = {},
                              tessera::View<EdgeIndex*, Space>* edge_origin = nullptr) {
    if (src.extent(0) != dst.extent(0))
      detail::fail("'" + src.label() + "' has " + std::to_string(src.extent(0)) + " sources but '" + dst.label() +
                   "' has " + std::to_string(dst.extent(0)) + " targets");
    assign(detail::csr_build<DirectedS, execution_space, Space, Vertex, EdgeIndex>(
        n, tessera::create_mirror_view_and_copy(memory_space(), src),
        tessera::create_mirror_view_and_copy(memory_space(), dst), opts, edge_origin));
  }

  // From CSR arrays: row_map (n+1 offsets from 0) and entries (targets,
  // sorted within each row; for undirectedS every edge in both directions).
  // The arrays are adopted, not copied, when they are in the graph's space.
  // Everything is checked; the first problem is named.
  compressed_sparse_row_graph(csr_arrays_t, size_type n, const row_map_type& row_map, const entries_type& entries) {
    assign(detail::csr_adopt<DirectedS, execution_space, Space, Vertex, EdgeIndex>(n, row_map, entries));
  }

  // ---- accessors, callable in kernels ----
  TESSERA_INLINE_FUNCTION size_type num_vertices() const { return m_n; }
  TESSERA_INLINE_FUNCTION size_type num_edges() const { return m_m; }
  TESSERA_INLINE_FUNCTION size_type num_stored_edges() const { return m_n ? size_type(m_entries.extent(0)) : 0; }
  TESSERA_INLINE_FUNCTION const EdgeIndex* row_map_data() const { return m_row_map.data(); }
  TESSERA_INLINE_FUNCTION const Vertex* entries_data() const { return m_entries.data(); }
  TESSERA_INLINE_FUNCTION EdgeIndex row_begin(Vertex v) const { return m_row_map(v); }
  TESSERA_INLINE_FUNCTION EdgeIndex row_end(Vertex v) const { return m_row_map(v + 1); }
  // The edge index of out-slot k of row u (one binary search for a lower
  // slot of an undirected graph whose edge ids were not built).
  TESSERA_INLINE_FUNCTION EdgeIndex slot_edge_index(Vertex u, EdgeIndex k) const { return slot_index()(u, k); }
  // Whether edge indices are read from a stored array (O(1) each).
  TESSERA_INLINE_FUNCTION bool has_stored_edge_ids() const { return DirectedS::is_directed || m_edge_ids.data(); }
  TESSERA_INLINE_FUNCTION size_type out_degree(Vertex v) const { return size_type(m_row_map(v + 1) - m_row_map(v)); }
  TESSERA_INLINE_FUNCTION size_type in_degree(Vertex v) const {
    static_assert(DirectedS::is_bidirectional, "in_degree needs a bidirectionalS or undirectedS graph");
    if constexpr (DirectedS::is_directed) return size_type(m_t_row_map(v + 1) - m_t_row_map(v));
    else return out_degree(v);
  }
  TESSERA_INLINE_FUNCTION iterator_range<adjacency_iterator> adjacent(Vertex v) const {
    const Vertex* p = m_entries.data();
    return {p + m_row_map(v), p + m_row_map(v + 1)};
  }
  TESSERA_INLINE_FUNCTION iterator_range<adjacency_iterator> in_adjacent(Vertex v) const {
    static_assert(DirectedS::is_bidirectional, "in_adjacent_vertices needs a bidirectionalS or undirectedS graph");
    if constexpr (DirectedS::is_directed) {
      const Vertex* p = m_t_entries.data();
      return {p + m_t_row_map(v), p + m_t_row_map(v + 1)};
    } else {
      return adjacent(v);
    }
  }
  TESSERA_INLINE_FUNCTION iterator_range<out_edge_iterator> out(Vertex v) const {
    const auto index = slot_index();
    return {out_edge_iterator(v, m_entries.data(), index, m_row_map(v)),
            out_edge_iterator(v, m_entries.data(), index, m_row_map(v + 1))};
  }
  TESSERA_INLINE_FUNCTION iterator_range<in_edge_iterator> in(Vertex v) const {
    static_assert(DirectedS::is_bidirectional, "in_edges needs a bidirectionalS or undirectedS graph");
    if constexpr (DirectedS::is_directed) {
      const detail::csr_slot_index<Vertex, EdgeIndex> index{m_t_edge_ids.data()};
      return {in_edge_iterator(v, m_t_entries.data(), index, m_t_row_map(v)),
              in_edge_iterator(v, m_t_entries.data(), index, m_t_row_map(v + 1))};
    } else {
      // Undirected: v's row seen from the other end, (u -> v), each with the
      // index of the same undirected edge (the adapters rely on it:
      // transpose_adapter's out-edges start at v, subgraph_adapter masks the
      // in-edge's source).
      const auto index = slot_index();
      return {in_edge_iterator(v, m_entries.data(), index, m_row_map(v)),
              in_edge_iterator(v, m_entries.data(), index, m_row_map(v + 1))};
    }
  }

  // ---- host-side views of the storage ----
  const row_map_type& row_map() const { return m_row_map; }
  const entries_type& entries() const { return m_entries; }
  // undirectedS: the edge index of every slot, built on the first call (on
  // the graph's space) and kept with the graph: its copies share it, and
  // memory_bytes() counts it from then on. directedS: empty (the slot is
  // the index).
  row_map_type edge_ids() const {
    if constexpr (DirectedS::is_directed) {
      return row_map_type();
    } else {
      if (m_edge_ids.data() || m_n == 0) return m_edge_ids;
      auto& cache = m_id_cache(0);
      std::lock_guard<std::mutex> lock(cache.mutex);
      if (!cache.built) {
        cache.ids = detail::csr_build_edge_ids<execution_space, Space, Vertex, EdgeIndex>(m_n, m_row_map, m_entries,
                                                                                          m_upper_start);
        cache.built = true;
      }
      return cache.ids;
    }
  }
  // This graph with its edge ids stored (built if they were not): for
  // loops that read the index of every edge. Shares every array with *this.
  compressed_sparse_row_graph with_edge_ids() const {
    compressed_sparse_row_graph g = *this;
    if constexpr (!DirectedS::is_directed) g.m_edge_ids = edge_ids();
    return g;
  }
  const row_map_type& transpose_row_map() const { return m_t_row_map; }  // bidirectional only
  const entries_type& transpose_entries() const { return m_t_entries; }
  const row_map_type& transpose_edge_ids() const { return m_t_edge_ids; }
  // Bytes of the arrays above, in the graph's memory space (device memory
  // for a graph on a GPU): what the graph itself holds, not what building
  // it took.
  std::size_t memory_bytes() const {
    std::size_t ids = bytes_of(m_edge_ids);
    if (!ids && m_id_cache.data()) {
      auto& cache = m_id_cache(0);
      std::lock_guard<std::mutex> lock(cache.mutex);
      ids = bytes_of(cache.ids);
    }
    return bytes_of(m_row_map) + bytes_of(m_entries) + bytes_of(m_upper_start) + ids + bytes_of(m_t_row_map) +
           bytes_of(m_t_entries) + bytes_of(m_t_edge_ids);
  }

 private:
  template <class Array>
  static std::size_t bytes_of(const Array& a) {
    return std::size_t(a.extent(0)) * sizeof(typename Array::value_type);
  }
  TESSERA_INLINE_FUNCTION detail::csr_slot_index<Vertex, EdgeIndex> slot_index() const {
    if constexpr (DirectedS::is_directed) return {};
    else return {m_edge_ids.data(), m_row_map.data(), m_entries.data(), m_upper_start.data(), m_repeated_targets};
  }
  void assign(detail::csr_storage<Space, Vertex, EdgeIndex>&& st) {
    m_n = st.n;
    m_m = st.m;
    m_row_map = std::move(st.row_map);
    m_entries = std::move(st.entries);
    m_upper_start = std::move(st.upper_start);
    m_repeated_targets = st.repeated_targets;
    if constexpr (!DirectedS::is_directed)
      m_id_cache = tessera::View<detail::csr_edge_id_cache<row_map_type>*, tessera::HostSpace>("graph::edge_id_cache", 1);
    m_t_row_map = std::move(st.t_row_map);
    m_t_entries = std::move(st.t_entries);
    m_t_edge_ids = std::move(st.t_edge_ids);
  }

  size_type m_n = 0;
  size_type m_m = 0;
  row_map_type m_row_map;
  entries_type m_entries;
  row_map_type m_upper_start;  // undirected
  bool m_repeated_targets = false;
  row_map_type m_edge_ids;     // undirected, in with_edge_ids() copies
  // undirected: edge_ids() once built, shared by the graph's copies (a host
  // View, so that the graph stays copyable in device code).
  tessera::View<detail::csr_edge_id_cache<row_map_type>*, tessera::HostSpace> m_id_cache;
  row_map_type m_t_row_map;
  entries_type m_t_entries;
  row_map_type m_t_edge_ids;
};

// ---- the generic functions for CSR graphs (found by ADL) ----
#define TESSERA_GRAPH_CSR_TEMPLATE template <class D, class S, class V, class E>
#define TESSERA_GRAPH_CSR compressed_sparse_row_graph<D, S, V, E>

TESSERA_GRAPH_CSR_TEMPLATE TESSERA_INLINE_FUNCTION std::int64_t num_vertices(const TESSERA_GRAPH_CSR& g) { return g.num_vertices(); }
TESSERA_GRAPH_CSR_TEMPLATE TESSERA_INLINE_FUNCTION std::int64_t num_edges(const TESSERA_GRAPH_CSR& g) { return g.num_edges(); }
TESSERA_GRAPH_CSR_TEMPLATE TESSERA_INLINE_FUNCTION std::int64_t edge_index_bound(const TESSERA_GRAPH_CSR& g) { return g.num_edges(); }
TESSERA_GRAPH_CSR_TEMPLATE TESSERA_INLINE_FUNCTION iterator_range<counting_iterator<V>> vertices(const TESSERA_GRAPH_CSR& g) {
  return {counting_iterator<V>(0), counting_iterator<V>(V(g.num_vertices()))};
}
// All edges, each once; host-side, on host-accessible graphs.
TESSERA_GRAPH_CSR_TEMPLATE iterator_range<typename TESSERA_GRAPH_CSR::edge_iterator> edges(const TESSERA_GRAPH_CSR& g) {
  static_assert(tessera::detail::host_accessible<typename TESSERA_GRAPH_CSR::memory_space>::value,
                "edges(g) iterates on the host: use a host graph or forall_edges");
  using It = typename TESSERA_GRAPH_CSR::edge_iterator;
  const E end = g.num_vertices() ? g.row_map()(g.num_vertices()) : 0;
  return {It(&g, 0, 0), It(&g, V(g.num_vertices() ? g.num_vertices() - 1 : 0), end)};
}
TESSERA_GRAPH_CSR_TEMPLATE TESSERA_INLINE_FUNCTION auto out_edges(std::type_identity_t<V> v, const TESSERA_GRAPH_CSR& g) { return g.out(v); }
TESSERA_GRAPH_CSR_TEMPLATE TESSERA_INLINE_FUNCTION auto in_edges(std::type_identity_t<V> v, const TESSERA_GRAPH_CSR& g) { return g.in(v); }
TESSERA_GRAPH_CSR_TEMPLATE TESSERA_INLINE_FUNCTION auto adjacent_vertices(std::type_identity_t<V> v, const TESSERA_GRAPH_CSR& g) { return g.adjacent(v); }
TESSERA_GRAPH_CSR_TEMPLATE TESSERA_INLINE_FUNCTION auto in_adjacent_vertices(std::type_identity_t<V> v, const TESSERA_GRAPH_CSR& g) { return g.in_adjacent(v); }
TESSERA_GRAPH_CSR_TEMPLATE TESSERA_INLINE_FUNCTION std::int64_t out_degree(std::type_identity_t<V> v, const TESSERA_GRAPH_CSR& g) { return g.out_degree(v); }
TESSERA_GRAPH_CSR_TEMPLATE TESSERA_INLINE_FUNCTION std::int64_t in_degree(std::type_identity_t<V> v, const TESSERA_GRAPH_CSR& g) { return g.in_degree(v); }
TESSERA_GRAPH_CSR_TEMPLATE TESSERA_INLINE_FUNCTION V source(const edge_descriptor<V, E>& e, const TESSERA_GRAPH_CSR&) { return e.src; }
TESSERA_GRAPH_CSR_TEMPLATE TESSERA_INLINE_FUNCTION V target(const edge_descriptor<V, E>& e, const TESSERA_GRAPH_CSR&) { return e.tgt; }
TESSERA_GRAPH_CSR_TEMPLATE TESSERA_INLINE_FUNCTION V get_vertex_index(std::type_identity_t<V> v, const TESSERA_GRAPH_CSR&) { return v; }
TESSERA_GRAPH_CSR_TEMPLATE TESSERA_INLINE_FUNCTION E get_edge_index(const edge_descriptor<V, E>& e, const TESSERA_GRAPH_CSR&) { return e.id; }

#undef TESSERA_GRAPH_CSR_TEMPLATE
#undef TESSERA_GRAPH_CSR

}  // namespace tessera::graph
