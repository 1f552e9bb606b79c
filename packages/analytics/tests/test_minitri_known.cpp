// miniTri on the repository's graphs, every host back-end, every method:
// the published triangle counts (examples/data/README.md), identical
// histograms across the methods, sum t_v = sum t_e = 3 T, and karate's
// largest clique (5, a known fact of the Zachary graph) under the bound.
#include "analytics_test_util.hpp"

using namespace analytics_test;

template <class Space>
class MinitriKnown : public SpaceTest<Space> {};
TYPED_TEST_SUITE(MinitriKnown, HostSpaces, tessera::test::SpaceNames);

TYPED_TEST(MinitriKnown, SharedGraphsGiveTheirTriangleCountsWithEveryMethod) {
  using G = Graph<TypeParam>;
  for (const auto& k : known_graphs()) {
    SCOPED_TRACE(k.file);
    ta::cleanup_counts clean;
    const G g = ta::build_simple<G>(ta::load_edges(graph_file(k.file)), &clean);
    EXPECT_EQ(g.num_vertices(), k.vertices);
    EXPECT_EQ(g.num_edges(), k.edges);
    EXPECT_EQ(clean.edges, k.edges);
    std::map<int, std::int64_t> first;
    for (auto opts : every_method()) {
      SCOPED_TRACE(describe(opts));
      opts.keep_degrees = true;
      const auto r = ta::minitri(g, opts);
      EXPECT_EQ(r.method, opts.method);
      EXPECT_EQ(r.triangles, k.triangles);
      EXPECT_EQ(r.vertices, k.vertices);
      EXPECT_EQ(r.edges, k.edges);
      std::int64_t sum = 0;
      for (const auto& [kk, c] : r.histogram) {
        EXPECT_GE(kk, 3);
        EXPECT_GT(c, 0);
        sum += c;
      }
      EXPECT_EQ(sum, k.triangles) << "the histogram counts every triangle once";
      ASSERT_EQ(std::int64_t(r.vertex_triangles.size()), k.vertices);
      ASSERT_EQ(std::int64_t(r.edge_triangles.size()), k.edges);
      std::int64_t sv = 0, se = 0;
      for (auto x : r.vertex_triangles) sv += x;
      for (auto x : r.edge_triangles) se += x;
      EXPECT_EQ(sv, 3 * k.triangles);
      EXPECT_EQ(se, 3 * k.triangles);
      if (first.empty()) first = r.histogram;
      else EXPECT_EQ(r.histogram, first) << "methods disagree";
    }
  }
}

TYPED_TEST(MinitriKnown, KarateBoundCoversItsLargestClique) {
  using G = Graph<TypeParam>;
  const G g = ta::build_simple<G>(ta::load_edges(graph_file("karate.mtx")));
  const auto r = ta::minitri(g);
  // Zachary's karate club has cliques of 5 (e.g. members 1, 2, 3, 4, 8 in
  // 1-based labels) and none of 6; the bound can only be larger.
  EXPECT_GE(r.max_k(), 5);
  EXPECT_GT(r.histogram.at(r.max_k()), 0);
}

TYPED_TEST(MinitriKnown, KroneckerGraphsAgreeAcrossMethodsAndBlockSizes) {
  using G = Graph<TypeParam>;
  for (const char* spec : {"kron:10:16", "kron:12:8:3"}) {
    SCOPED_TRACE(spec);
    const G g = ta::build_simple<G>(ta::load_edges(spec));
    const auto direct = ta::minitri(g);
    EXPECT_EQ(direct.triangles, tg::count_triangles(g)) << "the graph package's own count";
    for (std::int64_t block : {1, 10, 100, 1000, 100000}) {
      for (auto opts : every_method(block)) {
        SCOPED_TRACE(describe(opts) + " block " + std::to_string(block));
        if (opts.method == ta::method::direct) continue;
        if (opts.method == ta::method::data && block != 1) continue;  // data has no blocks
        const auto r = ta::minitri(g, opts);
        EXPECT_EQ(r.triangles, direct.triangles);
        EXPECT_EQ(r.histogram, direct.histogram);
      }
    }
  }
}
