// The degree-ordered out-lists behind dist::count_triangles (triangles.hpp):
// owned lists from the local rows, ghosts' lists fetched from their owners.
#include <tessera/dist/graph/triangles.hpp>

namespace tessera::dist::detail {

OrientedLists oriented_lists(const DistGraph& g) {
  const Comm& comm = g.comm();
  const int P = comm.size();
  const std::int64_t owned = g.num_owned(), begin = g.owned_begin();
  const std::int64_t* rm = g.row_map().data();
  const local_vertex* adj = g.adjacency().data();
  std::vector<std::int64_t> deg(std::size_t(g.num_local()), 0);
  for (std::int64_t v = 0; v < owned; ++v) deg[std::size_t(v)] = rm[v + 1] - rm[v];
  g.update_ghosts(deg);
  // u -> x when (deg(u), id(u)) < (deg(x), id(x)).
  auto before = [&](local_vertex a, local_vertex b) {
    const std::int64_t da = deg[std::size_t(a)], db = deg[std::size_t(b)];
    return da < db || (da == db && g.global_id(a) < g.global_id(b));
  };
  OrientedLists L;
  L.own_map.assign(std::size_t(owned) + 1, 0);
  std::vector<char> needed(std::size_t(g.num_ghosts()), 0);
  for (std::int64_t u = 0; u < owned; ++u) {
    for (std::int64_t k = rm[u]; k < rm[u + 1]; ++k) {
      const local_vertex x = adj[k];
      if (!before(local_vertex(u), x)) continue;
      L.own.push_back(g.global_id(x));
      L.own_local.push_back(x);
      if (x >= owned) needed[std::size_t(x - owned)] = 1;
    }
    L.own_map[std::size_t(u) + 1] = std::int64_t(L.own.size());
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
  // Their lengths, then the lists themselves, in the order asked.
  std::vector<std::int64_t> lengths(incoming.size()), lists, list_offsets(std::size_t(P) + 1, 0);
  for (int q = 0; q < P; ++q) {
    list_offsets[std::size_t(q)] = std::int64_t(lists.size());
    for (auto j = in_offsets[std::size_t(q)]; j < in_offsets[std::size_t(q) + 1]; ++j) {
      const std::int64_t v = incoming[std::size_t(j)] - begin;
      lengths[std::size_t(j)] = L.own_map[std::size_t(v) + 1] - L.own_map[std::size_t(v)];
      for (auto k = L.own_map[std::size_t(v)]; k < L.own_map[std::size_t(v) + 1]; ++k) {
        lists.push_back(L.own[std::size_t(k)]);
        L.sent_source.push_back(k);
      }
    }
  }
  list_offsets[std::size_t(P)] = std::int64_t(lists.size());
  const std::vector<std::int64_t> my_lengths = comm.alltoallv(lengths, in_offsets);
  L.fetched = comm.alltoallv(lists, list_offsets, &L.fetched_offsets);
  L.sent_offsets = std::move(list_offsets);
  L.ghost_begin.assign(std::size_t(g.num_ghosts()), 0);
  L.ghost_end.assign(std::size_t(g.num_ghosts()), 0);
  std::int64_t at = 0;
  for (std::size_t j = 0; j < requests.size(); ++j) {
    L.ghost_begin[std::size_t(request_ghost[j])] = at;
    at += my_lengths[j];
    L.ghost_end[std::size_t(request_ghost[j])] = at;
  }
  return L;
}

}  // namespace tessera::dist::detail
