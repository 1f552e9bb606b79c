// tessera-minitri <file | kron:SCALE:EDGEFACTOR[:SEED]> [--method direct|tasks|data] [--block N] [--threads N] [--json]
//
// Loads (Matrix Market, SNAP edge list) or generates a graph, makes it
// simple (loops dropped, duplicates merged: both counted), runs miniTri with
// one method, and prints the sizes, the triangle count, the k-count
// histogram as "k count" lines, the time of the computation (loading
// excluded) and its peak memory. --json prints one object instead.
// Exit status: 0 success, 2 bad usage or bad input (the message names the
// file and line at fault), 1 anything else.
#include <tessera/analytics.hpp>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace ta = tessera::analytics;
namespace tg = tessera::graph;

namespace {

const char* kUsage =
    "usage: tessera-minitri <file | kron:SCALE:EDGEFACTOR[:SEED]> [options]\n"
    "  file               Matrix Market (.mtx) or SNAP edge list (u v per line, '#' comments)\n"
    "  kron:S:E[:SEED]    Graph500 Kronecker/R-MAT graph, 2^S vertices, E*2^S edges\n"
    "options:\n"
    "  --method M    direct (default: two passes, no triangle stored), tasks (task DAG\n"
    "                over row blocks), data (bulk-synchronous, every triangle stored)\n"
    "  --block N     rows per block of the tasks method (default 100)\n"
    "  --threads N   threads of the host back-end\n"
    "  --json        one JSON object: vertices, edges, triangles, histogram, method,\n"
    "                threads, seconds, peak_bytes\n";

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::int64_t parse_int(const std::string& s, const std::string& what) {
  std::size_t pos = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &pos);
  } catch (...) {
    pos = std::string::npos;
  }
  if (s.empty() || pos != s.size()) throw usage_error(what + " must be an integer, got '" + s + "'");
  return v;
}

struct cli {
  std::string input;
  ta::minitri_options opts;
  int threads = 0;
  bool json = false;
};

cli parse(const std::vector<std::string>& args) {
  cli c;
  std::vector<std::string> pos;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* opt) -> const std::string& {
      if (i + 1 >= args.size()) throw usage_error(std::string(opt) + " needs a value");
      return args[++i];
    };
    if (a == "--method") {
      try {
        c.opts.method = ta::parse_method(value("--method"));
      } catch (const std::invalid_argument& e) {
        throw usage_error(e.what());
      }
    } else if (a == "--block") {
      c.opts.block_size = parse_int(value("--block"), "--block");
      if (c.opts.block_size < 1) throw usage_error("--block must be at least 1");
    } else if (a == "--threads") {
      const auto t = parse_int(value("--threads"), "--threads");
      if (t < 1 || t > 4096) throw usage_error("--threads must be in 1..4096");
      c.threads = int(t);
    } else if (a == "--json") {
      c.json = true;
    } else if (a.rfind("--", 0) == 0) {
      throw usage_error("unknown option '" + a + "'");
    } else {
      pos.push_back(a);
    }
  }
  if (pos.size() != 1)
    throw usage_error("expected one graph (a file or kron:SCALE:EDGEFACTOR[:SEED]), got " + std::to_string(pos.size()) +
                      " arguments");
  c.input = pos[0];
  return c;
}

int run(const cli& c) {
  using Exec = tessera::DefaultHostExecutionSpace;
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, Exec>;
  ta::cleanup_counts clean;
  const G g = ta::build_simple<G>(ta::load_edges(c.input), &clean);

  tessera::fence();
  const auto t0 = std::chrono::steady_clock::now();
  const ta::minitri_result r = ta::minitri(g, c.opts);
  tessera::fence();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const int threads = Exec().concurrency();

  if (c.json) {
    std::printf("{\"vertices\": %lld, \"edges\": %lld, \"triangles\": %lld, \"histogram\": {", (long long)r.vertices,
                (long long)r.edges, (long long)r.triangles);
    const char* sep = "";
    for (const auto& [k, n] : r.histogram) {
      std::printf("%s\"%d\": %lld", sep, k, (long long)n);
      sep = ", ";
    }
    std::printf("}, \"method\": \"%s\", \"threads\": %d, \"seconds\": %.6f, \"peak_bytes\": %lld}\n",
                ta::to_string(r.method), threads, seconds, (long long)r.peak_bytes);
    return 0;
  }
  std::printf("graph: %s\nvertices: %lld\nedges: %lld\n", c.input.c_str(), (long long)r.vertices, (long long)r.edges);
  std::printf("self-loops dropped: %lld\nduplicate entries merged: %lld\n", (long long)clean.self_loops,
              (long long)clean.duplicates);
  std::printf("method: %s\nthreads: %d\n", ta::to_string(r.method), threads);
  if (r.method == ta::method::tasks)
    std::printf("blocks: %lld (of %lld rows)\npeak stored triangles: %lld\n", (long long)r.blocks,
                (long long)c.opts.block_size, (long long)r.peak_stored_triangles);
  std::printf("triangles: %lld\nhistogram (k count):\n", (long long)r.triangles);
  for (const auto& [k, n] : r.histogram) std::printf("%d %lld\n", k, (long long)n);
  std::printf("largest k: %d\ntime: %.6f s\npeak memory: %lld bytes (%.2f MiB)\n", r.max_k(), seconds,
              (long long)r.peak_bytes, double(r.peak_bytes) / (1024.0 * 1024.0));
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  cli c;
  try {
    c = parse(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const usage_error& e) {
    std::fprintf(stderr, "tessera-minitri: %s\n%s", e.what(), kUsage);
    return 2;
  }
  tessera::InitializationSettings settings;
  if (c.threads > 0) settings.set_num_threads(c.threads);
  tessera::ScopeGuard guard(settings);
  try {
    return run(c);
  } catch (const tg::io_error& e) {  // "<file>:<line>: <problem>"
    std::fprintf(stderr, "tessera-minitri: %s\n", e.what());
    return 2;
  } catch (const std::invalid_argument& e) {  // a malformed generator spec
    std::fprintf(stderr, "tessera-minitri: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera-minitri: %s\n", e.what());
    return 1;
  }
}
