// tessera-minitri <file | kron:SCALE:EDGEFACTOR[:SEED]> [--method direct|tasks|data] [--block N] [--threads N] [--json]
//                 [--tessera-...]
//
// Loads (Matrix Market, SNAP edge list) or generates a graph, makes it
// simple (loops dropped, duplicates merged: both counted), runs miniTri with
// one method, and prints the sizes, the triangle count, the k-count
// histogram as "k count" lines, the time of the computation (loading
// excluded) and its peak memory. --json prints one object instead.
// Exit status: 0 success, 2 bad usage or bad input (the message names the
// file and line at fault), 1 anything else. Phases longer than a second
// (loading, building, miniTri) show progress on stderr.
#include <tessera/analytics.hpp>
#include <tessera/tools/cli.hpp>
#include <tessera/tools/json.hpp>
#include <tessera/tools/progress.hpp>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace ta = tessera::analytics;
namespace tg = tessera::graph;

namespace {

const char* kDescription =
    "Counts the triangles of a graph and their clique bounds k (miniTri).\n"
    "  <graph>: a Matrix Market file (.mtx), a SNAP edge list (u v per line, '#' comments) or\n"
    "  kron:SCALE:EDGEFACTOR[:SEED] (a Graph500 Kronecker/R-MAT graph, 2^SCALE vertices, SCALE <= 31)\n"
    "Exit status: 0 done, 2 bad usage or bad input (the file and line at fault), 1 anything else.";

struct cli {
  std::string input, method = "direct";
  ta::minitri_options opts;
  int threads = 0;
  bool json = false;
};

int run(const cli& c) {
  using Exec = tessera::DefaultHostExecutionSpace;
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, Exec>;
  namespace tt = tessera::tools;
  tt::Progress progress("tessera-minitri");
  ta::cleanup_counts clean;
  const auto l0 = std::chrono::steady_clock::now();
  progress.phase("loading");
  const auto edges = ta::load_edges(c.input);
  progress.phase("building");
  const G g = ta::build_simple<G>(edges, &clean);
  progress.end();
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - l0).count();

  progress.phase(std::string("miniTri (") + ta::to_string(c.opts.method) + ")");
  tessera::fence();
  const auto t0 = std::chrono::steady_clock::now();
  const ta::minitri_result r = ta::minitri(g, c.opts);
  tessera::fence();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  progress.end();
  const int threads = Exec().concurrency();

  if (c.json) {
    tt::json histogram = tt::json::object();
    for (const auto& [k, n] : r.histogram) histogram[std::to_string(k)] = n;
    tt::json j = {{"graph", c.input},
                  {"vertices", r.vertices},
                  {"edges", r.edges},
                  {"self_loops_dropped", clean.self_loops},
                  {"duplicates_merged", clean.duplicates},
                  {"method", ta::to_string(r.method)},
                  {"execution_space", Exec::name()},
                  {"threads", threads},
                  {"load_seconds", tt::number(load_s)},
                  {"algorithm", "minitri"},
                  {"triangles", r.triangles},
                  {"histogram", std::move(histogram)},
                  {"largest_k", r.max_k()},
                  {"time_seconds", tt::number(seconds)},
                  {"peak_bytes", r.peak_bytes}};
    if (r.method == ta::method::tasks) {
      j["blocks"] = r.blocks;
      j["peak_stored_triangles"] = r.peak_stored_triangles;
    }
    tt::print_line(j);
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
  namespace tt = tessera::tools;
  tt::Command cmd("tessera-minitri", kDescription);
  cli c;
  auto& app = cmd.app();
  app.add_option("graph", c.input, "the graph: a file or kron:SCALE:EDGEFACTOR[:SEED]")->required();
  app.add_option("--method", c.method,
                 "direct (default: two passes, no triangle stored), tasks (task DAG over row blocks),\n"
                 "data (bulk-synchronous, every triangle stored)")
      ->check(tt::one_of({"direct", "tasks", "data"}));
  app.add_option("--block", c.opts.block_size, "rows per block of the tasks method (default 100)")
      ->check(tt::integer(1));
  app.add_option("--threads", c.threads, "threads of the host back-end (as --tessera-num-threads)")
      ->check(tt::integer(1, 4096));
  app.add_flag("--json", c.json,
               "one JSON object: graph, vertices, edges, triangles, histogram, method, threads,\n"
               "time_seconds, peak_bytes, ...");
  if (auto status = cmd.parse(argc, argv)) return *status;
  c.opts.method = ta::parse_method(c.method);
  if (c.threads > 0) cmd.settings().set_num_threads(c.threads);
  tessera::ScopeGuard guard(cmd.settings());
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
