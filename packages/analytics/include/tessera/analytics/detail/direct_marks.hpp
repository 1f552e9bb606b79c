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
// (w, {u, w}) and are added once per row or per v; only {v, w}, which lies
// in v's row, is counted per triangle: in a per-thread 8-bit counter
// (edge_count_updates::per_thread, pass1_counters below) or by an atomic add
// into t_e (shared). The atomic alone was 4.5 of pass 1's 15 ms on facebook
// at one thread, and on two threads, which contend for the hubs' rows,
// pass 1 took 15.5 ms: no faster than on one (scratch program, AMD EPYC,
// 2026-12-02). Pass 2 reads t_v(w) and t_e({u, w}) from copies of that
// row's values made when marking, so a triangle's k costs one load from the
// edge counts, the marks' and the histogram's.
//
// Memory: per thread, 4n bytes of marks and 16 bytes per slot of the
// longest out-list, in the team scratch of a dispatch (cached between
// calls), and m + 8n bytes of counters when they are per thread.
// direct_lookup_for() takes the merge when the marks would outweigh the
// orientation itself; direct_edge_counts_per_thread() shares the counts
// when the counters would.
#include <tessera/analytics/detail/kernels.hpp>
#include <tessera/analytics/oriented_graph.hpp>
#include <tessera/analytics/triangle.hpp>
#include <tessera/core.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

namespace tessera::analytics::detail {

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

// Pass 1's per-thread counts on a pool of threads
// (edge_count_updates::per_thread): for each thread, an 8-bit counter per
// slot of the orientation for the edges {v, w}, and a t_v of its own (the
// hubs' t_v took an atomic per row that has them, contended by every
// thread). A counter that wraps carries 256 into t_e with one atomic;
// add_into() adds every thread's counts into t_v and t_e once the pass is
// over. A thread of another host space (a nested dispatch) has none of its
// own and adds into t_v and t_e directly.
template <class Exec>
class pass1_counters {
 public:
  struct own {
    std::uint8_t* vw = nullptr;  // by slot
    std::int64_t* tv = nullptr;  // by vertex
  };
  // Bytes per thread for n vertices and m slots.
  static std::int64_t bytes_per_thread(std::int64_t n, std::int64_t m) {
    return m + std::int64_t(sizeof(std::int64_t)) * n;
  }
  pass1_counters(std::int64_t n, std::int64_t m, int threads)
      : m_n(std::size_t(n)),
        m_m(std::size_t(m)),
        m_threads(threads),
        m_vw(tessera::view_alloc("analytics::direct::vw_counters", tessera::WithoutInitializing),
             std::size_t(m) * std::size_t(threads)),
        m_tv(tessera::view_alloc("analytics::direct::tv_counters", tessera::WithoutInitializing),
             std::size_t(n) * std::size_t(threads)) {
    // Zeroed by the pool's static split, so that each thread's block of
    // counters is mostly first touched by that thread.
    std::uint8_t* vw = m_vw.data();
    std::int64_t* tv = m_tv.data();
    tessera::parallel_for("analytics::direct::vw_counters_zero",
                          tessera::RangePolicy<Exec>(0, std::int64_t(m_vw.size())),
                          [=](std::int64_t i) { vw[i] = 0; });
    tessera::parallel_for("analytics::direct::tv_counters_zero",
                          tessera::RangePolicy<Exec>(0, std::int64_t(m_tv.size())),
                          [=](std::int64_t i) { tv[i] = 0; });
  }
  std::int64_t bytes() const {
    return std::int64_t(m_threads) * bytes_per_thread(std::int64_t(m_n), std::int64_t(m_m));
  }

  // The calling thread's counters; null pointers when it has none.
  own mine() const {
    const int r = tessera::detail::host_rank_in<Exec>();
    if (r < 0 || r >= m_threads) return {};
    return {m_vw.data() + std::size_t(r) * m_m, m_tv.data() + std::size_t(r) * m_n};
  }
  // tv += every thread's t_v, te += every thread's {v, w} counts.
  void add_into(std::int64_t* tv, std::int64_t* te) const {
    const std::uint8_t* vw = m_vw.data();
    const std::int64_t* own_tv = m_tv.data();
    const std::size_t n = m_n, m = m_m;
    const int threads = m_threads;
    tessera::parallel_for("analytics::direct::counters_add",
                          tessera::RangePolicy<Exec>(0, std::int64_t(n > m ? n : m)), [=](std::int64_t i) {
                            const std::size_t k = std::size_t(i);
                            if (k < m) {
                              std::int64_t sum = 0;
                              for (int t = 0; t < threads; ++t) sum += vw[std::size_t(t) * m + k];
                              te[i] += sum;
                            }
                            if (k < n) {
                              std::int64_t sum = 0;
                              for (int t = 0; t < threads; ++t) sum += own_tv[std::size_t(t) * n + k];
                              tv[i] += sum;
                            }
                          });
  }

 private:
  std::size_t m_n, m_m;
  int m_threads;
  tessera::View<std::uint8_t*, Exec> m_vw;
  tessera::View<std::int64_t*, Exec> m_tv;
};

// ++te[b] by the thread's counter (null: into te itself).
template <class Exec>
inline void count_slot(std::uint8_t* counters, std::int64_t* te, std::int64_t b) {
  if (counters == nullptr) {
    add_count<Exec>(te + b, 1);
  } else if (++counters[b] == 0) {
    add_count<Exec>(te + b, 256);  // the counter wrapped: carry
  }
}

// tv[x] += c by the thread's own t_v (null: into the shared one).
template <class Exec>
inline void add_vertex(std::int64_t* own_tv, std::int64_t* tv, std::int64_t x, std::int64_t c) {
  if (own_tv != nullptr) {
    own_tv[x] += c;
  } else {
    add_count<Exec>(tv + x, c);
  }
}

// Teams of one thread, each taking every league-th row so that each gets a
// share of every region of ids; two per thread leave room to even out.
template <class Exec>
std::int64_t marks_league(std::int64_t n) {
  const std::int64_t threads = std::int64_t(Exec().concurrency());
  return n < 2 * threads ? n : 2 * threads;
}

// Pass 1: t_v and t_e of every triangle; returns the number of triangles.
// `counters`: the threads' own counts (null: every count into tv and te).
template <class OG>
std::int64_t direct_degrees_marked(const OG& og, std::int64_t max_out,
                                   const tessera::View<std::int64_t*, typename OG::execution_space>& tv,
                                   const tessera::View<std::int64_t*, typename OG::execution_space>& te,
                                   const pass1_counters<typename OG::execution_space>* counters) {
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
        // Serial: null pointers the compiler sees, so its adds stay plain and branch-free.
        typename pass1_counters<Exec>::own own{};
        if constexpr (!tessera::detail::single_thread_v<Exec>) {
          if (counters != nullptr) own = counters->mine();
        }
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
                count_slot<Exec>(own.vw, tep, std::int64_t(b));  // {v, w}
              }
            }
            if (at_uv != 0) {
              add_vertex<Exec>(own.tv, tvp, v, at_uv);
              add_count<Exec>(tep + j, at_uv);  // {u, v}
              at_u += at_uv;
            }
          }
          for (std::int64_t a = 0; a < d; ++a) {
            const V w = adj[ub + a];
            mark[w] = 0;
            if (tops[a] != 0) {
              add_vertex<Exec>(own.tv, tvp, w, tops[a]);
              add_count<Exec>(tep + ub + a, tops[a]);  // {u, w}
            }
          }
          if (at_u != 0) add_vertex<Exec>(own.tv, tvp, u, at_u);
          found += at_u;
        }
        cnt += found;
      },
      count);
  if (counters != nullptr) counters->add_into(tvp, tep);
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
