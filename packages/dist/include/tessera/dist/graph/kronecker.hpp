#pragma once
// This rank's share of the Graph500 Kronecker (R-MAT a=.57, b=.19, c=.19)
// graph of graph::kronecker(scale, edge_factor, seed, p): the edge indices
// [m*r/P, m*(r+1)/P) of the m = edge_factor * 2^scale edges, each drawn
// from its own counter-based stream exactly as the node-level generator
// draws it (graph::detail::kronecker_edge), then relabelled by the same
// vertex permutation. DistGraph(comm, kronecker(comm, ...)) therefore equals
// the node-level graph built from graph::kronecker(...) with
// build_options::simple(). Each rank computes the permutation itself: 8
// bytes per vertex, against 16 * edge_factor per vertex for the whole edge
// list. Bad arguments throw the same dist_error on every rank. Collective
// only in that every rank must call it.
#include <tessera/dist/comm.hpp>
#include <tessera/graph/edge_list.hpp>
#include <tessera/graph/generators.hpp>

#include <cstdint>

namespace tessera::dist {

graph::edge_list kronecker(const Comm& comm, int scale, int edge_factor, std::uint64_t seed,
                           const graph::kronecker_parameters& p = {});

}  // namespace tessera::dist
