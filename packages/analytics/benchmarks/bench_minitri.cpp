// miniTri: direct, tasks (block sizes 10/100/1000) and data against each
// other and against a SuiteSparse:GraphBLAS formulation, at 1 thread
// (Serial back-end) and 2 (OpenMP back-end), on the same graph.
//
//   tessera_bench_minitri [--graphs a,b,...] [--threads 1,2] [--repeats N] [--blocks 10,100,1000]
//
// Contenders are timed in turn within each repeat (bench_stats.hpp): the
// ratios reported are medians of per-repeat ratios, with their min-max.
// Every contender's histogram is checked against direct's before timing.
//
// GraphBLAS formulation (the linear-algebra miniTri with GraphBLAS
// primitives): C<A> = A A with PLUS_PAIR (a masked mxm) gives t_e on every
// edge; t_v = (row sums of C) / 2 (a reduction). The k-count histogram then
// comes from nested triangle counts: count(k) = triangles of the subgraph of
// edges with t_e >= k - 2 between vertices with t_v >= C(k-1, 2) (a select
// with a user index-unary op, then C<L> = L L' and a reduction), and
// histogram(k) = count(k) - count(k + 1), until the count is zero.
#include <tessera/analytics.hpp>

#include "bench_stats.hpp"

#if TESSERA_BENCH_HAVE_GRAPHBLAS
extern "C" {
#include <GraphBLAS.h>
}
#endif

#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace ta = tessera::analytics;
namespace tg = tessera::graph;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ',')) out.push_back(x);
  return out;
}

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "tessera_bench_minitri: %s\n", msg.c_str());
  std::exit(3);
}

#if TESSERA_BENCH_HAVE_GRAPHBLAS
#define GB_CHECK(x)                                                                                \
  do {                                                                                             \
    GrB_Info info_ = (x);                                                                          \
    if (info_ != GrB_SUCCESS) die("GraphBLAS error " + std::to_string(int(info_)) + " at " #x);    \
  } while (0)

// The vertex degrees the select op reads (GraphBLAS passes one scalar, k).
const std::int64_t* g_tv = nullptr;
void keep_for_k(void* z, const void* x, GrB_Index i, GrB_Index j, const void* y) {
  const std::int64_t k = *static_cast<const std::int64_t*>(y);
  const std::int64_t need_v = (k - 1) * (k - 2) / 2;
  *static_cast<bool*>(z) = *static_cast<const std::int64_t*>(x) >= k - 2 && g_tv[i] >= need_v && g_tv[j] >= need_v;
}

struct gb_minitri {
  GrB_Index n = 0;
  GrB_Matrix A = nullptr;  // BOOL pattern, symmetric
  GrB_IndexUnaryOp keep = nullptr;
  std::vector<std::int64_t> tv;

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
    GB_CHECK(GrB_IndexUnaryOp_new(&keep, keep_for_k, GrB_BOOL, GrB_INT64, GrB_INT64));
    tv.assign(n, 0);
  }
  ~gb_minitri() {
    GrB_Matrix_free(&A);
    GrB_IndexUnaryOp_free(&keep);
  }

  static std::int64_t count_triangles(GrB_Matrix Ak, GrB_Index n) {
    GrB_Matrix L = nullptr, C = nullptr;
    GB_CHECK(GrB_Matrix_new(&L, GrB_INT64, n, n));
    GB_CHECK(GrB_Matrix_select_INT64(L, nullptr, nullptr, GrB_TRIL, Ak, std::int64_t(-1), nullptr));
    GB_CHECK(GrB_Matrix_new(&C, GrB_INT64, n, n));
    GB_CHECK(GrB_mxm(C, L, nullptr, GxB_PLUS_PAIR_INT64, L, L, GrB_DESC_ST1));
    std::int64_t t = 0;
    GB_CHECK(GrB_Matrix_reduce_INT64(&t, nullptr, GrB_PLUS_MONOID_INT64, C, nullptr));
    GrB_Matrix_free(&L);
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
    std::int64_t prev = total / 3;  // count(3): every triangle
    GrB_Matrix Ak = C;
    for (std::int64_t k = 4; prev > 0; ++k) {
      GrB_Matrix next = nullptr;
      GB_CHECK(GrB_Matrix_new(&next, GrB_INT64, n, n));
      GB_CHECK(GrB_Matrix_select_INT64(next, nullptr, nullptr, keep, Ak, k, nullptr));
      GrB_Matrix_free(&Ak);
      Ak = next;
      const std::int64_t c = count_triangles(Ak, n);
      if (prev - c > 0) hist[int(k - 1)] = prev - c;
      prev = c;
    }
    GrB_Matrix_free(&Ak);
    return hist;
  }
};
#endif

template <class Space>
void bench_graph(const std::string& spec, int threads, int repeats, const std::vector<std::int64_t>& blocks) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, Space>;
  const std::string path = spec.rfind("kron:", 0) == 0 ? spec : std::string(TESSERA_DATA_DIR) + "/graphs/" + spec;
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
  std::printf("\n### %s, %d thread(s) (%s): %lld vertices, %lld edges, %lld triangles, largest k %d, CSR %.2f MiB\n",
              spec.c_str(), threads, Space::name(), (long long)g.num_vertices(), (long long)g.num_edges(),
              (long long)ref.triangles, ref.max_k(), double(csr) / 1048576.0);
  std::vector<ta::minitri_result> mem(opts.size());
  for (std::size_t i = 0; i < opts.size(); ++i) {
    mem[i] = ta::minitri(g, opts[i]);
    if (mem[i].histogram != ref.histogram) die(spec + ": " + names[i] + " histogram differs from direct's");
  }
  std::vector<tessera::bench::Contender> cs;
  for (std::size_t i = 0; i < opts.size(); ++i) {
    tessera::bench::Contender c;
    c.kernel = names[i];
    c.backend = Space::name();
    c.threads = threads;
    const auto op = opts[i];
    c.run = [&g, op] { (void)ta::minitri(g, op); };
    c.peer = names[i].rfind("tasks", 0) == 0 ? 0 : int(i) == i_direct ? i_tasks100 : -1;
    cs.push_back(c);
  }
#if TESSERA_BENCH_HAVE_GRAPHBLAS
  GB_CHECK(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, threads));
  gb_minitri gb(g);
  if (gb.run() != ref.histogram) die(spec + ": GraphBLAS histogram differs from direct's");
  {
    tessera::bench::Contender c;
    c.kernel = "GraphBLAS";
    c.backend = "GraphBLAS";
    c.threads = threads;
    c.run = [&gb] { (void)gb.run(); };
    c.peer = i_direct;  // ratio = direct's time / GraphBLAS's: < 1 means direct is faster
    cs.push_back(c);
  }
#endif
  const auto res = tessera::bench::run_paired(cs, 1, repeats);
  std::printf("| contender | median s | min s | max s | ratio (peer/own) | ratio min-max | peer | peak MiB | peak stored triangles |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---|---:|---:|\n");
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const auto& s = res[i].seconds;
    std::printf("| %s | %.4f | %.4f | %.4f | ", cs[i].kernel.c_str(), s.median, s.min, s.max);
    if (cs[i].peer >= 0)
      std::printf("%.3f | %.3f-%.3f | %s | ", res[i].ratio.median, res[i].ratio.min, res[i].ratio.max,
                  cs[std::size_t(cs[i].peer)].kernel.c_str());
    else
      std::printf("- | - | - | ");
    if (i < mem.size())
      std::printf("%.2f | %lld |\n", double(mem[i].peak_bytes) / 1048576.0, (long long)mem[i].peak_stored_triangles);
    else
      std::printf("- | - |\n");
  }
  std::printf("direct peak / CSR = %.2f\n", double(mem[std::size_t(i_direct)].peak_bytes) / double(csr));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char* argv[]) {
  std::string graphs = "oregon1_010331.txt,facebook_combined.txt,kron:16:16,kron:18:16";
  std::string threads = "1,2", blocks_s = "10,100,1000";
  int repeats = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--graphs") graphs = next();
    else if (a == "--threads") threads = next();
    else if (a == "--repeats") repeats = std::atoi(next().c_str());
    else if (a == "--blocks") blocks_s = next();
    else if (a.rfind("--tessera-", 0) == 0) continue;
    else die("unknown option " + a + " (--graphs a,b --threads 1,2 --repeats N --blocks 10,100,1000)");
  }
  std::vector<std::int64_t> blocks;
  for (const auto& b : split(blocks_s)) blocks.push_back(std::atoll(b.c_str()));
  int max_threads = 1;
  for (const auto& t : split(threads)) max_threads = std::max(max_threads, std::atoi(t.c_str()));
  tessera::InitializationSettings settings;
  settings.set_num_threads(max_threads);
  tessera::ScopeGuard guard(settings);
#if TESSERA_BENCH_HAVE_GRAPHBLAS
  GB_CHECK(GrB_init(GrB_NONBLOCKING));
#endif
  std::FILE* la = std::fopen("/proc/loadavg", "r");
  char load[128] = "?";
  if (la && std::fgets(load, sizeof load, la)) std::printf("load average at start: %s", load);
  if (la) std::fclose(la);
  for (const auto& spec : split(graphs))
    for (const auto& t : split(threads)) {
      if (t == "1") bench_graph<tessera::Serial>(spec, 1, repeats, blocks);
      else bench_graph<tessera::OpenMP>(spec, std::atoi(t.c_str()), repeats, blocks);
    }
#if TESSERA_BENCH_HAVE_GRAPHBLAS
  GrB_finalize();
#endif
  la = std::fopen("/proc/loadavg", "r");
  if (la && std::fgets(load, sizeof load, la)) std::printf("load average at end: %s", load);
  if (la) std::fclose(la);
}
