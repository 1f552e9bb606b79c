// Rows of the graph package: BFS, components, PageRank and triangles on a
// Kronecker graph and on the shared karate/facebook graphs, on every
// back-end, each checked (known facts, or agreement with a second algorithm).
#include "demo.hpp"

#include <tessera/graph.hpp>

#include <cmath>
#include <cstdint>

using tessera_demo::Check;
using tessera_demo::format;
namespace tg = tessera::graph;

namespace {

template <class Space>
void graph_rows(tessera_demo::Report& report, const tessera_demo::Context& ctx) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, Space>;
  using V = typename G::vertex_descriptor;
  const int scale = ctx.quick ? 10 : 16;
  const auto el = tg::kronecker(scale, 16, 1);
  const G g(el, tg::build_options::simple());

  // Source: the vertex of largest degree (Kronecker graphs have many isolated vertices).
  const auto rows = tg::detail::to_host_vector(g.row_map());
  V src = 0;
  for (std::size_t v = 0; v + 1 < rows.size(); ++v)
    if (rows[v + 1] - rows[v] > rows[src + 1] - rows[src]) src = V(v);

  report.run<Space>("graph", format("BFS levels on Kronecker scale %d (checked: every edge spans <= 1 level)", scale), [&] {
    tg::vertex_property_map<G, std::int32_t> lv(g);
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = tg::breadth_first_search(g, src, tg::bfs_levels_visitor<G>(lv));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    auto l = lv.view();
    std::int64_t bad = 0;
    tg::reduce_edges(g, TESSERA_LAMBDA(const typename G::edge_descriptor& e, std::int64_t& b) {
      const int a = l(tg::source(e, g)), c = l(tg::target(e, g));
      if ((a < 0) != (c < 0) || (a >= 0 && (a - c > 1 || c - a > 1))) ++b;
    }, bad);
    return Check{bad == 0, format("%lld reached in %d levels, %lld bad edges", (long long)r.visited, r.levels, (long long)bad), s,
                 format("%.3g GTEPS", double(r.edges_traversed) / s / 1e9)};
  });

  report.run<Space>("graph", format("connected components, Afforest = Shiloach-Vishkin (scale %d)", scale), [&] {
    tg::vertex_property_map<G, V> a(g), b(g);
    const auto ka = tg::connected_components(g, a);
    const auto kb = tg::shiloach_vishkin(g, b);
    const bool same = tg::detail::to_host_vector(a.view()) == tg::detail::to_host_vector(b.view());
    return Check{ka == kb && same, format("%lld components (both), labels %s", (long long)ka, same ? "equal" : "differ")};
  });

  report.run<Space>("graph", format("PageRank (scale %d) sums to 1", scale), [&] {
    tg::vertex_property_map<G, double> pr(g);
    const int it = tg::pagerank(g, pr, 0.85, 1e-9, 200);
    double sum = 0;
    auto p = pr.view();
    tg::reduce_vertices(g, TESSERA_LAMBDA(V v, double& s) { s += p(v); }, sum);
    return Check{std::fabs(sum - 1.0) < 1e-9 && it < 200, format("%d iterations, sum %.12f", it, sum)};
  });

  if (ctx.have_data()) {
    for (auto [file, tri] : {std::pair{"karate.mtx", std::int64_t(45)}, {"facebook_combined.txt", std::int64_t(1612010)}}) {
      report.run<Space>("graph", format("triangles of %s (known: %lld)", file, (long long)tri), [&, file = file, tri = tri] {
        const G fg(tg::read_edge_list((ctx.data_dir / "graphs" / file).string()), tg::build_options::simple());
        const auto t = tg::count_triangles(fg);
        return Check{t == tri, format("%lld triangles", (long long)t)};
      });
    }
  }
}

}  // namespace

void run_graph(tessera_demo::Report& report, const tessera_demo::Context& ctx) {
  tessera_demo::for_each_space([&]<class Space>() { graph_rows<Space>(report, ctx); });
}
