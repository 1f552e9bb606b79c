// tessera-graph <algorithm> <file | kron:SCALE:EDGEFACTOR[:SEED]> [--source V] [--threads N] [--output FILE] [--directed]
//
// Loads (Matrix Market, SNAP edge list, binary CSR .tgb) or generates a
// graph, runs one algorithm, prints sizes, a digest of the result, the time
// and edges per second. Loads and generations longer than a second show
// progress on stderr.
#include <tessera/graph.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tg = tessera::graph;

namespace {

const char* kUsage =
    "usage: tessera-graph <algorithm> <file | kron:SCALE:EDGEFACTOR[:SEED]> [options]\n"
    "algorithms:\n"
    "  info        sizes and degree statistics\n"
    "  bfs         breadth-first search from --source (levels)\n"
    "  msbfs       64 breadth-first searches at once (sources --source, --source+1, ...)\n"
    "  cc          connected components (Afforest)\n"
    "  sv          connected components (Shiloach-Vishkin)\n"
    "  scc         strongly connected components (reads the graph as directed)\n"
    "  pagerank    PageRank, damping 0.85, tolerance 1e-9\n"
    "  triangles   triangle count\n"
    "  sssp        delta-stepping shortest paths from --source (file weights, or 1)\n"
    "  convert     write the graph as binary CSR to --output (fast reloads)\n"
    "options:\n"
    "  --source V      source vertex (default: the vertex of largest degree)\n"
    "  --threads N     threads of the host back-end\n"
    "  --output FILE   per-vertex results as 'vertex value' lines (convert: the .tgb file)\n"
    "  --directed      keep edge directions (default: undirected, except scc)\n";

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using clock_type = std::chrono::steady_clock;

struct progress_state {
  clock_type::time_point start = clock_type::now();
  const char* what = "";
  bool shown = false;
};

void show_progress(std::int64_t done, std::int64_t total, void* user) {
  auto* p = static_cast<progress_state*>(user);
  const double el = std::chrono::duration<double>(clock_type::now() - p->start).count();
  if (el < 1.0) return;  // quiet for short loads
  p->shown = true;
  std::fprintf(stderr, "\r%s: %5.1f%% (%.1f s)", p->what, total > 0 ? 100.0 * double(done) / double(total) : 100.0, el);
  std::fflush(stderr);
}

std::int64_t parse_int(const std::string& s, const std::string& what) {
  std::size_t pos = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &pos);
  } catch (...) {
    pos = std::string::npos;
  }
  if (pos != s.size()) throw usage_error(what + " must be an integer, got '" + s + "'");
  return v;
}

template <class G>
void write_vertex_values(const std::string& path, const std::vector<double>& vals) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot create output file '" + path + "'");
  out.precision(17);
  for (std::size_t v = 0; v < vals.size(); ++v) out << v << ' ' << vals[v] << '\n';
}

struct run_result {
  std::string digest;
  double seconds = 0;
  double edges = 0;  // edges processed, for edges/s
  std::vector<double> per_vertex;
};

template <class Fn>
double timed(Fn&& f) {
  tessera::fence();
  const auto t0 = clock_type::now();
  f();
  tessera::fence();
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

template <class G>
run_result run_algorithm(const std::string& alg, const G& g, std::int64_t source, const tg::edge_list* el) {
  using V = typename G::vertex_descriptor;
  const std::int64_t n = tg::num_vertices(g);
  run_result r;
  if (source < 0 && n > 0 && (alg == "bfs" || alg == "sssp" || alg == "msbfs")) {
    // No --source: the vertex of largest degree (it lies in the giant component;
    // Kronecker graphs have many isolated vertices).
    tessera::MaxLoc<std::int64_t, std::int64_t>::value_type best;
    tg::reduce_vertices(g, TESSERA_LAMBDA(V v, tessera::MaxLoc<std::int64_t, std::int64_t>::value_type & b) {
      const std::int64_t d = tg::out_degree(v, g);
      if (d > b.val || (d == b.val && v < b.loc)) b.val = d, b.loc = v;
    }, tessera::MaxLoc<std::int64_t, std::int64_t>(best));
    source = best.loc;
    std::printf("source: %lld (largest degree, %lld)\n", (long long)source, (long long)best.val);
  }
  if ((alg == "bfs" || alg == "sssp" || alg == "msbfs") && (source < 0 || source >= n))
    throw usage_error("--source " + std::to_string(source) + " is not a vertex (the graph has " + std::to_string(n) + ")");
  if (alg == "info") {
    std::int64_t maxdeg = 0, isolated = 0;
    r.seconds = timed([&] {
      tg::reduce_vertices(g, TESSERA_LAMBDA(V v, std::int64_t & m) {
        if (tg::out_degree(v, g) > m) m = tg::out_degree(v, g);
      }, tessera::Max<std::int64_t>(maxdeg));
      tg::reduce_vertices(g, TESSERA_LAMBDA(V v, std::int64_t & s) { s += tg::out_degree(v, g) == 0; }, isolated);
    });
    r.digest = "max degree: " + std::to_string(maxdeg) + "\nisolated vertices: " + std::to_string(isolated);
    r.edges = double(tg::num_edges(g));
  } else if (alg == "bfs") {
    tg::vertex_property_map<G, std::int32_t> lv(g);
    tg::bfs_result res;
    r.seconds = timed([&] { res = tg::breadth_first_search(g, source, tg::bfs_levels_visitor<G>(lv)); });
    auto h = tg::detail::to_host_vector(lv.view());
    std::int64_t sum = 0;
    for (auto x : h) sum += x > 0 ? x : 0;
    r.digest = "reached: " + std::to_string(res.visited) + "\nlevels: " + std::to_string(res.levels) +
               "\nsum of levels: " + std::to_string(sum) + "\nbottom-up levels: " + std::to_string(res.bottom_up_levels);
    // Graph500 convention: edges of the reached component.
    std::int64_t comp_edges = 0;
    auto lvv = lv.view();
    tg::reduce_vertices(g, TESSERA_LAMBDA(V v, std::int64_t & s) { if (lvv(v) >= 0) s += tg::out_degree(v, g); }, comp_edges);
    r.edges = double(tg::graph_traits<G>::is_undirected ? comp_edges / 2 : comp_edges);
    r.per_vertex.assign(h.begin(), h.end());
  } else if (alg == "msbfs") {
    std::vector<std::int64_t> src;
    for (int i = 0; i < 64; ++i) src.push_back((source + i) % n);
    tessera::View<std::int32_t**, tessera::LayoutRight, typename G::space_type> lv;
    r.seconds = timed([&] { lv = tg::multi_source_bfs(g, src); });
    auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), lv);
    std::int64_t reached = 0, sum = 0;
    for (std::int64_t v = 0; v < n; ++v)
      for (int j = 0; j < 64; ++j)
        if (h(v, j) >= 0) ++reached, sum += h(v, j);
    r.digest = "queries: 64\nreached (all queries): " + std::to_string(reached) + "\nsum of levels: " + std::to_string(sum);
    r.edges = 64.0 * double(tg::num_edges(g));
  } else if (alg == "cc" || alg == "sv" || alg == "scc") {
    tg::vertex_property_map<G, V> comp(g);
    std::int64_t k = 0;
    r.seconds = timed([&] {
      if (alg == "cc") k = tg::connected_components(g, comp);
      else if (alg == "sv") k = tg::shiloach_vishkin(g, comp);
      else if constexpr (tg::graph_traits<G>::is_directed) k = tg::strongly_connected_components(g, comp);
    });
    auto h = tg::detail::to_host_vector(comp.view());
    std::map<std::int64_t, std::int64_t> sizes;
    for (auto c : h) ++sizes[c];
    std::int64_t largest = 0;
    for (auto& [c, s] : sizes) largest = std::max(largest, s);
    r.digest = "components: " + std::to_string(k) + "\nlargest component: " + std::to_string(largest);
    r.edges = double(tg::num_edges(g));
    r.per_vertex.assign(h.begin(), h.end());
  } else if (alg == "pagerank") {
    tg::vertex_property_map<G, double> pr(g);
    int it = 0;
    r.seconds = timed([&] { it = tg::pagerank(g, pr, 0.85, 1e-9, 1000); });
    auto h = tg::detail::to_host_vector(pr.view());
    const auto top = std::max_element(h.begin(), h.end()) - h.begin();
    char buf[128];
    std::snprintf(buf, sizeof buf, "iterations: %d\ntop vertex: %lld (rank %.6g)", it, (long long)top, n ? h[top] : 0.0);
    r.digest = buf;
    r.edges = double(it) * double(tg::num_edges(g));
    r.per_vertex = h;
  } else if (alg == "triangles") {
    std::int64_t t = 0;
    if constexpr (tg::graph_traits<G>::is_undirected) r.seconds = timed([&] { t = tg::count_triangles(g); });
    r.digest = "triangles: " + std::to_string(t);
    r.edges = double(tg::num_edges(g));
  } else if (alg == "sssp") {
    tg::edge_property_map<G, double> w(g, 1.0);
    if (el && el->has_weights()) {
      // Weights of the file, carried to edge indices by the build's origin map.
      tessera::View<std::int64_t*, typename G::space_type> origin;
      G g2(*el, tg::build_options::simple(), &origin);
      auto hw = tg::detail::to_space<double, typename G::space_type>("w", el->weights);
      auto wv = w.view();
      tessera::parallel_for(tessera::RangePolicy<typename G::execution_space>(0, w.size()),
                            TESSERA_LAMBDA(std::int64_t k) { wv(k) = hw(origin(k)) < 0 ? -hw(origin(k)) : hw(origin(k)); });
    }
    tg::vertex_property_map<G, double> dist(g);
    r.seconds = timed([&] { tg::delta_stepping_shortest_paths(g, source, w, dist); });
    auto h = tg::detail::to_host_vector(dist.view());
    std::int64_t reached = 0;
    double far = 0;
    for (auto d : h)
      if (d < std::numeric_limits<double>::max()) ++reached, far = std::max(far, d);
    char buf[128];
    std::snprintf(buf, sizeof buf, "reached: %lld\nlargest distance: %.6g", (long long)reached, far);
    r.digest = buf;
    r.edges = double(tg::num_edges(g));
    r.per_vertex = h;
  } else {
    throw usage_error("unknown algorithm '" + alg + "'");
  }
  return r;
}

template <class G>
int run(const std::string& alg, const std::string& input, std::int64_t source, const std::string& output) {
  progress_state prog;
  tg::read_options ro{show_progress, &prog};
  const auto t0 = clock_type::now();
  std::optional<tg::edge_list> el;
  G g;
  const bool binary = input.size() > 4 && input.substr(input.size() - 4) == ".tgb";
  if (input.rfind("kron:", 0) == 0) {
    std::vector<std::string> parts;
    std::size_t b = 5;
    for (;;) {
      const auto e = input.find(':', b);
      parts.push_back(input.substr(b, e == std::string::npos ? std::string::npos : e - b));
      if (e == std::string::npos) break;
      b = e + 1;
    }
    if (parts.size() < 2 || parts.size() > 3) throw usage_error("generator spec is kron:SCALE:EDGEFACTOR[:SEED], got '" + input + "'");
    const auto scale = parse_int(parts[0], "kron SCALE"), ef = parse_int(parts[1], "kron EDGEFACTOR");
    const auto seed = parts.size() == 3 ? parse_int(parts[2], "kron SEED") : 1;
    if (scale < 1 || scale > 31) throw usage_error("kron SCALE must be in 1..31, got " + std::to_string(scale));
    if (ef < 1 || ef > 1024) throw usage_error("kron EDGEFACTOR must be in 1..1024, got " + std::to_string(ef));
    prog.what = "generating";
    el = tg::kronecker(int(scale), int(ef), std::uint64_t(seed), {}, ro);
  } else if (binary) {
    g = tg::read_binary_csr<G>(input);
  } else {
    prog.what = "loading";
    el = tg::read_edge_list(input, ro);
  }
  if (el) {
    prog.what = "building";
    g = G(*el, tg::build_options::simple());
  }
  if (prog.shown) std::fprintf(stderr, "\n");
  const double load_s = std::chrono::duration<double>(clock_type::now() - t0).count();
  std::printf("graph: %s\nvertices: %lld\nedges: %lld\nload+build: %.3f s\n", input.c_str(), (long long)tg::num_vertices(g),
              (long long)tg::num_edges(g), load_s);
  if (alg == "convert") {
    if (output.empty()) throw usage_error("convert needs --output FILE.tgb");
    tg::write_binary_csr(output, g);
    std::printf("written: %s\n", output.c_str());
    return 0;
  }
  auto r = run_algorithm(alg, g, source, el ? &*el : nullptr);
  std::printf("algorithm: %s\n%s\ntime: %.6f s\nedges/s: %.4g\n", alg.c_str(), r.digest.c_str(), r.seconds,
              r.seconds > 0 ? r.edges / r.seconds : 0.0);
  if (!output.empty()) {
    if (r.per_vertex.empty()) throw usage_error("--output: " + alg + " has no per-vertex result");
    write_vertex_values<G>(output, r.per_vertex);
    std::printf("written: %s\n", output.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string alg, input, output;
  std::int64_t source = -1;  // -1: the vertex of largest degree
  int threads = 0;
  bool directed = false;
  try {
    std::vector<std::string> pos;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      auto value = [&](const char* opt) -> const std::string& {
        if (i + 1 >= args.size()) throw usage_error(std::string(opt) + " needs a value");
        return args[++i];
      };
      if (a == "-h" || a == "--help") {
        std::fputs(kUsage, stdout);
        return 0;
      } else if (a == "--source") {
        source = parse_int(value("--source"), "--source");
        if (source < 0) throw usage_error("--source must be a vertex id (>= 0), got " + std::to_string(source));
      } else if (a == "--threads") {
        threads = int(parse_int(value("--threads"), "--threads"));
        if (threads < 1) throw usage_error("--threads must be at least 1");
      } else if (a == "--output") {
        output = value("--output");
      } else if (a == "--directed") {
        directed = true;
      } else if (a.rfind("--", 0) == 0) {
        throw usage_error("unknown option '" + a + "'");
      } else {
        pos.push_back(a);
      }
    }
    if (pos.size() != 2) throw usage_error("expected an algorithm and a graph, got " + std::to_string(pos.size()) + " arguments");
    alg = pos[0];
    input = pos[1];
    static const char* known[] = {"info", "bfs", "msbfs", "cc", "sv", "scc", "pagerank", "triangles", "sssp", "convert"};
    if (std::find(std::begin(known), std::end(known), alg) == std::end(known)) throw usage_error("unknown algorithm '" + alg + "'");
    if (alg == "triangles" && directed) throw usage_error("triangles needs an undirected graph (drop --directed)");
    if (alg == "scc") directed = true;
  } catch (const usage_error& e) {
    std::fprintf(stderr, "tessera-graph: %s\n%s", e.what(), kUsage);
    return 2;
  }
  tessera::InitializationSettings settings;
  if (threads > 0) settings.set_num_threads(threads);
  tessera::ScopeGuard guard(settings);
  try {
    if (directed) return run<tg::compressed_sparse_row_graph<tg::bidirectionalS>>(alg, input, source, output);
    return run<tg::compressed_sparse_row_graph<tg::undirectedS>>(alg, input, source, output);
  } catch (const usage_error& e) {
    std::fprintf(stderr, "tessera-graph: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera-graph: %s\n", e.what());
    return 1;
  }
}
