// DistGraph construction: the rows equal the node-level simple graph's, the
// partition is Partition::balanced on the global degree prefix, the ghost
// plan delivers every ghost's owner value, bad ids are the same error on
// every rank, and ranks without vertices work.
#include "dist_graph_test_util.hpp"

#include <numeric>

using namespace dist_graph_test;

namespace {

// Compares g with the node-level graph built from the whole list.
void expect_same_graph(const td::DistGraph& g, const tg::edge_list& whole) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, tessera::HostSpace>;
  const G ref(whole, tg::build_options::simple());
  ASSERT_EQ(g.num_vertices(), ref.num_vertices());
  EXPECT_EQ(g.num_edges(), ref.num_edges());
  const auto rm = tg::detail::to_host_vector(ref.row_map());
  const auto ent = tg::detail::to_host_vector(ref.entries());
  std::vector<std::int64_t> prefix(rm.begin(), rm.end());
  EXPECT_EQ(g.partition().offsets(), td::Partition::balanced(prefix, g.comm().size()).offsets());
  for (std::int64_t v = 0; v < g.num_owned(); ++v) {
    const std::int64_t gv = g.owned_begin() + v;
    std::vector<std::int64_t> mine;
    for (auto k = g.row_map()[std::size_t(v)]; k < g.row_map()[std::size_t(v) + 1]; ++k)
      mine.push_back(g.global_id(g.adjacency()[std::size_t(k)]));
    const std::vector<std::int64_t> want(ent.begin() + rm[std::size_t(gv)], ent.begin() + rm[std::size_t(gv) + 1]);
    ASSERT_EQ(mine, want) << "row of vertex " << gv << " on rank " << g.comm().rank();
  }
  // Ghosts: exactly the non-owned neighbours, increasing, grouped by owner.
  std::vector<std::int64_t> ghosts;
  for (auto x : g.adjacency())
    if (x >= g.num_owned()) ghosts.push_back(g.global_id(x));
  std::sort(ghosts.begin(), ghosts.end());
  ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  EXPECT_EQ(ghosts, g.ghosts());
  for (int q = 0; q < g.comm().size(); ++q)
    for (auto i = g.ghost_offsets()[std::size_t(q)]; i < g.ghost_offsets()[std::size_t(q) + 1]; ++i)
      EXPECT_EQ(g.owner(g.ghosts()[std::size_t(i)]), q);
  // The plan: owners send their vertices' values (here the global id * 3 + 1).
  std::vector<std::int64_t> values(std::size_t(g.num_local()), -7);
  for (std::int64_t v = 0; v < g.num_owned(); ++v) values[std::size_t(v)] = 3 * (g.owned_begin() + v) + 1;
  g.update_ghosts(values);
  for (std::int64_t i = 0; i < g.num_ghosts(); ++i)
    EXPECT_EQ(values[std::size_t(g.num_owned() + i)], 3 * g.ghosts()[std::size_t(i)] + 1);
  for (std::int64_t x = 0; x < g.num_local(); ++x) EXPECT_EQ(g.local_id(g.global_id(td::local_vertex(x))), x);
}

}  // namespace

TEST(DistGraphBuild, RepositoryGraphsEqualTheNodeLevelSimpleGraph) {
  const td::Comm comm;
  for (const auto& k : known_graphs()) {
    SCOPED_TRACE(k.file);
    const auto whole = tg::read_edge_list(data(k.file));
    const td::DistGraph g(comm, share_of(whole, comm));
    EXPECT_EQ(g.num_vertices(), k.vertices);
    EXPECT_EQ(g.num_edges(), k.edges);
    expect_same_graph(g, whole);
  }
}

TEST(DistGraphBuild, LoopsAndDuplicatesAreDroppedAsTheSimpleBuildDoes) {
  const td::Comm comm;
  tg::edge_list el;
  el.num_vertices = 50;
  for (int i = 0; i < 400; ++i) el.add((i * 7) % 50, (i * 13 + i / 9) % 50);  // repeats, both directions, loops
  for (int i = 0; i < 10; ++i) el.add(i, i);
  const td::DistGraph g(comm, share_of(el, comm));
  expect_same_graph(g, el);
}

TEST(DistGraphBuild, RanksWithoutVerticesWork) {
  const td::Comm comm;
  tg::edge_list el;
  el.num_vertices = 3;
  el.add(0, 1);
  el.add(1, 2);
  const td::DistGraph g(comm, share_of(el, comm));
  EXPECT_EQ(g.num_edges(), 2);
  EXPECT_EQ(comm.sum(g.num_owned()), 3);
  expect_same_graph(g, el);
  // No edges at all, and no vertices at all.
  tg::edge_list none;
  none.num_vertices = 5;
  const td::DistGraph h(comm, none);
  EXPECT_EQ(h.num_edges(), 0);
  EXPECT_EQ(comm.sum(h.num_owned()), 5);
  none.num_vertices = 0;
  const td::DistGraph z(comm, none);
  EXPECT_EQ(z.num_vertices(), 0);
  EXPECT_EQ(z.num_owned(), 0);
}

TEST(DistGraphBuild, ABadIdOnOneRankIsTheSameErrorOnEveryRank) {
  const td::Comm comm;
  tg::edge_list el;
  el.num_vertices = 10;
  el.origin = "mine";
  el.add(1, 2);
  if (comm.rank() == comm.size() - 1) el.add(3, 10);
  const std::string want = "rank " + std::to_string(comm.size() - 1) +
                           ": edge list 'mine', edge 1 of this rank's share: vertex id 10 outside [0, 10)";
  try {
    td::DistGraph g(comm, el);
    ADD_FAILURE() << "every rank must throw";
  } catch (const td::dist_error& e) {
    EXPECT_EQ(std::string(e.what()), want);
  }
  // Disagreeing vertex counts.
  el = {};
  el.num_vertices = 10 + (comm.rank() == 0 ? 1 : 0);
  if (comm.size() > 1) {
    EXPECT_THROW(td::DistGraph(comm, el), td::dist_error);
  }
  EXPECT_EQ(comm.sum(1), comm.size());  // the next collective still works
}
