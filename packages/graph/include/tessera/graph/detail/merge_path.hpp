#pragma once
// The edge-balanced schedule: merge path over a list of rows and their edges
// (Merrill & Garland, "Merge-based parallel sparse matrix-vector
// multiplication", SC16; the idea only, written here for graph rows).
//
// Walking n rows whose edges have offsets offs(0) = 0 <= ... <= offs(n) = m
// is the merge of the row ends offs(1..n) with the edge numbers 0..m-1: at
// (row i, edge j) edge j is next when it lies in row i (j < offs(i + 1)),
// otherwise row i ends. Every one of the n + m steps is one edge or one row
// end, so cutting the path into equal pieces gives each work item the same
// work whatever the degrees: a hub's row is split between many items, and a
// long run of empty rows between several (cutting the edges alone would hand
// one thread the whole run to step over). An item finds where its piece
// starts by one binary search along its diagonal.
//
// Rows are either all vertices (row i is vertex i, offsets the CSR row map
// when the graph has one) or a frontier (row i is frontier(i), offsets a
// scan of the frontier's degrees).
#include <tessera/graph/detail/util.hpp>
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/traversal_options.hpp>

#include <cstdint>
#include <string>

namespace tessera::graph::detail {

// Row i is vertex i.
template <class V>
struct all_rows {
  TESSERA_INLINE_FUNCTION V operator()(std::int64_t i) const { return V(i); }
};
// Row i is frontier(i).
template <class V, class FV>
struct frontier_rows {
  FV frontier;
  TESSERA_INLINE_FUNCTION V operator()(std::int64_t i) const { return V(frontier(i)); }
};

// The row reached after d steps of the path (so d - row edges are taken):
// the first row i whose end is not before the edge the diagonal would take
// with it. The predicate is monotone (offs grows with i, d - i - 1 shrinks).
template <class Off>
TESSERA_INLINE_FUNCTION std::int64_t merge_path_row(const Off& offs, std::int64_t n, std::int64_t m,
                                                    std::int64_t d) {
  std::int64_t lo = d > m ? d - m : 0, hi = d < n ? d : n;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (std::int64_t(offs(mid + 1)) <= d - mid - 1) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Calls visit(u, it) for the edges among steps [d0, d1) of the path: u the
// row's vertex, `it` an out-edge iterator at the edge (*it is its
// descriptor; adjacency must be random access).
template <class G, class Off, class Rows, class Visit>
TESSERA_INLINE_FUNCTION void merge_path_walk(const G& g, const Off& offs, const Rows& rows, std::int64_t n,
                                             std::int64_t m, std::int64_t d0, std::int64_t d1, const Visit& visit) {
  std::int64_t i = merge_path_row(offs, n, m, d0);
  std::int64_t j = d0 - i;
  std::int64_t left = d1 - d0;
  while (left > 0 && i < n) {
    const std::int64_t begin = std::int64_t(offs(i)), end = std::int64_t(offs(i + 1));
    const std::int64_t take = end - j < left ? end - j : left;
    if (take > 0) {
      const auto u = rows(i);
      const auto r = out_edges(u, g);
      for (std::int64_t k = j - begin; k < j - begin + take; ++k) visit(u, r.begin() + k);
      j += take;
      left -= take;
    }
    if (left > 0) {  // j == end: the next step ends row i
      ++i;
      --left;
    }
  }
}

inline std::int64_t merge_path_steps(std::int64_t requested, bool host) {
  return requested > 0 ? requested : host ? 2048 : 32;
}

// offs(i) = sum of out_degree(rows(k)) for k < i, i = 0..count (a rank-1 View
// of count + 1 entries); returns offs(count).
template <class G, class Rows, class OV>
struct row_degree_fill {
  G g;
  Rows rows;
  OV offs;
  std::int64_t count;
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t i) const {
    offs(i) = i < count ? std::int64_t(out_degree(rows(i), g)) : 0;
  }
};
template <class Exec, class S, class G, class Rows>
tessera::View<std::int64_t*, S> row_edge_offsets(const G& g, const Rows& rows, std::int64_t count,
                                                 std::int64_t& total) {
  tessera::View<std::int64_t*, S> offs(tessera::view_alloc("graph::row_offsets", tessera::WithoutInitializing),
                                       count + 1);
  tessera::parallel_for("graph::row_degrees", tessera::RangePolicy<Exec>(0, count + 1),
                        row_degree_fill<G, Rows, decltype(offs)>{g, rows, offs, count});
  total = exclusive_scan_inplace<Exec>("graph::row_offsets_scan", offs, count);
  return offs;
}

// Work item c of an edge-balanced traversal: steps [c * per, (c + 1) * per).
template <class G, class Off, class Rows, class Sink>
struct edge_balanced_items {
  G g;
  Off offs;
  Rows rows;
  Sink sink;
  std::int64_t n, m, per;
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t c) const {
    const std::int64_t d0 = c * per, d1 = d0 + per < n + m ? d0 + per : n + m;
    merge_path_walk(g, offs, rows, n, m, d0, d1, sink);
  }
};

// sink(u, it) for every out-edge (at `it`) of rows(0..n-1), offs their edge offsets
// (m = offs(n) edges).
template <class Exec, class G, class Off, class Rows, class Sink>
void edge_balanced_for(const std::string& label, const G& g, const Off& offs, const Rows& rows, std::int64_t n,
                       std::int64_t m, const Sink& sink, const traversal_options& opts) {
  const std::int64_t per = merge_path_steps(opts.steps_per_item, tessera::is_host_execution_space<Exec>::value);
  const std::int64_t items = (n + m + per - 1) / per;
  tessera::parallel_for(label, tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, items, 1),
                        edge_balanced_items<G, Off, Rows, Sink>{g, offs, rows, sink, n, m, per});
}

}  // namespace tessera::graph::detail
