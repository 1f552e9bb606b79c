// DistGraph construction: the rows equal the node-level simple graph's, the
// partition is Partition::balanced on the global degree prefix, the ghost
// plan delivers every ghost's owner value, bad ids are the same error on
// every rank, and ranks without vertices work.
#include "dist_graph_test_util.hpp"

#include <numeric>

using namespace dist_graph_test;

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
  for (int i = 0; i < 400; ++i)
    el.add((i * 7) % 50, (i * 13 + i / 9) % 50);  // repeats, both directions, loops
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
