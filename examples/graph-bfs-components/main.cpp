// A graph built from an edge list, a BFS with a user visitor, components,
// PageRank and triangles; the program checks its own answers and returns
// non-zero if any is wrong. In a CUDA build on a machine without a GPU it says
// so and runs on the host.
#include <tessera/core/host_fallback.hpp>
#include <tessera/graph.hpp>

#include <cstdio>

namespace tg = tessera::graph;

// Counts tree edges whose target is even: only tree_edge is defined, so the
// other events cost nothing and the search may run bottom-up.
template <class G>
struct even_tree_edges : tg::default_bfs_visitor {
  tessera::View<int*, typename G::space_type> count;
  template <class E, class GG>
  TESSERA_INLINE_FUNCTION void tree_edge(const E& e, const GG& g) const {
    if (tg::target(e, g) % 2 == 0) tessera::atomic_inc(&count(0));
  }
};

// Space: the default execution space, or the host's when it cannot run here.
template <class Space>
int run() {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, Space>;
  using V = typename G::vertex_descriptor;
  // Two pieces: a 5-cycle with a chord (0..4) and a triangle (5, 6, 7); vertex 8 alone.
  tg::edge_list el;
  el.num_vertices = 9;
  for (auto [u, v] : {std::pair{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}, {0, 2}, {5, 6}, {6, 7}, {7, 5}}) el.add(u, v);
  G g(el, tg::build_options::simple());

  even_tree_edges<G> vis;
  vis.count = tessera::View<int*, typename G::space_type>("count", 1);
  const auto r = tg::breadth_first_search(g, V(0), vis);
  const int even = tg::detail::read_one(vis.count, 0);

  tg::vertex_property_map<G, V> comp(g);
  const auto k = tg::connected_components(g, comp);
  tg::vertex_property_map<G, double> pr(g);
  tg::pagerank(g, pr, 0.85, 1e-12, 200);
  const auto t = tg::count_triangles(g);

  std::printf("reached %lld vertices in %d levels, %d tree edges into even vertices\n", (long long)r.visited, r.levels, even);
  std::printf("%lld components; vertex 6 is in component %d; %lld triangles\n", (long long)k, int(tg::deep_get(comp, 6)),
              (long long)t);
  std::printf("PageRank of vertex 0: %.6f, of vertex 8: %.6f\n", tg::deep_get(pr, 0), tg::deep_get(pr, 8));
  const bool ok = r.visited == 5 && r.levels == 3 && even == 2 && k == 3 && tg::deep_get(comp, 6) == 5 && t == 2 &&
                  tg::deep_get(pr, 0) > tg::deep_get(pr, 8);
  std::printf("%s\n", ok ? "all checks passed" : "CHECK FAILED");
  return ok ? 0 : 1;
}

int main(int argc, char* argv[]) {
  tessera::ScopeGuard guard(argc, argv);
  return tessera::run_on_usable_default_space("graph_bfs_components", [&]<class Space>() { return run<Space>(); });
}
