// miniTri's direct method on every enabled back-end, Cuda included: it is
// built from the data-parallel patterns alone (no task driver), so it is the
// method a GPU runs. The whole histogram and triangle count against the
// brute-force reference, on random graphs with loops and repeated edges, a
// small Kronecker graph, and the shared graphs' published triangle counts.
#include "analytics_test_util.hpp"

using namespace analytics_test;

template <class Space>
class MinitriDirect : public SpaceTest<Space> {};
TYPED_TEST_SUITE(MinitriDirect, tessera::test::ExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(MinitriDirect, MatchesBruteForceAndPublishedCounts) {
  using G = Graph<TypeParam>;
  for (const auto lookup :
       {ta::triangle_lookup::automatic, ta::triangle_lookup::marks, ta::triangle_lookup::merge}) {
    ta::minitri_options direct;
    direct.method = ta::method::direct;
    direct.lookup = lookup;
    direct.keep_degrees = true;
    SCOPED_TRACE(describe(direct));
    unsigned seed = 7;
    for (std::int64_t n : {1, 3, 20, 90})
      for (double density : {0.05, 0.5, 0.9}) {
        const std::int64_t m = std::int64_t(density * double(n * n) / 2) + 1;
        const auto el = random_graph(n, m, seed++);
        const auto want = brute_force_minitri(el);
        const auto r = ta::minitri(ta::build_simple<G>(el), direct);
        EXPECT_EQ(r.triangles, want.triangles) << "n " << n << " m " << m;
        EXPECT_EQ(r.histogram, want.histogram) << "n " << n << " m " << m;
        std::int64_t tv_sum = 0;
        for (std::int64_t t : r.vertex_triangles) tv_sum += t;
        EXPECT_EQ(tv_sum, 3 * want.triangles) << "every triangle counts at its three vertices";
      }
    const auto kron = ta::load_edges("kron:8:16:5");
    const auto want = brute_force_minitri(kron);
    const auto r = ta::minitri(ta::build_simple<G>(kron), direct);
    EXPECT_EQ(r.triangles, want.triangles);
    EXPECT_EQ(r.histogram, want.histogram);
    for (const auto& k : known_graphs()) {
      const auto el = ta::load_edges(graph_file(k.file));
      EXPECT_EQ(ta::minitri(ta::build_simple<G>(el), direct).triangles, k.triangles) << k.file;
    }
  }
}
