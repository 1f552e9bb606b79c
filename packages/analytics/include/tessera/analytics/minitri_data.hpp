#pragma once
// miniTri, data method: the bulk-synchronous baseline of the linear-algebra
// formulation (C = A B enumerates the triangles, t_v = C 1, t_e = C^T 1,
// then k-count(C, t_v, t_e)), as the seed compares its tasks against.
//
//   minitri_result r = minitri_data(g, opts);
//
// One parallel kernel per step and a fence (the barrier) between steps:
//   1. count the triangles of each row, scan (the symbolic product);
//   2. write every triangle into one array of T entries (the numeric product);
//   3. t_v from the stored triangles;   4. t_e from them;   5. the histogram.
// Every triangle is stored: memory grows with T, and each step streams the
// whole array again (the cost the tasks method removes).
#include <tessera/analytics/detail/histogram.hpp>
#include <tessera/analytics/detail/kernels.hpp>
#include <tessera/analytics/detail/memory_meter.hpp>
#include <tessera/analytics/minitri_direct.hpp>
#include <tessera/analytics/minitri_options.hpp>
#include <tessera/analytics/oriented_graph.hpp>

#include <cstdint>

namespace tessera::analytics {

namespace detail {

struct no_triangle_op {
  template <class T>
  TESSERA_INLINE_FUNCTION void operator()(const T&) const {}
};

template <class OG, class Exec>
struct data_count_rows {
  OG og;
  tessera::View<std::int64_t*, Exec> cnt;
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t u) const { cnt(u) = for_each_triangle_in_row(og, u, no_triangle_op{}); }
};

template <class TriView>
struct store_triangle {
  TriView tris;
  std::int64_t* at;
  template <class T>
  TESSERA_INLINE_FUNCTION void operator()(const T& t) const {
    tris((*at)++) = t;
  }
};

template <class OG, class Exec, class TriView>
struct data_fill_rows {
  OG og;
  tessera::View<std::int64_t*, Exec> off;
  TriView tris;
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t u) const {
    std::int64_t at = off(u);
    for_each_triangle_in_row(og, u, store_triangle<TriView>{tris, &at});
  }
};

template <class TriView, class Op>
struct over_triangles {
  TriView tris;
  Op op;
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t i) const { op(tris(i)); }
};

template <class TriView, class Exec, class SV>
struct data_k_step {
  TriView tris;
  tessera::View<std::int64_t*, Exec> tv, te;
  SV hist;
  TESSERA_INLINE_FUNCTION void operator()(std::int64_t i) const {
    auto acc = hist.access();
    count_k<Exec, decltype(acc)>{tv, te, &acc}(tris(i));
  }
};

}  // namespace detail

template <class G>
minitri_result minitri_data(const G& g, const minitri_options& opts = {}) {
  using Exec = typename G::execution_space;
  using V = typename G::vertex_descriptor;
  using E = typename G::edge_index_type;
  using Tri = triangle<V, E>;
  using TriView = tessera::View<Tri*, Exec>;
  detail::memory_meter meter;
  minitri_result r;
  r.method = method::data;
  r.vertices = g.num_vertices();
  r.edges = g.num_edges();

  const auto og = orient(g, edge_numbering::slots);
  meter.add(og.bytes());
  const std::int64_t n = og.n;

  // 1. Triangles per row, and where each row's go.
  tessera::View<std::int64_t*, Exec> off("analytics::data::offsets", n + 1);
  meter.add(std::int64_t(sizeof(std::int64_t)) * (n + 1));
  tessera::parallel_for("analytics::data::count", detail::row_policy<Exec>(0, n, 64),
                        detail::data_count_rows<decltype(og), Exec>{og, off});
  tessera::fence("analytics::data::barrier");
  const std::int64_t t = tessera::graph::detail::exclusive_scan_inplace<Exec>("analytics::data::scan", off, n);

  // 2. Every triangle, stored.
  TriView tris(tessera::view_alloc("analytics::data::triangles", tessera::WithoutInitializing), t);
  meter.add(std::int64_t(sizeof(Tri)) * t);
  tessera::parallel_for("analytics::data::enumerate", detail::row_policy<Exec>(0, n, 64),
                        detail::data_fill_rows<decltype(og), Exec, TriView>{og, off, tris});
  tessera::fence("analytics::data::barrier");

  // 3, 4. t_v = C 1 and t_e = C^T 1 over the stored triangles.
  detail::degree_arrays<Exec> deg(n, og.m, meter);  // t_e by the orientation's slot
  tessera::parallel_for("analytics::data::t_v", tessera::RangePolicy<Exec>(0, t),
                        detail::over_triangles<TriView, detail::add_vertex_degrees<Exec>>{tris, {deg.tv}});
  tessera::fence("analytics::data::barrier");
  tessera::parallel_for("analytics::data::t_e", tessera::RangePolicy<Exec>(0, t),
                        detail::over_triangles<TriView, detail::add_edge_degrees<Exec>>{tris, {deg.te}});
  tessera::fence("analytics::data::barrier");

  // 5. k-count.
  const std::int64_t bins = detail::histogram_bins(g);
  tessera::View<std::int64_t*, Exec> hist("analytics::histogram", bins);
  auto sv = tessera::create_scatter_view(hist);
  meter.add(std::int64_t(sizeof(std::int64_t)) * bins * (sv.is_duplicated ? Exec().concurrency() + 1 : 1));
  tessera::parallel_for("analytics::data::k", tessera::RangePolicy<Exec>(0, t),
                        detail::data_k_step<TriView, Exec, decltype(sv)>{tris, deg.tv, deg.te, sv});
  tessera::contribute(hist, sv);

  std::int64_t counted = 0;
  r.histogram = detail::histogram_map(hist, &counted);
  r.triangles = t;
  if (counted != t)
    throw std::logic_error("tessera::analytics::minitri_data: the histogram counts " + std::to_string(counted) +
                           " triangles, the enumeration " + std::to_string(t));
  r.peak_bytes = meter.peak();
  r.peak_stored_triangles = t;
  if (opts.keep_degrees) {
    detail::copy_degrees(deg, r.vertex_triangles, r.edge_triangles);
    detail::slots_to_edge_indices(g, og, r.edge_triangles);
  }
  return r;
}

}  // namespace tessera::analytics
