// miniTri on a small graph built in the program: two cliques joined by a
// path, plus a messy edge list (a loop, a repeated edge). The three methods
// must give the same histogram, and the cliques their known k: K_5 puts its
// C(5,3) = 10 triangles at k = 5, K_4 its 4 at k = 4. Returns non-zero if a
// check fails.
#include <tessera/analytics.hpp>

#include <cstdio>
#include <map>

namespace ta = tessera::analytics;
namespace tg = tessera::graph;
using G = tg::compressed_sparse_row_graph<tg::undirectedS, tessera::DefaultHostExecutionSpace>;

int main(int argc, char* argv[]) {
  tessera::ScopeGuard guard(argc, argv);
  tg::edge_list el;
  el.num_vertices = 12;
  for (int i = 0; i < 5; ++i)  // K_5 on 0..4
    for (int j = i + 1; j < 5; ++j) el.add(i, j);
  for (int i = 5; i < 9; ++i)  // K_4 on 5..8
    for (int j = i + 1; j < 9; ++j) el.add(j, i);
  el.add(4, 9), el.add(9, 10), el.add(10, 5);  // a path between them
  el.add(11, 11);                              // a self-loop: dropped
  el.add(1, 0);                                // a repeated edge: merged

  ta::cleanup_counts clean;
  const G g = ta::build_simple<G>(el, &clean);
  bool ok = clean.self_loops == 1 && clean.duplicates == 1 && clean.edges == 10 + 6 + 3;

  const std::map<int, std::int64_t> want{{4, 4}, {5, 10}};
  for (auto m : {ta::method::direct, ta::method::tasks, ta::method::data}) {
    ta::minitri_options o;
    o.method = m;
    o.block_size = 3;
    const auto r = ta::minitri(g, o);
    std::printf("%-6s: %lld triangles, histogram", ta::to_string(m), (long long)r.triangles);
    for (const auto& [k, n] : r.histogram) std::printf(" k=%d:%lld", k, (long long)n);
    std::printf(", largest k %d, peak %lld bytes\n", r.max_k(), (long long)r.peak_bytes);
    ok = ok && r.triangles == 14 && r.histogram == want && r.max_k() == 5;
  }
  std::printf("%s\n", ok ? "all checks passed" : "CHECK FAILED");
  return ok ? 0 : 1;
}
