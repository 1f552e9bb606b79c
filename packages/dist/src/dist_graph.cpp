// DistGraph construction: two shuffles of the edges (to a uniform split,
// where rows are sorted and deduplicated, then to the edge-balanced split)
// and the ghost plan. See dist_graph.hpp for the layout.
#include <tessera/dist/graph/dist_graph.hpp>

#include <tessera/core.hpp>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

namespace tessera::dist {

namespace {

using Host = tessera::DefaultHostExecutionSpace;

struct Arc {
  std::int64_t u, v;
};

std::int64_t clamp_to(std::int64_t x, std::int64_t lo, std::int64_t hi) {
  return std::min(std::max(x, lo), hi);
}

}  // namespace

DistGraph::DistGraph(const Comm& comm, const graph::edge_list& share) : m_comm(comm), m_origin(share.origin) {
  const int P = comm.size(), me = comm.rank();
  const std::size_t Ps = std::size_t(P);
  const std::int64_t n = share.num_vertices;
  const std::int64_t n_lo = comm.min(n), n_hi = comm.max(n);
  if (n_lo != n_hi)
    throw dist_error("tessera::dist::DistGraph: the ranks' edge lists disagree on the number of vertices (" +
                     std::to_string(n_lo) + " to " + std::to_string(n_hi) + ")");
  if (n < 0)
    throw dist_error("tessera::dist::DistGraph: number of vertices is negative (" + std::to_string(n) + ")");
  comm.agree([&]() -> std::string {
    if (share.src.size() != share.dst.size())
      return "edge list '" + share.origin + "' has " + std::to_string(share.src.size()) + " sources but " +
             std::to_string(share.dst.size()) + " targets";
    for (std::size_t i = 0; i < share.src.size(); ++i)
      for (const std::int64_t x : {share.src[i], share.dst[i]})
        if (x < 0 || x >= n)
          return "edge list '" + share.origin + "', edge " + std::to_string(i) +
                 " of this rank's share: vertex id " + std::to_string(x) + " outside [0, " +
                 std::to_string(n) + ")";
    return "";
  }());
  m_n = n;

  // 1. Both directions of every edge (self-loops dropped) to the owners of a
  //    uniform split, which sort and deduplicate their rows.
  const Partition uniform = Partition::uniform(n, P);
  const std::int64_t ub = uniform.begin(me), ue = uniform.end(me), nu = ue - ub;
  std::vector<std::int64_t> block_map(std::size_t(nu) + 1, 0);  // row offsets of the uniform block
  std::vector<std::int64_t> block_adj;                          // global ids
  {
    // Local steps that allocate run under comm.agreed: a rank that runs out
    // of memory is the same dist_error everywhere, not a hang in the next
    // collective.
    std::vector<std::int64_t> offsets(Ps + 1, 0);
    std::vector<Arc> arcs;
    comm.agreed([&] {
      const std::size_t m_in = share.src.size();
      std::vector<int> owner_u(m_in), owner_v(m_in);
      {
        const std::int64_t* src = share.src.data();
        const std::int64_t* dst = share.dst.data();
        int* ou = owner_u.data();
        int* ov = owner_v.data();
        tessera::parallel_for("dist::graph::owners", tessera::RangePolicy<Host>(0, std::int64_t(m_in)),
                              [=](std::int64_t i) {
                                ou[i] = uniform.owner(src[i]);
                                ov[i] = uniform.owner(dst[i]);
                              });
      }
      for (std::size_t i = 0; i < m_in; ++i)
        if (share.src[i] != share.dst[i])
          ++offsets[std::size_t(owner_u[i]) + 1], ++offsets[std::size_t(owner_v[i]) + 1];
      for (std::size_t r = 0; r < Ps; ++r) offsets[r + 1] += offsets[r];
      arcs.resize(std::size_t(offsets[Ps]));
      {
        std::vector<std::int64_t> at(offsets.begin(), offsets.end() - 1);
        for (std::size_t i = 0; i < m_in; ++i) {
          const std::int64_t u = share.src[i], v = share.dst[i];
          if (u == v) continue;
          arcs[std::size_t(at[std::size_t(owner_u[i])]++)] = {u, v};
          arcs[std::size_t(at[std::size_t(owner_v[i])]++)] = {v, u};
        }
      }
    });
    std::vector<Arc> mine = comm.alltoallv(arcs, offsets);
    arcs = {};
    // Rows with sorted targets. When the vertex count is within twice the
    // arcs held here, two stable counting sorts (by target, then by row)
    // cost O(arcs + n), as the node-level build does; otherwise each row is
    // sorted on its own, keeping memory O(arcs).
    comm.agreed([&] {
      const bool by_counting = n <= 2 * std::int64_t(mine.size());
      if (by_counting) {
        std::vector<std::int64_t> at(std::size_t(n) + 1, 0);
        for (const Arc& a : mine) ++at[std::size_t(a.v) + 1];
        for (std::int64_t v = 0; v < n; ++v) at[std::size_t(v) + 1] += at[std::size_t(v)];
        std::vector<Arc> by_target(mine.size());
        for (const Arc& a : mine) by_target[std::size_t(at[std::size_t(a.v)]++)] = a;
        mine.swap(by_target);
      }
      std::vector<std::int64_t> start(std::size_t(nu) + 1, 0);
      for (const Arc& a : mine) ++start[std::size_t(a.u - ub) + 1];
      for (std::int64_t r = 0; r < nu; ++r) start[std::size_t(r) + 1] += start[std::size_t(r)];
      std::vector<std::int64_t> targets(mine.size());
      {
        std::vector<std::int64_t> at(start.begin(), start.end() - 1);
        for (const Arc& a : mine) targets[std::size_t(at[std::size_t(a.u - ub)]++)] = a.v;
      }
      mine = {};
      std::int64_t* t = targets.data();
      const std::int64_t* s = start.data();
      std::int64_t* deg = block_map.data() + 1;
      tessera::parallel_for("dist::graph::sort_rows",
                            tessera::RangePolicy<Host, tessera::Schedule<tessera::Dynamic>>(0, nu, 64),
                            [=](std::int64_t r) {
                              if (!by_counting) std::sort(t + s[r], t + s[r + 1]);
                              deg[r] = std::unique(t + s[r], t + s[r + 1]) - (t + s[r]);
                            });
      for (std::int64_t r = 0; r < nu; ++r) block_map[std::size_t(r) + 1] += block_map[std::size_t(r)];
      block_adj.resize(std::size_t(block_map.back()));
      std::int64_t* out = block_adj.data();
      const std::int64_t* bm = block_map.data();
      tessera::parallel_for(
          "dist::graph::compact_rows", tessera::RangePolicy<Host>(0, nu),
          [=](std::int64_t r) { std::copy(t + s[r], t + s[r] + (bm[r + 1] - bm[r]), out + bm[r]); });
    });
  }

  // 2. The edge-balanced split, as Partition::balanced computes it on the
  //    global degree prefix, found without gathering that prefix: the answer
  //    for rank boundary r is the first index whose prefix reaches its
  //    target, and exactly one uniform block holds it (the one whose prefix
  //    interval (S_b, S_b + T_b] contains the target).
  {
    const std::int64_t block_total = block_map.back();
    const std::vector<std::int64_t> totals = comm.allgather(block_total);
    std::int64_t before = 0, total = 0;
    for (int q = 0; q < P; ++q) {
      if (q < me) before += totals[std::size_t(q)];
      total += totals[std::size_t(q)];
    }
    std::vector<std::int64_t> found(Ps + 1, 0);
    for (int r = 1; r < P; ++r) {
      const std::int64_t target = (total * r + P - 1) / P;
      if (target > before && target <= before + block_total) {
        const auto it = std::lower_bound(block_map.begin() + 1, block_map.end(), target - before);
        found[std::size_t(r)] = ub + (it - block_map.begin());
      }
    }
    comm.sum_in_place(found);
    std::vector<std::int64_t> o(Ps + 1, n);
    o[0] = 0;
    for (std::size_t r = 1; r < Ps; ++r) o[r] = std::min(std::max(o[r - 1], found[r]), n);
    m_partition = Partition(std::move(o));
  }

  // 3. Rows to their owners: the ranges a uniform block sends are
  //    consecutive slices of its arrays, in rank order.
  const std::int64_t b = owned_begin(), e = owned_end(), owned = e - b;
  std::vector<std::int64_t> global_adj;
  {
    std::vector<std::int64_t> deg(static_cast<std::size_t>(nu)), deg_off(Ps + 1), adj_off(Ps + 1);
    for (std::int64_t r = 0; r < nu; ++r)
      deg[std::size_t(r)] = block_map[std::size_t(r) + 1] - block_map[std::size_t(r)];
    for (int q = 0; q <= P; ++q) {
      const std::int64_t at = q == P ? nu : clamp_to(m_partition.begin(q), ub, ue) - ub;
      deg_off[std::size_t(q)] = at;
      adj_off[std::size_t(q)] = block_map[std::size_t(at)];
    }
    const std::vector<std::int64_t> my_deg = comm.alltoallv(deg, deg_off);
    global_adj = comm.alltoallv(block_adj, adj_off);
    m_row_map.assign(std::size_t(owned) + 1, 0);
    for (std::int64_t v = 0; v < owned; ++v)
      m_row_map[std::size_t(v) + 1] = m_row_map[std::size_t(v)] + my_deg[std::size_t(v)];
  }
  block_adj = {};

  // 4. Ghosts, local ids and the plan.
  comm.agreed([&] {
    if (owned + std::int64_t(global_adj.size()) > std::int64_t(INT_MAX))
      throw std::runtime_error("rank " + std::to_string(me) + " would hold " + std::to_string(owned) +
                               " vertices and up to " + std::to_string(global_adj.size()) +
                               " ghosts, more than local ids (32 bits) can number; use more ranks");
    for (const std::int64_t g : global_adj)
      if (g < b || g >= e) m_ghosts.push_back(g);
    std::sort(m_ghosts.begin(), m_ghosts.end());
    m_ghosts.erase(std::unique(m_ghosts.begin(), m_ghosts.end()), m_ghosts.end());
    m_ghost_offsets.assign(Ps + 1, 0);
    for (int q = 0; q <= P; ++q)
      m_ghost_offsets[std::size_t(q)] =
          q == P
              ? std::int64_t(m_ghosts.size())
              : std::lower_bound(m_ghosts.begin(), m_ghosts.end(), m_partition.begin(q)) - m_ghosts.begin();
    m_adjacency.resize(global_adj.size());
    {
      const std::int64_t* ga = global_adj.data();
      const std::int64_t* gh = m_ghosts.data();
      const std::int64_t ng = std::int64_t(m_ghosts.size());
      local_vertex* la = m_adjacency.data();
      tessera::parallel_for(
          "dist::graph::local_ids", tessera::RangePolicy<Host>(0, std::int64_t(global_adj.size())),
          [=](std::int64_t k) {
            const std::int64_t g = ga[k];
            la[k] = g >= b && g < e ? local_vertex(g - b)
                                    : local_vertex(owned + (std::lower_bound(gh, gh + ng, g) - gh));
          });
    }
  });
  std::vector<std::int64_t> requested_offsets;
  const std::vector<std::int64_t> requested = comm.alltoallv(m_ghosts, m_ghost_offsets, &requested_offsets);
  m_send_offsets = std::move(requested_offsets);
  m_send_ids.resize(requested.size());
  for (std::size_t k = 0; k < requested.size(); ++k) m_send_ids[k] = local_vertex(requested[k] - b);
  m_m = comm.sum(num_local_entries()) / 2;
}

}  // namespace tessera::dist
