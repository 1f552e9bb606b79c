#pragma once
// PageRank's pull on the merge path of the in-lists (PullSchedule::merge_path):
// the in-neighbour sums of one iteration cut into equal shares of rows and
// edges (detail/merge_path.hpp: Merrill & Garland's merge-based SpMV, SC16),
// so that a work item's cost does not depend on the degrees it meets: a hub
// is split over many items, a run of short or empty lists over few. The
// vector_lanes pull gives each vertex a team rank and its lanes; on a
// power-law graph most lists are far shorter than the lanes (the mean degree
// sets them), and the lanes of a rank wait on one short list after another.
//
// Three passes per iteration:
//   walk     item c sums the edges of steps [c per, (c + 1) per): a row that
//            ends in its share gets the sum of its edges there in sums(row);
//            the row still open at the share's end leaves (row, sum) as the
//            item's carry;
//   carries  a row open over several items (a hub) leaves a run of carries;
//            they are added in two steps so that no thread walks a long run
//            alone (a hub of D in-edges is open over D / 32 items on a GPU:
//            3,000 dependent adds on one thread for Kronecker 21's largest
//            vertex, ~10^5 for a billion-edge graph's): first, in blocks of
//            kMergeCarryBlock items, the first item of each run's part in a
//            block adds that part, in item order, into its own carry; then
//            the first item of each run adds the parts (one per block the
//            run meets, in block order) to that row's sums entry;
//   finish   per vertex, as the other pulls: r(v), its next contribution,
//            sum |r' - r| and the next dangling mass.
// The sums are added in a fixed order (the items' shares do not depend on
// timing), so the result is the same on every run; it differs from the
// other schedules' by rounding (another order of the same adds).
#include <tessera/graph/detail/merge_path.hpp>
#include <tessera/graph/detail/util.hpp>
#include <tessera/graph/graph_traits.hpp>

#include <cmath>
#include <cstdint>

namespace tessera::graph::detail {

// Items per block of the carries' first step: a run is added by at most
// this many adds per block, then one add per block it meets.
inline constexpr std::int64_t kMergeCarryBlock = 64;

// The merge_path pull's work arrays, made once per pagerank call.
template <class SS>
struct pull_merge {
  tessera::View<std::int64_t*, SS> offs;       // n + 1: the in-lists' offsets
  tessera::View<double*, SS> sums;             // n: a vertex's in-neighbour sum
  tessera::View<double*, SS> carry;            // items: the open row's sum at the share's end
  tessera::View<std::int64_t*, SS> carry_row;  // items: that row, or -1
  std::int64_t m = 0;                          // in-edges (the path has n + m steps)
  std::int64_t per = 0;                        // steps per work item
  std::int64_t items = 0;
};

// The merge path's rows: offs (n + 1) gets the in-lists' offsets; returns
// the in-edges, m (the path has n + m steps). The single job's pull and the
// job sets' (jobs_pagerank_merge_path.hpp) walk the same path.
template <class Exec, class SS, class G>
std::int64_t make_merge_in_offsets(const G& g, std::int64_t n, tessera::View<std::int64_t*, SS>& offs_out) {
  using V = typename graph_traits<G>::vertex_descriptor;
  offs_out = tessera::View<std::int64_t*, SS>(
      tessera::view_alloc("graph::pagerank::merge_offsets", tessera::WithoutInitializing), n + 1);
  const auto offs = offs_out;
  tessera::parallel_for(
      "graph::pagerank::merge_degrees", tessera::RangePolicy<Exec>(0, n + 1), TESSERA_LAMBDA(std::int64_t v) {
        offs(v) = v < n ? std::int64_t(in_adjacent_vertices(V(v), g).size()) : 0;
      });
  return exclusive_scan_inplace<Exec>("graph::pagerank::merge_offsets_scan", offs, n);
}

// steps_per_item: 0 for merge_path_steps's default (32 on a GPU, 2,048 on a
// host space); tests pass small shares to put rows across many items.
template <class Exec, class SS, class G>
pull_merge<SS> make_pull_merge(const G& g, std::int64_t n, std::int64_t steps_per_item = 0) {
  pull_merge<SS> w;
  w.m = make_merge_in_offsets<Exec, SS>(g, n, w.offs);
  w.per = merge_path_steps(steps_per_item, tessera::is_host_execution_space<Exec>::value);
  w.items = (n + w.m + w.per - 1) / w.per;
  w.sums = tessera::View<double*, SS>(
      tessera::view_alloc("graph::pagerank::merge_sums", tessera::WithoutInitializing), n);
  w.carry = tessera::View<double*, SS>(
      tessera::view_alloc("graph::pagerank::merge_carry", tessera::WithoutInitializing), w.items);
  w.carry_row = tessera::View<std::int64_t*, SS>(
      tessera::view_alloc("graph::pagerank::merge_carry_row", tessera::WithoutInitializing), w.items);
  return w;
}

// The walk and the carries: sums(v) = sum of contrib(u) over v's in-neighbours u.
template <class Exec, class G, class CV, class Base, class SS>
void merge_path_in_sums(const G& g, const CV& contrib, const Base& pull_base, std::int64_t n,
                        const pull_merge<SS>& w) {
  using V = typename graph_traits<G>::vertex_descriptor;
  static_assert(graph_traits<G>::random_access_adjacency,
                "pagerank's merge_path pull indexes in-neighbour lists; this graph's are not random access");
  const auto offs = w.offs;
  const auto sums = w.sums;
  const auto carry = w.carry;
  const auto carry_row = w.carry_row;
  const std::int64_t m = w.m, per = w.per, items = w.items;
  tessera::parallel_for(
      "graph::pagerank::merge_walk",
      tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, items, 1),
      TESSERA_LAMBDA(std::int64_t c) {
        if (pull_base.skip()) return;
        const std::int64_t d0 = c * per, d1 = d0 + per < n + m ? d0 + per : n + m;
        std::int64_t i = merge_path_row(offs, n, m, d0);
        std::int64_t j = d0 - i;  // edges taken before this share
        std::int64_t left = d1 - d0;
        double s = 0;
        while (left > 0 && i < n) {
          const std::int64_t begin = offs(i), end = offs(i + 1);
          const std::int64_t take = end - j < left ? end - j : left;
          if (take > 0) {
            const auto in = in_adjacent_vertices(V(i), g);
            for (std::int64_t k = j - begin; k < j - begin + take; ++k) s += double(contrib(in[k]));
            j += take;
            left -= take;
          }
          if (left > 0) {  // j == end: the next step ends row i, in this share
            sums(i) = s;
            s = 0;
            ++i;
            --left;
          }
        }
        carry_row(c) = i < n ? i : -1;
        carry(c) = s;
      });
  // carry_row is nondecreasing over the items (then -1 where the path has
  // ended), so each row's carries are one run of consecutive items.
  constexpr std::int64_t K = kMergeCarryBlock;
  if (items > 1) {
    tessera::parallel_for(
        "graph::pagerank::merge_carry_blocks", tessera::RangePolicy<Exec>(0, items),
        TESSERA_LAMBDA(std::int64_t c) {
          if (pull_base.skip()) return;
          const std::int64_t r = carry_row(c);
          // none, or not the first of its run's part in this block
          if (r < 0 || (c % K != 0 && carry_row(c - 1) == r)) return;
          const std::int64_t block_end = (c / K + 1) * K < items ? (c / K + 1) * K : items;
          double t = carry(c);
          for (std::int64_t k = c + 1; k < block_end && carry_row(k) == r; ++k) t += carry(k);
          // Only this thread reads the carries of this part: it keeps their sum in the first.
          carry(c) = t;
        });
  }
  tessera::parallel_for(
      "graph::pagerank::merge_carries", tessera::RangePolicy<Exec>(0, items), TESSERA_LAMBDA(std::int64_t c) {
        if (pull_base.skip()) return;
        const std::int64_t r = carry_row(c);
        if (r < 0 || (c > 0 && carry_row(c - 1) == r)) return;  // none, or not the first of its run
        // The run's part in its first block, then its parts in the later
        // blocks, which start at those blocks' first items.
        double t = carry(c);
        for (std::int64_t b = c / K + 1; b * K < items && carry_row(b * K) == r; ++b) t += carry(b * K);
        // The row ends in the item after the run, which wrote its last part.
        sums(r) = t + sums(r);
      });
}

}  // namespace tessera::graph::detail
