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
// not local to it cannot close a triangle there). The count then runs on
// Exec as the node-level one does (graph/detail/triangles_marks.hpp): each
// thread marks out(u) in an array of one byte (or bit) per local vertex and
// looks every entry of each out(v) up in it; independent loads, where a
// merge of out(u)'s entries after v with out(v) waits on a compare per step.
// The merge stays for when the threads' arrays would outweigh the lists
// (TriangleMarks::none). Memory per rank: the owned out-lists plus the
// requested ones (each at most sqrt(2m) long), and the marks.
#include <tessera/core.hpp>
#include <tessera/dist/graph/dist_graph.hpp>
#include <tessera/graph/detail/triangles_marks.hpp>
#include <tessera/graph/triangles.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
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

// L's arrays as the count's kernels read them (captured by value): owned
// vertex u's out-list o[om[u] .. om[u + 1]), and out(v) of the vertex whose
// rank is r, owned or fetched.
struct OrientedRows {
  const std::int64_t* om;
  const local_vertex* o;
  const std::int64_t *gb, *ge;
  const local_vertex *f, *local_of;
  std::int64_t owned;
  OrientedRows(const OrientedLists& L, std::int64_t owned_)
      : om(L.own_map.data()),
        o(L.own.data()),
        gb(L.ghost_begin.data()),
        ge(L.ghost_end.data()),
        f(L.fetched.data()),
        local_of(L.local_of.data()),
        owned(owned_) {}
  struct span {
    const local_vertex *begin, *end;
  };
  span out_of_rank(local_vertex r) const {
    const local_vertex v = local_of[r];
    return v < owned ? span{o + om[v], o + om[v + 1]} : span{f + gb[v - owned], f + ge[v - owned]};
  }
};

// The triangles at the owned vertices by merges: out(u)'s entries after v
// against out(v), as gapbs's ordered count does.
template <class Exec>
std::int64_t triangles_merged(const OrientedLists& L, std::int64_t owned) {
  const OrientedRows rows(L, owned);
  std::int64_t local = 0;
  tessera::parallel_reduce(
      "dist::triangles::merged",
      tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, owned, 64),
      [=](std::int64_t u, std::int64_t& cnt) {
        for (std::int64_t k = rows.om[u]; k < rows.om[u + 1]; ++k) {
          const auto out_v = rows.out_of_rank(rows.o[k]);
          cnt += common_count(rows.o + k + 1, rows.o + rows.om[u + 1], out_v.begin,
                              out_v.end);  // out(v) lies after v
        }
      },
      local);
  return local;
}

// The same by marks (Marks: graph::detail::byte_marks or bit_marks over the
// local vertices' ranks), teams of one thread taking every league-th owned
// vertex, as graph::detail::triangles_marked does.
template <class Marks, class Exec>
std::int64_t triangles_marked(const OrientedLists& L, std::int64_t owned) {
  using Policy = tessera::TeamPolicy<Exec, tessera::Schedule<tessera::Dynamic>>;
  using Member = typename Policy::member_type;
  const std::int64_t n = std::int64_t(L.order.size());
  if (owned == 0) return 0;
  const std::size_t mark_bytes = (Marks::bytes_for(n) + 63) / 64 * 64;
  const std::int64_t threads = std::int64_t(Exec().concurrency());
  const std::int64_t league = owned < 2 * threads ? owned : 2 * threads;
  const OrientedRows rows(L, owned);
  std::int64_t local = 0;
  tessera::parallel_reduce(
      "dist::triangles::marked", Policy(league, 1).set_scratch_size(1, tessera::PerTeam(mark_bytes)),
      [=](const Member& mem, std::int64_t& cnt) {
        void* scratch = mem.team_scratch(1).get_shmem(mark_bytes);
        std::memset(scratch, 0, mark_bytes);
        const Marks marks{static_cast<decltype(Marks::m)>(scratch)};
        std::int64_t found = 0;
        for (std::int64_t u = mem.league_rank(); u < owned; u += league) {
          const std::int64_t ub = rows.om[u], ue = rows.om[u + 1];
          if (ue - ub < 2) continue;  // a triangle at u needs two out-neighbours
          for (std::int64_t k = ub; k < ue; ++k) marks.set(rows.o[k]);
          // Up to the last but one: out(v) lies after v, and no entry of
          // out(u) lies after the last.
          for (std::int64_t k = ub; k + 1 < ue; ++k) {
            const auto out_v = rows.out_of_rank(rows.o[k]);
            for (const local_vertex* x = out_v.begin; x != out_v.end; ++x) found += marks.test(*x);
          }
          for (std::int64_t k = ub; k < ue; ++k) marks.clear(rows.o[k]);
        }
        cnt += found;
      },
      local);
  return local;
}

// automatic -> bytes while every thread's byte array together weighs no
// more than the lists, else bits on the same terms, else none (the merge).
template <class Exec>
graph::detail::TriangleMarks triangle_marks_for(const OrientedLists& L, graph::detail::TriangleMarks asked) {
  if (asked != graph::detail::TriangleMarks::automatic) return asked;
  const double n = double(L.order.size());
  const double threads = double(Exec().concurrency());
  const double lists =
      8.0 * double(L.own_map.size()) + double(sizeof(local_vertex)) * double(L.own.size() + L.fetched.size());
  const double scratch_max = double(tessera::TeamPolicy<Exec>::scratch_size_max(1));
  if (n <= scratch_max && threads * n <= lists) return graph::detail::TriangleMarks::bytes;
  if (n / 8 <= scratch_max && threads * n / 8 <= lists) return graph::detail::TriangleMarks::bits;
  return graph::detail::TriangleMarks::none;
}

// count_triangles with the lookup named (tests name each; every rank must
// pass the same).
template <class Exec>
std::int64_t count_triangles_with(const DistGraph& g, graph::detail::TriangleMarks marks) {
  const OrientedLists L = oriented_lists(g);
  const std::int64_t owned = g.num_owned();
  std::int64_t local = 0;
  switch (triangle_marks_for<Exec>(L, marks)) {
    case graph::detail::TriangleMarks::bytes:
      local = triangles_marked<graph::detail::byte_marks, Exec>(L, owned);
      break;
    case graph::detail::TriangleMarks::bits:
      local = triangles_marked<graph::detail::bit_marks, Exec>(L, owned);
      break;
    default:
      local = triangles_merged<Exec>(L, owned);
  }
  return g.comm().sum(local);
}
}  // namespace detail

// Collective.
template <class Exec = tessera::DefaultHostExecutionSpace>
std::int64_t count_triangles(const DistGraph& g) {
  static_assert(tessera::is_host_execution_space<Exec>::value,
                "tessera::dist::count_triangles runs on a host execution space");
  return detail::count_triangles_with<Exec>(g, graph::detail::TriangleMarks::automatic);
}

}  // namespace tessera::dist
