// Concurrent graph jobs (issue 11 part 4): a mixed job set run fused
// (tessera::graph::run_jobs) against the same jobs run one after another
// (job_options::fuse = false: each job through the library's single-job
// algorithm: breadth_first_search, delta_stepping_shortest_paths, pagerank;
// personalized PageRank and Jaccard through the one-job kernels), interleaved
// per repetition on one Kronecker graph.
//
// A set of J jobs holds J/4 of each kind: BFS and shortest paths from spread
// non-isolated sources (weights in (0, 1] from a hash of the edge's ends),
// PageRank with damping factors 0.85, 0.80, ... (every other one personalized
// on three vertices), Jaccard similarity of vertex pairs. With --per-kind the
// J/4 jobs of each kind are also timed alone (where the fused time goes).
// Ratio column: sequential seconds / fused seconds per repetition (the
// speed-up; > 1: fusing wins). The two results are compared before timing.
//
//   bench_graph_jobs [--scale 18] [--edge-factor 16] [--jobs 4,16,64] [--repeats 5]
//                    [--pr-tolerance 1e-6] [--pr-max-iterations 1000] [--per-kind] [--json] --tessera-num-threads=2
//   bench_graph_jobs --grid 700 ...   a 700 x 700 grid instead (high diameter: 1,400 BFS levels,
//                                     where a pass over every vertex per level or round shows)
//
// The same program on a GPU: tessera_bench_graph_jobs_cuda
// (bench_graph_jobs_cuda.cpp defines TESSERA_BENCH_GRAPH_JOBS_CUDA), bench
// name graph_jobs_cuda; each timed run ends with a fence, so the wall clock
// covers the device work. One more row there against the fused default:
// the vertex loop for the BFS and shortest-path sweeps. On every space, for
// sets with PageRank jobs: the PageRank batches pulled by the merge path
// instead of the space's default pull. ci/gpu.sh packs it and the GPU check runs it.
#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/report.hpp>
#include <tessera/graph.hpp>
#if defined(TESSERA_BENCH_GRAPH_JOBS_CUDA)
#include <tessera/bench/cuda_device.hpp>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace tg = tessera::graph;
#if defined(TESSERA_BENCH_GRAPH_JOBS_CUDA)
using Space = tessera::Cuda;
constexpr const char* kBenchName = "graph_jobs_cuda";
#else
using Space = tessera::OpenMP;
constexpr const char* kBenchName = "graph_jobs";
#endif
using G = tg::compressed_sparse_row_graph<tg::undirectedS, Space>;
using V = G::vertex_descriptor;

// Weight of edge {a, b} in (0, 1]: the same for both directions.
TESSERA_INLINE_FUNCTION double weight_of(std::int64_t a, std::int64_t b) {
  const std::uint64_t lo = std::uint64_t(a < b ? a : b), hi = std::uint64_t(a < b ? b : a);
  const std::uint64_t h = (lo * 0x9E3779B97F4A7C15ull) ^ (hi * 0xC2B2AE3D27D4EB4Full);
  return double((h >> 20) % 1000 + 1) / 1000.0;
}

std::vector<tg::graph_job> job_set(int count, const std::vector<std::int64_t>& pool, bool bfs, bool sssp, bool pr, bool jac) {
  std::vector<tg::graph_job> jobs;
  const std::size_t p = pool.size();
  auto at = [&](std::size_t i) { return pool[(i * 7919) % p]; };
  for (int i = 0; i < count / 4; ++i) {
    const std::size_t k = std::size_t(i);
    if (bfs) jobs.push_back(tg::graph_job::bfs(at(4 * k)));
    if (sssp) jobs.push_back(tg::graph_job::sssp(at(4 * k + 1)));
    if (pr) {
      const double d = 0.85 - 0.05 * double(i % 8);
      if (i % 2) jobs.push_back(tg::graph_job::pagerank(d, {at(4 * k + 2), at(4 * k + 3), at(4 * k + 5)}));
      else jobs.push_back(tg::graph_job::pagerank(d));
    }
    if (jac) jobs.push_back(tg::graph_job::jaccard(at(4 * k + 2), at(4 * k + 3)));
  }
  return jobs;
}

// Fused and sequential answers agree (exactly, or to the PageRank tolerance).
void check_same(const tg::job_set_result<G>& a, const tg::job_set_result<G>& b, double pr_tol) {
  auto bad = [](std::size_t i, const tg::graph_job& j, const char* what) {
    std::fprintf(stderr, "bench_graph_jobs: job %zu (%s): fused and sequential %s differ\n", i, j.text().c_str(), what);
    std::exit(2);
  };
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    const auto& j = a.jobs[i];
    switch (j.kind) {
      case tg::job_kind::bfs:
        if (a.levels(i) != b.levels(i)) bad(i, j, "levels");
        break;
      case tg::job_kind::sssp:
        if (a.distances(i) != b.distances(i)) bad(i, j, "distances");
        break;
      case tg::job_kind::jaccard:
        if (a.similarity(i) != b.similarity(i)) bad(i, j, "similarities");
        break;
      case tg::job_kind::pagerank: {
        const auto x = a.ranks(i), y = b.ranks(i);
        double l1 = 0;
        for (std::size_t v = 0; v < x.size(); ++v) l1 += std::fabs(x[v] - y[v]);
        if (l1 > 100 * pr_tol + 1e-9) bad(i, j, "ranks");
        break;
      }
    }
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  namespace tools = tessera::tools;
  tessera::bench::Cli cli("tessera_bench_graph_jobs",
                          "Concurrent graph jobs on a Kronecker graph: a fused job set against the same jobs one after\n"
                          "another.",
                          5);
  int scale = 18, ef = 16;
  std::int64_t grid = 0;
  double pr_tol = 1e-6;
  int pr_max = 1000;
  bool per_kind = false;
  std::vector<int> counts{4, 16, 64};
  auto& app = cli.app();
  app.add_option("--scale", scale, "Kronecker scale")->check(tools::integer(1, 31));
  app.add_option("--edge-factor", ef, "Kronecker edge factor")->check(tools::integer(1, 1024));
  app.add_option("--pr-tolerance", pr_tol, "PageRank tolerance")->check(tools::real(0, 1, true));
  app.add_option("--pr-max-iterations", pr_max, "PageRank iteration limit")->check(tools::integer(1, 1000000));
  app.add_option("--jobs", counts, "job-set sizes, comma-separated (default 4,16,64)")
      ->delimiter(',')
      ->check(tools::integer(1, 1 << 20));
  app.add_flag("--per-kind", per_kind, "also one job set per kind of job");
  app.add_option("--grid", grid, "an N x N grid (tg::grid_2d) instead of the Kronecker graph")
      ->check(tools::integer(2, 1 << 15));
  if (auto status = cli.parse(argc, argv)) return *status;
  tessera::initialize(cli.settings());
  const int repeats = cli.repeats;
  const bool json = cli.json;
#if defined(TESSERA_BENCH_GRAPH_JOBS_CUDA)
  // Without a usable GPU: say why and exit 0, as the other GPU benchmarks do.
  if (tessera::bench::say_no_cuda_device(kBenchName, json)) {
    tessera::finalize();
    return 0;
  }
#endif
  {
    const G g(grid > 0 ? tg::grid_2d(grid, grid) : tg::kronecker(scale, ef, 1), tg::build_options::simple());
    const std::string graph_name = grid > 0 ? "grid:" + std::to_string(grid) + "x" + std::to_string(grid)
                                            : "kron:" + std::to_string(scale) + ":" + std::to_string(ef);
    tg::edge_property_map<G, double> w(g, 0.0, "weight");
    // An undirected edge's two slots share one index: written from its lower end only.
    tg::forall_vertices(g, TESSERA_LAMBDA(V u) {
      for (const auto& e : tg::out_edges(u, g))
        if (u <= tg::target(e, g)) w[e] = weight_of(u, tg::target(e, g));
    });
    // Sources: vertices with edges (a Kronecker graph has many isolated ones).
    std::vector<std::int64_t> pool;
    {
      tessera::View<std::int64_t*, Space> deg("deg", tg::num_vertices(g));
      tg::forall_vertices(g, TESSERA_LAMBDA(V v) { deg(v) = tg::out_degree(v, g); });
      const auto deg_host = tessera::create_mirror_view_and_copy(tessera::HostSpace(), deg);
      for (std::int64_t v = 0; v < tg::num_vertices(g); ++v)
        if (deg_host(v) > 0) pool.push_back(v);
    }
    const int threads = Space().concurrency();
    if (!json)
      std::printf("# %s: %lld vertices, %lld edges; %d threads; PageRank tolerance %g; %d repeats, interleaved\n",
                  graph_name.c_str(), (long long)tg::num_vertices(g), (long long)tg::num_edges(g), threads, pr_tol, repeats);
    tg::job_options fused, alone;
    fused.pagerank_tolerance = alone.pagerank_tolerance = pr_tol;
    fused.pagerank_max_iterations = alone.pagerank_max_iterations = pr_max;
    alone.fuse = false;
    [[maybe_unused]] tg::job_options fused_vertex_loop = fused;
    fused_vertex_loop.traversal.schedule = tg::edge_schedule::vertex_loop;

    tessera::bench::InterleaveOptions opt;
    opt.repeats = repeats;
    opt.warmup = 0;  // the untimed check run below warms both
    const tessera::bench::Report report(kBenchName, json);
#if defined(TESSERA_BENCH_GRAPH_JOBS_CUDA)
    tessera::bench::note_cuda_device(report, json, repeats);  // the card, for the table's column
#endif
    const tessera::bench::Measure per_job_set{"s", 1, 1, true, true};
    auto measure = [&](const std::string& name, const std::vector<tg::graph_job>& jobs) {
      if (jobs.empty()) return;
      check_same(tg::run_jobs(g, jobs, w, fused), tg::run_jobs(g, jobs, w, alone), pr_tol);
      std::vector<tessera::bench::Contender> cs;
      const auto ran = [&] { return threads; };
      // The fence: on a GPU the wall clock must cover the device's work.
      cs.push_back({"tessera, one job after another", [&] { tg::run_jobs(g, jobs, w, alone); Space().fence(); }, ran});
      cs.push_back({"tessera, fused job set", [&] { tg::run_jobs(g, jobs, w, fused); Space().fence(); }, ran, 0});
#if defined(TESSERA_BENCH_GRAPH_JOBS_CUDA)
      // The device's default lists the active vertices and expands their
      // edges balanced; the vertex loop (one thread per vertex's edges, the
      // host's schedule) beside it says whether that pays on this card.
      check_same(tg::run_jobs(g, jobs, w, fused_vertex_loop), tg::run_jobs(g, jobs, w, alone), pr_tol);
      cs.push_back({"tessera, fused job set, vertex loop",
                    [&] { tg::run_jobs(g, jobs, w, fused_vertex_loop); Space().fence(); }, ran, 0});
#endif
      // The PageRank batches pulled by the merge path (equal shares of rows
      // and edges; jobs_pagerank_merge_path.hpp) instead of the default (the
      // vector lanes on a device, vertex blocks on the host), until this row
      // says which is faster.
      if (std::any_of(jobs.begin(), jobs.end(), [](const tg::graph_job& j) { return j.kind == tg::job_kind::pagerank; })) {
        constexpr auto merge = tg::detail::PullSchedule::merge_path;
        check_same(tg::detail::run_jobs_with<merge>(g, jobs, &w, fused), tg::run_jobs(g, jobs, w, alone), pr_tol);
        cs.push_back({"tessera, fused job set, merge-path PageRank",
                      [&] { tg::detail::run_jobs_with<merge>(g, jobs, &w, fused); Space().fence(); }, ran, 0});
      }
      // Rows on the grid carry its name (the Kronecker rows keep theirs).
      report.add(grid > 0 ? graph_name + ", " + name : name, per_job_set, cs, tessera::bench::run_interleaved(cs, opt));
    };
    for (int c : counts) {
      measure(std::to_string(c) + " mixed jobs", job_set(c, pool, true, true, true, true));
      if (per_kind) {
        measure(std::to_string(c / 4) + " bfs jobs", job_set(c, pool, true, false, false, false));
        measure(std::to_string(c / 4) + " sssp jobs", job_set(c, pool, false, true, false, false));
        measure(std::to_string(c / 4) + " pagerank jobs", job_set(c, pool, false, false, true, false));
        measure(std::to_string(c / 4) + " jaccard jobs", job_set(c, pool, false, false, false, true));
      }
    }
  }
  tessera::finalize();
  return 0;
}
