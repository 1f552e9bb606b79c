// mpiexec -n P tessera-dist <bfs|cc|pagerank|triangles|minitri|solve> <input> [options] [--tessera-...]
//
// Runs one dist algorithm over P ranks and prints, from rank 0, the digest
// the node-level CLIs print for the same algorithm (tessera-graph,
// tessera-minitri, tessera-solve: with --json the same keys, so that a run
// on one node and one over ranks can be compared member by member), then
// what every rank moved: bytes sent and received, MPI calls and the seconds
// spent in them.
//
// Inputs: a graph file (.mtx Matrix Market, otherwise an edge list), or
// kron:SCALE:EDGEFACTOR[:SEED] (each rank generates its share); for solve a
// .mtx matrix or lap2d:N / lap3d:N / lap3d27:N (each rank its rows).
//
// Errors: usage errors exit 2 on every rank (rank 0 says why); an error the
// ranks agreed on (a bad file, a failed factorization, an allocation) exits
// 1 on every rank, rank 0 printing the one message; anything that only one
// rank knows of (an MPI call that failed) ends the job with MPI_Abort.
#include <tessera/core.hpp>
#include <tessera/dist.hpp>
#include <tessera/tools/cli.hpp>
#include <tessera/tools/digest.hpp>
#include <tessera/tools/json.hpp>
#include <tessera/tools/progress.hpp>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace td = tessera::dist;
namespace tg = tessera::graph;
namespace tt = tessera::tools;
using Space = tessera::DefaultHostExecutionSpace;
using tt::Digest;
using tt::json;

namespace {

const char* kDescription =
    "Runs one distributed algorithm over the MPI ranks (mpiexec -n P tessera-dist ...); rank 0 prints\n"
    "the digest, with the keys of tessera-graph, tessera-minitri and tessera-solve, and each rank's traffic.\n"
    "  graph commands: bfs cc pagerank triangles minitri; input FILE (.mtx: Matrix Market, else an edge\n"
    "  list) or kron:SCALE:EDGEFACTOR[:SEED]\n"
    "  solve (sparse SPD systems, PCG): input FILE.mtx, lap2d:N, lap3d:N or lap3d27:N\n"
    "Exit status: 0 done, 1 an error every rank agreed on (bad input, a failed factorization),\n"
    "2 bad usage; an MPI failure on one rank ends the job (MPI_Abort).";

struct Args {
  std::string command, input, local = "cholesky", exchange = "auto";
  int threads = 0, overlap = 0;
  std::int64_t source = -1;
  double tolerance = 1e-10;
  bool json = false;
};

void declare(tt::Command& cmd, Args& a) {
  auto& app = cmd.app();
  app.add_option("command", a.command, "bfs, cc, pagerank, triangles, minitri or solve")
      ->required()
      ->check(tt::one_of({"bfs", "cc", "pagerank", "triangles", "minitri", "solve"}));
  app.add_option("input", a.input, "the graph or the matrix (see above)")->required();
  app.add_option("--threads", a.threads, "threads per rank for the node-level back-end (as --tessera-num-threads)")
      ->check(tt::integer(1, 4096));
  app.add_option("--source", a.source, "BFS source (default: the vertex of largest degree)")->check(tt::integer(0));
  app.add_option("--exchange", a.exchange, "BFS: top-down claims as auto (the smaller per level), list or bitmap")
      ->check(tt::one_of({"auto", "list", "bitmap"}));
  app.add_option("--overlap", a.overlap, "solve: 0 block Jacobi (default), 1 additive Schwarz")->check(tt::integer(0, 1));
  app.add_option("--local", a.local, "solve: cholesky (default) or ic0 (incomplete Cholesky, level 0)")
      ->check(tt::one_of({"cholesky", "ic0"}));
  app.add_option("--tolerance", a.tolerance, "solve: relative residual to reach (default 1e-10)")->check(tt::real(0, 1, true));
  app.add_flag("--json", a.json, "one JSON object instead of key: value lines");
}

// The digest in three parts: the run (ranks, input, sizes), the result,
// and the time and traffic. Text: every item as a "label: value" line;
// JSON: the run's members, "algorithm", the result (nested under "result"
// for the graph commands, as tessera-graph nests it; at the top for solve,
// as tessera-solve prints it), then the rest.
struct Report {
  Digest run, result, tail;
  std::string algorithm;
  bool nested = true;
  void print(bool as_json) const {
    if (!as_json) {
      std::printf("%s%s%s", run.lines().c_str(), result.lines().c_str(), tail.lines().c_str());
      return;
    }
    json j = run.object();
    j["algorithm"] = algorithm;
    if (nested) j["result"] = result.object();
    else j.update(result.object());
    j.update(tail.object());
    tt::print_line(j);
  }
};

// Every rank's communication, gathered on all (a collective), as text and JSON.
void add_volume(Digest& d, const td::Comm& comm, const td::CommVolume& mine, const std::string& key,
                const std::string& label) {
  const auto all = comm.allgather(mine);
  std::string plain;
  json ranks = json::array();
  for (std::size_t r = 0; r < all.size(); ++r) {
    char b[256];
    std::snprintf(b, sizeof b, "%srank %zu: %lld B sent, %lld B received, %lld calls, %.4f s", r ? "; " : "", r,
                  (long long)all[r].bytes_sent, (long long)all[r].bytes_received, (long long)all[r].calls, all[r].seconds);
    plain += b;
    ranks.push_back({{"rank", r},
                     {"bytes_sent", all[r].bytes_sent},
                     {"bytes_received", all[r].bytes_received},
                     {"calls", all[r].calls},
                     {"seconds", tt::number(all[r].seconds)}});
  }
  d.add(key, label, std::move(ranks), plain);
}

tg::edge_list load_graph(const td::Comm& comm, const std::string& input) {
  if (tg::is_kronecker_spec(input)) {
    const tg::kronecker_spec k = tg::parse_kronecker_spec(input);  // checked before: valid here
    return td::kronecker(comm, k.scale, k.edge_factor, k.seed);
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

constexpr const char* kReal = "%.10g";

void run_graph(const td::Comm& comm, const Args& a, Report& rep, tt::Progress& progress) {
  Digest& d = rep.result;
  const double t0 = MPI_Wtime();
  progress.phase(tg::is_kronecker_spec(a.input) ? "generating" : "reading");
  const auto share = load_graph(comm, a.input);
  progress.phase("building");
  const td::DistGraph g(comm, share);
  progress.end();
  const double load = MPI_Wtime() - t0;
  rep.run.add_string("graph", "graph", a.input);
  rep.run.add("vertices", "vertices", g.num_vertices());
  rep.run.add("edges", "edges", g.num_edges());
  rep.run.add_real("load_seconds", "load+build seconds", load, kReal);
  comm.barrier();  // the algorithm's time and traffic start together on every rank
  comm.reset_volume();
  const double t1 = MPI_Wtime();
  progress.phase(a.command);
  if (a.command == "bfs") {
    const std::int64_t s = pick_source(g, a.source);
    const auto ex = a.exchange == "list"     ? td::frontier_exchange::list
                    : a.exchange == "bitmap" ? td::frontier_exchange::bitmap
                                             : td::frontier_exchange::automatic;
    const auto r = td::bfs<Space>(g, s, {}, ex);
    std::int64_t sum = 0;
    for (auto l : r.level) sum += l > 0 ? l : 0;
    d.add("source", "source", s);
    d.add("reached", "reached", r.visited);
    d.add("levels", "levels", std::int64_t(r.levels));
    d.add("sum_of_levels", "sum of levels", comm.sum(sum));
    d.add("bottom_up_levels", "bottom-up levels", std::int64_t(r.bottom_up_levels));
    // How the top-down levels exchanged their claims, and every level in order
    // (l: list, b: bitmap, u: bottom-up).
    d.add("top_down_list_levels", "top-down list levels", std::int64_t(r.list_levels));
    d.add("top_down_bitmap_levels", "top-down bitmap levels", std::int64_t(r.bitmap_levels));
    d.add_string("level_forms", "level forms", r.level_forms);
  } else if (a.command == "cc") {
    const auto r = td::connected_components<Space>(g);
    d.add("components", "components", r.count);
    d.add("largest_component", "largest component", r.largest);
  } else if (a.command == "pagerank") {
    const auto r = td::pagerank<Space>(g, 0.85, 1e-9, 1000);
    d.add("iterations", "iterations", std::int64_t(r.iterations));
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
    std::string plain;
    json tops = json::array();
    for (std::size_t i = 0; i < top; ++i) {
      char b[128];
      std::snprintf(b, sizeof b, "%s%lld (%.6g)", i ? ", " : "", (long long)all[i].vertex, all[i].rank);
      plain += b;
      tops.push_back({{"vertex", all[i].vertex}, {"rank", tt::number(all[i].rank)}});
    }
    d.add("top_vertices", "top vertices", std::move(tops), plain);
  } else if (a.command == "triangles") {
    d.add("triangles", "triangles", td::count_triangles<Space>(g));
  } else {
    const auto r = td::minitri<Space>(g);
    d.add("triangles", "triangles", r.triangles);
    std::string plain;
    json histogram = json::object();
    for (const auto& [k, n] : r.histogram) {
      plain += (plain.empty() ? "" : ", ") + std::to_string(k) + ": " + std::to_string(n);
      histogram[std::to_string(k)] = n;
    }
    d.add("histogram", "histogram (k count)", std::move(histogram), plain);
    d.add("largest_k", "largest k", std::int64_t(r.max_k()));
  }
  const double seconds = comm.max(MPI_Wtime() - t1);
  progress.end();
  rep.tail.add_real("time_seconds", "time seconds", seconds, kReal);
  add_volume(rep.tail, comm, comm.volume(), "communication_per_rank", "communication per rank");
}

void run_solve(const td::Comm& comm, const Args& a, Report& rep, tt::Progress& progress) {
  rep.nested = false;
  Digest& d = rep.result;
  const double t0 = MPI_Wtime();
  progress.phase("loading " + a.input);
  const auto A = td::make_dist_matrix<double>(comm, a.input);
  progress.end();
  rep.run.add_string("matrix", "matrix", a.input);
  rep.run.add("n", "n", A.num_rows());
  rep.run.add("nnz_a", "nnz(A)", A.global_nnz());
  rep.run.add_real("load_seconds", "load seconds", MPI_Wtime() - t0, kReal);
  td::SchwarzOptions so;
  so.overlap = a.overlap;
  if (a.local == "ic0") {
    so.local = td::LocalSolver::IncompleteCholesky;
    so.incomplete.level = 0;
  }
  td::AdditiveSchwarz<double, Space> M(so);
  const double t1 = MPI_Wtime();
  progress.phase("setting up the preconditioner");
  M.setup(A);
  const double setup = comm.max(MPI_Wtime() - t1);
  // b = A * ones: the exact solution is known, so the error is reported too.
  std::vector<double> ones(std::size_t(A.num_owned()), 1.0), b(ones.size()), x(ones.size(), 0.0);
  td::multiply<Space>(A, ones.data(), b.data());
  tessera::sparse::PcgOptions po;
  po.tolerance = a.tolerance;
  po.max_iterations = 10000;
  progress.phase("solving (PCG)");
  const auto r = td::pcg<Space>(A, b.data(), x.data(), M, po);
  progress.end();
  double err = 0;
  for (std::size_t i = 0; i < x.size(); ++i) err = std::max(err, std::abs(x[i] - 1.0));
  d.add("preconditioner", "preconditioner",
        json((a.overlap ? std::string("schwarz1-") : std::string("jacobi-")) + a.local),
        (a.overlap ? std::string("additive Schwarz, overlap 1, ") : std::string("block Jacobi, ")) + a.local);
  d.add_real("setup_seconds", "setup seconds", setup, kReal);
  d.add("iterations", "PCG iterations", std::int64_t(r.iterations));
  d.add_bool("converged", "converged", r.converged);
  d.add_real("residual", "residual", r.relative_residual, kReal);
  d.add_real("max_error", "max error (x = 1)", comm.max(err), kReal);
  d.add_real("solve_seconds", "solve seconds", comm.max(r.seconds), kReal);
  add_volume(rep.tail, comm, r.halo, "halo_per_rank", "halo per rank");
  add_volume(rep.tail, comm, r.reductions, "reductions_per_rank", "reductions per rank");
}

}  // namespace

int main(int argc, char** argv) {
  td::Environment mpi(argc, argv);
  const td::Comm world;
  const bool rank0 = world.rank() == 0;
  tt::Command cmd("tessera-dist", kDescription);
  cmd.set_quiet(!rank0);  // every rank parses the same words: rank 0 speaks for all
  Args a;
  declare(cmd, a);
  if (auto status = cmd.parse(argc, argv)) return *status;
  if (a.command != "solve" && tg::is_kronecker_spec(a.input)) {
    try {
      (void)tg::parse_kronecker_spec(a.input);
    } catch (const std::invalid_argument& e) {
      return cmd.fail(e.what());
    }
  }
  if (a.threads > 0) cmd.settings().set_num_threads(a.threads);
  tessera::ScopeGuard runtime(cmd.settings());
  tt::Progress progress("tessera-dist", stderr, std::nullopt, -1, !rank0);
  try {
    Report rep;
    rep.algorithm = a.command;
    rep.run.add("ranks", "ranks", std::int64_t(world.size()));
    rep.run.add("threads", "threads per rank", std::int64_t(Space().concurrency()));
    rep.run.add_string("execution_space", "space", Space::name());
    if (a.command == "solve") run_solve(world, a, rep, progress);
    else run_graph(world, a, rep, progress);
    if (rank0) rep.print(a.json);
    return 0;
  } catch (const td::mpi_error& e) {
    // Only this rank knows: the others may be inside a collective.
    progress.end();
    std::fprintf(stderr, "tessera-dist: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  } catch (const td::dist_error& e) {
    // Agreed: the same on every rank; rank 0 says it once.
    progress.end();
    if (rank0) std::fprintf(stderr, "tessera-dist: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    // Not agreed: this rank alone failed, so the job ends here.
    progress.end();
    std::fprintf(stderr, "tessera-dist: rank %d: %s\n", world.rank(), e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
}
