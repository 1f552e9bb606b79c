#pragma once
// Parallel readers: each rank parses its own byte range of the file and
// returns its share of the edges (an edge_list with the global
// num_vertices), ready for DistGraph(comm, share). No rank reads the whole
// file: rank r takes the lines that start in the r-th of P equal byte ranges
// of the body (ranges are moved to line starts), and line numbers come from
// an exclusive scan of the ranks' line counts.
//
//   auto share = tessera::dist::read_edge_list(comm, "web.txt");   // .mtx: Matrix Market, else SNAP
//   const tessera::dist::DistGraph g(comm, share);
//
// The formats and their rules are the node-level readers' (graph/io.hpp):
//   read_snap            "u v" or "u v w" lines, 0-based ids below 2^40, '#' or '%'
//                        comments; the first edge line fixes 2 or 3 fields for the
//                        file; num_vertices = largest id + 1 over all ranks.
//   read_matrix_market   coordinate pattern / integer / real, general / symmetric /
//                        skew-symmetric; rank 0 reads the banner and size line and
//                        broadcasts them; entry (i, j) is the edge (i-1, j-1), or
//                        (i-1, rows + j-1) for a rectangular matrix (bipartite, as the
//                        node-level default); the entry count must match the size line.
// Values (weights) are checked but not kept: the distributed graph is
// unweighted.
//
// Errors: bad input on any rank is the same dist_error on every rank,
// "rank r: <file>:<line>: <problem>" for the lowest failing rank (so the
// earliest bad line of the file), with its next bad lines in
// "(also line ...)"; problems only the totals show (too few entries) are
// "<file>:<line>: <problem>" on every rank. Collective.
#include <tessera/dist/comm.hpp>
#include <tessera/graph/edge_list.hpp>

#include <string>

namespace tessera::dist {

graph::edge_list read_snap(const Comm& comm, const std::string& path);
graph::edge_list read_matrix_market(const Comm& comm, const std::string& path);
// By extension, as graph::read_edge_list: ".mtx" Matrix Market, ".tgb" (binary
// CSR) refused, anything else SNAP.
graph::edge_list read_edge_list(const Comm& comm, const std::string& path);

}  // namespace tessera::dist
