#pragma once
// miniTri, direct method: never stores a triangle.
//
//   minitri_result r = minitri_direct(g, opts);
//
// Pass 1 enumerates every triangle once (degree-ordered orientation:
// oriented_graph.hpp) and adds it to t_v and t_e; pass 2 enumerates them
// again and, now that the degrees are final, adds each triangle's k to the
// histogram. Enumerating twice costs less than writing and re-reading the
// triangles (40 bytes each), and memory stays O(V + E): the orientation,
// t_v, t_e and the histogram (per-thread copies on host pools), and on a
// host space the lookup's marks, n 32-bit entries per thread
// (opts.lookup: detail/direct_marks.hpp; the sorted merge elsewhere).
#include <tessera/analytics/detail/direct_marks.hpp>
#include <tessera/analytics/detail/histogram.hpp>
#include <tessera/analytics/detail/kernels.hpp>
#include <tessera/analytics/detail/memory_meter.hpp>
#include <tessera/analytics/minitri_options.hpp>
#include <tessera/analytics/oriented_graph.hpp>

#include <cstdint>
#include <optional>

namespace tessera::analytics {

namespace detail {

// Pass 1 by merge. A row's triangles come grouped by their middle vertex v,
// so the counts of v and {u, v} are summed and added once per v, and u's
// once per row; w, {u, w} and {v, w} take an atomic each: three per
// triangle instead of six (the GPU's path; the host's is by marks).
// Pointers, not Views: one is made per row, and a View copied on a host
// space changes its allocation's shared reference count (two atomics on
// one cache line per View, for every row, from every thread).
template <class Exec, class V, class E>
struct row_degree_sums {
  using execution_space = Exec;
  std::int64_t* tv;
  std::int64_t* te;
  V v = V(-1);  // the middle vertex being summed
  E uv = 0;     // and the edge index of {u, v}
  std::int64_t at_uv = 0;
  TESSERA_INLINE_FUNCTION void flush() {
    if (at_uv != 0) {
      add_count<Exec>(&tv[v], at_uv);
      add_count<Exec>(&te[uv], at_uv);
    }
    at_uv = 0;
  }
};

template <class Sums>
struct add_to_row_sums {
  Sums* sums;
  template <class V, class E>
  TESSERA_INLINE_FUNCTION void operator()(const triangle<V, E>& t) const {
    if (t.v[1] != sums->v) {
      sums->flush();
      sums->v = t.v[1];
      sums->uv = t.e[0];
    }
    ++sums->at_uv;
    using Exec = typename Sums::execution_space;
    add_count<Exec>(&sums->tv[t.v[2]], 1);
    add_count<Exec>(&sums->te[t.e[1]], 1);
    add_count<Exec>(&sums->te[t.e[2]], 1);
  }
};

template <class OG, class Exec>
struct direct_degrees_pass {
  using Sums = row_degree_sums<Exec, typename OG::vertex_type, typename OG::edge_index_type>;
  OG og;
  tessera::View<std::int64_t*, Exec> tv, te;
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t u, std::int64_t& count) const {
    Sums sums{tv.data(), te.data()};
    const std::int64_t found = for_each_triangle_in_row(og, u, add_to_row_sums<Sums>{&sums});
    sums.flush();
    if (found != 0) add_count<Exec>(&tv(u), found);
    count += found;
  }
};

template <class OG, class Exec, class SV>
struct direct_k_pass {
  OG og;
  tessera::View<std::int64_t*, Exec> tv, te;
  SV hist;
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t u) const {
    auto acc = hist.access();
    for_each_triangle_in_row(og, u, count_k<Exec, decltype(acc)>{tv, te, &acc});
  }
};

// The lookup opts.lookup resolves to on og (see triangle_lookup): marks
// only on a host space, and automatic only while every thread's arrays
// together weigh no more than the orientation.
template <class OG>
triangle_lookup direct_lookup_for(const OG& og, std::int64_t max_out, triangle_lookup asked) {
  using Exec = typename OG::execution_space;
  if constexpr (!tessera::is_host_execution_space<Exec>::value) {
    return triangle_lookup::merge;
  } else {
    if (asked != triangle_lookup::automatic) return asked;
    const double per_thread = double(marks_scratch(og.n, max_out).bytes());
    const double threads = double(Exec().concurrency());
    const bool fits = per_thread <= double(tessera::TeamPolicy<Exec>::scratch_size_max(1)) &&
                      threads * per_thread <= double(og.bytes());
    return fits ? triangle_lookup::marks : triangle_lookup::merge;
  }
}

// Whether pass 1 by marks counts per thread (opts.edge_counts): never where
// one thread runs (its adds are plain), and automatic only while every
// thread's counters together weigh no more than the orientation.
template <class OG>
bool direct_edge_counts_per_thread(const OG& og, edge_count_updates asked) {
  using Exec = typename OG::execution_space;
  if constexpr (tessera::detail::single_thread_v<Exec>) {
    return false;
  } else {
    if (asked != edge_count_updates::automatic) return asked == edge_count_updates::per_thread;
    return double(Exec().concurrency()) * double(pass1_counters<Exec>::bytes_per_thread(og.n, og.m)) <=
           double(og.bytes());
  }
}

}  // namespace detail

template <class G>
minitri_result minitri_direct(const G& g, const minitri_options& opts = {}) {
  using Exec = typename G::execution_space;
  detail::memory_meter meter;
  minitri_result r;
  r.method = method::direct;
  r.vertices = g.num_vertices();
  r.edges = g.num_edges();

  const auto og = orient(g, edge_numbering::slots);
  meter.add(og.bytes());
  // The longest out-list sizes the marks' scratch: a host space's only.
  const std::int64_t max_out = tessera::is_host_execution_space<Exec>::value ? detail::max_out_degree(og) : 0;
  const triangle_lookup lookup = detail::direct_lookup_for(og, max_out, opts.lookup);
  if (lookup == triangle_lookup::marks)
    meter.add(std::int64_t(detail::marks_scratch(og.n, max_out).bytes()) * std::int64_t(Exec().concurrency()));
  // t_e by the orientation's slot (a row's edges lie together; translated
  // to g's edge indices for keep_degrees).
  detail::degree_arrays<Exec> deg(og.n, og.m, meter);

  std::int64_t t = 0;
  if constexpr (tessera::is_host_execution_space<Exec>::value) {
    if (lookup == triangle_lookup::marks) {
      std::optional<detail::pass1_counters<Exec>> counters;
      if (detail::direct_edge_counts_per_thread(og, opts.edge_counts)) {
        counters.emplace(og.n, og.m, Exec().concurrency());
        meter.add(counters->bytes());
      }
      t = detail::direct_degrees_marked(og, max_out, deg.tv, deg.te, counters ? &*counters : nullptr);
      if (counters) meter.release(counters->bytes());
    }
  }
  if (lookup != triangle_lookup::marks)
    tessera::parallel_reduce("analytics::direct::degrees", detail::row_policy<Exec>(0, og.n, 64),
                             detail::direct_degrees_pass<decltype(og), Exec>{og, deg.tv, deg.te}, t);

  const std::int64_t bins = detail::histogram_bins(g);
  tessera::View<std::int64_t*, Exec> hist("analytics::histogram", bins);
  auto sv = tessera::create_scatter_view(hist);
  meter.add(std::int64_t(sizeof(std::int64_t)) * bins * (sv.is_duplicated ? Exec().concurrency() + 1 : 1));
  if constexpr (tessera::is_host_execution_space<Exec>::value) {
    if (lookup == triangle_lookup::marks) detail::direct_k_marked(og, max_out, deg.tv, deg.te, sv);
  }
  if (lookup != triangle_lookup::marks)
    tessera::parallel_for("analytics::direct::k", detail::row_policy<Exec>(0, og.n, 64),
                          detail::direct_k_pass<decltype(og), Exec, decltype(sv)>{og, deg.tv, deg.te, sv});
  tessera::contribute(hist, sv);

  std::int64_t counted = 0;
  r.histogram = detail::histogram_map(hist, &counted);
  r.triangles = t;
  if (counted != t)
    throw std::logic_error("tessera::analytics::minitri_direct: the histogram counts " + std::to_string(counted) +
                           " triangles, the first pass " + std::to_string(t));
  r.peak_bytes = meter.peak();
  if (opts.keep_degrees) {
    detail::copy_degrees(deg, r.vertex_triangles, r.edge_triangles);
    detail::slots_to_edge_indices(g, og, r.edge_triangles);
  }
  return r;
}

}  // namespace tessera::analytics
