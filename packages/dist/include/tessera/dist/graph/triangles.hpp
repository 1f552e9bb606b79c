#pragma once
// Triangle count of a DistGraph, each triangle once.
//
//   std::int64_t t = tessera::dist::count_triangles<tessera::Threads>(g);
//
// Degree ordering (Schank and Wagner, WEA 2005, as the node-level
// graph::count_triangles by_degree): u -> v when v has the higher degree
// (ties: the higher id). The triangle u -> v -> w is found by u's owner as
// a common element of out(u) and out(v). out(v) of a ghost v lives on v's
// owner: one alltoallv sends the requests (the ghosts that appear in some
// owned out-list; ghost degrees come first through the exchange plan), and
// two more bring back their lengths and their lists, sorted by global id.
// The merges run on Exec. Memory per rank: the owned out-lists plus the
// requested ones (each at most sqrt(2m) long).
#include <tessera/core.hpp>
#include <tessera/dist/graph/dist_graph.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tessera::dist {

namespace detail {
// Common elements of two sorted lists.
inline std::int64_t common_count(const std::int64_t* a, const std::int64_t* ea, const std::int64_t* b, const std::int64_t* eb) {
  std::int64_t c = 0;
  while (a != ea && b != eb) {
    if (*a < *b) ++a;
    else if (*b < *a) ++b;
    else ++c, ++a, ++b;
  }
  return c;
}

// The degree-ordered out-lists of the owned vertices (global ids, sorted),
// with the ghosts' out-lists fetched from their owners.
struct OrientedLists {
  std::vector<std::int64_t> own_map, own;          // owned rows
  std::vector<local_vertex> own_local;             // the same entries as local ids
  std::vector<std::int64_t> ghost_begin, ghost_end;  // per ghost: its list in fetched ([0, 0) when not needed)
  std::vector<std::int64_t> fetched;
  // The lists' way back (for per-edge data, as miniTri's): the own[] index
  // of each entry this rank sent, per destination rank (sent_offsets), and
  // where each source rank's lists lie in fetched (fetched_offsets).
  std::vector<std::int64_t> sent_source, sent_offsets, fetched_offsets;
};

OrientedLists oriented_lists(const DistGraph& g);
}  // namespace detail

// Collective.
template <class Exec = tessera::DefaultHostExecutionSpace>
std::int64_t count_triangles(const DistGraph& g) {
  static_assert(tessera::is_host_execution_space<Exec>::value, "tessera::dist::count_triangles runs on a host execution space");
  const detail::OrientedLists L = detail::oriented_lists(g);
  const std::int64_t owned = g.num_owned();
  const std::int64_t* om = L.own_map.data();
  const std::int64_t* o = L.own.data();
  const local_vertex* ol = L.own_local.data();
  const std::int64_t* gb = L.ghost_begin.data();
  const std::int64_t* ge = L.ghost_end.data();
  const std::int64_t* f = L.fetched.data();
  std::int64_t local = 0;
  tessera::parallel_reduce(
      "dist::triangles", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, owned, 64),
      [=](std::int64_t u, std::int64_t& cnt) {
        for (std::int64_t k = om[u]; k < om[u + 1]; ++k) {
          const local_vertex v = ol[k];
          const std::int64_t* b = v < owned ? o + om[v] : f + gb[v - owned];
          const std::int64_t* e = v < owned ? o + om[v + 1] : f + ge[v - owned];
          cnt += detail::common_count(o + om[u], o + om[u + 1], b, e);
        }
      },
      local);
  return g.comm().sum(local);
}

}  // namespace tessera::dist
