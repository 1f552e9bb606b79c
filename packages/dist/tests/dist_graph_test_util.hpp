#pragma once
// Shared helpers of the distributed-graph tests: the data folder, shares of
// an edge list, the node-level graph every result is compared with, and
// gathering a distributed vector into global order.
#include "tessera_test_spaces.hpp"

#include <tessera/dist.hpp>
#include <tessera/dist/graph.hpp>
#include <tessera/graph.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace dist_graph_test {

namespace td = tessera::dist;
namespace tg = tessera::graph;

// The host execution spaces (the distributed algorithms run on the host).
using HostSpaces = tessera::test::HostExecutionSpaces;

inline std::string data(const std::string& name) { return std::string(TESSERA_DATA_DIR) + "/" + name; }

// The repository graphs (examples/data/README.md) with their known facts.
struct known_graph {
  const char* file;
  std::int64_t vertices, edges, triangles, components;
};
inline const std::vector<known_graph>& known_graphs() {
  static const std::vector<known_graph> k = {
      {"graphs/karate.mtx", 34, 78, 45, 1},
      {"graphs/jagmesh7.mtx", 1138, 3156, 2016, 1},
      {"graphs/G51.mtx", 1000, 5909, 6886, 1},
      {"graphs/bcspwr10.mtx", 5300, 8271, 721, 1},
      {"graphs/oregon1_010331.txt", 10670, 22002, 17144, 1},
  };
  return k;
}

// Rank r's share of a whole list: every P-th edge from r (an uneven,
// interleaved split, unlike the file reader's contiguous one).
inline tg::edge_list share_of(const tg::edge_list& el, const td::Comm& comm) {
  tg::edge_list s;
  s.num_vertices = el.num_vertices;
  s.origin = el.origin;
  for (std::size_t i = std::size_t(comm.rank()); i < el.src.size(); i += std::size_t(comm.size()))
    s.add(el.src[i], el.dst[i]);
  return s;
}

// A distributed vector of owned values, in global vertex order on every rank.
template <class T>
std::vector<T> gather(const td::DistGraph& g, const std::vector<T>& owned) {
  return g.comm().allgatherv(std::vector<T>(owned.begin(), owned.begin() + g.num_owned()));
}

// Compares g with the node-level graph built from the whole list.
inline void expect_same_graph(const td::DistGraph& g, const tg::edge_list& whole) {
  using G = tg::compressed_sparse_row_graph<tg::undirectedS, tessera::HostSpace>;
  const G ref(whole, tg::build_options::simple());
  EXPECT_EQ(g.num_vertices(), ref.num_vertices());
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
    const std::vector<std::int64_t> want(ent.begin() + rm[std::size_t(gv)],
                                         ent.begin() + rm[std::size_t(gv) + 1]);
    // EXPECT, not ASSERT, wherever a collective follows: a rank that left
    // early would leave the others waiting.
    EXPECT_EQ(mine, want) << "row of vertex " << gv << " on rank " << g.comm().rank();
    if (mine != want) break;
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
  // The reverse: a 1 on every ghost adds up, at each owned vertex, to the
  // number of other ranks that own one of its neighbours.
  std::vector<std::int64_t> ones(std::size_t(g.num_local()), 1);
  for (std::int64_t v = 0; v < g.num_owned(); ++v) ones[std::size_t(v)] = 0;
  g.add_ghosts_to_owners(ones);
  for (std::int64_t v = 0; v < g.num_owned(); ++v) {
    const std::int64_t gv = g.owned_begin() + v;
    std::vector<int> ranks;
    for (auto k = rm[std::size_t(gv)]; k < rm[std::size_t(gv) + 1]; ++k)
      if (g.owner(ent[std::size_t(k)]) != g.comm().rank()) ranks.push_back(g.owner(ent[std::size_t(k)]));
    std::sort(ranks.begin(), ranks.end());
    EXPECT_EQ(ones[std::size_t(v)], std::unique(ranks.begin(), ranks.end()) - ranks.begin())
        << "vertex " << gv;
  }
}

}  // namespace dist_graph_test
