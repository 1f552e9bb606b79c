// Distributed graph algorithms against CombBLAS, side by side in one MPI
// program on the same graph, contenders interleaved within each repetition
// (tessera::bench::run_interleaved):
//  * BFS from the same K sources (Graph500's way: pseudo-random vertices of
//    nonzero degree): tessera::dist::bfs (direction-optimizing, and forced
//    top-down) against CombBLAS's top-down BFS as its TopDownBFS example
//    runs it (sparse frontier, SpMV over the select-max semiring, mask with
//    the parents vector); and tessera's top-down search with each form of
//    its claim exchange forced (lists only, bitmaps only) against its own
//    per-level choice (the level forms of the first source are printed);
//  * triangle counting: tessera::dist::count_triangles against CombBLAS's
//    masked SpGEMM (L = tril(A), sum of (L * L) .* L), the tril taken inside
//    the timed run as Tessera's orientation is;
//  * on one rank, the node-level graph package on the same graph (BFS,
//    triangles, connected components, PageRank): the overhead of dist at one
//    rank, and dist's components and PageRank at every rank count.
// The graph: tessera::dist::kronecker's shares, built into a DistGraph
// (simple, undirected); CombBLAS's matrix is made from the DistGraph's own
// arcs (both directions of each edge, no loop, no repeat), so both see the
// same simple graph; its nonzero count is checked against 2 x edges. Every
// timed run starts and ends with a barrier (each rank times the slowest).
// One thread per rank (tessera::Serial; CombBLAS with OMP_NUM_THREADS=1 as
// ci/bench.sh sets it). Results are compared inside the benchmark (vertices
// reached per source, triangle count, components): a mismatch aborts it.
// CombBLAS needs a square process grid: at rank counts that are not squares
// (2) its rows are left out and the run says so.
//   mpiexec -n P bench_dist_graph [--scale 16] [--edge-factor 16] [--seed 1] [--sources 8] [--repeats 5]
//   [--json]
#include <tessera/bench/cli.hpp>
#include <tessera/bench/interleaved.hpp>
#include <tessera/bench/report.hpp>
#include <tessera/dist.hpp>
#include <tessera/graph.hpp>

#include <tuple>
// CombBLAS 1.16's dcsc.cpp (PruneI) calls make_tuple unqualified, which
// only std's overload can answer (ADL does not reach it for plain integers).
using std::make_tuple;
#include <CombBLAS/CombBLAS.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace {

namespace td = tessera::dist;
namespace tg = tessera::graph;
namespace cb = combblas;
using Space = tessera::Serial;
using NodeGraph = tg::compressed_sparse_row_graph<tg::undirectedS, Space>;
using BoolMat = cb::SpParMat<std::int64_t, bool, cb::SpDCCols<std::int64_t, bool>>;
using IntMat = cb::SpParMat<std::int64_t, std::int64_t, cb::SpDCCols<std::int64_t, std::int64_t>>;

// A wrong answer stops the benchmark rather than printing a time for it.
void require(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "bench_dist_graph: results differ: %s\n", what.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// K distinct vertices of nonzero degree, the same on every rank (each
// candidate's degree is asked of its owner).
std::vector<std::int64_t> pick_sources(const td::DistGraph& g, int k, std::uint64_t seed) {
  std::vector<std::int64_t> out;
  for (std::uint64_t i = 0; int(out.size()) < k && i < 1000 * std::uint64_t(k); ++i) {
    const auto v = std::int64_t(splitmix(seed * 7919 + i) % std::uint64_t(g.num_vertices()));
    const std::int64_t d = g.is_owned(v) ? g.degree(g.local_id(v)) : 0;
    if (g.comm().sum(d) > 0 && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

// CombBLAS's copy of the graph: one nonzero per arc of the DistGraph.
template <class Mat, class T>
Mat combblas_matrix(const td::DistGraph& g, const std::shared_ptr<cb::CommGrid>& grid, T one) {
  std::vector<std::int64_t> rows, cols;
  rows.reserve(std::size_t(g.num_local_entries()));
  cols.reserve(std::size_t(g.num_local_entries()));
  for (td::local_vertex v = 0; v < g.num_owned(); ++v)
    for (auto k = g.row_map()[std::size_t(v)]; k < g.row_map()[std::size_t(v) + 1]; ++k) {
      rows.push_back(g.global_id(v));
      cols.push_back(g.global_id(g.adjacency()[std::size_t(k)]));
    }
  // CombBLAS 1.16's FullyDistVec(vector, grid) redistributes unequal local
  // lengths from an empty array (it sends arr, not fillarr, and crashes):
  // every rank pads its arcs to the longest rank's count with self-loops,
  // which RemoveLoops() drops once the matrix is built.
  const auto longest = g.comm().max(std::int64_t(rows.size()));
  const std::int64_t pad_vertex = g.num_owned() > 0 ? g.owned_begin() : 0;
  rows.resize(std::size_t(longest), pad_vertex);
  cols.resize(std::size_t(longest), pad_vertex);
  const cb::FullyDistVec<std::int64_t, std::int64_t> r(rows, grid), c(cols, grid);
  Mat m(g.num_vertices(), g.num_vertices(), r, c, one, false);
  m.RemoveLoops();
  return m;
}

// CombBLAS top-down BFS from one source; returns the vertices reached.
std::int64_t combblas_bfs(const BoolMat& A, std::int64_t source) {
  cb::FullyDistVec<std::int64_t, std::int64_t> parents(A.getcommgrid(), A.getncol(), std::int64_t(-1));
  cb::FullyDistSpVec<std::int64_t, std::int64_t> fringe(A.getcommgrid(), A.getncol());
  fringe.SetElement(source, source);
  parents.SetElement(source, source);
  while (fringe.getnnz() > 0) {
    fringe.setNumToInd();
    fringe = cb::SpMV<cb::SelectMaxSRing<bool, std::int64_t>>(A, fringe, false);
    fringe = cb::EWiseMult(fringe, parents, true, std::int64_t(-1));
    parents.Set(fringe);
  }
  return parents.Count([](std::int64_t p) { return p != -1; });
}

// CombBLAS triangles: sum of (L * L) .* L, L the strictly lower triangle.
std::int64_t combblas_triangles(const IntMat& A) {
  IntMat L = A;
  L.PruneI([](const std::tuple<std::int64_t, std::int64_t, std::int64_t>& e) {
    return std::get<0>(e) <= std::get<1>(e);  // true: drop (keep row > column)
  });
  IntMat R = L;  // CombBLAS refuses to multiply a matrix by itself (aliased inputs)
  IntMat C = cb::Mult_AnXBn_Synch<cb::PlusTimesSRing<std::int64_t, std::int64_t>, std::int64_t,
                                  cb::SpDCCols<std::int64_t, std::int64_t>>(L, R, false, false);
  C = cb::EWiseMult(C, L, false);
  return C.Reduce(cb::Column, std::plus<std::int64_t>(), std::int64_t(0))
      .Reduce(std::plus<std::int64_t>(), std::int64_t(0));
}

}  // namespace

int main(int argc, char* argv[]) {
  td::Environment mpi(argc, argv);
  namespace tools = tessera::tools;
  tessera::bench::Cli cli("bench_dist_graph",
                          "mpiexec -n P bench_dist_graph: BFS and triangle counting against CombBLAS on the same Kronecker\n"
                          "graph, and at one rank the node-level graph package.",
                          5);
  cli.set_quiet(td::Comm().rank() != 0);  // every rank parses the same words: rank 0 speaks for all
  int scale = 16, edge_factor = 16, nsources = 8;
  std::uint64_t seed = 1;
  cli.app().add_option("--scale", scale, "Kronecker scale")->check(tools::integer(1, 40));
  cli.app().add_option("--edge-factor", edge_factor, "Kronecker edge factor")->check(tools::integer(1, 1024));
  cli.app().add_option("--seed", seed, "Kronecker seed")->check(tools::integer(0));
  cli.app().add_option("--sources", nsources, "BFS sources")->check(tools::integer(1, 1 << 20));
  if (auto status = cli.parse(argc, argv)) return *status;
  const int repeats = cli.repeats;
  const bool json = cli.json;
  tessera::initialize(cli.settings());
  {
    const td::Comm comm;
    const int P = comm.size(), me = comm.rank();
    const auto share = td::kronecker(comm, scale, edge_factor, seed);
    const td::DistGraph g(comm, share);
    const auto sources = pick_sources(g, nsources, seed);
    const int grid_side = int(std::lround(std::sqrt(double(P))));
    const bool with_combblas = grid_side * grid_side == P;

    std::shared_ptr<cb::CommGrid> grid;
    std::unique_ptr<BoolMat> A;
    std::unique_ptr<IntMat> Ai;
    if (with_combblas) {
      grid = std::make_shared<cb::CommGrid>(MPI_COMM_WORLD, 0, 0);
      Ai = std::make_unique<IntMat>(combblas_matrix<IntMat>(g, grid, std::int64_t(1)));
      // The BFS matrix holds bools, as TopDownBFS's (CombBLAS builds no
      // FullyDistVec of bools, so it is converted from the integer one).
      A = std::make_unique<BoolMat>(static_cast<BoolMat>(*Ai));
      require(A->getnnz() == 2 * g.num_edges(), "CombBLAS holds " + std::to_string(A->getnnz()) +
                                                    " nonzeros, the graph " +
                                                    std::to_string(2 * g.num_edges()) + " arcs");
    }
    // The node-level graph (one rank: the share is the whole edge list).
    std::unique_ptr<NodeGraph> node;
    if (P == 1) node = std::make_unique<NodeGraph>(share, tg::build_options::simple());

    // Answers of the last run of each contender, compared after the timing.
    const std::size_t K = sources.size();
    std::vector<std::int64_t> reached_dist(K), reached_td(K), reached_cb(K), reached_node(K), reached_list(K),
        reached_bitmap(K);
    std::int64_t tri_dist = 0, tri_cb = 0, tri_node = 0, cc_dist = 0, cc_node = 0;
    int pr_dist = 0, pr_node = 0;

    tg::bfs_options top_down;
    top_down.direction = tg::bfs_direction::top_down;
    auto timed = [&](auto&& f) {
      return [&comm, f] {
        comm.barrier();
        f();
        comm.barrier();
      };
    };
    const auto ranks = [P] { return P; };
    using tessera::bench::Contender;
    struct Case {
      std::string name;
      std::vector<Contender> cs;
    };
    std::vector<Case> cases;
    const std::string graph_name = "kron:" + std::to_string(scale) + ":" + std::to_string(edge_factor);

    auto dist_bfs = [&](const tg::bfs_options& o, std::vector<std::int64_t>& out,
                        td::frontier_exchange ex = td::frontier_exchange::automatic) {
      for (std::size_t s = 0; s < K; ++s) out[s] = td::bfs<Space>(g, sources[s], o, ex).visited;
    };
    {
      Case c{graph_name + " BFS x" + std::to_string(K) + ", " + std::to_string(P) + " ranks", {}};
      c.cs.push_back(
          {"tessera dist BFS (direction-optimizing)", timed([&] { dist_bfs({}, reached_dist); }), ranks});
      c.cs.push_back({"tessera dist BFS (top-down)", timed([&] { dist_bfs(top_down, reached_td); }), ranks});
      if (with_combblas) {
        c.cs.push_back({"CombBLAS top-down BFS (SpMV)", timed([&] {
                          for (std::size_t s = 0; s < K; ++s) reached_cb[s] = combblas_bfs(*A, sources[s]);
                        }),
                        ranks, 0});
      }
      if (node)
        c.cs.push_back({"tessera node-level graph::bfs", timed([&] {
                          for (std::size_t s = 0; s < K; ++s)
                            reached_node[s] = tg::breadth_first_search(*node, sources[s]).visited;
                        }),
                        ranks, 0});
      // The claim exchange's forms forced, against the per-level choice (index 1).
      c.cs.push_back({"tessera dist BFS (top-down, list claims only)",
                      timed([&] { dist_bfs(top_down, reached_list, td::frontier_exchange::list); }), ranks, 1});
      c.cs.push_back({"tessera dist BFS (top-down, bitmap claims only)",
                      timed([&] { dist_bfs(top_down, reached_bitmap, td::frontier_exchange::bitmap); }), ranks, 1});
      cases.push_back(std::move(c));
    }
    {
      Case c{graph_name + " triangles, " + std::to_string(P) + " ranks", {}};
      c.cs.push_back(
          {"tessera dist count_triangles", timed([&] { tri_dist = td::count_triangles<Space>(g); }), ranks});
      if (with_combblas)
        c.cs.push_back(
            {"CombBLAS (L*L).*L SpGEMM", timed([&] { tri_cb = combblas_triangles(*Ai); }), ranks, 0});
      if (node)
        c.cs.push_back({"tessera node-level graph::count_triangles",
                        timed([&] { tri_node = tg::count_triangles(*node); }), ranks, 0});
      cases.push_back(std::move(c));
    }
    {
      Case c{graph_name + " components, " + std::to_string(P) + " ranks", {}};
      c.cs.push_back({"tessera dist connected_components",
                      timed([&] { cc_dist = td::connected_components<Space>(g).count; }), ranks});
      if (node)
        c.cs.push_back({"tessera node-level graph::connected_components", timed([&] {
                          tg::vertex_property_map<NodeGraph, std::int32_t> comp(*node);
                          cc_node = tg::connected_components(*node, comp);
                        }),
                        ranks, 0});
      cases.push_back(std::move(c));
    }
    {
      Case c{graph_name + " PageRank (tol 1e-9), " + std::to_string(P) + " ranks", {}};
      c.cs.push_back({"tessera dist pagerank",
                      timed([&] { pr_dist = td::pagerank<Space>(g, 0.85, 1e-9, 1000).iterations; }), ranks});
      if (node)
        c.cs.push_back({"tessera node-level graph::pagerank", timed([&] {
                          tg::vertex_property_map<NodeGraph, double> pr(*node);
                          pr_node = tg::pagerank(*node, pr, 0.85, 1e-9, 1000);
                        }),
                        ranks, 0});
      cases.push_back(std::move(c));
    }

    tessera::bench::InterleaveOptions opt;
    opt.repeats = repeats;
    std::vector<std::vector<tessera::bench::Result>> results;
    for (const auto& c : cases) results.push_back(tessera::bench::run_interleaved(c.cs, opt));

    // Every contender's answer must agree.
    for (std::size_t s = 0; s < K; ++s) {
      const std::string at = "BFS from " + std::to_string(sources[s]) + ": dist reached " +
                             std::to_string(reached_dist[s]) + ", ";
      require(reached_td[s] == reached_dist[s], at + "dist top-down " + std::to_string(reached_td[s]));
      require(reached_list[s] == reached_dist[s], at + "dist list claims " + std::to_string(reached_list[s]));
      require(reached_bitmap[s] == reached_dist[s], at + "dist bitmap claims " + std::to_string(reached_bitmap[s]));
      if (with_combblas)
        require(reached_cb[s] == reached_dist[s], at + "CombBLAS " + std::to_string(reached_cb[s]));
      if (node)
        require(reached_node[s] == reached_dist[s], at + "node-level " + std::to_string(reached_node[s]));
    }
    if (with_combblas)
      require(tri_cb == tri_dist,
              "triangles: dist " + std::to_string(tri_dist) + ", CombBLAS " + std::to_string(tri_cb));
    if (node) {
      require(tri_node == tri_dist,
              "triangles: dist " + std::to_string(tri_dist) + ", node " + std::to_string(tri_node));
      require(cc_node == cc_dist,
              "components: dist " + std::to_string(cc_dist) + ", node " + std::to_string(cc_node));
      require(pr_node == pr_dist,
              "PageRank iterations: dist " + std::to_string(pr_dist) + ", node " + std::to_string(pr_node));
    }

    // Communication per rank of one run of each dist algorithm (untimed).
    struct Volume {
      const char* what;
      td::CommVolume v;
    };
    std::vector<Volume> volumes;
    auto measure = [&](const char* what, auto&& f) {
      comm.barrier();
      comm.reset_volume();
      f();
      const auto v = comm.volume();  // before the gathers below count themselves
      volumes.push_back({what, v});
    };
    measure("BFS (all sources)", [&] { dist_bfs({}, reached_dist); });
    measure("BFS top-down (all sources)", [&] { dist_bfs(top_down, reached_td); });
    measure("BFS top-down list claims", [&] { dist_bfs(top_down, reached_list, td::frontier_exchange::list); });
    measure("BFS top-down bitmap claims",
            [&] { dist_bfs(top_down, reached_bitmap, td::frontier_exchange::bitmap); });
    // How each level of the first source's searches ran (l: top-down, list
    // claims; b: top-down, bitmap claims; u: bottom-up).
    const std::string forms_do = K ? td::bfs<Space>(g, sources[0]).level_forms : "";
    const std::string forms_td = K ? td::bfs<Space>(g, sources[0], top_down).level_forms : "";
    measure("triangles", [&] { tri_dist = td::count_triangles<Space>(g); });
    measure("components", [&] { cc_dist = td::connected_components<Space>(g).count; });
    measure("PageRank", [&] { pr_dist = td::pagerank<Space>(g, 0.85, 1e-9, 1000).iterations; });
    std::vector<std::vector<td::CommVolume>> gathered;
    for (const auto& v : volumes) gathered.push_back(comm.allgather(v.v));
    const auto ghosts = comm.allgather(g.num_ghosts());
    const auto owned = comm.allgather(g.num_owned());

    if (me == 0) {
      const tessera::bench::Report report("dist_graph", json);
      for (std::size_t i = 0; i < cases.size(); ++i)
        report.add(cases[i].name, tessera::bench::Measure{"s"}, cases[i].cs, results[i]);
      if (json) {
        // One note for the BFS case: the graph, sources, the answers checked,
        // and each rank's ghosts and communication per algorithm.
        tools::json ranks = tools::json::array();
        for (int r = 0; r < P; ++r) {
          tools::json rank = {{"rank", r}, {"owned", owned[std::size_t(r)]}, {"ghosts", ghosts[std::size_t(r)]}};
          for (std::size_t a = 0; a < volumes.size(); ++a) {
            rank[std::string(volumes[a].what) + " bytes_sent"] = gathered[a][std::size_t(r)].bytes_sent;
            rank[std::string(volumes[a].what) + " mpi_seconds"] = tools::rounded(gathered[a][std::size_t(r)].seconds, 6);
          }
          ranks.push_back(std::move(rank));
        }
        report.note(cases[0].name,
                    {{"command", "mpiexec -n " + std::to_string(P) + ": CombBLAS " +
                                     (with_combblas ? "TopDownBFS-style SpMV(SelectMaxSRing) BFS; tril + Mult_AnXBn_Synch + "
                                                      "EWiseMult triangles"
                                                    : "left out: needs a square process grid")},
                     {"vertices", g.num_vertices()},
                     {"edges", g.num_edges()},
                     {"sources", K},
                     {"triangles", tri_dist},
                     {"components", cc_dist},
                     {"level_forms", {{"direction-optimizing", forms_do}, {"top-down", forms_td}}},
                     {"ranks", std::move(ranks)}});
      } else {
        std::printf("# %s: %lld vertices, %lld edges, %zu BFS sources, %lld triangles, %lld components%s\n",
                    graph_name.c_str(), (long long)g.num_vertices(), (long long)g.num_edges(), K,
                    (long long)tri_dist, (long long)cc_dist,
                    with_combblas ? "" : "; CombBLAS left out (it needs a square process grid)");
        std::printf("# BFS from %lld, each level (l: top-down, list claims; b: top-down, bitmap claims; u: "
                    "bottom-up): direction-optimizing %s, top-down %s\n",
                    K ? (long long)sources[0] : -1LL, forms_do.c_str(), forms_td.c_str());
        std::printf(
            "# per rank: owned, ghosts; bytes sent / MPI seconds of one run of each dist algorithm\n");
        for (int r = 0; r < P; ++r) {
          std::printf("#   rank %d: %lld owned, %lld ghosts", r, (long long)owned[std::size_t(r)],
                      (long long)ghosts[std::size_t(r)]);
          for (std::size_t a = 0; a < volumes.size(); ++a)
            std::printf("; %s %lld B / %.4f s", volumes[a].what,
                        (long long)gathered[a][std::size_t(r)].bytes_sent,
                        gathered[a][std::size_t(r)].seconds);
          std::printf("\n");
        }
      }
    }
  }
  tessera::finalize();
  return 0;
}
