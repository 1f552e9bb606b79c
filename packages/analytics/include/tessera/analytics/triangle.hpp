#pragma once
// triangle: one enumerated triangle (its three vertices and the indices of
// its three edges in the input graph), and the k-count rule of miniTri.
//
//   triangle<V, E> t{{u, v, w}, {e_uv, e_uw, e_vw}};
//   int k = clique_bound_k(min_tv, min_te);
//
// miniTri (Wolf, Berry, Stark, "A task-based linear algebra building blocks
// approach for scalable graph analytics", HPEC 2015): a triangle lies in a
// k-clique only if each of its vertices is in at least C(k-1, 2) triangles
// (a k-clique gives every member that many) and each of its edges in at
// least k - 2 (the other k - 2 members close one each). The largest k that
// both bounds allow is the triangle's k; the histogram of k over all
// triangles bounds the largest clique from above.
#include <tessera/core.hpp>

#include <cmath>
#include <cstdint>

namespace tessera::analytics {

template <class V, class E>
struct triangle {
  V v[3];  // owner (lowest rank) first; see oriented_graph.hpp
  E e[3];  // {v0 v1}, {v0 v2}, {v1 v2}: edge indices of the input graph, or the orientation's slots (edge_numbering)
};

// The largest k with C(k-1, 2) <= min_tv and k - 2 <= min_te. Exact integer
// result: the square root only seeds the search. For a triangle min_te >= 1
// and min_tv >= 1, so k >= 3.
TESSERA_INLINE_FUNCTION int clique_bound_k(std::int64_t min_tv, std::int64_t min_te) {
  // Most triangles are edge-bound: k = min_te + 2 whenever the vertex bound
  // allows it, C(min_te + 1, 2) <= min_tv, and then no square root is needed.
  if ((min_te + 1) * min_te / 2 <= min_tv) return int(min_te + 2);
  // j = k - 1 is the largest j with j (j - 1) / 2 <= min_tv.
  std::int64_t j = std::int64_t((1.0 + sqrt(1.0 + 8.0 * double(min_tv))) / 2.0);
  while (j > 1 && j * (j - 1) / 2 > min_tv) --j;
  while ((j + 1) * j / 2 <= min_tv) ++j;
  const std::int64_t kv = j + 1;
  const std::int64_t ke = min_te + 2;
  return int(kv < ke ? kv : ke);
}

// k of triangle t given the triangle vertex and edge degrees.
template <class V, class E, class TV, class TE>
TESSERA_INLINE_FUNCTION int triangle_k(const triangle<V, E>& t, const TV& tv, const TE& te) {
  std::int64_t a = tv(t.v[0]), b = tv(t.v[1]), c = tv(t.v[2]);
  const std::int64_t mv = a < b ? (a < c ? a : c) : (b < c ? b : c);
  a = te(t.e[0]), b = te(t.e[1]), c = te(t.e[2]);
  const std::int64_t me = a < b ? (a < c ? a : c) : (b < c ? b : c);
  return clique_bound_k(mv, me);
}

}  // namespace tessera::analytics
