#pragma once
// The inputs of miniTri: a file (Matrix Market, SNAP edge list: through the
// graph package's readers) or a Kronecker/R-MAT generator spec, made into
// the simple undirected graph, with what the clean-up did counted.
//
//   auto el = analytics::load_edges("oregon1_010331.txt");      // or "kron:16:16", "kron:16:16:7"
//   analytics::cleanup_counts c;
//   auto g = analytics::build_simple<G>(el, &c);    // c.self_loops dropped, c.duplicates merged
//
// Errors: a file problem is tessera::graph::io_error "<file>:<line>: <problem>";
// a malformed generator spec is std::invalid_argument naming the spec.
#include <tessera/graph/csr_graph.hpp>
#include <tessera/graph/edge_list.hpp>

#include <cstdint>
#include <string>

namespace tessera::analytics {

// A file path, or kron:SCALE:EDGEFACTOR[:SEED] (Graph500 R-MAT, seed 1 by
// default; SCALE in 1..31, EDGEFACTOR in 1..1024).
graph::edge_list load_edges(const std::string& spec);

struct cleanup_counts {
  std::int64_t listed = 0;      // entries in the input (each undirected edge once or twice)
  std::int64_t self_loops = 0;  // entries (v, v), dropped
  std::int64_t duplicates = 0;  // entries naming an edge already listed (either direction), merged
  std::int64_t edges = 0;       // undirected edges of the simple graph
};

// Counts from the list and the simple graph's size: every entry that is
// neither a loop nor the first mention of its edge is a duplicate.
cleanup_counts count_cleanup(const graph::edge_list& el, std::int64_t simple_edges);

// The simple undirected graph of an edge list (loops dropped, duplicates
// merged, either direction), and what that removed.
template <class G>
G build_simple(const graph::edge_list& el, cleanup_counts* counts = nullptr) {
  G g(el, graph::build_options::simple());
  if (counts) *counts = count_cleanup(el, g.num_edges());
  return g;
}

}  // namespace tessera::analytics
