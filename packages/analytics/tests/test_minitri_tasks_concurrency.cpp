// The tasks method under contention: one-row blocks (thousands of tasks
// racing on t_v, t_e and the respawn dependencies), repeated, on every host
// back-end; every run must give direct's histogram. Label "concurrency":
// the ThreadSanitizer CI row runs it.
#include "analytics_test_util.hpp"

using namespace analytics_test;

template <class Space>
class MinitriTasksConcurrency : public SpaceTest<Space> {};
TYPED_TEST_SUITE(MinitriTasksConcurrency, HostSpaces, tessera::test::SpaceNames);

TYPED_TEST(MinitriTasksConcurrency, TinyBlocksRepeatedGiveTheSameHistogram) {
  using G = Graph<TypeParam>;
  const G g = ta::build_simple<G>(ta::load_edges("kron:10:8:2"));
  const auto want = ta::minitri(g);
  ASSERT_GT(want.triangles, 0);
  for (int rep = 0; rep < 4; ++rep)
    for (bool priorities : {true, false}) {
      ta::minitri_options o;
      o.method = ta::method::tasks;
      o.block_size = 1;
      o.priorities = priorities;
      o.keep_degrees = rep == 0;
      const auto r = ta::minitri(g, o);
      ASSERT_EQ(r.histogram, want.histogram) << "repeat " << rep << " priorities " << priorities;
      EXPECT_EQ(r.blocks, g.num_vertices());
      if (o.keep_degrees) {
        std::int64_t s = 0;
        for (auto x : r.vertex_triangles) s += x;
        EXPECT_EQ(s, 3 * want.triangles);
      }
    }
}
