// Concurrent graph jobs (graph_jobs.hpp, job_file.hpp): a fused job set
// gives every job the result it gets alone, checked against the single-job
// algorithms and brute-force serial references, on every back-end; job files
// and their errors.
#include "graph_reference.hpp"
#include "graph_test_util.hpp"

#include <tessera/core/profiling.hpp>
#include <tessera/graph/job_file.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <set>
#include <string>

using namespace graph_test;

namespace {

// Weight of the edge {a, b}: symmetric, zeros included.
TESSERA_INLINE_FUNCTION double weight_of(std::int64_t a, std::int64_t b) {
  const std::int64_t lo = a < b ? a : b, hi = a < b ? b : a;
  return double((lo * 131 + hi * 71) % 97) / 10.0;
}

// An undirected edge's two slots share one index: it is written from its
// lower end only (both ends writing it raced, if with the same value).
template <class G>
tg::edge_property_map<G, double> weights_of(const G& g) {
  using V = typename G::vertex_descriptor;
  constexpr bool undirected = tg::graph_traits<G>::is_undirected;
  tg::edge_property_map<G, double> w(g, 0.0, "w");
  tg::forall_vertices(g, TESSERA_LAMBDA(V u) {
    for (const auto& e : tg::out_edges(u, g))
      if (!undirected || u <= tg::target(e, g)) w[e] = weight_of(u, tg::target(e, g));
  });
  return w;
}

using wadj_t = std::vector<std::vector<std::pair<std::int64_t, double>>>;
inline wadj_t weighted(const graph_ref::adj_t& a) {
  wadj_t w(a.size());
  for (std::size_t u = 0; u < a.size(); ++u)
    for (auto v : a[u]) w[u].push_back({v, weight_of(std::int64_t(u), v)});
  return w;
}

// Personalized power iteration: r'(v) = p(v) ((1-d) + d D) + d sum r(u)/deg(u).
// Stops after `iters` iterations, or (tolerance > 0) after the first whose
// L1 change is below tolerance; *ran: the iterations run.
inline std::vector<double> personalized_pagerank(const graph_ref::adj_t& out, double d, const std::vector<std::int64_t>& set,
                                                 int iters, double tolerance = 0.0, int* ran = nullptr) {
  const std::size_t n = out.size();
  std::vector<double> p(n, set.empty() ? 1.0 / double(n) : 0.0), r(n, 1.0 / double(n)), nx(n);
  std::set<std::int64_t> s(set.begin(), set.end());
  for (auto v : s) p[std::size_t(v)] = 1.0 / double(s.size());
  int it = 0;
  while (it < iters) {
    ++it;
    double dangling = 0;
    std::fill(nx.begin(), nx.end(), 0.0);
    for (std::size_t u = 0; u < n; ++u) {
      if (out[u].empty()) dangling += r[u];
      for (auto v : out[u]) nx[std::size_t(v)] += r[u] / double(out[u].size());
    }
    double l1 = 0;
    for (std::size_t v = 0; v < n; ++v) {
      nx[v] = p[v] * ((1 - d) + d * dangling) + d * nx[v];
      l1 += std::fabs(nx[v] - r[v]);
    }
    std::swap(r, nx);
    if (l1 < tolerance) break;
  }
  if (ran) *ran = it;
  return r;
}

// The teleport columns of a PageRank batch (n x W): lane k < sets.size()
// is 1/n everywhere for an empty set, else 1/|S| on its set S; the other
// lanes are 0 (unused).
template <class SS>
tessera::View<double**, tessera::LayoutRight, SS> teleport_columns(std::int64_t n, int W,
                                                                  const std::vector<std::vector<std::int64_t>>& sets) {
  tessera::View<double**, tessera::LayoutRight, SS> tele("tele", n, W);
  auto th = tessera::create_mirror_view(tessera::HostSpace(), tele);
  for (std::int64_t v = 0; v < n; ++v)
    for (int k = 0; k < W; ++k) th(v, k) = 0.0;
  for (std::size_t k = 0; k < sets.size(); ++k) {
    const std::set<std::int64_t> set(sets[k].begin(), sets[k].end());
    if (set.empty())
      for (std::int64_t v = 0; v < n; ++v) th(v, int(k)) = 1.0 / double(n);
    for (auto v : set) th(v, int(k)) = 1.0 / double(set.size());
  }
  tessera::deep_copy(tele, th);
  return tele;
}

inline double jaccard_ref(const graph_ref::adj_t& a, std::int64_t u, std::int64_t v) {
  std::set<std::int64_t> su(a[u].begin(), a[u].end()), sv(a[v].begin(), a[v].end()), un = su;
  un.insert(sv.begin(), sv.end());
  std::int64_t common = 0;
  for (auto x : su) common += sv.count(x);
  return un.empty() ? 0.0 : double(common) / double(un.size());
}

// A mixed set: every kind, several of each, sources spread over the graph.
std::vector<tg::graph_job> mixed_jobs(std::int64_t n, int per_kind) {
  std::vector<tg::graph_job> jobs;
  for (int i = 0; i < per_kind; ++i) {
    const std::int64_t a = (i * 37 + 1) % n, b = (i * 53 + 7) % n;
    jobs.push_back(tg::graph_job::bfs(a));
    jobs.push_back(tg::graph_job::sssp(b));
    if (i % 2) jobs.push_back(tg::graph_job::pagerank(0.5 + 0.04 * i, {a, b, (a + 5) % n}));
    else jobs.push_back(tg::graph_job::pagerank(0.85 - 0.01 * i));
    jobs.push_back(tg::graph_job::jaccard(a, b));
  }
  return jobs;
}

// Every job of r against the serial references on the simple graph `a`.
template <class R>
void expect_references(const R& r, const graph_ref::adj_t& a, int pagerank_iterations) {
  const wadj_t wa = weighted(a);
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    const auto& j = r.jobs[i];
    SCOPED_TRACE("job " + std::to_string(i) + ": " + j.text());
    switch (j.kind) {
      case tg::job_kind::bfs: {
        const auto want = graph_ref::bfs_levels(a, std::vector<std::int64_t>{j.source});
        const auto got = r.levels(i);
        for (std::size_t v = 0; v < want.size(); ++v) ASSERT_EQ(got[v], want[v]) << "vertex " << v;
        break;
      }
      case tg::job_kind::sssp: {
        const auto want = graph_ref::dijkstra(wa, j.source);
        const auto got = r.distances(i);
        for (std::size_t v = 0; v < want.size(); ++v) ASSERT_EQ(got[v], want[v]) << "vertex " << v;  // exactly
        break;
      }
      case tg::job_kind::pagerank: {
        const auto want = personalized_pagerank(a, j.damping, j.personalization, pagerank_iterations);
        const auto got = r.ranks(i);
        EXPECT_EQ(r.iterations(i), pagerank_iterations);
        double sum = 0;
        for (std::size_t v = 0; v < want.size(); ++v) {
          ASSERT_NEAR(got[v], want[v], 1e-12) << "vertex " << v;
          sum += got[v];
        }
        EXPECT_NEAR(sum, 1.0, 1e-9);
        break;
      }
      case tg::job_kind::jaccard: EXPECT_EQ(r.similarity(i), jaccard_ref(a, j.u, j.v)); break;
    }
  }
}

}  // namespace

template <class Space>
class GraphJobs : public SpaceTest<Space> {};
TYPED_TEST_SUITE(GraphJobs, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(GraphJobs, MixedSetMatchesSerialReferences) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using D = tg::compressed_sparse_row_graph<tg::directedS, TypeParam>;
  const int iters = 30;
  tg::job_options o;
  o.pagerank_tolerance = 0;  // every job runs `iters` iterations, like the reference
  o.pagerank_max_iterations = iters;
  // Every BFS set fused, whatever its size and depth, so that the fused
  // sweep's schedules are checked below (when a set fuses by default:
  // BfsJobsFuseWhereItPays).
  o.fuse_bfs_from = 2;
  o.fuse_bfs_max_levels = std::numeric_limits<int>::max();
  // Isolated (dangling) vertices, loops and repeated edges in the input.
  for (auto el : {random_edges(300, 700, 5), tg::kronecker(8, 6, 3)}) {
    const std::int64_t n = el.num_vertices;
    const auto jobs = mixed_jobs(n, 5);
    {
      G g(el, tg::build_options::simple());
      SCOPED_TRACE("undirected, n = " + std::to_string(n));
      expect_references(tg::run_jobs(g, jobs, weights_of(g), o), simple_adjacency(el, true), iters);
      tg::job_options alone = o;
      alone.fuse = false;
      expect_references(tg::run_jobs(g, jobs, weights_of(g), alone), simple_adjacency(el, true), iters);
      // The fused BFS and shortest-path sweeps on the schedules of the other
      // kind of space: listed active vertices expanded by degree (low
      // thresholds: every path of it) and edge-balanced, or the loop over
      // every vertex (a device's explicit choice).
      for (auto schedule : {tg::edge_schedule::vertex_loop, tg::edge_schedule::by_degree, tg::edge_schedule::edge_balanced}) {
        SCOPED_TRACE("schedule " + std::to_string(int(schedule)));
        tg::job_options s = o;
        s.traversal = {.schedule = schedule, .warp_degree = 3, .block_degree = 12, .steps_per_item = 5};
        expect_references(tg::run_jobs(g, jobs, weights_of(g), s), simple_adjacency(el, true), iters);
      }
    }
    {
      D d(el, tg::build_options::simple());  // PageRank scatters: no in-edges
      SCOPED_TRACE("directed, n = " + std::to_string(n));
      expect_references(tg::run_jobs(d, jobs, weights_of(d), o), simple_adjacency(el, false), iters);
      tg::job_options s = o;
      s.traversal.schedule = tg::edge_schedule::edge_balanced;
      expect_references(tg::run_jobs(d, jobs, weights_of(d), s), simple_adjacency(el, false), iters);
    }
  }
}

namespace {
// The name of a pull schedule, for the traces.
const char* schedule_name(tg::detail::PullSchedule s) {
  using tg::detail::PullSchedule;
  return s == PullSchedule::vertex_blocks ? "vertex_blocks" : s == PullSchedule::vector_lanes ? "vector_lanes" : "merge_path";
}

// pagerank_lanes with the pull schedule chosen at run time; the merge path
// with shares of 5 steps, so that rows cross many items and blocks of
// items (a hub's carries over several blocks).
template <int W, class G, class M, class T>
void pagerank_lanes_on(tg::detail::PullSchedule s, const G& g, const M& ranks, std::int64_t col0, int count,
                       const std::vector<double>& damping, const T& tele, double tolerance, int iters,
                       std::vector<int>& its) {
  using tg::detail::PullSchedule;
  if (s == PullSchedule::vertex_blocks)
    tg::detail::pagerank_lanes<W, PullSchedule::vertex_blocks>(g, ranks, col0, count, damping, tele, tolerance, iters, its);
  else if (s == PullSchedule::vector_lanes)
    tg::detail::pagerank_lanes<W, PullSchedule::vector_lanes>(g, ranks, col0, count, damping, tele, tolerance, iters, its);
  else
    tg::detail::pagerank_lanes<W, PullSchedule::merge_path>(g, ranks, col0, count, damping, tele, tolerance, iters, its,
                                                            5);
}
}  // namespace

TYPED_TEST(GraphJobs, PageRankLanesOnEveryPullScheduleMatchTheSerialReference) {
  // The fused PageRank sweep with each way of handing out vertices: blocks
  // of vertices (host spaces' default), a team member per vertex with
  // vector lanes over its in-edges and the sweep's sums as one array
  // reduction (a GPU's default, run here on every space), and equal shares
  // of the merge path of rows and edges (jobs_pagerank_merge_path.hpp,
  // on request). Three jobs in
  // four lanes (one unused), two of them personalized, against the serial
  // power iteration after 25 iterations. The third graph, two joined stars
  // of 9,000 and 5,000 leaves, has two hubs (at least kPullHubDegree
  // in-edges): their lists are summed in chunks before the pull.
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using SS = typename G::space_type;
  using tg::detail::PullSchedule;
  constexpr int W = 4;
  const int iters = 25;
  tg::edge_list stars;
  stars.num_vertices = 2 + 9000 + 5000;
  stars.add(0, 1);
  for (std::int64_t i = 0; i < 9000; ++i) stars.add(0, 2 + i);
  for (std::int64_t i = 0; i < 5000; ++i) stars.add(1, 9002 + i);
  static_assert(5000 >= tg::detail::kPullHubDegree, "the smaller star must be a hub too");
  for (auto el : {random_edges(300, 700, 5), tg::kronecker(9, 8, 4), stars}) {
    G g(el, tg::build_options::simple());
    const std::int64_t n = tg::num_vertices(g);
    const auto adj = simple_adjacency(el, true);
    const std::vector<double> damping = {0.85, 0.6, 0.75};
    const std::vector<std::vector<std::int64_t>> sets = {{}, {1, 2, n - 1}, {0}};
    const auto tele = teleport_columns<SS>(n, W, sets);
    for (PullSchedule schedule : {PullSchedule::vertex_blocks, PullSchedule::vector_lanes, PullSchedule::merge_path}) {
      SCOPED_TRACE(std::string(schedule_name(schedule)) + ", n = " + std::to_string(n));
      tessera::View<double**, tessera::LayoutLeft, SS> ranks("ranks", n, 5);  // jobs in columns 2..4
      std::vector<int> its;
      pagerank_lanes_on<W>(schedule, g, ranks, 2, 3, damping, tele, 0.0, iters, its);
      auto rh = tessera::create_mirror_view_and_copy(tessera::HostSpace(), ranks);
      ASSERT_EQ(its.size(), 3u);
      for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(its[std::size_t(k)], iters) << "lane " << k;
        const auto want = personalized_pagerank(adj, damping[std::size_t(k)], sets[std::size_t(k)], iters);
        double sum = 0;
        for (std::int64_t v = 0; v < n; ++v) {
          ASSERT_NEAR(rh(v, 2 + k), want[std::size_t(v)], 1e-12) << "lane " << k << ", vertex " << v;
          sum += rh(v, 2 + k);
        }
        EXPECT_NEAR(sum, 1.0, 1e-9) << "lane " << k;
      }
      for (std::int64_t v = 0; v < n; ++v)
        ASSERT_TRUE(rh(v, 0) == 0.0 && rh(v, 1) == 0.0) << "a column outside the batch was written, vertex " << v;
    }
  }
}

// Lanes that stop at different iterations: seven jobs in eight lanes, with
// damping from 0.3 to 0.97 (so each stops after its own count of
// iterations, 14 to 37 here), uniform and personalized.
// Each lane must stop where the serial power iteration with the same
// stopping rule stops (give or take one: the L1 test is summed in another
// order) with its ranks, on every pull schedule, while the batch narrows
// to 4, 2 and 1 lanes as jobs finish ("graph::jobs::pagerank::narrow"
// kernels, counted by a profiling callback).
std::atomic<int> g_narrow_kernels{0};
void count_narrow(tessera::profiling::Kind, const char* name, const char*, std::uint64_t) {
  if (std::string(name).rfind("graph::jobs::pagerank::narrow", 0) == 0) ++g_narrow_kernels;
}

TYPED_TEST(GraphJobs, PageRankLanesNarrowAsJobsStop) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using SS = typename G::space_type;
  using tg::detail::PullSchedule;
  constexpr int W = 8;
  constexpr int count = 7;
  const double tolerance = 1e-10;
  const int max_iterations = 400;
  const auto el = tg::kronecker(9, 8, 4);
  G g(el, tg::build_options::simple());
  const std::int64_t n = tg::num_vertices(g);
  const auto adj = simple_adjacency(el, true);
  const std::vector<double> damping = {0.97, 0.3, 0.85, 0.5, 0.9, 0.6, 0.75};
  std::vector<std::vector<std::int64_t>> sets(count);
  sets[1] = {3, 5, n - 2};
  sets[4] = {0};
  sets[5] = {7, 8};
  std::vector<int> want_its(count);
  std::vector<std::vector<double>> want(count);
  for (int k = 0; k < count; ++k)
    want[std::size_t(k)] = personalized_pagerank(adj, damping[std::size_t(k)], sets[std::size_t(k)], max_iterations,
                                                 tolerance, &want_its[std::size_t(k)]);
  // The premise: the lanes stop at different iterations, none at the limit,
  // and the last lane runs alone for a while (so the batch ends at width 1).
  auto sorted = want_its;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_LT(sorted[count - 1], max_iterations);
  ASSERT_GE(sorted[count - 1] - sorted[count - 2], 3);
  ASSERT_GE(sorted[count - 1] - sorted[0], 20);
  const auto tele = teleport_columns<SS>(n, W, sets);
  for (PullSchedule schedule : {PullSchedule::vertex_blocks, PullSchedule::vector_lanes, PullSchedule::merge_path}) {
    SCOPED_TRACE(schedule_name(schedule));
    tessera::View<double**, tessera::LayoutLeft, SS> ranks("ranks", n, count + 2);  // jobs in columns 1..7
    std::vector<int> its;
    tessera::profiling::Callbacks cb;
    cb.begin_kernel = &count_narrow;
    g_narrow_kernels = 0;
    const auto old = tessera::profiling::set_callbacks(cb);
    pagerank_lanes_on<W>(schedule, g, ranks, 1, count, damping, tele, tolerance, max_iterations, its);
    tessera::profiling::set_callbacks(old);
    EXPECT_EQ(g_narrow_kernels.load(), 3) << "8 lanes -> 4 -> 2 -> 1";
    auto rh = tessera::create_mirror_view_and_copy(tessera::HostSpace(), ranks);
    ASSERT_EQ(its.size(), std::size_t(count));
    for (int k = 0; k < count; ++k) {
      EXPECT_NEAR(its[std::size_t(k)], want_its[std::size_t(k)], 1) << "lane " << k;
      for (std::int64_t v = 0; v < n; ++v)
        ASSERT_NEAR(rh(v, 1 + k), want[std::size_t(k)][std::size_t(v)], 1e-9) << "lane " << k << ", vertex " << v;
    }
    for (std::int64_t v = 0; v < n; ++v)
      ASSERT_TRUE(rh(v, 0) == 0.0 && rh(v, count + 1) == 0.0) << "a column outside the batch was written, vertex " << v;
  }
}

TYPED_TEST(GraphJobs, FusedEqualsSingleJobAlgorithms) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using V = typename G::vertex_descriptor;
  const auto el = tg::kronecker(10, 8, 11);
  G g(el, tg::build_options::simple());
  const std::int64_t n = tg::num_vertices(g);
  auto w = weights_of(g);
  // More than 64 BFS and SSSP jobs (two bit-words) and more than 8 PageRank
  // jobs (two batches): 70 + 70 + 11 + 3.
  std::vector<tg::graph_job> jobs;
  for (int i = 0; i < 70; ++i) jobs.push_back(tg::graph_job::bfs((i * 97) % n));
  for (int i = 0; i < 70; ++i) jobs.push_back(tg::graph_job::sssp((i * 89 + 3) % n));
  for (int i = 0; i < 11; ++i) jobs.push_back(tg::graph_job::pagerank(0.6 + 0.03 * i));
  for (int i = 0; i < 3; ++i) jobs.push_back(tg::graph_job::jaccard(i, i + 1));
  const auto r = tg::run_jobs(g, jobs, w);  // tolerance 1e-9: each job stops on its own test
  tg::vertex_property_map<G, std::int32_t> lv(g);
  tg::vertex_property_map<G, double> dist(g), pr(g);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& j = jobs[i];
    SCOPED_TRACE("job " + std::to_string(i) + ": " + j.text());
    if (j.kind == tg::job_kind::bfs) {
      tg::breadth_first_search(g, V(j.source), tg::bfs_levels_visitor<G>(lv));
      const auto want = tg::detail::to_host_vector(lv.view());
      const auto got = r.levels(i);
      for (std::int64_t v = 0; v < n; ++v) ASSERT_EQ(got[v], want[v]) << v;
    } else if (j.kind == tg::job_kind::sssp) {
      tg::delta_stepping_shortest_paths(g, j.source, w, dist);
      const auto want = tg::detail::to_host_vector(dist.view());
      const auto got = r.distances(i);
      for (std::int64_t v = 0; v < n; ++v) ASSERT_EQ(got[v], want[v]) << v;
    } else if (j.kind == tg::job_kind::pagerank) {
      const int it = tg::pagerank(g, pr, j.damping, 1e-9, 100);
      EXPECT_NEAR(r.iterations(i), it, 1);  // the L1 test, summed in another order, may tip one iteration
      const auto want = tg::detail::to_host_vector(pr.view());
      const auto got = r.ranks(i);
      for (std::int64_t v = 0; v < n; ++v) ASSERT_NEAR(got[v], want[v], 1e-9) << v;
    }
  }
}

// Which BFS jobs run fused: on host spaces the first alone, then the rest
// fused when they are at least fuse_bfs_from (5) and the first search took
// at most fuse_bfs_max_levels (64) levels; on a device any two or more.
// Levels equal the single search's either way.
TYPED_TEST(GraphJobs, BfsJobsFuseWhereItPays) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using V = typename G::vertex_descriptor;
  constexpr bool host = tessera::is_host_execution_space<TypeParam>::value;
  const G kron(tg::kronecker(10, 8, 11), tg::build_options::simple());  // a few levels
  const G grid(tg::grid_2d(40, 40), tg::build_options::simple());       // 79 levels from a corner
  auto run = [](const G& g, int count, const tg::job_options& o) {
    const std::int64_t n = tg::num_vertices(g);
    std::vector<tg::graph_job> jobs;
    for (int i = 0; i < count; ++i) jobs.push_back(tg::graph_job::bfs((i * 97) % n));
    const auto r = tg::run_jobs(g, jobs, o);
    tg::vertex_property_map<G, std::int32_t> lv(g);
    for (int i = 0; i < count; ++i) {
      tg::breadth_first_search(g, V(jobs[i].source), tg::bfs_levels_visitor<G>(lv));
      const auto want = tg::detail::to_host_vector(lv.view());
      const auto got = r.levels(std::size_t(i));
      for (std::int64_t v = 0; v < n; ++v) EXPECT_EQ(got[v], want[v]) << "job " << i << ", vertex " << v;
    }
    return r.bfs_fused;
  };
  const tg::job_options by_default;
  EXPECT_EQ(run(kron, 8, by_default), host ? 7 : 8);
  EXPECT_EQ(run(kron, 6, by_default), host ? 5 : 6);
  EXPECT_EQ(run(kron, 5, by_default), host ? 0 : 5);  // four after the first: fewer than five
  EXPECT_EQ(run(kron, 1, by_default), 0);
  // The first search from vertex 0, a corner: 79 levels, more than 64.
  EXPECT_EQ(run(grid, 8, by_default), host ? 0 : 8);
  tg::job_options deep = by_default;
  deep.fuse_bfs_max_levels = 79;
  EXPECT_EQ(run(grid, 8, deep), 7 + (host ? 0 : 1));
  tg::job_options alone = by_default;
  alone.fuse = false;
  EXPECT_EQ(run(kron, 8, alone), 0);
}

// A bucket width far below the distances' rounding step (1e-300 at
// distances near 1) still finishes, with Dijkstra's distances: each bucket
// takes at least the next representable distance. On every schedule of the
// fused sweep (unit weights: the distances are BFS levels).
TYPED_TEST(GraphJobs, FusedShortestPathsWithATinyBucketWidth) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  const auto el = random_edges(200, 600, 17);
  G g(el, tg::build_options::simple());
  const auto adj = simple_adjacency(el, true);
  for (auto schedule : {tg::edge_schedule::automatic, tg::edge_schedule::vertex_loop, tg::edge_schedule::by_degree,
                        tg::edge_schedule::edge_balanced}) {
    SCOPED_TRACE("schedule " + std::to_string(int(schedule)));
    tg::job_options o;
    o.sssp_delta = 1e-300;
    o.traversal = {.schedule = schedule, .warp_degree = 3, .block_degree = 12, .steps_per_item = 5};
    const auto r = tg::run_jobs(g, {tg::graph_job::sssp(0), tg::graph_job::sssp(7)}, o);  // unit weights, fused
    for (int k = 0; k < 2; ++k) {
      const auto want = graph_ref::bfs_levels(adj, std::vector<std::int64_t>{k == 0 ? 0 : 7});
      const auto got = r.distances(std::size_t(k));
      for (std::size_t v = 0; v < want.size(); ++v)
        ASSERT_EQ(got[v], want[v] < 0 ? std::numeric_limits<double>::max() : double(want[v]))
            << "job " << k << ", vertex " << v;
    }
  }
}

// Bucket widths that put the distances across thousands of buckets: the
// host bins keep a window of 1,024 buckets and a far list beyond it, so
// vertices wait in the far list with jobs in several far buckets at once,
// and each job must still be relaxed from each of them. 40 jobs against
// Dijkstra, on the automatic schedule and the vertex loop.
TYPED_TEST(GraphJobs, FusedShortestPathsAcrossThousandsOfBuckets) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  const auto el = random_edges(2000, 6000, 29);
  G g(el, tg::build_options::simple());
  const wadj_t wa = weighted(simple_adjacency(el, true));
  std::vector<tg::graph_job> jobs;
  for (int i = 0; i < 40; ++i) jobs.push_back(tg::graph_job::sssp((i * 151 + 3) % 2000));
  for (double delta : {0.01, 0.002}) {
    for (auto schedule : {tg::edge_schedule::automatic, tg::edge_schedule::vertex_loop}) {
      SCOPED_TRACE(testing::Message() << "delta " << delta << ", schedule " << int(schedule));
      tg::job_options o;
      o.sssp_delta = delta;
      o.traversal.schedule = schedule;
      const auto r = tg::run_jobs(g, jobs, weights_of(g), o);
      for (std::size_t i = 0; i < jobs.size(); ++i) {
        const auto want = graph_ref::dijkstra(wa, jobs[i].source);
        const auto got = r.distances(i);
        for (std::size_t v = 0; v < want.size(); ++v) ASSERT_EQ(got[v], want[v]) << "job " << i << ", vertex " << v;
      }
    }
  }
}

// Hubs: two joined stars of 3,000 and 700 leaves plus a ring through the
// leaves, so that the fused sweeps' listed schedules hand the hubs' edges
// to whole teams (by_degree at its default thresholds) or cut them among
// work items (edge_balanced); 70 BFS and 70 shortest-path jobs (two words)
// against the single-job algorithms.
TYPED_TEST(GraphJobs, FusedSweepsShareHubsOnEverySchedule) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using V = typename G::vertex_descriptor;
  tg::edge_list el;
  const std::int64_t n = 2 + 3000 + 700;
  el.num_vertices = n;
  el.add(0, 1);
  for (std::int64_t i = 0; i < 3000; ++i) el.add(0, 2 + i);
  for (std::int64_t i = 0; i < 700; ++i) el.add(1, 3002 + i);
  for (std::int64_t v = 2; v + 1 < n; v += 3) el.add(v, v + 1);
  G g(el, tg::build_options::simple());
  auto w = weights_of(g);
  std::vector<tg::graph_job> jobs;
  for (int i = 0; i < 70; ++i) jobs.push_back(tg::graph_job::bfs((i * 53 + 2) % n));
  for (int i = 0; i < 70; ++i) jobs.push_back(tg::graph_job::sssp((i * 61 + 5) % n));
  tg::vertex_property_map<G, std::int32_t> lv(g);
  tg::vertex_property_map<G, double> dist(g);
  std::vector<std::vector<std::int32_t>> want_levels;
  std::vector<std::vector<double>> want_dist;
  for (const auto& j : jobs) {
    if (j.kind == tg::job_kind::bfs) {
      tg::breadth_first_search(g, V(j.source), tg::bfs_levels_visitor<G>(lv));
      want_levels.push_back(tg::detail::to_host_vector(lv.view()));
    } else {
      tg::delta_stepping_shortest_paths(g, j.source, w, dist);
      want_dist.push_back(tg::detail::to_host_vector(dist.view()));
    }
  }
  for (auto schedule : {tg::edge_schedule::vertex_loop, tg::edge_schedule::by_degree, tg::edge_schedule::edge_balanced}) {
    SCOPED_TRACE("schedule " + std::to_string(int(schedule)));
    tg::job_options o;
    o.traversal.schedule = schedule;
    const auto r = tg::run_jobs(g, jobs, w, o);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      SCOPED_TRACE("job " + std::to_string(i) + ": " + jobs[i].text());
      if (jobs[i].kind == tg::job_kind::bfs) {
        const auto got = r.levels(i);
        for (std::int64_t v = 0; v < n; ++v) ASSERT_EQ(got[v], want_levels[i][v]) << v;
      } else {
        const auto got = r.distances(i);
        for (std::int64_t v = 0; v < n; ++v) ASSERT_EQ(got[v], want_dist[i - 70][v]) << v;  // exactly
      }
    }
  }
}

TYPED_TEST(GraphJobs, EmptySetsAndEmptyGraphs) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  G g(tg::kronecker(6, 4, 1), tg::build_options::simple());
  const auto r = tg::run_jobs(g, {});
  EXPECT_TRUE(r.jobs.empty());
  EXPECT_EQ(r.level_matrix.extent(1), 0u);
  EXPECT_TRUE(r.jaccard.empty());
  tg::edge_list none;
  G e(none);
  EXPECT_TRUE(tg::run_jobs(e, {}).jobs.empty());
  const auto pr = tg::run_jobs(e, {tg::graph_job::pagerank(0.85), tg::graph_job::pagerank(0.5)});  // nothing to rank
  EXPECT_TRUE(pr.ranks(1).empty());
  EXPECT_EQ(pr.iterations(1), 0);
}

TYPED_TEST(GraphJobs, BadJobsAreNamedBeforeAnythingRuns) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  G g(tg::kronecker(6, 4, 1), tg::build_options::simple());  // 64 vertices
  auto message = [&](std::vector<tg::graph_job> jobs, const tg::edge_property_map<G, double>* w = nullptr) -> std::string {
    try {
      w ? tg::run_jobs(g, jobs, *w) : tg::run_jobs(g, jobs);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "no error";
  };
  auto from_file = tg::parse_jobs("bfs 1\n\n# a comment\nsssp 64\n", "jobs.txt");
  EXPECT_EQ(message(from_file), "tessera::graph: run_jobs: job 1 (jobs.txt:4: sssp 64): source 64 is not a vertex of the graph ([0, 64))");
  EXPECT_NE(message({tg::graph_job::jaccard(3, 99)}).find("job 0 (jaccard 3 99): vertex 99 is not a vertex"), std::string::npos);
  EXPECT_NE(message({tg::graph_job::pagerank(0.5, {1, 70})}).find("personalization vertex 70"), std::string::npos);
  EXPECT_NE(message({tg::graph_job::pagerank(1.0)}).find("damping 1.000000 outside [0, 1)"), std::string::npos);
  auto w = weights_of(g);
  tg::deep_put(w, 5, -2.0);
  EXPECT_NE(message({tg::graph_job::sssp(0)}, &w).find("negative or NaN weight at edge index 5"), std::string::npos);
  for (double delta : {-1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    tg::job_options bad;
    bad.sssp_delta = delta;
    EXPECT_THROW(tg::run_jobs(g, {tg::graph_job::bfs(0), tg::graph_job::sssp(0)}, bad), std::runtime_error) << delta;
  }
  // Results are asked for by the right kind.
  const auto r = tg::run_jobs(g, {tg::graph_job::bfs(0)});
  EXPECT_THROW(r.distances(0), std::runtime_error);
  EXPECT_THROW(r.levels(1), std::runtime_error);
}

TEST(GraphJobFile, ParsesEveryKindWithComments) {
  const auto jobs = tg::parse_jobs(
      "# mixed set\n"
      "bfs 17\n"
      "  sssp\t3   # from vertex 3\n"
      "\n"
      "pagerank 0.85\n"
      "pagerank 0.9 personalize 1,5,9\r\n"
      "jaccard 3 7\n",
      "set.txt");
  ASSERT_EQ(jobs.size(), 5u);
  EXPECT_EQ(jobs[0].kind, tg::job_kind::bfs);
  EXPECT_EQ(jobs[0].source, 17);
  EXPECT_EQ(jobs[0].origin, "set.txt:2");
  EXPECT_EQ(jobs[1].kind, tg::job_kind::sssp);
  EXPECT_EQ(jobs[1].source, 3);
  EXPECT_EQ(jobs[2].damping, 0.85);
  EXPECT_TRUE(jobs[2].personalization.empty());
  EXPECT_EQ(jobs[3].damping, 0.9);
  EXPECT_EQ(jobs[3].personalization, (std::vector<std::int64_t>{1, 5, 9}));
  EXPECT_EQ(jobs[3].origin, "set.txt:6");
  EXPECT_EQ(jobs[4].kind, tg::job_kind::jaccard);
  EXPECT_EQ(jobs[4].u, 3);
  EXPECT_EQ(jobs[4].v, 7);
  EXPECT_EQ(jobs[3].text(), "pagerank 0.9 personalize 1,5,9");
  EXPECT_EQ(tg::graph_job::pagerank(0.1 + 0.2).text(), "pagerank 0.30000000000000004");
  EXPECT_TRUE(tg::parse_jobs("", "empty.txt").empty());
  EXPECT_TRUE(tg::parse_jobs("# only a comment\n\n", "c.txt").empty());
}

TEST(GraphJobFile, BadLinesAreNamed) {
  auto error = [](const std::string& text) -> std::string {
    try {
      tg::parse_jobs(text, "jobs.txt");
    } catch (const tg::io_error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error("bfs 1\nbfs x\n"), "jobs.txt:2: source 'x' is not a vertex id (an integer >= 0)");
  EXPECT_EQ(error("bfs -3\n"), "jobs.txt:1: source '-3' is not a vertex id (an integer >= 0)");
  EXPECT_EQ(error("# c\nsssp\n"), "jobs.txt:2: 'sssp' takes 1 argument (sssp SOURCE), got 0");
  EXPECT_EQ(error("bfs 1 2\n"), "jobs.txt:1: 'bfs' takes 1 argument (bfs SOURCE), got 2");
  EXPECT_EQ(error("jaccard 3\n"), "jobs.txt:1: 'jaccard' takes 2 arguments (jaccard U V), got 1");
  EXPECT_EQ(error("\n\n\nbfss 1\n"), "jobs.txt:4: unknown job 'bfss' (known: bfs, sssp, pagerank, jaccard)");
  EXPECT_EQ(error("pagerank high\n"), "jobs.txt:1: damping 'high' is not a number");
  EXPECT_EQ(error("pagerank 1.2\n"), "jobs.txt:1: damping '1.2' is outside [0, 1)");
  EXPECT_EQ(error("pagerank nan\n"), "jobs.txt:1: damping 'nan' is not a number");
  EXPECT_EQ(error("pagerank 0.8 personal 1,2\n"), "jobs.txt:1: expected 'personalize' after the damping factor, got 'personal'");
  EXPECT_EQ(error("pagerank 0.8 personalize 1,,2\n"),
            "jobs.txt:1: personalization vertex '' is not a vertex id (an integer >= 0)");
  EXPECT_EQ(error("pagerank 0.8 personalize 1,2,\n"), "jobs.txt:1: personalization list '1,2,' has an empty entry");
  EXPECT_EQ(error("pagerank 0.8 personalize\n"),
            "jobs.txt:1: pagerank takes a damping factor, optionally followed by 'personalize V,V,...', got 2 arguments");
  EXPECT_EQ(error("bfs 99999999999999999999999\n"), "jobs.txt:1: source '99999999999999999999999' is too large");
  try {
    tg::read_job_file("/no/such/dir/jobs.txt");
    ADD_FAILURE() << "no error";
  } catch (const tg::io_error& e) {
    EXPECT_EQ(std::string(e.what()), "/no/such/dir/jobs.txt:0: cannot open the job file");
  }
}
