// The whole histogram against independent references, every host back-end,
// every method: a brute-force O(n^3) miniTri on small random graphs (with
// loops and repeated edges in the input), closed forms for cliques (K_n puts
// all of its C(n,3) triangles at k = n), and the k rule itself.
#include "analytics_test_util.hpp"

using namespace analytics_test;

TEST(MinitriRule, CliqueBoundKMatchesTheDefinition) {
  // By the definition, counting k upwards, for every small pair of degrees.
  for (std::int64_t tv = 1; tv <= 400; ++tv)
    for (std::int64_t te = 1; te <= 30; ++te) {
      int want = 0;
      for (std::int64_t k = 3; tv >= (k - 1) * (k - 2) / 2 && te >= k - 2; ++k) want = int(k);
      ASSERT_EQ(ta::clique_bound_k(tv, te), want) << "t_v " << tv << " t_e " << te;
    }
  // Large degrees: exact at the edges of C(k-1, 2) where a float root could round wrong.
  for (std::int64_t j : {std::int64_t(1000), std::int64_t(65536), std::int64_t(1) << 30}) {
    const std::int64_t c = j * (j - 1) / 2;  // C(j, 2) = C(k-1, 2) with k = j + 1
    EXPECT_EQ(ta::clique_bound_k(c, j + 10), j + 1);
    EXPECT_EQ(ta::clique_bound_k(c - 1, j + 10), j);
    // Edge-bound at the same edges: k = t_e + 2 exactly while C(t_e + 1, 2) <= t_v.
    EXPECT_EQ(ta::clique_bound_k(c, j - 1), j + 1);
    EXPECT_EQ(ta::clique_bound_k(c - 1, j - 1), j);
    EXPECT_EQ(ta::clique_bound_k(c + j, j), j + 2);
  }
}

template <class Space>
class MinitriReference : public SpaceTest<Space> {};
TYPED_TEST_SUITE(MinitriReference, HostSpaces, tessera::test::SpaceNames);

TYPED_TEST(MinitriReference, RandomGraphsMatchBruteForce) {
  using G = Graph<TypeParam>;
  unsigned seed = 1;
  for (std::int64_t n : {1, 2, 3, 8, 20, 45, 90})
    for (double density : {0.05, 0.2, 0.5, 0.9}) {
      const std::int64_t m = std::int64_t(density * double(n * n) / 2) + 1;
      const auto el = random_graph(n, m, seed++);
      const auto want = brute_force_minitri(el);
      const G g = ta::build_simple<G>(el);
      for (std::int64_t block : {1, 7, 100}) {
        for (const auto& opts : every_method(block)) {
          SCOPED_TRACE("n " + std::to_string(n) + " m " + std::to_string(m) + " " + describe(opts) +
                       " block " + std::to_string(block));
          const auto r = ta::minitri(g, opts);
          EXPECT_EQ(r.triangles, want.triangles);
          EXPECT_EQ(r.histogram, want.histogram);
        }
      }
    }
}

// t_v of every vertex and t_e of every edge (keep_degrees), not only their
// sums: the direct method by marks counts t_e by the orientation's slots and
// translates them to the graph's edge indices at the end.
TYPED_TEST(MinitriReference, TriangleDegreesMatchBruteForce) {
  using G = Graph<TypeParam>;
  std::vector<tg::edge_list> graphs{ta::load_edges("kron:8:16:5")};
  for (unsigned seed = 1; seed <= 4; ++seed) graphs.push_back(random_graph(60, 900, seed));
  for (const auto& el : graphs) {
    const auto want = brute_force_minitri(el);
    const G g = ta::build_simple<G>(el);
    const auto* rm = g.row_map_data();
    const auto* adj = g.entries_data();
    for (auto opts : every_method(4)) {
      SCOPED_TRACE(describe(opts) + ", " + std::to_string(el.num_vertices) + " vertices");
      opts.keep_degrees = true;
      const auto r = ta::minitri(g, opts);
      EXPECT_EQ(r.vertex_triangles, want.tv);
      ASSERT_EQ(std::int64_t(r.edge_triangles.size()), g.num_edges());
      std::int64_t wrong = 0;
      for (std::int64_t u = 0; u < g.num_vertices(); ++u)
        for (auto j = rm[u]; j < rm[u + 1]; ++j) {
          const auto e = g.slot_edge_index(typename G::vertex_descriptor(u), j);
          if (r.edge_triangles[std::size_t(e)] != want.te(u, adj[j]) && wrong++ < 5)
            ADD_FAILURE() << "t_e of edge " << e << " = {" << u << ", " << adj[j] << "}: "
                          << r.edge_triangles[std::size_t(e)] << ", brute force " << want.te(u, adj[j]);
        }
      EXPECT_EQ(wrong, 0);
    }
  }
}

// Two "books": an edge {a, b} and K pages, vertices joined to both a and b,
// so {a, b} lies in K triangles (closed form: t_e({a, b}) = t_v(a) = t_v(b)
// = K, every other edge and page 1, every triangle at k = 3). {a, b} is the
// {v, w} edge of each page's triangle, the edge that direct by marks counts
// in 8-bit per-thread counters: K = 3000 and 1024 make them wrap and carry
// on every thread (and 1024 lands on whole carries when one thread takes
// all). Ids are permuted so that no book is a contiguous block.
TYPED_TEST(MinitriReference, EdgesInThousandsOfTrianglesCountEachOnce) {
  using G = Graph<TypeParam>;
  const std::int64_t pages[2] = {3000, 1024};
  const std::int64_t n = 2 + pages[0] + 2 + pages[1];
  const auto id = [n](std::int64_t x) { return (x * 7919) % n; };  // 7919 is prime to n = 4028
  tg::edge_list el;
  el.num_vertices = n;
  std::vector<std::int64_t> want_tv(std::size_t(n), 1);
  std::int64_t first = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> spines;
  for (const std::int64_t k : pages) {
    const std::int64_t a = id(first), b = id(first + 1);
    el.add(a, b);
    for (std::int64_t p = first + 2; p < first + 2 + k; ++p) {
      el.add(a, id(p));
      el.add(id(p), b);
    }
    want_tv[std::size_t(a)] = want_tv[std::size_t(b)] = k;
    spines.push_back({std::min(a, b), std::max(a, b)});
    first += 2 + k;
  }
  const auto want_te = [&](std::int64_t u, std::int64_t w) -> std::int64_t {
    const std::pair<std::int64_t, std::int64_t> e{std::min(u, w), std::max(u, w)};
    return e == spines[0] ? pages[0] : e == spines[1] ? pages[1] : 1;
  };
  const G g = ta::build_simple<G>(el);
  const auto* rm = g.row_map_data();
  const auto* adj = g.entries_data();
  for (auto opts : every_method(64)) {
    SCOPED_TRACE(describe(opts));
    opts.keep_degrees = true;
    const auto r = ta::minitri(g, opts);
    EXPECT_EQ(r.triangles, pages[0] + pages[1]);
    EXPECT_EQ(r.histogram, (std::map<int, std::int64_t>{{3, pages[0] + pages[1]}}));
    EXPECT_EQ(r.vertex_triangles, want_tv);
    ASSERT_EQ(std::int64_t(r.edge_triangles.size()), g.num_edges());
    std::int64_t wrong = 0;
    for (std::int64_t u = 0; u < n; ++u)
      for (auto j = rm[u]; j < rm[u + 1]; ++j) {
        const auto e = g.slot_edge_index(typename G::vertex_descriptor(u), j);
        if (r.edge_triangles[std::size_t(e)] != want_te(u, adj[j]) && wrong++ < 5)
          ADD_FAILURE() << "t_e of {" << u << ", " << adj[j] << "}: " << r.edge_triangles[std::size_t(e)]
                        << ", closed form " << want_te(u, adj[j]);
      }
    EXPECT_EQ(wrong, 0);
  }
}

TYPED_TEST(MinitriReference, SmallKroneckerMatchesBruteForce) {
  using G = Graph<TypeParam>;
  const auto el = ta::load_edges("kron:8:16:5");  // hubs, many loops and duplicates
  const auto want = brute_force_minitri(el);
  ASSERT_GT(want.triangles, 1000);
  const G g = ta::build_simple<G>(el);
  for (const auto& opts : every_method(10)) {
    SCOPED_TRACE(describe(opts));
    const auto r = ta::minitri(g, opts);
    EXPECT_EQ(r.triangles, want.triangles);
    EXPECT_EQ(r.histogram, want.histogram);
  }
}

TYPED_TEST(MinitriReference, CliquesPutEveryTriangleAtTheirSize) {
  using G = Graph<TypeParam>;
  for (std::int64_t n = 3; n <= 14; ++n) {
    tg::edge_list el;
    el.num_vertices = n;
    add_clique(el, 0, n);
    const G g = ta::build_simple<G>(el);
    for (const auto& opts : every_method(2)) {
      SCOPED_TRACE("K_" + std::to_string(n) + " " + describe(opts));
      const auto r = ta::minitri(g, opts);
      EXPECT_EQ(r.triangles, choose3(n));
      EXPECT_EQ(r.histogram, (std::map<int, std::int64_t>{{int(n), choose3(n)}}));
      EXPECT_EQ(r.max_k(), n);
    }
  }
}

TYPED_TEST(MinitriReference, DisjointCliquesKeepTheirOwnK) {
  // K_4, K_7 and K_10 side by side (ids interleaved by a permutation), plus a
  // path and isolated vertices: three bins, C(k,3) triangles each.
  using G = Graph<TypeParam>;
  tg::edge_list el;
  el.num_vertices = 40;
  add_clique(el, 0, 4);
  add_clique(el, 4, 7);
  add_clique(el, 11, 10);
  for (int v = 21; v < 30; ++v) el.add(v, v + 1);
  for (auto& x : el.src) x = (x * 7) % 40;  // 7 is prime to 40: a permutation
  for (auto& x : el.dst) x = (x * 7) % 40;
  const G g = ta::build_simple<G>(el);
  for (const auto& opts : every_method(3)) {
    SCOPED_TRACE(describe(opts));
    const auto r = ta::minitri(g, opts);
    EXPECT_EQ(r.histogram, (std::map<int, std::int64_t>{{4, 4}, {7, 35}, {10, 120}}));
  }
}

TYPED_TEST(MinitriReference, NoTrianglesGiveAnEmptyHistogram) {
  using G = Graph<TypeParam>;
  for (const auto& el : {tg::grid_2d(30, 20), tg::edge_list{}}) {
    const G g = ta::build_simple<G>(el);
    for (const auto& opts : every_method(5)) {
      const auto r = ta::minitri(g, opts);
      EXPECT_EQ(r.triangles, 0);
      EXPECT_TRUE(r.histogram.empty());
      EXPECT_EQ(r.max_k(), 0);
    }
  }
}
