// Memory of the three methods. tasks with priorities on keeps a small window
// of the triangles (well below T) on a graph whose neighbours have nearby
// ids; without freeing it keeps all T, as data does; direct stores none and
// its peak stays within twice the graph's CSR.
#include "analytics_test_util.hpp"

using namespace analytics_test;

namespace {
// A triangulated nx x ny grid (each cell split by one diagonal):
// 2 (nx-1)(ny-1) triangles, neighbours within nx + 1 ids.
tg::edge_list triangulated_grid(std::int64_t nx, std::int64_t ny) {
  tg::edge_list el = tg::grid_2d(nx, ny);
  for (std::int64_t y = 0; y + 1 < ny; ++y)
    for (std::int64_t x = 0; x + 1 < nx; ++x) el.add(x + nx * y, x + 1 + nx * (y + 1));
  return el;
}

template <class G>
std::int64_t csr_bytes(const G& g) {
  // row_map, entries and the edge-index array of the undirected CSR.
  return std::int64_t(sizeof(typename G::edge_index_type)) * (g.num_vertices() + 1) +
         std::int64_t(sizeof(typename G::vertex_descriptor) + sizeof(typename G::edge_index_type)) *
             g.num_stored_edges();
}
}  // namespace

template <class Space>
class MinitriMemory : public SpaceTest<Space> {};
TYPED_TEST_SUITE(MinitriMemory, HostSpaces, tessera::test::SpaceNames);

TYPED_TEST(MinitriMemory, TasksWithPrioritiesStoreAFewBlocksOfTriangles) {
  using G = Graph<TypeParam>;
  const std::int64_t nx = 300, ny = 300;
  const G g = ta::build_simple<G>(triangulated_grid(nx, ny));
  const std::int64_t T = 2 * (nx - 1) * (ny - 1);

  ta::minitri_options o;
  o.method = ta::method::tasks;
  o.block_size = 100;
  const auto r = ta::minitri(g, o);
  ASSERT_EQ(r.triangles, T);
  EXPECT_EQ(r.histogram, ta::minitri(g).histogram);
  // Block b waits for the blocks of its neighbours (ids within nx + 1, so
  // about 5 blocks of 100 rows); with k-counts first and freed at once, a
  // handful of blocks per worker is ever stored.
  EXPECT_GT(r.peak_stored_triangles, 0);
  EXPECT_LT(r.peak_stored_triangles, T / 20) << "blocks: " << r.blocks;

  o.free_triangles = false;
  const auto kept = ta::minitri(g, o);
  EXPECT_EQ(kept.histogram, r.histogram);
  EXPECT_EQ(kept.peak_stored_triangles, T);
  EXPECT_GT(kept.peak_bytes, r.peak_bytes);

  o.free_triangles = true;
  o.priorities = false;
  const auto flat = ta::minitri(g, o);
  EXPECT_EQ(flat.histogram, r.histogram);
  EXPECT_LE(flat.peak_stored_triangles, T);

  const auto data = ta::minitri(g, every_method()[2]);
  EXPECT_EQ(data.peak_stored_triangles, T);
  EXPECT_GE(data.peak_bytes, T * std::int64_t(sizeof(ta::triangle<int, std::int64_t>)));
}

TYPED_TEST(MinitriMemory, DirectStoresNoTriangleAndStaysWithinTwiceTheCsr) {
  using G = Graph<TypeParam>;
  for (const char* spec : {"kron:12:16", "facebook_combined.txt"}) {
    SCOPED_TRACE(spec);
    const G g = ta::build_simple<G>(ta::load_edges(spec[0] == 'k' ? std::string(spec) : graph_file(spec)));
    const auto r = ta::minitri(g);
    EXPECT_EQ(r.peak_stored_triangles, 0);
    EXPECT_GT(r.peak_bytes, 0);
    EXPECT_LE(r.peak_bytes, 2 * csr_bytes(g)) << "CSR " << csr_bytes(g) << " bytes";
    // data keeps every triangle: its peak grows with T, direct's does not.
    const auto data = ta::minitri(g, every_method()[2]);
    EXPECT_GT(data.peak_bytes, r.peak_bytes + r.triangles * 12);
  }
}
