// Algorithms against serial references on graphs of several shapes (stars,
// paths, disconnected pieces, isolated vertices, duplicate edges,
// self-loops, Kronecker), on every back-end.
#include "graph_reference.hpp"
#include "graph_test_util.hpp"

using namespace graph_test;

namespace {
struct shape {
  std::string name;
  tg::edge_list el;
};

// An R x C grid with one diagonal per cell: 2 (R-1)(C-1) triangles. With a
// hub (vertex R*C) joined to every grid vertex: one more per grid edge,
// R(C-1) + C(R-1) + (R-1)(C-1).
tg::edge_list triangulated_grid(std::int64_t R, std::int64_t C, bool with_hub) {
  tg::edge_list el;
  el.num_vertices = R * C + (with_hub ? 1 : 0);
  for (std::int64_t i = 0; i < R; ++i)
    for (std::int64_t j = 0; j < C; ++j) {
      const std::int64_t v = i * C + j;
      if (j + 1 < C) el.add(v, v + 1);
      if (i + 1 < R) el.add(v, v + C);
      if (i + 1 < R && j + 1 < C) el.add(v, v + C + 1);
      if (with_hub) el.add(R * C, v);
    }
  return el;
}
std::int64_t triangulated_grid_edges(std::int64_t R, std::int64_t C) {
  return R * (C - 1) + C * (R - 1) + (R - 1) * (C - 1);
}

// K_k: every pair once (C(k, 3) triangles).
tg::edge_list complete_graph(int k) {
  tg::edge_list el;
  el.num_vertices = k;
  for (int i = 0; i < k; ++i)
    for (int j = i + 1; j < k; ++j) el.add(i, j);
  return el;
}

std::vector<shape> shapes() {
  std::vector<shape> s;
  tg::edge_list star;
  star.num_vertices = 301;
  for (int i = 1; i <= 300; ++i) star.add(0, i);
  s.push_back({"star", star});
  tg::edge_list path;
  path.num_vertices = 150;  // 150 levels: long enough to matter, short for CI
  for (int i = 0; i + 1 < 150; ++i) path.add(i + 1, i);
  s.push_back({"path", path});
  tg::edge_list pieces;  // three cliques, isolated vertices between them, a loop and repeated edges
  pieces.num_vertices = 40;
  for (int base : {0, 12, 30})
    for (int i = 0; i < 6; ++i)
      for (int j = i + 1; j < 6; ++j) pieces.add(base + i, base + j);
  pieces.add(3, 3);
  pieces.add(1, 0);
  pieces.add(0, 1);
  s.push_back({"pieces", pieces});
  s.push_back({"random_multigraph", random_edges(600, 1500, 77)});
  s.push_back({"kronecker", tg::kronecker(9, 8, 5)});
  s.push_back({"grid", tg::grid_2d(25, 20)});
  return s;
}

template <class G>
std::vector<int> levels_of(const G& g, const std::vector<std::int64_t>& sources, tg::bfs_options opt = {},
                           tg::bfs_result* res = nullptr) {
  tg::vertex_property_map<G, std::int32_t> lv(g);
  auto r = tg::breadth_first_search(g, sources, tg::bfs_levels_visitor<G>(lv), opt);
  if (res) *res = r;
  auto h = tg::detail::to_host_vector(lv.view());
  return std::vector<int>(h.begin(), h.end());
}
}  // namespace

template <class Space>
class GraphAlgorithms : public SpaceTest<Space> {};
TYPED_TEST_SUITE(GraphAlgorithms, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(GraphAlgorithms, BfsLevelsAndParentsFormAValidBfsTree) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using V = typename G::vertex_descriptor;
  for (auto& sh : shapes()) {
    SCOPED_TRACE(sh.name);
    G g(sh.el);  // duplicates and loops kept: BFS must not care
    auto adj = simple_adjacency(sh.el, true);
    for (std::vector<std::int64_t> src : {std::vector<std::int64_t>{0}, {sh.el.num_vertices - 1, 5, 5}}) {
      const auto want = graph_ref::bfs_levels(adj, src);
      for (auto dir : {tg::bfs_direction::top_down, tg::bfs_direction::automatic}) {
        tg::bfs_result res;
        EXPECT_EQ(levels_of(g, src, {dir}, &res), want);
        EXPECT_EQ(res.visited, std::count_if(want.begin(), want.end(), [](int l) { return l >= 0; }));
        EXPECT_EQ(res.levels, *std::max_element(want.begin(), want.end()) + 1);
        if (dir == tg::bfs_direction::top_down) {
          EXPECT_EQ(res.bottom_up_levels, 0);
        }
      }
      tg::vertex_property_map<G, V> parents(g);
      tg::breadth_first_search(g, src, tg::bfs_parents_visitor<G>(parents));
      auto p = tg::detail::to_host_vector(parents.view());
      for (std::int64_t v = 0; v < sh.el.num_vertices; ++v) {
        if (want[v] < 0) {
          ASSERT_EQ(p[v], -1) << v;
        } else if (want[v] == 0) {
          ASSERT_EQ(p[v], v) << v;
        } else {
          ASSERT_GE(p[v], 0) << v;
          ASSERT_EQ(want[p[v]], want[v] - 1) << "parent of " << v << " is not one level up";
          ASSERT_TRUE(std::binary_search(adj[v].begin(), adj[v].end(), std::int64_t(p[v]))) << "no edge to parent " << v;
        }
      }
    }
  }
}

TYPED_TEST(GraphAlgorithms, DirectionOptimizingRunsBottomUpOnKronecker) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  auto el = tg::kronecker(12, 16, 3);
  G g(el, tg::build_options::simple());
  tessera::View<std::int64_t*, TypeParam> deg("deg", 1);
  // The hub is a good source: reaches the giant component in two levels.
  auto adj = simple_adjacency(el, true);
  std::int64_t hub = 0;
  for (std::int64_t v = 0; v < el.num_vertices; ++v)
    if (adj[v].size() > adj[hub].size()) hub = v;
  tg::bfs_result res;
  EXPECT_EQ(levels_of(g, {hub}, {}, &res), graph_ref::bfs_levels(adj, {hub}));
  EXPECT_GT(res.bottom_up_levels, 0);
}

// Every mix of top-down and bottom-up steps (alpha, beta at their extremes and
// defaults) gives the serial levels and a valid parent tree, from sources that
// make the search switch both ways (the hub of a Kronecker graph: top-down,
// bottom-up, then top-down again on the shrinking tail) and on a long grid,
// with small top-down levels run in parallel or on the calling thread.
TYPED_TEST(GraphAlgorithms, DirectionSwitchesKeepLevelsAndParents) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using V = typename G::vertex_descriptor;
  for (auto el : {tg::kronecker(12, 16, 3), tg::grid_2d(70, 9)}) {
    G g(el, tg::build_options::simple());
    auto adj = simple_adjacency(el, true);
    std::int64_t hub = 0;
    for (std::int64_t v = 0; v < el.num_vertices; ++v)
      if (adj[v].size() > adj[hub].size()) hub = v;
    for (std::vector<std::int64_t> src : {std::vector<std::int64_t>{hub}, {0, el.num_vertices - 1}}) {
      const auto want = graph_ref::bfs_levels(adj, src);
      bool returned_top_down = false;
      for (std::int64_t inline_edges : {std::int64_t(0), std::int64_t(1024)}) {
        for (double alpha : {1e-9, 14.0, 1e9})
          for (double beta : {1e-9, 24.0, 1e9}) {
            SCOPED_TRACE(testing::Message() << "alpha " << alpha << " beta " << beta << " inline " << inline_edges);
            tg::bfs_options o;
            o.alpha = alpha;
            o.beta = beta;
            o.inline_edges = inline_edges;  // 0: every level in parallel
            tg::bfs_result res;
            ASSERT_EQ(levels_of(g, src, o, &res), want);
            if (res.bottom_up_levels > 0 && res.bottom_up_levels < res.levels - 1) returned_top_down = true;
            tg::vertex_property_map<G, V> parents(g);
            tg::breadth_first_search(g, src, tg::bfs_parents_visitor<G>(parents), o);
            auto p = tg::detail::to_host_vector(parents.view());
            for (std::int64_t v = 0; v < el.num_vertices; ++v) {
              if (want[v] <= 0) {
                ASSERT_EQ(p[v], want[v] < 0 ? V(-1) : V(v)) << v;
              } else {
                ASSERT_EQ(want[p[v]], want[v] - 1) << "parent of " << v;
                ASSERT_TRUE(std::binary_search(adj[v].begin(), adj[v].end(), std::int64_t(p[v]))) << v;
              }
            }
          }
      }
      if (el.num_vertices == 4096 && src.size() == 1) {
        EXPECT_TRUE(returned_top_down);
      }
    }
  }
}

namespace {
// Counts every event; filters out edges into vertices that are multiples of 7
// and refuses to discover vertices that are multiples of 11 (except sources).
template <class Space>
struct counting_visitor : tg::default_bfs_visitor {
  tessera::View<std::int64_t*, Space> c;  // discover, examine_v, examine_e, tree, non_tree, finish, filtered
  template <class V, class G>
  TESSERA_INLINE_FUNCTION void discover_vertex(V, const G&) const { tessera::atomic_inc(&c(0)); }
  template <class V, class G>
  TESSERA_INLINE_FUNCTION void examine_vertex(V, const G&) const { tessera::atomic_inc(&c(1)); }
  template <class E, class G>
  TESSERA_INLINE_FUNCTION void examine_edge(const E&, const G&) const { tessera::atomic_inc(&c(2)); }
  template <class E, class G>
  TESSERA_INLINE_FUNCTION void tree_edge(const E&, const G&) const { tessera::atomic_inc(&c(3)); }
  template <class E, class G>
  TESSERA_INLINE_FUNCTION void non_tree_edge(const E&, const G&) const { tessera::atomic_inc(&c(4)); }
  template <class V, class G>
  TESSERA_INLINE_FUNCTION void finish_vertex(V, const G&) const { tessera::atomic_inc(&c(5)); }
  template <class E, class G>
  TESSERA_INLINE_FUNCTION bool filter(const E& e, const G& g) const {
    const bool keep = tg::target(e, g) % 7 != 0;
    if (!keep) tessera::atomic_inc(&c(6));
    return keep;
  }
  template <class V, class G>
  TESSERA_INLINE_FUNCTION bool color_test(V v, const G&) const { return v % 11 != 0 || v == 1; }
};
}  // namespace

TYPED_TEST(GraphAlgorithms, VisitorEventsFollowTheContract) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  static_assert(tg::bfs_visitor_needs_edge_events_v<counting_visitor<TypeParam>, G>);
  static_assert(!tg::bfs_visitor_needs_edge_events_v<tg::bfs_levels_visitor<G>, G>);
  static_assert(!tg::bfs_visitor_needs_edge_events_v<tg::default_bfs_visitor, G>);
  auto el = random_edges(2000, 8000, 13);
  G g(el, tg::build_options::simple());
  counting_visitor<TypeParam> vis;
  vis.c = tessera::View<std::int64_t*, TypeParam>("counts", 7);
  auto res = tg::breadth_first_search(g, 1, vis);
  auto c = tg::detail::to_host_vector(vis.c);
  // Reference: BFS on the graph without the filtered edges and blocked vertices.
  auto adj = simple_adjacency(el, true);
  graph_ref::adj_t cut(adj.size());
  std::int64_t want_examined = 0, want_filtered = 0;
  for (std::size_t u = 0; u < adj.size(); ++u)
    for (auto v : adj[u])
      if (v % 7 != 0 && (v % 11 != 0 || v == 1)) cut[u].push_back(v);
  auto lv = graph_ref::bfs_levels(cut, {1});
  std::int64_t reached = 0;
  for (std::size_t u = 0; u < adj.size(); ++u) {
    if (lv[u] < 0) continue;
    ++reached;
    for (auto v : adj[u]) (v % 7 != 0 ? want_examined : want_filtered)++;
  }
  EXPECT_EQ(res.visited, reached);
  EXPECT_EQ(c[0], reached);                 // discover
  EXPECT_EQ(c[1], reached);                 // examine_vertex
  EXPECT_EQ(c[5], reached);                 // finish_vertex
  EXPECT_EQ(c[2], want_examined);           // examine_edge: every unfiltered edge of a reached vertex
  EXPECT_EQ(c[6], want_filtered);
  EXPECT_EQ(c[3], reached - 1);             // one tree edge per discovered non-source
  EXPECT_EQ(c[3] + c[4], want_examined);    // each examined edge is tree or non-tree
  EXPECT_EQ(res.bottom_up_levels, 0);       // per-edge events: never bottom-up
}

TYPED_TEST(GraphAlgorithms, DirectedBfsFollowsEdgeDirection) {
  using G = tg::compressed_sparse_row_graph<tg::directedS, TypeParam>;
  auto el = random_edges(800, 2400, 17);
  G g(el);
  auto adj = simple_adjacency(el, false);
  EXPECT_EQ(levels_of(g, {3}), graph_ref::bfs_levels(adj, {3}));
  EXPECT_THROW(levels_of(g, {800}), std::runtime_error);
}

TYPED_TEST(GraphAlgorithms, MultiSourceBfsEqualsSingleRuns) {
  // Every push schedule on every space: the host's loop over the vertices,
  // and the listed frontier expanded by degree (low thresholds, so that the
  // thread, vector-lane and whole-team paths all run) or edge-balanced (a
  // GPU's default).
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using D = tg::compressed_sparse_row_graph<tg::directedS, TypeParam>;
  auto el = tg::kronecker(9, 4, 8);  // isolated vertices included
  G g(el, tg::build_options::simple());
  D d(el);
  std::vector<std::int64_t> src;
  for (int i = 0; i < 70; ++i) src.push_back((i * 37) % 512);  // two batches, repeats
  src.push_back(src[3]);
  auto au = simple_adjacency(el, true), ad = simple_adjacency(el, false);
  for (auto schedule : {tg::edge_schedule::automatic, tg::edge_schedule::vertex_loop, tg::edge_schedule::by_degree,
                        tg::edge_schedule::edge_balanced}) {
    SCOPED_TRACE("schedule " + std::to_string(int(schedule)));
    const tg::traversal_options opts{.schedule = schedule, .warp_degree = 3, .block_degree = 12, .steps_per_item = 5};
    auto lu = tessera::create_mirror_view_and_copy(tessera::HostSpace(), tg::multi_source_bfs(g, src, opts));
    auto ld = tessera::create_mirror_view_and_copy(tessera::HostSpace(), tg::multi_source_bfs(d, src, opts));
    ASSERT_EQ(lu.extent(1), src.size());
    for (std::size_t j = 0; j < src.size(); ++j) {
      auto wu = graph_ref::bfs_levels(au, {src[j]});
      auto wd = graph_ref::bfs_levels(ad, {src[j]});
      auto single = levels_of(g, {src[j]});
      for (std::int64_t v = 0; v < 512; ++v) {
        ASSERT_EQ(lu(v, j), wu[v]) << "query " << j << " vertex " << v;
        ASSERT_EQ(lu(v, j), single[v]);
        ASSERT_EQ(ld(v, j), wd[v]) << "directed query " << j << " vertex " << v;
      }
    }
  }
}

// A high-diameter graph: a 30 x 60 grid with a 700-vertex path hanging
// from a corner, and 4 or 64 sources. The grid's middle levels are wide
// enough to be pulled, the path's are one vertex each, so the levels turn
// from push to pull and back (the frontier list rebuilt from the words),
// and the path's 700 levels each cost their few edges. Every schedule,
// against the serial reference and on directed edges (push only).
TYPED_TEST(GraphAlgorithms, MultiSourceBfsOnAGridWithALongTail) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using D = tg::compressed_sparse_row_graph<tg::directedS, TypeParam>;
  const std::int64_t R = 30, C = 60, tail = 700, n = R * C + tail;
  tg::edge_list el;
  el.num_vertices = n;
  for (std::int64_t i = 0; i < R; ++i)
    for (std::int64_t j = 0; j < C; ++j) {
      if (j + 1 < C) el.add(i * C + j, i * C + j + 1);
      if (i + 1 < R) el.add(i * C + j, (i + 1) * C + j);
    }
  for (std::int64_t t = 0; t < tail; ++t) el.add(t == 0 ? R * C - 1 : R * C + t - 1, R * C + t);
  G g(el);
  D d(el);
  const auto au = simple_adjacency(el, true), ad = simple_adjacency(el, false);
  for (int count : {4, 64}) {
    std::vector<std::int64_t> src;
    for (int i = 0; i < count; ++i) src.push_back((std::int64_t(i) * 733 + 5) % (R * C));
    for (auto schedule : {tg::edge_schedule::automatic, tg::edge_schedule::vertex_loop, tg::edge_schedule::by_degree,
                          tg::edge_schedule::edge_balanced}) {
      SCOPED_TRACE(testing::Message() << count << " sources, schedule " << int(schedule));
      const tg::traversal_options opts{.schedule = schedule, .warp_degree = 3, .block_degree = 12, .steps_per_item = 5};
      auto lu = tessera::create_mirror_view_and_copy(tessera::HostSpace(), tg::multi_source_bfs(g, src, opts));
      auto ld = tessera::create_mirror_view_and_copy(tessera::HostSpace(), tg::multi_source_bfs(d, src, opts));
      for (std::size_t j = 0; j < src.size(); ++j) {
        const auto wu = graph_ref::bfs_levels(au, {src[j]});
        const auto wd = graph_ref::bfs_levels(ad, {src[j]});
        for (std::int64_t v = 0; v < n; ++v) {
          ASSERT_EQ(lu(v, j), wu[v]) << "query " << j << " vertex " << v;
          ASSERT_EQ(ld(v, j), wd[v]) << "directed query " << j << " vertex " << v;
        }
      }
    }
  }
}

TYPED_TEST(GraphAlgorithms, ComponentsMatchUnionFind) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using D = tg::compressed_sparse_row_graph<tg::directedS, TypeParam>;
  for (auto& sh : shapes()) {
    SCOPED_TRACE(sh.name);
    auto want = graph_ref::components(simple_adjacency(sh.el, true));
    const auto k = std::set<std::int64_t>(want.begin(), want.end()).size();
    G g(sh.el);
    tg::vertex_property_map<G, typename G::vertex_descriptor> c(g);
    EXPECT_EQ(tg::connected_components(g, c), std::int64_t(k));
    auto got = tg::detail::to_host_vector(c.view());
    EXPECT_EQ(std::vector<std::int64_t>(got.begin(), got.end()), want);
    EXPECT_EQ(tg::shiloach_vishkin(g, c), std::int64_t(k));
    got = tg::detail::to_host_vector(c.view());
    EXPECT_EQ(std::vector<std::int64_t>(got.begin(), got.end()), want);
    // Weak components of the directed version are the same.
    D d(sh.el);
    tg::vertex_property_map<D, typename D::vertex_descriptor> cd(d);
    EXPECT_EQ(tg::connected_components(d, cd), std::int64_t(k));
    got = tg::detail::to_host_vector(cd.view());
    EXPECT_EQ(std::vector<std::int64_t>(got.begin(), got.end()), want);
    EXPECT_EQ(tg::shiloach_vishkin(d, cd), std::int64_t(k));
  }
  tg::vertex_property_map<G, typename G::vertex_descriptor> wrong(G(random_edges(5, 3, 1)));
  G g(random_edges(6, 3, 1));
  EXPECT_THROW(tg::connected_components(g, wrong), std::runtime_error);
}

TYPED_TEST(GraphAlgorithms, StronglyConnectedComponentsMatchTarjan) {
  using D = tg::compressed_sparse_row_graph<tg::directedS, TypeParam>;
  std::vector<tg::edge_list> cases = {random_edges(300, 450, 1), random_edges(300, 900, 2), tg::kronecker(8, 4, 3)};
  tg::edge_list cycles;  // rings of several sizes chained one way, plus a loop
  cycles.num_vertices = 60;
  for (int base : {0, 10, 30})
    for (int i = 0; i < 10; ++i) cycles.add(base + i, base + (i + 1) % 10);
  cycles.add(9, 10);
  cycles.add(25, 30);
  cycles.add(50, 50);
  cases.push_back(cycles);
  for (auto& el : cases) {
    D d(el);
    tg::vertex_property_map<D, typename D::vertex_descriptor> c(d);
    const auto want = graph_ref::scc(simple_adjacency(el, false));
    EXPECT_EQ(tg::strongly_connected_components(d, c), std::int64_t(std::set<std::int64_t>(want.begin(), want.end()).size()));
    auto got = tg::detail::to_host_vector(c.view());
    EXPECT_EQ(std::vector<std::int64_t>(got.begin(), got.end()), want);
  }
}

TYPED_TEST(GraphAlgorithms, ThirtyTwoBitEdgeIndicesGiveTheReferenceResults) {
  // Half-width row offsets and edge indices (a graph whose slots fit 2^31):
  // BFS (both directions), components, PageRank, triangles and per-edge
  // indices as with the default 64-bit ones, against the serial references.
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam, std::int32_t, std::int32_t>;
  using D = tg::compressed_sparse_row_graph<tg::directedS, TypeParam, std::int32_t, std::int32_t>;
  using E = typename tg::graph_traits<G>::edge_descriptor;
  const auto el = tg::kronecker(10, 8, 33);  // skewed: bottom-up steps, hubs, isolated vertices
  const auto adj = simple_adjacency(el, true);
  const G g(el, tg::build_options::simple());
  static_assert(sizeof(typename G::row_map_type::value_type) == 4);
  std::int64_t hub = 0;
  for (std::size_t v = 0; v < adj.size(); ++v)
    if (adj[v].size() > adj[std::size_t(hub)].size()) hub = std::int64_t(v);
  for (auto dir : {tg::bfs_direction::automatic, tg::bfs_direction::top_down}) {
    tg::bfs_options opt;
    opt.direction = dir;
    EXPECT_EQ(levels_of(g, {hub}, opt), graph_ref::bfs_levels(adj, {hub}));
  }
  const auto want_c = graph_ref::components(adj);
  tg::vertex_property_map<G, std::int32_t> c(g);
  EXPECT_EQ(tg::connected_components(g, c), std::int64_t(std::set<std::int64_t>(want_c.begin(), want_c.end()).size()));
  const auto got_c = tg::detail::to_host_vector(c.view());
  EXPECT_EQ(std::vector<std::int64_t>(got_c.begin(), got_c.end()), want_c);
  auto check_pagerank = [&](const auto& gg, bool undirected) {
    tg::vertex_property_map<std::decay_t<decltype(gg)>, double> r(gg);
    EXPECT_EQ(tg::pagerank(gg, r, 0.85, 0.0, 30), 30);  // tolerance 0: every iteration
    const auto want = graph_ref::pagerank(simple_adjacency(el, undirected), 0.85, 30);
    const auto got = tg::detail::to_host_vector(r.view());
    for (std::size_t v = 0; v < want.size(); ++v) ASSERT_NEAR(got[v], want[v], 1e-10) << v;
  };
  check_pagerank(g, true);
  check_pagerank(D(el, tg::build_options::simple()), false);
  EXPECT_EQ(tg::count_triangles(g), std::int64_t(graph_ref::triangles(adj).size()));
  // Edge indices 0..m-1, each visited once: their sum is m(m-1)/2.
  const std::int64_t m = tg::num_edges(g);
  std::int64_t sum = 0;
  tg::reduce_edges(g, TESSERA_LAMBDA(const E& e, std::int64_t& acc) { acc += e.id; }, sum);
  EXPECT_EQ(sum, m * (m - 1) / 2);
}

TYPED_TEST(GraphAlgorithms, EdgeIndexTooNarrowForTheEdgeListIsRefused) {
  // 20,000 undirected edges take 40,000 slots: more than a 16-bit index
  // counts. The build refuses before any offset could wrap, and says why.
  tg::edge_list el;
  el.num_vertices = 1000;
  for (int i = 0; i < 20000; ++i) el.add(i % 1000, (i * 7 + 3) % 1000);
  using G16 = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam, std::int32_t, std::int16_t>;
  try {
    G16 g(el);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("20000 edges needs up to 40000 edge slots"), std::string::npos) << w;
    EXPECT_NE(w.find("max 32767"), std::string::npos) << w;
  }
  // A directed graph stores each edge once: the same list fits.
  using D16 = tg::compressed_sparse_row_graph<tg::directedS, TypeParam, std::int32_t, std::int16_t>;
  EXPECT_EQ(tg::num_edges(D16(el)), 20000);
}

TYPED_TEST(GraphAlgorithms, PageRankMatchesSerialPowerIteration) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using D = tg::compressed_sparse_row_graph<tg::directedS, TypeParam>;
  using B = tg::compressed_sparse_row_graph<tg::bidirectionalS, TypeParam>;
  auto el = tg::kronecker(9, 8, 21);  // isolated (dangling) vertices included
  const int iters = 40;
  auto check = [&](const auto& g, bool undirected) {
    using GG = std::decay_t<decltype(g)>;
    tg::vertex_property_map<GG, double> r(g);
    EXPECT_EQ(tg::pagerank(g, r, 0.85, 0.0, iters), iters);  // tolerance 0: run every iteration
    const auto want = graph_ref::pagerank(simple_adjacency(el, undirected), 0.85, iters);
    auto got = tg::detail::to_host_vector(r.view());
    double sum = 0;
    for (std::size_t v = 0; v < want.size(); ++v) {
      ASSERT_NEAR(got[v], want[v], 1e-10) << v;
      sum += got[v];
    }
    EXPECT_NEAR(sum, 1.0, 1e-9);  // dangling rank is redistributed, nothing leaks
  };
  check(G(el, tg::build_options::simple()), true);
  check(D(el, tg::build_options::simple()), false);  // scatter with atomics
  check(B(el, tg::build_options::simple()), false);  // gather along in-edges
  // Every pull schedule on every space: blocks of vertices (the host's
  // default), vector lanes per vertex (the GPU's) and the merge path of the
  // in-lists, against the reference.
  auto check_schedules = [&](const auto& g, bool undirected) {
    using GG = std::decay_t<decltype(g)>;
    using tg::detail::PullSchedule;
    const auto want = graph_ref::pagerank(simple_adjacency(el, undirected), 0.85, iters);
    for (int schedule = 0; schedule < 3; ++schedule) {
      SCOPED_TRACE(schedule == 0 ? "vertex_blocks" : schedule == 1 ? "vector_lanes" : "merge_path");
      tg::vertex_property_map<GG, double> r(g);
      const int ran = schedule == 0   ? tg::detail::pagerank_with<PullSchedule::vertex_blocks>(g, r, 0.85, 0.0, iters)
                      : schedule == 1 ? tg::detail::pagerank_with<PullSchedule::vector_lanes>(g, r, 0.85, 0.0, iters)
                                      : tg::detail::pagerank_with<PullSchedule::merge_path>(g, r, 0.85, 0.0, iters);
      EXPECT_EQ(ran, iters);
      auto got = tg::detail::to_host_vector(r.view());
      for (std::size_t v = 0; v < want.size(); ++v) ASSERT_NEAR(got[v], want[v], 1e-10) << v;
    }
  };
  check_schedules(G(el, tg::build_options::simple()), true);
  check_schedules(B(el, tg::build_options::simple()), false);
  // Float ranks (half the memory traffic): the same iterates to float precision.
  auto check_float = [&](const auto& g, bool undirected) {
    using GG = std::decay_t<decltype(g)>;
    tg::vertex_property_map<GG, float> r(g);
    EXPECT_EQ(tg::pagerank(g, r, 0.85, 0.0, iters), iters);
    const auto want = graph_ref::pagerank(simple_adjacency(el, undirected), 0.85, iters);
    auto got = tg::detail::to_host_vector(r.view());
    for (std::size_t v = 0; v < want.size(); ++v) ASSERT_NEAR(got[v], want[v], 1e-6 * want[v] + 1e-9) << v;
  };
  check_float(G(el, tg::build_options::simple()), true);
  check_float(D(el, tg::build_options::simple()), false);
  // Stops on the L1 change.
  G g(el, tg::build_options::simple());
  tg::vertex_property_map<G, double> r(g);
  const int used = tg::pagerank(g, r, 0.85, 1e-6, 1000);
  EXPECT_GT(used, 3);
  EXPECT_LT(used, 1000);
  EXPECT_THROW(tg::pagerank(g, r, 1.5), std::runtime_error);
}

// Two stars joined at their centres: hubs of 9,000 and 5,000 in-edges, so
// the vector_lanes pull sums them in chunks (5 and 3 of kPullHubChunk) by a
// team each. Closed form: by symmetry the leaves of a star share one rank,
// and the fixed point of the four unknowns (centre and leaf of each star)
// is a 4x4 linear system, solved here by substitution. Every space, both
// schedules, both places for the sums. The tolerance stops short of the
// rounding floor: in doubles the iterates end in a two-cycle whose L1
// change is 8e-13 (the graph is bipartite, so the iteration's slowest mode
// alternates in sign).
TYPED_TEST(GraphAlgorithms, PageRankOfTwoJoinedStarsMatchesTheClosedForm) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using tg::detail::PullSchedule;
  using tg::detail::PullSums;
  const std::int64_t ka = 9000, kb = 5000, n = 2 + ka + kb;
  static_assert(5000 >= tg::detail::kPullHubDegree, "the smaller star must be a hub too");
  tg::edge_list el;
  el.num_vertices = n;
  el.add(0, 1);  // the centres: 0 (leaves 2 .. ka+1) and 1 (leaves ka+2 ..)
  for (std::int64_t i = 0; i < ka; ++i) el.add(0, 2 + i);
  for (std::int64_t i = 0; i < kb; ++i) el.add(1, 2 + ka + i);
  const G g(el, tg::build_options::simple());
  // Fixed point, d = 0.85, no dangling vertices (every vertex has an edge):
  //   la = e + d A / (ka + 1),  lb = e + d B / (kb + 1),  e = (1 - d) / n
  //   A = e + d (ka la + B / (kb + 1)),  B = e + d (kb lb + A / (ka + 1)).
  // Substituting la and lb: A = a0 + a1 A + a2 B and B = b0 + b1 B + b2 A.
  const double d = 0.85, e = (1 - d) / double(n), pa = double(ka + 1), pb = double(kb + 1);
  const double a0 = e + d * double(ka) * e, a1 = d * d * double(ka) / pa, a2 = d / pb;
  const double b0 = e + d * double(kb) * e, b1 = d * d * double(kb) / pb, b2 = d / pa;
  // (1 - a1) A - a2 B = a0;  -b2 A + (1 - b1) B = b0.
  const double det = (1 - a1) * (1 - b1) - a2 * b2;
  const double A = (a0 * (1 - b1) + a2 * b0) / det, B = ((1 - a1) * b0 + b2 * a0) / det;
  const double la = e + d * A / pa, lb = e + d * B / pb;
  auto run = [&](int schedule, int sums, const tg::vertex_property_map<G, double>& r) {
    if (schedule == 2)
      return sums ? tg::detail::pagerank_with<PullSchedule::merge_path, PullSums::device>(g, r, d, 1e-11, 500)
                  : tg::detail::pagerank_with<PullSchedule::merge_path, PullSums::host>(g, r, d, 1e-11, 500);
    if (schedule == 1)
      return sums ? tg::detail::pagerank_with<PullSchedule::vector_lanes, PullSums::device>(g, r, d, 1e-11, 500)
                  : tg::detail::pagerank_with<PullSchedule::vector_lanes, PullSums::host>(g, r, d, 1e-11, 500);
    return sums ? tg::detail::pagerank_with<PullSchedule::vertex_blocks, PullSums::device>(g, r, d, 1e-11, 500)
                : tg::detail::pagerank_with<PullSchedule::vertex_blocks, PullSums::host>(g, r, d, 1e-11, 500);
  };
  // merge_path: the hubs' lists split over many work items (the carries).
  for (int schedule = 0; schedule < 3; ++schedule)
    for (int sums = 0; sums < 2; ++sums) {
      SCOPED_TRACE(std::string(schedule == 2 ? "merge_path" : schedule ? "vector_lanes" : "vertex_blocks") +
                   (sums ? ", device sums" : ", host sums"));
      tg::vertex_property_map<G, double> r(g);
      const int it = run(schedule, sums, r);
      EXPECT_LT(it, 500);
      const auto got = tg::detail::to_host_vector(r.view());
      EXPECT_NEAR(got[0], A, 1e-9 * A);
      EXPECT_NEAR(got[1], B, 1e-9 * B);
      for (std::int64_t i = 0; i < ka; i += 997) ASSERT_NEAR(got[std::size_t(2 + i)], la, 1e-9 * la) << i;
      for (std::int64_t i = 0; i < kb; i += 499) ASSERT_NEAR(got[std::size_t(2 + ka + i)], lb, 1e-9 * lb) << i;
    }
}

// The merge_path pull's in-neighbour sums (detail/pagerank_merge_path.hpp)
// against sums taken directly from the edge list, for shares of 1 to 4,096
// steps: rows ending at a share's first or last step, runs of empty rows
// (Kronecker's isolated vertices), and a hub of 3,000 in-edges open over
// many shares (the carries), on every space.
TYPED_TEST(GraphAlgorithms, MergePathInSumsMatchTheEdgeListForEveryShareSize) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using Exec = typename G::execution_space;
  using SS = typename G::space_type;
  tg::edge_list el = tg::kronecker(8, 4, 5);
  const std::int64_t hub = el.num_vertices;
  el.num_vertices += 3001;
  for (std::int64_t i = 1; i <= 3000; ++i) el.add(hub, hub + i);
  const G g(el, tg::build_options::simple());
  const std::int64_t n = g.num_vertices();
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> c(static_cast<std::size_t>(n));
  for (double& x : c) x = u(rng);
  tessera::View<double*, SS> contrib("contrib", n);
  auto contrib_h = tessera::create_mirror_view(contrib);
  for (std::int64_t v = 0; v < n; ++v) contrib_h(v) = c[std::size_t(v)];
  tessera::deep_copy(contrib, contrib_h);
  const auto adj = simple_adjacency(el, true);
  std::vector<double> want(static_cast<std::size_t>(n), 0.0);
  for (std::int64_t v = 0; v < n; ++v)
    for (std::int64_t w : adj[std::size_t(v)]) want[std::size_t(v)] += c[std::size_t(w)];
  ASSERT_EQ(adj[std::size_t(hub)].size(), 3000u);
  for (std::int64_t per : {1, 2, 3, 5, 8, 33, 64, 4096}) {
    SCOPED_TRACE("steps per item " + std::to_string(per));
    const auto w = tg::detail::make_pull_merge<Exec, SS>(g, n, per);
    ASSERT_EQ(w.m, std::int64_t(g.num_stored_edges()));
    ASSERT_EQ(w.items, (n + w.m + per - 1) / per);
    tg::detail::merge_path_in_sums<Exec>(g, contrib, tg::detail::pull_base_value{0.0}, n, w);
    const auto got = tg::detail::to_host_vector(w.sums);
    for (std::int64_t v = 0; v < n; ++v)
      ASSERT_NEAR(got[std::size_t(v)], want[std::size_t(v)], 1e-12 * (1.0 + want[std::size_t(v)])) << "vertex " << v;
  }
}

// The GPU keeps the pull's sums on the device (PullSums::device: stopping
// rule applied by a one-thread kernel, state read every few iterations).
// On every space, with both schedules, it must give what the per-iteration
// host reads give: the same iteration count, and on host spaces the same
// ranks bit for bit (the same arithmetic in the same order); on a device
// within rounding (its base may be computed with a fused multiply-add).
TYPED_TEST(GraphAlgorithms, PageRankDeviceSumsMatchHostSums) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using B = tg::compressed_sparse_row_graph<tg::bidirectionalS, TypeParam>;
  using tg::detail::PullSchedule;
  using tg::detail::PullSums;
  constexpr bool host = tessera::is_host_execution_space<typename G::execution_space>::value;
  auto el = tg::kronecker(9, 8, 21);  // isolated (dangling) vertices included
  // (tolerance, max iterations): every iteration; stops on the tolerance at
  // different points of the device loop's batches of 8; caps at a batch's
  // end (16) and inside a batch (13); no iteration at all.
  const std::vector<std::pair<double, int>> runs{{0.0, 20}, {1e-2, 1000}, {1e-6, 1000}, {1e-9, 16}, {1e-12, 13}, {1e-6, 0}};
  auto check = [&](const auto& g) {
    using GG = std::decay_t<decltype(g)>;
    for (const auto& [tol, max_it] : runs) {
      for (int schedule = 0; schedule < 3; ++schedule) {
        SCOPED_TRACE(std::string(schedule == 0 ? "vertex_blocks" : schedule == 1 ? "vector_lanes" : "merge_path") +
                     ", tolerance " + std::to_string(tol) + ", at most " + std::to_string(max_it));
        tg::vertex_property_map<GG, double> on_host(g), on_device(g);
        int a = 0, b = 0;
        if (schedule == 0) {
          a = tg::detail::pagerank_with<PullSchedule::vertex_blocks, PullSums::host>(g, on_host, 0.85, tol, max_it);
          b = tg::detail::pagerank_with<PullSchedule::vertex_blocks, PullSums::device>(g, on_device, 0.85, tol, max_it);
        } else if (schedule == 2) {
          a = tg::detail::pagerank_with<PullSchedule::merge_path, PullSums::host>(g, on_host, 0.85, tol, max_it);
          b = tg::detail::pagerank_with<PullSchedule::merge_path, PullSums::device>(g, on_device, 0.85, tol, max_it);
        } else {
          a = tg::detail::pagerank_with<PullSchedule::vector_lanes, PullSums::host>(g, on_host, 0.85, tol, max_it);
          b = tg::detail::pagerank_with<PullSchedule::vector_lanes, PullSums::device>(g, on_device, 0.85, tol, max_it);
        }
        EXPECT_EQ(a, b);
        if (tol == 0.0 || max_it == 0) {
          EXPECT_EQ(b, max_it);
        } else if (max_it == 1000) {
          EXPECT_LT(b, max_it);
        }
        const auto x = tg::detail::to_host_vector(on_host.view());
        const auto y = tg::detail::to_host_vector(on_device.view());
        for (std::size_t v = 0; v < x.size(); ++v) {
          if (host) {
            ASSERT_EQ(x[v], y[v]) << v;
          } else {
            ASSERT_NEAR(x[v], y[v], 1e-14) << v;
          }
        }
      }
    }
  };
  check(G(el, tg::build_options::simple()));
  check(B(el, tg::build_options::simple()));
}

TYPED_TEST(GraphAlgorithms, TrianglesEnumeratedOnceInOrder) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using V = typename G::vertex_descriptor;
  for (auto& sh : shapes()) {
    SCOPED_TRACE(sh.name);
    G g(sh.el);  // with duplicates and loops: must still count simple triangles
    auto want = graph_ref::triangles(simple_adjacency(sh.el, true));
    const std::int64_t cap = std::int64_t(want.size()) + 1;
    tessera::View<std::int64_t**, TypeParam> found("found", cap, 3);
    tessera::View<std::int64_t*, TypeParam> n("n", 1);
    const auto count = tg::find_triangles(g, TESSERA_LAMBDA(V u, V v, V w) {
      const auto k = tessera::atomic_fetch_add(&n(0), std::int64_t(1));
      if (k < cap) found(k, 0) = u, found(k, 1) = v, found(k, 2) = w;
    });
    ASSERT_EQ(count, std::int64_t(want.size()));
    EXPECT_EQ(tg::count_triangles(g), count);
    EXPECT_EQ(tg::count_triangles(g, tg::triangle_order::by_id), count);
    EXPECT_EQ(tg::count_triangles(g, tg::triangle_order::by_degree), count);
    auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), found);
    std::vector<std::array<std::int64_t, 3>> got;
    for (std::int64_t k = 0; k < count; ++k) {
      got.push_back({h(k, 0), h(k, 1), h(k, 2)});
      ASSERT_TRUE(h(k, 0) < h(k, 1) && h(k, 1) < h(k, 2));
    }
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want);
    // The degree orientation finds every triangle at another vertex, by
    // every schedule (the host's relabelled orientation with byte marks, bit
    // marks or merges; the GPU's lanes per oriented edge, here with 2 lanes
    // so odd lists split unevenly); the visitor still gets each once, in
    // increasing order.
    const auto record = TESSERA_LAMBDA(V u, V v, V w) {
      const auto k = tessera::atomic_fetch_add(&n(0), std::int64_t(1));
      if (k < cap) found(k, 0) = u, found(k, 1) = v, found(k, 2) = w;
    };
    using Schedule = tg::detail::TriangleSchedule;
    using Marks = tg::detail::TriangleMarks;
    struct Run {
      Schedule schedule;
      Marks marks;
    };
    for (const Run run : {Run{Schedule::vertex_marks, Marks::bytes}, Run{Schedule::vertex_marks, Marks::bits},
                          Run{Schedule::vertex_marks, Marks::none}, Run{Schedule::vertex_marks, Marks::automatic},
                          Run{Schedule::vertex_merge, Marks::automatic}, Run{Schedule::edge_lanes, Marks::automatic}}) {
      SCOPED_TRACE(::testing::Message() << "schedule " << int(run.schedule) << ", marks " << int(run.marks));
      tessera::deep_copy(n, std::int64_t(0));
      const std::int64_t got_count =
          run.schedule == Schedule::vertex_marks
              ? tg::detail::find_triangles_with<Schedule::vertex_marks>(g, record, tg::triangle_order::by_degree, 32,
                                                                        run.marks)
          : run.schedule == Schedule::vertex_merge
              ? tg::detail::find_triangles_with<Schedule::vertex_merge>(g, record, tg::triangle_order::by_degree)
              : tg::detail::find_triangles_with<Schedule::edge_lanes>(g, record, tg::triangle_order::by_degree, 2);
      ASSERT_EQ(got_count, count);
      tessera::deep_copy(h, found);
      got.clear();
      for (std::int64_t k = 0; k < count; ++k) {
        got.push_back({h(k, 0), h(k, 1), h(k, 2)});
        ASSERT_TRUE(h(k, 0) < h(k, 1) && h(k, 1) < h(k, 2));
      }
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, want);
    }
  }
}

// The host's by_degree schedule (vertex_marks: the relabelled orientation,
// u's out-list marked in an array per thread) with each kind of marks, and
// the merge it falls back to: brute-force counts on a Kronecker graph kept
// with its repeated edges and self-loops (hubs, and ids over many 64-bit
// words of bit marks), closed forms on a clique, on a triangulated grid with
// a hub joined to every vertex and on one triangle (fewer vertices than
// teams), and nothing on graphs without triangles or vertices. On a GPU
// space vertex_marks is the merge.
TYPED_TEST(GraphAlgorithms, TriangleMarksScheduleMatchesReferences) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using Marks = tg::detail::TriangleMarks;
  const auto count_with = [](const G& g, Marks marks) {
    return tg::detail::find_triangles_with<tg::detail::TriangleSchedule::vertex_marks>(
        g, tg::detail::no_triangle_visitor{}, tg::triangle_order::by_degree, 32, marks);
  };
  const Marks all[] = {Marks::automatic, Marks::bytes, Marks::bits, Marks::none};
  auto kel = tg::kronecker(12, 16, 5);
  for (std::int64_t i = 0; i < 300; ++i) kel.add(kel.src[i], kel.dst[i]);  // repeated edges
  for (std::int64_t v = 0; v < 50; ++v) kel.add(v, v);                      // self-loops
  G k(kel);
  const auto want_k = std::int64_t(graph_ref::triangles(simple_adjacency(kel, true)).size());
  EXPECT_GT(want_k, 0);
  for (const Marks m : all) EXPECT_EQ(count_with(k, m), want_k) << "marks " << int(m);

  const tg::edge_list clique = complete_graph(30);
  const std::int64_t R = 19, C = 23;
  G kn(clique), hub(triangulated_grid(R, C, true));
  tg::edge_list one;
  one.num_vertices = 3;
  one.add(0, 1), one.add(1, 2), one.add(2, 0);
  G k3(one);
  tg::edge_list none;
  none.num_vertices = 5;
  tg::edge_list empty;
  for (const Marks m : all) {
    SCOPED_TRACE(::testing::Message() << "marks " << int(m));
    EXPECT_EQ(count_with(kn, m), 30 * 29 * 28 / 6);
    EXPECT_EQ(count_with(hub, m), 2 * (R - 1) * (C - 1) + triangulated_grid_edges(R, C));
    EXPECT_EQ(count_with(k3, m), 1);
    EXPECT_EQ(count_with(G(tg::grid_2d(40, 30)), m), 0);
    EXPECT_EQ(count_with(G(none), m), 0);
    EXPECT_EQ(count_with(G(empty), m), 0);
  }
}

// The GPU's by_degree schedule (edge_lanes: the orientation in the graph's
// own ids, a team rank's lanes per oriented edge) on every space, lane
// counts from 1 to a warp: brute-force counts on a Kronecker graph kept with
// its repeated edges and self-loops, closed forms on a clique (every degree
// equal: the order is by id alone) and on a triangulated grid with a hub
// joined to every vertex, and nothing on graphs without triangles.
TYPED_TEST(GraphAlgorithms, TriangleEdgeLanesScheduleMatchesReferences) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  const auto count_with = [](const G& g, int lanes) {
    return tg::detail::find_triangles_with<tg::detail::TriangleSchedule::edge_lanes>(
        g, tg::detail::no_triangle_visitor{}, tg::triangle_order::by_degree, lanes);
  };
  auto kel = tg::kronecker(11, 16, 9);
  for (std::int64_t i = 0; i < 200; ++i) kel.add(kel.src[i], kel.dst[i]);  // repeated edges
  for (std::int64_t v = 0; v < 50; ++v) kel.add(v, v);                      // self-loops
  G k(kel);
  const auto want_k = std::int64_t(graph_ref::triangles(simple_adjacency(kel, true)).size());
  EXPECT_GT(want_k, 0);
  for (const int lanes : {1, 2, 8, 32}) EXPECT_EQ(count_with(k, lanes), want_k) << lanes << " lanes";

  const tg::edge_list clique = complete_graph(30);
  G kn(clique);
  for (const int lanes : {1, 32}) EXPECT_EQ(count_with(kn, lanes), 30 * 29 * 28 / 6) << lanes << " lanes";

  const std::int64_t R = 19, C = 23;
  G h(triangulated_grid(R, C, true));
  for (const int lanes : {2, 32})
    EXPECT_EQ(count_with(h, lanes), 2 * (R - 1) * (C - 1) + triangulated_grid_edges(R, C)) << lanes;

  G grid(tg::grid_2d(40, 30));
  EXPECT_EQ(count_with(grid, 32), 0);
  tg::edge_list none;
  none.num_vertices = 5;
  EXPECT_EQ(count_with(G(none), 32), 0);
  for (const int lanes : {0, 3}) {
    try {
      count_with(kn, lanes);
      ADD_FAILURE() << lanes << " lanes per edge accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(std::to_string(lanes) + " lanes per edge; a power of two"), std::string::npos)
          << e.what();
    }
  }
}

// Known counts: a Kronecker graph is skewed (automatic picks the degree
// order), a grid is not and has no triangles, K_n has C(n, 3).
TYPED_TEST(GraphAlgorithms, TriangleCountsOnSkewedAndRegularGraphs) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  auto kel = tg::kronecker(11, 16, 9);
  G k(kel, tg::build_options::simple());
  EXPECT_TRUE(tg::detail::degrees_skewed(k));
  const auto want = std::int64_t(graph_ref::triangles(simple_adjacency(kel, true)).size());
  EXPECT_EQ(tg::count_triangles(k, tg::triangle_order::by_degree), want);
  EXPECT_EQ(tg::count_triangles(k, tg::triangle_order::by_id), want);
  EXPECT_EQ(tg::count_triangles(k), want);
  G grid(tg::grid_2d(40, 30));
  EXPECT_FALSE(tg::detail::degrees_skewed(grid));
  EXPECT_EQ(tg::count_triangles(grid), 0);
  EXPECT_EQ(tg::count_triangles(grid, tg::triangle_order::by_degree), 0);
  tg::edge_list clique;
  clique.num_vertices = 30;
  for (int i = 0; i < 30; ++i)
    for (int j = 0; j < 30; ++j)
      if (i != j) clique.add(i, j);
  G kn(clique);
  for (auto o : {tg::triangle_order::automatic, tg::triangle_order::by_id, tg::triangle_order::by_degree})
    EXPECT_EQ(tg::count_triangles(kn, o), 30 * 29 * 28 / 6);
}

// Both paths of automatic, with expected counts from outside the code: a
// grid with one diagonal per cell has 2 (R-1)(C-1) triangles and is not
// skewed (by_id); the same grid with a hub joined to every vertex adds one
// triangle per grid edge, R(C-1) + C(R-1) + (R-1)(C-1) (the sampled test
// need not see the hub; by_id must stay exact and not merge the hub's list
// quadratically); a uniform random graph is not skewed (brute force); a
// Kronecker graph is (brute force).
TYPED_TEST(GraphAlgorithms, TriangleCountsOnBothAutomaticPaths) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  const std::int64_t R = 37, C = 53;
  const std::int64_t grid_edges = triangulated_grid_edges(R, C);
  const std::int64_t cells = 2 * (R - 1) * (C - 1);
  G g(triangulated_grid(R, C, false));
  EXPECT_FALSE(tg::detail::degrees_skewed(g));
  for (auto o : {tg::triangle_order::automatic, tg::triangle_order::by_id, tg::triangle_order::by_degree})
    EXPECT_EQ(tg::count_triangles(g, o), cells) << int(o);

  const tg::edge_list hub = triangulated_grid(R, C, true);
  G h(hub);
  for (auto o : {tg::triangle_order::automatic, tg::triangle_order::by_id, tg::triangle_order::by_degree})
    EXPECT_EQ(tg::count_triangles(h, o), cells + grid_edges) << int(o);
  // The hub in the middle of the ids instead of last: the grid vertices
  // above it intersect their short lists with its long one.
  const std::int64_t N = R * C + 1, shift = N / 2;
  tg::edge_list hub0;
  hub0.num_vertices = N;
  for (std::int64_t k = 0; k < hub.size(); ++k) hub0.add((hub.src[k] + shift) % N, (hub.dst[k] + shift) % N);
  G h0(hub0);
  for (auto o : {tg::triangle_order::automatic, tg::triangle_order::by_id, tg::triangle_order::by_degree})
    EXPECT_EQ(tg::count_triangles(h0, o), cells + grid_edges) << int(o);

  auto rel = tg::erdos_renyi(3000, 24000, 5);
  G r(rel);
  EXPECT_FALSE(tg::detail::degrees_skewed(r));
  const auto want_r = std::int64_t(graph_ref::triangles(simple_adjacency(rel, true)).size());
  EXPECT_GT(want_r, 0);
  for (auto o : {tg::triangle_order::automatic, tg::triangle_order::by_id, tg::triangle_order::by_degree})
    EXPECT_EQ(tg::count_triangles(r, o), want_r) << int(o);

  auto kel = tg::kronecker(12, 8, 3);
  G k(kel);
  EXPECT_TRUE(tg::detail::degrees_skewed(k));
  const auto want_k = std::int64_t(graph_ref::triangles(simple_adjacency(kel, true)).size());
  for (auto o : {tg::triangle_order::automatic, tg::triangle_order::by_id, tg::triangle_order::by_degree})
    EXPECT_EQ(tg::count_triangles(k, o), want_k) << int(o);
}

TYPED_TEST(GraphAlgorithms, DeltaSteppingMatchesDijkstra) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using D = tg::compressed_sparse_row_graph<tg::directedS, TypeParam>;
  auto el = random_edges(700, 3000, 31);
  for (std::int64_t i = 0; i < el.size(); ++i) el.weights.push_back(double((i * 7919) % 100) / 10.0);  // zeros included
  auto run = [&](auto tag, bool undirected, double delta) {
    using GG = decltype(tag);
    tessera::View<std::int64_t*, typename GG::space_type> origin;
    GG g(el, tg::build_options::simple(), &origin);
    tg::edge_property_map<GG, double> w(g);
    auto wv = w.view();
    auto hw = tg::detail::to_space<double, typename GG::space_type>("w", el.weights);
    gather_weights<TypeParam>(w.size(), wv, hw, origin);
    tg::vertex_property_map<GG, double> dist(g);
    tg::delta_stepping_shortest_paths(g, 0, w, dist, delta);
    // Reference on the same simple graph (first weight of repeated edges wins, as in the build).
    auto want = graph_ref::dijkstra(simple_weighted_adjacency(el, undirected), 0);
    auto got = tg::detail::to_host_vector(dist.view());
    for (std::size_t v = 0; v < want.size(); ++v) ASSERT_NEAR(got[v], want[v], 1e-9) << v;
    deep_put(w, 0, -1.0);
    EXPECT_THROW(tg::delta_stepping_shortest_paths(g, 0, w, dist), std::runtime_error);
  };
  run(G(), true, 0.0);
  run(G(), true, 0.3);
  run(D(), false, 5.0);
}

// Large enough that rounds run in parallel (frontiers of thousands of edges)
// and workers drain their own bins of the current bucket; bucket widths from
// below the smallest weight to above the largest distance (one bucket).
TYPED_TEST(GraphAlgorithms, DeltaSteppingOnALargeGraphMatchesDijkstraForEveryBucketWidth) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  const std::int64_t n = 20000;
  auto el = random_edges(n, 160000, 77);
  for (std::int64_t i = 0; i < el.size(); ++i) el.weights.push_back(double(1 + (i * 7919) % 255));
  tessera::View<std::int64_t*, typename G::space_type> origin;
  G g(el, tg::build_options::simple(), &origin);
  tg::edge_property_map<G, double> w(g);
  auto hw = tg::detail::to_space<double, typename G::space_type>("w", el.weights);
  gather_weights<TypeParam>(w.size(), w.view(), hw, origin);
  const auto want = graph_ref::dijkstra(simple_weighted_adjacency(el, true), 5);
  for (double delta : {0.5, 1.0, 16.0, 255.0, 1e9}) {
    tg::vertex_property_map<G, double> dist(g);
    tg::delta_stepping_shortest_paths(g, 5, w, dist, delta);
    const auto got = tg::detail::to_host_vector(dist.view());
    for (std::size_t v = 0; v < want.size(); ++v) ASSERT_EQ(got[v], want[v]) << "vertex " << v << ", delta " << delta;
  }
}
