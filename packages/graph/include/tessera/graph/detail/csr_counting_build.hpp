#pragma once
// CSR graphs built by counting sort on a host execution space (csr_build in
// csr_graph.hpp uses these there; device spaces sort keys).
//
// csr_rows_by_counting: the rows of a directed graph (or, `upper`, of the
// upper triangle: each edge (u, v) as (min, max)):
//   1. degrees   counted per block of the input
//   2. offsets   exclusive parallel_scan of the degrees; each block's cursors follow
//   3. scatter   each slot goes to its block's cursor in its row (a stable counting sort)
//   4. rows      each row sorted by (target, input position), duplicates dropped if asked
//   5. compact   rows copied side by side, only when something was dropped
//
// csr_undirected_by_counting: an undirected graph from its upper triangle.
// Every edge is sorted and de-duplicated once, not from both ends; the upper
// slots, numbered row by row, are the edge indices; each row's lower part
// (sources below the vertex) is filled by a second stable counting pass over
// the upper slots, in row order, so it comes out sorted.
//
// Why the result is the one a stable sort of (source, target) keys gives
// (csr_build's device path), whatever the thread count: the stable scatter
// keeps a row's slots in input order; the row sort orders them by target
// and, among equal targets, by input position, which is exactly the stable
// order; de-duplication keeps the first slot of each run, the smallest input
// position. With more vertices than the per-block counters allow, the passes
// use atomic counters instead and the order before the row sort depends on
// timing, which the row sort (by input position, or for lower parts by edge
// index) then removes. When the caller wants no input positions, equal
// targets are indistinguishable and only targets are sorted.
//
// Work: O(m + nb * n) plus sum over rows of d log d (rows of an input
// written row by row are merged, not sorted); memory: one target (and input
// position) per slot and nb * n counters, without the 64-bit (source,
// target) keys and the sort buffers of the key sort.
#include <tessera/graph/detail/util.hpp>
#include <tessera/graph/edge_list.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessera::graph::detail {

template <class S, class V, class E>
struct csr_rows {
  tessera::View<E*, S> row_map;      // n + 1 offsets
  tessera::View<V*, S> entries;      // targets, sorted within each row
  tessera::View<E*, S> slot_origin;  // per slot of entries, the input position (when asked for)
  // Where row u starts in entries: row_map(u), unless the rows were left
  // uncompacted (then row u is entries[row_start(u), row_start(u) + degree)).
  tessera::View<E*, S> row_start;
};

// Sorts one row of targets. The stable scatter leaves a row as a few sorted
// runs when the input is ordered (an edge list written row by row gives three:
// sources below the row's vertex, its own line block, sources above), so a
// row of at most four runs is merged, anything else sorted.
template <class V, class E>
void sort_row(V* t, E len) {
  constexpr int max_runs = 4;
  E start[max_runs + 1];
  int runs = 1;
  start[0] = 0;
  for (E k = 1; k < len; ++k)
    if (t[k] < t[k - 1]) {
      if (runs == max_runs) {
        std::sort(t, t + len);
        return;
      }
      start[runs++] = k;
    }
  if (runs == 1) return;
  start[runs] = len;
  thread_local std::vector<V> buf;
  buf.resize(std::size_t(len));
  for (int r = 1; r < runs; ++r) {
    std::merge(t, t + start[r], t + start[r], t + start[r + 1], buf.data());
    std::copy(buf.data(), buf.data() + start[r + 1], t);
  }
}

// "building" progress: steps 1-4 in csr_rows_by_counting, 5 in
// csr_undirected_by_counting, the last when csr_build returns.
inline constexpr int csr_build_steps = 6;

// Blocks for the per-block counters of a counting pass over `work` items
// into n rows: one per thread, or 0 when nb * n counters would take more
// memory than the items themselves (then the passes use atomics).
template <class Exec>
std::int64_t counting_blocks(std::int64_t n, std::int64_t work) {
  const std::int64_t nb = std::max(1, Exec().impl_thread_pool_size());
  return nb * (n + 1) <= work + (std::int64_t(1) << 20) ? nb : 0;
}

[[noreturn]] inline void fail_bad_edge(std::int64_t i, std::int64_t u, std::int64_t v, std::int64_t n) {
  fail("edge " + std::to_string(i) + " (" + std::to_string(u) + ", " + std::to_string(v) + ") has a vertex outside [0, " +
       std::to_string(n) + ")");
}

template <class Exec, class S, class V, class E, class SV, class DV>
csr_rows<S, V, E> csr_rows_by_counting(std::int64_t n, const SV& src, const DV& dst, const build_options& opts,
                                       bool keep_origin, bool upper, bool compact = true) {
  static_assert(tessera::is_host_execution_space<Exec>::value, "the counting build runs on host execution spaces");
  using size_type = std::int64_t;
  const size_type m_in = size_type(src.extent(0));
  const bool drop_loops = opts.remove_self_loops;
  const bool dedupe = opts.remove_duplicates;
  auto step = [&](int k) {
    if (opts.progress) opts.progress("building", k, csr_build_steps, opts.progress_user);
  };

  tessera::View<E*, S> offsets("graph::csr::offsets", n + 1);
  tessera::View<V*, S> targets;
  tessera::View<E*, S> origin;
  auto allocate_slots = [&](E slots) {
    targets = tessera::View<V*, S>(tessera::view_alloc("graph::csr::targets", tessera::WithoutInitializing), slots);
    if (keep_origin) {
      origin = tessera::View<E*, S>(tessera::view_alloc("graph::csr::origin", tessera::WithoutInitializing), slots);
    }
  };
  // The row and target of input edge i: (u, v), or (min, max) for the upper
  // triangle; a dropped self-loop has row -1.
  auto slot_of = [=](size_type i, size_type& row, size_type& tgt) {
    const size_type u = size_type(src(i)), v = size_type(dst(i));
    row = upper && v < u ? v : u;
    tgt = upper && v < u ? u : v;
    if (u == v && drop_loops) row = -1;
  };
  const std::int64_t nb = counting_blocks<Exec>(n, m_in);
  if (nb > 0) {
    // 1-3 without atomics: block b of the input counts into its own row
    // counters, which then become its cursors, so the scatter is a stable
    // counting sort (slots of a row in input order) and the rows come out
    // the same for every thread count. The degree pass also checks every
    // vertex id (the first bad edge is named).
    tessera::View<E*, S> cnt("graph::csr::block_counts", std::size_t(nb * n));
    std::vector<size_type> first_bad(std::size_t(nb), m_in);
    size_type* bad = first_bad.data();
    auto in_block = [=](std::int64_t b) { return std::pair<size_type, size_type>(m_in * b / nb, m_in * (b + 1) / nb); };
    tessera::parallel_for("graph::csr::degrees", tessera::RangePolicy<Exec>(0, nb, 1), [=](size_type b) {
      E* c = cnt.data() + b * n;
      const auto [lo, hi] = in_block(b);
      for (size_type i = lo; i < hi; ++i) {
        const size_type u = size_type(src(i)), v = size_type(dst(i));
        if (u < 0 || u >= n || v < 0 || v >= n) {
          bad[b] = i;
          return;
        }
        size_type row, tgt;
        slot_of(i, row, tgt);
        if (row >= 0) ++c[row];
      }
    });
    for (auto i : first_bad)
      if (i < m_in) fail_bad_edge(i, detail::read_one(src, i), detail::read_one(dst, i), n);
    tessera::parallel_for("graph::csr::degree_sum", tessera::RangePolicy<Exec>(0, n), [=](size_type v) {
      E d = 0;
      for (std::int64_t b = 0; b < nb; ++b) d += cnt(b * n + v);
      offsets(v) = d;
    });
    allocate_slots(exclusive_scan_inplace<Exec>("graph::csr::offsets_scan", offsets, n));
    tessera::parallel_for("graph::csr::cursors", tessera::RangePolicy<Exec>(0, n), [=](size_type v) {
      E at = offsets(v);
      for (std::int64_t b = 0; b < nb; ++b) {
        const E c = cnt(b * n + v);
        cnt(b * n + v) = at;
        at += c;
      }
    });
    step(1);
    auto t = targets;
    auto o = origin;
    tessera::parallel_for("graph::csr::scatter", tessera::RangePolicy<Exec>(0, nb, 1), [=](size_type b) {
      E* c = cnt.data() + b * n;
      V* tp = t.data();
      E* op = o.data();
      const auto [lo, hi] = in_block(b);
      for (size_type i = lo; i < hi; ++i) {
        size_type row, tgt;
        slot_of(i, row, tgt);
        if (row < 0) continue;
        const E p = c[row]++;
        tp[p] = V(tgt);
        if (keep_origin) op[p] = E(i);
      }
    });
  } else {
    // Too many vertices for counters per block: atomic degrees and cursors.
    size_type first_bad = m_in;
    tessera::parallel_reduce(
        "graph::csr::validate", tessera::RangePolicy<Exec>(0, m_in),
        [=](size_type i, size_type& bad) {
          const size_type u = size_type(src(i)), v = size_type(dst(i));
          if ((u < 0 || u >= n || v < 0 || v >= n) && i < bad) bad = i;
        },
        tessera::Min<size_type>(first_bad));
    if (first_bad < m_in) fail_bad_edge(first_bad, detail::read_one(src, first_bad), detail::read_one(dst, first_bad), n);
    tessera::parallel_for("graph::csr::degrees", tessera::RangePolicy<Exec>(0, m_in), [=](size_type i) {
      size_type row, tgt;
      slot_of(i, row, tgt);
      if (row >= 0) tessera::atomic_inc(&offsets(row));
    });
    allocate_slots(exclusive_scan_inplace<Exec>("graph::csr::offsets_scan", offsets, n));
    tessera::View<E*, S> cursor(tessera::view_alloc("graph::csr::cursor", tessera::WithoutInitializing), n);
    tessera::parallel_for("graph::csr::cursor", tessera::RangePolicy<Exec>(0, n), [=](size_type u) { cursor(u) = offsets(u); });
    step(1);
    auto t = targets;
    auto o = origin;
    tessera::parallel_for("graph::csr::scatter", tessera::RangePolicy<Exec>(0, m_in), [=](size_type i) {
      size_type row, tgt;
      slot_of(i, row, tgt);
      if (row < 0) return;
      const E p = tessera::atomic_fetch_add(&cursor(row), E(1));
      t(p) = V(tgt);
      if (keep_origin) o(p) = E(i);
    });
  }
  const E slots = E(targets.extent(0));
  step(2);

  // 4. Rows: sorted, then (de-duplicating) the first of each run kept at the
  // front of the row; kept(u) counts them.
  tessera::View<E*, S> kept("graph::csr::kept", dedupe ? n + 1 : 0);
  tessera::parallel_for(
      "graph::csr::rows", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, n, 256), [=](size_type u) {
        const E b = offsets(u), e = offsets(u + 1);
        V* t = targets.data();
        if (!keep_origin) {
          sort_row(t + b, e - b);
          if (dedupe) kept(u) = E(std::unique(t + b, t + e) - (t + b));
          return;
        }
        E* o = origin.data();
        thread_local std::vector<std::pair<V, E>> row;
        row.resize(std::size_t(e - b));
        for (E j = b; j < e; ++j) row[std::size_t(j - b)] = {t[j], o[j]};
        std::sort(row.begin(), row.end());
        E k = b;
        for (std::size_t j = 0; j < row.size(); ++j) {
          if (dedupe && j > 0 && row[j].first == row[j - 1].first) continue;
          t[k] = row[j].first;
          o[k] = row[j].second;
          ++k;
        }
        if (dedupe) kept(u) = k - b;
      });
  step(3);

  csr_rows<S, V, E> r;
  r.row_start = offsets;
  r.entries = targets;
  r.slot_origin = origin;
  if (!dedupe) {
    r.row_map = offsets;
    step(4);
    return r;
  }
  // 5. Compaction.
  const E ns = exclusive_scan_inplace<Exec>("graph::csr::kept_scan", kept, n);
  if (ns == slots) {  // nothing dropped: the rows are in place already
    r.row_map = offsets;
    step(4);
    return r;
  }
  r.row_map = kept;
  if (!compact) {
    step(4);
    return r;
  }
  r.row_start = kept;
  r.entries = tessera::View<V*, S>(tessera::view_alloc("graph::entries", tessera::WithoutInitializing), ns);
  if (keep_origin)
    r.slot_origin = tessera::View<E*, S>(tessera::view_alloc("graph::csr::slot_origin", tessera::WithoutInitializing), ns);
  auto entries = r.entries;
  auto slot_origin = r.slot_origin;
  tessera::parallel_for(
      "graph::csr::compact", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, n, 256), [=](size_type u) {
        const E from = offsets(u), to = kept(u), cnt = kept(u + 1) - kept(u);
        std::copy(targets.data() + from, targets.data() + from + cnt, entries.data() + to);
        if (keep_origin) std::copy(origin.data() + from, origin.data() + from + cnt, slot_origin.data() + to);
      });
  step(4);
  return r;
}

template <class S, class V, class E>
struct csr_undirected {
  tessera::View<E*, S> row_map;
  tessera::View<V*, S> entries;
  tessera::View<E*, S> upper_start;  // per row, the edge index of its first upper slot (n+1)
  tessera::View<E*, S> edge_origin;  // per edge index, the input position (when asked for)
  std::int64_t m = 0;
};

// Blocks of consecutive rows holding about equal numbers of slots.
template <class S, class E>
tessera::View<std::int64_t*, S> row_blocks(const tessera::View<E*, S>& row_map, std::int64_t n, std::int64_t nb) {
  const E ns = n > 0 ? row_map(n) : E(0);
  tessera::View<std::int64_t*, S> first(tessera::view_alloc("graph::csr::row_blocks", tessera::WithoutInitializing), nb + 1);
  first(0) = 0;
  for (std::int64_t b = 1; b < nb; ++b)
    first(b) = std::int64_t(std::lower_bound(row_map.data(), row_map.data() + n, E(ns * b / nb)) - row_map.data());
  first(nb) = n;
  return first;
}

// Blocks of consecutive rows holding about equal numbers of upper slots
// (targets >= the row), for the passes of an undirected graph that walk only
// those. Blocks of equal slots would not do: with ids in random order a low
// row names mostly higher ids, and the first half of Kronecker 20's slots
// holds three quarters of its upper slots. The upper counts of every 64th
// row (a binary search each) estimate the split: balance, not correctness,
// depends on it, and an exact pass over all rows cost a low-degree graph
// more than it saved (a 2048^2 grid, 2 threads).
template <class S, class V, class E>
tessera::View<std::int64_t*, S> upper_row_blocks(const tessera::View<E*, S>& row_map,
                                                 const tessera::View<V*, S>& entries, std::int64_t n, std::int64_t nb) {
  constexpr std::int64_t stride = 64;
  const std::int64_t samples = nb > 1 ? (n + stride - 1) / stride : 0;  // one block: no split to estimate
  std::vector<std::int64_t> upto(std::size_t(samples) + 1, 0);  // estimated upper slots before sample k's run
  for (std::int64_t k = 0; k < samples; ++k) {
    const std::int64_t u = k * stride;
    const E e = row_map(u + 1);
    const std::int64_t rows = std::min(stride, n - u);
    const std::int64_t upper = std::int64_t(e - lower_bound(entries.data(), row_map(u), e, V(u)));
    upto[std::size_t(k) + 1] = upto[std::size_t(k)] + rows * upper;
  }
  tessera::View<std::int64_t*, S> first(tessera::view_alloc("graph::csr::row_blocks", tessera::WithoutInitializing), nb + 1);
  first(0) = 0;
  for (std::int64_t b = 1; b < nb; ++b) {
    const std::int64_t want = upto.back() * b / nb;
    const std::int64_t k = std::int64_t(std::lower_bound(upto.begin(), upto.end(), want) - upto.begin());
    first(b) = std::max(first(b - 1), std::min(n, k * stride));
  }
  first(nb) = n;
  return first;
}

template <class Exec, class S, class V, class E, class SV, class DV>
csr_undirected<S, V, E> csr_undirected_by_counting(std::int64_t n, const SV& src, const DV& dst, const build_options& opts,
                                                   bool keep_origin) {
  using size_type = std::int64_t;
  // The upper triangle, sorted and de-duplicated: its slots are the edges.
  // Left uncompacted: upper slot j of row a (edge index j) is held at
  // targets(rs(a) + j - urm(a)).
  const csr_rows<S, V, E> up = csr_rows_by_counting<Exec, S, V, E>(n, src, dst, opts, keep_origin, true, false);
  const auto urm = up.row_map;
  const auto rs = up.row_start;
  const V* ut = up.entries.data();
  auto uent = [=](size_type a, E j) { return ut[rs(a) + (j - urm(a))]; };
  csr_undirected<S, V, E> r;
  r.m = n > 0 ? size_type(urm(n)) : 0;
  r.upper_start = urm;
  if (keep_origin) {
    r.edge_origin = tessera::View<E*, S>(tessera::view_alloc("graph::edge_origin", tessera::WithoutInitializing), r.m);
    auto eo = r.edge_origin;
    auto so = up.slot_origin;
    tessera::parallel_for("graph::csr::edge_origin", tessera::RangePolicy<Exec>(0, n), [=](size_type a) {
      for (E j = urm(a); j < urm(a + 1); ++j) eo(j) = so(rs(a) + (j - urm(a)));
    });
  }
  r.row_map = tessera::View<E*, S>("graph::row_map", n + 1);
  auto row_map = r.row_map;
  // Row v of the graph: its lower part (the upper slots (a, v), a < v, in
  // slot order, so sorted by a) then its upper row.
  auto fill_upper = [=](size_type a, const tessera::View<V*, S>& entries) {
    const E lower = (row_map(a + 1) - row_map(a)) - (urm(a + 1) - urm(a));
    const E base = row_map(a) + lower - urm(a);
    for (E j = urm(a); j < urm(a + 1); ++j) entries(base + j) = uent(a, j);
  };
  const std::int64_t nb = counting_blocks<Exec>(n, r.m);
  if (nb > 0) {
    const auto rows_of = row_blocks(urm, n, nb);
    tessera::View<E*, S> cnt("graph::csr::lower_counts", std::size_t(nb * n));
    tessera::parallel_for("graph::csr::lower_count", tessera::RangePolicy<Exec>(0, nb, 1), [=](size_type b) {
      E* c = cnt.data() + b * n;
      for (size_type a = rows_of(b); a < rows_of(b + 1); ++a)
        for (E j = urm(a); j < urm(a + 1); ++j)
          if (uent(a, j) != V(a)) ++c[uent(a, j)];  // a self-loop has no lower copy
    });
    tessera::parallel_for("graph::csr::degrees", tessera::RangePolicy<Exec>(0, n), [=](size_type v) {
      E d = urm(v + 1) - urm(v);
      for (std::int64_t b = 0; b < nb; ++b) d += cnt(b * n + v);
      row_map(v) = d;
    });
    const E ns = exclusive_scan_inplace<Exec>("graph::csr::row_scan", row_map, n);
    tessera::parallel_for("graph::csr::lower_cursors", tessera::RangePolicy<Exec>(0, n), [=](size_type v) {
      E at = row_map(v);  // the lower part starts the row
      for (std::int64_t b = 0; b < nb; ++b) {
        const E c = cnt(b * n + v);
        cnt(b * n + v) = at;
        at += c;
      }
    });
    r.entries = tessera::View<V*, S>(tessera::view_alloc("graph::entries", tessera::WithoutInitializing), ns);
    auto entries = r.entries;
    tessera::parallel_for("graph::csr::expand", tessera::RangePolicy<Exec>(0, nb, 1), [=](size_type b) {
      E* c = cnt.data() + b * n;
      for (size_type a = rows_of(b); a < rows_of(b + 1); ++a) {
        fill_upper(a, entries);
        for (E j = urm(a); j < urm(a + 1); ++j) {
          const V t = uent(a, j);
          if (t == V(a)) continue;
          entries(c[t]++) = V(a);
        }
      }
    });
  } else {
    // Atomic counts and cursors, then each lower part sorted by edge index
    // (slot order, the order the counters would have given).
    tessera::View<E*, S> lower("graph::csr::lower_counts", n);
    tessera::parallel_for(
        "graph::csr::lower_count", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, n, 256), [=](size_type a) {
          for (E j = urm(a); j < urm(a + 1); ++j)
            if (uent(a, j) != V(a)) tessera::atomic_inc(&lower(uent(a, j)));
        });
    tessera::parallel_for("graph::csr::degrees", tessera::RangePolicy<Exec>(0, n),
                          [=](size_type v) { row_map(v) = urm(v + 1) - urm(v) + lower(v); });
    const E ns = exclusive_scan_inplace<Exec>("graph::csr::row_scan", row_map, n);
    tessera::parallel_for("graph::csr::lower_cursors", tessera::RangePolicy<Exec>(0, n), [=](size_type v) { lower(v) = row_map(v); });
    r.entries = tessera::View<V*, S>(tessera::view_alloc("graph::entries", tessera::WithoutInitializing), ns);
    auto entries = r.entries;
    tessera::parallel_for(
        "graph::csr::expand", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, n, 256), [=](size_type a) {
          fill_upper(a, entries);
          for (E j = urm(a); j < urm(a + 1); ++j) {
            const V t = uent(a, j);
            if (t == V(a)) continue;
            entries(tessera::atomic_fetch_add(&lower(t), E(1))) = V(a);
          }
        });
    // The lower parts hold sources in the threads' order: sorted, they are
    // what the counters would have given (equal sources are alike).
    tessera::parallel_for(
        "graph::csr::lower_sort", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, n, 256), [=](size_type v) {
          const E b = row_map(v);
          const E e = b + (row_map(v + 1) - row_map(v)) - (urm(v + 1) - urm(v));
          std::sort(entries.data() + b, entries.data() + e);
        });
  }
  if (opts.progress) opts.progress("building", 5, csr_build_steps, opts.progress_user);
  return r;
}

// Whether CSR arrays given for an undirected graph (offsets, ranges and
// sorted rows already checked) hold every edge in both rows, on a host space,
// by streaming passes instead of a binary search per edge (which read rows
// at random: 13 s for a Kronecker graph of 2^20 vertices on two cores). The
// sources of the lower part of row v (targets below v) must be, in order,
// the rows whose upper part names v, each as often as it does: a counting
// pass over the upper slots by blocks of rows gives each block's share of
// every row's lower part; the lower parts must have exactly those lengths,
// and a second pass checks each upper slot's twin where its rank puts it.
// Returns 1 (symmetric), 0 (not: the caller names the first bad row by the
// search check), or -1 when the per-block counters would take more memory
// than the slots (the caller runs the search check).
template <class Exec, class S, class V, class E>
int csr_symmetric_by_counting(std::int64_t n, const tessera::View<E*, S>& row_map, const tessera::View<V*, S>& entries) {
  using size_type = std::int64_t;
  const E ns = n > 0 ? row_map(n) : E(0);
  const std::int64_t nb = counting_blocks<Exec>(n, std::int64_t(ns));
  if (nb == 0) return -1;
  const auto rows_of = upper_row_blocks(row_map, entries, n, nb);
  tessera::View<E*, S> cnt("graph::csr::twin_counts", std::size_t(nb * n));
  tessera::parallel_for("graph::csr::twin_count", tessera::RangePolicy<Exec>(0, nb, 1), [=](size_type b) {
    E* c = cnt.data() + b * n;
    const V* a = entries.data();
    for (size_type u = rows_of(b); u < rows_of(b + 1); ++u) {
      const E e = row_map(u + 1);
      for (E j = lower_bound(a, row_map(u), e, V(u)); j < e; ++j)
        if (a[j] != V(u)) ++c[a[j]];  // a self-loop has no twin
    }
  });
  size_type short_rows = 0;
  tessera::parallel_reduce(
      "graph::csr::twin_cursors", tessera::RangePolicy<Exec>(0, n),
      [=](size_type v, size_type& bad) {
        E at = row_map(v);  // the lower part of row v starts the row
        for (std::int64_t b = 0; b < nb; ++b) {
          const E c = cnt(b * n + v);
          cnt(b * n + v) = at;
          at += c;
        }
        if (at != lower_bound(entries.data(), row_map(v), row_map(v + 1), V(v))) ++bad;
      },
      short_rows);
  if (short_rows != 0) return 0;
  size_type misplaced = 0;
  tessera::parallel_reduce(
      "graph::csr::twin_check", tessera::RangePolicy<Exec>(0, nb, 1),
      [=](size_type b, size_type& bad) {
        E* c = cnt.data() + b * n;
        const V* a = entries.data();
        for (size_type u = rows_of(b); u < rows_of(b + 1); ++u) {
          const E e = row_map(u + 1);
          for (E j = lower_bound(a, row_map(u), e, V(u)); j < e; ++j)
            if (a[j] != V(u) && a[c[a[j]]++] != V(u)) ++bad;
        }
      },
      misplaced);
  return misplaced == 0 ? 1 : 0;
}

// Edge indices of an undirected CSR graph on a host space (csr_finish):
// the upper slots (target >= source) numbered row by row from uoff, each
// index also given to the upper slot's twin. The twin of (u, v), u < v, is u's
// slot in the lower part of row v, which lists its sources in order, so the
// twin's place there is the rank of (u, v) among the upper slots with target
// v in row order (the k-th duplicate pairs with the k-th). A stable counting
// pass over the upper slots, blocks of rows in order, gives every rank
// without a search. Returns false, doing nothing, when the per-block
// counters would take more memory than the slots.
template <class Exec, class S, class V, class E>
bool csr_edge_ids_by_counting(std::int64_t n, const tessera::View<E*, S>& row_map, const tessera::View<V*, S>& entries,
                              const tessera::View<E*, S>& uoff, const tessera::View<E*, S>& ids) {
  using size_type = std::int64_t;
  const E ns = n > 0 ? row_map(n) : E(0);
  const std::int64_t nb = counting_blocks<Exec>(n, std::int64_t(ns));
  if (nb == 0) return false;
  // Blocks of rows with equal shares of upper slots, the only ones both
  // passes walk (see upper_row_blocks); uoff counts them exactly.
  const auto rows_of = row_blocks(uoff, n, nb);
  tessera::View<E*, S> cnt("graph::csr::id_counts", std::size_t(nb * n));
  tessera::parallel_for("graph::csr::id_count", tessera::RangePolicy<Exec>(0, nb, 1), [=](size_type b) {
    E* c = cnt.data() + b * n;
    const V* a = entries.data();
    for (size_type u = rows_of(b); u < rows_of(b + 1); ++u) {
      const E e = row_map(u + 1);
      const E diag = e - (uoff(u + 1) - uoff(u));  // the row's upper part, counted by uoff
      for (E j = diag; j < e; ++j) {
        ids(j) = uoff(u) + (j - diag);
        if (a[j] != V(u)) ++c[a[j]];  // a self-loop has no twin
      }
    }
  });
  tessera::parallel_for("graph::csr::id_cursors", tessera::RangePolicy<Exec>(0, n), [=](size_type v) {
    E at = row_map(v);  // the lower part of row v starts the row
    for (std::int64_t b = 0; b < nb; ++b) {
      const E c = cnt(b * n + v);
      cnt(b * n + v) = at;
      at += c;
    }
  });
  tessera::parallel_for("graph::csr::id_twins", tessera::RangePolicy<Exec>(0, nb, 1), [=](size_type b) {
    E* c = cnt.data() + b * n;
    const V* a = entries.data();
    for (size_type u = rows_of(b); u < rows_of(b + 1); ++u) {
      const E e = row_map(u + 1);
      for (E j = lower_bound(a, row_map(u), e, V(u)); j < e; ++j)
        if (a[j] != V(u)) ids(c[a[j]]++) = ids(j);
    }
  });
  return true;
}

}  // namespace tessera::graph::detail
