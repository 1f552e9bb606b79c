#pragma once
// PageRank by power iteration.
//
//   vertex_property_map<G, double> ranks(g);     // or float: half the memory traffic
//   int iters = pagerank(g, ranks, 0.85, 1e-9, 100);
//
// r'(v) = (1-d)/n + d * ( sum over in-edges (u -> v) of r(u)/outdeg(u) + dangling/n )
// where dangling is the rank held by vertices without out-edges (spread
// evenly, so ranks always sum to 1). Stops when sum |r' - r| < tolerance or
// after max_iterations; returns the iterations run. Ranks may be float or
// double; sums are accumulated in double either way.
//
// Graphs with in-edges (undirected, bidirectional) pull: one pass per
// iteration in which each vertex sums its in-neighbours' contributions
// r(u)/outdeg(u), without atomics (deterministic), and at once writes its own
// contribution for the next iteration and adds to the next dangling mass, so
// no separate pass over the vertices is needed; the in-neighbour sum keeps
// four partial sums (the adds, not memory, would bound one running sum) and,
// on host spaces, prefetches the contributions 32 in-edges ahead.
// Plain directed graphs push with atomic adds.
//
// On a GPU the pull's two sums stay on the device: they are reduced into
// device Views, a one-thread kernel applies the stopping rule and computes
// the next iteration's base there, and an iteration launched after
// convergence does nothing; the host reads the state every 8 iterations
// rather than after each (one blocking round trip per iteration, a few tens
// of microseconds each, was the loop's price). Same arithmetic, iterates and
// iteration count as the host's per-iteration reads (PullSums below).
#include <tessera/graph/detail/pagerank_merge_path.hpp>
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/primitives.hpp>
#include <tessera/graph/property_map.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

namespace tessera::graph {

namespace detail {
// Sum of c(u) over a range of vertices, accumulated in A. On random-access
// ranges four partial sums run side by side: one running sum makes every
// edge wait for the previous add (4 cycles), which, not memory, would bound
// the pull. On host code, when c(u) is a reference (a View), the values
// 32 positions ahead are prefetched: they are gathered at random from an
// array larger than L2 (4 MB of floats at 2^20 vertices), and the
// out-of-order window alone keeps too few of those loads in flight
// (interleaved A/B on a Kronecker graph of 2^20 vertices: 0.83x the time
// per iteration at 1 thread, 0.92x at 2; distance 16 gave 0.87x / 0.93x).
template <class A, bool RandomAccess, class R, class C>
TESSERA_INLINE_FUNCTION A sum_of(const R& range, const C& c) {
  if constexpr (RandomAccess) {
    const std::int64_t d = range.size();
    A s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    std::int64_t k = 0;
    for (; k + 4 <= d; k += 4) {
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
      if constexpr (std::is_lvalue_reference_v<decltype(c(range[k]))>) {
        constexpr std::int64_t ahead = 32;
        if (k + ahead + 4 <= d) {
          __builtin_prefetch(&c(range[k + ahead]));
          __builtin_prefetch(&c(range[k + ahead + 1]));
          __builtin_prefetch(&c(range[k + ahead + 2]));
          __builtin_prefetch(&c(range[k + ahead + 3]));
        }
      }
#endif
      s0 += A(c(range[k]));
      s1 += A(c(range[k + 1]));
      s2 += A(c(range[k + 2]));
      s3 += A(c(range[k + 3]));
    }
    for (; k < d; ++k) s0 += A(c(range[k]));
    return (s0 + s1) + (s2 + s3);
  } else {
    A s = 0;
    for (auto u : range) s += A(c(u));
    return s;
  }
}

// How the pull pass hands out vertices. vertex_blocks: a work item is 1024
// consecutive vertices, so that the two sums stay in registers across the
// block (host spaces: few threads, each with a long run). vector_lanes: a
// team member per vertex, whose vector lanes split its in-edges (GPUs: a
// block of 1024 vertices per thread would leave all but a few thousand
// threads idle, walk hubs on one thread and load neighbour lists one lane
// at a time; the lanes of a warp reading one list read it coalesced). A
// graph whose in-neighbour lists are not random access (a subgraph_adapter's
// masked lists) takes vertex_blocks on a GPU too, one vertex per block there.
// merge_path: equal shares of the in-lists' rows and edges per work item
// (detail/pagerank_merge_path.hpp), the GPU's default since an H200 run
// (2026-12-04): 0.88 ms per iteration on Kronecker 21 against vector_lanes'
// 2.84, and 0.83 against 1.78 on the hub-free 2048^2 grid. vector_lanes
// stays the pull of the multi-job form (jobs_pagerank.hpp), which has no
// merge-path variant.
enum class PullSchedule { vertex_blocks, vector_lanes, merge_path };
template <class Exec>
inline constexpr PullSchedule default_pull_schedule =
    is_host_execution_space<Exec>::value ? PullSchedule::vertex_blocks : PullSchedule::merge_path;
template <class G>
inline constexpr PullSchedule pull_schedule_for =
    graph_traits<G>::random_access_adjacency ? default_pull_schedule<typename G::execution_space>
                                             : PullSchedule::vertex_blocks;
// The pull of a set of PageRank jobs (graph_jobs.hpp): the single job's,
// but vector_lanes where that is merge_path: the job sets' merge-path pull
// (detail/jobs_pagerank_merge_path.hpp) waits for a GPU run to say whether
// it beats the vector lanes for a batch, which already read W values an edge.
template <class G>
inline constexpr PullSchedule jobs_pull_schedule_for =
    pull_schedule_for<G> == PullSchedule::merge_path ? PullSchedule::vector_lanes : pull_schedule_for<G>;

// Where the pull's per-iteration sums (sum |r' - r|, the next dangling mass)
// live. host: reduced into host doubles and tested on the host after every
// iteration. device: reduced into device Views; a one-thread kernel counts
// the iteration, tests the stopping rule and writes the next base, and the
// pull of an iteration after convergence does nothing, so the host reads the
// state only every pull_sums_check_every iterations. Both give the same
// iterates and iteration count (tests run both on every space).
enum class PullSums { host, device };
template <class Exec>
inline constexpr PullSums default_pull_sums =
    is_host_execution_space<Exec>::value ? PullSums::host : PullSums::device;
// Iterations launched between two reads of the device state: after
// convergence at most this many minus one pulls run and return at once.
inline constexpr int pull_sums_check_every = 8;

// The pull's base (1-d)/n + d * dangling/n, and whether to skip the pull
// (converged already): a host value, or read from the device state.
struct pull_base_value {
  double value;
  TESSERA_INLINE_FUNCTION double base() const { return value; }
  TESSERA_INLINE_FUNCTION bool skip() const { return false; }
};
// state(0): base of the next iteration, state(1): 1 once converged,
// state(2): iterations run (exact in a double), state(3): dangling mass.
template <class StateView>
struct pull_base_state {
  StateView state;
  TESSERA_INLINE_FUNCTION double base() const { return state(0); }
  TESSERA_INLINE_FUNCTION bool skip() const { return state(1) != 0.0; }
};

// Hubs in the vector_lanes pull. One warp per vertex walks a hub's in-edges
// 32 at a time, one dependent gather after another: on Kronecker 21 (a hub
// of over 10^5 in-edges) that one warp was the iteration's critical path
// (5.5 ms per iteration on an H200, against 0.6 ms for cuSPARSE's SpMV). A
// vertex of at least kPullHubDegree in-edges has its list cut into chunks
// of kPullHubChunk, each summed by a whole team (a GPU block) in a pass
// before the pull; the pull then sums the vertex's chunk sums instead of its
// edges. Sums of chunks in a fixed order: the result does not depend on
// timing. Built once per pagerank call (a scan over the vertices).
inline constexpr std::int64_t kPullHubDegree = 4096;
inline constexpr std::int64_t kPullHubChunk = 2048;

template <class SS>
struct pull_hubs {
  tessera::View<std::int64_t*, SS> first_chunk;   // n + 1: chunks of the hubs before v
  tessera::View<std::int64_t*, SS> chunk_vertex;  // a chunk's vertex
  tessera::View<double*, SS> partial;             // a chunk's share of its vertex's sum
  std::int64_t chunks = 0;                        // 0: no hub (the Views are empty)
};

template <class Exec, class SS, class G>
pull_hubs<SS> make_pull_hubs(const G& g, std::int64_t n) {
  using V = typename graph_traits<G>::vertex_descriptor;
  tessera::View<std::int64_t*, SS> first(tessera::view_alloc("graph::pagerank::hub_first_chunk", tessera::WithoutInitializing),
                                         n + 1);
  std::int64_t total = 0;
  tessera::parallel_scan(
      "graph::pagerank::hub_chunks", tessera::RangePolicy<Exec>(0, n + 1),
      TESSERA_LAMBDA(std::int64_t v, std::int64_t & acc, bool final) {
        if (final) first(v) = acc;
        if (v < n) {
          const std::int64_t d = std::int64_t(in_adjacent_vertices(V(v), g).size());
          acc += d >= kPullHubDegree ? (d + kPullHubChunk - 1) / kPullHubChunk : 0;
        }
      },
      total);
  pull_hubs<SS> h;
  if (total == 0) return h;
  h.chunks = total;
  h.first_chunk = first;
  h.chunk_vertex = tessera::View<std::int64_t*, SS>(
      tessera::view_alloc("graph::pagerank::hub_chunk_vertex", tessera::WithoutInitializing), total);
  h.partial = tessera::View<double*, SS>(tessera::view_alloc("graph::pagerank::hub_partial", tessera::WithoutInitializing),
                                         total);
  const auto cv = h.chunk_vertex;
  tessera::parallel_for(
      "graph::pagerank::hub_chunk_vertices", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) {
        for (std::int64_t c = first(v); c < first(v + 1); ++c) cv(c) = v;
      });
  return h;
}

// The hubs' chunk sums of one iteration (before its pull), a team per chunk.
template <class Exec, class G, class CV, class Base, class SS>
void pull_hub_chunks(const G& g, const CV& contrib, const Base& pull_base, const pull_hubs<SS>& hubs) {
  using V = typename graph_traits<G>::vertex_descriptor;
  using Policy = tessera::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  if (hubs.chunks == 0) return;
  const auto first = hubs.first_chunk;
  const auto cv = hubs.chunk_vertex;
  const auto partial = hubs.partial;
  // A GPU block of 8 x 32 threads, 8 edges each; one thread on a host space.
  const Policy policy = is_host_execution_space<Exec>::value ? Policy(hubs.chunks, 1, 1) : Policy(hubs.chunks, 8, 32);
  tessera::parallel_for(
      "graph::pagerank::pull_hubs", policy, TESSERA_LAMBDA(const Member& m) {
        if (pull_base.skip()) return;
        const std::int64_t c = m.league_rank();
        const std::int64_t v = cv(c);
        const auto in = in_adjacent_vertices(V(v), g);
        const std::int64_t lo = (c - first(v)) * kPullHubChunk;
        const std::int64_t len = std::int64_t(in.size()) - lo < kPullHubChunk ? std::int64_t(in.size()) - lo : kPullHubChunk;
        double s = 0;
        tessera::parallel_reduce(
            tessera::TeamVectorRange(m, len), [&](std::int64_t k, double& acc) { acc += double(contrib(in[lo + k])); }, s);
        tessera::single(tessera::PerTeam(m), [&]() { partial(c) = s; });
      });
}

// The arrays a schedule's pull needs, made once per pagerank call.
template <PullSchedule Schedule, class Exec, class SS, class G>
auto make_pull_work(const G& g, std::int64_t n) {
  if constexpr (Schedule == PullSchedule::merge_path) return make_pull_merge<Exec, SS>(g, n);
  else if constexpr (Schedule == PullSchedule::vector_lanes) return make_pull_hubs<Exec, SS>(g, n);
  else return pull_hubs<SS>{};
}

// One pull iteration: r(v) = base + damping * sum over in-neighbours u of
// contrib(u); writes contrib_next(v) = r(v) / outdeg(v) (0 without
// out-edges) and returns, through the reducers, sum |r' - r| and the
// rank of vertices without out-edges. Base: pull_base_value or
// pull_base_state (then a converged state makes the pass do nothing).
//
// Work: the schedule's arrays, made once per call (make_pull_work): the hubs'
// chunks for vector_lanes (pull_hubs), the merge path's for merge_path
// (pull_merge), nothing used for vertex_blocks.
template <PullSchedule Schedule, class Exec, class G, class RV, class CV, class Base, class DiffR, class DanglingR,
          class Work>
void pull_iteration(const G& g, const RV& r, const CV& contrib, const CV& contrib_next, const Base& pull_base,
                    double damping, std::int64_t n, const DiffR& diff, const DanglingR& dangling_next,
                    const Work& work) {
  using V = typename graph_traits<G>::vertex_descriptor;
  using T = typename RV::non_const_value_type;
  if constexpr (Schedule == PullSchedule::merge_path) {
    merge_path_in_sums<Exec>(g, contrib, pull_base, n, work);
    const auto sums = work.sums;
    tessera::parallel_reduce(
        "graph::pagerank::merge_finish", tessera::RangePolicy<Exec>(0, n),
        TESSERA_LAMBDA(std::int64_t vi, double& l1, double& dsum) {
          if (pull_base.skip()) return;
          const T x = T(pull_base.base() + damping * sums(vi));
          l1 += std::fabs(double(x) - double(r(vi)));
          r(vi) = x;
          const std::int64_t d = out_degree(V(vi), g);
          contrib_next(vi) = d > 0 ? x / T(d) : T(0);
          dsum += d > 0 ? 0.0 : double(x);
        },
        diff, dangling_next);
  } else if constexpr (Schedule == PullSchedule::vertex_blocks) {
    // Work items are blocks of vertices, so the two sums stay in registers
    // across a block instead of going through the reduction's memory (host
    // spaces); on a GPU one vertex each, or a few thousand threads would
    // walk them all.
    constexpr std::int64_t block = is_host_execution_space<Exec>::value ? 1024 : 1;
    tessera::parallel_reduce(
        "graph::pagerank::pull",
        tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, (n + block - 1) / block, 1),
        TESSERA_LAMBDA(std::int64_t bi, double& l1_out, double& dsum_out) {
          if (pull_base.skip()) return;
          const double base = pull_base.base();
          double l1 = 0, dsum = 0;
          const std::int64_t hi = (bi + 1) * block < n ? (bi + 1) * block : n;
          for (std::int64_t vi = bi * block; vi < hi; ++vi) {
            // Sums in double, also for float ranks (float partial sums
            // measured slower here: the compiler turns them into gathers).
            const double s =
                detail::sum_of<double, graph_traits<G>::random_access_adjacency>(in_adjacent_vertices(V(vi), g), contrib);
            const T x = T(base + damping * s);
            l1 += std::fabs(double(x) - double(r(vi)));
            r(vi) = x;
            // Selects, not branches: which vertices have no out-edges
            // follows no pattern a branch predictor could learn (40% of a
            // Kronecker graph's, scattered).
            const std::int64_t d = out_degree(V(vi), g);
            const T c = x / T(d > 0 ? d : 1);
            contrib_next(vi) = d > 0 ? c : T(0);
            dsum += d > 0 ? 0.0 : double(x);
          }
          l1_out += l1;
          dsum_out += dsum;
        },
        diff, dangling_next);
  } else {
    static_assert(graph_traits<G>::random_access_adjacency,
                  "pagerank's vector_lanes pull indexes in-neighbour lists; this graph's are not random access");
    using Policy = tessera::TeamPolicy<Exec>;
    using Member = typename Policy::member_type;
    const int lanes = lanes_for_average_degree<Policy>(std::int64_t(num_edges(g)) * (graph_traits<G>::is_undirected ? 2 : 1), n);
    // A GPU block of 256 threads: 256 / lanes vertices at a time. Host
    // spaces (tests) take one vertex per team, its lanes a SIMD loop.
    const int ranks = is_host_execution_space<Exec>::value ? 1 : 256 / lanes;
    const pull_hubs<typename G::space_type>& hubs = work;
    pull_hub_chunks<Exec>(g, contrib, pull_base, hubs);
    const bool have_hubs = hubs.chunks > 0;
    const auto first = hubs.first_chunk;
    const auto partial = hubs.partial;
    // Each team rank strides over the vertices on its own (striding_league:
    // a team per group of `ranks` vertices made each group wait for its
    // longest in-list on a GPU).
    const std::int64_t league = striding_league<Exec>(n, ranks, lanes);
    const std::int64_t stride = league * ranks;
    tessera::parallel_reduce(
        "graph::pagerank::pull", Policy(league, ranks, lanes),
        TESSERA_LAMBDA(const Member& m, double& l1_out, double& dsum_out) {
          if (pull_base.skip()) return;
          const double base = pull_base.base();
          double l1 = 0, dsum = 0;  // lane 0's are the rank's
          for (std::int64_t v = std::int64_t(m.league_rank()) * m.team_size() + m.team_rank(); v < n; v += stride) {
            const auto in = in_adjacent_vertices(V(v), g);
            double s = 0;
            if (have_hubs && std::int64_t(in.size()) >= kPullHubDegree) {
              const std::int64_t c0 = first(v);
              tessera::parallel_reduce(
                  tessera::ThreadVectorRange(m, first(v + 1) - c0),
                  [&](std::int64_t k, double& acc) { acc += partial(c0 + k); }, s);
            } else {
              tessera::parallel_reduce(
                  tessera::ThreadVectorRange(m, std::int64_t(in.size())),
                  [&](std::int64_t k, double& acc) { acc += double(contrib(in[k])); }, s);
            }
            tessera::single(tessera::PerThread(m), [&]() {
              const T x = T(base + damping * s);
              l1 += std::fabs(double(x) - double(r(v)));
              r(v) = x;
              const std::int64_t d = out_degree(V(v), g);
              contrib_next(v) = d > 0 ? x / T(d) : T(0);
              dsum += d > 0 ? 0.0 : double(x);
            });
          }
          tessera::single(tessera::PerThread(m), [&]() {
            l1_out += l1;
            dsum_out += dsum;
          });
        },
        diff, dangling_next);
  }
}

// The iteration loop of pagerank_with for PullSums::device, from the initial
// contributions and dangling mass (`base0`: the first iteration's base,
// computed on the host as the host loop computes it). Returns the
// iterations run, counted on the device.
template <PullSchedule Schedule, class Exec, class SS, class G, class RV, class CV, class Work>
int pagerank_device_sums(const G& g, const RV& r, CV contrib, CV contrib_next, double base0, double dangling0,
                         double damping, double tolerance, int max_iterations, std::int64_t n, const Work& work) {
  tessera::View<double*, SS> state("graph::pagerank::state", 4);
  tessera::View<double, SS> diff("graph::pagerank::diff"), dnext("graph::pagerank::dangling_next");
  const double inv_n = 1.0 / double(n);
  tessera::parallel_for(
      "graph::pagerank::seed", tessera::RangePolicy<Exec>(0, 1), TESSERA_LAMBDA(std::int64_t) {
        state(0) = base0;
        state(1) = 0.0;
        state(2) = 0.0;
        state(3) = dangling0;
      });
  const pull_base_state<tessera::View<double*, SS>> pull_base{state};
  auto seen = tessera::create_mirror_view(tessera::HostSpace(), state);
  int launched = 0;
  while (launched < max_iterations) {
    const int batch = std::min(pull_sums_check_every, max_iterations - launched);
    for (int k = 0; k < batch; ++k) {
      pull_iteration<Schedule, Exec>(g, r, contrib, contrib_next, pull_base, damping, n, tessera::Sum<double, SS>(diff),
                                     tessera::Sum<double, SS>(dnext), work);
      // The host loop's bookkeeping, on the device: count the iteration,
      // take the next dangling mass and base, test the stopping rule.
      tessera::parallel_for(
          "graph::pagerank::step", tessera::RangePolicy<Exec>(0, 1), TESSERA_LAMBDA(std::int64_t) {
            if (state(1) != 0.0) return;
            state(2) += 1.0;
            state(3) = dnext();
            state(0) = (1.0 - damping) * inv_n + damping * state(3) * inv_n;
            if (diff() < tolerance) state(1) = 1.0;
          });
      std::swap(contrib, contrib_next);
    }
    launched += batch;
    tessera::deep_copy(seen, state);
    if (seen(1) != 0.0) break;
  }
  tessera::deep_copy(seen, state);
  return int(seen(2));
}

// pagerank() with the pull schedule and where its sums live named (tests
// run the GPU's choices on host spaces).
template <PullSchedule Schedule, PullSums Sums, class G, class T, class S>
int pagerank_with(const G& g, const vertex_property_map<G, T, S>& ranks, double damping, double tolerance,
                  int max_iterations);
template <PullSchedule Schedule, class G, class T, class S>
int pagerank_with(const G& g, const vertex_property_map<G, T, S>& ranks, double damping, double tolerance,
                  int max_iterations) {
  return pagerank_with<Schedule, default_pull_sums<typename G::execution_space>>(g, ranks, damping, tolerance,
                                                                                 max_iterations);
}

}  // namespace detail

template <class G, class T, class S>
int pagerank(const G& g, const vertex_property_map<G, T, S>& ranks, double damping = 0.85, double tolerance = 1e-6,
             int max_iterations = 100) {
  return detail::pagerank_with<detail::pull_schedule_for<G>>(g, ranks, damping, tolerance, max_iterations);
}

template <detail::PullSchedule Schedule, detail::PullSums Sums, class G, class T, class S>
int detail::pagerank_with(const G& g, const vertex_property_map<G, T, S>& ranks, double damping, double tolerance,
                          int max_iterations) {
  static_assert(std::is_floating_point_v<T>, "pagerank: ranks are float or double");
  using Exec = typename G::execution_space;
  using V = typename graph_traits<G>::vertex_descriptor;
  using SS = typename G::space_type;
  if (ranks.size() != num_vertices(g))
    detail::fail("pagerank: property map '" + ranks.label() + "' has " + std::to_string(ranks.size()) + " values for " +
                 std::to_string(num_vertices(g)) + " vertices");
  if (!(damping >= 0.0 && damping < 1.0)) detail::fail("pagerank: damping " + std::to_string(damping) + " outside [0, 1)");
  if (!(tolerance >= 0.0)) detail::fail("pagerank: tolerance " + std::to_string(tolerance) + " must be >= 0");
  if (max_iterations < 0) detail::fail("pagerank: max_iterations " + std::to_string(max_iterations) + " must be >= 0");
  const std::int64_t n = num_vertices(g);
  if (n == 0) return 0;
  auto r = ranks.view();
  const double inv_n = 1.0 / double(n);
  int it = 0;
  if constexpr (graph_traits<G>::has_in_edges) {
    // Other vertices read only the contributions (double-buffered), so each
    // vertex updates its own rank in place.
    tessera::View<T*, SS> contrib(tessera::view_alloc("graph::pagerank::contrib", tessera::WithoutInitializing), n);
    tessera::View<T*, SS> contrib_next(tessera::view_alloc("graph::pagerank::contrib_next", tessera::WithoutInitializing), n);
    double dangling = 0;
    tessera::parallel_reduce(
        "graph::pagerank::init", tessera::RangePolicy<Exec>(0, n),
        TESSERA_LAMBDA(std::int64_t v, double& dsum) {
          const std::int64_t d = out_degree(V(v), g);
          r(v) = T(inv_n);
          contrib(v) = d > 0 ? T(inv_n / double(d)) : T(0);
          if (d == 0) dsum += inv_n;
        },
        dangling);
    const auto work = detail::make_pull_work<Schedule, Exec, SS>(g, n);
    if constexpr (Sums == detail::PullSums::host) {
      while (it < max_iterations) {
        ++it;
        const double base = (1.0 - damping) * inv_n + damping * dangling * inv_n;
        double diff = 0, dnext = 0;
        detail::pull_iteration<Schedule, Exec>(g, r, contrib, contrib_next, detail::pull_base_value{base}, damping, n,
                                               tessera::Sum<double>(diff), tessera::Sum<double>(dnext), work);
        std::swap(contrib, contrib_next);
        dangling = dnext;
        if (diff < tolerance) break;
      }
      return it;
    } else {
      const double base0 = (1.0 - damping) * inv_n + damping * dangling * inv_n;
      return detail::pagerank_device_sums<Schedule, Exec, SS>(g, r, contrib, contrib_next, base0, dangling, damping,
                                                              tolerance, max_iterations, n, work);
    }
  } else {
    tessera::View<T*, SS> next(tessera::view_alloc("graph::pagerank::next", tessera::WithoutInitializing), n);
    tessera::View<double*, SS> contrib(tessera::view_alloc("graph::pagerank::contrib", tessera::WithoutInitializing), n);
    tessera::View<double*, SS> acc(tessera::view_alloc("graph::pagerank::acc", tessera::WithoutInitializing), n);
    tessera::parallel_for("graph::pagerank::init", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) { r(v) = T(inv_n); });
    while (it < max_iterations) {
      ++it;
      double dangling = 0;
      tessera::parallel_reduce(
          "graph::pagerank::contrib", tessera::RangePolicy<Exec>(0, n),
          TESSERA_LAMBDA(std::int64_t v, double& dsum) {
            const std::int64_t d = out_degree(V(v), g);
            contrib(v) = d > 0 ? double(r(v)) / double(d) : 0.0;
            if (d == 0) dsum += double(r(v));
            acc(v) = 0.0;
          },
          dangling);
      const double base = (1.0 - damping) * inv_n + damping * dangling * inv_n;
      tessera::parallel_for("graph::pagerank::scatter", detail::make_vertex_policy(g, 256), TESSERA_LAMBDA(std::int64_t ui) {
        const double c = contrib(ui);
        for (auto w : adjacent_vertices(V(ui), g)) tessera::atomic_add(&acc(w), c);
      });
      double diff = 0;
      tessera::parallel_reduce(
          "graph::pagerank::finish", tessera::RangePolicy<Exec>(0, n),
          TESSERA_LAMBDA(std::int64_t v, double& l1) {
            const double x = base + damping * acc(v);
            const double old = double(r(v));
            l1 += x > old ? x - old : old - x;
            next(v) = T(x);
          },
          diff);
      std::swap(r, next);
      if (diff < tolerance) break;
    }
    // The last iterate lives in whichever buffer r names now.
    if (r.data() != ranks.view().data()) tessera::deep_copy(ranks.view(), r);
    return it;
  }
}

}  // namespace tessera::graph
