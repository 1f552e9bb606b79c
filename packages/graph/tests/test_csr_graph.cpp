// compressed_sparse_row_graph: parallel build (sort, dedupe, loops,
// symmetrize, transpose), the generic API, edge indices, errors.
#include "graph_test_util.hpp"

#include <algorithm>
#include <map>

using namespace graph_test;

template <class Space>
class CsrGraph : public SpaceTest<Space> {};
TYPED_TEST_SUITE(CsrGraph, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(CsrGraph, UndirectedSimpleBuildMatchesReference) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  for (auto [n, m, seed] : {std::tuple{1, 3, 1u}, {7, 30, 2u}, {200, 900, 3u}, {5000, 20000, 4u}}) {
    auto el = random_edges(n, m, seed);
    G g(el, tg::build_options::simple());
    auto ref = simple_adjacency(el, true);
    EXPECT_EQ(rows_of(g), ref) << "n=" << n;
    std::int64_t m_ref = 0;
    for (auto& r : ref) m_ref += std::int64_t(r.size());
    EXPECT_EQ(tg::num_edges(g), m_ref / 2);
    EXPECT_EQ(tg::num_vertices(g), n);
  }
}

TYPED_TEST(CsrGraph, UndirectedEdgeIndicesAreSharedByBothDirectionsAndDense) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  // Keep duplicates and loops: the k-th copy of {u,v} pairs with the k-th copy in the twin row.
  tg::edge_list el;
  el.num_vertices = 6;
  for (auto [u, v] : {std::pair{0, 1}, {1, 0}, {0, 1}, {2, 2}, {3, 4}, {4, 5}, {5, 3}, {2, 2}, {1, 2}})
    el.add(u, v);
  G g(el);
  ASSERT_EQ(tg::num_edges(g), 9);
  tessera::View<std::int64_t**, TypeParam> seen("seen", 9, 3);  // count, src, dst
  using V = typename tg::graph_traits<G>::vertex_descriptor;
  tg::forall_vertices(g, TESSERA_LAMBDA(V v) {
    for (auto e : tg::out_edges(v, g)) {
      const auto id = tg::get_edge_index(e, g);
      tessera::atomic_inc(&seen(id, 0));
      tessera::atomic_add(&seen(id, 1), std::int64_t(tg::source(e, g) + tg::target(e, g)));
      tessera::atomic_add(&seen(id, 2), std::int64_t(tg::source(e, g) * tg::target(e, g)));
    }
  });
  auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), seen);
  std::multiset<std::pair<std::int64_t, std::int64_t>> got, want;
  for (int id = 0; id < 9; ++id) {
    const std::int64_t c = h(id, 0);
    // A loop is stored once; any other edge is seen from both ends with the same (sum, product).
    ASSERT_TRUE(c == 1 || c == 2) << "edge index " << id << " seen " << c << " times";
    got.insert({h(id, 1) / c, h(id, 2) / c});
  }
  for (std::size_t i = 0; i < el.src.size(); ++i) want.insert({el.src[i] + el.dst[i], el.src[i] * el.dst[i]});
  EXPECT_EQ(got, want);
}

TYPED_TEST(CsrGraph, DirectedKeepsDuplicatesAndLoopsUnlessAsked) {
  using G = tg::compressed_sparse_row_graph<tg::directedS, TypeParam>;
  tg::edge_list el;
  el.num_vertices = 4;
  for (auto [u, v] : {std::pair{3, 0}, {0, 1}, {0, 1}, {1, 1}, {2, 3}, {0, 3}}) el.add(u, v);
  G all(el);
  EXPECT_EQ(tg::num_edges(all), 6);
  EXPECT_EQ(rows_of(all), (std::vector<std::vector<std::int64_t>>{{1, 1, 3}, {1}, {3}, {0}}));
  G simple(el, tg::build_options::simple());
  EXPECT_EQ(tg::num_edges(simple), 4);
  EXPECT_EQ(rows_of(simple), (std::vector<std::vector<std::int64_t>>{{1, 3}, {}, {3}, {0}}));
  G noloops(el, tg::build_options{true, false});
  EXPECT_EQ(tg::num_edges(noloops), 5);
}

// Undirected: the in-edges of v are its edges seen from the other end, as a
// bidirectional graph's are: (u -> v) for each neighbour u, in row order,
// each with the index of the same undirected edge.
TYPED_TEST(CsrGraph, UndirectedInEdgesEndAtTheirVertex) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using V = typename tg::graph_traits<G>::vertex_descriptor;
  G g(random_edges(300, 2000, 13), tg::build_options::simple());
  tessera::View<std::int64_t*, TypeParam> bad("bad", 1);
  tg::forall_vertices(g, TESSERA_LAMBDA(V v) {
    const auto in = tg::in_edges(v, g);
    const auto out = tg::out_edges(v, g);
    if (in.end() - in.begin() != out.end() - out.begin()) tessera::atomic_inc(&bad(0));
    auto it = in.begin();
    for (auto jt = out.begin(); jt != out.end(); ++jt, ++it) {
      const auto ei = *it, eo = *jt;
      if (tg::target(ei, g) != v || tg::source(ei, g) != tg::target(eo, g) ||
          tg::get_edge_index(ei, g) != tg::get_edge_index(eo, g))
        tessera::atomic_inc(&bad(0));
    }
  });
  EXPECT_EQ(tg::detail::read_one(bad, 0), 0);
}

TYPED_TEST(CsrGraph, BidirectionalInEdgesAreTheTranspose) {
  using G = tg::compressed_sparse_row_graph<tg::bidirectionalS, TypeParam>;
  auto el = random_edges(300, 2000, 11);
  G g(el, tg::build_options::simple());
  auto out = simple_adjacency(el, false);
  const std::int64_t n = 300;
  // in-adjacency via the generic API, in kernels; check in-edge indices name the same out-edge.
  tessera::View<std::int64_t*, TypeParam> in_sum("in_sum", n), in_cnt("in_cnt", n), bad("bad", 1);
  using V = typename tg::graph_traits<G>::vertex_descriptor;
  tg::forall_vertices(g, TESSERA_LAMBDA(V v) {
    in_cnt(v) = tg::in_degree(v, g);
    for (auto e : tg::in_edges(v, g)) {
      in_sum(v) += tg::source(e, g);
      if (tg::target(e, g) != v) tessera::atomic_inc(&bad(0));
      // The in-edge's index is the slot of (source -> v) in the out rows.
      const auto u = tg::source(e, g);
      const auto k = tg::get_edge_index(e, g);
      if (k < g.row_begin(u) || k >= g.row_end(u) || g.entries_data()[k] != v) tessera::atomic_inc(&bad(0));
    }
  });
  auto hs = tessera::create_mirror_view_and_copy(tessera::HostSpace(), in_sum);
  auto hc = tessera::create_mirror_view_and_copy(tessera::HostSpace(), in_cnt);
  EXPECT_EQ(tg::detail::read_one(bad, 0), 0);
  std::vector<std::int64_t> ws(n, 0), wc(n, 0);
  for (std::int64_t u = 0; u < n; ++u)
    for (auto v : out[u]) ws[v] += u, ++wc[v];
  for (std::int64_t v = 0; v < n; ++v) {
    EXPECT_EQ(hs(v), ws[v]) << v;
    EXPECT_EQ(hc(v), wc[v]) << v;
  }
  EXPECT_EQ(rows_of(g), out);
}

TYPED_TEST(CsrGraph, EmptyAndEdgelessGraphs) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  tg::edge_list el;
  G g0(el);
  EXPECT_EQ(tg::num_vertices(g0), 0);
  EXPECT_EQ(tg::num_edges(g0), 0);
  el.num_vertices = 5;
  G g5(el);
  EXPECT_EQ(tg::num_vertices(g5), 5);
  EXPECT_EQ(rows_of(g5), std::vector<std::vector<std::int64_t>>(5));
}

TYPED_TEST(CsrGraph, OutOfRangeVertexIsNamed) {
  using G = tg::compressed_sparse_row_graph<tg::directedS, TypeParam>;
  tg::edge_list el;
  el.num_vertices = 3;
  el.add(0, 1);
  el.add(1, 2);
  el.add(2, 3);
  try {
    G g(el);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("edge 2 (2, 3)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[0, 3)"), std::string::npos) << e.what();
  }
  el.dst[2] = -1;
  EXPECT_THROW(G{el}, std::runtime_error);
  el.num_vertices = -2;
  EXPECT_THROW(G{el}, std::runtime_error);
}

TYPED_TEST(CsrGraph, BuildFromViewsAndCarryWeights) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  const int n = 50;
  tessera::View<long*, TypeParam> s("s", 3 * n), d("d", 3 * n);
  tessera::View<double*, TypeParam> w("w", 3 * n);
  // A ring given three times (as u->v, v->u and u->v again): weights of the first copy survive.
  tessera::parallel_for(tessera::RangePolicy<TypeParam>(0, n), TESSERA_LAMBDA(int i) {
    const int j = (i + 1) % n;
    s(i) = i, d(i) = j, w(i) = i;
    s(n + i) = j, d(n + i) = i, w(n + i) = -1;
    s(2 * n + i) = i, d(2 * n + i) = j, w(2 * n + i) = -2;
  });
  tessera::View<std::int64_t*, TypeParam> origin;
  G g(n, s, d, tg::build_options::simple(), &origin);
  ASSERT_EQ(tg::num_edges(g), n);
  ASSERT_EQ(std::int64_t(origin.extent(0)), n);
  tg::edge_property_map<G, double> wm(g, "weights");
  auto wv = wm.view();
  tessera::parallel_for(tessera::RangePolicy<TypeParam>(0, n), TESSERA_LAMBDA(int k) { wv(k) = w(origin(k)); });
  // Every edge {i, i+1} carries weight i from either end.
  tessera::View<int*, TypeParam> bad("bad", 1);
  using V = typename tg::graph_traits<G>::vertex_descriptor;
  tg::forall_vertices(g, TESSERA_LAMBDA(V v) {
    for (auto e : tg::out_edges(v, g)) {
      const int a = tg::source(e, g), b = tg::target(e, g);
      const int lo = (b == (a + 1) % n) ? a : b;
      if (tg::get(wm, e) != double(lo)) tessera::atomic_inc(&bad(0));
    }
  });
  EXPECT_EQ(tg::detail::read_one(bad, 0), 0);
}

TYPED_TEST(CsrGraph, HostEdgesIteratorListsEachEdgeOnce) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, tessera::HostSpace>;
  auto el = random_edges(100, 400, 5);
  G g(el, tg::build_options::simple());
  std::set<std::pair<std::int64_t, std::int64_t>> got;
  std::set<std::int64_t> ids;
  for (auto e : tg::edges(g)) {
    EXPECT_LE(tg::source(e, g), tg::target(e, g));
    got.insert({tg::source(e, g), tg::target(e, g)});
    ids.insert(tg::get_edge_index(e, g));
  }
  EXPECT_EQ(std::int64_t(got.size()), tg::num_edges(g));
  EXPECT_EQ(std::int64_t(ids.size()), tg::num_edges(g));
  std::set<std::pair<std::int64_t, std::int64_t>> want;
  for (std::size_t i = 0; i < el.src.size(); ++i)
    if (el.src[i] != el.dst[i]) want.insert({std::min(el.src[i], el.dst[i]), std::max(el.src[i], el.dst[i])});
  EXPECT_EQ(got, want);
  (void)sizeof(TypeParam);
}

namespace {
// Records, per discovered vertex, its tree edge's source and index: the
// index as the visitor's edges carry it (computed per slot, as nothing asked
// the graph for its stored ids). ReadsIndex = false says it reads none.
template <class S, bool ReadsIndex>
struct tree_edge_index_visitor : tg::default_bfs_visitor {
  static constexpr bool reads_edge_index = ReadsIndex;
  tessera::View<std::int64_t**, S> seen;  // (vertex, 0): parent; (vertex, 1): edge index
  template <class E, class GG>
  TESSERA_INLINE_FUNCTION void tree_edge(const E& e, const GG& g) const {
    seen(tg::target(e, g), 0) = tg::source(e, g);
    seen(tg::target(e, g), 1) = std::int64_t(e.id);
  }
};
}  // namespace

TYPED_TEST(CsrGraph, BfsTreeEdgesCarryTheStoredIndexUnlessTheVisitorReadsNone) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using S = typename G::space_type;
  // Dense enough that the search also runs bottom-up (whose tree edges are
  // the parent's row seen from the child), and both slots of edges occur.
  const G g(random_edges(3000, 40000, 11), tg::build_options::simple());
  const auto rows = rows_of(g);
  const auto rm = tg::detail::to_host_vector(g.row_map());
  for (const auto direction : {tg::bfs_direction::automatic, tg::bfs_direction::top_down}) {
    tessera::View<std::int64_t**, S> seen("seen", 3000, 2);
    tessera::deep_copy(seen, std::int64_t(-7));
    tg::bfs_options opts;
    opts.direction = direction;
    const auto r = tg::breadth_first_search(g, 5, tree_edge_index_visitor<S, true>{{}, seen}, opts);
    if (direction == tg::bfs_direction::automatic) {
      EXPECT_GT(r.bottom_up_levels, 0);
    }
    tessera::View<std::int64_t**, S> blind("blind", 3000, 2);
    tessera::deep_copy(blind, std::int64_t(-7));
    tg::breadth_first_search(g, 5, tree_edge_index_visitor<S, false>{{}, blind}, opts);
    ASSERT_FALSE(g.has_stored_edge_ids());
    const auto ids = tg::detail::to_host_vector(g.edge_ids());  // built now, from the rows
    const auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), seen);
    const auto hb = tessera::create_mirror_view_and_copy(tessera::HostSpace(), blind);
    std::int64_t tree_edges = 0;
    for (std::int64_t w = 0; w < 3000; ++w) {
      if (hb(w, 0) >= 0) {
        EXPECT_EQ(hb(w, 1), -1) << "a visitor that reads no index gets -1";
      }
      const std::int64_t u = h(w, 0);
      if (u < 0) continue;  // unreached, or the source
      ++tree_edges;
      // The stored index of {u, w}: its slot in u's row (a simple graph).
      const auto& row = rows[std::size_t(u)];
      const auto at = std::lower_bound(row.begin(), row.end(), w);
      ASSERT_TRUE(at != row.end() && *at == w) << u << " - " << w << " is not an edge";
      EXPECT_EQ(h(w, 1), ids[std::size_t(rm[std::size_t(u)] + (at - row.begin()))]) << "tree edge " << u << " - " << w;
    }
    EXPECT_GT(tree_edges, 2000);
  }
}

namespace {
// Counts, per edge index, the examine_edge events and the endpoints they
// name: a visitor that reads the index of every edge it examines.
template <class S>
struct examined_edge_visitor : tg::default_bfs_visitor {
  tessera::View<std::int64_t**, S> rec;  // (index, 0): events; 1: lower end; 2: upper end
  template <class E, class GG>
  TESSERA_INLINE_FUNCTION void examine_edge(const E& e, const GG& g) const {
    const std::int64_t a = tg::source(e, g), b = tg::target(e, g);
    tessera::atomic_inc(&rec(e.id, 0));
    rec(e.id, 1) = a < b ? a : b;
    rec(e.id, 2) = a < b ? b : a;
  }
};
}  // namespace

TYPED_TEST(CsrGraph, BfsExaminedEdgesCarryTheStoredIndex) {
  // Per-edge events hand the visitor every edge of the reached part from both
  // ends: each must carry the stored array's index of {u, w}, whichever slot
  // it was seen from.
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using S = typename G::space_type;
  const std::int64_t n = 1500;
  const G g(random_edges(n, 4000, 23), tg::build_options::simple());
  const std::int64_t m = tg::num_edges(g);
  const auto rows = rows_of(g);
  tessera::View<std::int64_t**, S> rec("rec", m, 3);
  const auto r = tg::breadth_first_search(g, 0, examined_edge_visitor<S>{{}, rec});
  // The reference: the source's component by a host search over the rows.
  std::vector<char> reached(std::size_t(n), 0);
  std::vector<std::int64_t> queue{0};
  reached[0] = 1;
  for (std::size_t q = 0; q < queue.size(); ++q)
    for (auto w : rows[std::size_t(queue[q])])
      if (!reached[std::size_t(w)]) reached[std::size_t(w)] = 1, queue.push_back(w);
  EXPECT_EQ(r.visited, std::int64_t(queue.size()));
  const auto ids = tg::detail::to_host_vector(g.edge_ids());
  const auto rm = tg::detail::to_host_vector(g.row_map());
  const auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), rec);
  std::int64_t examined = 0;
  for (std::int64_t u = 0; u < n; ++u) {
    const auto& row = rows[std::size_t(u)];
    for (std::size_t k = 0; k < row.size(); ++k) {
      const std::int64_t w = row[k], id = ids[std::size_t(rm[std::size_t(u)]) + k];
      if (u > w) continue;  // each edge once, from its lower end
      ASSERT_TRUE(id >= 0 && id < m);
      EXPECT_EQ(h(id, 0), reached[std::size_t(u)] ? 2 : 0) << "edge " << u << " - " << w;
      if (!reached[std::size_t(u)]) continue;
      ++examined;
      EXPECT_EQ(h(id, 1), u) << "edge " << id;
      EXPECT_EQ(h(id, 2), w) << "edge " << id;
    }
  }
  EXPECT_GT(examined, m / 2);
}

TYPED_TEST(CsrGraph, ForallAndReduceEdgesComputeIndicesWithoutStoringThem) {
  // Each undirected edge is visited from its lower end, whose index is O(1)
  // to compute: no schedule may need (or build) the stored array, and each
  // must hand out the stored array's indices.
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using S = typename G::space_type;
  using E = typename tg::graph_traits<G>::edge_descriptor;
  const G g(random_edges(2000, 12000, 17), tg::build_options::simple());
  const std::int64_t m = tg::num_edges(g);
  const std::size_t bytes = g.memory_bytes();
  std::vector<tessera::View<std::int64_t**, S>> seen;
  for (auto schedule : {tg::edge_schedule::vertex_loop, tg::edge_schedule::by_degree, tg::edge_schedule::edge_balanced}) {
    tessera::View<std::int64_t**, S> rec("rec", m, 3);  // (index, 0): visits; 1: source; 2: target
    tg::forall_edges(
        g,
        TESSERA_LAMBDA(const E& e) {
          tessera::atomic_inc(&rec(e.id, 0));
          rec(e.id, 1) = tg::source(e, g);
          rec(e.id, 2) = tg::target(e, g);
        },
        {.schedule = schedule});
    std::int64_t sum = 0;
    tg::reduce_edges(
        "sum_ids", g, TESSERA_LAMBDA(const E& e, std::int64_t& s) { s += std::int64_t(e.id); },
        tg::traversal_options{.schedule = schedule}, sum);
    EXPECT_EQ(sum, m * (m - 1) / 2) << "every index once";
    seen.push_back(rec);
  }
  EXPECT_FALSE(g.has_stored_edge_ids());
  EXPECT_EQ(g.memory_bytes(), bytes) << "forall_edges or reduce_edges stored edge ids";
  const auto ids = tg::detail::to_host_vector(g.edge_ids());
  const auto rm = tg::detail::to_host_vector(g.row_map());
  const auto rows = rows_of(g);
  for (const auto& rec : seen) {
    const auto h = tessera::create_mirror_view_and_copy(tessera::HostSpace(), rec);
    for (std::int64_t id = 0; id < m; ++id) {
      ASSERT_EQ(h(id, 0), 1) << "edge index " << id;
      const std::int64_t s = h(id, 1), t = h(id, 2);
      ASSERT_LE(s, t);
      const auto& row = rows[std::size_t(s)];
      const auto at = std::lower_bound(row.begin(), row.end(), t);
      ASSERT_TRUE(at != row.end() && *at == t);
      EXPECT_EQ(ids[std::size_t(rm[std::size_t(s)] + (at - row.begin()))], id) << s << " - " << t;
    }
  }
}
