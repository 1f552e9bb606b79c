// Graph benchmarks: Tessera (Serial = 1 thread, OpenMP = 2 threads) against
// SuiteSparse:GraphBLAS (1 and 2 threads) and a plain serial reference, on
// Kronecker graphs and the shared real graphs, in one program.
//
//   tessera_bench_graph [--scales 18,20] [--repeats 5] [--real | --no-real] [--data DIR] [--skip ALG,...]
//
// Every figure is the median of --repeats timed runs (after one warm-up)
// with the min and max. Each algorithm's answer is checked against the
// serial reference before it is timed; a mismatch aborts.
//  bfs        levels from 8 sources of the giant component; rate = GTEPS (edges of the reached component / s)
//  cc         connected components (Afforest; SV at 2 threads; union-find reference)
//  pagerank   seconds per iteration (20 iterations, damping 0.85)
//  tc         triangle count (GraphBLAS: C<L> = L*L' with PLUS_PAIR, then reduce)
//  msbfs      64 sources in one multi_source_bfs vs 64 breadth_first_search runs
#include <tessera/graph.hpp>

#if TESSERA_BENCH_HAVE_GRAPHBLAS
extern "C" {
#include <GraphBLAS.h>
}
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <queue>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace tg = tessera::graph;

namespace {

struct stats {
  double median = 0, min = 0, max = 0;
};

stats time_it(int repeats, const std::function<void()>& body) {
  body();  // warm-up (and first-touch)
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    const auto s = std::chrono::steady_clock::now();
    body();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
  }
  std::sort(t.begin(), t.end());
  const std::size_t n = t.size();
  return {n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]), t.front(), t.back()};
}

void row(const std::string& graph, const char* alg, const char* impl, int threads, const stats& s, double work,
         const char* unit) {
  // Rate from the median; the spread is given as min..max seconds.
  std::printf("%-22s %-9s %-18s %3d  %10.4f  %10.4f  %10.4f  %10.4g %s\n", graph.c_str(), alg, impl, threads, s.median * 1e3,
              s.min * 1e3, s.max * 1e3, work > 0 ? work / s.median : 0.0, unit);
  std::fflush(stdout);
}

[[noreturn]] void mismatch(const std::string& what) {
  std::fprintf(stderr, "MISMATCH: %s\n", what.c_str());
  std::exit(3);
}

// Serial references on a host CSR ------------------------------------------------
struct host_csr {
  std::int64_t n = 0;
  std::vector<std::int64_t> rows;
  std::vector<std::int32_t> adj;
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

std::int64_t ref_cc(const host_csr& g) {
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
  std::int64_t c = 0;
  for (std::int64_t v = 0; v < g.n; ++v) c += find(v) == v;
  return c;
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

#if TESSERA_BENCH_HAVE_GRAPHBLAS
#define GB_CHECK(x)                                                                   \
  do {                                                                                \
    GrB_Info info_ = (x);                                                             \
    if (info_ != GrB_SUCCESS) {                                                       \
      std::fprintf(stderr, "GraphBLAS error %d at %s:%d: %s\n", int(info_), __FILE__, __LINE__, #x); \
      std::exit(4);                                                                   \
    }                                                                                 \
  } while (0)

struct gb_graph {
  GrB_Matrix A = nullptr;   // BOOL pattern (symmetric)
  GrB_Matrix Af = nullptr;  // FP64 ones, for PageRank
  GrB_Matrix L = nullptr;   // strict lower triangle (BOOL)
  GrB_Vector dout = nullptr;
  ~gb_graph() {
    GrB_Matrix_free(&A);
    GrB_Matrix_free(&Af);
    GrB_Matrix_free(&L);
    GrB_Vector_free(&dout);
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
}

// Levels by masked vxm (push over the unvisited complement).
std::vector<int> gb_bfs(const gb_graph& gb, std::int64_t n, std::int64_t s, bool want = false) {
  GrB_Vector v = nullptr, q = nullptr;
  GB_CHECK(GrB_Vector_new(&v, GrB_INT32, n));
  GB_CHECK(GrB_Vector_new(&q, GrB_BOOL, n));
  GB_CHECK(GrB_Vector_setElement_BOOL(q, true, GrB_Index(s)));
  for (int level = 0;; ++level) {
    GB_CHECK(GrB_Vector_assign_INT32(v, q, nullptr, level, GrB_ALL, n, GrB_DESC_S));
    GB_CHECK(GrB_vxm(q, v, nullptr, GrB_LOR_LAND_SEMIRING_BOOL, q, gb.A, GrB_DESC_RSC));
    GrB_Index nq = 0;
    GB_CHECK(GrB_Vector_nvals(&nq, q));
    if (nq == 0) break;
  }
  std::vector<int> lv;
  if (want) {
    lv.assign(n, -1);
    for (std::int64_t i = 0; i < n; ++i) {
      int x = 0;
      if (GrB_Vector_extractElement_INT32(&x, v, GrB_Index(i)) == GrB_SUCCESS) lv[i] = x;
    }
  }
  GrB_Vector_free(&v);
  GrB_Vector_free(&q);
  return lv;
}

void gb_pagerank(const gb_graph& gb, std::int64_t n, int iters, std::vector<double>* out) {
  const double d = 0.85;
  GrB_Vector r = nullptr, t = nullptr;
  GB_CHECK(GrB_Vector_new(&r, GrB_FP64, n));
  GB_CHECK(GrB_Vector_new(&t, GrB_FP64, n));
  GB_CHECK(GrB_Vector_assign_FP64(r, nullptr, nullptr, 1.0 / double(n), GrB_ALL, n, nullptr));
  for (int it = 0; it < iters; ++it) {
    // t = d * r ./ dout (only where dout exists: non-dangling vertices)
    GB_CHECK(GrB_Vector_eWiseMult_BinaryOp(t, nullptr, nullptr, GrB_DIV_FP64, r, gb.dout, nullptr));
    double nondangling = 0;
    {
      GrB_Vector rm = nullptr;
      GB_CHECK(GrB_Vector_new(&rm, GrB_FP64, n));
      GB_CHECK(GrB_Vector_assign(rm, gb.dout, nullptr, r, GrB_ALL, n, GrB_DESC_S));
      GB_CHECK(GrB_Vector_reduce_FP64(&nondangling, nullptr, GrB_PLUS_MONOID_FP64, rm, nullptr));
      GrB_Vector_free(&rm);
    }
    const double dangling = 1.0 - nondangling;
    GB_CHECK(GrB_Vector_apply_BinaryOp2nd_FP64(t, nullptr, nullptr, GrB_TIMES_FP64, t, d, nullptr));
    GB_CHECK(GrB_Vector_assign_FP64(r, nullptr, nullptr, (1 - d) / double(n) + d * dangling / double(n), GrB_ALL, n, nullptr));
    GB_CHECK(GrB_vxm(r, nullptr, GrB_PLUS_FP64, GrB_PLUS_TIMES_SEMIRING_FP64, t, gb.Af, nullptr));
  }
  if (out) {
    out->assign(n, 0.0);
    for (std::int64_t i = 0; i < n; ++i) GrB_Vector_extractElement_FP64(&(*out)[i], r, GrB_Index(i));
  }
  GrB_Vector_free(&r);
  GrB_Vector_free(&t);
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
#endif

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ',')) out.push_back(x);
  return out;
}

struct config {
  int repeats = 5;
  std::set<std::string> skip;
};

// Tessera on one execution space. Returns nothing; prints rows.
template <class Space>
void run_tessera(const std::string& name, const tg::edge_list& el, const host_csr& hc, const std::vector<std::int64_t>& sources,
                 const std::vector<std::int64_t>& comp_edges, const config& cfg, std::int64_t want_cc, std::int64_t want_tc,
                 const std::vector<double>& want_pr, const char* impl, int threads) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, Space>;
  using V = typename G::vertex_descriptor;
  G g(el, tg::build_options::simple());
  const std::int64_t n = g.num_vertices();
  if (!cfg.skip.count("bfs")) {
    tg::vertex_property_map<G, std::int32_t> lv(g);
    for (std::size_t i = 0; i < sources.size(); ++i) {
      tg::breadth_first_search(g, sources[i], tg::bfs_levels_visitor<G>(lv));
      auto h = tg::detail::to_host_vector(lv.view());
      if (std::vector<int>(h.begin(), h.end()) != ref_bfs(hc, sources[i])) mismatch(name + " bfs " + impl);
    }
    std::size_t i = 0;
    double work = 0;
    auto s = time_it(cfg.repeats * int(sources.size()), [&] {
      tg::breadth_first_search(g, sources[i % sources.size()], tg::bfs_levels_visitor<G>(lv));
      ++i;
    });
    for (auto e : comp_edges) work += double(e);
    work /= double(comp_edges.size());
    row(name, "bfs", impl, threads, s, work / 1e9, "GTEPS");
  }
  if (!cfg.skip.count("cc")) {
    tg::vertex_property_map<G, V> c(g);
    if (tg::connected_components(g, c) != want_cc) mismatch(name + " cc " + impl);
    row(name, "cc", impl, threads, time_it(cfg.repeats, [&] { tg::connected_components(g, c); }), double(g.num_edges()) / 1e6, "Medges/s");
    if (threads > 1) {
      if (tg::shiloach_vishkin(g, c) != want_cc) mismatch(name + " sv " + impl);
      row(name, "cc", "tessera-sv", threads, time_it(cfg.repeats, [&] { tg::shiloach_vishkin(g, c); }), double(g.num_edges()) / 1e6,
          "Medges/s");
    }
  }
  if (!cfg.skip.count("pagerank")) {
    tg::vertex_property_map<G, double> r(g);
    tg::pagerank(g, r, 0.85, 0.0, 20);
    auto h = tg::detail::to_host_vector(r.view());
    for (std::int64_t v = 0; v < n; ++v)
      if (std::abs(h[v] - want_pr[v]) > 1e-9) mismatch(name + " pagerank " + impl);
    auto s = time_it(cfg.repeats, [&] { tg::pagerank(g, r, 0.85, 0.0, 20); });
    s.median /= 20, s.min /= 20, s.max /= 20;
    row(name, "pr/iter", impl, threads, s, double(2 * g.num_edges()) / 1e6, "Medges/s");
  }
  if (!cfg.skip.count("tc")) {
    if (tg::count_triangles(g) != want_tc) mismatch(name + " tc " + impl);
    row(name, "tc", impl, threads, time_it(cfg.repeats, [&] { tg::count_triangles(g); }), double(g.num_edges()) / 1e6, "Medges/s");
  }
  if (!cfg.skip.count("msbfs")) {
    // 64 vertices of the giant component: the sources and some of their neighbours.
    std::vector<std::int64_t> src64;
    for (std::size_t i = 0; src64.size() < 64 && i < sources.size(); ++i) {
      src64.push_back(sources[i]);
      for (auto k = hc.rows[sources[i]]; k < hc.rows[sources[i] + 1] && src64.size() < 64 && k < hc.rows[sources[i]] + 8; ++k)
        src64.push_back(hc.adj[k]);
    }
    while (src64.size() < 64) src64.push_back(src64[src64.size() % 8]);
    const int reps = std::max(1, cfg.repeats / 2);
    auto one = time_it(reps, [&] { tg::multi_source_bfs(g, src64); });
    tg::vertex_property_map<G, std::int32_t> lv(g);
    auto many = time_it(reps, [&] {
      for (auto s : src64) tg::breadth_first_search(g, s, tg::bfs_levels_visitor<G>(lv));
    });
    row(name, "msbfs64", impl, threads, one, 64.0 / 1e3, "kqueries/s");
    row(name, "64xbfs", impl, threads, many, 64.0 / 1e3, "kqueries/s");
  }
}

void run_graph(const std::string& name, const tg::edge_list& el, const config& cfg) {
  // Host CSR for the references (and GraphBLAS).
  using H = tg::compressed_sparse_row_graph<tg::undirectedS, tessera::HostSpace>;
  H hg(el, tg::build_options::simple());
  host_csr hc;
  hc.n = hg.num_vertices();
  hc.rows = tg::detail::to_host_vector(hg.row_map());
  hc.adj = tg::detail::to_host_vector(hg.entries());
  std::printf("\n# %s: %lld vertices, %lld edges\n", name.c_str(), (long long)hc.n, (long long)hg.num_edges());
  // Sources: 8 vertices of the largest component, spread over its ids (Graph500 style: degree > 0).
  std::int64_t hub = 0;
  for (std::int64_t v = 0; v < hc.n; ++v)
    if (hc.rows[v + 1] - hc.rows[v] > hc.rows[hub + 1] - hc.rows[hub]) hub = v;
  const auto hub_levels = ref_bfs(hc, hub);
  std::vector<std::int64_t> sources, comp_edges;
  std::uint64_t x = 12345;
  while (sources.size() < 8) {
    x = tg::detail::mix64(x);
    const std::int64_t v = std::int64_t(x % std::uint64_t(hc.n));
    if (hub_levels[v] >= 0) sources.push_back(v);
  }
  std::int64_t ce = 0;
  for (std::int64_t v = 0; v < hc.n; ++v)
    if (hub_levels[v] >= 0) ce += hc.rows[v + 1] - hc.rows[v];
  comp_edges.assign(sources.size(), ce / 2);

  std::printf("%-22s %-9s %-18s %3s  %10s  %10s  %10s  %s\n", "graph", "algorithm", "implementation", "thr", "median ms", "min ms",
              "max ms", "rate (from median)");
  const std::int64_t want_cc = ref_cc(hc);
  const std::int64_t want_tc = cfg.skip.count("tc") ? 0 : ref_tc(hc);
  std::vector<double> want_pr;
  ref_pagerank(hc, 20, want_pr);
  // Serial reference rows (for scale).
  if (!cfg.skip.count("bfs")) {
    std::size_t i = 0;
    row(name, "bfs", "serial-reference", 1, time_it(cfg.repeats * 8, [&] { ref_bfs(hc, sources[i++ % 8]); }), double(ce / 2) / 1e9,
        "GTEPS");
  }
  if (!cfg.skip.count("cc"))
    row(name, "cc", "serial-reference", 1, time_it(cfg.repeats, [&] { ref_cc(hc); }), double(hg.num_edges()) / 1e6, "Medges/s");
  if (!cfg.skip.count("pagerank")) {
    std::vector<double> r;
    auto s = time_it(cfg.repeats, [&] { ref_pagerank(hc, 20, r); });
    s.median /= 20, s.min /= 20, s.max /= 20;
    row(name, "pr/iter", "serial-reference", 1, s, double(2 * hg.num_edges()) / 1e6, "Medges/s");
  }
  if (!cfg.skip.count("tc"))
    row(name, "tc", "serial-reference", 1, time_it(cfg.repeats, [&] { ref_tc(hc); }), double(hg.num_edges()) / 1e6, "Medges/s");

  run_tessera<tessera::Serial>(name, el, hc, sources, comp_edges, cfg, want_cc, want_tc, want_pr, "tessera", 1);
  run_tessera<tessera::OpenMP>(name, el, hc, sources, comp_edges, cfg, want_cc, want_tc, want_pr, "tessera", 2);

#if TESSERA_BENCH_HAVE_GRAPHBLAS
  gb_graph gb;
  gb_build(hc, gb);
  for (int t : {1, 2}) {
    gb_threads(t);
    if (!cfg.skip.count("bfs")) {
      if (gb_bfs(gb, hc.n, sources[0], true) != ref_bfs(hc, sources[0])) mismatch(name + " graphblas bfs");
      std::size_t i = 0;
      row(name, "bfs", "graphblas-vxm", t, time_it(cfg.repeats * 8, [&] { gb_bfs(gb, hc.n, sources[i++ % 8]); }),
          double(ce / 2) / 1e9, "GTEPS");
    }
    if (!cfg.skip.count("pagerank")) {
      std::vector<double> r;
      gb_pagerank(gb, hc.n, 20, &r);
      for (std::int64_t v = 0; v < hc.n; ++v)
        if (std::abs(r[v] - want_pr[v]) > 1e-9) mismatch(name + " graphblas pagerank");
      auto s = time_it(cfg.repeats, [&] { gb_pagerank(gb, hc.n, 20, nullptr); });
      s.median /= 20, s.min /= 20, s.max /= 20;
      row(name, "pr/iter", "graphblas", t, s, double(2 * hg.num_edges()) / 1e6, "Medges/s");
    }
    if (!cfg.skip.count("tc")) {
      if (gb_tc(gb, hc.n) != want_tc) mismatch(name + " graphblas tc");
      row(name, "tc", "graphblas-mxm-L", t, time_it(cfg.repeats, [&] { gb_tc(gb, hc.n); }), double(hg.num_edges()) / 1e6,
          "Medges/s");
    }
  }
#endif
}

}  // namespace

int main(int argc, char* argv[]) {
  tessera::ScopeGuard guard(argc, argv);
  config cfg;
  std::vector<int> scales = {18, 20};
  bool real = true;
  std::string data = TESSERA_GRAPH_DATA_DIR;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--scales") {
      scales.clear();
      for (auto& s : split(next())) scales.push_back(std::atoi(s.c_str()));
    } else if (a == "--repeats") {
      cfg.repeats = std::max(1, std::atoi(next().c_str()));
    } else if (a == "--no-real") {
      real = false;
    } else if (a == "--real") {
      real = true;
    } else if (a == "--data") {
      data = next();
    } else if (a == "--skip") {
      for (auto& s : split(next())) cfg.skip.insert(s);
    } else {
      std::fprintf(stderr, "unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
#if TESSERA_BENCH_HAVE_GRAPHBLAS
  GB_CHECK(GrB_init(GrB_NONBLOCKING));
#endif
  std::printf("tessera graph benchmarks: OpenMP threads %d, repeats %d (median, min, max)\n", tessera::OpenMP().concurrency(),
              cfg.repeats);
  if (real) {
    for (const char* f : {"karate.mtx", "jagmesh7.mtx", "G51.mtx", "bcspwr10.mtx", "oregon1_010331.txt", "facebook_combined.txt"}) {
      const std::string path = data + "/graphs/" + f;
      try {
        run_graph(f, tg::read_edge_list(path), cfg);
      } catch (const std::exception& e) {
        std::printf("# %s skipped: %s\n", f, e.what());
      }
    }
  }
  for (int s : scales) run_graph("kron" + std::to_string(s) + "-ef16", tg::kronecker(s, 16, 1), cfg);
#if TESSERA_BENCH_HAVE_GRAPHBLAS
  GrB_finalize();
#endif
  return 0;
}
