#pragma once
// PageRank jobs of a job set, W at a time in one sweep (graph_jobs.hpp).
//
// Lane k of a batch is one job with its own damping d_k and teleport vector
// p_k (1/n everywhere, or 1/|S| on a personalization set S):
//   r'_k(v) = p_k(v) ((1 - d_k) + d_k dangling_k) + d_k sum over in-edges u->v of r_k(u)/outdeg(u)
// which is tessera::graph::pagerank's formula when p_k is uniform. The
// contributions r_k(u)/outdeg(u) of the W lanes sit side by side (an n x W
// row-major View), so the gather of an in-neighbour brings all W lanes in one
// cache line: the edge sweep, which bounds PageRank, is paid once per batch
// instead of once per job. Each lane stops on its own L1 test (its ranks are
// frozen from then on, the lane's sums still run but are not written), so a
// job stops at the iteration it would stop at alone; once no more than half
// the lanes are live, they move to a batch half as wide (pagerank_lanes_from).
// Unused lanes of a batch (fewer jobs than W) have zero teleport and zero rank.
//
// The pull hands out vertices as tessera::graph::pagerank's does
// (PullSchedule, pagerank.hpp): blocks of 1,024 vertices on host spaces, the
// W sums in registers across a block and the block sums added in block
// order; on a GPU a team member per vertex whose vector lanes split its
// in-edges (coalesced reads of the list; a block of 32 vertices per thread
// left most of the device idle, walked a hub on one thread and copied a
// partial per block, n / 32 x 2W doubles, to the host every iteration), the
// sweep's 2W sums one array reduction. PullSchedule::merge_path cuts the
// in-lists into equal shares of rows and edges instead
// (jobs_pagerank_merge_path.hpp): on request for now, until a GPU run says
// whether it pays for a batch as it does for one job.
#include <tessera/graph/detail/jobs_pagerank_merge_path.hpp>
#include <tessera/graph/detail/util.hpp>
#include <tessera/graph/graph_traits.hpp>
#include <tessera/graph/pagerank.hpp>
#include <tessera/graph/primitives.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace tessera::graph::detail {

// s[k] = sum over the range of c(u, k). On random-access ranges four sets
// of W partial sums take the edges in turn: one set would make every edge
// wait for the previous one's adds (4 cycles), which, not memory, would bound
// the sweep (tessera::graph::pagerank's sum_of does the same for one lane).
template <int W, bool RandomAccess, class R, class C>
TESSERA_INLINE_FUNCTION void lane_sums(const R& range, const C& c, double (&s)[W]) {
  for (int k = 0; k < W; ++k) s[k] = 0.0;
  if constexpr (RandomAccess) {
    const std::int64_t d = range.size();
    double s1[W], s2[W], s3[W];
    for (int k = 0; k < W; ++k) s1[k] = s2[k] = s3[k] = 0.0;
    std::int64_t i = 0;
    for (; i + 4 <= d; i += 4) {
      const double* c0 = &c(range[i], 0);
      const double* c1 = &c(range[i + 1], 0);
      const double* c2 = &c(range[i + 2], 0);
      const double* c3 = &c(range[i + 3], 0);
      for (int k = 0; k < W; ++k) {
        s[k] += c0[k];
        s1[k] += c1[k];
        s2[k] += c2[k];
        s3[k] += c3[k];
      }
    }
    for (; i < d; ++i) {
      const double* ci = &c(range[i], 0);
      for (int k = 0; k < W; ++k) s[k] += ci[k];
    }
    for (int k = 0; k < W; ++k) s[k] = (s[k] + s1[k]) + (s2[k] + s3[k]);
  } else {
    for (auto u : range) {
      const double* cu = &c(u, 0);
      for (int k = 0; k < W; ++k) s[k] += cu[k];
    }
  }
}

// The per-lane constants a PageRank sweep reads. At namespace scope: nvcc
// refuses a type local to a function in a variable its device lambdas capture.
template <int W>
struct pagerank_lane_consts {
  double d[W];           // damping
  double scale[W];       // (1 - d) + d * dangling: times p_k(v) gives the teleport term
  int write[W];          // 1: the lane is a live job whose ranks are still updated
  std::int64_t col[W];   // the lane's column of the rank matrix (read only where write is 1)
};

// The value of each lane's teleport column away from its personalization
// set (1/n, or 0), captured by the kernel that fills the columns.
template <int W>
struct pagerank_lane_fill {
  double value[W];
};

// One vertex's new ranks from the sums s[k] of its in-neighbours'
// contributions: its next contribution, its share of the dangling mass, and
// (for the lanes still written) its rank and L1 change. Shared by the pull
// sweep and the scatter's finishing pass.
template <int W, class Teleport, class Lanes, class RankMatrix>
TESSERA_INLINE_FUNCTION void finish_vertex(std::int64_t v, std::int64_t out_deg, const double (&s)[W],
                                           const pagerank_lane_consts<W>& c, const Teleport& teleport,
                                           const Lanes& contrib_next, const RankMatrix& ranks, double (&l1)[W],
                                           double (&dsum)[W]) {
  const double inv_deg = 1.0 / double(out_deg > 0 ? out_deg : 1);
  for (int k = 0; k < W; ++k) {
    const double x = teleport(v, k) * c.scale[k] + c.d[k] * s[k];
    contrib_next(v, k) = out_deg > 0 ? x * inv_deg : 0.0;
    dsum[k] += out_deg > 0 ? 0.0 : x;
    if (c.write[k]) {
      const double old = ranks(v, c.col[k]);
      l1[k] += std::fabs(x - old);
      ranks(v, c.col[k]) = x;
    }
  }
}

// The W lanes' sums of one vertex as one value, so that a vector reduction
// reads each in-neighbour's row of W contributions once (one pass over the
// list, W accumulators per lane) and combines the W sums in one shuffle
// tree. Sum<job_lane_sums<W>> adds them (its identity: reduction_identity below).
template <int W>
struct job_lane_sums {
  double v[W];
  TESSERA_INLINE_FUNCTION job_lane_sums& operator+=(const job_lane_sums& o) {
    for (int k = 0; k < W; ++k) v[k] += o.v[k];
    return *this;
  }
  // The row of W contributions at `row` added in.
  TESSERA_INLINE_FUNCTION void add_row(const double* row) {
    for (int k = 0; k < W; ++k) v[k] += row[k];
  }
};

}  // namespace tessera::graph::detail

namespace tessera {
// The identity of Sum<job_lane_sums<W>>: every lane 0.
template <int W>
struct reduction_identity<graph::detail::job_lane_sums<W>> {
  TESSERA_FORCEINLINE_FUNCTION static constexpr graph::detail::job_lane_sums<W> sum() { return {}; }
};
}  // namespace tessera

namespace tessera::graph::detail {

// Hubs in the vector_lanes pull, as in pagerank (kPullHubDegree,
// kPullHubChunk, make_pull_hubs): a vertex of at least kPullHubDegree
// in-edges has its list cut into chunks of kPullHubChunk, each summed for
// all W lanes by a whole team (a GPU block) before the pull, which then sums
// the vertex's chunk sums in chunk order.
template <int W, class Exec, class G, class Lanes, class SS, class Partial>
void pull_hub_chunk_lanes(const G& g, const Lanes& contrib, const pull_hubs<SS>& hubs, const Partial& partial) {
  using V = typename graph_traits<G>::vertex_descriptor;
  using Policy = tessera::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  if (hubs.chunks == 0) return;
  const auto first = hubs.first_chunk;
  const auto cv = hubs.chunk_vertex;
  const Policy policy =
      tessera::is_host_execution_space<Exec>::value ? Policy(hubs.chunks, 1, 1) : Policy(hubs.chunks, 8, 32);
  tessera::parallel_for(
      "graph::jobs::pagerank::pull_hubs", policy, TESSERA_LAMBDA(const Member& m) {
        const std::int64_t c = m.league_rank();
        const std::int64_t v = cv(c);
        const auto in = in_adjacent_vertices(V(v), g);
        const std::int64_t lo = (c - first(v)) * kPullHubChunk;
        const std::int64_t len =
            std::int64_t(in.size()) - lo < kPullHubChunk ? std::int64_t(in.size()) - lo : kPullHubChunk;
        job_lane_sums<W> s;
        tessera::parallel_reduce(
            tessera::TeamVectorRange(m, len), [&](std::int64_t k, job_lane_sums<W>& a) { a.add_row(&contrib(in[lo + k], 0)); },
            tessera::Sum<job_lane_sums<W>>(s));
        tessera::single(tessera::PerTeam(m), [&]() {
          for (int k = 0; k < W; ++k) partial(c, k) = s.v[k];
        });
      });
}

// The pull of PullSchedule::vector_lanes: team rank t of league rank l takes
// vertices l * ranks + t, then every `stride` after; per vertex its vector
// lanes sum the W lanes' contributions of its in-edges (a hub: of its chunk
// sums), then lane 0 of the member finishes the vertex. The sweep's sums:
// acc[k] = sum |r'_k - r_k| over the vertices, acc[W + k] = the next
// dangling mass of lane k (an array reduction of 2W doubles). At namespace
// scope: an array reduction needs a functor with value_count.
template <int W, class Exec, class G, class Lanes, class Teleport, class RankMatrix, class Partial>
struct pagerank_lanes_vector_pull {
  using value_type = double[];
  using member_type = typename tessera::TeamPolicy<Exec>::member_type;
  using SS = typename G::space_type;
  int value_count = 2 * W;
  G g;
  Lanes contrib, contrib_next;
  Teleport teleport;
  RankMatrix ranks;
  std::int64_t n = 0, stride = 0;
  pagerank_lane_consts<W> c{};
  bool have_hubs = false;
  tessera::View<std::int64_t*, SS> first_chunk;  // of the hubs (pull_hubs)
  Partial hub_partial;                           // chunks x W

  TESSERA_FUNCTION void operator()(const member_type& m, double* acc) const {
    using V = typename graph_traits<G>::vertex_descriptor;
    double l1[W], dsum[W];  // lane 0's are the member's
    for (int k = 0; k < W; ++k) l1[k] = dsum[k] = 0.0;
    for (std::int64_t v = std::int64_t(m.league_rank()) * m.team_size() + m.team_rank(); v < n; v += stride) {
      const auto in = in_adjacent_vertices(V(v), g);
      const std::int64_t deg = std::int64_t(in.size());
      job_lane_sums<W> sums;
      if (have_hubs && deg >= kPullHubDegree) {
        const std::int64_t c0 = first_chunk(v);
        tessera::parallel_reduce(
            tessera::ThreadVectorRange(m, first_chunk(v + 1) - c0),
            [&](std::int64_t k, job_lane_sums<W>& a) { a.add_row(&hub_partial(c0 + k, 0)); }, tessera::Sum<job_lane_sums<W>>(sums));
      } else {
        tessera::parallel_reduce(
            tessera::ThreadVectorRange(m, deg), [&](std::int64_t j, job_lane_sums<W>& a) { a.add_row(&contrib(in[j], 0)); },
            tessera::Sum<job_lane_sums<W>>(sums));
      }
      tessera::single(tessera::PerThread(m), [&]() {
        finish_vertex<W>(v, out_degree(V(v), g), sums.v, c, teleport, contrib_next, ranks, l1, dsum);
      });
    }
    tessera::single(tessera::PerThread(m), [&]() {
      for (int k = 0; k < W; ++k) {
        acc[k] += l1[k];
        acc[W + k] += dsum[k];
      }
    });
  }
};

// The merge-path pull's finish (jobs_pagerank_merge_path.hpp): per vertex
// its W new ranks from sums(v, .) (finish_vertex), acc[k] = sum |r'_k - r_k|
// and acc[W + k] = the next dangling mass of lane k (an array reduction of
// 2W doubles; at namespace scope, as an array reduction needs a functor
// with value_count).
template <int W, class G, class Lanes, class Teleport, class RankMatrix, class Sums>
struct pagerank_lanes_merge_finish {
  using value_type = double[];
  int value_count = 2 * W;
  G g;
  Lanes contrib_next;
  Teleport teleport;
  RankMatrix ranks;
  Sums sums;
  pagerank_lane_consts<W> c{};

  TESSERA_FUNCTION void operator()(std::int64_t v, double* acc) const {
    using V = typename graph_traits<G>::vertex_descriptor;
    double s[W], l1[W], dsum[W];
    for (int k = 0; k < W; ++k) {
      s[k] = sums(v, k);
      l1[k] = dsum[k] = 0.0;
    }
    finish_vertex<W>(v, out_degree(V(v), g), s, c, teleport, contrib_next, ranks, l1, dsum);
    for (int k = 0; k < W; ++k) {
      acc[k] += l1[k];
      acc[W + k] += dsum[k];
    }
  }
};

// The jobs of a batch as they move to narrower widths: lane k runs job
// job[k] of the batch (-1: an unused lane), with that job's damping and the
// dangling mass of its current iterate.
struct pagerank_lane_jobs {
  std::vector<int> job;
  std::vector<double> damping, dangling;
};

// Which lane of the wider batch each lane of a narrower one takes (-1: none),
// captured by the kernel that moves them. At namespace scope for nvcc.
template <int W>
struct pagerank_lane_source {
  int lane[W];
};

template <int W, PullSchedule Schedule, class G, class RankMatrix, class Lanes, class Teleport>
void pagerank_lanes_from(const G& g, const RankMatrix& ranks, std::int64_t col0, const pagerank_lane_jobs& jobs,
                         Lanes contrib, const Teleport& teleport, double tolerance, int max_iterations,
                         int first_iteration, std::vector<int>& iterations, std::int64_t merge_steps_per_item);

// Moves the lanes still written (lc.write) of a width-W batch, in lane order,
// to a batch of width W / 2 and runs it from next_iteration on.
template <int W, PullSchedule Schedule, class G, class RankMatrix, class Lanes, class Teleport>
void pagerank_lanes_narrow(const G& g, const RankMatrix& ranks, std::int64_t col0, const pagerank_lane_jobs& jobs,
                           const pagerank_lane_consts<W>& lc, const double (&dangling)[W], const Lanes& contrib,
                           const Teleport& teleport, double tolerance, int max_iterations, int next_iteration,
                           std::vector<int>& iterations, std::int64_t merge_steps_per_item) {
  using Exec = typename G::execution_space;
  using SS = typename G::space_type;
  constexpr int H = W / 2;
  const std::int64_t n = num_vertices(g);
  pagerank_lane_jobs narrow;
  pagerank_lane_source<H> from{};
  for (int k = 0; k < W; ++k) {
    if (!lc.write[k]) continue;
    from.lane[narrow.job.size()] = k;
    narrow.job.push_back(jobs.job[std::size_t(k)]);
    narrow.damping.push_back(lc.d[k]);
    narrow.dangling.push_back(dangling[k]);
  }
  for (int k = int(narrow.job.size()); k < H; ++k) {
    from.lane[k] = -1;
    narrow.job.push_back(-1);
    narrow.damping.push_back(0.0);
    narrow.dangling.push_back(0.0);
  }
  Lanes contrib_h(tessera::view_alloc("graph::jobs::pagerank::contrib", tessera::WithoutInitializing), n, H);
  tessera::View<double**, tessera::LayoutRight, SS> teleport_h(
      tessera::view_alloc("graph::jobs::pagerank::teleport", tessera::WithoutInitializing), n, H);
  tessera::parallel_for(
      "graph::jobs::pagerank::narrow", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) {
        for (int k = 0; k < H; ++k) {
          const int f = from.lane[k];
          contrib_h(v, k) = f >= 0 ? contrib(v, f) : 0.0;
          teleport_h(v, k) = f >= 0 ? teleport(v, f) : 0.0;
        }
      });
  pagerank_lanes_from<H, Schedule>(g, ranks, col0, narrow, contrib_h, teleport_h, tolerance, max_iterations,
                                   next_iteration, iterations, merge_steps_per_item);
}

// Iterations first_iteration, first_iteration + 1, ... of a batch at width W,
// from contrib (each lane's contributions of the current iterate). A lane
// whose L1 test passes is no longer written; once at most W / 2 lanes are
// live, they move, in lane order, to a batch of width W / 2 (contributions,
// teleport columns, damping and dangling mass), so that finished jobs stop
// costing gather bandwidth. A lane's arithmetic involves no other lane, so
// moving it changes none of its iterates. (Four jobs stopping after 13 to 31
// iterations paid the width of four for all 31: a row of 4 contributions
// costs twice a row of one per gathered in-edge on two host cores, Kronecker
// 18.) merge_steps_per_item: the merge-path pull's share (0: its default;
// tests pass small ones).
template <int W, PullSchedule Schedule, class G, class RankMatrix, class Lanes, class Teleport>
void pagerank_lanes_from(const G& g, const RankMatrix& ranks, std::int64_t col0, const pagerank_lane_jobs& jobs,
                         Lanes contrib, const Teleport& teleport, double tolerance, int max_iterations,
                         int first_iteration, std::vector<int>& iterations, std::int64_t merge_steps_per_item) {
  using Exec = typename G::execution_space;
  using V = typename graph_traits<G>::vertex_descriptor;
  using SS = typename G::space_type;
  const std::int64_t n = num_vertices(g);
  pagerank_lane_consts<W> lc{};
  double dangling[W];
  int live = 0;
  for (int k = 0; k < W; ++k) {
    const int j = jobs.job[std::size_t(k)];
    lc.d[k] = j >= 0 ? jobs.damping[std::size_t(k)] : 0.0;
    lc.write[k] = j >= 0 ? 1 : 0;
    lc.col[k] = j >= 0 ? col0 + j : 0;
    dangling[k] = j >= 0 ? jobs.dangling[std::size_t(k)] : 0.0;
    live += j >= 0 ? 1 : 0;
  }
  if constexpr (W > 1) {
    if (live > 0 && live <= W / 2 && first_iteration <= max_iterations)
      return pagerank_lanes_narrow<W, Schedule>(g, ranks, col0, jobs, lc, dangling, contrib, teleport, tolerance,
                                                max_iterations, first_iteration, iterations, merge_steps_per_item);
  }
  Lanes contrib_next(tessera::view_alloc("graph::jobs::pagerank::contrib_next", tessera::WithoutInitializing), n, W);
  // Per-block partial sums: l1 of lane k in column k, next dangling mass in W + k.
  // Host spaces: 1,024 vertices a work item (few threads, long runs). A GPU
  // needs far more work items than that gives (2,048 threads for 2^21
  // vertices): 32 vertices each, at the price of a larger partial array to
  // copy back per iteration (n / 32 x 2W doubles).
  constexpr std::int64_t block = tessera::is_host_execution_space<Exec>::value ? 1024 : 32;
  const std::int64_t nblocks = (n + block - 1) / block;
  constexpr bool vector_pull = graph_traits<G>::has_in_edges && Schedule == PullSchedule::vector_lanes;
  constexpr bool merge_pull = graph_traits<G>::has_in_edges && Schedule == PullSchedule::merge_path;
  // Their sweep's sums come back as one array reduction, not per-block partials.
  constexpr bool reduced_sums = vector_pull || merge_pull;
  static_assert(!vector_pull || graph_traits<G>::random_access_adjacency,
                "pagerank jobs' vector_lanes pull indexes in-neighbour lists; this graph's are not random access");
  tessera::View<double**, tessera::LayoutRight, SS> partial("graph::jobs::pagerank::partial", reduced_sums ? 0 : nblocks,
                                                            2 * W);
  auto partial_h = tessera::create_mirror_view(tessera::HostSpace(), partial);
  double sums[2 * W];  // the reduced pulls' l1 (k) and next dangling mass (W + k) of lane k
  pull_hubs<SS> hubs;
  if constexpr (vector_pull) hubs = make_pull_hubs<Exec, SS>(g, n);
  Lanes hub_partial(tessera::view_alloc("graph::jobs::pagerank::hub_partial", tessera::WithoutInitializing),
                    hubs.chunks, W);
  pull_merge_lanes<W, SS> merge;
  if constexpr (merge_pull) merge = make_pull_merge_lanes<W, Exec, SS>(g, n, merge_steps_per_item);

  for (int it = first_iteration; it <= max_iterations && live > 0; ++it) {
    for (int k = 0; k < W; ++k) lc.scale[k] = (1.0 - lc.d[k]) + lc.d[k] * dangling[k];
    const pagerank_lane_consts<W> c = lc;
    if constexpr (vector_pull) {
      using Policy = tessera::TeamPolicy<Exec>;
      const int lanes =
          lanes_for_average_degree<Policy>(std::int64_t(num_edges(g)) * (graph_traits<G>::is_undirected ? 2 : 1), n);
      // A GPU block of 256 threads: 256 / lanes vertices at a time; host
      // spaces (tests) one vertex per team, its lanes a SIMD loop.
      const int per_team = tessera::is_host_execution_space<Exec>::value ? 1 : 256 / lanes;
      const std::int64_t league = striding_league<Exec>(n, per_team, lanes);
      pull_hub_chunk_lanes<W, Exec>(g, contrib, hubs, hub_partial);
      pagerank_lanes_vector_pull<W, Exec, G, Lanes, Teleport, RankMatrix, Lanes> pull;
      pull.have_hubs = hubs.chunks > 0;
      pull.first_chunk = hubs.first_chunk;
      pull.hub_partial = hub_partial;
      pull.g = g;
      pull.contrib = contrib;
      pull.contrib_next = contrib_next;
      pull.teleport = teleport;
      pull.ranks = ranks;
      pull.n = n;
      pull.stride = league * per_team;
      pull.c = c;
      tessera::parallel_reduce("graph::jobs::pagerank::pull_lanes", Policy(league, per_team, lanes), pull, &sums[0]);
    } else if constexpr (merge_pull) {
      merge_path_lane_sums<W, Exec>(g, contrib, n, merge);
      pagerank_lanes_merge_finish<W, G, Lanes, Teleport, RankMatrix, decltype(merge.sums)> finish;
      finish.g = g;
      finish.contrib_next = contrib_next;
      finish.teleport = teleport;
      finish.ranks = ranks;
      finish.sums = merge.sums;
      finish.c = c;
      tessera::parallel_reduce("graph::jobs::pagerank::merge_finish", tessera::RangePolicy<Exec>(0, n), finish,
                               &sums[0]);
    } else if constexpr (graph_traits<G>::has_in_edges) {
      tessera::parallel_for(
          "graph::jobs::pagerank::pull", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, nblocks, 1),
          TESSERA_LAMBDA(std::int64_t bi) {
            double l1[W], dsum[W];
            for (int k = 0; k < W; ++k) l1[k] = dsum[k] = 0.0;
            const std::int64_t hi = (bi + 1) * block < n ? (bi + 1) * block : n;
            for (std::int64_t vi = bi * block; vi < hi; ++vi) {
              double s[W];
              lane_sums<W, graph_traits<G>::random_access_adjacency>(in_adjacent_vertices(V(vi), g), contrib, s);
              finish_vertex<W>(vi, out_degree(V(vi), g), s, c, teleport, contrib_next, ranks, l1, dsum);
            }
            for (int k = 0; k < W; ++k) {
              partial(bi, k) = l1[k];
              partial(bi, W + k) = dsum[k];
            }
          });
    } else {
      // No in-edges: scatter the contributions with atomic adds, then finish
      // each vertex as the pull does.
      tessera::parallel_for("graph::jobs::pagerank::zero", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) {
        for (int k = 0; k < W; ++k) contrib_next(v, k) = 0.0;
      });
      tessera::parallel_for("graph::jobs::pagerank::scatter", make_vertex_policy(g, 256), TESSERA_LAMBDA(std::int64_t ui) {
        double cu[W];
        bool any = false;
        for (int k = 0; k < W; ++k) any |= (cu[k] = contrib(ui, k)) != 0.0;
        if (!any) return;
        for (auto w : adjacent_vertices(V(ui), g))
          for (int k = 0; k < W; ++k) tessera::atomic_add(&contrib_next(w, k), cu[k]);
      });
      tessera::parallel_for(
          "graph::jobs::pagerank::finish", tessera::RangePolicy<Exec, tessera::Schedule<tessera::Dynamic>>(0, nblocks, 1),
          TESSERA_LAMBDA(std::int64_t bi) {
            double l1[W], dsum[W];
            for (int k = 0; k < W; ++k) l1[k] = dsum[k] = 0.0;
            const std::int64_t hi = (bi + 1) * block < n ? (bi + 1) * block : n;
            for (std::int64_t vi = bi * block; vi < hi; ++vi) {
              double s[W];  // the scattered sums, read before finish_vertex overwrites them
              for (int k = 0; k < W; ++k) s[k] = contrib_next(vi, k);
              finish_vertex<W>(vi, out_degree(V(vi), g), s, c, teleport, contrib_next, ranks, l1, dsum);
            }
            for (int k = 0; k < W; ++k) {
              partial(bi, k) = l1[k];
              partial(bi, W + k) = dsum[k];
            }
          });
    }
    std::swap(contrib, contrib_next);
    // Block sums added in block order: the same figures on every thread count.
    if constexpr (!reduced_sums) tessera::deep_copy(partial_h, partial);
    for (int k = 0; k < W; ++k) {
      double l1 = 0, dn = 0;
      if constexpr (reduced_sums) {
        l1 = sums[k];
        dn = sums[W + k];
      } else {
        for (std::int64_t b = 0; b < nblocks; ++b) l1 += partial_h(b, k), dn += partial_h(b, W + k);
      }
      dangling[k] = dn;
      if (!lc.write[k]) continue;
      iterations[std::size_t(jobs.job[std::size_t(k)])] = it;
      if (l1 < tolerance) {
        lc.write[k] = 0;
        --live;
      }
    }
    if constexpr (W > 1) {
      if (live > 0 && live <= W / 2 && it < max_iterations)
        return pagerank_lanes_narrow<W, Schedule>(g, ranks, col0, jobs, lc, dangling, contrib, teleport, tolerance,
                                                  max_iterations, it + 1, iterations, merge_steps_per_item);
    }
  }
}

// One batch: jobs col0 .. col0+count-1 of the rank matrix (n x P), count <= W.
// damping[k], teleport (n x W, column k = p_k) given per lane; returns the
// iterations each lane ran in iterations[k]. Schedule: how the pull hands
// out vertices (tests run the GPU's on host spaces; graphs without in-edges
// scatter either way); merge_steps_per_item: the merge-path pull's share (0:
// its default).
template <int W, PullSchedule Schedule, class G, class RankMatrix, class Teleport>
void pagerank_lanes(const G& g, const RankMatrix& ranks, std::int64_t col0, int count, const std::vector<double>& damping,
                    const Teleport& teleport, double tolerance, int max_iterations, std::vector<int>& iterations,
                    std::int64_t merge_steps_per_item = 0) {
  using Exec = typename G::execution_space;
  using V = typename graph_traits<G>::vertex_descriptor;
  using SS = typename G::space_type;
  const std::int64_t n = num_vertices(g);
  iterations.assign(std::size_t(count), 0);
  if (n == 0 || count == 0) return;
  const double inv_n = 1.0 / double(n);
  using Lanes = tessera::View<double**, tessera::LayoutRight, SS>;
  Lanes contrib(tessera::view_alloc("graph::jobs::pagerank::contrib", tessera::WithoutInitializing), n, W);
  // Initial ranks 1/n (unused lanes 0), as tessera::graph::pagerank starts.
  tessera::parallel_for("graph::jobs::pagerank::init", tessera::RangePolicy<Exec>(0, n), TESSERA_LAMBDA(std::int64_t v) {
    const std::int64_t deg = out_degree(V(v), g);
    for (int k = 0; k < W; ++k) {
      const double r0 = k < count ? inv_n : 0.0;
      if (k < count) ranks(v, col0 + k) = r0;
      contrib(v, k) = deg > 0 ? r0 / double(deg) : 0.0;
    }
  });
  std::int64_t dangling_vertices = 0;
  reduce_vertices("graph::jobs::pagerank::dangling", g, TESSERA_LAMBDA(V v, std::int64_t & s) { s += out_degree(v, g) == 0; },
                  dangling_vertices);
  pagerank_lane_jobs jobs;
  for (int k = 0; k < W; ++k) {
    jobs.job.push_back(k < count ? k : -1);
    jobs.damping.push_back(k < count ? damping[std::size_t(k)] : 0.0);
    jobs.dangling.push_back(k < count ? double(dangling_vertices) * inv_n : 0.0);
  }
  pagerank_lanes_from<W, Schedule>(g, ranks, col0, jobs, contrib, teleport, tolerance, max_iterations, 1, iterations,
                                   merge_steps_per_item);
}

}  // namespace tessera::graph::detail
