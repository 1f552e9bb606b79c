// The load-balanced traversal schedules (traversal_options.hpp): forall_edges,
// reduce_edges and advance visit every edge exactly once under every
// schedule, on every space, on graphs that stress them (a hub of degree
// 100000, one huge row among many empty ones, isolated vertices, degrees at
// the by_degree thresholds), and for frontiers with repeats or no entries.
// Expected counts and sums come from the graph's CSR arrays walked on the host.
#include "graph_test_util.hpp"

#include <map>

using namespace graph_test;

namespace {

// The schedules under test; small merge-path pieces and low by_degree
// thresholds make small graphs cross many piece and bin boundaries.
std::vector<std::pair<std::string, tg::traversal_options>> schedules() {
  using S = tg::edge_schedule;
  std::vector<std::pair<std::string, tg::traversal_options>> s;
  s.push_back({"automatic", {}});
  s.push_back({"vertex_loop", {.schedule = S::vertex_loop}});
  s.push_back({"by_degree", {.schedule = S::by_degree}});
  s.push_back({"by_degree 2/5", {.schedule = S::by_degree, .warp_degree = 2, .block_degree = 5}});
  s.push_back({"edge_balanced", {.schedule = S::edge_balanced}});
  s.push_back({"edge_balanced 1", {.schedule = S::edge_balanced, .steps_per_item = 1}});
  s.push_back({"edge_balanced 7", {.schedule = S::edge_balanced, .steps_per_item = 7}});
  s.push_back({"edge_balanced 32", {.schedule = S::edge_balanced, .steps_per_item = 32}});
  return s;
}

// The graph's CSR arrays on the host: the brute-force reference.
struct host_csr {
  std::vector<std::int64_t> row_map, entries, ids;  // ids: edge index of each slot
  std::int64_t n = 0;
};
template <class G>
host_csr host_arrays(const G& g) {
  host_csr h;
  h.n = tg::num_vertices(g);
  for (auto x : tg::detail::to_host_vector(g.row_map())) h.row_map.push_back(x);
  for (auto x : tg::detail::to_host_vector(g.entries())) h.entries.push_back(x);
  if constexpr (tg::is_undirected_graph_v<G>) {
    for (auto x : tg::detail::to_host_vector(g.edge_ids())) h.ids.push_back(x);
  } else {
    for (std::size_t j = 0; j < h.entries.size(); ++j) h.ids.push_back(std::int64_t(j));
  }
  return h;
}

// Key of a visited (u -> v, id): the id on directed graphs; on undirected
// ones 2 id + direction, so both sides of an edge are told apart.
template <bool Undirected>
TESSERA_INLINE_FUNCTION std::int64_t slot_key(std::int64_t u, std::int64_t v, std::int64_t id) {
  if constexpr (Undirected) return 2 * id + (u < v ? 0 : 1);
  else return id;
}

// forall_edges under every schedule: each edge once (undirected: from its
// lower end), with its own endpoints.
template <class G>
void check_forall_edges(const G& g, const host_csr& h) {
  using Space = typename G::space_type;
  using E = typename G::edge_descriptor;
  constexpr bool und = tg::is_undirected_graph_v<G>;
  const std::int64_t m = tg::num_edges(g);
  // Expected: every edge index once, with (src, tgt) from its slot.
  std::vector<std::int64_t> esrc(m, -1), etgt(m, -1);
  for (std::int64_t u = 0; u < h.n; ++u)
    for (std::int64_t j = h.row_map[u]; j < h.row_map[u + 1]; ++j)
      if (!und || u <= h.entries[j]) {
        esrc[h.ids[j]] = u;
        etgt[h.ids[j]] = h.entries[j];
      }
  for (const auto& [name, opts] : schedules()) {
    SCOPED_TRACE(name);
    tessera::View<std::int64_t*, Space> hits("hits", m), src("src", m), tgt("tgt", m);
    tessera::View<std::int64_t*, Space> bad("bad", 1);
    tg::forall_edges(g, TESSERA_LAMBDA(const E& e) {
      const std::int64_t id = tg::get_edge_index(e, g);
      if (id < 0 || id >= m) {
        tessera::atomic_inc(&bad(0));
        return;
      }
      tessera::atomic_inc(&hits(id));
      src(id) = tg::source(e, g);
      tgt(id) = tg::target(e, g);
    }, opts);
    ASSERT_EQ(tg::detail::read_one(bad, 0), 0);
    const auto hh = tg::detail::to_host_vector(hits), hs = tg::detail::to_host_vector(src),
               ht = tg::detail::to_host_vector(tgt);
    for (std::int64_t id = 0; id < m; ++id) {
      ASSERT_EQ(hh[id], 1) << "edge " << id;
      ASSERT_EQ(hs[id], esrc[id]) << "edge " << id;
      ASSERT_EQ(ht[id], etgt[id]) << "edge " << id;
    }
  }
}

// reduce_edges under every schedule: the edge count and a weighted sum and
// max of the endpoints, against the host sums (two results at once).
template <class G>
void check_reduce_edges(const G& g, const host_csr& h) {
  using E = typename G::edge_descriptor;
  constexpr bool und = tg::is_undirected_graph_v<G>;
  std::int64_t want_count = 0, want_sum = 0, want_max = -1;
  for (std::int64_t u = 0; u < h.n; ++u)
    for (std::int64_t j = h.row_map[u]; j < h.row_map[u + 1]; ++j)
      if (!und || u <= h.entries[j]) {
        ++want_count;
        want_sum += 7 * u + h.entries[j];
        want_max = std::max(want_max, 3 * u + h.entries[j]);
      }
  for (const auto& [name, opts] : schedules()) {
    SCOPED_TRACE(name);
    std::int64_t count = -1, sum = -1, mx = -2;
    tg::reduce_edges(g, TESSERA_LAMBDA(const E&, std::int64_t& c) { ++c; }, opts, count);
    tg::reduce_edges(
        g,
        TESSERA_LAMBDA(const E& e, std::int64_t& s, std::int64_t& x) {
          const std::int64_t u = tg::source(e, g), v = tg::target(e, g);
          s += 7 * u + v;
          if (3 * u + v > x) x = 3 * u + v;
        },
        opts, tessera::Sum<std::int64_t>(sum), tessera::Max<std::int64_t>(mx));
    EXPECT_EQ(count, want_count);
    EXPECT_EQ(sum, want_sum);
    if (want_count > 0) {
      EXPECT_EQ(mx, want_max);
    }
  }
  // Without options (the automatic schedule through the old signature).
  std::int64_t count = -1;
  tg::reduce_edges(g, TESSERA_LAMBDA(const E&, std::int64_t& c) { ++c; }, count);
  EXPECT_EQ(count, want_count);
}

// An advance functor that reads only the edges' ends and says so: it counts
// each edge's target, edges whose source is not the entry (bad), and edges
// handed with an index (indexed: advance should build and search for none).
template <class G, class View>
struct count_targets {
  static constexpr bool reads_edge_index = false;
  G g;
  View hits, bad, indexed;
  TESSERA_FUNCTION void operator()(typename G::vertex_descriptor u, const typename G::edge_descriptor& e) const {
    if (tg::source(e, g) != u) tessera::atomic_inc(&bad(0));
    tessera::atomic_inc(&hits(std::int64_t(tg::target(e, g))));
    if (tg::get_edge_index(e, g) >= 0) tessera::atomic_inc(&indexed(0));
  }
};

// advance under every schedule: every out-edge of every frontier entry, as
// often as the entry is listed, with the entry as its source; a functor
// that reads no edge index gets the same edges, each without one.
template <class G>
void check_advance(const G& g, const host_csr& h, const std::vector<std::int64_t>& frontier) {
  using Space = typename G::space_type;
  using V = typename G::vertex_descriptor;
  using E = typename G::edge_descriptor;
  constexpr bool und = tg::is_undirected_graph_v<G>;
  const std::int64_t keys = und ? 2 * tg::num_edges(g) : tg::num_edges(g);
  std::vector<std::int64_t> want(keys, 0);
  for (auto u : frontier)
    for (std::int64_t j = h.row_map[u]; j < h.row_map[u + 1]; ++j) ++want[slot_key<und>(u, h.entries[j], h.ids[j])];
  tessera::View<V*, Space> fr("frontier", frontier.size());
  {
    auto hf = tessera::create_mirror_view(fr);
    for (std::size_t i = 0; i < frontier.size(); ++i) hf(i) = V(frontier[i]);
    tessera::deep_copy(fr, hf);
  }
  for (const auto& [name, opts] : schedules()) {
    SCOPED_TRACE(name);
    tessera::View<std::int64_t*, Space> hits("hits", keys), bad("bad", 1);
    tg::advance(g, fr, TESSERA_LAMBDA(V u, const E& e) {
      const std::int64_t s = tg::source(e, g), t = tg::target(e, g), id = tg::get_edge_index(e, g);
      const std::int64_t k = slot_key<und>(s, t, id);
      if (s != u || id < 0 || k < 0 || k >= keys) {
        tessera::atomic_inc(&bad(0));
        return;
      }
      tessera::atomic_inc(&hits(k));
    }, opts);
    ASSERT_EQ(tg::detail::read_one(bad, 0), 0);
    const auto got = tg::detail::to_host_vector(hits);
    for (std::int64_t k = 0; k < keys; ++k) ASSERT_EQ(got[k], want[k]) << "key " << k;
  }
  std::vector<std::int64_t> want_targets(std::size_t(h.n), 0);
  for (auto u : frontier)
    for (std::int64_t j = h.row_map[u]; j < h.row_map[u + 1]; ++j) ++want_targets[std::size_t(h.entries[j])];
  using Counts = tessera::View<std::int64_t*, Space>;
  for (const auto& [name, opts] : schedules()) {
    SCOPED_TRACE(name + ", no edge index read");
    Counts hits("hits", std::size_t(h.n)), bad("bad", 1), indexed("indexed", 1);
    tg::advance(g, fr, count_targets<G, Counts>{g, hits, bad, indexed}, opts);
    EXPECT_EQ(tg::detail::read_one(bad, 0), 0) << "edges not from their frontier entry";
    EXPECT_EQ(tg::detail::read_one(indexed, 0), 0) << "edges handed with an index the functor does not read";
    const auto got = tg::detail::to_host_vector(hits);
    for (std::int64_t v = 0; v < h.n; ++v) ASSERT_EQ(got[v], want_targets[v]) << "target " << v;
  }
}

template <class G>
void check_all(const G& g, const std::vector<std::int64_t>& frontier) {
  const host_csr h = host_arrays(g);
  check_forall_edges(g, h);
  check_reduce_edges(g, h);
  check_advance(g, h, frontier);
  check_advance(g, h, {});
}

// A frontier over n vertices: every vertex of `pick`, each of them twice
// when `twice`, plus some random ones (repeats included).
std::vector<std::int64_t> some_frontier(std::int64_t n, std::vector<std::int64_t> pick, bool twice, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> f = pick;
  if (twice) f.insert(f.end(), pick.begin(), pick.end());
  for (int i = 0; i < 50 && n > 0; ++i) f.push_back(std::int64_t(rng() % std::uint64_t(n)));
  std::shuffle(f.begin(), f.end(), rng);
  return f;
}

tg::edge_list star(std::int64_t leaves) {
  tg::edge_list el;
  el.num_vertices = leaves + 1;
  for (std::int64_t i = 1; i <= leaves; ++i) {
    el.src.push_back(0);
    el.dst.push_back(i);
  }
  return el;
}

// One row of `deg` edges (vertex `at`), every other row of n empty.
tg::edge_list one_huge_row(std::int64_t n, std::int64_t at, std::int64_t deg) {
  tg::edge_list el;
  el.num_vertices = n;
  for (std::int64_t i = 0; i < deg; ++i) {
    el.src.push_back(at);
    el.dst.push_back((at + 1 + i) % n);
  }
  return el;
}

// Vertex k of the list has out-degree degrees[k] (targets past the list's
// vertices, which have none); directed.
tg::edge_list with_degrees(const std::vector<std::int64_t>& degrees) {
  tg::edge_list el;
  const std::int64_t k = std::int64_t(degrees.size());
  std::int64_t most = 0;
  for (auto d : degrees) most = std::max(most, d);
  el.num_vertices = k + most;
  for (std::int64_t v = 0; v < k; ++v)
    for (std::int64_t i = 0; i < degrees[v]; ++i) {
      el.src.push_back(v);
      el.dst.push_back(k + i);
    }
  return el;
}

}  // namespace

template <class Space>
class GraphLoadBalance : public SpaceTest<Space> {};
TYPED_TEST_SUITE(GraphLoadBalance, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(GraphLoadBalance, RandomDirectedAndUndirected) {
  auto el = random_edges(3000, 20000, 11);  // duplicates, loops, isolated vertices
  const auto fr = some_frontier(el.num_vertices, {0, 1, 2, 2999}, true, 5);
  check_all(tg::compressed_sparse_row_graph<tg::directedS, TypeParam>(el, tg::build_options::simple()), fr);
  check_all(tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>(el, tg::build_options::simple()), fr);
  check_all(tg::compressed_sparse_row_graph<tg::directedS, TypeParam>(el), fr);  // duplicates kept
}

TYPED_TEST(GraphLoadBalance, KroneckerPowerLaw) {
  auto el = tg::kronecker(12, 16, 3);
  const auto fr = some_frontier(el.num_vertices, {0, 1, 7}, true, 6);
  check_all(tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>(el, tg::build_options::simple()), fr);
  check_all(tg::compressed_sparse_row_graph<tg::bidirectionalS, TypeParam>(el, tg::build_options::simple()), fr);
}

TYPED_TEST(GraphLoadBalance, StarHubOfDegree100000) {
  auto el = star(100000);
  const auto fr = some_frontier(el.num_vertices, {0, 5}, true, 7);  // the hub twice
  check_all(tg::compressed_sparse_row_graph<tg::directedS, TypeParam>(el), fr);
  check_all(tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>(el), fr);
}

TYPED_TEST(GraphLoadBalance, OneHugeRowAndManyEmptyRows) {
  auto el = one_huge_row(300000, 123456, 40000);
  const auto fr = some_frontier(el.num_vertices, {123456, 0, 299999}, true, 8);
  check_all(tg::compressed_sparse_row_graph<tg::directedS, TypeParam>(el), fr);
  check_all(tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>(el), fr);
  // The huge row first and last (the path's ends).
  check_all(tg::compressed_sparse_row_graph<tg::directedS, TypeParam>(one_huge_row(5000, 0, 4999)), {0, 4999, 0});
  check_all(tg::compressed_sparse_row_graph<tg::directedS, TypeParam>(one_huge_row(5000, 4999, 4999)), {4999, 0});
}

TYPED_TEST(GraphLoadBalance, NoEdgesAndNoVertices) {
  tg::edge_list el;
  el.num_vertices = 1000;  // isolated vertices only
  check_all(tg::compressed_sparse_row_graph<tg::directedS, TypeParam>(el), {0, 999, 999, 5});
  check_all(tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>(el), {3});
  tg::edge_list none;
  check_all(tg::compressed_sparse_row_graph<tg::directedS, TypeParam>(none), {});
}

TYPED_TEST(GraphLoadBalance, DegreesAtTheByDegreeThresholds) {
  const tg::traversal_options d;  // the defaults the schedule list uses
  std::vector<std::int64_t> degs = {0, 1, d.warp_degree - 1, d.warp_degree, d.warp_degree + 1,
                                    d.block_degree - 1, d.block_degree, d.block_degree + 1, 2, 5, 4, 6};
  auto el = with_degrees(degs);
  std::vector<std::int64_t> all(degs.size());
  for (std::size_t v = 0; v < all.size(); ++v) all[v] = std::int64_t(v);
  const auto fr = some_frontier(std::int64_t(degs.size()), all, true, 9);
  check_all(tg::compressed_sparse_row_graph<tg::directedS, TypeParam>(el), fr);
  check_all(tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>(el), fr);
}

// Graphs without a row map: the transpose (random access, offsets scanned
// from its degrees) and a subgraph (no random access: the vertex loop
// whatever the schedule asks).
TYPED_TEST(GraphLoadBalance, Adapters) {
  using B = tg::compressed_sparse_row_graph<tg::bidirectionalS, TypeParam>;
  using V = typename B::vertex_descriptor;
  auto el = random_edges(2000, 12000, 21);
  for (int i = 1; i < 3000; ++i) {  // a hub of in-degree ~3000
    el.src.push_back(i % 2000);
    el.dst.push_back(17);
  }
  B g(el, tg::build_options::simple());
  tg::edge_list rev = el;
  std::swap(rev.src, rev.dst);
  B gt(rev, tg::build_options::simple());
  tg::transpose_adapter<B> t(g);
  // On the transpose, edge ids are g's slots; the materialized transpose
  // gt gives the reference edges by (source, target).
  const host_csr h = host_arrays(gt), hg = host_arrays(g);
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> want;
  for (std::int64_t u = 0; u < h.n; ++u)
    for (std::int64_t j = h.row_map[u]; j < h.row_map[u + 1]; ++j) ++want[{u, h.entries[j]}];
  const std::int64_t m = tg::num_edges(t), n = tg::num_vertices(t);
  for (const auto& [name, opts] : schedules()) {
    SCOPED_TRACE(name);
    tessera::View<std::int64_t*, TypeParam> src("src", m), tgt("tgt", m), hits("hits", m);
    tg::forall_edges(t, TESSERA_LAMBDA(const typename B::edge_descriptor& e) {
      const auto id = tg::get_edge_index(e, t);
      tessera::atomic_inc(&hits(id));
      src(id) = tg::source(e, t);
      tgt(id) = tg::target(e, t);
    }, opts);
    const auto hh = tg::detail::to_host_vector(hits), hs = tg::detail::to_host_vector(src),
               ht = tg::detail::to_host_vector(tgt);
    std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> got;
    for (std::int64_t id = 0; id < m; ++id) {
      ASSERT_EQ(hh[id], 1) << "edge " << id;
      ++got[{hs[id], ht[id]}];
    }
    EXPECT_EQ(got, want);
    std::int64_t count = 0;
    tg::reduce_edges(t, TESSERA_LAMBDA(const typename B::edge_descriptor&, std::int64_t& c) { ++c; }, opts, count);
    EXPECT_EQ(count, m);

    // Subgraph keeping every vertex but 17: the vertex loop, still every edge once.
    std::vector<int> vm(n, 1);
    vm[17] = 0;
    tg::subgraph_adapter<B> s(g, tg::detail::to_space<int, TypeParam>("vm", vm));
    std::int64_t sub = 0, want_sub = 0;
    for (std::int64_t u = 0; u < h.n; ++u)
      for (std::int64_t j = h.row_map[u]; j < h.row_map[u + 1]; ++j) want_sub += (u != 17 && h.entries[j] != 17);
    tg::reduce_edges(s, TESSERA_LAMBDA(const typename B::edge_descriptor&, std::int64_t& c) { ++c; }, opts, sub);
    EXPECT_EQ(sub, want_sub);
    tessera::View<V*, TypeParam> fr("fr", 3);  // vertex 0 (kept, local id 0) three times
    tessera::View<std::int64_t*, TypeParam> cnt("cnt", 1);
    tg::advance(s, fr, TESSERA_LAMBDA(V, const typename B::edge_descriptor&) { tessera::atomic_inc(&cnt(0)); }, opts);
    std::int64_t want_adv = 0;
    for (std::int64_t j = hg.row_map[0]; j < hg.row_map[1]; ++j) want_adv += hg.entries[j] != 17;
    EXPECT_EQ(tg::detail::read_one(cnt, 0), 3 * want_adv);
  }
}

// Host spaces keep the vertex loop unless asked (their measured figures are
// the vertex loop's); devices balance; graphs without random access never do.
TYPED_TEST(GraphLoadBalance, AutomaticScheduleBySpace) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using B = tg::compressed_sparse_row_graph<tg::bidirectionalS, TypeParam>;
  using S = tg::edge_schedule;
  const bool host = tessera::is_host_execution_space<typename G::execution_space>::value;
  EXPECT_EQ(tg::detail::resolve_schedule<G>({}), host ? S::vertex_loop : S::edge_balanced);
  EXPECT_EQ(tg::detail::resolve_schedule<tg::transpose_adapter<B>>({}), host ? S::vertex_loop : S::edge_balanced);
  EXPECT_EQ(tg::detail::resolve_schedule<G>({.schedule = S::by_degree}), S::by_degree);
  EXPECT_EQ(tg::detail::resolve_schedule<tg::subgraph_adapter<B>>({.schedule = S::edge_balanced}), S::vertex_loop);
}
