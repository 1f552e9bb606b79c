// Rows of the analytics package: miniTri with its three methods on a
// Kronecker graph and on the karate/facebook graphs, on every back-end, each
// checked (the methods' histograms identical, the triangle count equal to
// the graph package's own count or to the published one).
#include "demo.hpp"

#include <tessera/analytics.hpp>

#include <chrono>
#include <cstdint>

using tessera_demo::Check;
using tessera_demo::format;
namespace ta = tessera::analytics;
namespace tg = tessera::graph;

namespace {

template <class Space>
void analytics_rows(tessera_demo::Report& report, const tessera_demo::Context& ctx) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, Space>;
  constexpr bool host = tessera::is_host_execution_space<Space>::value;
  const int scale = ctx.quick ? 10 : 15;
  const G g = ta::build_simple<G>(ta::load_edges(format("kron:%d:16", scale)));

  report.run<Space>("analytics", format("miniTri k-count, Kronecker scale %d: direct = data%s", scale, host ? " = tasks" : ""), [&] {
    const auto t0 = std::chrono::steady_clock::now();
    const auto direct = ta::minitri(g);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ta::minitri_options o;
    o.method = ta::method::data;
    bool same = ta::minitri(g, o).histogram == direct.histogram;
    if constexpr (host) {
      o.method = ta::method::tasks;
      same = same && ta::minitri(g, o).histogram == direct.histogram;
    }
    const auto t = tg::count_triangles(g);
    return Check{same && direct.triangles == t,
                 format("%lld triangles (graph count %lld), largest k %d, histograms %s", (long long)direct.triangles,
                        (long long)t, direct.max_k(), same ? "equal" : "DIFFER"),
                 s, format("%.3g Mtri/s (direct)", double(direct.triangles) / s / 1e6)};
  });

  if (ctx.have_data()) {
    for (auto [file, tri] : {std::pair{"karate.mtx", std::int64_t(45)}, {"facebook_combined.txt", std::int64_t(1612010)}}) {
      report.run<Space>("analytics", format("miniTri on %s (known: %lld triangles)", file, (long long)tri), [&, file = file, tri = tri] {
        const G fg = ta::build_simple<G>(ta::load_edges((ctx.data_dir / "graphs" / file).string()));
        const auto r = ta::minitri(fg);
        return Check{r.triangles == tri, format("%lld triangles, largest k %d, peak %.2f MiB", (long long)r.triangles,
                                                r.max_k(), double(r.peak_bytes) / 1048576.0)};
      });
    }
  }
}

}  // namespace

void run_analytics(tessera_demo::Report& report, const tessera_demo::Context& ctx) {
  tessera_demo::for_each_space([&]<class Space>() { analytics_rows<Space>(report, ctx); });
}
