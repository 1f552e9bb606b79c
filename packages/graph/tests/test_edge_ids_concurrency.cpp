// An undirected CSR graph builds its stored edge ids on the first request
// (edge_ids(), with_edge_ids(), forall_edges, SSSP...) under a lock its
// copies share. Threads asking at once, each through its own copy, must get
// one array, built once, equal to the ids the out-edges compute one by one.
#include "graph_test_util.hpp"

#include <atomic>
#include <thread>
#include <vector>

using namespace graph_test;

template <class Space>
class EdgeIdsConcurrency : public SpaceTest<Space> {};
TYPED_TEST_SUITE(EdgeIdsConcurrency, tessera::test::HostExecutionSpaces, tessera::test::SpaceNames);

TYPED_TEST(EdgeIdsConcurrency, CopiesAskingAtOnceShareOneBuild) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, TypeParam>;
  using E = typename G::edge_index_type;
  constexpr int kThreads = 6;
  for (int round = 0; round < 20; ++round) {
    const G g(random_edges(400, 3000, 100u + unsigned(round)));  // duplicates and loops kept
    // The reference: each slot's index as its out-edge computes it.
    std::vector<E> want(std::size_t(g.num_stored_edges()));
    for (std::int64_t v = 0; v < g.num_vertices(); ++v) {
      const auto row = tg::out_edges(typename G::vertex_descriptor(v), g);
      for (auto it = row.begin(); it != row.end(); ++it) want[std::size_t(it.slot())] = (*it).id;
    }
    ASSERT_FALSE(g.has_stored_edge_ids());
    std::vector<G> copies(kThreads, g);
    std::vector<const E*> got(kThreads, nullptr);
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        ready.fetch_add(1);
        while (ready.load() < kThreads) std::this_thread::yield();  // all ask at once
        const G with = copies[std::size_t(t)].with_edge_ids();
        got[std::size_t(t)] = copies[std::size_t(t)].edge_ids().data();
        EXPECT_TRUE(with.has_stored_edge_ids());
        EXPECT_EQ(with.edge_ids().data(), got[std::size_t(t)]);
      });
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t)
      EXPECT_EQ(got[std::size_t(t)], got[0]) << "thread " << t << " round " << round;
    const auto ids = g.edge_ids();
    ASSERT_EQ(ids.data(), got[0]);
    const auto h = tg::detail::to_host_vector(ids);
    EXPECT_EQ(std::vector<E>(h.begin(), h.end()), want) << "round " << round;
  }
}
