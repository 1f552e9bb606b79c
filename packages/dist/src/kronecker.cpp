// One rank's share of the node-level Kronecker generator's edges.
#include <tessera/dist/graph/kronecker.hpp>
#include <tessera/dist/partition.hpp>

#include <tessera/core.hpp>

#include <string>

namespace tessera::dist {

graph::edge_list kronecker(const Comm& comm, int scale, int edge_factor, std::uint64_t seed,
                           const graph::kronecker_parameters& p) {
  // The same arguments on every rank, so every rank throws the same error.
  auto bad = [](const std::string& what) { throw dist_error("tessera::dist::kronecker: " + what); };
  if (scale < 1 || scale > 40) bad("scale " + std::to_string(scale) + " outside 1..40");
  if (edge_factor < 1) bad("edge factor " + std::to_string(edge_factor) + " must be positive");
  if (p.a < 0 || p.b < 0 || p.c < 0 || p.a + p.b + p.c >= 1.0)
    bad("probabilities a, b, c must be non-negative with a + b + c < 1");
  const std::int64_t n = std::int64_t(1) << scale;
  const std::int64_t m = n * edge_factor;
  const Partition edges = Partition::uniform(m, comm.size());
  const std::int64_t lo = edges.begin(comm.rank()), count = edges.count(comm.rank());
  graph::edge_list el;
  el.num_vertices = n;
  el.origin = "kron:" + std::to_string(scale) + ":" + std::to_string(edge_factor);
  el.src.resize(std::size_t(count));
  el.dst.resize(std::size_t(count));
  std::int64_t* src = el.src.data();
  std::int64_t* dst = el.dst.data();
  using Host = tessera::DefaultHostExecutionSpace;
  tessera::parallel_for("dist::kronecker", tessera::RangePolicy<Host>(0, count), [=](std::int64_t k) {
    graph::detail::kronecker_edge(scale, seed, p, lo + k, src[k], dst[k]);
  });
  if (p.permute_vertices) {
    const std::vector<std::int64_t> perm = graph::detail::kronecker_permutation(scale, seed);
    const std::int64_t* pp = perm.data();
    tessera::parallel_for("dist::kronecker::permute", tessera::RangePolicy<Host>(0, count),
                          [=](std::int64_t k) {
                            src[k] = pp[src[k]];
                            dst[k] = pp[dst[k]];
                          });
  }
  return el;
}

}  // namespace tessera::dist
