#pragma once
// How forall_edges, reduce_edges and advance spread a graph's edges over
// threads (the schedule), for graphs with random-access adjacency (CSR and
// its transpose); other graphs always take the vertex loop.
//
//   tg::forall_edges(g, f, {.schedule = tg::edge_schedule::edge_balanced});
//   tg::advance(g, frontier, f, {.schedule = tg::edge_schedule::by_degree, .warp_degree = 16});
//
// automatic (the default) keeps host spaces on the vertex loop: it is what the
// host figures of docs/performance.md were measured with, and a thread that
// owns whole rows reads them sequentially, which the balanced schedules only
// match. Device spaces take edge_balanced: a thread per vertex leaves a
// warp's other lanes idle behind one long row, and a hub of 10^6 edges on one
// thread is the whole kernel's time. The other schedules are chosen
// explicitly (and the tests run every schedule on every space).
#include <cstdint>

namespace tessera::graph {

enum class edge_schedule {
  automatic,
  // Each vertex's edges on one thread; vertices handed out in dynamic chunks.
  vertex_loop,
  // Merrill's thread / warp / CTA split: a vertex's edges on one thread when
  // its degree is below warp_degree, on one thread's vector lanes (a warp on
  // a GPU) below block_degree, on the whole team (a block) from block_degree.
  by_degree,
  // Merge path over the rows' edge offsets: every work item takes the same
  // number of steps, a step being one edge or the end of one row, so a hub is
  // cut between many items and a run of empty rows between several.
  edge_balanced,
};

struct traversal_options {
  edge_schedule schedule = edge_schedule::automatic;
  // by_degree: the degree from which a vertex's edges go to vector lanes,
  // and the degree from which they go to a whole team.
  std::int64_t warp_degree = 32;
  std::int64_t block_degree = 256;
  // edge_balanced: merge-path steps per work item; 0 lets the space choose
  // (32 on a device: enough to hide the item's binary search; 2048 on the
  // host, where a work item is a dynamic chunk of a thread's work).
  std::int64_t steps_per_item = 0;
};

}  // namespace tessera::graph
