#pragma once
// Shared helpers of the distributed-graph tests: the data folder, shares of
// an edge list, the node-level graph every result is compared with, and
// gathering a distributed vector into global order.
#include "tessera_test_spaces.hpp"

#include <tessera/dist.hpp>
#include <tessera/dist/graph.hpp>
#include <tessera/graph.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace dist_graph_test {

namespace td = tessera::dist;
namespace tg = tessera::graph;

inline std::string data(const std::string& name) { return std::string(TESSERA_DATA_DIR) + "/" + name; }

// The repository graphs (examples/data/README.md) with their known facts.
struct known_graph {
  const char* file;
  std::int64_t vertices, edges, triangles, components;
};
inline const std::vector<known_graph>& known_graphs() {
  static const std::vector<known_graph> k = {
      {"graphs/karate.mtx", 34, 78, 45, 1},          {"graphs/jagmesh7.mtx", 1138, 3156, 2016, 1},
      {"graphs/G51.mtx", 1000, 5909, 6886, 1},       {"graphs/bcspwr10.mtx", 5300, 8271, 721, 1},
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
  for (std::size_t i = std::size_t(comm.rank()); i < el.src.size(); i += std::size_t(comm.size())) s.add(el.src[i], el.dst[i]);
  return s;
}

// A distributed vector of owned values, in global vertex order on every rank.
template <class T>
std::vector<T> gather(const td::DistGraph& g, const std::vector<T>& owned) {
  return g.comm().allgatherv(std::vector<T>(owned.begin(), owned.begin() + g.num_owned()));
}

}  // namespace dist_graph_test
