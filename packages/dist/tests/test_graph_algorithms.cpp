// The distributed algorithms against the node-level graph package on the
// same graph: BFS levels, component labels and counts, triangle counts
// exactly, PageRank to 1e-10 with the same iteration count; on the
// repository's graphs (whose published triangle and component counts are
// checked too), a Kronecker graph with isolated vertices, a forest of paths
// whose ids interleave across ranks, and a graph with fewer vertices than
// ranks. Each test runs on every host back-end inside each rank.
#include "dist_graph_test_util.hpp"

#include <map>

using namespace dist_graph_test;

namespace {

struct Case {
  std::string name;
  tg::edge_list whole;                           // every rank: the node-level reference's input
  tg::edge_list share;                           // this rank's part
  std::int64_t triangles = -1, components = -1;  // published facts (-1: none)
};

std::vector<Case> cases(const td::Comm& comm) {
  std::vector<Case> c;
  for (const auto& k : known_graphs())
    c.push_back({k.file, tg::read_edge_list(data(k.file)), td::read_edge_list(comm, data(k.file)),
                 k.triangles, k.components});
  c.push_back({"kron:10:8", tg::kronecker(10, 8, 4), td::kronecker(comm, 10, 8, 4)});
  // Paths 0-P-2P-..., 1-(P+1)-..., of different lengths, plus a few chords:
  // every path crosses the ranks many times.
  tg::edge_list paths;
  paths.num_vertices = 600;
  for (std::int64_t v = 0; v + 7 < 600; ++v)
    if ((v / 7) % 9 != 8) paths.add(v, v + 7);
  paths.add(3, 590);
  paths.add(5, 300);
  c.push_back({"paths", paths, share_of(paths, comm)});
  tg::edge_list tiny;
  tiny.num_vertices = 3;
  tiny.add(0, 1);
  tiny.add(1, 2);
  tiny.add(2, 0);
  c.push_back({"triangle on 3 vertices", tiny, share_of(tiny, comm), 1, 1});
  return c;
}

template <class Space>
using NodeGraph = tg::compressed_sparse_row_graph<tg::undirectedS, Space>;

template <class T>
std::vector<T> owned_slice(const td::DistGraph& g, const std::vector<T>& whole) {
  return std::vector<T>(whole.begin() + g.owned_begin(), whole.begin() + g.owned_end());
}

// A distributed search against the node-level one: the same levels exactly;
// the source is its own parent and every other reached vertex's parent is a
// neighbour one level up (row_map/entries: the node-level graph's CSR).
template <class Space>
void expect_same_search(const td::DistGraph& g, const NodeGraph<Space>& ref, std::int64_t source,
                        const td::BfsResult& r) {
  tg::vertex_property_map<NodeGraph<Space>, std::int32_t> lv(ref);
  const auto want = tg::breadth_first_search(ref, source, tg::bfs_levels_visitor<NodeGraph<Space>>(lv));
  const auto levels = tg::detail::to_host_vector(lv.view());
  const std::int64_t n = g.num_vertices();
  EXPECT_EQ(r.level, owned_slice(g, levels)) << "source " << source;
  EXPECT_EQ(r.visited, want.visited);
  EXPECT_EQ(r.levels, want.levels);
  const auto rm = tg::detail::to_host_vector(ref.row_map());
  const auto ent = tg::detail::to_host_vector(ref.entries());
  for (std::int64_t v = 0; v < g.num_owned(); ++v) {
    const std::int64_t gv = g.owned_begin() + v, p = r.parent[std::size_t(v)];
    const std::int32_t l = r.level[std::size_t(v)];
    if (l < 0) {
      EXPECT_EQ(p, -1);
    } else if (l == 0) {
      EXPECT_EQ(p, source);
    } else {
      EXPECT_TRUE(p >= 0 && p < n) << "vertex " << gv;
      if (p < 0 || p >= n) continue;
      EXPECT_EQ(levels[std::size_t(p)], l - 1) << "vertex " << gv;
      EXPECT_TRUE(std::binary_search(ent.begin() + rm[std::size_t(gv)], ent.begin() + rm[std::size_t(gv) + 1],
                                     std::int32_t(p)))
          << "parent " << p << " of " << gv << " is not a neighbour";
    }
  }
}

}  // namespace

template <class Space>
class DistGraphAlgorithms : public ::testing::Test {};
TYPED_TEST_SUITE(DistGraphAlgorithms, HostSpaces, tessera::test::SpaceNames);

TYPED_TEST(DistGraphAlgorithms, BfsLevelsEqualTheNodeLevelSearchInEveryDirectionMode) {
  using Space = TypeParam;
  const td::Comm comm;
  for (const Case& c : cases(comm)) {
    SCOPED_TRACE(c.name);
    const td::DistGraph g(comm, c.share);
    const NodeGraph<Space> ref(c.whole, tg::build_options::simple());
    const std::int64_t n = g.num_vertices();
    tg::bfs_options all_bottom_up;
    all_bottom_up.alpha = 1e12;  // bottom-up from the first level
    all_bottom_up.beta = 1e12;   // and never back
    tg::bfs_options top_down;
    top_down.direction = tg::bfs_direction::top_down;
    for (const std::int64_t source : {std::int64_t(0), n / 2, n - 1}) {
      for (const auto& opts : {tg::bfs_options{}, top_down, all_bottom_up}) {
        const td::BfsResult r = td::bfs<Space>(g, source, opts);
        expect_same_search(g, ref, source, r);
        if (opts.direction == tg::bfs_direction::top_down) {
          EXPECT_EQ(r.bottom_up_levels, 0);
        }
        if (opts.alpha > 1e11 && r.levels > 1) {
          EXPECT_EQ(r.bottom_up_levels, r.levels);  // the last one finds nothing
        }
      }
    }
    EXPECT_THROW(td::bfs<Space>(g, n), td::dist_error);
  }
}

// Each form of the top-down claim exchange, forced and chosen per level,
// gives the node-level levels exactly and valid parents (a bitmap's parents
// come from the sender's frontier bits), on Kronecker graphs (wide middle
// levels that name many ghosts), the paths (long thin levels that name a
// few), the repository graphs and a graph with fewer vertices than ranks,
// searched top-down only and direction-optimizing.
TYPED_TEST(DistGraphAlgorithms, BfsFrontierExchangeFormsGiveTheNodeLevelLevels) {
  using Space = TypeParam;
  const td::Comm comm;
  const int P = comm.size();
  tg::bfs_options top_down;
  top_down.direction = tg::bfs_direction::top_down;
  std::vector<Case> graphs = cases(comm);
  graphs.push_back({"kron:12:16", tg::kronecker(12, 16, 9), td::kronecker(comm, 12, 16, 9)});
  for (const Case& c : graphs) {
    SCOPED_TRACE(c.name);
    const td::DistGraph g(comm, c.share);
    const NodeGraph<Space> ref(c.whole, tg::build_options::simple());
    const std::int64_t n = g.num_vertices();
    // The vertex of largest degree (the smallest such id): a source in the big component.
    std::int64_t hub = 0;
    {
      const auto rm = tg::detail::to_host_vector(ref.row_map());
      for (std::int64_t v = 1; v < n; ++v)
        if (rm[std::size_t(v) + 1] - rm[std::size_t(v)] > rm[std::size_t(hub) + 1] - rm[std::size_t(hub)]) hub = v;
    }
    for (const std::int64_t source : {std::int64_t(0), hub, n - 1})
      for (const auto& opts : {top_down, tg::bfs_options{}})
        for (const auto ex : {td::frontier_exchange::list, td::frontier_exchange::bitmap,
                              td::frontier_exchange::automatic}) {
          SCOPED_TRACE("source " + std::to_string(source) + (opts.direction == tg::bfs_direction::top_down
                                                                  ? ", top-down"
                                                                  : ", direction-optimizing") +
                       ", exchange " + std::to_string(int(ex)));
          const td::BfsResult r = td::bfs<Space>(g, source, opts, ex);
          expect_same_search(g, ref, source, r);
          // One letter per level, counted by kind.
          EXPECT_EQ(std::int64_t(r.level_forms.size()), r.levels);
          EXPECT_EQ(std::count(r.level_forms.begin(), r.level_forms.end(), 'l'), r.list_levels);
          EXPECT_EQ(std::count(r.level_forms.begin(), r.level_forms.end(), 'b'), r.bitmap_levels);
          EXPECT_EQ(std::count(r.level_forms.begin(), r.level_forms.end(), 'u'), r.bottom_up_levels);
          EXPECT_EQ(r.list_levels + r.bitmap_levels + r.bottom_up_levels, r.levels);
          if (ex == td::frontier_exchange::list) {
            EXPECT_EQ(r.bitmap_levels, 0);
          }
          if (ex == td::frontier_exchange::bitmap) {
            EXPECT_EQ(r.list_levels, 0);
          }
          if (opts.direction == tg::bfs_direction::top_down) {
            EXPECT_EQ(r.bottom_up_levels, 0);
          }
          // On one rank nothing is exchanged: the tie goes to the list.
          if (ex == td::frontier_exchange::automatic && P == 1) {
            EXPECT_EQ(r.bitmap_levels, 0);
          }
          // Over ranks, a top-down search of the Kronecker graphs from the hub
          // names a few ghosts on its first level (one vertex's edges: a
          // list, 16 bytes a claim, is smaller than whole bitmaps of the
          // ghosts) and most of them on the next (bitmaps, 1 bit a ghost).
          if (ex == td::frontier_exchange::automatic && P > 1 && source == hub &&
              opts.direction == tg::bfs_direction::top_down && c.name == "kron:12:16") {
            EXPECT_GT(r.list_levels, 0) << r.level_forms;
            EXPECT_GT(r.bitmap_levels, 0) << r.level_forms;
          }
        }
  }
}

TYPED_TEST(DistGraphAlgorithms, ComponentLabelsAndCountsEqualTheNodeLevelOnes) {
  using Space = TypeParam;
  const td::Comm comm;
  for (const Case& c : cases(comm)) {
    SCOPED_TRACE(c.name);
    const td::DistGraph g(comm, c.share);
    const NodeGraph<Space> ref(c.whole, tg::build_options::simple());
    tg::vertex_property_map<NodeGraph<Space>, std::int32_t> comp(ref);
    const std::int64_t k = tg::connected_components(ref, comp);
    const auto labels = tg::detail::to_host_vector(comp.view());
    std::map<std::int64_t, std::int64_t> sizes;
    for (auto x : labels) ++sizes[x];
    std::int64_t largest = 0;
    for (auto& [label, s] : sizes) largest = std::max(largest, s);
    const td::ComponentsResult r = td::connected_components<Space>(g);
    const auto want = owned_slice(g, labels);
    EXPECT_EQ(r.component, std::vector<std::int64_t>(want.begin(), want.end()));
    EXPECT_EQ(r.count, k);
    EXPECT_EQ(r.largest, largest);
    if (c.components >= 0) {
      EXPECT_EQ(r.count, c.components);
    }
    // No ghost edge on any rank (always at one rank): no label round runs.
    if (comm.sum(g.num_ghosts()) == 0) {
      EXPECT_EQ(r.rounds, 0);
    } else {
      EXPECT_GE(r.rounds, 1);
    }
  }
}

TYPED_TEST(DistGraphAlgorithms, PageRankAgreesToRoundingWithTheSameIterationCount) {
  using Space = TypeParam;
  const td::Comm comm;
  for (const Case& c : cases(comm)) {
    SCOPED_TRACE(c.name);
    const td::DistGraph g(comm, c.share);
    const NodeGraph<Space> ref(c.whole, tg::build_options::simple());
    for (const auto& [tol, iters] : {std::pair{1e-10, 200}, std::pair{1e-6, 100}, std::pair{0.0, 7}}) {
      tg::vertex_property_map<NodeGraph<Space>, double> pr(ref);
      const int it = tg::pagerank(ref, pr, 0.85, tol, iters);
      const auto want = owned_slice(g, tg::detail::to_host_vector(pr.view()));
      const td::PageRankResult r = td::pagerank<Space>(g, 0.85, tol, iters);
      EXPECT_EQ(r.iterations, it) << "tolerance " << tol;
      double worst = 0;
      for (std::size_t v = 0; v < want.size(); ++v) worst = std::max(worst, std::abs(r.rank[v] - want[v]));
      EXPECT_LE(worst, 1e-10) << "tolerance " << tol;
    }
    EXPECT_THROW(td::pagerank<Space>(g, 1.0), td::dist_error);
  }
}

TYPED_TEST(DistGraphAlgorithms, TriangleCountsEqualTheNodeLevelAndPublishedOnes) {
  using Space = TypeParam;
  const td::Comm comm;
  for (const Case& c : cases(comm)) {
    SCOPED_TRACE(c.name);
    const td::DistGraph g(comm, c.share);
    const NodeGraph<Space> ref(c.whole, tg::build_options::simple());
    const std::int64_t want = tg::count_triangles(ref);
    EXPECT_EQ(td::count_triangles<Space>(g), want);
    using Marks = tg::detail::TriangleMarks;
    for (const auto marks : {Marks::automatic, Marks::bytes, Marks::bits, Marks::none}) {
      SCOPED_TRACE("marks " + std::to_string(int(marks)));
      const std::int64_t t = td::detail::count_triangles_with<Space>(g, marks);
      EXPECT_EQ(t, want);
      if (c.triangles >= 0) {
        EXPECT_EQ(t, c.triangles);
      }
    }
  }
}
