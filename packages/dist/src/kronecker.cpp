// One rank's share of the node-level Kronecker generator's edges.
#include <tessera/dist/graph/kronecker.hpp>

#include <stdexcept>
#include <string>

namespace tessera::dist {

graph::edge_list kronecker(const Comm& comm, int scale, int edge_factor, std::uint64_t seed,
                           const graph::kronecker_parameters& p) {
  // Rank r's share of the node-level generator's edge indices, the same
  // split as Partition::uniform. The arguments are the same on every rank,
  // so a bad one is the same error on every rank.
  try {
    return graph::detail::kronecker_share(scale, edge_factor, seed, p, comm.rank(), comm.size());
  } catch (const std::invalid_argument& e) {
    throw dist_error(std::string("tessera::dist::kronecker: ") + e.what());
  }
}

}  // namespace tessera::dist
