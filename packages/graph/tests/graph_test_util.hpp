#pragma once
// Shared helpers of the graph tests: data location, small graphs, serial
// references.
#include "tessera_test_spaces.hpp"
#include "tessera_test_temp.hpp"

#include <tessera/graph.hpp>

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace graph_test {

namespace tg = tessera::graph;

inline std::string data_dir() {
#ifdef TESSERA_GRAPH_DATA_DIR
  return TESSERA_GRAPH_DATA_DIR;
#else
  return "examples/data";
#endif
}

// Fails the test (with the path) when the repository's data folder is missing.
#define GRAPH_TEST_REQUIRE_DATA()                                                                    \
  do {                                                                                               \
    if (!std::filesystem::is_directory(graph_test::data_dir()))                                      \
      GTEST_FAIL() << "test data not found at " << graph_test::data_dir()                            \
                   << " (the repository's examples/data)";                                          \
  } while (0)

// Host adjacency sets of the simple undirected graph on an edge list (loops
// and duplicates dropped): the reference every test compares against.
inline std::vector<std::vector<std::int64_t>> simple_adjacency(const tg::edge_list& el, bool undirected) {
  std::vector<std::set<std::int64_t>> s(el.num_vertices);
  for (std::size_t i = 0; i < el.src.size(); ++i) {
    if (el.src[i] == el.dst[i]) continue;
    s[el.src[i]].insert(el.dst[i]);
    if (undirected) s[el.dst[i]].insert(el.src[i]);
  }
  std::vector<std::vector<std::int64_t>> a(el.num_vertices);
  for (std::int64_t v = 0; v < el.num_vertices; ++v) a[v].assign(s[v].begin(), s[v].end());
  return a;
}

// Weighted adjacency of the simple graph a build with build_options::simple()
// keeps (loops dropped, the first weight of a repeated edge kept): the
// input of graph_ref::dijkstra.
inline std::vector<std::vector<std::pair<std::int64_t, double>>> simple_weighted_adjacency(
    const tg::edge_list& el, bool undirected) {
  std::vector<std::vector<std::pair<std::int64_t, double>>> a(static_cast<std::size_t>(el.num_vertices));
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  for (std::int64_t i = 0; i < el.size(); ++i) {
    auto u = el.src[i], v = el.dst[i];
    if (u == v) continue;
    auto key = undirected ? std::pair{std::min(u, v), std::max(u, v)} : std::pair{u, v};
    if (!seen.insert(key).second) continue;
    a[u].push_back({v, el.weights[i]});
    if (undirected) a[v].push_back({u, el.weights[i]});
  }
  return a;
}

// wv(k) = hw(origin(k)): each built edge's weight from the input edge it came
// from. A named function: nvcc allows no extended lambda inside a generic lambda.
template <class Exec, class W, class H, class O>
void gather_weights(std::int64_t m, const W& wv, const H& hw, const O& origin) {
  tessera::parallel_for(tessera::RangePolicy<Exec>(0, m), TESSERA_LAMBDA(std::int64_t k) { wv(k) = hw(origin(k)); });
}

// Host copy of a graph's rows: adjacency lists as seen through the generic API.
template <class G>
std::vector<std::vector<std::int64_t>> rows_of(const G& g) {
  const std::int64_t n = tg::num_vertices(g);
  using V = typename tg::graph_traits<G>::vertex_descriptor;
  tessera::View<std::int64_t*, typename G::space_type> deg("deg", n + 1);
  tg::forall_vertices(g, TESSERA_LAMBDA(V v) { deg(v) = tg::out_degree(v, g); });
  tessera::parallel_scan(tessera::RangePolicy<typename G::execution_space>(0, n + 1),
                         TESSERA_LAMBDA(std::int64_t i, std::int64_t & u, bool fin) {
                           const std::int64_t x = i < n ? deg(i) : 0;
                           if (fin) deg(i) = u;
                           u += x;
                         });
  const std::int64_t total = tessera::graph::detail::read_one(deg, n);
  tessera::View<std::int64_t*, typename G::space_type> adj("adj", total);
  tg::forall_vertices(g, TESSERA_LAMBDA(V v) {
    std::int64_t k = deg(v);
    for (auto w : tg::adjacent_vertices(v, g)) adj(k++) = w;
  });
  auto hd = tessera::create_mirror_view_and_copy(tessera::HostSpace(), deg);
  auto ha = tessera::create_mirror_view_and_copy(tessera::HostSpace(), adj);
  std::vector<std::vector<std::int64_t>> out(n);
  for (std::int64_t v = 0; v < n; ++v) out[v].assign(ha.data() + hd(v), ha.data() + hd(v + 1));
  return out;
}

// Files in this test process's own temporary folder (removed at exit).
using tessera::test::temp_path;
using tessera::test::write_temp_file;

// Random edge list with duplicates, loops, isolated vertices.
inline tg::edge_list random_edges(std::int64_t n, std::int64_t m, unsigned seed) {
  std::mt19937_64 rng(seed);
  tg::edge_list el;
  el.num_vertices = n;
  if (n == 0) return el;
  std::uniform_int_distribution<std::int64_t> d(0, n - 1);
  for (std::int64_t i = 0; i < m; ++i) el.add(d(rng), d(rng));
  return el;
}

}  // namespace graph_test
