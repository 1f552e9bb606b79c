#pragma once
// The kernels the three miniTri methods share, as functors over a row range
// or a triangle range (each method decides how to schedule them: one
// parallel_for per step, tasks per block, or fused passes):
//   add_vertex_degrees, add_edge_degrees: t_v += 1 on each vertex, t_e += 1
//                 on each edge of a triangle (add_count: atomics but on Serial)
//   count_k:      the triangle's k into a histogram (any accessor with acc(k) += 1)
// and the degree arrays with their sizes.
#include <tessera/analytics/oriented_graph.hpp>
#include <tessera/analytics/triangle.hpp>
#include <tessera/analytics/detail/memory_meter.hpp>

#include <cstdint>
#include <type_traits>
#include <vector>

namespace tessera::analytics::detail {

// Rows differ a lot in work (power-law degrees): hand them out dynamically.
template <class Exec>
using row_policy = tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>;

// *p += x: plain where one thread runs the kernel (Serial), atomic elsewhere.
// A locked add costs about 20 cycles even uncontended; the degree passes do
// three per triangle (facebook_combined's 1.6 M triangles: a fifth of the
// tasks method's time at one thread).
template <class Exec>
TESSERA_INLINE_FUNCTION void add_count(std::int64_t* p, std::int64_t x) {
  if constexpr (std::is_same_v<Exec, tessera::Serial>) {
    *p += x;
  } else {
    tessera::atomic_add(p, x);
  }
}

template <class Exec>
struct degree_arrays {
  tessera::View<std::int64_t*, Exec> tv;  // triangles on each vertex
  tessera::View<std::int64_t*, Exec> te;  // triangles on each edge (g's edge indices)
  degree_arrays(std::int64_t n, std::int64_t m, memory_meter& meter)
      : tv("analytics::t_v", n), te("analytics::t_e", m) {
    meter.add(std::int64_t(sizeof(std::int64_t)) * (n + m));
  }
};

// t_v of a triangle's three vertices.
template <class Exec>
struct add_vertex_degrees {
  tessera::View<std::int64_t*, Exec> tv;
  template <class V, class E>
  TESSERA_INLINE_FUNCTION void operator()(const triangle<V, E>& t) const {
    add_count<Exec>(&tv(t.v[0]), 1);
    add_count<Exec>(&tv(t.v[1]), 1);
    add_count<Exec>(&tv(t.v[2]), 1);
  }
};

// t_e of a triangle's three edges.
template <class Exec>
struct add_edge_degrees {
  tessera::View<std::int64_t*, Exec> te;
  template <class V, class E>
  TESSERA_INLINE_FUNCTION void operator()(const triangle<V, E>& t) const {
    add_count<Exec>(&te(t.e[0]), 1);
    add_count<Exec>(&te(t.e[1]), 1);
    add_count<Exec>(&te(t.e[2]), 1);
  }
};

// One triangle's k into a histogram accessor.
template <class Exec, class Acc>
struct count_k {
  tessera::View<std::int64_t*, Exec> tv, te;
  Acc* acc;
  template <class V, class E>
  TESSERA_INLINE_FUNCTION void operator()(const triangle<V, E>& t) const {
    (*acc)(triangle_k(t, tv, te)) += 1;
  }
};

// Host copies of t_v and t_e for the result (keep_degrees).
template <class Exec>
void copy_degrees(const degree_arrays<Exec>& d, std::vector<std::int64_t>& tv, std::vector<std::int64_t>& te) {
  auto htv = tessera::create_mirror_view_and_copy(tessera::HostSpace(), d.tv);
  auto hte = tessera::create_mirror_view_and_copy(tessera::HostSpace(), d.te);
  tv.assign(htv.data(), htv.data() + htv.extent(0));
  te.assign(hte.data(), hte.data() + hte.extent(0));
}

}  // namespace tessera::analytics::detail
