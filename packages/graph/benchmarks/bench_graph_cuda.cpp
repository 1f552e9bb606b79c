// The graph algorithms on a GPU against peers written with the CUDA toolkit,
// in one process, on the same device arrays (the library's CSR graph: int64
// row offsets, int32 sorted targets), contenders interleaved within each
// repetition. Cases (`--only`):
//
//   pr   tessera::graph::pagerank (double ranks) vs cuSPARSE SpMV power
//        iterations in FP64 with the same formulation and stopping rule
//        (sum |r' - r| < --pr-tolerance, at most --pr-max-iterations;
//        gapbs's defaults 1e-4 and 20). Reported per iteration. Checked: the
//        same iteration count and ranks within 1e-9 in L1 (2 x tolerance if
//        the counts differ by one: the two sums round differently near the
//        threshold), ranks summing to 1. A third row times the library with
//        its sums read on the host after every iteration (PullSums::host),
//        a fourth its setup alone (a call with 0 iterations: work arrays,
//        first contributions, the merge path's offsets), divided by the same
//        iteration count: the setup's share of the library's per-iteration
//        figure, which the peer's does not carry (its descriptor, buffer and
//        int32 offsets are made once, untimed). One more row attributes the
//        rest: the library's own iteration loop (pagerank_device_sums: each
//        iteration the pull pass, the merge-path walk and its carries then
//        the finishing kernel with its two sums reduced into device scalars,
//        and the one-thread step kernel; the state read every 8) on work
//        arrays made once, run for exactly the library's iteration count
//        (tolerance 0: no passes launched past convergence, which the
//        library's last batch of 8 may have). The setup row and this one
//        should add up to the library's. (In the H200 run of 2026-12-04
//        this row called the pull pass by itself, with a base given by
//        value and reducers of its own, and took longer than the whole
//        loop, 1.00 against 0.87 ms on Kronecker 21: it did not
//        attribute.) And the library
//        with PullSchedule::vector_lanes (a team member per vertex, its lanes
//        splitting the in-edges, hubs in chunks: the GPU's default until the
//        merge path measured 3.2x faster on Kronecker 21 on an H200,
//        2026-12-04), checked against the default's ranks.
//   bfs  breadth_first_search with bfs_levels_visitor vs a CUB-based
//        direction-optimizing BFS (cuda_peers/bfs_cub.cuh), from the vertex
//        of largest degree. Checked: depths equal everywhere, and valid on
//        the host (source at 0, every edge's ends at most one level apart,
//        every reached vertex but the source has a neighbour one level up).
//        A third row times the library with its level loop controlled on
//        the device (BfsControl::device: a fixed kernel sequence per level,
//        the state read every 8 levels; the default until it measured slower
//        on an H200); checked: the same depths and bfs_result.
//   cc   connected_components (Afforest) vs an ECL-CC-style kernel set
//        (cuda_peers/cc_ecl.cuh). Checked: the same partition up to labels,
//        every edge inside one component, the same component count. A third
//        row counts Afforest's sample on the host (AfforestSample::host);
//        checked: the same labels.
//   tc   count_triangles (automatic order: by_degree on skewed graphs, its
//        orientation included) vs a warp-per-edge intersection count on a
//        degree-oriented graph (cuda_peers/tc_warp.cuh), timed with its
//        orientation, and again counting alone. Checked: equal counts. Two
//        more Tessera rows: 8 lanes per oriented edge instead of a warp's
//        32 (four edges per warp: most oriented lists of a Kronecker graph
//        are short), and the host's schedule (TriangleSchedule::vertex_merge:
//        hubs relabelled first, rows heap-sorted, one vertex's merges per
//        thread; the GPU's default until 2026-11-30).
//
// Graphs (`--graphs`): a Kronecker graph (Graph500 R-MAT, --scale, edge
// factor 16, seed 1, self-loops and duplicates removed) and a 2-D 4-neighbour
// grid of --grid-side^2 vertices (high diameter: 2 x side levels of BFS).
// Defaults: scale 21 and a 2048 x 2048 grid (4,194,304 vertices).
//
// Method: each case first runs every contender once and compares the answers
// (a mismatch, or an error thrown, is reported, the case is not timed, and
// the program exits 1 after the other cases); that run is also the warm-up and sizes the timing:
// --repeats rounds (default 7), fewer (at least 3) when a round would take
// the case past --case-seconds (default 8), so that the full program stays
// under about 2 minutes on an H100; no case starts after --max-seconds (150)
// of the run (the skipped ones are noted). Each run is timed by two CUDA events on
// Tessera's default instance stream (tessera::Cuda().cuda_stream()), which
// every peer is given too; library calls that return a count to the host
// are timed the same way (the events bracket everything they queue).
// Reported: median (min - max) per contender, and on the Tessera rows the
// per-repetition ratio peer time / Tessera time (>= 1: Tessera at least as
// fast). The device's name and SM count come first.
//
//   tessera_bench_graph_cuda [--quick] [--scale S] [--grid-side N] [--graphs kron,grid]
//                            [--only pr,bfs,cc,tc] [--repeats R] [--case-seconds T] [--json]
//
// --quick: scale 16, a 256 x 256 grid and 3 repeats (a smoke test; explicit
// flags win). Without a usable GPU the program prints "no CUDA device:
// <reason>" and exits 0, as tessera_bench_cuda does.
#include <tessera/bench/cli.hpp>
#include <tessera/bench/cuda_events.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/report.hpp>
#include <tessera/core.hpp>
#include <tessera/graph.hpp>

#include "cuda_peers/bfs_cub.cuh"
#include "cuda_peers/cc_ecl.cuh"
#include "cuda_peers/pagerank_cusparse.cuh"
#include "cuda_peers/tc_warp.cuh"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#if !TESSERA_ENABLE_CUDA
#error "bench_graph_cuda.cpp needs Tessera's CUDA back-end (Tessera_ENABLE_CUDA=ON)"
#endif

// A named namespace: nvcc refuses extended lambdas in functions with internal linkage.
namespace tessera_bench_graph_cuda {

namespace tg = tessera::graph;
namespace bench = tessera::bench;
using json = tessera::tools::json;
using tessera::Cuda;
using G = tg::compressed_sparse_row_graph<tg::undirectedS, Cuda>;
using V = G::vertex_descriptor;

struct Setup {
  bool json = false;
  bool quick = false;
  int repeats = 7;
  double case_seconds = 8;
  double max_seconds = 150;  // no case starts after this many seconds of the run
  int scale = 0;      // 0: 21, or 16 with --quick
  int grid_side = 0;  // 0: 2048, or 256 with --quick
  std::vector<std::string> graphs{"kron", "grid"};
  std::vector<std::string> only{"pr", "bfs", "cc", "tc"};
  double pr_tolerance = 1e-4;
  int pr_max_iterations = 20;
  cudaStream_t stream = nullptr;
  int threads = 0;  // Cuda().concurrency(): the threads column
  bool wants(const std::string& a) const { return std::find(only.begin(), only.end(), a) != only.end(); }
};

// Failed answer checks; any makes the program exit 1 after all cases.
std::vector<std::string> g_failures;

bool verify(const Setup& S, bool ok, const std::string& what) {
  if (!ok) {
    g_failures.push_back(what);
    std::fprintf(stderr, "bench_graph_cuda: CHECK FAILED: %s\n", what.c_str());
  } else if (!S.json) {
    std::printf("  check: %s: ok\n", what.c_str());
  }
  std::fflush(stdout);
  return ok;
}

// A case note: a JSON line with --json, otherwise "  # key = value, ...".
void note(const Setup& S, const bench::Report& report, const std::string& case_name, const json& fields) {
  if (S.json) {
    report.note(case_name, fields);
    return;
  }
  std::printf("  #");
  bool first = true;
  for (auto it = fields.begin(); it != fields.end(); ++it) {
    std::printf("%s %s = %s", first ? "" : ",", it.key().c_str(),
                it.value().is_string() ? it.value().get<std::string>().c_str() : it.value().dump().c_str());
    first = false;
  }
  std::printf("\n");
  std::fflush(stdout);
}

// ---- inputs ---------------------------------------------------------------------

struct Input {
  std::string name;
  G g;
  DeviceCsr csr;                   // g's own device arrays, for the peers
  std::vector<std::int64_t> rows;  // host copies, for the checks
  std::vector<std::int32_t> adj;
  V source = 0;                    // BFS source: the vertex of largest degree (first such)
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Input make_input(const Setup& S, const bench::Report& report, const std::string& which) {
  const auto t0 = std::chrono::steady_clock::now();
  Input in;
  tg::edge_list el;
  if (which == "kron") {
    in.name = "kron" + std::to_string(S.scale) + "-ef16";
    el = tg::kronecker(S.scale, 16, 1);
  } else {
    in.name = "grid" + std::to_string(S.grid_side) + "x" + std::to_string(S.grid_side);
    el = tg::grid_2d(S.grid_side, S.grid_side);
  }
  const double generated = seconds_since(t0);
  in.g = G(el, tg::build_options::simple());
  el = {};
  tessera::fence("bench_graph_cuda::build");
  const double built = seconds_since(t0) - generated;
  in.csr.n = in.g.num_vertices();
  in.csr.nnz = in.g.num_stored_edges();
  in.csr.rows = in.g.row_map_data();
  in.csr.adj = in.g.entries_data();
  in.rows = to_host(in.csr.rows, std::size_t(in.csr.n + 1));
  in.adj = to_host(in.csr.adj, std::size_t(in.csr.nnz));
  for (std::int64_t v = 1; v < in.csr.n; ++v)
    if (in.rows[v + 1] - in.rows[v] > in.rows[in.source + 1] - in.rows[in.source]) in.source = V(v);
  if (!S.json)
    std::printf("\n# %s: %lld vertices, %lld undirected edges (%lld stored slots); generated on the host in %.2f s, "
                "CSR built on the device in %.2f s\n",
                in.name.c_str(), (long long)in.csr.n, (long long)in.g.num_edges(), (long long)in.csr.nnz, generated,
                built);
  else
    report.note(in.name, {{"vertices", in.csr.n},
                          {"edges", in.g.num_edges()},
                          {"stored_slots", in.csr.nnz},
                          {"generate_s", tessera::tools::rounded(generated, 4)},
                          {"build_s", tessera::tools::rounded(built, 4)}});
  return in;
}

// ---- timing -----------------------------------------------------------------------

bench::Contender contender(const Setup& S, const std::string& name, std::function<void()> work, int reference = -1) {
  return bench::cuda_contender(name, S.stream, S.threads, std::move(work), reference);
}

// One run of each contender (the check run, also the warm-up); returns the
// seconds of the round.
double check_round(const std::vector<bench::Contender>& cs) {
  double round = 0;
  for (const auto& c : cs) {
    c.prepare();
    c.run();
    round += c.measured_seconds();
  }
  return round;
}

// The timed rounds: --repeats, fewer (at least 3) when a round would take the
// case past --case-seconds.
std::vector<bench::Result> timed(const Setup& S, const std::vector<bench::Contender>& cs, double round_seconds) {
  bench::InterleaveOptions o;
  o.warmup = 0;  // check_round ran every contender once already
  o.pause_ms = 0;
  o.repeats = S.repeats;
  if (round_seconds * S.repeats > S.case_seconds)
    o.repeats = std::max(3, int(S.case_seconds / std::max(round_seconds, 1e-9)));
  return bench::run_interleaved(cs, o);
}

bench::Measure ms_per(double items) { return {"ms", items, 1e3, true, true}; }

// ---- PageRank ---------------------------------------------------------------------

void case_pagerank(const Setup& S, const bench::Report& report, const Input& in) {
  const std::string name = in.name + " pagerank";
  const double damping = 0.85;
  if (!S.json)
    std::printf("\n# %s: damping %.2f, stop when sum |r' - r| < %g or after %d iterations; FP64 ranks\n",
                name.c_str(), damping, S.pr_tolerance, S.pr_max_iterations);
  tg::vertex_property_map<G, double> ranks(in.g, "bench::ranks"), ranks_host_sums(in.g, "bench::ranks_host_sums"),
      ranks_setup(in.g, "bench::ranks_setup");
  CusparsePagerank peer(in.csr, S.stream);
  int it_tessera = 0, it_peer = 0, it_host_sums = 0, it_setup = -1, it_lanes = 0;
  tg::vertex_property_map<G, double> ranks_lanes(in.g, "bench::ranks_lanes");
  using tg::detail::PullSchedule;
  using tg::detail::PullSums;
  using SS = G::space_type;
  constexpr PullSchedule Schedule = tg::detail::pull_schedule_for<G>;
  // The attribution row's inputs, made once: any ranks and contributions do
  // (the loop's work does not depend on their values, and with tolerance 0
  // it runs every iteration it is given), and the schedule's work arrays.
  struct Attribution {
    tessera::View<double*, SS> r, contrib, contrib_next;
    decltype(tg::detail::make_pull_work<Schedule, Cuda, SS>(std::declval<const G&>(), 0)) work;
  } attribution;
  attribution.r = tessera::View<double*, SS>("bench::pr_r", in.csr.n);
  attribution.contrib = tessera::View<double*, SS>("bench::pr_contrib", in.csr.n);
  attribution.contrib_next = tessera::View<double*, SS>("bench::pr_contrib_next", in.csr.n);
  tessera::deep_copy(attribution.contrib, 1.0 / double(in.csr.n));
  attribution.work = tg::detail::make_pull_work<Schedule, Cuda, SS>(in.g, in.csr.n);
  tessera::fence("bench_graph_cuda::pagerank attribution inputs");
  int it_loop = -1;
  // The third row is the library's pull with its sums read on the host after
  // every iteration (what pagerank did before its sums stayed on the device):
  // the gain of keeping them there, on this card.
  const std::vector<bench::Contender> cs{
      contender(S, "cuSPARSE SpMV iterations (FP64)", [&] { it_peer = peer.run(damping, S.pr_tolerance, S.pr_max_iterations); }),
      contender(S, "tessera pagerank (double)",
                [&] { it_tessera = tg::pagerank(in.g, ranks, damping, S.pr_tolerance, S.pr_max_iterations); }, 0),
      contender(S, "tessera, sums read every iteration",
                [&] {
                  it_host_sums = tg::detail::pagerank_with<tg::detail::default_pull_schedule<Cuda>, PullSums::host>(
                      in.g, ranks_host_sums, damping, S.pr_tolerance, S.pr_max_iterations);
                },
                0),
      contender(S, "tessera pagerank, vector-lane pull",
                [&] {
                  it_lanes = tg::detail::pagerank_with<PullSchedule::vector_lanes, PullSums::device>(
                      in.g, ranks_lanes, damping, S.pr_tolerance, S.pr_max_iterations);
                },
                0),
      contender(S, "tessera, its setup alone (0 iterations)",
                [&] { it_setup = tg::pagerank(in.g, ranks_setup, damping, S.pr_tolerance, 0); }),
      contender(S, "tessera, its iteration loop alone",
                [&] {
                  const double inv_n = 1.0 / double(in.csr.n);
                  it_loop = tg::detail::pagerank_device_sums<Schedule, Cuda, SS>(
                      in.g, attribution.r, attribution.contrib, attribution.contrib_next,
                      (1.0 - damping) * inv_n, 0.0, damping, 0.0, it_tessera, in.csr.n, attribution.work);
                })};
  const double round = check_round(cs);
  verify(S, it_setup == 0, name + ": a call with 0 iterations runs none (" + std::to_string(it_setup) + ")");
  verify(S, it_loop == it_tessera,
         name + ": the loop alone runs the library's " + std::to_string(it_tessera) + " iterations (" +
             std::to_string(it_loop) + ")");
  const auto a = to_host(ranks.view().data(), std::size_t(in.csr.n));
  const auto b = to_host(peer.ranks(), std::size_t(in.csr.n));
  const auto c = to_host(ranks_host_sums.view().data(), std::size_t(in.csr.n));
  double l1 = 0, sum = 0, l1_sums = 0;
  for (std::size_t v = 0; v < a.size(); ++v) l1 += std::fabs(a[v] - b[v]), sum += a[v], l1_sums += std::fabs(a[v] - c[v]);
  verify(S, it_host_sums == it_tessera && l1_sums <= 1e-12,
         name + ": sums on the device and on the host give the same " + std::to_string(it_tessera) +
             " iterations (host " + std::to_string(it_host_sums) + ") and ranks (L1 " + std::to_string(l1_sums) + ")");
  {
    const auto m = to_host(ranks_lanes.view().data(), std::size_t(in.csr.n));
    double l1_lanes = 0;
    for (std::size_t v = 0; v < a.size(); ++v) l1_lanes += std::fabs(a[v] - m[v]);
    const double lanes_limit = it_lanes == it_tessera ? 1e-9 : 2 * S.pr_tolerance;
    verify(S, std::abs(it_lanes - it_tessera) <= 1 && l1_lanes <= lanes_limit,
           name + ": the vector-lane pull gives " + std::to_string(it_lanes) + " iterations (default " +
               std::to_string(it_tessera) + ") and ranks within " + std::to_string(l1_lanes) + " in L1");
  }
  const bool same_count = it_tessera == it_peer;
  const double limit = same_count ? 1e-9 : 2 * S.pr_tolerance;
  char what[256];
  std::snprintf(what, sizeof what,
                "%s: iterations tessera %d, cuSPARSE %d; sum |r_tessera - r_cusparse| = %.3g (limit %.3g); "
                "sum of ranks %.12f",
                name.c_str(), it_tessera, it_peer, l1, limit, sum);
  if (!verify(S, std::abs(it_tessera - it_peer) <= 1 && l1 <= limit && std::fabs(sum - 1.0) < 1e-6, what)) return;
  const auto rs = timed(S, cs, round);
  report.add(name + " (per iteration)", ms_per(it_tessera), cs, rs);
  note(S, report, name, {{"iterations", it_tessera}, {"l1_difference", tessera::tools::rounded(l1, 3)},
                         {"merge_path_items", attribution.work.items}});
}

// ---- BFS ----------------------------------------------------------------------------

// Graph500-style validity of a depth array (on the host, from the CSR).
std::string bfs_depths_invalid(const Input& in, const std::vector<std::int32_t>& d) {
  if (d[in.source] != 0) return "source not at depth 0";
  for (std::int64_t u = 0; u < in.csr.n; ++u) {
    bool has_parent = false;
    for (auto k = in.rows[u]; k < in.rows[u + 1]; ++k) {
      const auto w = in.adj[k];
      if ((d[u] < 0) != (d[w] < 0))
        return "edge " + std::to_string(u) + "-" + std::to_string(w) + " joins a reached and an unreached vertex";
      if (d[u] >= 0 && std::abs(d[u] - d[w]) > 1)
        return "edge " + std::to_string(u) + "-" + std::to_string(w) + " spans depths " + std::to_string(d[u]) +
               " and " + std::to_string(d[w]);
      has_parent = has_parent || (d[u] > 0 && d[w] == d[u] - 1);
    }
    if (d[u] > 0 && !has_parent) return "vertex " + std::to_string(u) + " has no neighbour one level up";
  }
  return {};
}

void case_bfs(const Setup& S, const bench::Report& report, const Input& in) {
  const std::string name = in.name + " bfs";
  if (!S.json)
    std::printf("\n# %s from vertex %d (largest degree, %lld), depths\n", name.c_str(), int(in.source),
                (long long)(in.rows[in.source + 1] - in.rows[in.source]));
  tg::vertex_property_map<G, std::int32_t> levels(in.g, "bench::levels");
  const tg::bfs_levels_visitor<G> vis(levels);
  CubBfs peer(in.csr, S.stream);
  tg::vertex_property_map<G, std::int32_t> levels_device_control(in.g, "bench::levels_device_control");
  const tg::bfs_levels_visitor<G> vis_device_control(levels_device_control);
  tg::bfs_result rt, rh;
  CubBfs::Stats rp;
  // The third row is the library's level loop controlled on the device
  // (breadth_first_search's GPU default until it measured slower).
  const std::vector<bench::Contender> cs{
      contender(S, "CUB direction-optimizing BFS", [&] { rp = peer.run(in.source); }),
      contender(S, "tessera breadth_first_search", [&] { rt = tg::breadth_first_search(in.g, in.source, vis); }, 0),
      contender(S, "tessera, level state kept on the device",
                [&] {
                  rh = tg::detail::breadth_first_search_with<tg::detail::BfsControl::device>(in.g, in.source, vis_device_control,
                                                                                          tg::bfs_options{});
                },
                0)};
  const double round = check_round(cs);
  const auto a = to_host(levels.view().data(), std::size_t(in.csr.n));
  const auto b = to_host(peer.depths(), std::size_t(in.csr.n));
  const auto h = to_host(levels_device_control.view().data(), std::size_t(in.csr.n));
  verify(S, a == h && rt.visited == rh.visited && rt.levels == rh.levels && rt.bottom_up_levels == rh.bottom_up_levels &&
                rt.edges_traversed == rh.edges_traversed,
         name + ": device and host control give the same depths and counts (levels " + std::to_string(rt.levels) + " / " +
             std::to_string(rh.levels) + ", bottom-up " + std::to_string(rt.bottom_up_levels) + " / " +
             std::to_string(rh.bottom_up_levels) + ")");
  std::int64_t differ = 0, first = -1;
  for (std::size_t v = 0; v < a.size(); ++v)
    if (a[v] != b[v]) differ += 1, first = first < 0 ? std::int64_t(v) : first;
  std::string what = name + ": depths equal (tessera " + std::to_string(rt.visited) + " reached in " +
                     std::to_string(rt.levels) + " levels, CUB peer " + std::to_string(rp.reached) + " in " +
                     std::to_string(rp.levels) + ")";
  if (differ)
    what += "; " + std::to_string(differ) + " differ, first vertex " + std::to_string(first) + ": " +
            std::to_string(a[first]) + " vs " + std::to_string(b[first]);
  const std::string invalid = bfs_depths_invalid(in, b);
  if (!verify(S, differ == 0 && rt.visited == rp.reached, what)) return;
  if (!verify(S, invalid.empty(), name + ": depths form a BFS of the graph" + (invalid.empty() ? "" : ": " + invalid)))
    return;
  // Traversed edges, as Graph500 counts them: those within the reached component.
  std::int64_t slots = 0;
  for (std::int64_t v = 0; v < in.csr.n; ++v)
    if (b[v] >= 0) slots += in.rows[v + 1] - in.rows[v];
  const auto rs = timed(S, cs, round);
  report.add(name, ms_per(1), cs, rs);
  const double edges = double(slots) / 2;
  note(S, report, name,
       {{"levels", rt.levels},
        {"tessera bottom-up levels", rt.bottom_up_levels},
        {"peer bottom-up levels", rp.bottom_up_levels},
        {"traversed edges", std::int64_t(edges)},
        {"tessera GTEPS", tessera::tools::rounded(edges / bench::summarize(rs[1].seconds).median * 1e-9, 4)},
        {"peer GTEPS", tessera::tools::rounded(edges / bench::summarize(rs[0].seconds).median * 1e-9, 4)}});
}

// ---- connected components ---------------------------------------------------------------

void case_cc(const Setup& S, const bench::Report& report, const Input& in) {
  const std::string name = in.name + " cc";
  if (!S.json) std::printf("\n# %s: connected components\n", name.c_str());
  tg::vertex_property_map<G, V> comp(in.g, "bench::components");
  EclCc peer(in.csr, S.stream);
  tg::vertex_property_map<G, V> comp_host_sample(in.g, "bench::components_host_sample");
  std::int64_t k = 0, k_host_sample = 0;
  // The third row counts Afforest's sample on the host (what
  // connected_components did before the count moved to the device).
  const std::vector<bench::Contender> cs{
      contender(S, "ECL-CC-style kernels", [&] { peer.run(); }),
      contender(S, "tessera connected_components (Afforest)", [&] { k = tg::connected_components(in.g, comp); }, 0),
      contender(S, "tessera, sample counted on the host",
                [&] {
                  k_host_sample =
                      tg::detail::connected_components_with<tg::detail::AfforestSample::host>(in.g, comp_host_sample);
                },
                0)};
  const double round = check_round(cs);
  const auto a = to_host(comp.view().data(), std::size_t(in.csr.n));
  const auto b = to_host(peer.labels(), std::size_t(in.csr.n));
  verify(S, k == k_host_sample && a == to_host(comp_host_sample.view().data(), std::size_t(in.csr.n)),
         name + ": the sample counted on the device and on the host give the same labels (" + std::to_string(k) + " / " +
             std::to_string(k_host_sample) + " components)");
  // The same partition up to labels: the label maps a -> b and b -> a are functions.
  std::vector<std::int64_t> ab(std::size_t(in.csr.n), -1), ba(std::size_t(in.csr.n), -1);
  std::string problem;
  std::int64_t peer_components = 0;
  for (std::int64_t v = 0; v < in.csr.n && problem.empty(); ++v) {
    const auto x = a[v], y = b[v];
    if (x < 0 || x >= in.csr.n || y < 0 || y >= in.csr.n) {
      problem = "vertex " + std::to_string(v) + " has label " + std::to_string(x) + " / " + std::to_string(y);
      break;
    }
    if (ab[x] < 0 && ba[y] < 0) ab[x] = y, ba[y] = x, ++peer_components;
    if (ab[x] != y || ba[y] != x)
      problem = "vertex " + std::to_string(v) + " splits or merges components (labels " + std::to_string(x) + ", " +
                std::to_string(y) + ")";
  }
  for (std::int64_t u = 0; u < in.csr.n && problem.empty(); ++u)
    for (auto j = in.rows[u]; j < in.rows[u + 1]; ++j)
      if (a[u] != a[in.adj[j]]) {
        problem = "edge " + std::to_string(u) + "-" + std::to_string(in.adj[j]) + " joins two components";
        break;
      }
  if (problem.empty() && peer_components != k)
    problem = std::to_string(k) + " components reported, " + std::to_string(peer_components) + " labels";
  if (!verify(S, problem.empty(),
              name + ": same partition (" + std::to_string(k) + " components)" + (problem.empty() ? "" : ": " + problem)))
    return;
  const auto rs = timed(S, cs, round);
  report.add(name, ms_per(1), cs, rs);
  note(S, report, name, {{"components", k}});
}

// ---- triangles -----------------------------------------------------------------------------

void case_tc(const Setup& S, const bench::Report& report, const Input& in) {
  const std::string name = in.name + " tc";
  if (!S.json) std::printf("\n# %s: triangle count, orientation included\n", name.c_str());
  WarpTriangles peer(in.csr, S.stream);
  std::int64_t t_tessera = -1, t_peer = -1, t_count = -1, t_lanes8 = -1, t_merge = -1;
  using tg::detail::TriangleSchedule;
  const auto automatic = tg::triangle_order::automatic;
  const std::vector<bench::Contender> cs{
      contender(S, "warp intersection, orientation + count", [&] { t_peer = peer.run(); }),
      contender(S, "warp intersection, count only", [&] { t_count = peer.count(); }),
      contender(S, "tessera count_triangles", [&] { t_tessera = tg::count_triangles(in.g); }, 0),
      contender(S, "tessera, 8 lanes per oriented edge",
                [&] {
                  t_lanes8 = tg::detail::find_triangles_with<TriangleSchedule::edge_lanes>(
                      in.g, tg::detail::no_triangle_visitor{}, automatic, 8);
                },
                0),
      contender(S, "tessera, the host's schedule (relabel, merge per vertex)",
                [&] {
                  t_merge = tg::detail::find_triangles_with<TriangleSchedule::vertex_merge>(
                      in.g, tg::detail::no_triangle_visitor{}, automatic);
                },
                0)};
  const double round = check_round(cs);
  if (!verify(S, t_tessera == t_peer && t_peer == t_count && t_lanes8 == t_peer && t_merge == t_peer,
              name + ": tessera " + std::to_string(t_tessera) + " triangles (8 lanes " + std::to_string(t_lanes8) +
                  ", host schedule " + std::to_string(t_merge) + "), peer " + std::to_string(t_peer) +
                  " (count only " + std::to_string(t_count) + ")"))
    return;
  const auto rs = timed(S, cs, round);
  report.add(name, ms_per(1), cs, rs);
  note(S, report, name, {{"triangles", t_tessera}});
}

// ---- main --------------------------------------------------------------------------------

void print_device(const Setup& S, const bench::Report& report) {
  const int dev = Cuda().cuda_device();
  cudaDeviceProp p{};
  TBG_CK(cudaGetDeviceProperties(&p, dev));
  int driver = 0, runtime = 0;
  TBG_CK(cudaDriverGetVersion(&driver));
  TBG_CK(cudaRuntimeGetVersion(&runtime));
  const auto ver = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  if (S.json) {
    report.note("device", {{"device", p.name},
                           {"sm_count", p.multiProcessorCount},
                           {"compute_capability", std::to_string(p.major) + "." + std::to_string(p.minor)},
                           {"global_memory_GiB", tessera::tools::fixed(double(p.totalGlobalMem) / double(1ull << 30), 1)},
                           {"driver", ver(driver)},
                           {"runtime", ver(runtime)},
                           {"repeats", S.repeats},
                           {"mode", S.quick ? "quick" : "full"}});
  } else {
    std::printf("# device %d: %s, %d SMs, compute capability %d.%d, %.1f GiB; CUDA driver %s, runtime %s\n", dev,
                p.name, p.multiProcessorCount, p.major, p.minor, double(p.totalGlobalMem) / double(1ull << 30),
                ver(driver).c_str(), ver(runtime).c_str());
    std::printf("# up to %d repeats%s (fewer past %.0f s a case), contenders interleaved, CUDA events on Tessera's "
                "stream\n# ratio = peer time / Tessera time per repeat (>= 1: Tessera at least as fast)\n",
                S.repeats, S.quick ? " (--quick sizes)" : "", S.case_seconds);
  }
}

int run(int argc, char* argv[]) {
  bench::Cli cli("tessera_bench_graph_cuda",
                 "The graph algorithms on a GPU against cuSPARSE PageRank, a CUB BFS, ECL-CC-style components and a "
                 "warp-intersection triangle count, on Kronecker and 2-D grid graphs, timed with CUDA events.",
                 7);
  Setup S;
  cli.app().add_flag("--quick", S.quick, "scale 16, a 256 x 256 grid and 3 repeats (explicit flags win)");
  cli.app().add_option("--scale", S.scale, "Kronecker scale (default 21; 16 with --quick)")->check(tessera::tools::integer(1, 26));
  cli.app()
      .add_option("--grid-side", S.grid_side, "the grid's side (default 2048: 4,194,304 vertices; 256 with --quick)")
      ->check(tessera::tools::integer(2, 16384));
  cli.app()
      .add_option("--graphs", S.graphs, "graphs, comma-separated (default kron,grid)")
      ->delimiter(',')
      ->check(tessera::tools::one_of({"kron", "grid"}));
  cli.app()
      .add_option("--only", S.only, "cases, comma-separated (default pr,bfs,cc,tc)")
      ->delimiter(',')
      ->check(tessera::tools::one_of({"pr", "bfs", "cc", "tc"}));
  cli.app()
      .add_option("--case-seconds", S.case_seconds, "fewer repeats (at least 3) past this many seconds of timing per case")
      ->capture_default_str();
  cli.app()
      .add_option("--max-seconds", S.max_seconds, "start no case after this many seconds of the run (skipped cases are noted)")
      ->capture_default_str();
  cli.app().add_option("--pr-tolerance", S.pr_tolerance, "PageRank: stop when sum |r' - r| < this")->capture_default_str();
  cli.app()
      .add_option("--pr-max-iterations", S.pr_max_iterations, "PageRank: at most this many iterations")
      ->check(tessera::tools::integer(1, 100000))
      ->capture_default_str();
  if (auto status = cli.parse(argc, argv)) return *status;
  S.json = cli.json;
  S.repeats = S.quick && cli.app().get_option("--repeats")->count() == 0 ? 3 : cli.repeats;
  if (S.scale == 0) S.scale = S.quick ? 16 : 21;
  if (S.grid_side == 0) S.grid_side = S.quick ? 256 : 2048;
  if (!(S.case_seconds > 0)) return cli.fail("--case-seconds must be positive");
  if (!(S.max_seconds > 0)) return cli.fail("--max-seconds must be positive");
  if (!(S.pr_tolerance >= 0)) return cli.fail("--pr-tolerance must be >= 0");
  tessera::ScopeGuard guard(cli.settings());

  if (!Cuda::impl_is_available()) {
    const std::string msg = "no CUDA device: " + Cuda::impl_unavailable_reason();
    if (S.json)
      tessera::tools::print_line({{"bench", "graph_cuda"}, {"case", "device"}, {"skipped", msg}});
    else
      std::printf("%s\n", msg.c_str());
    return 0;
  }

  const auto t0 = std::chrono::steady_clock::now();
  try {
    S.stream = Cuda().cuda_stream();
    S.threads = Cuda().concurrency();
    const bench::Report report("graph_cuda", S.json);
    print_device(S, report);
    // A case that throws (a CUDA error, a library failure) is recorded and
    // the others still run: a device session is too short to rerun them all.
    // A sticky device fault makes every later case fail the same way.
    using Case = void (*)(const Setup&, const bench::Report&, const Input&);
    const std::vector<std::pair<const char*, Case>> cases{
        {"pr", case_pagerank}, {"bfs", case_bfs}, {"cc", case_cc}, {"tc", case_tc}};
    for (const auto& which : S.graphs) {
      const Input in = make_input(S, report, which);
      for (const auto& [id, run_case] : cases) {
        if (!S.wants(id)) continue;
        // A slow contender (the library's BFS pays host round trips on each
        // of the grid's ~4,000 levels) must not take the run past what a
        // device session can spare: later cases are skipped, and said so.
        if (seconds_since(t0) > S.max_seconds) {
          const std::string why = "--max-seconds " + std::to_string(int(S.max_seconds)) + " reached";
          if (S.json) report.note(in.name + " " + id, {{"skipped", why}});
          else std::printf("\n# %s %s: skipped (%s)\n", in.name.c_str(), id, why.c_str());
          continue;
        }
        try {
          run_case(S, report, in);
        } catch (const std::exception& e) {
          verify(S, false, in.name + " " + id + ": error: " + e.what());
          (void)cudaGetLastError();  // clear a non-sticky error for the next case
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_graph_cuda: error: %s\n", e.what());
    return 1;
  }
  if (!S.json) std::printf("\n# total %.1f s\n", seconds_since(t0));
  if (!g_failures.empty()) {
    std::fprintf(stderr, "bench_graph_cuda: %zu answer check(s) failed\n", g_failures.size());
    return 1;
  }
  return 0;
}

}  // namespace tessera_bench_graph_cuda

int main(int argc, char* argv[]) { return tessera_bench_graph_cuda::run(argc, argv); }
