#pragma once
// Shortest-path jobs of a job set, up to 64 in one sweep (graph_jobs.hpp).
//
// Delta-stepping (Meyer and Sanders 2003) with one bucket sequence shared by
// all the jobs of a batch: bucket [lo, lo + delta) is settled for every job
// at once. Vertex v holds a 64-bit word of the jobs for which it waits to be
// relaxed and, side by side (an n x K row-major View), its K distances. A
// round visits the vertices whose word is not zero; for the jobs whose
// distance at v lies in the bucket it reads v's edges once and relaxes every
// such job along each edge (atomic min per job; an improvement sets the job's
// bit at the target). So one read of an adjacency list serves every job
// active at that vertex, which is where K separate runs would each pay it.
//
// The distances are the least fixed point of d(t) = min(d(s) + w(s, t)) over
// the same floating-point sums, so they equal those of
// delta_stepping_shortest_paths and of Dijkstra exactly, in any order of
// relaxation and on every back-end.
//
// How a round spreads the work (the schedule, traversal_options.hpp). Host
// spaces, by default, keep the vertices waiting for each bucket in bins per
// worker (detail/bucket_bins.hpp), as the single-job delta_stepping_shortest_paths
// does: a round relaxes the vertices of the current bucket's bins, each on the
// worker that claims it, and each target a job improved is queued in the bin
// of that job's new bucket. A round costs its frontier's edges, where a
// kernel over every vertex per round paid n word reads each time, and the
// bucket boundaries are the fixed grid floor(d / delta). A device space asked
// for the vertex loop keeps that kernel. Elsewhere (a GPU's automatic choice)
// a round is
// two kernels: the first takes each active vertex's bucket jobs and lists the
// vertex, the second expands the listed vertices' edges by advance's
// balanced schedule. One thread walking a Kronecker hub's 10^4 edges, times
// the jobs active there, was a whole GPU round's time; the list also spares
// the expansion the vertices with nothing to do.
//
// Why the word is cleared before the distances are read: a concurrent
// improvement of d_j(v) sets bit j again after our clear, so v is visited
// again in a later round with the lower distance; read the other way round,
// the improvement could be lost.
#include <tessera/graph/advance.hpp>
#include <tessera/graph/detail/bucket_bins.hpp>
#include <tessera/graph/detail/slot_weights.hpp>
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/primitives.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace tessera::graph::detail {

// The jobs waiting at v whose distance lies in the bucket (in_bucket(d):
// below its end, or at most its index), their bits cleared; 0 when v has
// none there. Every schedule starts a vertex so.
template <class DistMatrix, class WordView, class InBucket>
TESSERA_INLINE_FUNCTION std::uint64_t take_bucket_jobs(const WordView& active, const DistMatrix& dist,
                                                       std::int64_t v, std::int64_t col0,
                                                       const InBucket& in_bucket) {
  using Word = std::uint64_t;
  const Word waiting = load_relaxed(&active(v));
  if (!waiting) return 0;
  Word now = 0;
  for (Word m = waiting; m; m &= m - 1) {
    const int k = lowest_bit(m);
    if (in_bucket(load_relaxed(&dist(v, col0 + k)))) now |= Word(1) << k;
  }
  if (now) tessera::atomic_fetch_and(&active(v), ~now);
  return now;
}

// A bucket given by its end: distances below hi.
struct below_distance {
  double hi;
  TESSERA_INLINE_FUNCTION bool operator()(double d) const { return d < hi; }
};

// Relaxes the jobs of `now` across one edge of weight w into t: per job an
// atomic minimum from from_distance(k), the source's distance (the vertex
// loop's snapshot, or the expansion's live load); the improved jobs' bits
// are set at t after their minima (see the file's comment). Returns the
// improved jobs.
template <class DistMatrix, class WordView, class V, class FromDistance>
TESSERA_INLINE_FUNCTION std::uint64_t relax_jobs_across(const DistMatrix& dist, const WordView& active,
                                                        std::int64_t col0, std::uint64_t now,
                                                        const FromDistance& from_distance, double w,
                                                        const V& t) {
  using Word = std::uint64_t;
  Word improved = 0;
  for (Word m = now; m; m &= m - 1) {
    const int k = lowest_bit(m);
    const double nd = from_distance(k) + w;
    double* dt = &dist(t, col0 + k);
    if (nd < load_relaxed(dt) && nd < tessera::atomic_fetch_min(dt, nd)) improved |= Word(1) << k;
  }
  if (improved) {
    tessera::memory_fence();  // the minimum before the bit
    tessera::atomic_fetch_or(&active(t), improved);
  }
  return improved;
}

// The listed schedule's expansion of one active vertex u along one edge: the
// jobs of u's word `now` (stored by the listing kernel) relaxed across it.
// u's distances are read here, after the listing kernel cleared u's bits
// (the kernel boundary orders the two); a distance lowered since then has
// set u's bit again, so reading the lower value now is a head start on a
// relaxation that will happen anyway.
// Unit: every weight is 1 (run_jobs without a weight map). Such an
// expansion reads no edge index, so advance hands it edges without one
// (graph_traits.hpp) and an undirected CSR's lower slots cost no binary
// search for an index no one reads.
template <bool Unit, class G, class DistMatrix, class WeightView, class WordView>
struct sssp_expand_edge {
  static constexpr bool reads_edge_index = !Unit;
  G g;
  DistMatrix dist;
  WeightView weights;
  WordView now_word, active;
  std::int64_t col0;
  template <class V, class E>
  TESSERA_INLINE_FUNCTION void operator()(const V& u, const E& e) const {
    double w = 1.0;
    if constexpr (!Unit) w = double(weights(get_edge_index(e, g)));
    relax_jobs_across(
        dist, active, col0, now_word(u), [&](int k) { return load_relaxed(&dist(u, col0 + k)); }, w,
        target(e, g));
  }
};

// The vertex loop of sssp_lanes on a host space, its rounds fed by per-worker
// bins (see the file's comment). The distances and words are initialized,
// the sources' bits set; every source is in bucket 0.
//
// Why no job is lost though a vertex is queued once, not once per job: a
// vertex whose word is not zero always has an entry, not yet taken, for a
// bucket between the current one and the least of its waiting jobs'. An
// improvement queues its target for the least bucket among the jobs it
// improved; a take leaves the jobs of later buckets waiting and queues the
// vertex for the least of them; a far vertex moved into the window goes to
// the bucket of its least waiting job. A take that finds nothing queues
// nothing: whoever took the jobs queued what they left.
template <class G, class DistMatrix, class WordView, class WeightView>
void sssp_lanes_host_bins(const G& g, const DistMatrix& dist, const WordView& active, std::int64_t col0,
                          const std::vector<std::int64_t>& sources, const WeightView& weights, bool unit,
                          double delta) {
  using V = typename graph_traits<G>::vertex_descriptor;
  using Word = std::uint64_t;
  tessera::View<double*, typename G::space_type> slot_w;  // detail/slot_weights.hpp
  if constexpr (has_edge_slots_v<G>)
    if (!unit) slot_w = weights_in_slot_order(g, weights);
  const double inv_delta = 1.0 / delta;
  // The bucket of v's least waiting job; no_bucket when it waits for none.
  const auto bucket_now = [&](V v) {
    std::uint64_t k = no_bucket;
    for (Word m = load_relaxed(&active(v)); m; m &= m - 1)
      k = std::min(k, bucket_index(load_relaxed(&dist(v, col0 + lowest_bit(m))), inv_delta));
    return k;
  };
  // v's jobs of bucket b relaxed along its edges; nothing when v has none
  // left there (a repeated or stale entry).
  const auto relax = [&](V v, std::uint64_t b, bucket_bins<V>& bins) {
    const Word now = take_bucket_jobs(active, dist, std::int64_t(v), col0,
                                      [&](double d) { return bucket_index(d, inv_delta) <= b; });
    if (!now) return;
    tessera::memory_fence();  // as in sssp_lanes's loop: the clear before the reads
    double dv[64];
    for (Word m = now; m; m &= m - 1) {
      const int k = lowest_bit(m);
      dv[k] = load_relaxed(&dist(v, col0 + k));
    }
    if (const std::uint64_t later = bucket_now(v); later != no_bucket) bins.push(v, later);
    const auto edges = out_edges(v, g);
    for (auto it = edges.begin(); it != edges.end(); ++it) {
      const double wt = unit ? 1.0 : edge_weight_at(it, g, weights, slot_w);
      const V t = edge_target(it, g);
      const Word improved = relax_jobs_across(
          dist, active, col0, now, [&](int k) { return dv[k]; }, wt, t);
      if (improved) {
        std::uint64_t k = no_bucket;
        for (Word m = improved; m; m &= m - 1)
          k = std::min(k, bucket_index(dv[lowest_bit(m)] + wt, inv_delta));
        bins.push(t, k);
      }
    }
  };
  std::vector<V> bucket0;
  for (const auto s : sources) bucket0.push_back(V(s));
  run_bucket_rounds(g, std::move(bucket0), relax, bucket_now);
}

// Jobs col0 .. col0+count-1 (count <= 64) of the distance matrix (n x S),
// from sources[k]; weights: the edge weight View (one per edge index), or
// none (every weight 1) when unit is true. opts: the schedule (above).
template <class G, class DistMatrix, class WeightView>
void sssp_lanes(const G& g, const DistMatrix& dist, std::int64_t col0, int count,
                const std::vector<std::int64_t>& sources, const WeightView& weights, bool unit, double delta,
                const traversal_options& opts = {}) {
  using Exec = typename G::execution_space;
  using V = typename graph_traits<G>::vertex_descriptor;
  using SS = typename G::space_type;
  using Word = std::uint64_t;
  constexpr double inf = std::numeric_limits<double>::max();
  const std::int64_t n = num_vertices(g);
  if (n == 0 || count == 0) return;
  tessera::View<Word*, SS> active("graph::jobs::sssp::active", n);
  tessera::parallel_for(
      "graph::jobs::sssp::init", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) {
        for (int k = 0; k < count; ++k) dist(v, col0 + k) = inf;
      });
  auto src = to_space<std::int64_t, SS>("graph::jobs::sssp::sources", sources);
  tessera::parallel_for(
      "graph::jobs::sssp::sources", tessera::RangePolicy<Exec>(0, 1), TESSERA_LAMBDA(std::int64_t) {
        for (int k = 0; k < count; ++k) {
          dist(src(k), col0 + k) = 0.0;
          active(src(k)) |= Word(1) << k;
        }
      });
  const bool listed = resolve_schedule<G>(opts) != edge_schedule::vertex_loop;
  if constexpr (tessera::is_host_execution_space<Exec>::value) {
    if (!listed) return sssp_lanes_host_bins(g, dist, active, col0, sources, weights, unit, delta);
  }
  // The listed schedule's state: each listed vertex's jobs of this round,
  // the list and its fill count.
  tessera::View<Word*, SS> now_word;
  tessera::View<V*, SS> list;
  tessera::View<std::int64_t*, SS> list_fill;  // one counter
  if (listed) {
    now_word = tessera::View<Word*, SS>(
        tessera::view_alloc("graph::jobs::sssp::now", tessera::WithoutInitializing), n);
    list = tessera::View<V*, SS>(tessera::view_alloc("graph::jobs::sssp::list", tessera::WithoutInitializing),
                                 n);
    list_fill = tessera::View<std::int64_t*, SS>("graph::jobs::sssp::list_fill", 1);
  }
  // The vertex loop reads the weights in slot order (detail/slot_weights.hpp).
  // (A device space's: a host space's vertex loop took the bins above.)
  tessera::View<double*, SS> slot_w;
  if constexpr (has_edge_slots_v<G>)
    if (!listed && !unit) slot_w = weights_in_slot_order(g, weights);
  double lo = 0;
  for (;;) {
    // A bucket always moves on: a width below lo's rounding step would
    // leave hi == lo and nothing below it to relax, forever.
    const double hi = lo + delta > lo ? lo + delta : std::nextafter(lo, inf);
    for (;;) {
      if (listed) {
        // Each active vertex's bucket jobs, its bits cleared and the vertex
        // listed; then the listed vertices' edges, balanced.
        const auto nw = now_word;
        const auto li = list;
        const auto lf = list_fill;
        std::int64_t listed_count = 0;
        tessera::parallel_reduce(
            "graph::jobs::sssp::take", tessera::RangePolicy<Exec>(0, n),
            TESSERA_LAMBDA(std::int64_t vi, std::int64_t & cnt) {
              const Word now = take_bucket_jobs(active, dist, vi, col0, below_distance{hi});
              if (!now) return;
              nw(vi) = now;
              li(tessera::atomic_fetch_add(&lf(0), std::int64_t(1))) = V(vi);
              ++cnt;
            },
            listed_count);
        if (listed_count == 0) break;
        detail::fill<Exec>(lf, std::int64_t(0));
        const frontier_rows<V, decltype(li)> rows{li};
        using NW = decltype(nw);
        if (unit)
          advance_rows(
              "graph::jobs::sssp::expand", g, rows, listed_count,
              sssp_expand_edge<true, G, DistMatrix, WeightView, NW>{g, dist, weights, nw, active, col0},
              opts);
        else
          advance_rows(
              "graph::jobs::sssp::expand", g, rows, listed_count,
              sssp_expand_edge<false, G, DistMatrix, WeightView, NW>{g, dist, weights, nw, active, col0},
              opts);
        continue;
      }
      std::int64_t relaxed = 0;
      tessera::parallel_reduce(
          "graph::jobs::sssp::relax", make_vertex_policy(g, 64),
          TESSERA_LAMBDA(std::int64_t vi, std::int64_t & cnt) {
            const Word now = take_bucket_jobs(active, dist, vi, col0, below_distance{hi});
            if (!now) return;
            // The distances are read after the bits are cleared, and a
            // writer below lowers a distance before it sets the bit: with a
            // fence on each side, a writer whose bit this AND cleared has its
            // distance seen here, and any later writer leaves its bit set.
            // (Tessera's atomics are relaxed: a GPU may complete these loads
            // before the AND, and the writer's OR before its minimum.)
            tessera::memory_fence();
            double dv[64];
            for (Word m = now; m; m &= m - 1) {
              const int k = lowest_bit(m);
              dv[k] = load_relaxed(&dist(vi, col0 + k));
            }
            ++cnt;
            const auto edges = out_edges(V(vi), g);
            for (auto it = edges.begin(); it != edges.end(); ++it) {
              const double w = unit ? 1.0 : edge_weight_at(it, g, weights, slot_w);
              relax_jobs_across(
                  dist, active, col0, now, [&](int k) { return dv[k]; }, w, edge_target(it, g));
            }
          },
          relaxed);
      if (relaxed == 0) break;
    }
    // The next bucket starts at the smallest distance still waiting.
    double next = inf;
    tessera::parallel_reduce(
        "graph::jobs::sssp::next_bucket", tessera::RangePolicy<Exec>(0, n),
        TESSERA_LAMBDA(std::int64_t v, double& m) {
          for (Word w = active(v); w; w &= w - 1) {
            const double d = dist(v, col0 + lowest_bit(w));
            if (d < m) m = d;
          }
        },
        tessera::Min<double>(next));
    if (!(next < inf)) break;
    lo = next > hi ? next : hi;
  }
}

}  // namespace tessera::graph::detail
