// mpiexec -n P tessera-dist <bfs|cc|pagerank|triangles|minitri|solve> <input> [options]
//
// Runs one dist algorithm over P ranks and prints, from rank 0, the digest
// the node-level CLIs print for the same algorithm (tessera-graph,
// tessera-minitri, tessera-solve: the same keys, so that a run on one node
// and one over ranks can be compared line by line), then what every rank
// moved: bytes sent and received, MPI calls and the seconds spent in them.
//
// Inputs: a graph file (.mtx Matrix Market, otherwise an edge list), or
// kron:SCALE:EDGEFACTOR[:SEED] (each rank generates its share); for solve a
// .mtx matrix or lap2d:N / lap3d:N / lap3d27:N (each rank its rows).
#include <tessera/core.hpp>
#include <tessera/core/trace_sink.hpp>
#include <tessera/dist.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace td = tessera::dist;
namespace tg = tessera::graph;
using Space = tessera::DefaultHostExecutionSpace;

namespace {

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* usage_text =
    "usage: mpiexec -n P tessera-dist <command> <input> [options]\n"
    "commands: bfs cc pagerank triangles minitri (graphs), solve (sparse SPD systems)\n"
    "graph input: FILE (.mtx: Matrix Market, else an edge list) | kron:SCALE:EDGEFACTOR[:SEED]\n"
    "solve input: FILE.mtx | lap2d:N | lap3d:N | lap3d27:N\n"
    "options:\n"
    "  --threads N     threads per rank for the node-level back-end\n"
    "  --source V      BFS source (default: the vertex of largest degree)\n"
    "  --exchange F    BFS: top-down claims as auto (default: the smaller per level), list or bitmap\n"
    "  --overlap K     solve: 0 block Jacobi (default), 1 additive Schwarz\n"
    "  --local KIND    solve: cholesky (default) or ic0 (incomplete Cholesky, level 0)\n"
    "  --tolerance X   solve: relative residual to reach (default 1e-10)\n"
    "  --json          one JSON object instead of key: value lines\n";

struct Args {
  std::string command, input, local = "cholesky", exchange = "auto";
  int threads = 0, overlap = 0;
  std::int64_t source = -1;
  double tolerance = 1e-10;
  bool json = false;
};

std::int64_t parse_int(const std::string& s, const std::string& what) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno != 0) throw usage_error(what + " must be an integer, got '" + s + "'");
  return v;
}

Args parse(int argc, char** argv) {
  Args a;
  std::vector<std::string> pos;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto value = [&](const char* name) -> std::string {
      if (i + 1 >= argc) throw usage_error(std::string(name) + " needs a value");
      return argv[++i];
    };
    if (s == "--threads") a.threads = int(parse_int(value("--threads"), "--threads"));
    else if (s == "--source") a.source = parse_int(value("--source"), "--source");
    else if (s == "--overlap") a.overlap = int(parse_int(value("--overlap"), "--overlap"));
    else if (s == "--local") a.local = value("--local");
    else if (s == "--exchange") a.exchange = value("--exchange");
    else if (s == "--tolerance") a.tolerance = std::strtod(value("--tolerance").c_str(), nullptr);
    else if (s == "--json") a.json = true;
    else if (s == "--help" || s == "-h") throw usage_error("");
    else if (s.rfind("--", 0) == 0 && s.rfind("--tessera-", 0) != 0) throw usage_error("unknown option " + s);
    else if (s.rfind("--tessera-", 0) != 0) pos.push_back(s);
  }
  if (pos.size() != 2) throw usage_error("need a command and an input");
  a.command = pos[0];
  a.input = pos[1];
  const std::vector<std::string> known{"bfs", "cc", "pagerank", "triangles", "minitri", "solve"};
  if (std::find(known.begin(), known.end(), a.command) == known.end()) throw usage_error("unknown command '" + a.command + "'");
  if (a.local != "cholesky" && a.local != "ic0") throw usage_error("--local is cholesky or ic0, got '" + a.local + "'");
  if (a.exchange != "auto" && a.exchange != "list" && a.exchange != "bitmap")
    throw usage_error("--exchange is auto, list or bitmap, got '" + a.exchange + "'");
  if (a.threads < 0) throw usage_error("--threads must be positive");
  return a;
}

// The digest: "key: value" lines, or members of one JSON object.
struct Digest {
  std::vector<std::pair<std::string, std::string>> items;  // key, value as JSON text
  std::vector<std::string> text;                           // value as plain text
  void add(const std::string& k, std::int64_t v) { put(k, std::to_string(v), std::to_string(v)); }
  void add(const std::string& k, double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%.10g", v);
    put(k, b, b);
  }
  void add_text(const std::string& k, const std::string& plain, const std::string& json) { put(k, plain, json); }
  void put(const std::string& k, const std::string& plain, const std::string& json) {
    items.push_back({k, json});
    text.push_back(plain);
  }
  void print(bool json) const {
    if (json) {
      std::string s = "{";
      for (std::size_t i = 0; i < items.size(); ++i)
        s += (i ? ", \"" : "\"") + items[i].first + "\": " + items[i].second;
      std::printf("%s}\n", s.c_str());
    } else {
      for (std::size_t i = 0; i < items.size(); ++i) std::printf("%s: %s\n", items[i].first.c_str(), text[i].c_str());
    }
  }
};

// A JSON string (core's escaper: quotes, backslashes, control characters).
std::string quoted(const std::string& s) { return "\"" + tessera::profiling::TraceWriter::escape(s) + "\""; }

// Every rank's communication, gathered on all (a collective), as text and JSON.
void add_volume(Digest& d, const td::Comm& comm, const td::CommVolume& mine, const std::string& what) {
  const auto all = comm.allgather(mine);
  std::string plain, json = "[";
  for (std::size_t r = 0; r < all.size(); ++r) {
    char b[256];
    std::snprintf(b, sizeof b, "%srank %zu: %lld B sent, %lld B received, %lld calls, %.4f s", r ? "; " : "", r,
                  (long long)all[r].bytes_sent, (long long)all[r].bytes_received, (long long)all[r].calls, all[r].seconds);
    plain += b;
    std::snprintf(b, sizeof b, "%s{\"rank\": %zu, \"bytes_sent\": %lld, \"bytes_received\": %lld, \"calls\": %lld, \"seconds\": %.6f}",
                  r ? ", " : "", r, (long long)all[r].bytes_sent, (long long)all[r].bytes_received, (long long)all[r].calls,
                  all[r].seconds);
    json += b;
  }
  d.add_text(what, plain, json + "]");
}

tg::edge_list load_graph(const td::Comm& comm, const std::string& input) {
  if (input.rfind("kron:", 0) == 0) {
    std::vector<std::int64_t> f;
    std::size_t b = 5;
    for (;;) {
      const auto e = input.find(':', b);
      f.push_back(parse_int(input.substr(b, e == std::string::npos ? std::string::npos : e - b), "kron field"));
      if (e == std::string::npos) break;
      b = e + 1;
    }
    if (f.size() < 2 || f.size() > 3) throw usage_error("generator spec is kron:SCALE:EDGEFACTOR[:SEED], got '" + input + "'");
    if (f[0] < 1 || f[0] > 40) throw usage_error("kron SCALE must be in 1..40, got " + std::to_string(f[0]));
    if (f[1] < 1 || f[1] > 1024) throw usage_error("kron EDGEFACTOR must be in 1..1024, got " + std::to_string(f[1]));
    return td::kronecker(comm, int(f[0]), int(f[1]), std::uint64_t(f.size() == 3 ? f[2] : 1));
  }
  return td::read_edge_list(comm, input);
}

// BFS source: --source, else the vertex of largest degree (smallest id on
// ties), as tessera-graph picks it.
std::int64_t pick_source(const td::DistGraph& g, std::int64_t source) {
  if (source >= 0) return source;
  struct Best {
    std::int64_t degree, vertex;
  };
  Best best{-1, 0};
  for (std::int64_t v = 0; v < g.num_owned(); ++v)
    if (g.degree(v) > best.degree) best = {g.degree(v), g.global_id(v)};
  for (const Best& b : g.comm().allgather(best))
    if (b.degree > best.degree || (b.degree == best.degree && b.vertex < best.vertex)) best = b;
  return best.vertex;
}

void run_graph(const td::Comm& comm, const Args& a, Digest& d) {
  const double t0 = MPI_Wtime();
  const auto share = load_graph(comm, a.input);
  const td::DistGraph g(comm, share);
  const double load = MPI_Wtime() - t0;
  d.add_text("graph", a.input, quoted(a.input));
  d.add("vertices", g.num_vertices());
  d.add("edges", g.num_edges());
  d.add("load+build seconds", load);
  comm.barrier();  // the algorithm's time and traffic start together on every rank
  comm.reset_volume();
  const double t1 = MPI_Wtime();
  if (a.command == "bfs") {
    const std::int64_t s = pick_source(g, a.source);
    const auto ex = a.exchange == "list"     ? td::frontier_exchange::list
                    : a.exchange == "bitmap" ? td::frontier_exchange::bitmap
                                             : td::frontier_exchange::automatic;
    const auto r = td::bfs<Space>(g, s, {}, ex);
    std::int64_t sum = 0;
    for (auto l : r.level) sum += l > 0 ? l : 0;
    d.add("source", s);
    d.add("reached", r.visited);
    d.add("levels", std::int64_t(r.levels));
    d.add("sum of levels", comm.sum(sum));
    d.add("bottom-up levels", std::int64_t(r.bottom_up_levels));
    // How the top-down levels exchanged their claims, and every level in order
    // (l: list, b: bitmap, u: bottom-up).
    d.add("top-down list levels", std::int64_t(r.list_levels));
    d.add("top-down bitmap levels", std::int64_t(r.bitmap_levels));
    d.add_text("level forms", r.level_forms, quoted(r.level_forms));
  } else if (a.command == "cc") {
    const auto r = td::connected_components<Space>(g);
    d.add("components", r.count);
    d.add("largest component", r.largest);
  } else if (a.command == "pagerank") {
    const auto r = td::pagerank<Space>(g, 0.85, 1e-9, 1000);
    d.add("iterations", std::int64_t(r.iterations));
    // The five highest ranks (ties to the smaller vertex), from every rank's own five.
    struct Top {
      double rank;
      std::int64_t vertex;
    };
    std::vector<Top> mine;
    for (std::int64_t v = 0; v < g.num_owned(); ++v) mine.push_back({r.rank[std::size_t(v)], g.global_id(v)});
    auto better = [](const Top& x, const Top& y) { return x.rank > y.rank || (x.rank == y.rank && x.vertex < y.vertex); };
    const std::size_t k = std::min<std::size_t>(5, mine.size());
    std::partial_sort(mine.begin(), mine.begin() + std::ptrdiff_t(k), mine.end(), better);
    mine.resize(k);
    auto all = comm.allgatherv(mine);
    const std::size_t top = std::min<std::size_t>(5, all.size());
    std::partial_sort(all.begin(), all.begin() + std::ptrdiff_t(top), all.end(), better);
    std::string plain, json = "[";
    for (std::size_t i = 0; i < top; ++i) {
      char b[128];
      std::snprintf(b, sizeof b, "%s%lld (%.6g)", i ? ", " : "", (long long)all[i].vertex, all[i].rank);
      plain += b;
      std::snprintf(b, sizeof b, "%s{\"vertex\": %lld, \"rank\": %.6g}", i ? ", " : "", (long long)all[i].vertex, all[i].rank);
      json += b;
    }
    d.add_text("top vertices", plain, json + "]");
  } else if (a.command == "triangles") {
    d.add("triangles", td::count_triangles<Space>(g));
  } else {
    const auto r = td::minitri<Space>(g);
    d.add("triangles", r.triangles);
    std::string plain, json = "{";
    for (const auto& [k, n] : r.histogram) {
      plain += (plain.empty() ? "" : ", ") + std::to_string(k) + ": " + std::to_string(n);
      json += (json.size() > 1 ? ", \"" : "\"") + std::to_string(k) + "\": " + std::to_string(n);
    }
    d.add_text("histogram (k count)", plain, json + "}");
    d.add("largest k", std::int64_t(r.max_k()));
  }
  d.add("time seconds", comm.max(MPI_Wtime() - t1));
  add_volume(d, comm, comm.volume(), "communication per rank");
}

void run_solve(const td::Comm& comm, const Args& a, Digest& d) {
  const double t0 = MPI_Wtime();
  const auto A = td::make_dist_matrix<double>(comm, a.input);
  d.add_text("matrix", a.input, quoted(a.input));
  d.add("n", A.num_rows());
  d.add("nnz(A)", A.global_nnz());
  d.add("load seconds", MPI_Wtime() - t0);
  td::SchwarzOptions so;
  so.overlap = a.overlap;
  if (a.local == "ic0") {
    so.local = td::LocalSolver::IncompleteCholesky;
    so.incomplete.level = 0;
  }
  td::AdditiveSchwarz<double, Space> M(so);
  const double t1 = MPI_Wtime();
  M.setup(A);
  const double setup = comm.max(MPI_Wtime() - t1);
  // b = A * ones: the exact solution is known, so the error is reported too.
  std::vector<double> ones(std::size_t(A.num_owned()), 1.0), b(ones.size()), x(ones.size(), 0.0);
  td::multiply<Space>(A, ones.data(), b.data());
  tessera::sparse::PcgOptions po;
  po.tolerance = a.tolerance;
  po.max_iterations = 10000;
  const auto r = td::pcg<Space>(A, b.data(), x.data(), M, po);
  double err = 0;
  for (std::size_t i = 0; i < x.size(); ++i) err = std::max(err, std::abs(x[i] - 1.0));
  d.add_text("preconditioner", (a.overlap ? std::string("additive Schwarz, overlap 1, ") : std::string("block Jacobi, ")) + a.local,
             quoted((a.overlap ? std::string("schwarz1-") : std::string("jacobi-")) + a.local));
  d.add("setup seconds", setup);
  d.add("PCG iterations", std::int64_t(r.iterations));
  d.add_text("converged", r.converged ? "yes" : "no", r.converged ? "true" : "false");
  d.add("residual", r.relative_residual);
  d.add("max error (x = 1)", comm.max(err));
  d.add("solve seconds", comm.max(r.seconds));
  add_volume(d, comm, r.halo, "halo per rank");
  add_volume(d, comm, r.reductions, "reductions per rank");
}

}  // namespace

int main(int argc, char** argv) {
  td::Environment mpi(argc, argv);
  const td::Comm world;
  Args a;
  try {
    a = parse(argc, argv);
  } catch (const usage_error& e) {
    if (world.rank() == 0) {
      if (*e.what()) std::fprintf(stderr, "tessera-dist: %s\n", e.what());
      std::fprintf(stderr, "%s", usage_text);
    }
    return *e.what() ? 2 : 0;
  }
  tessera::InitializationSettings settings;
  if (a.threads > 0) settings.set_num_threads(a.threads);
  tessera::ScopeGuard runtime(settings);
  try {
    Digest d;
    d.add("ranks", std::int64_t(world.size()));
    d.add("threads per rank", std::int64_t(Space().concurrency()));
    d.add_text("space", Space::name(), quoted(Space::name()));
    if (a.command == "solve") run_solve(world, a, d);
    else run_graph(world, a, d);
    if (world.rank() == 0) d.print(a.json);
    return 0;
  } catch (const std::exception& e) {
    // dist_errors are the same on every rank: rank 0 says it once.
    if (world.rank() == 0) std::fprintf(stderr, "tessera-dist: %s\n", e.what());
    return 1;
  }
}
