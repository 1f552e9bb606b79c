#pragma once
// Direction-optimizing breadth-first search on a DistGraph (Beamer,
// Asanovic, Patterson, "Direction-Optimizing Breadth-First Search", SC 2012,
// with gapbs's switching rule; the 1-D distribution follows Buluc and
// Madduri, "Parallel Breadth-First Search on Distributed Memory Systems",
// SC 2011).
//
//   tessera::dist::BfsResult r = tessera::dist::bfs<tessera::Threads>(g, source);
//   r.level[v], r.parent[v]   for owned vertex v (local id), -1 when unreached
//   r.level_forms             how each level ran and exchanged ("lbuull": see below)
//
// Top-down levels: the frontier's owned vertices claim their unvisited owned
// neighbours (compare-and-swap on the parent, on Exec) and name their ghost
// neighbours to the owners (each ghost is named at most once per search: a
// ghost already named was discovered at that level or earlier), in one
// alltoallv, in the smaller of two forms:
//  * a sparse list of (vertex, parent) pairs, 16 bytes a claim;
//  * to each rank named at least once, two bitmaps: the claims, one bit per
//    ghost the sender holds of that rank (in the ghost plan's order, so the
//    receiver reads bit i as its send_ids()'s i-th vertex for the sender),
//    and the sender's frontier among the vertices it sends that rank (bit i:
//    the receiver's i-th ghost of the sender), from which the receiver takes
//    each claimed vertex's parent, its first neighbour (in global order) in
//    the sender's frontier. 8 * (ceil(ghosts / 64) + ceil(sent / 64)) bytes.
// frontier_exchange::automatic picks per level, every rank alike, by one
// allreduce of the two global byte counts (the bitmaps when strictly
// smaller): bitmaps win when a level names a good share of the ghosts (the
// middle levels of a small-world graph), lists when it names few (the first
// and last levels, long paths).
// Bottom-up levels: the frontier is a bitmap, allgathered (n/8 bytes per
// rank), and each unvisited owned vertex scans its neighbours for one in it.
// Go bottom-up when the frontier's edges exceed the unexplored edges /
// alpha; come back when the frontier shrinks and holds fewer than n / beta
// vertices (graph::bfs_options; direction top_down never switches). Levels
// equal the node-level search's exactly; parents are valid BFS parents (the
// parent of a vertex at level k is a neighbour at level k - 1), not always
// the same.
#include <tessera/core.hpp>
#include <tessera/dist/graph/dist_graph.hpp>
#include <tessera/graph/bfs.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::dist {

// The form of a top-down level's claims on other ranks' vertices.
enum class frontier_exchange {
  automatic,  // per level, whichever form is smaller (one allreduce of the byte counts)
  list,       // always (vertex, parent) pairs
  bitmap      // always bitmaps over the ghost plan (claims, and the sender's frontier for the parents)
};

struct BfsResult {
  std::vector<std::int32_t> level;  // per owned vertex: hops from the source, -1 unreached
  std::vector<std::int64_t>
      parent;                // per owned vertex: global id of its parent (the source: itself), -1 unreached
  std::int64_t visited = 0;  // global: vertices reached, the source included
  int levels = 0;            // global: non-empty levels
  int bottom_up_levels = 0;  // levels run bottom-up
  int list_levels = 0;       // top-down levels whose claims went as (vertex, parent) lists
  int bitmap_levels = 0;     // top-down levels whose claims went as bitmaps
  // One letter per level run, in order: 'l' top-down with a list exchange,
  // 'b' top-down with a bitmap exchange, 'u' bottom-up. The last level run
  // finds nothing, so there are `levels` letters (none for an unreached
  // search, which cannot happen: the source is always reached).
  std::string level_forms;
};

// Collective. source: a global vertex id (the same on every rank); opts and
// exchange the same on every rank too.
template <class Exec = tessera::DefaultHostExecutionSpace>
BfsResult bfs(const DistGraph& g, std::int64_t source, const graph::bfs_options& opts = {},
              frontier_exchange exchange = frontier_exchange::automatic) {
  static_assert(tessera::is_host_execution_space<Exec>::value,
                "tessera::dist::bfs runs on a host execution space");
  using V = local_vertex;
  const Comm& comm = g.comm();
  const std::int64_t n = g.num_vertices();
  if (source < 0 || source >= n)
    throw dist_error("tessera::dist::bfs: source " + std::to_string(source) + " outside [0, " +
                     std::to_string(n) + ")");
  const int P = comm.size(), me = comm.rank();
  const std::int64_t owned = g.num_owned(), begin = g.owned_begin();
  const std::int64_t* rm = g.row_map().data();
  const V* adj = g.adjacency().data();
  const std::int64_t* ghost_ids = g.ghosts().data();
  BfsResult r;
  r.level.assign(std::size_t(owned), -1);
  r.parent.assign(std::size_t(owned), -1);
  std::int32_t* level = r.level.data();
  std::int64_t* parent = r.parent.data();

  std::vector<V> frontier, next(static_cast<std::size_t>(owned));
  std::vector<std::int32_t> ghost_named(std::size_t(g.num_ghosts()), 0);
  std::vector<std::int64_t> out_ghost(std::size_t(g.num_ghosts())), out_parent(std::size_t(g.num_ghosts()));
  if (g.is_owned(source)) {
    const V s = V(source - begin);
    level[s] = 0;
    parent[s] = source;
    frontier.push_back(s);
  }
  std::int64_t frontier_size = 1;
  std::int64_t scout = comm.sum(g.is_owned(source) ? g.degree(V(source - begin)) : std::int64_t(0));
  std::int64_t edges_to_check = 2 * g.num_edges();
  std::int32_t depth = 0;  // level of the current frontier

  // Bottom-up state: this rank's words of the frontier bitmap, and each
  // local vertex's bit in the allgathered bitmap (ranks' words side by
  // side): an owned vertex v's is own_bit + v, a ghost's is looked up in
  // ghost_bit. Owned neighbours, all of them at one rank, so cost no load
  // beyond the bitmap's (a table for every local vertex put one more
  // dependent load on every edge: 22 % of one rank's BFS time).
  const std::int64_t words = (owned + 63) / 64;
  std::int64_t own_bit = 0;
  std::vector<std::int64_t> ghost_bit;
  bool bottom_up_prepared = false;
  auto prepare_bottom_up = [&] {
    if (bottom_up_prepared) return;
    bottom_up_prepared = true;
    std::vector<std::int64_t> woff(std::size_t(P) + 1, 0);
    for (int q = 0; q < P; ++q)
      woff[std::size_t(q) + 1] = woff[std::size_t(q)] + (g.partition().count(q) + 63) / 64;
    own_bit = 64 * woff[std::size_t(me)];
    ghost_bit.resize(std::size_t(g.num_ghosts()));
    for (int q = 0; q < P; ++q)
      for (auto i = g.ghost_offsets()[std::size_t(q)]; i < g.ghost_offsets()[std::size_t(q) + 1]; ++i)
        ghost_bit[std::size_t(i)] = 64 * woff[std::size_t(q)] + (ghost_ids[i] - g.partition().begin(q));
  };

  while (frontier_size > 0) {
    const bool go_bottom_up = opts.direction == graph::bfs_direction::automatic &&
                              double(scout) > double(edges_to_check) / opts.alpha;
    if (go_bottom_up) {
      const int bottom_up_before = r.bottom_up_levels;
      prepare_bottom_up();
      std::vector<std::uint64_t> front(std::size_t(words), 0), curr(std::size_t(words), 0);
      for (const V v : frontier) front[std::size_t(v) / 64] |= std::uint64_t(1) << (v % 64);
      // The owned vertices already reached, as bits: a step visits only the
      // others, a word at a time, instead of reading every vertex's parent.
      std::vector<std::uint64_t> reached(std::size_t(words), 0);
      {
        std::uint64_t* rw = reached.data();
        tessera::parallel_for("dist::bfs::reached_bits", tessera::RangePolicy<Exec>(0, words), [=](std::int64_t w) {
          std::uint64_t word = 0;
          const std::int64_t hi = std::min<std::int64_t>(64, owned - 64 * w);
          for (std::int64_t b = 0; b < hi; ++b) word |= std::uint64_t(parent[64 * w + b] != -1) << b;
          rw[w] = word;
        });
      }
      std::int64_t awake = frontier_size, old_awake = 0;
      do {
        old_awake = awake;
        const std::vector<std::uint64_t> all = comm.allgatherv(front);
        const std::uint64_t* bits = all.data();
        const std::int64_t own_base = own_bit;
        const std::int64_t* gpos = ghost_bit.data();
        std::uint64_t* out = curr.data();
        std::uint64_t* rw = reached.data();
        const std::int32_t next_level = depth + 1;
        std::int64_t found = 0;
        tessera::parallel_reduce(
            "dist::bfs::bottom_up",
            tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, words, 16),
            [=](std::int64_t w, std::int64_t& cnt) {
              std::uint64_t word = 0;
              const std::int64_t hi = std::min<std::int64_t>(64, owned - 64 * w);
              std::uint64_t todo = ~rw[w];
              if (hi < 64) todo &= (std::uint64_t(1) << hi) - 1;
              for (; todo; todo &= todo - 1) {
                const int b = std::countr_zero(todo);
                const std::int64_t v = 64 * w + b;
                for (std::int64_t k = rm[v]; k < rm[v + 1]; ++k) {
                  const V x = adj[k];
                  const std::int64_t p = x < owned ? own_base + x : gpos[x - owned];
                  if ((bits[p >> 6] >> (p & 63)) & 1) {
                    parent[v] = x < owned ? begin + x : ghost_ids[x - owned];
                    level[v] = next_level;
                    word |= std::uint64_t(1) << b;
                    ++cnt;
                    break;
                  }
                }
              }
              out[w] = word;
              rw[w] |= word;
            },
            found);
        front.swap(curr);
        awake = comm.sum(found);
        ++depth;
        ++r.bottom_up_levels;
      } while (awake > 0 && (awake >= old_awake || double(awake) > double(n) / opts.beta));
      frontier.clear();
      for (std::int64_t w = 0; w < words; ++w)
        for (std::uint64_t x = front[std::size_t(w)]; x; x &= x - 1)
          frontier.push_back(V(64 * w + std::countr_zero(x)));
      frontier_size = awake;
      scout = 1;
      r.level_forms.append(std::size_t(r.bottom_up_levels - bottom_up_before), 'u');
      continue;
    }
    // Top-down.
    edges_to_check -= scout;
    std::int64_t next_count = 0, out_count = 0;
    {
      const V* f = frontier.data();
      V* nx = next.data();
      std::int32_t* named = ghost_named.data();
      std::int64_t* og = out_ghost.data();
      std::int64_t* op = out_parent.data();
      std::int64_t* nc = &next_count;
      std::int64_t* oc = &out_count;
      const std::int32_t next_level = depth + 1;
      tessera::parallel_for(
          "dist::bfs::top_down",
          tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, std::int64_t(frontier.size()),
                                                                          8),
          [=](std::int64_t i) {
            const V u = f[i];
            const std::int64_t gu = begin + u;
            for (std::int64_t k = rm[u]; k < rm[u + 1]; ++k) {
              const V x = adj[k];
              if (x < owned) {
                if (tessera::atomic_load(&parent[x]) == -1 &&
                    tessera::atomic_compare_exchange(&parent[x], std::int64_t(-1), gu) == -1) {
                  level[x] = next_level;
                  nx[tessera::atomic_fetch_add(nc, std::int64_t(1))] = x;
                }
              } else if (tessera::atomic_load(&named[x - owned]) == 0 &&
                         tessera::atomic_exchange(&named[x - owned], 1) == 0) {
                const std::int64_t slot = tessera::atomic_fetch_add(oc, std::int64_t(1));
                og[slot] = x - owned;
                op[slot] = gu;
              }
            }
          });
    }
    // How many ghosts this rank names on each rank, and the two forms' sizes.
    const std::int64_t* ghost_off = g.ghost_offsets().data();
    auto owner_of_ghost = [&](std::int64_t gi) {
      return int(std::upper_bound(ghost_off, ghost_off + P + 1, gi) - ghost_off) - 1;
    };
    std::vector<std::int64_t> named_on(static_cast<std::size_t>(P), 0);
    for (std::int64_t i = 0; i < out_count; ++i) ++named_on[std::size_t(owner_of_ghost(out_ghost[std::size_t(i)]))];
    const std::int64_t* send_off = g.send_offsets().data();
    const V* send_ids = g.send_ids().data();
    // The claim words over this rank's ghosts of q, then the frontier words
    // over the vertices this rank sends q.
    auto claim_words = [&](int q) { return (ghost_off[q + 1] - ghost_off[q] + 63) / 64; };
    auto frontier_words = [&](int q) { return (send_off[q + 1] - send_off[q] + 63) / 64; };
    bool as_bitmap = exchange == frontier_exchange::bitmap;
    if (exchange == frontier_exchange::automatic && P > 1) {
      std::vector<std::int64_t> bytes{16 * out_count, 0};  // list, bitmap
      for (int q = 0; q < P; ++q)
        if (named_on[std::size_t(q)] > 0) bytes[1] += 8 * (claim_words(q) + frontier_words(q));
      comm.sum_in_place(bytes);
      as_bitmap = bytes[1] < bytes[0];
    }
    if (as_bitmap) {
      ++r.bitmap_levels;
      r.level_forms.push_back('b');
      // To each rank named at least once: the claims, then the frontier.
      std::vector<std::int64_t> offsets(std::size_t(P) + 1, 0);
      for (int q = 0; q < P; ++q)
        offsets[std::size_t(q) + 1] = offsets[std::size_t(q)] +
                                      (named_on[std::size_t(q)] > 0 ? claim_words(q) + frontier_words(q) : 0);
      std::vector<std::uint64_t> bits(static_cast<std::size_t>(offsets[std::size_t(P)]), 0);
      for (std::int64_t i = 0; i < out_count; ++i) {
        const std::int64_t gi = out_ghost[std::size_t(i)];
        const int q = owner_of_ghost(gi);
        const std::int64_t b = gi - ghost_off[q];
        bits[std::size_t(offsets[std::size_t(q)] + b / 64)] |= std::uint64_t(1) << (b % 64);
      }
      for (int q = 0; q < P; ++q) {
        if (named_on[std::size_t(q)] == 0) continue;
        std::uint64_t* fb = bits.data() + offsets[std::size_t(q)] + claim_words(q);
        for (std::int64_t i = 0; i < send_off[q + 1] - send_off[q]; ++i)
          if (level[send_ids[send_off[q] + i]] == depth) fb[i / 64] |= std::uint64_t(1) << (i % 64);
      }
      std::vector<std::int64_t> from;
      const std::vector<std::uint64_t> in = comm.alltoallv(bits, offsets, &from);
      // Senders in rank order, claims in plan order; a vertex already reached
      // (on this level by an earlier rank or an owned neighbour) stays as it is.
      for (int q = 0; q < P; ++q) {
        const std::int64_t at = from[std::size_t(q)];
        if (at == from[std::size_t(q) + 1]) continue;
        // Here q's claims span this rank's send list to q, its frontier this rank's ghosts of q.
        const std::uint64_t* claimed = in.data() + at;
        const std::uint64_t* q_frontier = claimed + frontier_words(q);
        const std::int64_t ghosts_lo = owned + ghost_off[q], ghosts_hi = owned + ghost_off[q + 1];
        for (std::int64_t w = 0; w < frontier_words(q); ++w)
          for (std::uint64_t x = claimed[w]; x; x &= x - 1) {
            const V v = send_ids[send_off[q] + 64 * w + std::countr_zero(x)];
            if (parent[v] != -1) continue;
            for (std::int64_t k = rm[v]; k < rm[v + 1]; ++k) {
              const std::int64_t y = adj[k];
              if (y < ghosts_lo || y >= ghosts_hi) continue;
              const std::int64_t b = y - ghosts_lo;
              if ((q_frontier[b / 64] >> (b % 64)) & 1) {
                parent[v] = ghost_ids[y - owned];
                break;
              }
            }
            level[v] = depth + 1;
            next[std::size_t(next_count++)] = v;
          }
      }
    } else {
      ++r.list_levels;
      r.level_forms.push_back('l');
      // The named ghosts to their owners, grouped by owner (ghost order).
      struct Claim {
        std::int64_t vertex, parent;
      };
      std::vector<Claim> claims(static_cast<std::size_t>(out_count));
      {
        std::vector<std::int64_t> order(static_cast<std::size_t>(out_count));
        for (std::int64_t i = 0; i < out_count; ++i) order[std::size_t(i)] = i;
        std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
          return out_ghost[std::size_t(a)] < out_ghost[std::size_t(b)];
        });
        for (std::int64_t i = 0; i < out_count; ++i)
          claims[std::size_t(i)] = {ghost_ids[out_ghost[std::size_t(order[std::size_t(i)])]],
                                    out_parent[std::size_t(order[std::size_t(i)])]};
      }
      std::vector<std::int64_t> offsets(std::size_t(P) + 1, 0);
      for (int q = 0; q < P; ++q) offsets[std::size_t(q) + 1] = offsets[std::size_t(q)] + named_on[std::size_t(q)];
      // Received claims in rank order: the first for a vertex wins.
      for (const Claim& c : comm.alltoallv(claims, offsets)) {
        const std::int64_t v = c.vertex - begin;
        if (parent[v] != -1) continue;
        parent[v] = c.parent;
        level[v] = depth + 1;
        next[std::size_t(next_count++)] = V(v);
      }
    }
    frontier.assign(next.begin(), next.begin() + next_count);
    std::vector<std::int64_t> sizes{next_count, 0};
    for (const V v : frontier) sizes[1] += g.degree(v);
    comm.sum_in_place(sizes);
    frontier_size = sizes[0];
    scout = sizes[1];
    ++depth;
  }
  std::int64_t visited = 0;
  std::int32_t deepest = -1;
  for (const std::int32_t l : r.level) {
    visited += l >= 0 ? 1 : 0;
    deepest = std::max(deepest, l);
  }
  r.visited = comm.sum(visited);
  r.levels = comm.max(deepest) + 1;
  return r;
}

}  // namespace tessera::dist
