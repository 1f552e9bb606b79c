// miniTri on the distributed graph: triangle vertex degrees and the k
// histogram equal the node-level analytics::minitri's (and the published
// triangle counts), on 1, 2 and 4 ranks and every host back-end.
#include "dist_graph_test_util.hpp"

#include <tessera/analytics.hpp>

using namespace dist_graph_test;

template <class Space>
class DistMiniTri : public ::testing::Test {};
TYPED_TEST_SUITE(DistMiniTri, HostSpaces, tessera::test::SpaceNames);

TYPED_TEST(DistMiniTri, DegreesAndHistogramEqualTheNodeLevelMiniTri) {
  using Space = TypeParam;
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, Space>;
  const td::Comm comm;
  std::vector<std::pair<std::string, tg::edge_list>> inputs;
  for (const auto& k : known_graphs()) inputs.emplace_back(k.file, tg::read_edge_list(data(k.file)));
  inputs.emplace_back("graphs/facebook_combined.txt",
                      tg::read_edge_list(data("graphs/facebook_combined.txt")));
  inputs.emplace_back("kron:9:8", tg::kronecker(9, 8, 2));
  tg::edge_list tiny;
  tiny.num_vertices = 3;
  tiny.add(0, 1);
  tiny.add(1, 2);
  tiny.add(2, 0);
  inputs.emplace_back("triangle", tiny);
  for (const auto& [name, whole] : inputs) {
    SCOPED_TRACE(name);
    const G ref(whole, tg::build_options::simple());
    tessera::analytics::minitri_options opts;
    opts.keep_degrees = true;
    const auto want = tessera::analytics::minitri(ref, opts);
    const td::DistGraph g(comm, share_of(whole, comm));
    const td::MiniTriResult r = td::minitri<Space>(g);
    EXPECT_EQ(r.triangles, want.triangles);
    EXPECT_EQ(r.histogram, want.histogram);
    EXPECT_EQ(r.max_k(), want.max_k());
    const std::vector<std::int64_t> tv(want.vertex_triangles.begin() + g.owned_begin(),
                                       want.vertex_triangles.begin() + g.owned_end());
    EXPECT_EQ(r.vertex_triangles, tv);
  }
}
