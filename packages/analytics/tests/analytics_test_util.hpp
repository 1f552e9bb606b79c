#pragma once
// Helpers of the analytics tests: the host back-ends (the tasks method needs
// a task driver), the repository's data files (a missing file fails the
// test), and an independent brute-force miniTri on an adjacency matrix.
#include "tessera_test_spaces.hpp"

#include <tessera/analytics.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace analytics_test {

namespace ta = tessera::analytics;
namespace tg = tessera::graph;

// The host back-ends: the analytics task DAGs run on host spaces.
using HostSpaces = tessera::test::HostExecutionSpaces;

template <class Space>
using Graph = tg::compressed_sparse_row_graph<tg::undirectedS, Space>;

// <repository>/examples/data/graphs/<name>; throws (the test fails) when absent.
inline std::string graph_file(const std::string& name) {
  const std::string p = std::string(TESSERA_DATA_DIR) + "/graphs/" + name;
  if (!std::filesystem::exists(p))
    throw std::runtime_error("missing test data file " + p + " (examples/data/graphs of the repository)");
  return p;
}

// The shared graphs and their published triangle counts (examples/data/README.md).
struct known_graph {
  const char* file;
  std::int64_t vertices, edges, triangles;
};
inline const std::vector<known_graph>& known_graphs() {
  static const std::vector<known_graph> g = {
      {"karate.mtx", 34, 78, 45},
      {"jagmesh7.mtx", 1138, 3156, 2016},
      {"G51.mtx", 1000, 5909, 6886},
      {"bcspwr10.mtx", 5300, 8271, 721},
      {"oregon1_010331.txt", 10670, 22002, 17144},
      {"facebook_combined.txt", 4039, 88234, 1612010},
  };
  return g;
}

// Brute force over all vertex triples of an adjacency matrix: t_v, t_e and
// each triangle's k by the definition (the largest k with
// min t_v >= C(k-1, 2) and min t_e >= k - 2, found by counting k upwards).
// O(n^3): for graphs of at most a few hundred vertices.
struct reference_result {
  std::int64_t triangles = 0;
  std::map<int, std::int64_t> histogram;
  std::int64_t n = 0;
  std::vector<std::int64_t> tv;      // t_v of each vertex
  std::vector<std::int64_t> te_all;  // t_e of the pair {i, j}: te(i, j)
  std::int64_t te(std::int64_t i, std::int64_t j) const { return te_all[std::size_t(std::min(i, j) * n + std::max(i, j))]; }
};
inline reference_result brute_force_minitri(const tg::edge_list& el) {
  const std::int64_t n = el.num_vertices;
  std::vector<char> a(std::size_t(n * n), 0);
  for (std::size_t i = 0; i < el.src.size(); ++i)
    if (el.src[i] != el.dst[i]) a[std::size_t(el.src[i] * n + el.dst[i])] = a[std::size_t(el.dst[i] * n + el.src[i])] = 1;
  auto adj = [&](std::int64_t i, std::int64_t j) { return a[std::size_t(i * n + j)] != 0; };
  std::vector<std::int64_t> tv(std::size_t(n), 0), te(std::size_t(n * n), 0);
  std::vector<std::array<std::int64_t, 3>> tris;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = i + 1; j < n; ++j)
      if (adj(i, j))
        for (std::int64_t k = j + 1; k < n; ++k)
          if (adj(i, k) && adj(j, k)) {
            tris.push_back({i, j, k});
            ++tv[i], ++tv[j], ++tv[k];
            ++te[i * n + j], ++te[i * n + k], ++te[j * n + k];
          }
  reference_result r;
  r.triangles = std::int64_t(tris.size());
  for (auto [i, j, k] : tris) {
    const std::int64_t mv = std::min({tv[i], tv[j], tv[k]});
    const std::int64_t me = std::min({te[i * n + j], te[i * n + k], te[j * n + k]});
    int best = 0;
    for (std::int64_t kk = 3;; ++kk) {
      if (mv >= (kk - 1) * (kk - 2) / 2 && me >= kk - 2) best = int(kk);
      else break;
    }
    ++r.histogram[best];
  }
  r.n = n;
  r.tv = std::move(tv);
  r.te_all = std::move(te);
  return r;
}

// G(n, m) with duplicates and loops, as a messy input would have them.
inline tg::edge_list random_graph(std::int64_t n, std::int64_t m, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> d(0, n - 1);
  tg::edge_list el;
  el.num_vertices = n;
  for (std::int64_t i = 0; i < m; ++i) el.add(d(rng), d(rng));
  return el;
}

// The complete graph on vertices [first, first + k) added to el.
inline void add_clique(tg::edge_list& el, std::int64_t first, std::int64_t k) {
  for (std::int64_t i = first; i < first + k; ++i)
    for (std::int64_t j = i + 1; j < first + k; ++j) el.add(i, j);
}

inline std::int64_t choose3(std::int64_t n) { return n * (n - 1) * (n - 2) / 6; }

// Every method, and direct with each of its lookups (marks is the merge on
// a GPU space): direct by marks with per-thread counts, tasks, data, direct
// by merge, direct by marks with shared counts.
inline std::vector<ta::minitri_options> every_method(std::int64_t block = 100) {
  std::vector<ta::minitri_options> v(5);
  v[0].method = ta::method::direct;
  v[0].lookup = ta::triangle_lookup::marks;
  v[0].edge_counts = ta::edge_count_updates::per_thread;
  v[1].method = ta::method::tasks;
  v[1].block_size = block;
  v[2].method = ta::method::data;
  v[3].method = ta::method::direct;
  v[3].lookup = ta::triangle_lookup::merge;
  v[4].method = ta::method::direct;
  v[4].lookup = ta::triangle_lookup::marks;
  v[4].edge_counts = ta::edge_count_updates::shared;
  return v;
}

// "direct/marks", "tasks", ...: what a failure's trace names.
inline std::string describe(const ta::minitri_options& o) {
  if (o.method != ta::method::direct) return ta::to_string(o.method);
  const char* how = o.lookup == ta::triangle_lookup::marks   ? "marks"
                    : o.lookup == ta::triangle_lookup::merge ? "merge"
                                                             : "automatic";
  const char* counts = o.edge_counts == ta::edge_count_updates::per_thread ? "/per-thread counts"
                       : o.edge_counts == ta::edge_count_updates::shared   ? "/shared counts"
                                                                           : "";
  return std::string("direct/") + how + counts;
}

}  // namespace analytics_test
