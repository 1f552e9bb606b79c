// Adapters answer like the graphs they stand for (materialized transpose,
// induced subgraph), property maps, and the parallel primitives.
#include "graph_reference.hpp"
#include "graph_test_util.hpp"

using namespace graph_test;

template <class Space>
class GraphAdapters : public SpaceTest<Space> {};
TYPED_TEST_SUITE(GraphAdapters, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(GraphAdapters, TransposeEqualsMaterializedTranspose) {
  using B = tg::compressed_sparse_row_graph<tg::bidirectionalS, TypeParam>;
  auto el = random_edges(400, 1600, 3);
  B g(el, tg::build_options::simple());
  tg::edge_list rev = el;
  std::swap(rev.src, rev.dst);
  B gt(rev, tg::build_options::simple());
  tg::transpose_adapter<B> t(g);
  EXPECT_EQ(tg::num_edges(t), tg::num_edges(gt));
  EXPECT_EQ(rows_of(t), rows_of(gt));
  // Same BFS levels, SCCs and PageRank as on the materialized transpose.
  auto lv = [](const auto& gr) {
    using GG = std::decay_t<decltype(gr)>;
    tg::vertex_property_map<GG, std::int32_t> l(gr);
    tg::breadth_first_search(gr, 0, tg::bfs_levels_visitor<GG>(l));
    return tg::detail::to_host_vector(l.view());
  };
  EXPECT_EQ(lv(t), lv(gt));
  tg::vertex_property_map<tg::transpose_adapter<B>, int> ct(t);
  tg::vertex_property_map<B, int> cg(gt);
  EXPECT_EQ(tg::strongly_connected_components(t, ct), tg::strongly_connected_components(gt, cg));
  EXPECT_EQ(tg::detail::to_host_vector(ct.view()), tg::detail::to_host_vector(cg.view()));
  tg::vertex_property_map<tg::transpose_adapter<B>, double> pt(t);
  tg::vertex_property_map<B, double> pg(gt);
  tg::pagerank(t, pt, 0.85, 0.0, 20);
  tg::pagerank(gt, pg, 0.85, 0.0, 20);
  auto a = tg::detail::to_host_vector(pt.view()), b = tg::detail::to_host_vector(pg.view());
  for (std::size_t v = 0; v < a.size(); ++v) ASSERT_NEAR(a[v], b[v], 1e-12);
  // Edge indices are the base graph's: an edge property map of g works on t.
  tessera::View<int*, TypeParam> bad("bad", 1);
  using V = typename B::vertex_descriptor;
  tg::forall_vertices(t, TESSERA_LAMBDA(V v) {
    for (auto e : tg::out_edges(v, t)) {
      const auto s = tg::source(e, t), d = tg::target(e, t);
      const auto k = tg::get_edge_index(e, t);  // the slot of d -> s in g
      if (s != v || k < g.row_begin(d) || k >= g.row_end(d) || g.entries_data()[k] != s) tessera::atomic_inc(&bad(0));
    }
  });
  EXPECT_EQ(tg::detail::read_one(bad, 0), 0);
}

// An undirected graph is its own transpose: the adapter's out-edges of v
// start at v and are v's neighbours, with the base graph's edge indices.
TYPED_TEST(GraphAdapters, TransposeOfAnUndirectedGraphIsTheGraph) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using V = typename G::vertex_descriptor;
  auto el = random_edges(300, 1500, 5);
  G g(el, tg::build_options::simple());
  tg::transpose_adapter<G> t(g);
  EXPECT_EQ(rows_of(t), rows_of(g));
  tessera::View<int*, TypeParam> bad("bad", 1);
  tg::forall_vertices(t, TESSERA_LAMBDA(V v) {
    const auto rt = tg::out_edges(v, t);
    const auto rg = tg::out_edges(v, g);
    auto it = rt.begin();
    for (auto jt = rg.begin(); jt != rg.end(); ++jt, ++it) {
      const auto et = *it, eg = *jt;
      if (tg::source(et, t) != v || tg::target(et, t) != tg::target(eg, g) ||
          tg::get_edge_index(et, t) != tg::get_edge_index(eg, g))
        tessera::atomic_inc(&bad(0));
    }
  });
  EXPECT_EQ(tg::detail::read_one(bad, 0), 0);
  // A search that walks the adapter's out-edges (top-down only).
  tg::vertex_property_map<tg::transpose_adapter<G>, std::int32_t> lt(t);
  tg::vertex_property_map<G, std::int32_t> lg(g);
  tg::bfs_options top_down;
  top_down.direction = tg::bfs_direction::top_down;
  tg::breadth_first_search(t, 0, tg::bfs_levels_visitor<tg::transpose_adapter<G>>(lt), top_down);
  tg::breadth_first_search(g, 0, tg::bfs_levels_visitor<G>(lg), top_down);
  EXPECT_EQ(tg::detail::to_host_vector(lt.view()), tg::detail::to_host_vector(lg.view()));
}

TYPED_TEST(GraphAdapters, SubgraphEqualsMaterializedInducedSubgraph) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using V = typename G::vertex_descriptor;
  auto el = tg::kronecker(9, 8, 12);
  G g(el, tg::build_options::simple());
  const std::int64_t n = el.num_vertices;
  // Keep vertices not divisible by 3; drop edges whose index is divisible by 5.
  std::vector<int> vm(n), em(tg::num_edges(g));
  for (std::int64_t v = 0; v < n; ++v) vm[v] = v % 3 != 0;
  for (std::size_t i = 0; i < em.size(); ++i) em[i] = i % 5 != 0;
  auto vmv = tg::detail::to_space<int, TypeParam>("vmask", vm);
  auto emv = tg::detail::to_space<int, TypeParam>("emask", em);
  tg::subgraph_adapter<G> s(g, vmv, emv);
  // Materialize: the kept edges between kept vertices, renumbered in order.
  std::vector<std::int64_t> local(n, -1);
  std::int64_t k = 0;
  for (std::int64_t v = 0; v < n; ++v)
    if (vm[v]) local[v] = k++;
  tg::edge_list sub;
  sub.num_vertices = k;
  {
    // The edge indices of g per slot, to apply the edge mask on the host.
    using H = tg::compressed_sparse_row_graph<tg::undirectedS, tessera::HostSpace>;
    H hg(el, tg::build_options::simple());
    for (auto e : tg::edges(hg)) {
      const auto u = tg::source(e, hg), v = tg::target(e, hg);
      if (vm[u] && vm[v] && em[tg::get_edge_index(e, hg)]) sub.add(local[u], local[v]);
    }
  }
  G m(sub);
  EXPECT_EQ(tg::num_vertices(s), k);
  EXPECT_EQ(tg::num_edges(s), tg::num_edges(m));
  EXPECT_EQ(rows_of(s), rows_of(m));
  EXPECT_EQ(tg::count_triangles(s), tg::count_triangles(m));
  tg::vertex_property_map<tg::subgraph_adapter<G>, V> cs(s);
  tg::vertex_property_map<G, V> cm(m);
  EXPECT_EQ(tg::connected_components(s, cs), tg::connected_components(m, cm));
  EXPECT_EQ(tg::detail::to_host_vector(cs.view()), tg::detail::to_host_vector(cm.view()));
  tg::vertex_property_map<tg::subgraph_adapter<G>, std::int32_t> ls(s);
  tg::vertex_property_map<G, std::int32_t> lm(m);
  tg::breadth_first_search(s, 1, tg::bfs_levels_visitor<tg::subgraph_adapter<G>>(ls));
  tg::breadth_first_search(m, 1, tg::bfs_levels_visitor<G>(lm));
  EXPECT_EQ(tg::detail::to_host_vector(ls.view()), tg::detail::to_host_vector(lm.view()));
  // Pulls along in-edges: PageRank, and multi_source_bfs's bottom-up sweeps.
  tg::vertex_property_map<tg::subgraph_adapter<G>, double> ps(s);
  tg::vertex_property_map<G, double> pm(m);
  tg::pagerank(s, ps, 0.85, 0.0, 20);
  tg::pagerank(m, pm, 0.85, 0.0, 20);
  const auto rs = tg::detail::to_host_vector(ps.view()), rm = tg::detail::to_host_vector(pm.view());
  for (std::size_t v = 0; v < rs.size(); ++v) ASSERT_NEAR(rs[v], rm[v], 1e-12) << "vertex " << v;
  const auto ds = tessera::create_mirror_view_and_copy(tessera::HostSpace(), tg::multi_source_bfs(s, std::vector<int>{1, 2}));
  const auto dm = tessera::create_mirror_view_and_copy(tessera::HostSpace(), tg::multi_source_bfs(m, std::vector<int>{1, 2}));
  ASSERT_EQ(ds.extent(0), dm.extent(0));
  ASSERT_EQ(ds.extent(1), 2u);
  for (std::size_t v = 0; v < ds.extent(0); ++v)
    for (std::size_t j = 0; j < 2; ++j) ASSERT_EQ(ds(v, j), dm(v, j)) << "vertex " << v << ", source " << j;
  // Translations between local and global ids.
  tessera::View<std::int64_t*, TypeParam> tr("tr", 2);
  tessera::parallel_for(tessera::RangePolicy<TypeParam>(0, 1), TESSERA_LAMBDA(int) {
    tr(0) = s.local_to_global(V(10));
    tr(1) = s.global_to_local(V(3));
  });
  auto htr = tg::detail::to_host_vector(tr);
  EXPECT_EQ(htr[0], 16);  // kept vertices: 1 2 4 5 7 8 10 11 13 14 16 ...
  EXPECT_EQ(htr[1], -1);
  EXPECT_THROW(tg::subgraph_adapter<G>(g, tg::detail::to_space<int, TypeParam>("short", std::vector<int>(3, 1))),
               std::runtime_error);
}

TYPED_TEST(GraphAdapters, EdgeMaskOnlyKeepsAllVertices) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  auto el = tg::grid_2d(10, 10);
  G g(el);
  std::vector<int> em(tg::num_edges(g), 0);
  tg::subgraph_adapter<G> s(g, {}, tg::detail::to_space<int, TypeParam>("none", em));
  EXPECT_EQ(tg::num_vertices(s), 100);
  EXPECT_EQ(tg::num_edges(s), 0);
  tg::vertex_property_map<tg::subgraph_adapter<G>, int> c(s);
  EXPECT_EQ(tg::connected_components(s, c), 100);
}

TYPED_TEST(GraphAdapters, PropertyMapsHostAndKernelAccess) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using V = typename G::vertex_descriptor;
  G g(tg::grid_2d(8, 8));
  tg::vertex_property_map<G, double> pv(g, 2.5, "pv");
  EXPECT_EQ(pv.size(), 64);
  EXPECT_EQ(tg::deep_get(pv, 63), 2.5);
  tg::deep_put(pv, 5, 7.0);
  tg::forall_vertices(g, TESSERA_LAMBDA(V v) { tg::put(pv, v, tg::get(pv, v) + double(v)); });
  auto h = tg::create_mirror_map(pv);
  tg::deep_copy(h, pv);
  for (int v = 0; v < 64; ++v) EXPECT_EQ(h[v], (v == 5 ? 7.0 : 2.5) + v);
  h[0] = -1;
  tg::deep_copy(pv, h);
  EXPECT_EQ(tg::deep_get(pv, 0), -1.0);
  try {
    tg::deep_get(pv, 64);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'pv': index 64 outside [0, 64)"), std::string::npos) << e.what();
  }
  tg::edge_property_map<G, int> pe(g, 0, "pe");
  EXPECT_EQ(pe.size(), tg::num_edges(g));
  // Both directions of an edge reach the same value.
  tg::forall_edges(g, TESSERA_LAMBDA(const typename G::edge_descriptor& e) { tg::put(pe, e, tg::source(e, g) * 1000 + tg::target(e, g)); });
  tessera::View<int*, TypeParam> bad("bad", 1);
  tg::forall_vertices(g, TESSERA_LAMBDA(V v) {
    for (auto e : tg::out_edges(v, g)) {
      const int lo = tg::source(e, g) < tg::target(e, g) ? tg::source(e, g) : tg::target(e, g);
      const int hi = tg::source(e, g) + tg::target(e, g) - lo;
      if (tg::get(pe, e) != lo * 1000 + hi) tessera::atomic_inc(&bad(0));
    }
  });
  EXPECT_EQ(tg::detail::read_one(bad, 0), 0);
  tg::vertex_property_map<G, double> other(G(tg::grid_2d(2, 2)));
  EXPECT_THROW(tg::deep_copy(pv, other), std::runtime_error);
}

TYPED_TEST(GraphAdapters, PrimitivesVisitEachEdgeOnceAndReduce) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using D = tg::compressed_sparse_row_graph<tg::directedS, TypeParam>;
  using V = typename G::vertex_descriptor;
  using E = typename G::edge_descriptor;
  auto el = random_edges(1000, 5000, 8);
  G g(el, tg::build_options::simple());
  D d(el, tg::build_options::simple());
  tessera::View<int*, TypeParam> hits("hits", tg::num_edges(g));
  tg::forall_edges(g, TESSERA_LAMBDA(const E& e) { tessera::atomic_inc(&hits(tg::get_edge_index(e, g))); });
  auto h = tg::detail::to_host_vector(hits);
  EXPECT_TRUE(std::all_of(h.begin(), h.end(), [](int x) { return x == 1; }));
  std::int64_t count = 0, dcount = 0, degsum = 0;
  tg::reduce_edges(g, TESSERA_LAMBDA(const E&, std::int64_t& c) { ++c; }, count);
  tg::reduce_edges(d, TESSERA_LAMBDA(const E&, std::int64_t& c) { ++c; }, dcount);
  tg::reduce_vertices(g, TESSERA_LAMBDA(V v, std::int64_t & s) { s += tg::out_degree(v, g); }, degsum);
  EXPECT_EQ(count, tg::num_edges(g));
  EXPECT_EQ(dcount, tg::num_edges(d));
  EXPECT_EQ(degsum, 2 * tg::num_edges(g));
  // Several reducers at once.
  std::int64_t lo = 0, hi = 0;
  tg::reduce_edges(g, TESSERA_LAMBDA(const E& e, std::int64_t& mn, std::int64_t& mx) {
    const std::int64_t w = tg::target(e, g) - tg::source(e, g);
    if (w < mn) mn = w;
    if (w > mx) mx = w;
  }, tessera::Min<std::int64_t>(lo), tessera::Max<std::int64_t>(hi));
  EXPECT_GE(lo, 1);  // each undirected edge once, from its lower end
  EXPECT_LE(hi, 999);
  // linear_recurrence_v: running maximum and running sum.
  tg::vertex_property_map<G, std::int64_t> x(g);
  auto xv = x.view();
  tg::forall_vertices(g, TESSERA_LAMBDA(V v) { xv(v) = (v * 7919) % 1000; });
  tg::linear_recurrence_v(g, x, TESSERA_LAMBDA(std::int64_t a, std::int64_t b) { return a > b ? a : b; });
  auto hx = tg::detail::to_host_vector(xv);
  std::int64_t run = 0;
  for (std::int64_t v = 0; v < 1000; ++v) {
    run = std::max(run, (v * 7919) % 1000);
    ASSERT_EQ(hx[v], run) << v;
  }
  tg::edge_property_map<G, std::int64_t> ones(g);
  tg::fill_e(g, ones, std::int64_t(1));
  tg::linear_recurrence_e(g, ones, TESSERA_LAMBDA(std::int64_t a, std::int64_t b) { return a + b; });
  EXPECT_EQ(tg::deep_get(ones, tg::num_edges(g) - 1), tg::num_edges(g));
  EXPECT_EQ(tg::deep_get(ones, std::int64_t(0)), 1);
  tg::fill_v(g, x, std::int64_t(4));
  EXPECT_EQ(tg::deep_get(x, 999), 4);
}
