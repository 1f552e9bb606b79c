// Graph benchmarks: Tessera's algorithms against the GAP Benchmark Suite
// (gapbs, the suite graph people measure against) and SuiteSparse:GraphBLAS,
// on the same graphs, in one program, contenders interleaved within each
// repetition (tessera::bench::run_interleaved), so a shared machine whose
// speed drifts slows every contender alike. Each row's ratio is Tessera's
// time / the row's time per repetition (<= 1: Tessera took at most the peer's
// time), summarized as median (min-max).
//
//   tessera_bench_graph [--file PATH[@SOURCE]]... [--scales 18,20] [--real]
//                       [--algorithms bfs,cc,pr,tc,sssp,msbfs] [--threads 1,2]
//                       [--repeats 5] [--tc-repeats 3] [--gapbs-trials 2] [--json]
//
//  --file     PATH[@SOURCE[@DELTA]]: a graph file (.tgb from `tessera-graph
//             convert`, .mtx, or an edge list), read undirected; SOURCE is the
//             BFS/SSSP source (default: the vertex of largest degree), DELTA
//             the SSSP bucket width (default 2, gapbs's -d). gapbs reads the same graph from
//             the file next to it with the extension .sg (or .wsg for sssp),
//             made by gapbs's `converter -f X.el -s -b X.sg` from the edge list
//             the .tgb was converted from (same vertex ids).
//  --scales   Kronecker graphs generated in the program (no gapbs peer: gapbs
//             generates its own); --real: the shared real graphs of examples/data.
//             Without --file the default is --scales 18 --real.
//  --threads  1 runs Tessera on Serial, more on OpenMP (--tessera-num-threads=N
//             sets its thread count); gapbs gets OMP_NUM_THREADS (with
//             OMP_DYNAMIC=false, so it gets exactly that many), GraphBLAS
//             GxB_NTHREADS (its upper bound: GraphBLAS uses fewer on small
//             work). Tessera's OpenMP rows print the team size libgomp gives.
//
// gapbs is found through GAPBS_DIR (environment, else the CMake variable of
// the same name): a directory holding its built binaries (bfs, cc, pr, tc,
// sssp). Without it the program says so and runs without that peer.
//
// How gapbs is timed. Its kernels are timed by gapbs itself: each repetition
// starts the binary (`-f X.sg -n K`, K = --gapbs-trials) and takes the last
// "Trial Time" it prints, which covers the kernel only (not reading the
// graph), exactly as gapbs reports it. Linking gapbs's kernels in instead
// would time the same code but take it out of its own build and harness; its
// binaries are what others run and quote. Tessera and GraphBLAS are timed the
// same way in this process: each repetition calls the kernel K times and keeps
// the last time. So every contender is timed warm (arrays allocated once
// before, so no first-touch page faults; its data in cache from its own
// previous trial) right after the other contenders ran. K = 2 by default;
// tc uses K = 1 (seconds long: neither matters).
// What each algorithm computes (answers checked before timing; a mismatch
// aborts, except PageRank's top-5 order against gapbs, which is reported):
//  bfs   Tessera: breadth_first_search with bfs_parents_visitor (gapbs's BFS
//        output is a parent array too); gapbs bfs -r SOURCE; GraphBLAS:
//        parents by direction-optimizing masked vxm (push) / mxv (pull),
//        see gb_bfs, and the same giving levels only (gb_bfs_levels, its
//        fastest form: less output than parents). Checked: reached count and levels against a serial
//        BFS, both parent trees, gapbs's "BFS Tree has N nodes".
//  cc    connected_components (Afforest) vs gapbs cc (Afforest); component
//        count and largest component against union-find and gapbs's output.
//  pr    20 iterations, tolerance 0, time per iteration. Tessera: pagerank on
//        float ranks (gapbs's ScoreT is float; --pr-double for double);
//        gapbs pr -i 20 -t 0 (pull, Gauss-Seidel); GraphBLAS vxm. Top-5
//        vertices compared with gapbs's.
//  tc    count_triangles vs gapbs tc (which relabels by degree when it
//        pays, inside its timing) and GraphBLAS C<L> = L*L' PLUS_PAIR.
//  sssp  delta_stepping_shortest_paths vs gapbs sssp, same source, same
//        delta, same int32 weights (gapbs's X.wsg; Tessera reads them from
//        X.wel, the weighted edge list gapbs's converter writes with -w -e);
//        checked against a serial Dijkstra and gapbs's reached count.
//  msbfs 64 sources in one multi_source_bfs vs 64 breadth_first_search runs.
#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/openmp.hpp>
#include <tessera/bench/report.hpp>
#include <tessera/graph.hpp>

#if TESSERA_BENCH_HAVE_GRAPHBLAS
extern "C" {
#include <GraphBLAS.h>
}
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <limits>
#include <numeric>
#include <queue>
#include <set>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <tuple>
#include <vector>

namespace tg = tessera::graph;
namespace tb = tessera::bench;

#ifndef TESSERA_BENCH_GAPBS_DIR
#define TESSERA_BENCH_GAPBS_DIR ""
#endif

namespace {

[[noreturn]] void mismatch(const std::string& what) {
  std::fprintf(stderr, "MISMATCH: %s\n", what.c_str());
  std::exit(3);
}

bool file_exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

std::string load_average() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

// Serial references on a host CSR ------------------------------------------------
struct host_csr {
  std::int64_t n = 0;
  std::vector<std::int64_t> rows;
  std::vector<std::int32_t> adj;
  bool has_edge(std::int64_t u, std::int64_t v) const {
    return std::binary_search(adj.begin() + rows[u], adj.begin() + rows[u + 1], std::int32_t(v));
  }
};

std::vector<int> ref_bfs(const host_csr& g, std::int64_t s) {
  std::vector<int> lv(g.n, -1);
  std::vector<std::int32_t> q{std::int32_t(s)};
  lv[s] = 0;
  for (std::size_t h = 0; h < q.size(); ++h) {
    const auto u = q[h];
    for (auto k = g.rows[u]; k < g.rows[u + 1]; ++k)
      if (lv[g.adj[k]] < 0) lv[g.adj[k]] = lv[u] + 1, q.push_back(g.adj[k]);
  }
  return lv;
}

// Component count and largest component size by union-find.
std::pair<std::int64_t, std::int64_t> ref_cc(const host_csr& g) {
  std::vector<std::int64_t> p(g.n);
  std::iota(p.begin(), p.end(), 0);
  auto find = [&](std::int64_t x) {
    while (p[x] != x) x = p[x] = p[p[x]];
    return x;
  };
  for (std::int64_t u = 0; u < g.n; ++u)
    for (auto k = g.rows[u]; k < g.rows[u + 1]; ++k) {
      auto a = find(u), b = find(g.adj[k]);
      if (a != b) p[std::max(a, b)] = std::min(a, b);
    }
  std::vector<std::int64_t> size(g.n, 0);
  std::int64_t c = 0, big = 0;
  for (std::int64_t v = 0; v < g.n; ++v) {
    c += find(v) == v;
    big = std::max(big, ++size[find(v)]);
  }
  return {c, big};
}

void ref_pagerank(const host_csr& g, int iters, std::vector<double>& r) {
  const double d = 0.85;
  r.assign(g.n, 1.0 / double(g.n));
  std::vector<double> c(g.n);
  for (int it = 0; it < iters; ++it) {
    double dangling = 0;
    for (std::int64_t v = 0; v < g.n; ++v) {
      const auto deg = g.rows[v + 1] - g.rows[v];
      c[v] = deg ? r[v] / double(deg) : 0.0;
      if (!deg) dangling += r[v];
    }
    const double base = (1 - d) / double(g.n) + d * dangling / double(g.n);
    for (std::int64_t v = 0; v < g.n; ++v) {
      double s = 0;
      for (auto k = g.rows[v]; k < g.rows[v + 1]; ++k) s += c[g.adj[k]];
      r[v] = base + d * s;
    }
  }
}

std::int64_t ref_tc(const host_csr& g) {
  std::int64_t t = 0;
  for (std::int64_t u = 0; u < g.n; ++u)
    for (auto k = g.rows[u]; k < g.rows[u + 1]; ++k) {
      const std::int64_t v = g.adj[k];
      if (v <= u) continue;
      auto a = k + 1, ea = g.rows[u + 1];
      auto b = std::upper_bound(g.adj.begin() + g.rows[v], g.adj.begin() + g.rows[v + 1], std::int32_t(v)) - g.adj.begin();
      const auto eb = g.rows[v + 1];
      while (a < ea && b < eb) {
        if (g.adj[a] < g.adj[b]) ++a;
        else if (g.adj[b] < g.adj[a]) ++b;
        else ++t, ++a, ++b;
      }
    }
  return t;
}

std::vector<std::int64_t> top_k(const std::vector<double>& r, std::size_t k) {
  std::vector<std::int64_t> id(r.size());
  std::iota(id.begin(), id.end(), 0);
  k = std::min(k, id.size());
  std::partial_sort(id.begin(), id.begin() + std::ptrdiff_t(k), id.end(),
                    [&](std::int64_t a, std::int64_t b) { return r[a] > r[b] || (r[a] == r[b] && a < b); });
  id.resize(k);
  return id;
}

// gapbs ----------------------------------------------------------------------------
// The directed graph type over the same storage as an undirected CSR graph.
template <class G>
struct directed_twin;
template <class D, class S, class V, class E>
struct directed_twin<tg::compressed_sparse_row_graph<D, S, V, E>> {
  using type = tg::compressed_sparse_row_graph<tg::directedS, S, V, E>;
};

struct gapbs_peer {
  std::string dir;  // empty: absent

  static gapbs_peer find() {
    gapbs_peer p;
    if (const char* e = std::getenv("GAPBS_DIR"); e && *e) p.dir = e;
    else p.dir = TESSERA_BENCH_GAPBS_DIR;
    if (!p.dir.empty() && !file_exists(p.dir + "/bfs")) {
      std::printf("# gapbs: GAPBS_DIR=%s holds no built 'bfs' (run make there); gapbs rows skipped\n", p.dir.c_str());
      p.dir.clear();
    } else if (p.dir.empty()) {
      std::printf("# gapbs: not found (set GAPBS_DIR, in the environment or as a CMake variable, to a built gapbs tree); "
                  "gapbs rows skipped\n");
    } else {
      std::printf("# gapbs: %s\n", p.dir.c_str());
    }
    return p;
  }
  bool has(const std::string& kernel) const { return !dir.empty() && file_exists(dir + "/" + kernel); }

  // Runs one gapbs process; returns its output (stdout and stderr). Exits on failure.
  std::string run(const std::string& kernel, const std::string& graph, int threads, int trials, const std::string& args) const {
    // OMP_DYNAMIC=false and OMP_THREAD_LIMIT: libgomp then gives gapbs's
    // regions exactly `threads` threads, the count its row reports.
    const std::string cmd = "OMP_DYNAMIC=false OMP_THREAD_LIMIT=" + std::to_string(threads) + " OMP_NUM_THREADS=" + std::to_string(threads) + " '" + dir + "/" + kernel + "' -f '" + graph +
                            "' -n " + std::to_string(trials) + " " + args + " 2>&1";
    std::string out;
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) mismatch("cannot start: " + cmd);
    char buf[4096];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    if (::pclose(p) != 0) {
      std::fprintf(stderr, "gapbs failed: %s\n%s\n", cmd.c_str(), out.c_str());
      std::exit(4);
    }
    return out;
  }
  static std::vector<double> trial_times(const std::string& out) {
    std::vector<double> t;
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("Trial Time:", 0) == 0) t.push_back(std::atof(line.c_str() + 11));
    return t;
  }
  // The number after `key` on the first line containing it (-1 when absent).
  static double number_after(const std::string& out, const std::string& key) {
    const auto p = out.find(key);
    if (p == std::string::npos) return -1;
    return std::atof(out.c_str() + p + key.size());
  }
};

// The contenders of one case, each timing itself, all in the same way: a run
// performs the kernel `trials` times in a row and keeps the time of the last
// one. For gapbs that is one process started with -n trials, its last "Trial
// Time"; in this process (Tessera, GraphBLAS) the kernel is called `trials`
// times. So every contender is timed warm (its arrays allocated once before,
// its data in cache from its previous trial), right after the other
// contenders of the repetition ran. The first contender is the reference of
// the ratios.
class case_set {
 public:
  explicit case_set(int trials) : m_trials(trials) {}

  void add(const std::string& name, std::function<void()> kernel, std::function<int()> threads) {
    auto t = slot();
    const int trials = m_trials;
    m_cs.push_back({name,
                    [=] {
                      for (int i = 1; i < trials; ++i) kernel();
                      const auto t0 = std::chrono::steady_clock::now();
                      kernel();
                      t->push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
                    },
                    std::move(threads), m_cs.empty() ? -1 : 0});
  }
  void add_gapbs(const gapbs_peer& gp, const std::string& kernel, const std::string& graph, int threads,
                 const std::string& args) {
    auto t = slot();
    const int trials = m_trials;
    m_cs.push_back({"gapbs " + kernel,
                    [=, &gp] {
                      const auto v = gapbs_peer::trial_times(gp.run(kernel, graph, threads, trials, args));
                      if (v.empty()) mismatch("gapbs " + kernel + " printed no Trial Time");
                      t->push_back(v.back());
                    },
                    [threads] { return threads; }, 0});
  }
  const std::vector<tb::Contender>& contenders() const { return m_cs; }

  // Interleaved repetitions; each contender's seconds are its own timings.
  std::vector<tb::Result> run(const tb::InterleaveOptions& o) const {
    auto rs = tb::run_interleaved(m_cs, o);
    for (std::size_t i = 0; i < rs.size(); ++i) {
      const auto& t = *m_times[i];
      rs[i].seconds.assign(t.end() - std::ptrdiff_t(o.repeats), t.end());
    }
    for (std::size_t i = 1; i < rs.size(); ++i) {
      rs[i].ratio.clear();
      for (int k = 0; k < o.repeats; ++k) rs[i].ratio.push_back(rs[0].seconds[std::size_t(k)] / rs[i].seconds[std::size_t(k)]);
    }
    return rs;
  }

 private:
  std::shared_ptr<std::vector<double>> slot() {
    m_times.push_back(std::make_shared<std::vector<double>>());
    return m_times.back();
  }
  int m_trials;
  std::vector<tb::Contender> m_cs;
  std::vector<std::shared_ptr<std::vector<double>>> m_times;
};

#if TESSERA_BENCH_HAVE_GRAPHBLAS
#define GB_CHECK(x)                                                                                   \
  do {                                                                                                \
    GrB_Info info_ = (x);                                                                             \
    if (info_ != GrB_SUCCESS) {                                                                       \
      std::fprintf(stderr, "GraphBLAS error %d at %s:%d: %s\n", int(info_), __FILE__, __LINE__, #x); \
      std::exit(4);                                                                                   \
    }                                                                                                 \
  } while (0)

// The GraphBLAS peer's matrices and, so that no timed run allocates a
// GraphBLAS object, the vectors and descriptors its kernels reuse.
struct gb_graph {
  GrB_Matrix A = nullptr;   // BOOL pattern (symmetric: A is its own transpose)
  GrB_Matrix Af = nullptr;  // FP64 ones, for PageRank
  GrB_Matrix L = nullptr;   // strict lower triangle (BOOL)
  GrB_Vector dout = nullptr;
  GrB_Vector parent = nullptr, frontier = nullptr;      // BFS: INT64 parents, the frontier with its parents
  GrB_Vector level = nullptr, reached = nullptr;        // BFS giving levels: INT32 levels, BOOL frontier
  GrB_Descriptor push = nullptr, pull = nullptr;        // BFS: replace, complemented structural mask; saxpy / dot
  GrB_Vector rank = nullptr, scaled = nullptr, kept = nullptr;  // PageRank: r, r ./ dout, r where dout exists
  ~gb_graph() {
    GrB_Matrix_free(&A);
    GrB_Matrix_free(&Af);
    GrB_Matrix_free(&L);
    for (GrB_Vector* v : {&dout, &parent, &frontier, &level, &reached, &rank, &scaled, &kept}) GrB_Vector_free(v);
    GrB_Descriptor_free(&push);
    GrB_Descriptor_free(&pull);
  }
};

void gb_build(const host_csr& g, gb_graph& gb) {
  std::vector<GrB_Index> I(g.adj.size()), J(g.adj.size());
  for (std::int64_t u = 0; u < g.n; ++u)
    for (auto k = g.rows[u]; k < g.rows[u + 1]; ++k) I[k] = GrB_Index(u), J[k] = GrB_Index(g.adj[k]);
  std::unique_ptr<bool[]> X(new bool[g.adj.size()]);
  std::fill(X.get(), X.get() + g.adj.size(), true);
  std::vector<double> Xf(g.adj.size(), 1.0);
  GB_CHECK(GrB_Matrix_new(&gb.A, GrB_BOOL, g.n, g.n));
  GB_CHECK(GrB_Matrix_build_BOOL(gb.A, I.data(), J.data(), X.get(), g.adj.size(), GrB_LOR));
  GB_CHECK(GrB_Matrix_new(&gb.Af, GrB_FP64, g.n, g.n));
  GB_CHECK(GrB_Matrix_build_FP64(gb.Af, I.data(), J.data(), Xf.data(), g.adj.size(), GrB_PLUS_FP64));
  GB_CHECK(GrB_Matrix_new(&gb.L, GrB_BOOL, g.n, g.n));
  GB_CHECK(GrB_Matrix_select_INT64(gb.L, nullptr, nullptr, GrB_TRIL, gb.A, std::int64_t(-1), nullptr));
  GB_CHECK(GrB_Vector_new(&gb.dout, GrB_FP64, g.n));
  GB_CHECK(GrB_Matrix_reduce_Monoid(gb.dout, nullptr, nullptr, GrB_PLUS_MONOID_FP64, gb.Af, nullptr));
  GB_CHECK(GrB_Matrix_wait(gb.A, GrB_MATERIALIZE));
  GB_CHECK(GrB_Matrix_wait(gb.Af, GrB_MATERIALIZE));
  GB_CHECK(GrB_Matrix_wait(gb.L, GrB_MATERIALIZE));
  for (GrB_Vector* v : {&gb.parent, &gb.frontier}) GB_CHECK(GrB_Vector_new(v, GrB_INT64, g.n));
  GB_CHECK(GrB_Vector_new(&gb.level, GrB_INT32, g.n));
  GB_CHECK(GrB_Vector_new(&gb.reached, GrB_BOOL, g.n));
  for (GrB_Vector* v : {&gb.rank, &gb.scaled, &gb.kept}) GB_CHECK(GrB_Vector_new(v, GrB_FP64, g.n));
  for (auto [d, method] : {std::pair{&gb.push, GxB_AxB_SAXPY}, std::pair{&gb.pull, GxB_AxB_DOT}}) {
    GB_CHECK(GrB_Descriptor_new(d));
    GB_CHECK(GrB_Descriptor_set(*d, GrB_OUTP, GrB_REPLACE));
    GB_CHECK(GxB_Desc_set(*d, GrB_MASK, GrB_COMP + GrB_STRUCTURE));
    GB_CHECK(GxB_Desc_set(*d, GxB_AxB_METHOD, method));
  }
}

// Direction-optimizing BFS giving parents, in GraphBLAS's terms (the
// formulation LAGraph's BFS uses): the frontier q holds each new vertex's
// parent, found by the ANY_SECONDI semiring (the index of any frontier
// neighbour), under the complemented structure of the parent vector (only
// unvisited vertices). Push: q' = q' A by saxpy over the frontier's rows, q
// kept sparse. Pull: q = A q (A = A' here) by dot products of the unvisited
// rows with q kept as a bitmap; ANY stops each dot at its first hit. The
// switch follows the frontier's share of the unvisited vertices, as in
// Beamer's BFS (pull when the frontier exceeds 1/14 of them, back to push
// when it falls below 1/24 of all vertices and shrinks). Every vector and
// descriptor is made once, in gb_build.
std::vector<std::int64_t> gb_bfs(const gb_graph& gb, std::int64_t n, std::int64_t s, bool want = false) {
  GB_CHECK(GrB_Vector_clear(gb.parent));
  GB_CHECK(GrB_Vector_clear(gb.frontier));
  GB_CHECK(GrB_Vector_setElement_INT64(gb.parent, s, GrB_Index(s)));
  GB_CHECK(GrB_Vector_setElement_INT64(gb.frontier, s, GrB_Index(s)));
  GrB_Index nq = 1, visited = 1, previous = 0;
  bool pull = false;
  while (nq > 0) {
    if (!pull) pull = double(nq) > double(GrB_Index(n) - visited) / 14.0;
    else if (double(nq) < double(n) / 24.0 && nq < previous) pull = false;
    if (pull) {
      GB_CHECK(GxB_Vector_Option_set(gb.frontier, GxB_SPARSITY_CONTROL, GxB_BITMAP));
      GB_CHECK(GrB_mxv(gb.frontier, gb.parent, nullptr, GxB_ANY_SECONDI_INT64, gb.A, gb.frontier, gb.pull));
    } else {
      GB_CHECK(GxB_Vector_Option_set(gb.frontier, GxB_SPARSITY_CONTROL, GxB_SPARSE));
      GB_CHECK(GrB_vxm(gb.frontier, gb.parent, nullptr, GxB_ANY_SECONDI_INT64, gb.frontier, gb.A, gb.push));
    }
    GB_CHECK(GrB_Vector_assign(gb.parent, gb.frontier, nullptr, gb.frontier, GrB_ALL, GrB_Index(n), GrB_DESC_S));
    previous = nq;
    GB_CHECK(GrB_Vector_nvals(&nq, gb.frontier));
    visited += nq;
  }
  std::vector<std::int64_t> parents;
  if (want) {
    parents.assign(n, -1);
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t x = 0;
      if (GrB_Vector_extractElement_INT64(&x, gb.parent, GrB_Index(i)) == GrB_SUCCESS) parents[i] = x;
    }
  }
  return parents;
}

// The same direction-optimizing BFS giving levels only (less output than
// parents: the frontier is BOOL, found by ANY_PAIR, and a level is assigned
// per vertex): GraphBLAS's fastest BFS here, a second peer row.
std::vector<int> gb_bfs_levels(const gb_graph& gb, std::int64_t n, std::int64_t s, bool want = false) {
  GB_CHECK(GrB_Vector_clear(gb.level));
  GB_CHECK(GrB_Vector_clear(gb.reached));
  GB_CHECK(GrB_Vector_setElement_INT32(gb.level, 0, GrB_Index(s)));
  GB_CHECK(GrB_Vector_setElement_BOOL(gb.reached, true, GrB_Index(s)));
  GrB_Index nq = 1, visited = 1, previous = 0;
  bool pull = false;
  for (int depth = 1;; ++depth) {
    if (!pull) pull = double(nq) > double(GrB_Index(n) - visited) / 14.0;
    else if (double(nq) < double(n) / 24.0 && nq < previous) pull = false;
    if (pull) {
      GB_CHECK(GxB_Vector_Option_set(gb.reached, GxB_SPARSITY_CONTROL, GxB_BITMAP));
      GB_CHECK(GrB_mxv(gb.reached, gb.level, nullptr, GxB_ANY_PAIR_BOOL, gb.A, gb.reached, gb.pull));
    } else {
      GB_CHECK(GxB_Vector_Option_set(gb.reached, GxB_SPARSITY_CONTROL, GxB_SPARSE));
      GB_CHECK(GrB_vxm(gb.reached, gb.level, nullptr, GxB_ANY_PAIR_BOOL, gb.reached, gb.A, gb.push));
    }
    previous = nq;
    GB_CHECK(GrB_Vector_nvals(&nq, gb.reached));
    if (nq == 0) break;
    visited += nq;
    GB_CHECK(GrB_Vector_assign_INT32(gb.level, gb.reached, nullptr, depth, GrB_ALL, GrB_Index(n), GrB_DESC_S));
  }
  std::vector<int> levels;
  if (want) {
    levels.assign(n, -1);
    for (std::int64_t i = 0; i < n; ++i) {
      int x = 0;
      if (GrB_Vector_extractElement_INT32(&x, gb.level, GrB_Index(i)) == GrB_SUCCESS) levels[i] = x;
    }
  }
  return levels;
}

// PageRank by vxm, 20 iterations; its vectors are gb_build's (no allocation
// of a GraphBLAS object inside the timing).
void gb_pagerank(const gb_graph& gb, std::int64_t n, int iters, std::vector<double>* out) {
  const double d = 0.85;
  GrB_Vector r = gb.rank, t = gb.scaled, rm = gb.kept;
  GB_CHECK(GrB_Vector_assign_FP64(r, nullptr, nullptr, 1.0 / double(n), GrB_ALL, n, nullptr));
  for (int it = 0; it < iters; ++it) {
    // t = d * r ./ dout (only where dout exists: non-dangling vertices)
    GB_CHECK(GrB_Vector_eWiseMult_BinaryOp(t, nullptr, nullptr, GrB_DIV_FP64, r, gb.dout, nullptr));
    // The rank held by non-dangling vertices: rm<dout> = r (dout's pattern never changes, so every
    // entry of rm is rewritten each time), summed.
    double nondangling = 0;
    GB_CHECK(GrB_Vector_assign(rm, gb.dout, nullptr, r, GrB_ALL, n, GrB_DESC_S));
    GB_CHECK(GrB_Vector_reduce_FP64(&nondangling, nullptr, GrB_PLUS_MONOID_FP64, rm, nullptr));
    const double dangling = 1.0 - nondangling;
    GB_CHECK(GrB_Vector_apply_BinaryOp2nd_FP64(t, nullptr, nullptr, GrB_TIMES_FP64, t, d, nullptr));
    GB_CHECK(GrB_Vector_assign_FP64(r, nullptr, nullptr, (1 - d) / double(n) + d * dangling / double(n), GrB_ALL, n, nullptr));
    GB_CHECK(GrB_vxm(r, nullptr, GrB_PLUS_FP64, GrB_PLUS_TIMES_SEMIRING_FP64, t, gb.Af, nullptr));
  }
  if (out) {
    out->assign(n, 0.0);
    for (std::int64_t i = 0; i < n; ++i) GrB_Vector_extractElement_FP64(&(*out)[i], r, GrB_Index(i));
  }
}

std::int64_t gb_tc(const gb_graph& gb, std::int64_t n) {
  GrB_Matrix C = nullptr;
  GB_CHECK(GrB_Matrix_new(&C, GrB_INT64, n, n));
  GB_CHECK(GrB_mxm(C, gb.L, nullptr, GxB_PLUS_PAIR_INT64, gb.L, gb.L, GrB_DESC_T1));
  std::int64_t t = 0;
  GB_CHECK(GrB_Matrix_reduce_INT64(&t, nullptr, GrB_PLUS_MONOID_INT64, C, nullptr));
  GrB_Matrix_free(&C);
  return t;
}

void gb_threads(int t) { GB_CHECK(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, t)); }
int gb_threads_now() {
  int t = 0;
  GB_CHECK(GxB_Global_Option_get(GxB_GLOBAL_NTHREADS, &t));
  return t;
}
#endif

// Whether pagerank accepts ranks of type T (float since the gapbs work).
template <class G, class T>
concept pagerank_takes = requires(const G& g, const tg::vertex_property_map<G, T>& r) { tg::pagerank(g, r, 0.85, 0.0, 20); };

struct config {
  int repeats = 5;
  int tc_repeats = 3;
  int gapbs_trials = 2;
  bool pr_double = false;
  bool json = false;
  std::vector<int> threads = {1, 2};
  std::set<std::string> algorithms = {"bfs", "cc", "pr", "tc"};
};

// One graph: its name, Tessera's input, gapbs's files (empty: no gapbs peer).
struct graph_input {
  std::string name;
  std::string path;         // file, or empty for a generated edge list
  tg::edge_list el;         // when path is empty or not a .tgb
  std::int64_t source = -1; // -1: largest degree
  std::string gapbs_sg;     // gapbs's serialized graph of the same file
  std::string gapbs_wsg;    // gapbs's weighted graph (sssp)
  std::string wel;          // the weighted edge list behind gapbs_wsg
  double delta = 2;         // SSSP bucket width (gapbs's -d)
};

bool ends_with(const std::string& s, const std::string& e) {
  return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
}

template <class G>
G load_graph(const graph_input& in) {
  if (!in.path.empty() && ends_with(in.path, ".tgb")) return tg::read_binary_csr<G>(in.path);
  return G(in.el, tg::build_options::simple());
}

// Everything the checks need, computed once per graph.
struct answers {
  std::int64_t source = 0;
  std::vector<int> levels;  // serial BFS from source
  std::int64_t reached = 0;
  int depth = 0;  // number of levels
  std::int64_t components = 0, largest = 0;
  std::vector<double> pr;  // serial PageRank, 20 iterations
  std::int64_t triangles = -1;
};

class runner {
 public:
  runner(const config& cfg, const gapbs_peer& gp, const tb::Report& rep) : m_cfg(cfg), m_gp(gp), m_rep(rep) {}

  void graph(const graph_input& in) {
    using H = tg::compressed_sparse_row_graph<tg::undirectedS, tessera::Serial>;
    using O = tg::compressed_sparse_row_graph<tg::undirectedS, tessera::OpenMP>;
    H g1 = load_graph<H>(in);
    host_csr hc;
    hc.n = g1.num_vertices();
    hc.rows = tg::detail::to_host_vector(g1.row_map());
    hc.adj = tg::detail::to_host_vector(g1.entries());
    m_name = in.name;
    m_in = &in;
    if (!m_cfg.json)
      std::printf("\n# %s: %lld vertices, %lld edges\n", in.name.c_str(), (long long)hc.n, (long long)g1.num_edges());
    answers a;
    a.source = in.source;
    if (a.source < 0) {
      a.source = 0;
      for (std::int64_t v = 0; v < hc.n; ++v)
        if (hc.rows[v + 1] - hc.rows[v] > hc.rows[a.source + 1] - hc.rows[a.source]) a.source = v;
    }
    if (a.source >= hc.n) mismatch(in.name + ": source " + std::to_string(a.source) + " outside the graph");
    a.levels = ref_bfs(hc, a.source);
    for (int l : a.levels)
      if (l >= 0) ++a.reached, a.depth = std::max(a.depth, l + 1);
    std::tie(a.components, a.largest) = ref_cc(hc);
    ref_pagerank(hc, 20, a.pr);
    if (m_cfg.algorithms.count("tc") && !m_gp.has("tc") && (hc.n < (1 << 19))) a.triangles = ref_tc(hc);
#if TESSERA_BENCH_HAVE_GRAPHBLAS
    m_gb.reset();
    if (m_cfg.algorithms.count("bfs") || m_cfg.algorithms.count("pr") || m_cfg.algorithms.count("tc")) {
      m_gb = std::make_unique<gb_graph>();
      gb_build(hc, *m_gb);
    }
#endif
    for (int t : m_cfg.threads) {
      if (t == 1) {
        run_all<H>(g1, hc, a, t);
      } else {
        const int have = tessera::OpenMP().concurrency();
        if (have != t) {
          std::printf("# %d threads asked, Tessera's OpenMP space has %d (--tessera-num-threads=%d): skipped\n", t, have, t);
          continue;
        }
        O g2 = load_graph<O>(in);
        run_all<O>(g2, hc, a, t);
      }
    }
  }

 private:
  template <class G>
  void run_all(const G& g, const host_csr& hc, answers& a, int t) {
    if (m_cfg.algorithms.count("bfs")) bfs(g, hc, a, t);
    if (m_cfg.algorithms.count("cc")) cc(g, a, t);
    if (m_cfg.algorithms.count("pr")) {
      if constexpr (pagerank_takes<G, float>) {
        if (!m_cfg.pr_double) pr<float>(g, a, t);
        else pr<double>(g, a, t);
      } else {
        pr<double>(g, a, t);
      }
    }
    if (m_cfg.algorithms.count("tc")) tc(g, a, t);
    if (m_cfg.algorithms.count("sssp")) sssp(g, t);
    if (m_cfg.algorithms.count("msbfs")) msbfs(g, hc, a, t);
  }

  std::string case_name(const char* alg, int t) const { return m_name + " " + alg + " " + std::to_string(t) + "T"; }

  void report(const std::string& cs, const tb::Measure& m, const std::vector<tb::Contender>& c,
              const std::vector<tb::Result>& r, const std::string& cmd) const {
    const std::string load = load_average();
    if (m_cfg.json)
      m_rep.note(cs, {{"loadavg", load}, {"command", cmd}});
    else
      std::printf("# %s   load average %s   %s\n", cs.c_str(), load.c_str(), cmd.c_str());
    m_rep.add(cs, m, c, r);
  }

  tb::InterleaveOptions opts(int repeats, int warmup = 1) const {
    tb::InterleaveOptions o;
    o.repeats = repeats;
    o.warmup = warmup;
    // No sleep before a run: the contenders here leave no spinning workers
    // behind (gapbs has exited; GraphBLAS and Tessera share libgomp's pool),
    // and a thread that has just slept ran a k20 BFS at 36 ms against 21 ms
    // awake on this machine (load 3), a penalty gapbs, busy reading its graph
    // before its trials, never pays.
    o.pause_ms = 0;
    return o;
  }

  // The threads a Tessera row ran on: Serial is one; on OpenMP, what libgomp
  // gives a region asking for the space's pool size (the back-end's own
  // request), asked of the runtime rather than copied from the request.
  template <class G>
  static int threads_of() {
    using E = typename G::execution_space;
    if constexpr (std::is_same_v<E, tessera::OpenMP>) return tb::omp_threads_ran(E().concurrency());
    else return int(E().concurrency());
  }

  template <class G>
  void bfs(const G& g, const host_csr& hc, const answers& a, int t) {
    using V = typename G::vertex_descriptor;
    tg::vertex_property_map<G, V> parent(g);
    const auto res = tg::breadth_first_search(g, a.source, tg::bfs_parents_visitor<G>(parent));
    if (res.visited != a.reached || res.levels != a.depth)
      mismatch(case_name("bfs", t) + ": reached " + std::to_string(res.visited) + " in " + std::to_string(res.levels) +
               " levels, serial BFS " + std::to_string(a.reached) + " in " + std::to_string(a.depth));
    const auto p = tg::detail::to_host_vector(parent.view());
    for (std::int64_t v = 0; v < hc.n; ++v) {
      const bool ok = a.levels[v] < 0 ? p[v] == V(-1)
                      : v == a.source ? p[v] == V(v)
                                      : (p[v] >= 0 && a.levels[p[v]] == a.levels[v] - 1 && hc.has_edge(p[v], v));
      if (!ok) mismatch(case_name("bfs", t) + ": parent of " + std::to_string(v) + " is " + std::to_string(p[v]));
    }
    case_set cs(m_cfg.gapbs_trials);
    cs.add("tessera bfs (parents)", [&] { tg::breadth_first_search(g, a.source, tg::bfs_parents_visitor<G>(parent)); },
           [] { return threads_of<G>(); });
    const std::string args = "-r " + std::to_string(a.source);
    if (m_gp.has("bfs") && !m_in->gapbs_sg.empty()) {
      const std::string out = m_gp.run("bfs", m_in->gapbs_sg, t, 1, args + " -a");
      const double reached = gapbs_peer::number_after(out, "BFS Tree has ");
      if (std::int64_t(reached) != a.reached)
        mismatch(case_name("bfs", t) + ": gapbs reached " + std::to_string(reached) + ", Tessera " + std::to_string(a.reached));
      cs.add_gapbs(m_gp, "bfs", m_in->gapbs_sg, t, args);
    }
#if TESSERA_BENCH_HAVE_GRAPHBLAS
    if (m_gb) {
      gb_threads(t);
      const auto gp = gb_bfs(*m_gb, hc.n, a.source, true);
      for (std::int64_t v = 0; v < hc.n; ++v) {
        const std::int64_t q = gp[std::size_t(v)];
        const bool ok = a.levels[v] < 0 ? q == -1
                        : v == a.source ? q == v
                                        : (q >= 0 && a.levels[q] == a.levels[v] - 1 && hc.has_edge(q, v));
        if (!ok) mismatch(case_name("bfs", t) + ": GraphBLAS parent of " + std::to_string(v) + " is " + std::to_string(q));
      }
      cs.add("graphblas push/pull (parents)", [&] { gb_bfs(*m_gb, hc.n, a.source); }, [] { return gb_threads_now(); });
      if (gb_bfs_levels(*m_gb, hc.n, a.source, true) != a.levels) mismatch(case_name("bfs", t) + ": GraphBLAS levels");
      cs.add("graphblas push/pull (levels)", [&] { gb_bfs_levels(*m_gb, hc.n, a.source); },
             [] { return gb_threads_now(); });
    }
#endif
    const auto rs = cs.run(opts(m_cfg.repeats));
    report(case_name("bfs", t) + " src " + std::to_string(a.source) + " (" + std::to_string(a.reached) + " reached, " +
               std::to_string(a.depth) + " levels)",
           tb::Measure{"ms", 1, 1e3, true, true}, cs.contenders(), rs, gapbs_cmd("bfs", t, args));
  }

  template <class G>
  void cc(const G& g, const answers& a, int t) {
    using V = typename G::vertex_descriptor;
    tg::vertex_property_map<G, V> comp(g);
    if (tg::connected_components(g, comp) != a.components) mismatch(case_name("cc", t) + ": component count");
    {
      const auto c = tg::detail::to_host_vector(comp.view());
      std::map<V, std::int64_t> size;
      std::int64_t big = 0;
      for (auto x : c) big = std::max(big, ++size[x]);
      if (big != a.largest) mismatch(case_name("cc", t) + ": largest component");
    }
    case_set cs(m_cfg.gapbs_trials);
    cs.add("tessera connected_components", [&] { tg::connected_components(g, comp); }, [] { return threads_of<G>(); });
    if (m_gp.has("cc") && !m_in->gapbs_sg.empty()) {
      const std::string out = m_gp.run("cc", m_in->gapbs_sg, t, 1, "-a");
      const double k = gapbs_peer::number_after(out, "There are ");
      const double big = gapbs_peer::number_after(out, "biggest clusters\n0:");
      if (std::int64_t(k) != a.components)
        mismatch(case_name("cc", t) + ": gapbs finds " + std::to_string(k) + " components, Tessera " + std::to_string(a.components));
      if (big >= 0 && std::int64_t(big) != a.largest) mismatch(case_name("cc", t) + ": gapbs's largest component");
      cs.add_gapbs(m_gp, "cc", m_in->gapbs_sg, t, "");
    }
    const auto rs = cs.run(opts(m_cfg.repeats));
    report(case_name("cc", t) + " (" + std::to_string(a.components) + " components, largest " + std::to_string(a.largest) + ")",
           tb::Measure{"ms", 1, 1e3, true, true}, cs.contenders(), rs, gapbs_cmd("cc", t, ""));
  }

  template <class T, class G>
  void pr(const G& g, const answers& a, int t) {
    constexpr int iters = 20;
    tg::vertex_property_map<G, T> r(g);
    tg::pagerank(g, r, 0.85, 0.0, iters);
    const auto h = tg::detail::to_host_vector(r.view());
    const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-9;
    for (std::size_t v = 0; v < h.size(); ++v)
      if (std::abs(double(h[v]) - a.pr[v]) > tol * std::max(1.0, a.pr[v] * double(h.size())))
        mismatch(case_name("pr", t) + ": rank of " + std::to_string(v));
    case_set cs(m_cfg.gapbs_trials);
    cs.add(std::string("tessera pagerank (") + (std::is_same_v<T, float> ? "float" : "double") + ")",
           [&] { tg::pagerank(g, r, 0.85, 0.0, iters); }, [] { return threads_of<G>(); });
    const std::string args = "-i " + std::to_string(iters) + " -t 0";
    std::string top_note;
    if (m_gp.has("pr") && !m_in->gapbs_sg.empty()) {
      const std::string out = m_gp.run("pr", m_in->gapbs_sg, t, 1, args + " -a");
      // gapbs -a prints its top 5 as "vertex:score" lines after the trial.
      std::vector<std::int64_t> theirs;
      std::istringstream in(out);
      std::string line;
      while (std::getline(in, line))
        if (line.find(':') != std::string::npos && std::isdigit(static_cast<unsigned char>(line[0])))
          theirs.push_back(std::atoll(line.c_str()));
      std::vector<double> hd(h.begin(), h.end());
      const auto ours = top_k(hd, theirs.size());
      if (std::set<std::int64_t>(ours.begin(), ours.end()) != std::set<std::int64_t>(theirs.begin(), theirs.end()))
        top_note = " top-5 DIFFERS from gapbs";
      else
        top_note = ours == theirs ? " top-5 as gapbs" : " top-5 set as gapbs (order differs)";
      cs.add_gapbs(m_gp, "pr", m_in->gapbs_sg, t, args);
    }
#if TESSERA_BENCH_HAVE_GRAPHBLAS
    if (m_gb) {
      gb_threads(t);
      std::vector<double> rb;
      gb_pagerank(*m_gb, a.pr.size(), iters, &rb);
      for (std::size_t v = 0; v < rb.size(); ++v)
        if (std::abs(rb[v] - a.pr[v]) > 1e-9) mismatch(case_name("pr", t) + ": GraphBLAS rank");
      cs.add("graphblas vxm", [&] { gb_pagerank(*m_gb, a.pr.size(), iters, nullptr); }, [] { return gb_threads_now(); });
    }
#endif
    const auto rs = cs.run(opts(m_cfg.repeats));
    report(case_name("pr", t) + " per iteration (" + std::to_string(iters) + " iterations)" + top_note,
           tb::Measure{"ms/iter", double(iters), 1e3, true, true}, cs.contenders(), rs, gapbs_cmd("pr", t, args));
  }

  template <class G>
  void tc(const G& g, answers& a, int t) {
    const std::int64_t mine = tg::count_triangles(g);
    case_set cs(1);  // seconds per trial: no warm-up trial
    cs.add("tessera count_triangles", [&] { tg::count_triangles(g); }, [] { return threads_of<G>(); });
    if (m_gp.has("tc") && !m_in->gapbs_sg.empty()) {
      const std::string out = m_gp.run("tc", m_in->gapbs_sg, t, 1, "-a");
      // "N triangles" on its own line.
      std::int64_t theirs = -1;
      std::istringstream in(out);
      std::string line;
      while (std::getline(in, line))
        if (line.find(" triangles") != std::string::npos) theirs = std::atoll(line.c_str());
      if (theirs != mine) mismatch(case_name("tc", t) + ": gapbs " + std::to_string(theirs) + ", Tessera " + std::to_string(mine));
      a.triangles = theirs;
      cs.add_gapbs(m_gp, "tc", m_in->gapbs_sg, t, "");
    }
    if (a.triangles >= 0 && a.triangles != mine)
      mismatch(case_name("tc", t) + ": " + std::to_string(mine) + " triangles, reference " + std::to_string(a.triangles));
#if TESSERA_BENCH_HAVE_GRAPHBLAS
    if (m_gb) {
      gb_threads(t);
      if (gb_tc(*m_gb, a.pr.size()) != mine) mismatch(case_name("tc", t) + ": GraphBLAS count");
      cs.add("graphblas mxm L*L'", [&] { gb_tc(*m_gb, a.pr.size()); }, [] { return gb_threads_now(); });
    }
#endif
    const auto rs = cs.run(opts(m_cfg.tc_repeats, 0));
    report(case_name("tc", t) + " (" + std::to_string(mine) + " triangles)", tb::Measure{"ms", 1, 1e3, true, true}, cs.contenders(), rs,
           gapbs_cmd("tc", t, ""));
  }

  template <class G>
  void sssp(const G& g, int t);

  template <class G>
  void msbfs(const G& g, const host_csr& hc, const answers& a, int t) {
    // 64 vertices of the source's component: the source and vertices near it.
    std::vector<std::int64_t> src64;
    for (std::int64_t v = 0; v < hc.n && src64.size() < 64; ++v)
      if (a.levels[v] >= 0 && a.levels[v] <= 2) src64.push_back(v);
    while (src64.size() < 64) src64.push_back(src64[src64.size() % std::max<std::size_t>(1, src64.size())]);
    tg::vertex_property_map<G, std::int32_t> lv(g);
    case_set cs(1);
    cs.add("tessera multi_source_bfs 64", [&] { tg::multi_source_bfs(g, src64); }, [] { return threads_of<G>(); });
    cs.add("tessera 64 x breadth_first_search",
           [&] {
             for (auto s : src64) tg::breadth_first_search(g, s, tg::bfs_levels_visitor<G>(lv));
           },
           [] { return threads_of<G>(); });
    const auto rs = cs.run(opts(std::max(1, m_cfg.repeats / 2)));
    report(case_name("msbfs", t), tb::Measure{"ms", 1, 1e3, true, true}, cs.contenders(), rs, "");
  }

  std::string gapbs_cmd(const std::string& kernel, int t, const std::string& args) const {
    if (m_gp.dir.empty() || !m_in || m_in->gapbs_sg.empty()) return "";
    return "OMP_NUM_THREADS=" + std::to_string(t) + " $GAPBS_DIR/" + kernel + " -f " +
           (kernel == "sssp" ? m_in->gapbs_wsg : m_in->gapbs_sg) + " -n " + std::to_string(m_cfg.gapbs_trials) +
           (args.empty() ? "" : " " + args);
  }

  const config& m_cfg;
  const gapbs_peer& m_gp;
  const tb::Report& m_rep;
  std::string m_name;
  const graph_input* m_in = nullptr;
#if TESSERA_BENCH_HAVE_GRAPHBLAS
  std::unique_ptr<gb_graph> m_gb;
#endif
};

// SSSP on gapbs's integer weights (int32, 1..255 from its converter -w):
// Tessera reads them from the weighted edge list (X.wel: "u v w" lines, one
// per stored direction; repeated pairs keep their smallest weight, as a
// shortest path would) that gapbs's converter writes from X.wsg, so both solve
// the same problem. Checked against a serial Dijkstra and gapbs's reached count.
template <class G>
void runner::sssp(const G& g, int t) {
  using V = typename G::vertex_descriptor;
  using W = std::int32_t;
  if (m_in->wel.empty() || !file_exists(m_in->wel)) {
    std::printf("# %s sssp: no weighted edge list %s (gapbs: converter -f X.el -s -w -b X.wsg, then converter -f X.wsg -w -e "
                "X.wel); skipped\n",
                m_name.c_str(), m_in->wel.c_str());
    return;
  }
  const std::int64_t n = g.num_vertices();
  tg::edge_property_map<G, W> w(g);
  std::vector<std::int64_t> rows(n + 1, 0);
  std::vector<V> adj;
  std::vector<W> wslot;
  {
    const auto el = tg::read_edge_list(m_in->wel);
    if (el.weights.size() != el.src.size()) mismatch(m_in->wel + ": no weights");
    std::vector<std::size_t> ord(el.src.size());
    std::iota(ord.begin(), ord.end(), std::size_t(0));
    std::sort(ord.begin(), ord.end(), [&](std::size_t x, std::size_t y) {
      if (el.src[x] != el.src[y]) return el.src[x] < el.src[y];
      if (el.dst[x] != el.dst[y]) return el.dst[x] < el.dst[y];
      return el.weights[x] < el.weights[y];
    });
    auto hw = tessera::create_mirror_view(tessera::HostSpace(), w.view());
    std::size_t k = 0;
    for (std::int64_t u = 0; u < n; ++u) {
      for (const auto& e : out_edges(V(u), g)) {
        const std::int64_t v = std::int64_t(target(e, g));
        while (k < ord.size() && (el.src[ord[k]] < u || (el.src[ord[k]] == u && el.dst[ord[k]] < v))) ++k;  // loops dropped
        if (k >= ord.size() || el.src[ord[k]] != u || el.dst[ord[k]] != v)
          mismatch(m_in->wel + ": no weight for the edge (" + std::to_string(u) + ", " + std::to_string(v) + ")");
        const W x = W(el.weights[ord[k]]);
        hw(get_edge_index(e, g)) = x;
        adj.push_back(V(v));
        wslot.push_back(x);
      }
      rows[u + 1] = std::int64_t(adj.size());
    }
    tessera::deep_copy(w.view(), hw);
  }
  const std::int64_t src = m_in->source >= 0 ? m_in->source : 0;
  const W delta = W(m_in->delta);
  // Serial Dijkstra.
  std::vector<W> want(n, std::numeric_limits<W>::max());
  {
    std::priority_queue<std::pair<W, std::int64_t>, std::vector<std::pair<W, std::int64_t>>, std::greater<>> q;
    want[src] = 0;
    q.push({0, src});
    while (!q.empty()) {
      const auto [d, u] = q.top();
      q.pop();
      if (d != want[u]) continue;
      for (auto k = rows[u]; k < rows[u + 1]; ++k)
        if (d + wslot[k] < want[adj[k]]) want[adj[k]] = d + wslot[k], q.push({want[adj[k]], std::int64_t(adj[k])});
    }
  }
  const std::int64_t reached = std::count_if(want.begin(), want.end(), [](W d) { return d != std::numeric_limits<W>::max(); });
  tg::vertex_property_map<G, W> dist(g);
  tg::delta_stepping_shortest_paths(g, src, w, dist, delta);
  if (tg::detail::to_host_vector(dist.view()) != want) mismatch(case_name("sssp", t) + ": distances differ from Dijkstra's");
  case_set cs(m_cfg.gapbs_trials);
  cs.add("tessera delta_stepping", [&] { tg::delta_stepping_shortest_paths(g, src, w, dist, delta); },
         [] { return threads_of<G>(); });
  const std::string args = "-r " + std::to_string(src) + " -d " + std::to_string(delta);
  if (m_gp.has("sssp") && file_exists(m_in->gapbs_wsg)) {
    const std::string out = m_gp.run("sssp", m_in->gapbs_wsg, t, 1, args + " -a");
    const double theirs = gapbs_peer::number_after(out, "SSSP Tree reaches ");
    if (std::int64_t(theirs) != reached)
      mismatch(case_name("sssp", t) + ": gapbs reaches " + std::to_string(theirs) + ", Dijkstra " + std::to_string(reached));
    cs.add_gapbs(m_gp, "sssp", m_in->gapbs_wsg, t, args);
  }
  // The same arrays seen as a directed graph holding both arcs: its edge
  // index is the arc's slot, so a weight map is read in CSR order, as gapbs
  // reads the weights stored beside the neighbours. The undirected graph's
  // edge index is shared by the two arcs of an edge, so half of its weight
  // reads are a random gather (what limits the first row; see the manual).
  using GD = typename directed_twin<G>::type;
  const GD gd(tg::csr_arrays_t{}, typename GD::size_type(n), g.row_map(), g.entries());
  tg::edge_property_map<GD, W> wd(gd);
  {
    auto hwd = tessera::create_mirror_view(tessera::HostSpace(), wd.view());
    for (std::size_t k = 0; k < wslot.size(); ++k) hwd(std::int64_t(k)) = wslot[k];
    tessera::deep_copy(wd.view(), hwd);
  }
  tg::vertex_property_map<GD, W> dist_d(gd);
  tg::delta_stepping_shortest_paths(gd, src, wd, dist_d, delta);
  if (tg::detail::to_host_vector(dist_d.view()) != want)
    mismatch(case_name("sssp", t) + ": distances on per-arc weights differ from Dijkstra's");
  cs.add("tessera delta_stepping (per-arc weights)", [&] { tg::delta_stepping_shortest_paths(gd, src, wd, dist_d, delta); },
         [] { return threads_of<G>(); });
  const auto rs = cs.run(opts(m_cfg.repeats));
  report(case_name("sssp", t) + " src " + std::to_string(src) + " delta " + std::to_string(delta) + " (" +
             std::to_string(reached) + " reached)",
         tb::Measure{"ms", 1, 1e3, true, true}, cs.contenders(), rs, gapbs_cmd("sssp", t, args));
}

std::string with_extension(const std::string& path, const std::string& ext) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + ext;
  return path.substr(0, dot) + ext;
}

}  // namespace

int main(int argc, char* argv[]) {
  namespace tools = tessera::tools;
  config cfg;
  std::vector<int> scales;
  bool real = false, no_real = false;
  std::vector<std::string> files, algorithms;
  std::string data = TESSERA_GRAPH_DATA_DIR;
  tb::Cli cli("tessera_bench_graph",
              "Tessera's graph algorithms against gapbs and SuiteSparse:GraphBLAS on the same graphs, contenders\n"
              "interleaved (see the comment at the top of bench_graph.cpp).",
              cfg.repeats);
  auto& app = cli.app();
  // --threads 1,2 runs both counts in this process (Serial at 1, OpenMP above).
  cli.keep_thread_list();
  app.add_option("--file", files,
                 "PATH[@SOURCE[@DELTA]]: a graph file (.tgb, .mtx or an edge list), its BFS/SSSP source and\n"
                 "SSSP bucket width; repeatable");
  app.add_option("--scales", scales, "Kronecker scales to generate, comma-separated (default 18 without --file)")
      ->delimiter(',')
      ->check(tools::integer(1, 31));
  app.add_flag("--real", real, "the real graphs of examples/data (default without --file)");
  app.add_flag("--no-real", no_real, "not the real graphs of examples/data");
  app.add_option("--algorithms", algorithms, "comma-separated subset of bfs,cc,pr,tc,sssp,msbfs (default bfs,cc,pr,tc)")
      ->delimiter(',')
      ->check(tools::one_of({"bfs", "cc", "pr", "tc", "sssp", "msbfs"}));
  app.add_option("--threads", cfg.threads, "thread counts, comma-separated (1: Serial, more: OpenMP)")
      ->delimiter(',')
      ->check(tools::integer(1, 4096));
  app.add_option("--tc-repeats", cfg.tc_repeats, "repeats of the triangle counts")->check(tools::integer(1, 1000000));
  app.add_option("--gapbs-trials", cfg.gapbs_trials, "kernel runs per repeat (the last is timed)")
      ->check(tools::integer(1, 1000));
  app.add_flag("--pr-double", cfg.pr_double, "PageRank on double ranks (default float, as gapbs)");
  app.add_option("--data", data, "the folder of examples/data's graphs/");
  if (auto status = cli.parse(argc, argv)) return *status;
  cfg.repeats = cli.repeats;
  cfg.json = cli.json;
  if (!algorithms.empty()) cfg.algorithms = std::set<std::string>(algorithms.begin(), algorithms.end());
  if (real && no_real) return cli.fail("--real and --no-real contradict each other");
  std::vector<graph_input> inputs;
  for (const auto& f : files) {
    graph_input in;
    const auto at = f.find('@');
    in.path = f.substr(0, at);
    if (at != std::string::npos) {
      const auto at2 = f.find('@', at + 1);
      const auto source = tools::to_integer(f.substr(at + 1, at2 == std::string::npos ? std::string::npos : at2 - at - 1));
      if (!source || *source < 0) return cli.fail("--file " + f + ": SOURCE is not a vertex id");
      in.source = *source;
      if (at2 != std::string::npos) {
        const auto delta = tools::to_real(f.substr(at2 + 1));
        if (!delta || *delta <= 0) return cli.fail("--file " + f + ": DELTA is not a positive number");
        in.delta = *delta;
      }
    }
    inputs.push_back(std::move(in));
  }
  if (files.empty()) {
    if (scales.empty()) scales = {18};
    if (!no_real) real = true;
  }
  tessera::ScopeGuard guard(cli.settings());
#if TESSERA_BENCH_HAVE_GRAPHBLAS
  GB_CHECK(GrB_init(GrB_NONBLOCKING));
#endif
  const gapbs_peer gp = gapbs_peer::find();
  const tb::Report rep("graph", cfg.json);
  if (!cfg.json)
    std::printf("# tessera graph benchmarks: OpenMP threads %d, repeats %d (tc %d), load average %s\n",
                tessera::OpenMP().concurrency(), cfg.repeats, cfg.tc_repeats, load_average().c_str());
  runner run(cfg, gp, rep);
  for (graph_input& in : inputs) {
    in.name = in.path.substr(in.path.find_last_of('/') + 1);
    if (!ends_with(in.path, ".tgb")) in.el = tg::read_edge_list(in.path);
    in.gapbs_sg = with_extension(in.path, ".sg");
    in.gapbs_wsg = with_extension(in.path, ".wsg");
    in.wel = with_extension(in.path, ".wel");
    if (!file_exists(in.gapbs_sg)) {
      std::printf("# %s: no %s for gapbs (make it with gapbs's converter -f X.el -s -b X.sg); gapbs rows skipped\n",
                  in.name.c_str(), in.gapbs_sg.c_str());
      in.gapbs_sg.clear();
    }
    run.graph(in);
  }
  if (real) {
    for (const char* f : {"karate.mtx", "jagmesh7.mtx", "G51.mtx", "bcspwr10.mtx", "oregon1_010331.txt", "facebook_combined.txt"}) {
      graph_input in;
      in.name = f;
      try {
        in.el = tg::read_edge_list(data + "/graphs/" + f);
      } catch (const std::exception& e) {
        std::printf("# %s skipped: %s\n", f, e.what());
        continue;
      }
      run.graph(in);
    }
  }
  for (int s : scales) {
    graph_input in;
    in.name = "kron" + std::to_string(s) + "-ef16";
    in.el = tg::kronecker(s, 16, 1);
    run.graph(in);
  }
#if TESSERA_BENCH_HAVE_GRAPHBLAS
  GrB_finalize();
#endif
  return 0;
}
