#pragma once
// The merge-path pull of a batch of W PageRank jobs (PullSchedule::merge_path
// in jobs_pagerank.hpp): pagerank_merge_path.hpp's walk, carries and finish
// with a row of W sums where the single job has one sum. Each step of the
// path over an in-edge reads the in-neighbour's row of W contributions (one
// cache line for W = 8), so the batch pays the edge sweep once, as the other
// pulls of a batch do; the merge path's equal shares of rows and edges keep
// a hub from holding one thread or a run of short lists from idling a
// team's lanes. The single job's pull measured 3.2x the vector-lane pull on
// Kronecker 21 on an H200 (2026-12-04); whether the batch's gains as much is
// for a GPU run to say (bench_graph_jobs --per-kind), so job sets keep
// their default pulls (jobs_pull_schedule_for: vector lanes on a GPU, vertex
// blocks on the host, which measured faster on a grid) until it has.
//
// The passes, as in the single job's pull:
//   walk     item c sums the W lanes of the edges of its share; a row that
//            ends in the share gets its sums in sums(row, .), the row open
//            at the share's end leaves (row, W sums) as the item's carry;
//   carries  a run of carries (a hub open over several items) is added in
//            blocks of kMergeCarryBlock items, then across the blocks, into
//            the row's sums;
//   finish   per vertex: finish_vertex, the sweep's 2W sums (each lane's
//            L1 change and next dangling mass) one array reduction
//            (pagerank_lanes_merge_finish, in jobs_pagerank.hpp beside the
//            other pulls' finishing code).
// The adds follow the path, not the timing: the same figures on every run.
//
// Tried: finishing each row where its sums are complete (in the walk, or
// in the carries pass for a row that crossed shares), which drops the
// finish pass and the n x W sums it reads back. On two host cores (Intel
// Xeon VM, 2026-12-04, 4 jobs, 5 repeats, two runs each) it took 0.187 s
// against 0.225 on a 700² grid but 0.28 against 0.25 on Kronecker 18, and
// on a GPU its writes of a vertex's W next contributions would be a
// thread's scattered stores instead of the finish pass's coalesced ones:
// the passes stay as the single job's, whose GPU figures are measured.
#include <tessera/graph/detail/merge_path.hpp>
#include <tessera/graph/detail/pagerank_merge_path.hpp>
#include <tessera/graph/graph_traits.hpp>

#include <cstdint>

namespace tessera::graph::detail {

// The work arrays of a width-W batch's merge-path pull, made once per batch width.
template <int W, class SS>
struct pull_merge_lanes {
  tessera::View<std::int64_t*, SS> offs;                    // n + 1: the in-lists' offsets
  tessera::View<double**, tessera::LayoutRight, SS> sums;   // n x W: a vertex's in-neighbour sums
  tessera::View<double**, tessera::LayoutRight, SS> carry;  // items x W: the open row's sums at the share's end
  tessera::View<std::int64_t*, SS> carry_row;               // items: that row, or -1
  std::int64_t m = 0, per = 0, items = 0;
};

// steps_per_item: 0 for merge_path_steps's default; tests pass small shares.
template <int W, class Exec, class SS, class G>
pull_merge_lanes<W, SS> make_pull_merge_lanes(const G& g, std::int64_t n, std::int64_t steps_per_item = 0) {
  pull_merge_lanes<W, SS> w;
  w.m = make_merge_in_offsets<Exec, SS>(g, n, w.offs);
  w.per = merge_path_steps(steps_per_item, tessera::is_host_execution_space<Exec>::value);
  w.items = (n + w.m + w.per - 1) / w.per;
  w.sums = tessera::View<double**, tessera::LayoutRight, SS>(
      tessera::view_alloc("graph::jobs::pagerank::merge_sums", tessera::WithoutInitializing), n, W);
  w.carry = tessera::View<double**, tessera::LayoutRight, SS>(
      tessera::view_alloc("graph::jobs::pagerank::merge_carry", tessera::WithoutInitializing), w.items, W);
  w.carry_row = tessera::View<std::int64_t*, SS>(
      tessera::view_alloc("graph::jobs::pagerank::merge_carry_row", tessera::WithoutInitializing), w.items);
  return w;
}

// The walk and the carries: sums(v, k) = sum of contrib(u, k) over v's in-neighbours u.
template <int W, class Exec, class G, class Lanes, class SS>
void merge_path_lane_sums(const G& g, const Lanes& contrib, std::int64_t n, const pull_merge_lanes<W, SS>& w) {
  using V = typename graph_traits<G>::vertex_descriptor;
  static_assert(graph_traits<G>::random_access_adjacency,
                "pagerank jobs' merge_path pull indexes in-neighbour lists; this graph's are not random access");
  const auto offs = w.offs;
  const auto sums = w.sums;
  const auto carry = w.carry;
  const auto carry_row = w.carry_row;
  const std::int64_t m = w.m, per = w.per, items = w.items;
  tessera::parallel_for(
      "graph::jobs::pagerank::merge_walk", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, items, 1),
      TESSERA_LAMBDA(std::int64_t c) {
        const std::int64_t d0 = c * per, d1 = d0 + per < n + m ? d0 + per : n + m;
        std::int64_t i = merge_path_row(offs, n, m, d0);
        std::int64_t j = d0 - i;  // edges taken before this share
        std::int64_t left = d1 - d0;
        double s[W];
        for (int k = 0; k < W; ++k) s[k] = 0.0;
        while (left > 0 && i < n) {
          const std::int64_t begin = offs(i), end = offs(i + 1);
          const std::int64_t take = end - j < left ? end - j : left;
          if (take > 0) {
            const auto in = in_adjacent_vertices(V(i), g);
            for (std::int64_t q = j - begin; q < j - begin + take; ++q) {
              const double* row = &contrib(in[q], 0);
              for (int k = 0; k < W; ++k) s[k] += row[k];
            }
            j += take;
            left -= take;
          }
          if (left > 0) {  // j == end: the next step ends row i, in this share
            for (int k = 0; k < W; ++k) {
              sums(i, k) = s[k];
              s[k] = 0.0;
            }
            ++i;
            --left;
          }
        }
        carry_row(c) = i < n ? i : -1;
        for (int k = 0; k < W; ++k) carry(c, k) = s[k];
      });
  // carry_row is nondecreasing over the items (then -1 where the path has
  // ended), so each row's carries are one run of consecutive items.
  constexpr std::int64_t K = kMergeCarryBlock;
  if (items > 1) {
    tessera::parallel_for(
        "graph::jobs::pagerank::merge_carry_blocks", tessera::RangePolicy<Exec>(0, items),
        TESSERA_LAMBDA(std::int64_t c) {
          const std::int64_t r = carry_row(c);
          // none, or not the first of its run's part in this block
          if (r < 0 || (c % K != 0 && carry_row(c - 1) == r)) return;
          const std::int64_t block_end = (c / K + 1) * K < items ? (c / K + 1) * K : items;
          double t[W];
          for (int k = 0; k < W; ++k) t[k] = carry(c, k);
          for (std::int64_t q = c + 1; q < block_end && carry_row(q) == r; ++q)
            for (int k = 0; k < W; ++k) t[k] += carry(q, k);
          // Only this thread reads the carries of this part: it keeps their sums in the first.
          for (int k = 0; k < W; ++k) carry(c, k) = t[k];
        });
  }
  tessera::parallel_for(
      "graph::jobs::pagerank::merge_carries", tessera::RangePolicy<Exec>(0, items), TESSERA_LAMBDA(std::int64_t c) {
        const std::int64_t r = carry_row(c);
        if (r < 0 || (c > 0 && carry_row(c - 1) == r)) return;  // none, or not the first of its run
        // The run's part in its first block, then its parts in the later
        // blocks, which start at those blocks' first items.
        double t[W];
        for (int k = 0; k < W; ++k) t[k] = carry(c, k);
        for (std::int64_t b = c / K + 1; b * K < items && carry_row(b * K) == r; ++b)
          for (int k = 0; k < W; ++k) t[k] += carry(b * K, k);
        // The row ends in the item after the run, which wrote its last part.
        for (int k = 0; k < W; ++k) sums(r, k) = t[k] + sums(r, k);
      });
}

}  // namespace tessera::graph::detail
