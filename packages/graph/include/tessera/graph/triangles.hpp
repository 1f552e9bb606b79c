#pragma once
// Triangles of an undirected graph.
//
//   auto t = count_triangles(g);                        // the order chosen from the degrees
//   auto t = count_triangles(g, triangle_order::by_degree);
//   find_triangles(g, TESSERA_LAMBDA(V u, V v, V w) { ... });   // each triangle once, u < v < w; returns the count
//
// Each triangle is found once, from an orientation of the edges: u -> v when
// u comes before v in an order of the vertices; the triangle {u, v, w} with
// u -> v -> w is found at u as the common out-neighbours w of u and v, by
// merging the two sorted lists.
//
//  by_id      u -> v when u < v: the adjacency lists are used as they are.
//             On random-access lists each triangle w < v < u is found at u:
//             for each neighbour v < u (the list's prefix before v holds
//             exactly u's neighbours below v), the common elements of that
//             prefix and v's list; no search for where v's larger
//             neighbours start. Two lists of very different lengths are
//             intersected by binary searches of the shorter one's elements
//             in the longer one (a hub missed by the sampled test below
//             costs O(d log d), not O(d^2)).
//  by_degree  u -> v when v has the higher degree (ties: the smaller id):
//             every vertex keeps only its higher-degree neighbours, so no
//             list is longer than sqrt(2m) and a hub's long list is never
//             merged against (Schank and
//             Wagner, "Finding, Counting and Listing All Triangles in Large
//             Graphs", WEA 2005). The oriented graph is built relabelled, hubs
//             first (as gapbs does), so the rows most intersections read sit
//             together in memory: a sort of the n degrees and two passes over
//             the edges through the generic API, then a directed CSR of m
//             entries.
//  automatic  by_degree when the degrees are skewed. On random-access
//             adjacency the test reads the degrees of a sample of
//             k = min(n, 1024) vertices, one from the middle of each of k
//             equal id ranges (reading all n degrees costs a tenth or more
//             of counting a 4-regular graph's triangles): skewed when the
//             sample's mean degree exceeds 1.3 times its median (a few hubs
//             above many small degrees, as in power-law graphs) or
//             k * sum(d^2) / (sum d)^2 > 2 (1 on a regular graph, about
//             1 + 1/mean on a uniform random one, tens on a power-law one).
//             Other graphs use the second test on all n degrees.
//
// How by_degree runs (detail::TriangleSchedule): host spaces relabel, and
// each thread marks u's out-list in an array of n bytes (or bits) of its own
// and looks up each out-neighbour of every v in it instead of merging the two
// lists (vertex_marks, detail/triangles_marks.hpp: 3.5 times faster than the
// merge on Kronecker 20; the merge, vertex_merge, stays for arrays that
// would outweigh the orientation); GPU spaces keep the graph's ids and give
// each oriented edge a warp's lanes (edge_lanes,
// detail/triangles_edge_lanes.hpp), which needs random-access adjacency
// (other graphs take vertex_merge there).
//
// Needs sorted adjacency (every graph of this library has it); self-loops and
// repeated edges are skipped, so a multigraph counts its underlying simple
// triangles. find_triangles hands each triangle to the visitor with its
// vertices in increasing order, whatever the orientation.
#include <tessera/graph/csr_graph.hpp>
#include <tessera/graph/detail/triangles_edge_lanes.hpp>
#include <tessera/graph/detail/triangles_marks.hpp>
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/primitives.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

namespace tessera::graph {

enum class triangle_order { automatic, by_id, by_degree };

namespace detail {
struct no_triangle_visitor {
  template <class V>
  TESSERA_INLINE_FUNCTION void operator()(V, V, V) const {}
};

// Calls visit(x) for the common elements x of the sorted ranges [a, ea) and
// [b, eb) (duplicates in either count once). Returns how many.
template <class It, class F>
TESSERA_INLINE_FUNCTION std::int64_t sorted_intersection(It a, It ea, It b, It eb, const F& visit) {
  std::int64_t cnt = 0;
  while (a != ea && b != eb) {
    const auto x = *a, y = *b;
    if (x < y) ++a;
    else if (y < x) ++b;
    else {
      visit(x);
      ++cnt;
      while (a != ea && *a == x) ++a;
      while (b != eb && *b == x) ++b;
    }
  }
  return cnt;
}

// The same over pointers into duplicate-free lists: no branch to mispredict
// on which side advances.
template <class V, class F>
TESSERA_INLINE_FUNCTION std::int64_t sorted_intersection_ptr(const V* a, const V* ea, const V* b, const V* eb, const F& visit) {
  std::int64_t cnt = 0;
  while (a != ea && b != eb) {
    const V x = *a, y = *b;
    if (x == y) {
      visit(x);
      ++cnt;
    }
    a += x <= y;
    b += y <= x;
  }
  return cnt;
}

// n * sum(d^2) / (sum d)^2 > 2 over all n degrees.
template <class G>
bool degrees_skewed_exact(const G& g) {
  using V = typename graph_traits<G>::vertex_descriptor;
  const std::int64_t n = num_vertices(g);
  double s1 = 0, s2 = 0;
  reduce_vertices(
      "graph::triangles::skew", g,
      TESSERA_LAMBDA(V v, double& a, double& b) {
        const double d = double(out_degree(v, g));
        a += d;
        b += d * d;
      },
      tessera::Sum<double>(s1), tessera::Sum<double>(s2));
  return s1 > 0 && double(n) * s2 > 2.0 * s1 * s1;
}

// The sampled test of the header (its rule is the exact one's plus the
// mean/median comparison, which a sample judges more reliably: a sample of
// a power-law graph rarely holds the hubs that make sum(d^2) large, but its
// median sits well below its mean).
template <class G>
bool degrees_skewed(const G& g) {
  if constexpr (!graph_traits<G>::random_access_adjacency) {
    return degrees_skewed_exact(g);
  } else {
    using V = typename graph_traits<G>::vertex_descriptor;
    using S = typename G::space_type;
    using Exec = typename G::execution_space;
    const std::int64_t n = num_vertices(g);
    if (n == 0) return false;
    const std::int64_t k = n < 1024 ? n : 1024;
    tessera::View<std::int64_t*, S> deg(tessera::view_alloc("graph::triangles::sampled_degrees", tessera::WithoutInitializing), k);
    tessera::parallel_for("graph::triangles::sample", tessera::RangePolicy<Exec>(0, k), TESSERA_LAMBDA(std::int64_t i) {
      deg(i) = std::int64_t(out_degree(V(((2 * i + 1) * n) / (2 * k)), g));
    });
    auto d = to_host_vector(deg);
    double s1 = 0, s2 = 0;
    for (const auto x : d) {
      s1 += double(x);
      s2 += double(x) * double(x);
    }
    std::nth_element(d.begin(), d.begin() + k / 2, d.end());
    const double median = double(d[std::size_t(k / 2)]);
    return s1 > 0 && (s1 / double(k) > 1.3 * median || double(k) * s2 > 2.0 * s1 * s1);
  }
}

// In-place heapsort of a[0, n) (callable in kernels; rows of the oriented
// graph are at most sqrt(2m) long).
template <class V>
TESSERA_INLINE_FUNCTION void heap_sort(V* a, std::int64_t n) {
  auto sift = [a](std::int64_t i, std::int64_t len) {
    const V x = a[i];
    for (;;) {
      std::int64_t c = 2 * i + 1;
      if (c >= len) break;
      if (c + 1 < len && a[c] < a[c + 1]) ++c;
      if (!(x < a[c])) break;
      a[i] = a[c];
      i = c;
    }
    a[i] = x;
  };
  for (std::int64_t i = n / 2 - 1; i >= 0; --i) sift(i, n);
  for (std::int64_t k = n - 1; k > 0; --k) {
    const V t = a[0];
    a[0] = a[k];
    a[k] = t;
    sift(0, k);
  }
}

// The degree orientation, relabelled: vertices renumbered by decreasing
// degree (ties by id), new id p(v), and the directed CSR graph on new ids in
// which each p(u) keeps its distinct neighbours of smaller new id (higher
// degree), sorted. Renumbering puts the hubs, whose rows every intersection
// reads, side by side in memory. `old_id` maps new ids back.
template <class G>
struct degree_orientation {
  using V = typename graph_traits<G>::vertex_descriptor;
  using S = typename G::space_type;
  compressed_sparse_row_graph<directedS, S, V, std::int64_t> dag;
  tessera::View<V*, S> old_id;
};

template <class G>
degree_orientation<G> degree_oriented(const G& g) {
  using V = typename graph_traits<G>::vertex_descriptor;
  using S = typename G::space_type;
  using Exec = typename G::execution_space;
  using D = compressed_sparse_row_graph<directedS, S, V, std::int64_t>;
  const std::int64_t n = num_vertices(g);
  degree_orientation<G> out;
  // New ids: sort (degree descending, id) keys; n < 2^31 (V is at most 32 bits
  // here or the key keeps 32 bits of it; checked).
  tessera::View<std::uint64_t*, S> key(tessera::view_alloc("graph::triangles::key", tessera::WithoutInitializing), n);
  out.old_id = tessera::View<V*, S>(tessera::view_alloc("graph::triangles::old_id", tessera::WithoutInitializing), n);
  auto old_id = out.old_id;
  if (n > std::int64_t(0xffffffffLL)) fail("count_triangles: by_degree needs fewer than 2^32 vertices");
  tessera::parallel_for("graph::triangles::keys", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) {
    const std::uint64_t d = std::uint64_t(out_degree(V(v), g));
    key(v) = ((0xffffffffULL - (d < 0xffffffffULL ? d : 0xffffffffULL)) << 32) | std::uint64_t(v);
    old_id(v) = V(v);
  });
  sort_by_key(Exec(), key, old_id);
  tessera::View<V*, S> new_id(tessera::view_alloc("graph::triangles::new_id", tessera::WithoutInitializing), n);
  tessera::parallel_for("graph::triangles::new_id", tessera::RangePolicy<Exec>(0, n),
                        TESSERA_LAMBDA(std::int64_t p) { new_id(old_id(p)) = V(p); });
  tessera::View<std::int64_t*, S> rm(tessera::view_alloc("graph::triangles::row_map", tessera::WithoutInitializing), n + 1);
  // Row p: new ids of the distinct neighbours w of old_id(p) with new_id(w) < p.
  auto keep_row = TESSERA_LAMBDA(std::int64_t p, V * adj) {
    std::int64_t k = 0;
    V prev = V(-1);
    for (auto w : adjacent_vertices(old_id(p), g)) {
      if (V(w) == prev) continue;
      prev = V(w);
      const V q = new_id(V(w));
      if (std::int64_t(q) < p) {
        if (adj) adj[k] = q;
        ++k;
      }
    }
    return k;
  };
  tessera::parallel_for("graph::triangles::orient_count", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, n, 256),
                        TESSERA_LAMBDA(std::int64_t p) { rm(p) = keep_row(p, nullptr); });
  const std::int64_t m = exclusive_scan_inplace<Exec>("graph::triangles::orient_scan", rm, n);
  tessera::View<V*, S> ent(tessera::view_alloc("graph::triangles::entries", tessera::WithoutInitializing), m);
  tessera::parallel_for("graph::triangles::orient_fill", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, n, 256),
                        TESSERA_LAMBDA(std::int64_t p) { heap_sort(ent.data() + rm(p), keep_row(p, ent.data() + rm(p))); });
  out.dag = D(csr_arrays_t{}, n, rm, ent);
  return out;
}

// First position in [lo, hi) of the sorted random-access range r whose
// value is >= x.
template <class R, class V>
TESSERA_INLINE_FUNCTION std::int64_t first_at_least(const R& r, std::int64_t lo, std::int64_t hi, V x) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (r[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Calls visit(x) for each distinct x of the sorted ranges a[0, na) and
// b[0, nb) that is in both and below `bound`; every element of a is below
// it. Returns how many. Lists of comparable length are walked side by side;
// when one is 16 times longer, each element of the shorter is searched for
// in the longer.
template <class RA, class RB, class V, class F>
TESSERA_INLINE_FUNCTION std::int64_t common_below(const RA& a, std::int64_t na, const RB& b, std::int64_t nb, V bound,
                                                  const F& visit) {
  std::int64_t cnt = 0;
  V last = V(-1);
  if (16 * na < nb) {
    std::int64_t lo = 0;
    for (std::int64_t i = 0; i < na; ++i) {
      const V x = a[i];
      if (x == last) continue;
      lo = first_at_least(b, lo, nb, x);
      if (lo == nb) break;
      if (b[lo] == x) {
        visit(x);
        ++cnt;
        last = x;
      }
    }
  } else if (16 * nb < na) {
    std::int64_t lo = 0;
    for (std::int64_t j = 0; j < nb; ++j) {
      const V y = b[j];
      if (!(y < bound)) break;
      if (y == last) continue;
      lo = first_at_least(a, lo, na, y);
      if (lo == na) break;
      if (a[lo] == y) {
        visit(y);
        ++cnt;
        last = y;
      }
    }
  } else {
    // Walks b up to each element of a, with branches: on the short lists
    // of an unskewed graph they follow a pattern the predictor learns,
    // where a branch-free merge would wait on each load. Ends with a: b's
    // elements from `bound` on match nothing in it.
    std::int64_t j = 0;
    for (std::int64_t i = 0; i < na; ++i) {
      const V x = a[i];
      while (j < nb && b[j] < x) ++j;
      if (j == nb) break;
      if (b[j] == x && x != last) {
        visit(x);
        ++cnt;
        last = x;
      }
    }
  }
  return cnt;
}

// by_id on random-access adjacency: each triangle w < v < u at u.
template <class G, class Visitor>
std::int64_t triangles_below(const G& g, const Visitor& visit) {
  using V = typename graph_traits<G>::vertex_descriptor;
  std::int64_t count = 0;
  tessera::parallel_reduce(
      "graph::triangles::by_id", detail::make_vertex_policy(g, 64),
      TESSERA_LAMBDA(std::int64_t ui, std::int64_t & cnt_out) {
        const V u = V(ui);
        const auto ru = adjacent_vertices(u, g);
        const std::int64_t du = ru.size();
        std::int64_t cnt = 0;
        // From i = 1: the smallest neighbour has no smaller one to close a
        // triangle with.
        for (std::int64_t i = 1; i < du; ++i) {
          const V v = ru[i];
          if (!(v < u)) break;
          if (v == ru[i - 1]) continue;  // a repeated edge
          // ru[0, i): u's neighbours below v (i is v's first position).
          const auto rv = adjacent_vertices(v, g);
          cnt += common_below(ru, i, rv, std::int64_t(rv.size()), v, [&](V w) { visit(w, v, u); });
        }
        cnt_out += cnt;
      },
      count);
  return count;
}

// by_id on forward-only adjacency: each triangle u < v < w at u.
template <class G, class Visitor>
std::int64_t triangles_by_id(const G& g, const Visitor& visit) {
  using V = typename graph_traits<G>::vertex_descriptor;
  std::int64_t count = 0;
  tessera::parallel_reduce(
      "graph::triangles::by_id", detail::make_vertex_policy(g, 16),
      TESSERA_LAMBDA(std::int64_t ui, std::int64_t & cnt) {
        const V u = V(ui);
        const auto ru = adjacent_vertices(u, g);
        const auto eu = ru.end();
        V prev = V(-1);
        for (auto it = ru.begin(); it != eu; ++it) {
          const V v = *it;
          if (v <= u || v == prev) continue;
          prev = v;
          auto a = it;
          ++a;
          const auto rv = adjacent_vertices(v, g);
          auto b = rv.begin();
          const auto eb = rv.end();
          while (b != eb && *b <= v) ++b;
          cnt += sorted_intersection(a, eu, b, eb, [&](V w) { visit(u, v, w); });
        }
      },
      count);
  return count;
}

// Triangles of a duplicate-free orientation D (each found at its first
// vertex); D is the library's CSR graph, whose adjacency iterators are
// pointers. Vertex x of D is old_id(x) of the graph the visitor sees.
template <class D, class I, class Visitor>
std::int64_t triangles_oriented(const D& d, const I& old_id, const Visitor& visit) {
  using V = typename graph_traits<D>::vertex_descriptor;
  std::int64_t count = 0;
  tessera::parallel_reduce(
      "graph::triangles::oriented", detail::make_vertex_policy(d, 16),
      TESSERA_LAMBDA(std::int64_t ui, std::int64_t & cnt) {
        const V u = V(ui);
        const auto ru = adjacent_vertices(u, d);
        for (auto it = ru.begin(); it != ru.end(); ++it) {
          const V v = *it;
          const auto rv = adjacent_vertices(v, d);
          cnt += sorted_intersection_ptr(ru.begin(), ru.end(), rv.begin(), rv.end(),
                                         [&](V w) {
                                           V a = old_id(u), b = old_id(v), c = old_id(w);
                                           sort3(a, b, c);
                                           visit(a, b, c);
                                         });
        }
      },
      count);
  return count;
}

// How the by_degree order runs (header). Tests run each on every space
// (vertex_marks is vertex_merge on a GPU space).
enum class TriangleSchedule { vertex_marks, vertex_merge, edge_lanes };
template <class G>
inline constexpr TriangleSchedule default_triangle_schedule =
    is_host_execution_space<typename G::execution_space>::value ? TriangleSchedule::vertex_marks
    : !graph_traits<G>::random_access_adjacency                 ? TriangleSchedule::vertex_merge
                                                                : TriangleSchedule::edge_lanes;

// The marks of vertex_marks: bytes, or bits, or none (the merge), the
// largest whose arrays (one per thread) weigh no more than the orientation's
// rows and entries. `automatic` picks; tests name the others.
enum class TriangleMarks { automatic, bytes, bits, none };
template <class D>
TriangleMarks triangle_marks_for(const D& d) {
  using V = typename graph_traits<D>::vertex_descriptor;
  using Exec = typename D::execution_space;
  const double n = double(num_vertices(d));
  const double threads = double(Exec().concurrency());
  const double orientation = 8.0 * (n + 1) + double(sizeof(V)) * double(num_edges(d));
  const double scratch_max = double(tessera::TeamPolicy<Exec>::scratch_size_max(1));
  if (n <= scratch_max && threads * n <= orientation) return TriangleMarks::bytes;
  if (n / 8 <= scratch_max && threads * n / 8 <= orientation) return TriangleMarks::bits;
  return TriangleMarks::none;
}

// The relabelled orientation, counted by marks or merges (above).
template <TriangleSchedule Schedule, class G, class Visitor>
std::int64_t triangles_relabelled(const G& g, const Visitor& visit, TriangleMarks marks) {
  const auto o = degree_oriented(g);
  if constexpr (Schedule == TriangleSchedule::vertex_marks &&
                is_host_execution_space<typename G::execution_space>::value) {
    if (marks == TriangleMarks::automatic) marks = triangle_marks_for(o.dag);
    if (marks == TriangleMarks::bytes) return triangles_marked<byte_marks>(o.dag, o.old_id, visit);
    if (marks == TriangleMarks::bits) return triangles_marked<bit_marks>(o.dag, o.old_id, visit);
  }
  return triangles_oriented(o.dag, o.old_id, visit);
}

// find_triangles with the by_degree schedule named, for edge_lanes the
// lanes per oriented edge (the benchmark times other counts), and for
// vertex_marks the marks (tests name each).
template <TriangleSchedule Schedule, class G, class Visitor>
std::int64_t find_triangles_with(const G& g, const Visitor& visit, triangle_order order,
                                 int edge_lanes = kTriangleEdgeLanes,
                                 TriangleMarks marks = TriangleMarks::automatic) {
  static_assert(graph_traits<G>::is_undirected, "find_triangles needs an undirected graph");
  static_assert(graph_traits<G>::sorted_adjacency, "find_triangles needs sorted adjacency lists");
  using Policy = tessera::TeamPolicy<typename G::execution_space>;
  if (edge_lanes < 1 || edge_lanes > Policy::vector_length_max() || (edge_lanes & (edge_lanes - 1)) != 0)
    fail("find_triangles: " + std::to_string(edge_lanes) + " lanes per edge; a power of two from 1 to " +
         std::to_string(Policy::vector_length_max()) + " on this space");
  if (order == triangle_order::automatic) order = degrees_skewed(g) ? triangle_order::by_degree : triangle_order::by_id;
  if (order == triangle_order::by_degree) {
    if constexpr (Schedule == TriangleSchedule::edge_lanes) {
      static_assert(graph_traits<G>::random_access_adjacency,
                    "the edge_lanes triangle schedule indexes adjacency lists; this graph's are not random access");
      return triangles_edge_lanes<typename G::execution_space>(orient_by_degree_in_place(g), visit, edge_lanes);
    } else {
      return triangles_relabelled<Schedule>(g, visit, marks);
    }
  }
  if constexpr (graph_traits<G>::random_access_adjacency) return triangles_below(g, visit);
  else return triangles_by_id(g, visit);
}

}  // namespace detail

template <class G, class Visitor>
std::int64_t find_triangles(const G& g, const Visitor& visit, triangle_order order = triangle_order::automatic) {
  return detail::find_triangles_with<detail::default_triangle_schedule<G>>(g, visit, order);
}

template <class G>
std::int64_t count_triangles(const G& g, triangle_order order = triangle_order::automatic) {
  return find_triangles(g, detail::no_triangle_visitor{}, order);
}

}  // namespace tessera::graph
