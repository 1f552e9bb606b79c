#pragma once
// miniTri on a DistGraph: the triangle vertex degrees t_v (triangles at each
// vertex) and the histogram over triangles of their clique bound k
// (analytics/triangle.hpp: the largest k with C(k-1, 2) <= the smallest t_v
// of the triangle and k - 2 <= the smallest t_e of its edges), equal to the
// node-level tessera::analytics::minitri's.
//
//   tessera::dist::MiniTriResult r = tessera::dist::minitri<tessera::Threads>(g);
//   r.triangles;  r.histogram;  r.max_k();  r.vertex_triangles[v] (owned v)
//
// Two passes over the triangles, each found once by its lowest vertex's
// owner from the degree-ordered lists of count_triangles (triangles.hpp).
// The first adds 1 to t_v of the three vertices and to t_e of the three
// edges; t_e of an edge u -> x lives in u's out-list slot on u's owner, so a
// triangle u -> v -> w with v remote counts t_e(v, w) in the fetched copy of
// v's list. Ghost t_v and fetched t_e go back to their owners (the reverse
// of the exchanges that brought them); then the owners' finished values go
// out again, and the second pass bins each triangle's k.
#include <tessera/analytics/triangle.hpp>
#include <tessera/core.hpp>
#include <tessera/dist/graph/triangles.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

namespace tessera::dist {

struct MiniTriResult {
  std::int64_t triangles = 0;                  // global
  std::map<int, std::int64_t> histogram;       // global: k -> triangles whose k is exactly k
  std::vector<std::int64_t> vertex_triangles;  // per owned vertex: t_v
  int max_k() const { return histogram.empty() ? 0 : histogram.rbegin()->first; }
};

namespace detail {
// Calls f(kk, i, v_local, j) for every triangle u -> v -> w found at owned
// u: kk the slot of u -> v in own, i the slot of u -> w in own, and j the
// slot of v -> w in own (v owned) or in fetched.
template <class F>
TESSERA_INLINE_FUNCTION void for_each_triangle_at(const OrientedLists& L, std::int64_t owned, std::int64_t u,
                                                  const F& f) {
  const std::int64_t* om = L.own_map.data();
  const local_vertex* o = L.own.data();
  for (std::int64_t kk = om[u]; kk < om[u + 1]; ++kk) {
    const local_vertex v = L.local_of[std::size_t(o[kk])];
    const bool local = v < owned;
    const std::int64_t vb = local ? om[v] : L.ghost_begin[std::size_t(v - owned)];
    const std::int64_t ve = local ? om[v + 1] : L.ghost_end[std::size_t(v - owned)];
    const local_vertex* list = local ? o : L.fetched.data();
    std::int64_t i = kk + 1, j = vb;  // out(v) lies after v
    while (i < om[u + 1] && j < ve) {
      if (o[i] < list[j])
        ++i;
      else if (list[j] < o[i])
        ++j;
      else
        f(kk, i, local, j), ++i, ++j;
    }
  }
}
}  // namespace detail

// Collective.
template <class Exec = tessera::DefaultHostExecutionSpace>
MiniTriResult minitri(const DistGraph& g) {
  static_assert(tessera::is_host_execution_space<Exec>::value,
                "tessera::dist::minitri runs on a host execution space");
  const Comm& comm = g.comm();
  const detail::OrientedLists L = detail::oriented_lists(g);
  const detail::OrientedLists* lp = &L;
  const std::int64_t owned = g.num_owned();
  std::vector<std::int64_t> tv(std::size_t(g.num_local()), 0), te(L.own.size(), 0),
      te_fetched(std::size_t(L.fetched_raw), 0);
  // 1. Counts.
  std::int64_t found = 0;
  {
    std::int64_t* ptv = tv.data();
    std::int64_t* pte = te.data();
    std::int64_t* ptf = te_fetched.data();
    const std::int64_t* pos = L.fetched_pos.data();
    tessera::parallel_reduce(
        "dist::minitri::degrees",
        tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, owned, 64),
        [=](std::int64_t u, std::int64_t& cnt) {
          detail::for_each_triangle_at(
              *lp, owned, u, [&](std::int64_t kk, std::int64_t i, bool v_local, std::int64_t j) {
                ++cnt;
                tessera::atomic_add(&ptv[u], std::int64_t(1));
                tessera::atomic_add(&ptv[lp->local_of[std::size_t(lp->own[std::size_t(kk)])]],
                                    std::int64_t(1));
                tessera::atomic_add(&ptv[lp->local_of[std::size_t(lp->own[std::size_t(i)])]],
                                    std::int64_t(1));
                tessera::atomic_add(&pte[kk], std::int64_t(1));
                tessera::atomic_add(&pte[i], std::int64_t(1));
                tessera::atomic_add(v_local ? &pte[j] : &ptf[pos[j]], std::int64_t(1));
              });
        },
        found);
  }
  // 2. Partial counts back to the owners, finished counts out again.
  g.add_ghosts_to_owners(tv);
  {
    const std::vector<std::int64_t> back = comm.alltoallv(te_fetched, L.fetched_offsets);
    for (std::size_t k = 0; k < back.size(); ++k) te[std::size_t(L.sent_source[k])] += back[k];
  }
  g.update_ghosts(tv);
  {
    std::vector<std::int64_t> out(L.sent_source.size());
    for (std::size_t k = 0; k < out.size(); ++k) out[k] = te[std::size_t(L.sent_source[k])];
    te_fetched = comm.alltoallv(out, L.sent_offsets);
  }
  // 3. The histogram: k <= the largest t_e + 2.
  std::int64_t most = 0;
  for (const std::int64_t x : te) most = std::max(most, x);
  const std::int64_t bins = comm.max(most) + 3;
  std::vector<std::int64_t> hist(std::size_t(bins), 0);
  {
    const std::int64_t* ptv = tv.data();
    const std::int64_t* pte = te.data();
    const std::int64_t* ptf = te_fetched.data();
    const std::int64_t* pos = L.fetched_pos.data();
    std::int64_t* h = hist.data();
    tessera::parallel_for(
        "dist::minitri::histogram",
        tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, owned, 64), [=](std::int64_t u) {
          detail::for_each_triangle_at(
              *lp, owned, u, [&](std::int64_t kk, std::int64_t i, bool v_local, std::int64_t j) {
                const std::int64_t a = ptv[u], b = ptv[lp->local_of[std::size_t(lp->own[std::size_t(kk)])]],
                                   c = ptv[lp->local_of[std::size_t(lp->own[std::size_t(i)])]];
                const std::int64_t x = pte[kk], y = pte[i], z = v_local ? pte[j] : ptf[pos[j]];
                const int k = analytics::clique_bound_k(std::min({a, b, c}), std::min({x, y, z}));
                tessera::atomic_add(&h[k], std::int64_t(1));
              });
        });
  }
  comm.sum_in_place(hist);
  MiniTriResult r;
  r.triangles = comm.sum(found);
  for (std::int64_t k = 0; k < bins; ++k)
    if (hist[std::size_t(k)] != 0) r.histogram[int(k)] = hist[std::size_t(k)];
  tv.resize(std::size_t(owned));
  r.vertex_triangles = std::move(tv);
  return r;
}

}  // namespace tessera::dist
