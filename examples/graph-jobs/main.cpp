// Concurrent graph jobs: one job file holding BFS, shortest-path, PageRank
// and Jaccard jobs, run together on a small weighted graph on every enabled
// back-end; the program checks each job's answer against values worked out
// by hand and returns non-zero if any is wrong.
#include <tessera/graph.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace tg = tessera::graph;

// A 5-cycle 0-1-2-3-4 with the chord 0-2, a triangle 5-6-7, vertex 8 alone.
// The weight of edge {a, b} is a + b.
const char* kJobs =
    "# the job file of this example\n"
    "bfs 0\n"
    "sssp 3             # weighted: 3-2 (5), 2-0 (2), 0-1 (1) ...\n"
    "pagerank 0.85\n"
    "pagerank 0.85 personalize 8\n"
    "jaccard 1 3        # {0,2} and {2,4}: 1/3\n"
    "jaccard 0 2        # {1,2,4} and {0,1,3}: 1/5\n"
    "jaccard 8 8        # two empty sets: 0\n";

int failures = 0;
void expect(bool ok, const char* space, const std::string& what) {
  if (!ok) {
    std::printf("%s: CHECK FAILED: %s\n", space, what.c_str());
    ++failures;
  }
}

template <class Space>
void run_on(const std::vector<tg::graph_job>& jobs) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, Space>;
  using V = typename G::vertex_descriptor;
  const char* name = Space::name();
  tg::edge_list el;
  el.num_vertices = 9;
  for (auto [u, v] : {std::pair{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}, {0, 2}, {5, 6}, {6, 7}, {7, 5}}) el.add(u, v);
  G g(el, tg::build_options::simple());
  tg::edge_property_map<G, double> w(g, 0.0, "weight");
  tg::forall_vertices(g, TESSERA_LAMBDA(V u) {
    for (const auto& e : tg::out_edges(u, g)) w[e] = double(u + tg::target(e, g));
  });

  const auto r = tg::run_jobs(g, jobs, w);

  const auto lv = r.levels(0);
  const int want_levels[9] = {0, 1, 1, 2, 1, -1, -1, -1, -1};
  for (int v = 0; v < 9; ++v) expect(lv[v] == want_levels[v], name, "bfs 0: level of " + std::to_string(v));
  const auto d = r.distances(1);
  const double inf = std::numeric_limits<double>::max();
  const double want_dist[9] = {7, 8, 5, 0, 7, inf, inf, inf, inf};
  for (int v = 0; v < 9; ++v) expect(d[v] == want_dist[v], name, "sssp 3: distance of " + std::to_string(v));
  const auto pr = r.ranks(2);
  double sum = 0;
  for (double x : pr) sum += x;
  // Ranks sum to 1; automorphisms (0<->2 with 3<->4; the triangle's
  // rotations) give equal ranks; the chord's ends outrank vertex 1.
  expect(std::fabs(sum - 1) < 1e-9, name, "pagerank sums to 1");
  expect(std::fabs(pr[0] - pr[2]) < 1e-9 && std::fabs(pr[3] - pr[4]) < 1e-9, name, "pagerank: symmetric vertices");
  expect(std::fabs(pr[5] - pr[6]) < 1e-9 && std::fabs(pr[6] - pr[7]) < 1e-9, name, "pagerank: triangle");
  expect(pr[0] > pr[1], name, "pagerank: degree 3 outranks degree 2");
  // Teleporting only to the isolated vertex 8 (its rank is also the
  // dangling mass, which returns to 8): all rank ends on 8.
  expect(r.ranks(3)[8] > 1 - 1e-6, name, "personalized pagerank: all on vertex 8");
  expect(r.similarity(4) == 1.0 / 3, name, "jaccard 1 3");
  expect(r.similarity(5) == 1.0 / 5, name, "jaccard 0 2");
  expect(r.similarity(6) == 0.0, name, "jaccard 8 8");
  int reached = 0;
  for (auto x : lv) reached += x >= 0;
  std::printf("%s: bfs 0 reached %d vertices; sssp 3: vertex 1 at %.0f; pagerank of 0: %.6f; jaccard(1, 3) = %.4f\n", name,
              reached, d[1], pr[0], r.similarity(4));
}

int main(int argc, char* argv[]) {
  tessera::ScopeGuard guard(argc, argv);
  const auto jobs = tg::parse_jobs(kJobs, "example-jobs.txt");
  run_on<tessera::Serial>(jobs);
#if TESSERA_ENABLE_THREADS
  run_on<tessera::Threads>(jobs);
#endif
#if TESSERA_ENABLE_OPENMP
  run_on<tessera::OpenMP>(jobs);
#endif
#if TESSERA_ENABLE_CUDA
  if (tessera::Cuda::impl_is_available()) run_on<tessera::Cuda>(jobs);
  else std::printf("Cuda: not run here (%s)\n", tessera::Cuda::impl_unavailable_reason().c_str());
#endif
  std::printf("%s\n", failures == 0 ? "all checks passed" : "CHECK FAILED");
  return failures == 0 ? 0 : 1;
}
