// miniTri: direct, tasks (block sizes 10/100/1000) and data against each
// other and against a SuiteSparse:GraphBLAS formulation, at 1 thread
// (Serial back-end) and 2 (OpenMP back-end), on the same graph.
//
//   tessera_bench_minitri [--graphs a,b,...] [--threads 1,2] [--repeats N] [--blocks 10,100,1000] [--json]
//
// Contenders are timed in turn within each repeat (tessera::bench::
// run_interleaved): the ratios reported are medians of per-repeat ratios
// (reference time / own time), with their min-max. References: tasks/B to
// data, direct to tasks/100, GraphBLAS to direct. ci/bench.sh runs it once
// per thread count (--threads T), so each run's JSON lines have one count.
// Every contender's histogram is checked against direct's before timing.
//
// GraphBLAS formulation (the linear-algebra miniTri with GraphBLAS
// primitives): C<A> = A A with PLUS_PAIR (a masked mxm) gives t_e on every
// edge that lies in a triangle; t_v = (row sums of C) / 2 (a reduction).
//
// The k-count histogram then comes from nested triangle counts over edge
// caps. A triangle's k is the largest k with min_v t_v >= C(k-1, 2) and
// min_e t_e >= k - 2 (clique_bound_k in triangle.hpp). Let kv(v) be the
// largest k with t_v >= C(k-1, 2) (monotone in t_v) and give every edge
// e = {u, v} the cap
//
//   w(e) = min(t_e + 2, kv(u), kv(v))  = clique_bound_k(min(t_u, t_v), t_e).
//
// Every vertex of a triangle is an endpoint of one of its edges, so the
// triangle's k is the min of its three edges' caps, and
//
//   count(k) = triangles among the edges with w >= k  = triangles with k' >= k,
//   histogram(k) = count(k) - count(k + 1).
//
// count(k) only changes where k passes a value of w: for w_{i-1} < k <= w_i
// (w_1 < w_2 < ... < w_m the sorted distinct caps) count(k) = count(w_i).
// So the histogram is nonzero only at caps, histogram(w_i) = count(w_i) -
// count(w_{i+1}) (count(w_{m+1}) = 0), and only m counts are needed, not one
// per k up to the largest (782 on Kronecker 16). Steps: W = strictly lower
// part of C with the cap applied (one select, one apply with a user
// index-unary op); the distinct caps from W's values; count(w_1) = T; then
// for i = 2..m, L_i = select(VALUEGE, L_{i-1}, w_i) (a built-in select, on
// the previous, already smaller, L) and count(w_i) = sum(C<L_i> = L_i L_i')
// with PLUS_PAIR; stop when a count reaches zero.
#include <tessera/analytics.hpp>

#include "graph_spec.hpp"

#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/report.hpp>

#if TESSERA_BENCH_HAVE_GRAPHBLAS
extern "C" {
#include <GraphBLAS.h>
}
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace ta = tessera::analytics;
namespace tg = tessera::graph;

namespace {

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "tessera_bench_minitri: %s\n", msg.c_str());
  std::exit(3);
}

#if TESSERA_BENCH_HAVE_GRAPHBLAS
#define GB_CHECK(x)                                                                             \
  do {                                                                                          \
    GrB_Info info_ = (x);                                                                       \
    if (info_ != GrB_SUCCESS) die("GraphBLAS error " + std::to_string(int(info_)) + " at " #x); \
  } while (0)

// The vertex degrees the cap op reads (GraphBLAS passes one scalar, unused).
const std::int64_t* g_tv = nullptr;
// w(e) = min(t_e + 2, kv(i), kv(j)) for the edge {i, j} with t_e = x: the
// library's own k rule applied to min(t_i, t_j) and t_e.
void edge_cap(void* z, const void* x, GrB_Index i, GrB_Index j, const void*) {
  const std::int64_t ti = g_tv[i], tj = g_tv[j];
  *static_cast<std::int64_t*>(z) =
      ta::clique_bound_k(ti < tj ? ti : tj, *static_cast<const std::int64_t*>(x));
}

struct gb_minitri {
  GrB_Index n = 0;
  GrB_Matrix A = nullptr;  // BOOL pattern, symmetric
  GrB_IndexUnaryOp cap = nullptr;
  std::vector<std::int64_t> tv;
  std::size_t distinct_caps = 0;  // m of the last run: triangle counts it needed

  template <class G>
  explicit gb_minitri(const G& g) {
    n = GrB_Index(g.num_vertices());
    const auto rm = tg::detail::to_host_vector(g.row_map());
    const auto ent = tg::detail::to_host_vector(g.entries());
    std::vector<GrB_Index> I(ent.size()), J(ent.size());
    for (std::int64_t u = 0; u < g.num_vertices(); ++u)
      for (auto k = rm[u]; k < rm[u + 1]; ++k) I[k] = GrB_Index(u), J[k] = GrB_Index(ent[k]);
    std::unique_ptr<bool[]> X(new bool[ent.size()]);
    std::fill(X.get(), X.get() + ent.size(), true);
    GB_CHECK(GrB_Matrix_new(&A, GrB_BOOL, n, n));
    GB_CHECK(GrB_Matrix_build_BOOL(A, I.data(), J.data(), X.get(), ent.size(), GrB_LOR));
    GB_CHECK(GrB_Matrix_wait(A, GrB_MATERIALIZE));
    GB_CHECK(GrB_IndexUnaryOp_new(&cap, edge_cap, GrB_INT64, GrB_INT64, GrB_INT64));
    tv.assign(n, 0);
  }
  ~gb_minitri() {
    GrB_Matrix_free(&A);
    GrB_IndexUnaryOp_free(&cap);
  }

  // Triangles of the graph whose strictly lower adjacency is L:
  // sum(C<L> = L L') with PLUS_PAIR.
  static std::int64_t count_triangles(GrB_Matrix L, GrB_Index n) {
    GrB_Matrix C = nullptr;
    GB_CHECK(GrB_Matrix_new(&C, GrB_INT64, n, n));
    GB_CHECK(GrB_mxm(C, L, nullptr, GxB_PLUS_PAIR_INT64, L, L, GrB_DESC_ST1));
    std::int64_t t = 0;
    GB_CHECK(GrB_Matrix_reduce_INT64(&t, nullptr, GrB_PLUS_MONOID_INT64, C, nullptr));
    GrB_Matrix_free(&C);
    return t;
  }

  std::map<int, std::int64_t> run() {
    // t_e: C<A> = A A (PLUS_PAIR), t_v = row sums / 2.
    GrB_Matrix C = nullptr;
    GB_CHECK(GrB_Matrix_new(&C, GrB_INT64, n, n));
    GB_CHECK(GrB_mxm(C, A, nullptr, GxB_PLUS_PAIR_INT64, A, A, GrB_DESC_S));
    GrB_Vector v = nullptr;
    GB_CHECK(GrB_Vector_new(&v, GrB_INT64, n));
    GB_CHECK(GrB_Matrix_reduce_Monoid(v, nullptr, nullptr, GrB_PLUS_MONOID_INT64, C, nullptr));
    std::fill(tv.begin(), tv.end(), 0);
    {
      GrB_Index nv = 0;
      GB_CHECK(GrB_Vector_nvals(&nv, v));
      std::vector<GrB_Index> idx(nv);
      std::vector<std::int64_t> val(nv);
      GB_CHECK(GrB_Vector_extractTuples_INT64(idx.data(), val.data(), &nv, v));
      for (GrB_Index q = 0; q < nv; ++q) tv[idx[q]] = val[q] / 2;
    }
    GrB_Vector_free(&v);
    g_tv = tv.data();
    std::int64_t total = 0;
    for (auto x : tv) total += x;
    std::map<int, std::int64_t> hist;
    if (total == 0) {
      GrB_Matrix_free(&C);
      return hist;
    }

    // W: the strictly lower part of C (every edge in a triangle, once),
    // valued with the edge's cap w(e).
    GrB_Matrix W = nullptr;
    GB_CHECK(GrB_Matrix_new(&W, GrB_INT64, n, n));
    GB_CHECK(GrB_Matrix_select_INT64(W, nullptr, nullptr, GrB_TRIL, C, std::int64_t(-1), nullptr));
    GrB_Matrix_free(&C);
    GB_CHECK(GrB_Matrix_apply_IndexOp_INT64(W, nullptr, nullptr, cap, W, std::int64_t(0), nullptr));

    // The distinct caps, ascending (caps lie in [3, max t_e + 2]).
    std::vector<std::int64_t> caps;
    {
      GrB_Index nw = 0;
      GB_CHECK(GrB_Matrix_nvals(&nw, W));
      std::vector<std::int64_t> w(nw);
      GB_CHECK(GrB_Matrix_extractTuples_INT64(nullptr, nullptr, w.data(), &nw, W));
      std::int64_t wmax = 0;
      for (auto x : w) wmax = x > wmax ? x : wmax;
      std::vector<char> seen(std::size_t(wmax) + 1, 0);
      for (auto x : w) seen[std::size_t(x)] = 1;
      for (std::int64_t x = 0; x <= wmax; ++x)
        if (seen[std::size_t(x)]) caps.push_back(x);
    }

    distinct_caps = caps.size();
    // count(caps[0]) = T; then nested selects on the value threshold.
    std::int64_t prev = total / 3;
    GrB_Matrix L = W;
    for (std::size_t i = 1; i < caps.size() && prev > 0; ++i) {
      GrB_Matrix next = nullptr;
      GB_CHECK(GrB_Matrix_new(&next, GrB_INT64, n, n));
      GB_CHECK(GrB_Matrix_select_INT64(next, nullptr, nullptr, GrB_VALUEGE_INT64, L, caps[i], nullptr));
      GrB_Matrix_free(&L);
      L = next;
      const std::int64_t c = count_triangles(L, n);
      if (prev - c > 0) hist[int(caps[i - 1])] = prev - c;
      prev = c;
    }
    if (prev > 0) hist[int(caps.back())] = prev;  // count past the largest cap is 0
    GrB_Matrix_free(&L);
    return hist;
  }
};
#endif

template <class Space>
void bench_graph(const tessera::bench::Report& report, bool json, const std::string& spec, int threads,
                 int repeats, const std::vector<std::int64_t>& blocks) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, Space>;
  const std::string path = tessera::bench::minitri_graph_path(spec);
  const G g = ta::build_simple<G>(ta::load_edges(path));
  const std::int64_t csr = std::int64_t(sizeof(std::int64_t)) * (g.num_vertices() + 1) +
                           std::int64_t(sizeof(int) + sizeof(std::int64_t)) * g.num_stored_edges();

  std::vector<ta::minitri_options> opts;
  std::vector<std::string> names;
  ta::minitri_options o;
  o.method = ta::method::data;
  opts.push_back(o), names.push_back("data");
  for (auto b : blocks) {
    o.method = ta::method::tasks;
    o.block_size = b;
    opts.push_back(o), names.push_back("tasks/" + std::to_string(b));
  }
  o.method = ta::method::direct;
  opts.push_back(o), names.push_back("direct");
  const int i_direct = int(opts.size()) - 1;
  int i_tasks100 = 1;
  for (std::size_t i = 0; i < blocks.size(); ++i)
    if (blocks[i] == 100) i_tasks100 = int(i) + 1;

  // Check every method (and GraphBLAS) against direct; record memory.
  const auto ref = ta::minitri(g, opts[std::size_t(i_direct)]);
  if (!json)
    std::printf(
        "\n### %s, %d thread(s) (%s): %lld vertices, %lld edges, %lld triangles, largest k %d, CSR %.2f "
        "MiB\n",
        spec.c_str(), threads, Space::name(), (long long)g.num_vertices(), (long long)g.num_edges(),
        (long long)ref.triangles, ref.max_k(), double(csr) / 1048576.0);
  std::vector<ta::minitri_result> mem(opts.size());
  for (std::size_t i = 0; i < opts.size(); ++i) {
    mem[i] = ta::minitri(g, opts[i]);
    if (mem[i].histogram != ref.histogram) die(spec + ": " + names[i] + " histogram differs from direct's");
  }
  std::vector<tessera::bench::Contender> cs;
  const auto space_threads = [] { return Space().concurrency(); };
  for (std::size_t i = 0; i < opts.size(); ++i) {
    const auto op = opts[i];
    const int reference = names[i].rfind("tasks", 0) == 0 ? 0 : int(i) == i_direct ? i_tasks100 : -1;
    cs.push_back({"tessera " + names[i], [&g, op] { (void)ta::minitri(g, op); }, space_threads, reference});
  }
#if TESSERA_BENCH_HAVE_GRAPHBLAS
  GB_CHECK(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, threads));
  gb_minitri gb(g);
  if (gb.run() != ref.histogram) die(spec + ": GraphBLAS histogram differs from direct's");
  if (!json)
    std::printf("# GraphBLAS: %zu distinct edge caps (triangle counts per run; largest k %d)\n",
                gb.distinct_caps, ref.max_k());
  // Ratio = direct's time / GraphBLAS's: < 1 means direct is faster.
  cs.push_back({"GraphBLAS", [&gb] { (void)gb.run(); },
                [] {
                  int n = 0;
                  GxB_Global_Option_get(GxB_GLOBAL_NTHREADS, &n);
                  return n;
                },
                i_direct});
#endif
  tessera::bench::InterleaveOptions opt;
  opt.repeats = repeats;
  report.add(spec, tessera::bench::Measure{"s", 1, 1, true, true}, cs,
             tessera::bench::run_interleaved(cs, opt));
  if (json) return;
  std::printf("# memory: | contender | peak MiB | peak stored triangles |\n");
  for (std::size_t i = 0; i < mem.size(); ++i)
    std::printf("#   | %s | %.2f | %lld |\n", names[i].c_str(), double(mem[i].peak_bytes) / 1048576.0,
                (long long)mem[i].peak_stored_triangles);
  std::printf("# direct peak / CSR = %.2f\n", double(mem[std::size_t(i_direct)].peak_bytes) / double(csr));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char* argv[]) {
  namespace tools = tessera::tools;
  std::vector<std::string> graphs{"oregon1_010331.txt", "facebook_combined.txt", "kron:16:16", "kron:18:16"};
  std::vector<int> threads{1, 2};
  std::vector<std::int64_t> blocks{10, 100, 1000};
  tessera::bench::Cli cli("tessera_bench_minitri",
                          "miniTri's three methods against each other and a SuiteSparse:GraphBLAS formulation.", 5);
  auto& app = cli.app();
  // --threads 1,2 runs both counts in this process (the back-ends get the largest).
  cli.keep_thread_list();
  app.add_option("--graphs", graphs, "graphs, comma-separated: files of examples/data/graphs, paths (with a /) or kron:SCALE:EDGEFACTOR")
      ->delimiter(',');
  app.add_option("--threads", threads, "thread counts, comma-separated (1: Serial, more: OpenMP)")
      ->delimiter(',')
      ->check(tools::integer(1, 4096));
  app.add_option("--blocks", blocks, "row-block sizes of the tasks method, comma-separated")
      ->delimiter(',')
      ->check(tools::integer(1, std::int64_t(1) << 40));
  if (auto status = cli.parse(argc, argv)) return *status;
  const int repeats = cli.repeats;
  const bool json = cli.json;
  // The back-ends get the largest thread count asked for (unless --tessera-num-threads says otherwise).
  if (!cli.settings().has_num_threads()) cli.settings().set_num_threads(*std::max_element(threads.begin(), threads.end()));
  tessera::ScopeGuard guard(cli.settings());
#if TESSERA_BENCH_HAVE_GRAPHBLAS
  GB_CHECK(GrB_init(GrB_NONBLOCKING));
#endif
  const tessera::bench::Report report("minitri", json);
  // A graph that cannot be read (a missing file, a bad line) ends the run with
  // the reader's message, which names the file and line.
  try {
    for (const auto& spec : graphs)
      for (const int t : threads) {
        if (t == 1)
          bench_graph<tessera::Serial>(report, json, spec, 1, repeats, blocks);
        else
          bench_graph<tessera::OpenMP>(report, json, spec, t, repeats, blocks);
      }
  } catch (const std::exception& e) {
    die(e.what());
  }
#if TESSERA_BENCH_HAVE_GRAPHBLAS
  GrB_finalize();
#endif
}
