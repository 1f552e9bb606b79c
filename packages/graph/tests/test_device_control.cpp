// The GPU's choices of where BFS and Afforest keep their control
// (BfsControl::device: the level loop decided on the device, the host reading
// the state every few levels; AfforestSample::device: the sample's most
// frequent label found by a reduction; SsspControl::device: delta-stepping's
// current bucket as a queue, the later ones as flags), run on every space and
// checked against serial references. On host spaces this is the only place these
// paths run before a GPU does.
#include "graph_reference.hpp"
#include "graph_test_util.hpp"

#include <limits>
#include <map>

using namespace graph_test;
using tg::detail::AfforestSample;
using tg::detail::BfsControl;

namespace {
struct shape {
  std::string name;
  tg::edge_list el;
};

std::vector<shape> shapes() {
  std::vector<shape> s;
  // 203 levels from an end: many state reads, and a level count that is no
  // multiple of 8 (short enough for 36 settings x 3 searches, the
  // host-controlled one blocking several times a level, on a GPU shared with
  // other test processes).
  tg::edge_list path;
  path.num_vertices = 203;
  for (int i = 0; i + 1 < 203; ++i) path.add(i, i + 1);
  s.push_back({"long_path", path});
  tg::edge_list star;  // the centre's degree is above bfs_device_heavy_degree: all threads expand it
  star.num_vertices = 701;
  for (int i = 1; i <= 700; ++i) star.add(0, i);
  s.push_back({"star", star});
  tg::edge_list pieces;  // cliques, a path piece and isolated vertices: most sources reach little
  pieces.num_vertices = 60;
  for (int base : {0, 12, 30})
    for (int i = 0; i < 6; ++i)
      for (int j = i + 1; j < 6; ++j) pieces.add(base + i, base + j);
  for (int i = 40; i < 55; ++i) pieces.add(i, i + 1);
  pieces.add(3, 3);
  s.push_back({"pieces", pieces});
  s.push_back({"grid", tg::grid_2d(45, 31)});
  s.push_back({"kronecker", tg::kronecker(12, 16, 3)});
  s.push_back({"random_multigraph", random_edges(900, 2500, 11)});
  return s;
}

template <BfsControl C, class G>
std::vector<int> levels_with(const G& g, const std::vector<std::int64_t>& sources, const tg::bfs_options& opt,
                             tg::bfs_result& res) {
  tg::vertex_property_map<G, std::int32_t> lv(g);
  res = tg::detail::breadth_first_search_with<C>(g, sources, tg::bfs_levels_visitor<G>(lv), opt);
  auto h = tg::detail::to_host_vector(lv.view());
  return std::vector<int>(h.begin(), h.end());
}

std::int64_t reached(const std::vector<int>& levels) {
  return std::count_if(levels.begin(), levels.end(), [](int l) { return l >= 0; });
}
}  // namespace

template <class Space>
class GraphDeviceControl : public SpaceTest<Space> {};
TYPED_TEST_SUITE(GraphDeviceControl, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

// Levels and parents of the device-controlled loop equal the serial BFS, for
// every direction setting; its bfs_result equals the host loop's (same
// switches at the same levels, so the same edge counts).
TYPED_TEST(GraphDeviceControl, BfsLevelsParentsAndCountsMatchTheReference) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using V = typename G::vertex_descriptor;
  for (auto& sh : shapes()) {
    SCOPED_TRACE(sh.name);
    G g(sh.el);
    auto adj = simple_adjacency(sh.el, true);
    std::int64_t hub = 0;
    for (std::int64_t v = 0; v < sh.el.num_vertices; ++v)
      if (adj[v].size() > adj[hub].size()) hub = v;
    for (std::vector<std::int64_t> src :
         {std::vector<std::int64_t>{0}, {hub}, {sh.el.num_vertices - 1, 5, 5}}) {
      const auto want = graph_ref::bfs_levels(adj, src);
      for (auto dir : {tg::bfs_direction::top_down, tg::bfs_direction::automatic})
        for (double alpha : {1e-9, 14.0})
          for (double beta : {1e-9, 24.0, 1e9}) {
            SCOPED_TRACE(testing::Message() << "source " << src[0] << " dir " << int(dir) << " alpha "
                                            << alpha << " beta " << beta);
            tg::bfs_options o;
            o.direction = dir;
            o.alpha = alpha;
            o.beta = beta;
            tg::bfs_result dev, hst;
            ASSERT_EQ(levels_with<BfsControl::device>(g, src, o, dev), want);
            EXPECT_EQ(dev.visited, reached(want));
            EXPECT_EQ(dev.levels, *std::max_element(want.begin(), want.end()) + 1);
            ASSERT_EQ(levels_with<BfsControl::host>(g, src, o, hst), want);
            EXPECT_EQ(dev.bottom_up_levels, hst.bottom_up_levels);
            EXPECT_EQ(dev.edges_traversed, hst.edges_traversed);
            if (dir == tg::bfs_direction::top_down) {
              EXPECT_EQ(dev.bottom_up_levels, 0);
            }
            tg::vertex_property_map<G, V> parents(g);
            tg::detail::breadth_first_search_with<BfsControl::device>(g, src,
                                                                      tg::bfs_parents_visitor<G>(parents), o);
            auto p = tg::detail::to_host_vector(parents.view());
            for (std::int64_t v = 0; v < sh.el.num_vertices; ++v) {
              if (want[v] <= 0) {
                ASSERT_EQ(p[v], want[v] < 0 ? V(-1) : V(v)) << v;
              } else {
                ASSERT_EQ(want[p[v]], want[v] - 1) << "parent of " << v;
                ASSERT_TRUE(std::binary_search(adj[v].begin(), adj[v].end(), std::int64_t(p[v]))) << v;
              }
            }
          }
    }
  }
}

// The Kronecker hub's search goes top-down, bottom-up and back: the device
// loop must take every switch (bitmap <-> queue conversions on the device).
TYPED_TEST(GraphDeviceControl, BfsSwitchesBothWaysOnKronecker) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  auto el = tg::kronecker(12, 16, 3);
  G g(el, tg::build_options::simple());
  auto adj = simple_adjacency(el, true);
  std::int64_t hub = 0;
  for (std::int64_t v = 0; v < el.num_vertices; ++v)
    if (adj[v].size() > adj[hub].size()) hub = v;
  const auto want = graph_ref::bfs_levels(adj, {hub});
  tg::bfs_result res;
  EXPECT_EQ(levels_with<BfsControl::device>(g, {hub}, {}, res), want);
  EXPECT_GT(res.bottom_up_levels, 0);
  EXPECT_LT(res.bottom_up_levels, res.levels - 1);
}

// Frontiers that come out empty at once, or never start: an isolated
// source (one level), a graph without edges, and no source at all.
TYPED_TEST(GraphDeviceControl, BfsEmptyFrontiers) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  tg::edge_list el;
  el.num_vertices = 130;
  el.add(0, 1);
  G g(el);
  auto adj = simple_adjacency(el, true);
  for (auto dir : {tg::bfs_direction::top_down, tg::bfs_direction::automatic}) {
    tg::bfs_result res;
    EXPECT_EQ(levels_with<BfsControl::device>(g, {77}, {dir}, res), graph_ref::bfs_levels(adj, {77}));
    EXPECT_EQ(res.visited, 1);
    EXPECT_EQ(res.levels, 1);
    EXPECT_EQ(res.edges_traversed, 0);
    EXPECT_EQ(levels_with<BfsControl::device>(g, {}, {dir}, res), std::vector<int>(130, -1));
    EXPECT_EQ(res.visited, 0);
    EXPECT_EQ(res.levels, 0);
  }
  tg::edge_list none;
  none.num_vertices = 5;
  G e(none);
  tg::bfs_result res;
  EXPECT_EQ(levels_with<BfsControl::device>(e, {2, 4}, {}, res), (std::vector<int>{-1, -1, 0, -1, 0}));
  EXPECT_EQ(res.visited, 2);
  EXPECT_EQ(res.levels, 1);
}

namespace {
// Examines and finishes by counting per vertex; filters out edges into
// multiples of 7 (so the search stays top-down and takes the visitor's
// filter and edge events).
template <class Space>
struct vertex_event_visitor : tg::default_bfs_visitor {
  tessera::View<std::int32_t*, Space> examined, finished, levels;
  template <class V, class G>
  TESSERA_INLINE_FUNCTION void initialize_vertex(V v, const G&) const {
    levels(v) = -1;
  }
  template <class V, class G>
  TESSERA_INLINE_FUNCTION void discover_vertex(V v, const G&) const {
    if (levels(v) < 0) levels(v) = 0;
  }
  template <class E, class G>
  TESSERA_INLINE_FUNCTION void tree_edge(const E& e, const G& g) const {
    levels(target(e, g)) = levels(source(e, g)) + 1;
  }
  template <class V, class G>
  TESSERA_INLINE_FUNCTION void examine_vertex(V v, const G&) const {
    tessera::atomic_inc(&examined(v));
  }
  template <class V, class G>
  TESSERA_INLINE_FUNCTION void finish_vertex(V v, const G&) const {
    tessera::atomic_inc(&finished(v));
  }
  template <class E, class G>
  TESSERA_INLINE_FUNCTION bool filter(const E& e, const G& g) const {
    return target(e, g) % 7 != 0;
  }
};
}  // namespace

TYPED_TEST(GraphDeviceControl, BfsVisitorEventsOnTheDeviceLoop) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  for (auto& sh : shapes()) {
    SCOPED_TRACE(sh.name);
    G g(sh.el);
    const std::int64_t n = sh.el.num_vertices;
    // The reference graph without edges into multiples of 7.
    auto adj = simple_adjacency(sh.el, true);
    for (auto& row : adj)
      row.erase(std::remove_if(row.begin(), row.end(), [](std::int64_t w) { return w % 7 == 0; }), row.end());
    const std::vector<std::int64_t> src{1};
    const auto want = graph_ref::bfs_levels(adj, src);
    vertex_event_visitor<TypeParam> vis;
    vis.examined = tessera::View<std::int32_t*, TypeParam>("examined", n);
    vis.finished = tessera::View<std::int32_t*, TypeParam>("finished", n);
    vis.levels = tessera::View<std::int32_t*, TypeParam>("levels", n);
    auto res = tg::detail::breadth_first_search_with<BfsControl::device>(g, src, vis, tg::bfs_options{});
    auto lv = tg::detail::to_host_vector(vis.levels);
    EXPECT_EQ(std::vector<int>(lv.begin(), lv.end()), want);
    EXPECT_EQ(res.bottom_up_levels, 0);
    EXPECT_EQ(res.visited, reached(want));
    auto ex = tg::detail::to_host_vector(vis.examined);
    auto fi = tg::detail::to_host_vector(vis.finished);
    for (std::int64_t v = 0; v < n; ++v) {
      ASSERT_EQ(ex[v], want[v] >= 0 ? 1 : 0) << v;
      ASSERT_EQ(fi[v], want[v] >= 0 ? 1 : 0) << v;
    }
  }
}

TYPED_TEST(GraphDeviceControl, DirectedBfsOnTheDeviceLoop) {
  using D = tg::compressed_sparse_row_graph<tg::directedS, TypeParam>;
  for (auto& sh : shapes()) {
    SCOPED_TRACE(sh.name);
    D d(sh.el);
    auto adj = simple_adjacency(sh.el, false);
    for (std::vector<std::int64_t> src : {std::vector<std::int64_t>{0}, {3, 9}}) {
      const auto want = graph_ref::bfs_levels(adj, src);
      tg::bfs_result res;
      EXPECT_EQ(levels_with<BfsControl::device>(d, src, {}, res), want);
      EXPECT_EQ(res.visited, reached(want));
      EXPECT_EQ(res.levels, *std::max_element(want.begin(), want.end()) + 1);
    }
  }
}

// Afforest with the sample counted on the device: the union-find partition,
// on connected, disconnected and directed graphs.
TYPED_TEST(GraphDeviceControl, ComponentsWithTheDeviceSampleMatchUnionFind) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using D = tg::compressed_sparse_row_graph<tg::directedS, TypeParam>;
  auto all = shapes();
  tg::edge_list halves;  // two equal paths: the sample's labels split about evenly
  halves.num_vertices = 4000;
  for (int i = 0; i + 1 < 2000; ++i) {
    halves.add(i, i + 1);
    halves.add(2000 + i, 2001 + i);
  }
  all.push_back({"two_halves", halves});
  all.push_back({"scattered", random_edges(3000, 1800, 5)});  // many small components
  for (auto& sh : all) {
    SCOPED_TRACE(sh.name);
    const auto want = graph_ref::components(simple_adjacency(sh.el, true));
    const auto k = std::int64_t(std::set<std::int64_t>(want.begin(), want.end()).size());
    G g(sh.el);
    tg::vertex_property_map<G, typename G::vertex_descriptor> c(g);
    EXPECT_EQ(tg::detail::connected_components_with<AfforestSample::device>(g, c), k);
    auto got = tg::detail::to_host_vector(c.view());
    EXPECT_EQ(std::vector<std::int64_t>(got.begin(), got.end()), want);
    D d(sh.el);
    tg::vertex_property_map<D, typename D::vertex_descriptor> cd(d);
    EXPECT_EQ(tg::detail::connected_components_with<AfforestSample::device>(d, cd), k);
    got = tg::detail::to_host_vector(cd.view());
    EXPECT_EQ(std::vector<std::int64_t>(got.begin(), got.end()), want);
  }
}

namespace {
// The host's rule, written out: the label whose count first exceeds the
// leader's becomes the leader.
std::int64_t first_to_lead(const std::vector<std::int64_t>& s) {
  std::map<std::int64_t, int> count;
  std::int64_t lead = s[0];
  int best = 0;
  for (auto x : s) {
    if (++count[x] > best) {
      best = count[x];
      lead = x;
    }
  }
  return lead;
}
}  // namespace

// Ties in the sample's label count go where the host count sends them: the
// label that reached the top count first in sample order.
TYPED_TEST(GraphDeviceControl, SampleLabelTiesResolveAsOnTheHost) {
  using S = typename TypeParam::memory_space;
  std::vector<std::vector<std::int64_t>> samples = {
      {7},
      {5, 3, 3, 5},                 // 3 reaches 2 first
      {5, 3, 5, 3},                 // 5 reaches 2 first
      {9, 8, 7, 6},                 // all once: the first
      {4, 4, 1, 1, 2, 2, 1},        // 1 leads alone at the end
      {2, 1, 1, 2, 3, 3, 3, 2, 1},  // three labels at 3: 3 gets there first
  };
  std::mt19937_64 rng(42);
  for (int size : {2, 10, 100, 1000, 1024})
    for (int labels : {2, 3, 17}) {
      std::vector<std::int64_t> s(size);
      for (auto& x : s) x = std::int64_t(rng() % labels) * 1000003;
      samples.push_back(s);
    }
  for (auto& s : samples) {
    SCOPED_TRACE(testing::Message() << "size " << s.size() << " first " << s[0]);
    auto dv = tg::detail::to_space<std::int64_t, S>("sample", s);
    tessera::View<tg::detail::sample_rank, S> best("best");
    tg::detail::most_frequent_sample_label<TypeParam>(dv, best);
    auto hb = tessera::create_mirror_view_and_copy(tessera::HostSpace(), best);
    ASSERT_GE(hb().loc, 0);
    ASSERT_LT(hb().loc, std::int64_t(s.size()));
    EXPECT_EQ(s[hb().loc], first_to_lead(s));
    EXPECT_EQ(hb().val, std::count(s.begin(), s.end(), first_to_lead(s)));
  }
}

namespace {
template <tg::detail::SsspControl C, class G, class W>
std::vector<double> sssp_with(const G& g, const W& w, std::int64_t s, double delta) {
  tg::vertex_property_map<G, double> dist(g);
  tg::detail::delta_stepping_shortest_paths_with<C>(g, s, w, dist, delta);
  return tg::detail::to_host_vector(dist.view());
}

// Weights 0.0 to 9.9 in steps of 0.1, zeros included, from the input edge's position.
void tenths_weights(tg::edge_list& el) {
  el.weights.clear();
  for (std::int64_t i = 0; i < el.size(); ++i) el.weights.push_back(double((i * 7919) % 100) / 10.0);
}
}  // namespace

// The device buckets (a queue for the current bucket, far flags for the
// rest) give Dijkstra's distances on every shape, from several sources, for
// bucket widths below the smallest non-zero weight, around the mean and
// above the largest distance (one bucket); on host spaces they give the same
// bits as the host bins.
TYPED_TEST(GraphDeviceControl, SsspDeviceBucketsMatchDijkstra) {
  using tg::detail::SsspControl;
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  for (auto& sh : shapes()) {
    SCOPED_TRACE(sh.name);
    tenths_weights(sh.el);
    tessera::View<std::int64_t*, typename G::space_type> origin;
    G g(sh.el, tg::build_options::simple(), &origin);
    tg::edge_property_map<G, double> w(g);
    auto hw = tg::detail::to_space<double, typename G::space_type>("w", sh.el.weights);
    gather_weights<TypeParam>(w.size(), w.view(), hw, origin);
    auto adj = simple_adjacency(sh.el, true);
    std::int64_t hub = 0;
    for (std::int64_t v = 0; v < sh.el.num_vertices; ++v)
      if (adj[v].size() > adj[hub].size()) hub = v;
    for (std::int64_t s : {std::int64_t(0), hub, sh.el.num_vertices - 1}) {
      const auto want = graph_ref::dijkstra(simple_weighted_adjacency(sh.el, true), s);
      // Every width from the first source; the mean weight's from the others
      // (a width of 0.05 costs a round per vertex on the long path).
      const std::vector<double> deltas =
          s == 0 ? std::vector<double>{0.0, 0.05, 3.0, 1e9} : std::vector<double>{0.0};
      for (double delta : deltas) {
        SCOPED_TRACE(testing::Message() << "source " << s << " delta " << delta);
        const auto got = sssp_with<SsspControl::device>(g, w, s, delta);
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t v = 0; v < want.size(); ++v) {
          if (want[v] == std::numeric_limits<double>::max()) {
            ASSERT_EQ(got[v], want[v]) << "vertex " << v << " is unreachable";
          } else {
            ASSERT_NEAR(got[v], want[v], 1e-9 * (1 + want[v])) << "vertex " << v;
          }
        }
        if constexpr (tessera::is_host_execution_space<TypeParam>::value) {
          ASSERT_EQ(sssp_with<SsspControl::host>(g, w, s, delta), got);
        }
      }
    }
  }
}

// The bucket width is the caller's to choose, and only the speed may depend
// on it. Widths 10^15 and 10^306 times below the distances: the host bins
// would number 10^18 and more by d / delta (they threw bad_alloc), and on the
// device a bucket's end lowest + delta rounded back to lowest (it never
// ended). Integer weights, so the sums are exact and both forms give
// Dijkstra's bits.
TYPED_TEST(GraphDeviceControl, SsspBucketWidthFarBelowTheDistances) {
  using tg::detail::SsspControl;
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  auto el = random_edges(3000, 12000, 41);
  for (std::int64_t i = 0; i < el.size(); ++i) el.weights.push_back(1e6 * double(1 + (i * 7919) % 97));
  tessera::View<std::int64_t*, typename G::space_type> origin;
  G g(el, tg::build_options::simple(), &origin);
  tg::edge_property_map<G, double> w(g);
  auto hw = tg::detail::to_space<double, typename G::space_type>("w", el.weights);
  gather_weights<TypeParam>(w.size(), w.view(), hw, origin);
  const auto want = graph_ref::dijkstra(simple_weighted_adjacency(el, true), 2);
  for (double delta : {1e-9, 1e-300}) {
    SCOPED_TRACE(testing::Message() << "delta " << delta);
    ASSERT_EQ(sssp_with<SsspControl::device>(g, w, 2, delta), want);
    if constexpr (tessera::is_host_execution_space<TypeParam>::value) {
      ASSERT_EQ(sssp_with<SsspControl::host>(g, w, 2, delta), want);
    }
  }
}

// Directed edges, vertices no path reaches, a source with no out-edge, and
// a graph without edges: unreached vertices keep max(); bad input is still
// refused before any bucket is built.
TYPED_TEST(GraphDeviceControl, SsspDeviceBucketsOnDirectedAndEdgelessGraphs) {
  using tg::detail::SsspControl;
  using D = tg::compressed_sparse_row_graph<tg::directedS, TypeParam>;
  constexpr double inf = std::numeric_limits<double>::max();
  auto el = random_edges(500, 1500, 5);
  for (std::int64_t v = 400; v < 500; ++v)
    el.add(v, v - 400);  // edges into the first 100, none out of them to 400+
  tenths_weights(el);
  tessera::View<std::int64_t*, typename D::space_type> origin;
  D g(el, tg::build_options::simple(), &origin);
  tg::edge_property_map<D, double> w(g);
  auto hw = tg::detail::to_space<double, typename D::space_type>("w", el.weights);
  gather_weights<TypeParam>(w.size(), w.view(), hw, origin);
  for (std::int64_t s : {std::int64_t(0), std::int64_t(450), std::int64_t(499)}) {
    const auto want = graph_ref::dijkstra(simple_weighted_adjacency(el, false), s);
    const auto got = sssp_with<SsspControl::device>(g, w, s, 0.5);
    for (std::size_t v = 0; v < want.size(); ++v) {
      if (want[v] == inf) {
        ASSERT_EQ(got[v], inf) << "source " << s << " vertex " << v;
      } else {
        ASSERT_NEAR(got[v], want[v], 1e-9 * (1 + want[v])) << "source " << s << " vertex " << v;
      }
    }
  }
  tg::edge_list none;
  none.num_vertices = 7;
  D e(none);
  tg::edge_property_map<D, double> ew(e);
  auto got = sssp_with<SsspControl::device>(e, ew, 3, 1.0);
  EXPECT_EQ(got, (std::vector<double>{inf, inf, inf, 0.0, inf, inf, inf}));
  tg::vertex_property_map<D, double> dist(g);
  EXPECT_THROW(tg::detail::delta_stepping_shortest_paths_with<SsspControl::device>(g, 500, w, dist),
               std::runtime_error);
  deep_put(w, 3, -1.0);
  EXPECT_THROW(tg::detail::delta_stepping_shortest_paths_with<SsspControl::device>(g, 0, w, dist),
               std::runtime_error);
}
