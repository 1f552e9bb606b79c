// The degree-ordered out-lists behind dist::count_triangles (triangles.hpp):
// owned lists from the local rows, ghosts' lists fetched from their owners,
// all as local ids.
#include <tessera/dist/graph/triangles.hpp>

#include <numeric>

namespace tessera::dist::detail {

OrientedLists oriented_lists(const DistGraph& g) {
  using Host = tessera::DefaultHostExecutionSpace;
  const Comm& comm = g.comm();
  const int P = comm.size();
  const std::int64_t owned = g.num_owned(), begin = g.owned_begin();
  const std::int64_t* rm = g.row_map().data();
  const local_vertex* adj = g.adjacency().data();
  std::vector<std::int64_t> deg(std::size_t(g.num_local()), 0);
  for (std::int64_t v = 0; v < owned; ++v) deg[std::size_t(v)] = rm[v + 1] - rm[v];
  g.update_ghosts(deg);
  std::vector<std::int64_t> gid(std::size_t(g.num_local()));
  for (std::int64_t x = 0; x < g.num_local(); ++x) gid[std::size_t(x)] = g.global_id(local_vertex(x));
  // u -> x when (deg(u), id(u)) < (deg(x), id(x)): local vertices ranked in that order.
  const std::int64_t* d = deg.data();
  const std::int64_t* id = gid.data();
  OrientedLists L;
  L.local_of.resize(std::size_t(g.num_local()));
  std::iota(L.local_of.begin(), L.local_of.end(), local_vertex(0));
  std::sort(L.local_of.begin(), L.local_of.end(),
            [=](local_vertex a, local_vertex b) { return d[a] < d[b] || (d[a] == d[b] && id[a] < id[b]); });
  L.order.resize(L.local_of.size());
  for (std::size_t r = 0; r < L.local_of.size(); ++r) L.order[std::size_t(L.local_of[r])] = local_vertex(r);
  const local_vertex* ord = L.order.data();
  auto before = [=](local_vertex a, local_vertex b) { return ord[a] < ord[b]; };
  L.own_map.assign(std::size_t(owned) + 1, 0);
  {
    std::int64_t* om = L.own_map.data() + 1;
    tessera::parallel_for("dist::triangles::out_degree", tessera::RangePolicy<Host>(0, owned),
                          [=](std::int64_t u) {
                            std::int64_t c = 0;
                            for (std::int64_t k = rm[u]; k < rm[u + 1]; ++k)
                              c += before(local_vertex(u), adj[k]) ? 1 : 0;
                            om[u] = c;
                          });
  }
  std::partial_sum(L.own_map.begin(), L.own_map.end(), L.own_map.begin());
  L.own.resize(std::size_t(L.own_map.back()));
  {
    const std::int64_t* om = L.own_map.data();
    local_vertex* o = L.own.data();
    tessera::parallel_for("dist::triangles::out_lists", tessera::RangePolicy<Host>(0, owned),
                          [=](std::int64_t u) {
                            std::int64_t at = om[u];
                            for (std::int64_t k = rm[u]; k < rm[u + 1]; ++k)
                              if (before(local_vertex(u), adj[k])) o[at++] = ord[adj[k]];
                            std::sort(o + om[u], o + om[u + 1]);  // rows are in id order, lists in rank order
                          });
  }
  std::vector<char> needed(std::size_t(g.num_ghosts()), 0);
  for (const local_vertex r : L.own) {
    const local_vertex x = L.local_of[std::size_t(r)];
    if (x >= owned) needed[std::size_t(x - owned)] = 1;
  }
  // Requests for the needed ghosts' lists, grouped by owner.
  std::vector<std::int64_t> requests, request_ghost, offsets(std::size_t(P) + 1, 0);
  for (int q = 0; q < P; ++q) {
    offsets[std::size_t(q)] = std::int64_t(requests.size());
    for (auto i = g.ghost_offsets()[std::size_t(q)]; i < g.ghost_offsets()[std::size_t(q) + 1]; ++i)
      if (needed[std::size_t(i)]) {
        requests.push_back(g.ghosts()[std::size_t(i)]);
        request_ghost.push_back(i);
      }
  }
  offsets[std::size_t(P)] = std::int64_t(requests.size());
  std::vector<std::int64_t> in_offsets;
  const std::vector<std::int64_t> incoming = comm.alltoallv(requests, offsets, &in_offsets);
  // Their lengths, then the lists themselves as global ids, in the order asked.
  std::vector<std::int64_t> lengths(incoming.size()), lists;
  L.sent_offsets.assign(std::size_t(P) + 1, 0);
  for (int q = 0; q < P; ++q) {
    L.sent_offsets[std::size_t(q)] = std::int64_t(lists.size());
    for (auto j = in_offsets[std::size_t(q)]; j < in_offsets[std::size_t(q) + 1]; ++j) {
      const std::int64_t v = incoming[std::size_t(j)] - begin;
      lengths[std::size_t(j)] = L.own_map[std::size_t(v) + 1] - L.own_map[std::size_t(v)];
      for (auto k = L.own_map[std::size_t(v)]; k < L.own_map[std::size_t(v) + 1]; ++k) {
        lists.push_back(id[L.local_of[std::size_t(L.own[std::size_t(k)])]]);
        L.sent_source.push_back(k);
      }
    }
  }
  L.sent_offsets[std::size_t(P)] = std::int64_t(lists.size());
  const std::vector<std::int64_t> my_lengths = comm.alltoallv(lengths, in_offsets);
  const std::vector<std::int64_t> raw = comm.alltoallv(lists, L.sent_offsets, &L.fetched_offsets);
  L.fetched_raw = std::int64_t(raw.size());
  // Each fetched list: its entries local here, as ranks, sorted.
  L.ghost_begin.assign(std::size_t(g.num_ghosts()), 0);
  L.ghost_end.assign(std::size_t(g.num_ghosts()), 0);
  std::int64_t at = 0;
  std::vector<std::pair<local_vertex, std::int64_t>> entry;
  for (std::size_t j = 0; j < requests.size(); ++j) {
    entry.clear();
    for (std::int64_t k = at; k < at + my_lengths[j]; ++k) {
      const local_vertex x = g.local_id(raw[std::size_t(k)]);
      if (x >= 0) entry.emplace_back(ord[x], k);
    }
    at += my_lengths[j];
    std::sort(entry.begin(), entry.end());
    L.ghost_begin[std::size_t(request_ghost[j])] = std::int64_t(L.fetched.size());
    for (const auto& [x, k] : entry) {
      L.fetched.push_back(x);
      L.fetched_pos.push_back(k);
    }
    L.ghost_end[std::size_t(request_ghost[j])] = std::int64_t(L.fetched.size());
  }
  return L;
}

}  // namespace tessera::dist::detail
