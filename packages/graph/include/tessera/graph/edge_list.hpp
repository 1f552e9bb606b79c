#pragma once
// edge_list: a host-side list of edges, what the readers and generators
// produce and what graphs are built from.
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::graph {

struct edge_list {
  std::int64_t num_vertices = 0;
  std::vector<std::int64_t> src;  // 0-based
  std::vector<std::int64_t> dst;
  std::vector<double> weights;    // empty, or one value per edge
  // A complex Matrix Market file (read_options::accept_complex): the
  // imaginary parts, one per edge (weights holds the real parts); empty
  // otherwise.
  std::vector<double> weights_imag;
  // True when the source said the edges are undirected (Matrix Market
  // "symmetric" storage lists each edge once): build an undirectedS graph.
  bool symmetric = false;
  std::string origin;             // file name or generator spec, for messages
  // Matrix Market banner words, for readers of matrices (sparse): field
  // ("pattern", "integer", "real", "complex") and symmetry ("general",
  // "symmetric", "skew-symmetric", "hermitian"); empty for other sources.
  std::string mm_field;
  std::string mm_symmetry;
  // Matrix Market size line: rows and columns (0 for other sources). A
  // rectangular matrix read as a bipartite graph (read_options::rectangular)
  // has bipartite = true: vertices [0, mm_rows) are its rows and
  // [mm_rows, mm_rows + mm_cols) its columns, each entry (i, j) the edge
  // (i - 1, mm_rows + j - 1).
  std::int64_t mm_rows = 0;
  std::int64_t mm_cols = 0;
  bool bipartite = false;

  std::int64_t size() const { return std::int64_t(src.size()); }
  bool has_weights() const { return !weights.empty(); }
  void add(std::int64_t u, std::int64_t v) {
    src.push_back(u);
    dst.push_back(v);
  }
  void add(std::int64_t u, std::int64_t v, double w) {
    add(u, v);
    weights.push_back(w);
  }
};

// Progress of a long read, generation or build, called on the calling
// thread between parallel steps: phase is "reading" (bytes of the file
// touched), "parsing" (bytes parsed), "generating" (edges drawn) or
// "building" (steps of the CSR build done); done of total in those units.
using progress_callback = void (*)(const char* phase, std::int64_t done, std::int64_t total, void* user);

// What the CSR build does with the edge list.
struct build_options {
  bool remove_self_loops = false;  // drop (v, v)
  bool remove_duplicates = false;  // keep the first of repeated (u, v) (for undirected: {u, v})
  progress_callback progress = nullptr;  // "building" progress, for large lists
  void* progress_user = nullptr;
  // The usual choice for analytics on simple graphs.
  static build_options simple() { return {true, true, nullptr, nullptr}; }
};

}  // namespace tessera::graph
