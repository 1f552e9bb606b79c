// tessera-graph <algorithm> <file | kron:SCALE:EDGEFACTOR[:SEED]> [--source V] [--threads N] [--output FILE]
//               [--directed] [--json] [--tessera-...]
//
// Loads (Matrix Market, SNAP edge list, binary CSR .tgb) or generates a
// graph, runs one algorithm, prints sizes, a digest of the result, the time
// and edges per second (or all of it as one JSON object). Every phase longer
// than a second (reading, parsing, generating, building, the algorithm)
// shows progress on stderr (tessera::tools::Progress). Arguments, --output
// and the generator size are checked before anything is loaded: exit 2 for
// bad usage, 1 for bad input.
#include <tessera/core/host_fallback.hpp>
#include <tessera/graph.hpp>
#include <tessera/tools/cli.hpp>
#include <tessera/tools/digest.hpp>
#include <tessera/tools/json.hpp>
#include <tessera/tools/progress.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tg = tessera::graph;

namespace {

const char* kDescription =
    "Loads or generates a graph and runs one algorithm on it.\n"
    "  <graph>: a Matrix Market file (.mtx), an edge list, a binary CSR file (.tgb) or\n"
    "  kron:SCALE:EDGEFACTOR[:SEED] (a Graph500 Kronecker graph, 2^SCALE vertices)\n"
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
    "  convert     write the graph to --output (binary CSR .tgb for fast reloads, .mtx, or an edge list)\n"
    "  jobs        tessera-graph jobs <graph> JOBS.txt: the job file's BFS, sssp, pagerank and jaccard\n"
    "              jobs run together, sharing sweeps (--sequential: one after another)\n"
    "Exit status: 0 done, 1 bad input (a file's line, a negative sssp weight), 2 bad usage.";

const char* kAlgorithms[] = {"info",     "bfs",       "msbfs", "cc",      "sv",  "scc",
                             "pagerank", "triangles", "sssp",  "convert", "jobs"};

using tessera::tools::Digest;
using tessera::tools::json;
using tessera::tools::usage_error;

using clock_type = std::chrono::steady_clock;

std::string text_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

template <class G>
void write_vertex_values(const std::string& path, const std::vector<double>& vals) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot create output file '" + path + "': " + std::strerror(errno));
  out.precision(17);
  for (std::size_t v = 0; v < vals.size(); ++v) out << v << ' ' << vals[v] << '\n';
}

struct run_result {
  Digest result;
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

// Source vertex: --source, or the vertex of largest degree (it lies in the
// giant component; Kronecker graphs have many isolated vertices).
template <class G>
std::int64_t pick_source(const G& g, std::int64_t source) {
  using V = typename G::vertex_descriptor;
  const std::int64_t n = tg::num_vertices(g);
  if (source < 0 && n > 0) {
    tessera::MaxLoc<std::int64_t, std::int64_t>::value_type best;
    tg::reduce_vertices(g, TESSERA_LAMBDA(V v, tessera::MaxLoc<std::int64_t, std::int64_t>::value_type & b) {
      const std::int64_t d = tg::out_degree(v, g);
      if (d > b.val || (d == b.val && v < b.loc)) b.val = d, b.loc = v;
    }, tessera::MaxLoc<std::int64_t, std::int64_t>(best));
    source = best.loc;
  }
  if (source < 0 || source >= n)
    throw usage_error("--source " + std::to_string(source) + " is not a vertex (the graph has " + std::to_string(n) + ")");
  return source;
}

// weights: per edge index, or empty (every weight 1).
template <class G>
run_result run_algorithm(const std::string& alg, const G& g, std::int64_t source, const std::vector<double>& weights) {
  using V = typename G::vertex_descriptor;
  const std::int64_t n = tg::num_vertices(g);
  run_result r;
  Digest& d = r.result;
  if (alg == "bfs" || alg == "sssp" || alg == "msbfs") {
    source = pick_source(g, source);
    d.add("source", "source", source);
  }
  if (alg == "info") {
    std::int64_t maxdeg = 0, isolated = 0;
    r.seconds = timed([&] {
      tg::reduce_vertices(g, TESSERA_LAMBDA(V v, std::int64_t & m) {
        if (tg::out_degree(v, g) > m) m = tg::out_degree(v, g);
      }, tessera::Max<std::int64_t>(maxdeg));
      tg::reduce_vertices(g, TESSERA_LAMBDA(V v, std::int64_t & s) { s += tg::out_degree(v, g) == 0; }, isolated);
    });
    d.add("max_degree", "max degree", maxdeg);
    d.add("isolated_vertices", "isolated vertices", isolated);
    // The graph's own arrays, in the memory of the space that ran (the GPU's
    // on a CUDA build): what a user sizes a card by.
    d.add("graph_bytes", "graph arrays (bytes)", std::int64_t(g.memory_bytes()));
    d.add_string("memory_space", "memory space", G::memory_space::name());
    r.edges = double(tg::num_edges(g));
  } else if (alg == "bfs") {
    tg::vertex_property_map<G, std::int32_t> lv(g);
    tg::bfs_result res;
    r.seconds = timed([&] { res = tg::breadth_first_search(g, source, tg::bfs_levels_visitor<G>(lv)); });
    auto h = tg::detail::to_host_vector(lv.view());
    std::int64_t sum = 0;
    for (auto x : h) sum += x > 0 ? x : 0;
    d.add("reached", "reached", res.visited);
    d.add("levels", "levels", res.levels);
    d.add("sum_of_levels", "sum of levels", sum);
    d.add("bottom_up_levels", "bottom-up levels", res.bottom_up_levels);
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
    d.add("queries", "queries", 64);
    d.add("reached_all_queries", "reached (all queries)", reached);
    d.add("sum_of_levels", "sum of levels", sum);
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
    d.add("components", "components", k);
    d.add("largest_component", "largest component", largest);
    r.edges = double(tg::num_edges(g));
    r.per_vertex.assign(h.begin(), h.end());
  } else if (alg == "pagerank") {
    tg::vertex_property_map<G, double> pr(g);
    int it = 0;
    r.seconds = timed([&] { it = tg::pagerank(g, pr, 0.85, 1e-9, 1000); });
    auto h = tg::detail::to_host_vector(pr.view());
    // The five highest ranks, ties to the smaller vertex.
    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    for (std::int64_t v = 0; v < n; ++v) order[std::size_t(v)] = v;
    const std::size_t top = std::min<std::size_t>(5, order.size());
    std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(top), order.end(), [&](std::int64_t a, std::int64_t b) {
      return h[std::size_t(a)] > h[std::size_t(b)] || (h[std::size_t(a)] == h[std::size_t(b)] && a < b);
    });
    d.add("iterations", "iterations", it);
    std::string text;
    json tops = json::array();
    for (std::size_t k = 0; k < top; ++k) {
      const std::int64_t v = order[k];
      text += (k ? ", " : "") + std::to_string(v) + " (" + text_number(h[std::size_t(v)]) + ")";
      tops.push_back({{"vertex", v}, {"rank", tessera::tools::number(h[std::size_t(v)])}});
    }
    d.add("top_vertices", "top vertices", tops, text);
    r.edges = double(it) * double(tg::num_edges(g));
    r.per_vertex = h;
  } else if (alg == "triangles") {
    std::int64_t t = 0;
    if constexpr (tg::graph_traits<G>::is_undirected) r.seconds = timed([&] { t = tg::count_triangles(g); });
    d.add("triangles", "triangles", t);
    r.edges = double(tg::num_edges(g));
  } else if (alg == "sssp") {
    tg::edge_property_map<G, double> w(g, 1.0);
    if (!weights.empty()) {
      auto wv = w.view();
      auto dw = tg::detail::to_space<double, typename G::space_type>("weights", weights);
      tessera::parallel_for(tessera::RangePolicy<typename G::execution_space>(0, w.size()),
                            TESSERA_LAMBDA(std::int64_t k) { wv(k) = dw(k); });
    }
    tg::vertex_property_map<G, double> dist(g);
    r.seconds = timed([&] { tg::delta_stepping_shortest_paths(g, source, w, dist); });
    auto h = tg::detail::to_host_vector(dist.view());
    std::int64_t reached = 0;
    double far = 0;
    for (auto x : h)
      if (x < std::numeric_limits<double>::max()) ++reached, far = std::max(far, x);
    d.add("reached", "reached", reached);
    d.add_real("largest_distance", "largest distance", far);
    r.edges = double(tg::num_edges(g));
    r.per_vertex = h;
  } else {
    throw usage_error("unknown algorithm '" + alg + "'");
  }
  return r;
}

// A generator spec, its problems as usage errors (exit 2).
tg::kronecker_spec parse_kron(const std::string& input) {
  try {
    return tg::parse_kronecker_spec(input);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
}

// The per-edge-index weights for sssp, from the list's weights through the
// build's origin map; a negative (or NaN) weight is refused, naming the edge.
template <class G>
std::vector<double> sssp_weights(const tg::edge_list& el, const tessera::View<std::int64_t*, typename G::space_type>& origin) {
  for (std::int64_t i = 0; i < el.size(); ++i) {
    const double w = el.weights[std::size_t(i)];
    if (!(w >= 0))
      throw std::runtime_error(el.origin + ": edge " + std::to_string(i + 1) + " of the list (" + std::to_string(el.src[std::size_t(i)]) +
                               ", " + std::to_string(el.dst[std::size_t(i)]) + ", vertex ids from 0) has weight " +
                               text_number(w) + "; sssp needs non-negative weights");
  }
  const auto o = tg::detail::to_host_vector(origin);
  std::vector<double> w(o.size());
  for (std::size_t k = 0; k < o.size(); ++k) w[k] = el.weights[std::size_t(o[k])];
  return w;
}

int host_threads() { return tessera::DefaultHostExecutionSpace().concurrency(); }

// The `jobs` command: the job set read from the job file (before the graph
// is loaded, so that a bad line is reported at once) and how to run it.
std::vector<tg::graph_job> job_set;
bool jobs_sequential = false;

// Runs job_set on g and prints one digest per job (or one JSON object:
// head's members, then the jobs).
template <class G>
int run_jobs_command(const G& g, const std::vector<double>& weights, json head, bool json_output,
                     tessera::tools::Progress& progress) {
  tg::job_options o;
  o.fuse = !jobs_sequential;
  tg::job_set_result<G> r;
  double seconds = 0;
  progress.phase("running " + std::to_string(job_set.size()) + " jobs");
  if (weights.empty()) {
    seconds = timed([&] { r = tg::run_jobs(g, job_set, o); });
  } else {
    tg::edge_property_map<G, double> w(tg::detail::to_space<double, typename G::space_type>("weights", weights));
    seconds = timed([&] { r = tg::run_jobs(g, job_set, w, o); });
  }
  progress.end();
  std::string text;
  json items = json::array();
  for (std::size_t i = 0; i < job_set.size(); ++i) {
    const tg::graph_job& j = job_set[i];
    Digest d;
    switch (j.kind) {
      case tg::job_kind::bfs: {
        std::int64_t reached = 0, deepest = 0;
        for (auto x : r.levels(i))
          if (x >= 0) ++reached, deepest = std::max<std::int64_t>(deepest, x);
        d.add("reached", "reached", reached);
        d.add("levels", "levels", deepest + 1);
        break;
      }
      case tg::job_kind::sssp: {
        std::int64_t reached = 0;
        double far = 0;
        for (auto x : r.distances(i))
          if (x < std::numeric_limits<double>::max()) ++reached, far = std::max(far, x);
        d.add("reached", "reached", reached);
        d.add_real("largest_distance", "largest distance", far);
        break;
      }
      case tg::job_kind::pagerank: {
        const auto h = r.ranks(i);
        std::size_t top = 0;
        for (std::size_t v = 1; v < h.size(); ++v)
          if (h[v] > h[top]) top = v;
        d.add("iterations", "iterations", r.iterations(i));
        if (!h.empty()) {
          d.add("top_vertex", "top vertex", std::int64_t(top));
          d.add_real("top_rank", "top rank", h[top]);
        }
        break;
      }
      case tg::job_kind::jaccard: d.add_real("similarity", "similarity", r.similarity(i)); break;
    }
    text += "job " + std::to_string(i) + " (" + j.origin + ": " + j.text() + "):";
    for (std::size_t k = 0; k < d.items().size(); ++k)
      text += (k ? ", " : " ") + d.items()[k].label + " " + d.items()[k].text;
    text += "\n";
    json item = {{"job", j.text()}, {"origin", j.origin}};
    item.update(d.object());
    items.push_back(std::move(item));
  }
  if (json_output) {
    head["algorithm"] = "jobs";
    head["fused"] = !jobs_sequential;
    head["bfs_fused"] = r.bfs_fused;  // BFS jobs the bit-parallel sweep ran (job_options::fuse_bfs_from)
    head["jobs"] = std::move(items);
    head["time_seconds"] = tessera::tools::number(seconds);
    tessera::tools::print_line(head);
  } else {
    std::printf("algorithm: jobs (%zu, %s; %lld bfs fused)\n%stime: %.6f s\n", job_set.size(),
                jobs_sequential ? "one after another" : "fused", (long long)r.bfs_fused, text.c_str(),
                seconds);
  }
  return 0;
}

// What the command line asked for.
struct Args {
  std::string alg, input, output, jobs_file;
  std::int64_t source = -1;  // -1: the vertex of largest degree
  int threads = 0;
  bool directed = false, json = false;
};

template <class G>
int run(const Args& a) {
  using V = typename G::vertex_descriptor;
  const std::string& alg = a.alg;
  const std::string& input = a.input;
  const std::string& output = a.output;
  tessera::tools::Progress progress("tessera-graph");
  tg::read_options ro{tessera::tools::Progress::callback, &progress};
  tg::build_options bo = tg::build_options::simple();
  bo.progress = tessera::tools::Progress::callback;
  bo.progress_user = &progress;
  const auto t0 = clock_type::now();
  std::optional<tg::edge_list> el;
  G g;
  const bool binary = input.size() > 4 && input.substr(input.size() - 4) == ".tgb";
  if (tg::is_kronecker_spec(input)) {
    const tg::kronecker_spec k = parse_kron(input);
    // Refused before generating: 2^SCALE vertices must fit the vertex type.
    const std::int64_t n = std::int64_t(1) << k.scale;
    if (n > std::int64_t(std::numeric_limits<V>::max()))
      throw usage_error("kron:" + std::to_string(k.scale) + " has " + std::to_string(n) + " vertices; the " +
                        std::to_string(8 * sizeof(V)) + "-bit vertex type holds at most " +
                        std::to_string(std::numeric_limits<V>::max()) + " (use SCALE <= " +
                        std::to_string(std::bit_width(std::uint64_t(std::numeric_limits<V>::max())) - 1) + ")");
    el = tg::kronecker(k.scale, k.edge_factor, k.seed, {}, ro);
  } else if (binary) {
    progress.phase("reading");
    g = tg::read_binary_csr<G>(input);
  } else {
    el = tg::read_edge_list(input, ro);
  }
  std::vector<double> weights;
  if (el) {
    if ((alg == "sssp" || alg == "jobs") && el->has_weights()) {
      tessera::View<std::int64_t*, typename G::space_type> origin;
      g = G(*el, bo, &origin);
      weights = sssp_weights<G>(*el, origin);
    } else {
      g = G(*el, bo);
    }
  }
  progress.end();
  const double load_s = std::chrono::duration<double>(clock_type::now() - t0).count();
  const std::int64_t n = tg::num_vertices(g), m = tg::num_edges(g);
  json head = {{"graph", input},
               {"vertices", n},
               {"edges", m},
               {"directed", tg::graph_traits<G>::is_directed}};
  if (el && el->bipartite) head["bipartite"] = true;
  head["execution_space"] = G::execution_space::name();
  head["threads"] = host_threads();
  head["load_seconds"] = tessera::tools::number(load_s);
  if (!a.json)
    std::printf("graph: %s\nvertices: %lld\nedges: %lld\n%sload+build: %.3f s\n", input.c_str(), (long long)n, (long long)m,
                el && el->bipartite ? "bipartite: yes (rows, then columns)\n" : "", load_s);
  if (alg == "convert") {
    progress.phase("writing");
    auto ends = [&](const char* x) {
      const std::string s(x);
      return output.size() >= s.size() && output.compare(output.size() - s.size(), s.size(), s) == 0;
    };
    if (ends(".tgb")) {
      tg::write_binary_csr(output, g);
    } else {
      // The graph's stored rows as a list (an undirected graph: both directions).
      tg::edge_list out;
      out.num_vertices = n;
      out.origin = input;
      const auto rm = tg::detail::to_host_vector(g.row_map());
      const auto en = tg::detail::to_host_vector(g.entries());
      for (std::int64_t u = 0; u < n; ++u)
        for (auto j = rm[std::size_t(u)]; j < rm[std::size_t(u) + 1]; ++j) {
          const std::int64_t v = en[std::size_t(j)];
          if (ends(".mtx") && tg::graph_traits<G>::is_undirected && v > u) continue;  // symmetric: lower triangle
          out.add(u, v);
        }
      if (ends(".mtx")) {
        out.symmetric = tg::graph_traits<G>::is_undirected;
        tg::write_matrix_market(output, out);
      } else {
        tg::write_snap(output, out);
      }
    }
    progress.end();
    if (a.json) {
      head["algorithm"] = "convert";
      head["written"] = output;
      tessera::tools::print_line(head);
    } else {
      std::printf("written: %s\n", output.c_str());
    }
    return 0;
  }
  if (alg == "jobs") return run_jobs_command(g, weights, std::move(head), a.json, progress);
  progress.phase(alg);
  auto r = run_algorithm(alg, g, a.source, weights);
  const double eps = r.seconds > 0 ? r.edges / r.seconds : 0.0;
  if (!output.empty()) {
    progress.phase("writing");
    write_vertex_values<G>(output, r.per_vertex);
  }
  progress.end();
  if (a.json) {
    head["algorithm"] = alg;
    head["result"] = r.result.object();
    head["time_seconds"] = tessera::tools::number(r.seconds);
    head["edges_per_second"] = tessera::tools::number(eps);
    if (!output.empty()) head["written"] = output;
    tessera::tools::print_line(head);
  } else {
    std::printf("algorithm: %s\n%stime: %.6f s\nedges/s: %.4g\n", alg.c_str(), r.result.lines().c_str(), r.seconds, eps);
    if (!output.empty()) std::printf("written: %s\n", output.c_str());
  }
  return 0;
}

// The graph on Space: directed (both directions stored) or undirected.
template <class Space>
int run_on(const Args& a) {
  if (a.directed) return run<tg::compressed_sparse_row_graph<tg::bidirectionalS, Space>>(a);
  return run<tg::compressed_sparse_row_graph<tg::undirectedS, Space>>(a);
}

// --output must be writable before anything runs: a run of minutes must not
// end in "cannot create". A file this check creates is removed again.
void check_output(const std::string& path) {
  struct stat st {};
  const bool existed = ::stat(path.c_str(), &st) == 0;
  if (existed && S_ISDIR(st.st_mode)) throw usage_error("--output '" + path + "' is a directory");
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (!f) throw usage_error("--output '" + path + "' cannot be written: " + std::strerror(errno));
  std::fclose(f);
  if (!existed) std::remove(path.c_str());
}

}  // namespace

int main(int argc, char* argv[]) {
  tessera::tools::Command cmd("tessera-graph", kDescription);
  Args a;
  auto& app = cmd.app();
  app.add_option("algorithm", a.alg, "what to run (see above)")
      ->required()
      ->check(tessera::tools::one_of({std::begin(kAlgorithms), std::end(kAlgorithms)}));
  app.add_option("graph", a.input, "the graph: a file or kron:SCALE:EDGEFACTOR[:SEED]")->required();
  app.add_option("jobs_file", a.jobs_file, "jobs: the job file");
  app.add_option("--source", a.source, "source vertex (default: the vertex of largest degree)")
      ->check(tessera::tools::integer(0));
  app.add_option("--threads", a.threads, "threads of the host back-end (as --tessera-num-threads)")
      ->check(tessera::tools::integer(1, 4096));
  app.add_option("--output", a.output,
                 "per-vertex results as 'vertex value' lines; convert: the graph, as binary CSR (.tgb),\n"
                 "Matrix Market (.mtx) or an edge list with one line per stored direction (any other name)");
  app.add_flag("--directed", a.directed, "keep edge directions (default: undirected, except scc)");
  app.add_flag("--json", a.json, "print one JSON object (sizes, algorithm, result digest, time, threads)");
  app.add_flag("--sequential", jobs_sequential, "jobs: run the jobs one after another instead of fused");
  if (auto status = cmd.parse(argc, argv)) return *status;
  try {
    if (a.alg == "jobs") {
      if (a.jobs_file.empty()) throw usage_error("jobs needs a graph and a job file: tessera-graph jobs <graph> JOBS.txt");
      try {
        job_set = tg::read_job_file(a.jobs_file);  // a bad line is reported before the graph is loaded
      } catch (const tg::io_error& e) {
        std::fprintf(stderr, "tessera-graph: %s\n", e.what());
        return 1;
      }
    } else if (!a.jobs_file.empty()) {
      throw usage_error("unexpected argument '" + a.jobs_file + "' (only jobs takes a job file)");
    } else if (jobs_sequential) {
      throw usage_error("--sequential applies to jobs only");
    }
    if (a.alg == "triangles" && a.directed) throw usage_error("triangles needs an undirected graph (drop --directed)");
    if (a.alg == "scc") a.directed = true;
    if (tg::is_kronecker_spec(a.input)) (void)parse_kron(a.input);
    static const char* per_vertex[] = {"bfs", "cc", "sv", "scc", "pagerank", "sssp"};
    if (a.alg == "convert" && a.output.empty()) throw usage_error("convert needs --output FILE (.tgb, .mtx or an edge list)");
    if (!a.output.empty() && a.alg != "convert" &&
        std::find(std::begin(per_vertex), std::end(per_vertex), a.alg) == std::end(per_vertex))
      throw usage_error("--output: " + a.alg + " has no per-vertex result");
    if (!a.output.empty()) check_output(a.output);
  } catch (const usage_error& e) {
    return cmd.fail(e.what());
  }
  if (a.threads > 0) cmd.settings().set_num_threads(a.threads);
  tessera::ScopeGuard guard(cmd.settings());
  try {
    // Cuda in a CUDA build; the host space, with a notice, on a machine without a GPU.
    return tessera::run_on_usable_default_space("tessera-graph", [&]<class Space>() { return run_on<Space>(a); });
  } catch (const usage_error& e) {
    std::fprintf(stderr, "tessera-graph: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera-graph: %s\n", e.what());
    return 1;
  }
}
