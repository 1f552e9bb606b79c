// Inputs of miniTri: files through the graph readers, generator specs, and
// the clean-up counts.
#include <tessera/analytics/load.hpp>
#include <tessera/graph/generators.hpp>
#include <tessera/graph/io.hpp>

#include <string>

namespace tessera::analytics {

graph::edge_list load_edges(const std::string& spec) {
  if (!graph::is_kronecker_spec(spec)) return graph::read_edge_list(spec);
  const graph::kronecker_spec k = graph::parse_kronecker_spec(spec, 31);  // 32-bit vertex ids
  auto el = graph::kronecker(k.scale, k.edge_factor, k.seed);
  el.origin = spec;
  return el;
}

cleanup_counts count_cleanup(const graph::edge_list& el, std::int64_t simple_edges) {
  cleanup_counts c;
  c.listed = el.size();
  for (std::size_t i = 0; i < el.src.size(); ++i) c.self_loops += el.src[i] == el.dst[i];
  c.edges = simple_edges;
  c.duplicates = c.listed - c.self_loops - simple_edges;
  return c;
}

}  // namespace tessera::analytics
