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
// two more bring back their lengths and their lists, which the requester
// keeps in its own numbering of the local vertices by the order (entries
// not local to it cannot close a triangle there), so out(u) ∩ out(v) merges
// only out(u)'s entries after v, as gapbs's ordered count does. The merges of
// 32-bit ranks run on Exec. Memory per rank: the owned out-lists plus the
// requested ones (each at most sqrt(2m) long).
#include <tessera/core.hpp>
#include <tessera/dist/graph/dist_graph.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tessera::dist {

namespace detail {
// Common elements of two sorted lists.
template <class T>
inline std::int64_t common_count(const T* a, const T* ea, const T* b, const T* eb) {
  std::int64_t c = 0;
  while (a != ea && b != eb) {
    if (*a < *b)
      ++a;
    else if (*b < *a)
      ++b;
    else
      ++c, ++a, ++b;
  }
  return c;
}

// The degree-ordered out-lists of the owned vertices, with the ghosts'
// out-lists fetched from their owners. Lists hold order ranks: the local
// vertices numbered in the global order (degree, then id), so every list is
// sorted in that order and out(u) ∩ out(v) needs only out(u)'s entries
// after v. A fetched entry that is not local here cannot close a triangle
// here and is dropped.
struct OrientedLists {
  std::vector<local_vertex> order, local_of;  // local id -> order rank, and back
  std::vector<std::int64_t> own_map;          // owned rows (by local id): num_owned + 1 offsets into own
  std::vector<local_vertex> own;
  std::vector<std::int64_t> ghost_begin,
      ghost_end;  // per ghost: its list in fetched ([0, 0) when not needed)
  std::vector<local_vertex> fetched;
  // The lists' way back (for per-edge data, as miniTri's): fetched[j] was
  // entry fetched_pos[j] of what the owners sent (fetched_raw entries, each
  // source rank's at fetched_offsets); entry k of what this rank sent was
  // own[sent_source[k]], to each rank at sent_offsets.
  std::vector<std::int64_t> fetched_pos, fetched_offsets, sent_source, sent_offsets;
  std::int64_t fetched_raw = 0;
};

OrientedLists oriented_lists(const DistGraph& g);
}  // namespace detail

// Collective.
template <class Exec = tessera::DefaultHostExecutionSpace>
std::int64_t count_triangles(const DistGraph& g) {
  static_assert(tessera::is_host_execution_space<Exec>::value,
                "tessera::dist::count_triangles runs on a host execution space");
  const detail::OrientedLists L = detail::oriented_lists(g);
  const std::int64_t owned = g.num_owned();
  const std::int64_t* om = L.own_map.data();
  const local_vertex* o = L.own.data();
  const std::int64_t* gb = L.ghost_begin.data();
  const std::int64_t* ge = L.ghost_end.data();
  const local_vertex* f = L.fetched.data();
  const local_vertex* local_of = L.local_of.data();
  std::int64_t local = 0;
  tessera::parallel_reduce(
      "dist::triangles", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, owned, 64),
      [=](std::int64_t u, std::int64_t& cnt) {
        for (std::int64_t k = om[u]; k < om[u + 1]; ++k) {
          const local_vertex v = local_of[o[k]];
          const local_vertex* b = v < owned ? o + om[v] : f + gb[v - owned];
          const local_vertex* e = v < owned ? o + om[v + 1] : f + ge[v - owned];
          cnt += detail::common_count(o + k + 1, o + om[u + 1], b, e);  // out(v) lies after v
        }
      },
      local);
  return g.comm().sum(local);
}

}  // namespace tessera::dist
