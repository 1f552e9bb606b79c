#pragma once
// The direct method's two passes on a host space by marks
// (triangle_lookup::marks): each thread writes the slot of every
// out-neighbour of u into an array of n entries of its own, then looks each
// out-neighbour w of each v in N+(u) up in it. Triangle u -> v -> w is found
// at u when w is marked, and the mark names the slot of edge {u, w}.
//
// Why marks and not the sorted merge of for_each_triangle_in_row: a merge
// walks N+(u) once per v in it and waits on a compare per step; the lookups
// are independent loads (the graph package's triangle count made the same
// change: graph/detail/triangles_marks.hpp).
//
// Why fewer atomics: every triangle owned by u has u as a vertex, {u, v} for
// the v being walked, and {u, w}, w for the w marked. Their counts gather in
// registers (u, v, {u, v}) and in a per-row array indexed by the mark's slot
// (w, {u, w}) and are added once per row or per v; only {v, w} takes an
// atomic per triangle. Pass 2 reads t_v(w) and t_e({u, w}) from copies of
// that row's values made when marking, so a triangle's k costs one load from
// the edge counts, the marks' and the histogram's.
//
// Memory: per thread, 4n bytes of marks and 16 bytes per slot of the
// longest out-list, in the team scratch of a dispatch (cached between
// calls). direct_lookup_for() takes the merge when the marks would outweigh
// the orientation itself.
#include <tessera/analytics/oriented_graph.hpp>
#include <tessera/analytics/triangle.hpp>
#include <tessera/core.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

namespace tessera::analytics::detail {

// *p += x: plain where one thread runs the kernel (Serial), atomic elsewhere.
template <class Exec>
inline void add_count(std::int64_t* p, std::int64_t x) {
  if constexpr (std::is_same_v<Exec, tessera::Serial>) {
    *p += x;
  } else {
    tessera::atomic_add(p, x);
  }
}

// The team scratch of both passes: marks (one 32-bit slot + 1 per vertex,
// 0 = unmarked; an out-list is at most sqrt(2m) long) and two arrays of
// 64-bit values per slot of u's out-list.
struct marks_scratch {
  std::size_t mark_bytes = 0, slot_bytes = 0;
  marks_scratch(std::int64_t n, std::int64_t max_out_degree)
      : mark_bytes((std::size_t(n) * 4 + 63) / 64 * 64),
        slot_bytes((std::size_t(max_out_degree) * 8 + 63) / 64 * 64) {}
  std::size_t bytes() const { return mark_bytes + 2 * slot_bytes; }
};

// The longest out-list of the orientation.
template <class OG>
std::int64_t max_out_degree(const OG& og) {
  using Exec = typename OG::execution_space;
  std::int64_t d = 0;
  const auto rm = og.row_map;
  tessera::parallel_reduce(
      "analytics::direct::max_out_degree", tessera::RangePolicy<Exec>(0, og.n),
      TESSERA_LAMBDA(std::int64_t u, std::int64_t & m) {
        const std::int64_t du = std::int64_t(rm(u + 1) - rm(u));
        if (du > m) m = du;
      },
      tessera::Max<std::int64_t>(d));
  return og.n > 0 ? d : 0;
}

// Teams of one thread, each taking every league-th row so that each gets a
// share of every region of ids; two per thread leave room to even out.
template <class Exec>
std::int64_t marks_league(std::int64_t n) {
  const std::int64_t threads = std::int64_t(Exec().concurrency());
  return n < 2 * threads ? n : 2 * threads;
}

// Pass 1: t_v and t_e of every triangle; returns the number of triangles.
template <class OG>
std::int64_t direct_degrees_marked(const OG& og, std::int64_t max_out,
                                   const tessera::View<std::int64_t*, typename OG::execution_space>& tv,
                                   const tessera::View<std::int64_t*, typename OG::execution_space>& te) {
  using Exec = typename OG::execution_space;
  using V = typename OG::vertex_type;
  using E = typename OG::edge_index_type;
  static_assert(tessera::is_host_execution_space<Exec>::value,
                "mark arrays of n entries per thread are a host schedule");
  using Policy = tessera::TeamPolicy<Exec, tessera::Schedule<tessera::Dynamic>>;
  using Member = typename Policy::member_type;
  const std::int64_t n = og.n;
  if (n == 0) return 0;
  const marks_scratch sz(n, max_out);
  const std::int64_t league = marks_league<Exec>(n);
  const E* rm = og.row_map.data();
  const V* adj = og.entries.data();
  std::int64_t* tvp = tv.data();
  std::int64_t* tep = te.data();
  std::int64_t count = 0;
  tessera::parallel_reduce(
      "analytics::direct::degrees_marked",
      Policy(league, 1).set_scratch_size(1, tessera::PerTeam(sz.bytes())),
      [=](const Member& mem, std::int64_t& cnt) {
        char* scratch = static_cast<char*>(mem.team_scratch(1).get_shmem(sz.bytes()));
        std::memset(scratch, 0, sz.mark_bytes);
        auto* mark = reinterpret_cast<std::uint32_t*>(scratch);
        auto* tops =
            reinterpret_cast<std::int64_t*>(scratch + sz.mark_bytes);  // triangles on {u, w}, by w's slot
        std::int64_t found = 0;
        for (std::int64_t u = mem.league_rank(); u < n; u += league) {
          const E ub = rm[u], ue = rm[u + 1];
          const std::int64_t d = std::int64_t(ue - ub);
          if (d < 2) continue;  // a triangle at u needs two out-neighbours
          for (std::int64_t a = 0; a < d; ++a) {
            mark[adj[ub + a]] = std::uint32_t(a + 1);
            tops[a] = 0;
          }
          std::int64_t at_u = 0;
          for (E j = ub; j < ue; ++j) {
            const V v = adj[j];
            std::int64_t at_uv = 0;
            for (E b = rm[v], be = rm[v + 1]; b < be; ++b) {
              const std::uint32_t s = mark[adj[b]];
              if (s != 0) {
                ++at_uv;
                ++tops[s - 1];
                add_count<Exec>(tep + b, 1);  // {v, w}
              }
            }
            if (at_uv != 0) {
              add_count<Exec>(tvp + v, at_uv);
              add_count<Exec>(tep + j, at_uv);  // {u, v}
              at_u += at_uv;
            }
          }
          for (std::int64_t a = 0; a < d; ++a) {
            const V w = adj[ub + a];
            mark[w] = 0;
            if (tops[a] != 0) {
              add_count<Exec>(tvp + w, tops[a]);
              add_count<Exec>(tep + ub + a, tops[a]);  // {u, w}
            }
          }
          if (at_u != 0) add_count<Exec>(tvp + u, at_u);
          found += at_u;
        }
        cnt += found;
      },
      count);
  return count;
}

// Pass 2: each triangle's k into the histogram (a ScatterView; t_v and t_e final).
template <class OG, class SV>
void direct_k_marked(const OG& og, std::int64_t max_out,
                     const tessera::View<std::int64_t*, typename OG::execution_space>& tv,
                     const tessera::View<std::int64_t*, typename OG::execution_space>& te, const SV& hist) {
  using Exec = typename OG::execution_space;
  using V = typename OG::vertex_type;
  using E = typename OG::edge_index_type;
  static_assert(tessera::is_host_execution_space<Exec>::value,
                "mark arrays of n entries per thread are a host schedule");
  using Policy = tessera::TeamPolicy<Exec, tessera::Schedule<tessera::Dynamic>>;
  using Member = typename Policy::member_type;
  const std::int64_t n = og.n;
  if (n == 0) return;
  const marks_scratch sz(n, max_out);
  const std::int64_t league = marks_league<Exec>(n);
  const E* rm = og.row_map.data();
  const V* adj = og.entries.data();
  const std::int64_t* tvp = tv.data();
  const std::int64_t* tep = te.data();
  tessera::parallel_for(
      "analytics::direct::k_marked", Policy(league, 1).set_scratch_size(1, tessera::PerTeam(sz.bytes())),
      [=](const Member& mem) {
        char* scratch = static_cast<char*>(mem.team_scratch(1).get_shmem(sz.bytes()));
        std::memset(scratch, 0, sz.mark_bytes);
        auto* mark = reinterpret_cast<std::uint32_t*>(scratch);
        auto* tv_w = reinterpret_cast<std::int64_t*>(scratch + sz.mark_bytes);  // t_v(w), by slot
        auto* te_uw =
            reinterpret_cast<std::int64_t*>(scratch + sz.mark_bytes + sz.slot_bytes);  // t_e({u, w})
        auto acc = hist.access();
        for (std::int64_t u = mem.league_rank(); u < n; u += league) {
          const E ub = rm[u], ue = rm[u + 1];
          const std::int64_t d = std::int64_t(ue - ub);
          if (d < 2) continue;
          for (std::int64_t a = 0; a < d; ++a) {
            const V w = adj[ub + a];
            mark[w] = std::uint32_t(a + 1);
            tv_w[a] = tvp[w];
            te_uw[a] = tep[ub + a];
          }
          const std::int64_t tv_u = tvp[u];
          for (E j = ub; j < ue; ++j) {
            const V v = adj[j];
            const std::int64_t tv_uv = tv_u < tvp[v] ? tv_u : tvp[v];
            const std::int64_t te_uv = tep[j];
            for (E b = rm[v], be = rm[v + 1]; b < be; ++b) {
              const std::uint32_t s = mark[adj[b]];
              if (s != 0) {
                const std::int64_t mv = tv_uv < tv_w[s - 1] ? tv_uv : tv_w[s - 1];
                std::int64_t me = te_uv < te_uw[s - 1] ? te_uv : te_uw[s - 1];
                if (tep[b] < me) me = tep[b];
                acc(clique_bound_k(mv, me)) += 1;
              }
            }
          }
          for (std::int64_t a = 0; a < d; ++a) mark[adj[ub + a]] = 0;
        }
      });
}

}  // namespace tessera::analytics::detail
